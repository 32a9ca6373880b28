"""A trajectory: CSV ``time,lat,lon`` (time optional) or GPX tracks (gpxpy).

GPX: the points of every track and segment in file order (routes if there is no
track); points without a time keep their order. Waypoints are reported as candidate
landmarks, each attached to the nearest track point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gpxpy
import gpxpy.gpx
import numpy as np
import pandas as pd

from lmdk_core.data.tables import (
    MAX_ROWS,
    Source,
    numeric_column,
    parse_times,
    read_bytes,
    read_csv_table,
)
from lmdk_core.geodesy import distance_m
from lmdk_core.mechanisms.planar_laplace import check_coordinates
from lmdk_core.validation import InputError

__all__ = ["Track", "Waypoint", "load_track", "load_track_csv", "load_track_gpx"]


@dataclass(frozen=True)
class Waypoint:
    """A GPX waypoint offered as a landmark candidate at track point ``index``."""

    name: str
    lat: float
    lon: float
    index: int
    distance_m: float


@dataclass(frozen=True)
class Track:
    """Points t = 0..T-1 with ``lat``/``lon`` in degrees; ``time`` may hold NaT/NaN."""

    lat: np.ndarray
    lon: np.ndarray
    time: np.ndarray
    time_kind: str = "datetime"  # 'datetime', 'number' or 'index'
    name: str = "track"
    waypoints: list[Waypoint] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.lat.size)

    def points(self) -> np.ndarray:
        """``[lat, lon]`` rows."""
        return np.column_stack([self.lat, self.lon])

    def frame(self) -> pd.DataFrame:
        """The track as a ``time,lat,lon`` table."""
        return pd.DataFrame({"time": self.time, "lat": self.lat, "lon": self.lon})


def _nearest_waypoints(lat: np.ndarray, lon: np.ndarray, wpts) -> list[Waypoint]:
    out = []
    for w in wpts:
        d = distance_m(lat, lon, w.latitude, w.longitude)
        i = int(np.argmin(d))
        out.append(Waypoint(w.name or f"waypoint {len(out) + 1}", float(w.latitude),
                            float(w.longitude), i, float(d[i])))
    return out


def load_track_csv(source: Source, name: str = "uploaded track") -> Track:
    """Read and validate a CSV with columns ``lat,lon`` and optionally ``time``."""
    df = read_csv_table(source, ["lat", "lon"], optional=["time"])
    lat, lon = check_coordinates(numeric_column(df, "lat"), numeric_column(df, "lon"))
    if "time" in df.columns:
        times, kind = parse_times(df, "time")
    else:
        times, kind = np.arange(lat.size, dtype=float), "index"
    return Track(lat=lat, lon=lon, time=times, time_kind=kind, name=name)


def load_track_gpx(source: Source, name: str = "uploaded track") -> Track:
    """Read a GPX file's track points (or route points) and waypoints."""
    data = read_bytes(source, "the GPX file")
    try:
        gpx = gpxpy.parse(data.decode("utf-8-sig", errors="strict"))
    except UnicodeDecodeError:
        raise InputError("the file is not a GPX file (it is not UTF-8 text)") from None
    except gpxpy.gpx.GPXException as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "unreadable"
        raise InputError(f"the file is not a valid GPX file: {msg}") from None
    pts = [p for t in gpx.tracks for s in t.segments for p in s.points]
    if not pts:
        pts = [p for r in gpx.routes for p in r.points]
    if not pts:
        raise InputError("the GPX file has no track or route points")
    if len(pts) > MAX_ROWS:
        raise InputError(f"the GPX file has {len(pts):,} points; the limit is {MAX_ROWS:,}")
    lat, lon = check_coordinates([p.latitude for p in pts], [p.longitude for p in pts])
    stamps = [p.time for p in pts]
    if any(s is not None for s in stamps):
        times = pd.to_datetime(
            [pd.NaT if s is None else pd.Timestamp(s) for s in stamps], utc=True
        ).tz_localize(None).to_numpy()
        kind = "datetime"
    else:
        times, kind = np.arange(lat.size, dtype=float), "index"
    return Track(lat=lat, lon=lon, time=times, time_kind=kind, name=name,
                 waypoints=_nearest_waypoints(lat, lon, gpx.waypoints))


def load_track(source: Source, filename: str | None = None, name: str | None = None) -> Track:
    """Load a track from CSV or GPX, chosen by the file name's extension (or content)."""
    fname = (filename or (source if isinstance(source, str) else "") or "").lower()
    label = name or (filename or "uploaded track")
    if fname.endswith(".gpx"):
        return load_track_gpx(source, label)
    if fname.endswith(".csv") or fname.endswith(".txt"):
        return load_track_csv(source, label)
    data = read_bytes(source, "the track file")
    if data.lstrip().startswith(b"<"):
        return load_track_gpx(data, label)
    return load_track_csv(data, label)
