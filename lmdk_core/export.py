"""Tables and GeoJSON of a finished release, shared by the CLI and the app's downloads."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.release import Release

__all__ = ["leakage_frame", "series_release_frame", "trajectory_geojson",
           "trajectory_release_frame", "time_labels"]


def time_labels(time: np.ndarray, kind: str) -> list:
    """Times as written to files: ISO-8601 strings, whole numbers where integral."""
    t = np.asarray(time)
    if kind == "datetime":
        return [None if pd.isna(x) else pd.Timestamp(x).isoformat() for x in t]
    tf = t.astype(float)
    if np.all(tf == np.round(tf)):
        return [int(x) for x in tf]
    return [float(x) for x in tf]


def leakage_frame(time: np.ndarray, kind: str, result) -> pd.DataFrame:
    """``t,time,epsilon,landmark,bpl,fpl,tpl[,landmark_tpl]`` of a
    :class:`~lmdk_core.leakage.LeakageResult` (one row per timestamp)."""
    T = result.epsilon_t.size
    is_lm = np.zeros(T, dtype=bool)
    if result.landmarks is not None:
        is_lm[result.landmarks] = True
    out = pd.DataFrame({"t": np.arange(T), "time": time_labels(time, kind),
                        "epsilon": result.epsilon_t, "landmark": is_lm, "bpl": result.bpl,
                        "fpl": result.fpl, "tpl": result.tpl})
    if result.landmark_tpl is not None:
        out["landmark_tpl"] = result.landmark_tpl
    return out


def series_release_frame(series: Series, rel: Release) -> pd.DataFrame:
    """``time,value,released,epsilon,published`` (released is empty where withheld)."""
    return pd.DataFrame({
        "time": time_labels(series.time, series.time_kind),
        "value": series.values,
        "released": rel.released,
        "epsilon": rel.epsilon_t,
        "published": rel.published,
    })


def trajectory_release_frame(track: Track, rel: Release) -> pd.DataFrame:
    """``time,lat,lon,released_lat,released_lon,epsilon,published``."""
    return pd.DataFrame({
        "time": time_labels(track.time, track.time_kind),
        "lat": track.lat,
        "lon": track.lon,
        "released_lat": rel.released[:, 0],
        "released_lon": rel.released[:, 1],
        "epsilon": rel.epsilon_t,
        "published": rel.published,
    })


def _line(lat: np.ndarray, lon: np.ndarray) -> dict:
    coords = [[round(float(b), 7), round(float(a), 7)] for a, b in zip(lat, lon, strict=True)]
    if len(coords) == 1:
        return {"type": "Point", "coordinates": coords[0]}
    return {"type": "LineString", "coordinates": coords}


def trajectory_geojson(track: Track, rel: Release) -> dict:
    """A FeatureCollection: the original path, the released path (withheld points
    left out), one Point per landmark (its original location) and one Point per
    released location with its timestamp, ε_t and whether it was published."""
    times = time_labels(track.time, track.time_kind)
    ok = ~rel.withheld
    feats = [
        {"type": "Feature", "geometry": _line(track.lat, track.lon),
         "properties": {"kind": "original", "name": track.name, "points": len(track)}},
    ]
    if ok.any():
        feats.append({"type": "Feature",
                      "geometry": _line(rel.released[ok, 0], rel.released[ok, 1]),
                      "properties": {"kind": "released", "scheme": rel.scheme,
                                     "epsilon": rel.epsilon,
                                     "landmark_private": rel.verdict.private}})
    for t in rel.landmarks:
        feats.append({"type": "Feature",
                      "geometry": {"type": "Point", "coordinates": [float(track.lon[t]),
                                                                    float(track.lat[t])]},
                      "properties": {"kind": "landmark", "t": int(t), "time": times[t]}})
    for t in np.flatnonzero(ok):
        feats.append({"type": "Feature",
                      "geometry": {"type": "Point",
                                   "coordinates": [float(rel.released[t, 1]),
                                                   float(rel.released[t, 0])]},
                      "properties": {"kind": "released_point", "t": int(t), "time": times[t],
                                     "epsilon": float(rel.epsilon_t[t]),
                                     "published": bool(rel.published[t])}})
    return {"type": "FeatureCollection", "features": feats}


def geojson_text(obj: dict) -> str:
    """Compact, valid JSON text (no NaN)."""
    return json.dumps(obj, allow_nan=False)
