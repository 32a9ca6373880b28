"""Files of a finished release, shared by the CLI and the app's downloads.

Two kinds, never mixed:

* **publishable** ("release") files hold the released values only — the time (or the
  index) and the released value, or the released latitude and longitude; withheld
  timestamps are left empty. No raw value, no landmark flag, no per-timestamp ε_t and
  no published flag (under Skip or Uniform they reveal the landmark set L), no original
  path, no landmark coordinates, no seed (a known seed regenerates the noise). A short
  header — ``#`` comment lines in a CSV, a top-level ``properties`` object in GeoJSON —
  states ε, the scheme, the mechanism and which noise sampler produced the values;
* **confidential / audit** files keep everything (original and released values, ε_t,
  the published flag, the landmarks, the seed when given) and say
  :data:`CONFIDENTIAL_LABEL` in their first line and in their file name.

``pd.read_csv(path, comment="#")`` and the app's own loaders read both CSV kinds back.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.data.track_times import iso_time_labels
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.release import Release

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = [
    "CONFIDENTIAL_LABEL",
    "NUMPY_NOISE",
    "TEACHING_NOTE",
    "teaching_filename",
    "teaching_note",
    "PLANAR_NOISE",
    "planar_noise_text",
    "confidential_filename",
    "csv_with_header",
    "geojson_text",
    "leakage_frame",
    "max_landmarks_line",
    "mechanism_text",
    "noise_text",
    "METRES_PER_DEGREE",
    "publishable_filename",
    "release_decimals",
    "release_header",
    "rounding_line",
    "series_audit_csv",
    "series_publishable_csv",
    "series_publishable_frame",
    "series_release_frame",
    "time_labels",
    "trajectory_audit_csv",
    "trajectory_geojson",
    "trajectory_publishable_csv",
    "trajectory_publishable_frame",
    "trajectory_publishable_geojson",
    "trajectory_release_frame",
]

#: the label of every confidential file (first line, file name, button)
CONFIDENTIAL_LABEL = "CONFIDENTIAL — contains the raw data and the landmark set"
#: the noise sampler of the app's exploration views (numpy's floating-point samplers,
#: which leak through their rounding pattern; Mironov, CCS 2012)
NUMPY_NOISE = "numpy (exploration only)"
#: the noise sampler of a track released with numpy's floating-point Planar Laplace
#: (``--noise fast``, the app's previews): exploration only (Mironov, CCS 2012)
PLANAR_NOISE = ("numpy floating-point Planar Laplace (fast; not protected against Mironov "
                "2012: exploration only, publish with the exact sampler on a declared region)")


def planar_noise_text(noise: str, radius: float, region=None) -> str:
    """What a track file's header says about its sampler: the exact Planar Laplace with
    its public grid and region (:mod:`lmdk_core.mechanisms.exact_planar`) for
    ``"exact"``, :data:`PLANAR_NOISE` otherwise."""
    if noise == "exact":
        from lmdk_core.mechanisms.exact_planar import ExactPlanarLaplace

        return ExactPlanarLaplace(radius, region).sampler
    return PLANAR_NOISE


def noise_text(noise: str) -> str:
    """What a file's header says about the sampler of ``Release.noise``: the project's
    exact discrete Laplace (:func:`~lmdk_core.mechanisms.exact_noise.sampler_description`)
    for ``"exact"``, numpy's otherwise."""
    if noise == "exact":
        from lmdk_core.mechanisms.exact_noise import sampler_description

        return sampler_description()
    from lmdk_core.mechanisms.exact_noise import FAST_SAMPLER_NAME

    return FAST_SAMPLER_NAME


#: what every file made in the teaching mode says (header line, note, label)
TEACHING_NOTE = ("TEACHING MODE — fixed seed {seed}: anyone who knows it regenerates the "
                 "noise and recovers the data; NOT publishable")


def teaching_note(seed: int) -> str:
    """The line every file made in the teaching (reproducible) mode carries."""
    return TEACHING_NOTE.format(seed=int(seed))


def teaching_filename(stem: str, ext: str) -> str:
    """``lmdk_TEACHING_<stem>.<ext>`` — a file made with the fixed teaching seed (never
    called publishable)."""
    return f"lmdk_TEACHING_{stem}.{ext}"


def publishable_filename(kind: str, ext: str) -> str:
    """``lmdk_release_<kind>.<ext>`` — the name of a publishable file."""
    return f"lmdk_release_{kind}.{ext}"


def confidential_filename(stem: str, ext: str) -> str:
    """``lmdk_CONFIDENTIAL_<stem>.<ext>`` — the name of a confidential file."""
    return f"lmdk_CONFIDENTIAL_{stem}.{ext}"


def mechanism_text(mechanism: str, sensitivity: float | None = None,
                   radius: float | None = None, bounds=None) -> str:
    """The mechanism in words with its declared public parameter, e.g. ``Laplace,
    declared sensitivity Δf = 1``, ``Laplace, declared bounds [0, 5] (readings clamped
    into them), Δf = HI − LO = 5`` (``bounds``: the declared ``(LO, HI)``) or ``Planar Laplace,
    protection radius r = 100 m``. Δf is always a declared bound, never computed from
    the data (docs/privacy-model.md)."""
    key = str(mechanism).strip().lower().replace("_", " ").replace("-", " ")
    names = {"laplace": "Laplace", "geometric": "Geometric (two-sided)",
             "planar laplace": "Planar Laplace (geo-indistinguishability)"}
    text = names.get(key, str(mechanism))
    if radius is not None:
        return f"{text}, protection radius r = {float(radius):g} m"
    if bounds is not None:
        lo, hi = (float(b) for b in bounds)
        return (f"{text}, declared bounds [{lo:g}, {hi:g}] (readings clamped into them), "
                f"Δf = HI − LO = {hi - lo:g}")
    if sensitivity is not None:
        return f"{text}, declared sensitivity Δf = {float(sensitivity):g}"
    return text


#: metres in one degree of latitude (the mean meridian degree); a degree of longitude is
#: never longer, so a step of ``q`` degrees moves a point by at most ``q`` × this
METRES_PER_DEGREE = 111_320.0
#: how far below the noise scale the rounding step of a released value lies (10^-3)
ROUNDING_DIGITS_BELOW_SCALE = 3


def release_decimals(epsilon: float, scale_at_one: float, *, degrees: bool = False) -> int:
    """Decimal places a released value keeps in a publishable file.

    The noise at timestamp t has scale ``b_t = s/ε_t`` (Laplace and Geometric: ``s = Δf``,
    mean absolute error ``Δf/ε_t``; Planar Laplace: ``s = r``, mean displacement
    ``2r/ε_t``, Andrés et al. CCS'13). Since every ``ε_t ≤ ε`` (Katsomallos et al.
    CODASPY'22), ``b_ε = s/ε`` is the smallest scale of any timestamp. Values are
    rounded to the step ``q = 10^(⌊log10 b_ε⌋ − 3) ≤ b_ε/1000``: the rounding moves a
    value by at most ``q/2 ≤ b_t/2000``, 0.05 % of the noise. The step depends on ε and
    Δf (or r) only, both stated in the header, never on ε_t or the landmarks; rounding
    is post-processing of released values, so the privacy guarantee is unchanged.
    For a track (``degrees``), ``b_ε`` in metres is first turned into degrees of
    latitude (:data:`METRES_PER_DEGREE`).

    >>> release_decimals(1.0, 2.9)      # b = 2.9  -> step 0.001
    3
    >>> release_decimals(0.1, 1.0)      # b = 10   -> step 0.01
    2
    >>> release_decimals(1.0, 100.0, degrees=True)   # 100 m -> ~9e-4 degrees -> 1e-7
    7
    """
    b = float(scale_at_one) / float(epsilon)
    if degrees:
        b /= METRES_PER_DEGREE
    if not (np.isfinite(b) and b > 0):
        raise ValueError(f"noise scale {b!r} must be a positive number")
    return max(0, ROUNDING_DIGITS_BELOW_SCALE - int(np.floor(np.log10(b))))


def rounding_line(decimals: int, what: str = "released values") -> str:
    """The header line that says how the released values were rounded, and why."""
    return (f"{what} rounded to {decimals} decimal places: a step of at most 1/1000 of the "
            "smallest noise scale, from ε and Δf or r (post-processing of released values; "
            "the privacy guarantee is unchanged)")


def max_landmarks_line(k: int) -> str:
    """The header line of the declared bound k on landmark events (public; never |L|)."""
    return (f"k (declared bound on landmark events): {int(k)} — Uniform spends ε/(k+1); "
            "how many events are marked is not disclosed")


def release_header(rel: Release, mechanism: str, noise: str = NUMPY_NOISE) -> list[str]:
    """The lines (without ``#``) that head a publishable file: ε, scheme, the declared
    bound k on landmark events (when declared), mechanism with its declared parameter and
    noise sampler. Nothing about the landmark set, the raw data or the seed."""
    info = scheme_info(rel.scheme)
    lines = [
        "Landmark Privacy Explorer — publishable release (released values only)",
        f"epsilon: {rel.epsilon:g} (landmark privacy, Katsomallos et al. CODASPY 2022)",
        f"scheme: {info.label}",
    ]
    k = getattr(rel, "max_landmarks", None)
    if k is not None:
        lines.append(max_landmarks_line(k))
    return lines + [
        f"mechanism: {mechanism}",
        f"noise: {noise}",
        "withheld timestamps (nothing released yet) are empty",
    ]


def csv_with_header(lines: Iterable[str], frame: pd.DataFrame) -> str:
    """``# line`` for each header line, then the CSV of ``frame`` (no index)."""
    head = "".join(f"# {ln}\n" for ln in lines)
    buf = io.StringIO()
    frame.to_csv(buf, index=False, lineterminator="\n")
    return head + buf.getvalue()


def _time_column(time: np.ndarray, kind: str, utc: bool = False) -> tuple[str, list]:
    if kind == "index":
        return "t", list(range(len(time)))
    return "time", time_labels(time, kind, utc)


def series_publishable_frame(series: Series, rel: Release,
                             decimals: int | None = None) -> pd.DataFrame:
    """``time,released`` (``released`` is empty where withheld), rounded to ``decimals``
    places when given (:func:`release_decimals`)."""
    import pandas as pd

    col, times = _time_column(series.time, series.time_kind, series.utc)
    released = np.asarray(rel.released, dtype=float)
    if decimals is not None:
        released = np.round(released, decimals)
    return pd.DataFrame({col: times, "released": released})


def series_publishable_csv(series: Series, rel: Release, mechanism: str,
                           noise: str = NUMPY_NOISE, *,
                           sensitivity: float | None = None) -> str:
    """The publishable CSV of a series release: header lines, then ``time,released``.
    With the mechanism's ``sensitivity`` Δf the values are rounded to
    :func:`release_decimals` ``(ε, Δf)`` places and the header says so."""
    header = release_header(rel, mechanism, noise)
    decimals = None
    if sensitivity is not None:
        decimals = release_decimals(rel.epsilon, sensitivity)
        header.append(rounding_line(decimals))
    return csv_with_header(header, series_publishable_frame(series, rel, decimals))


def _audit_lines(rel: Release, mechanism: str, noise: str, seed: int | None) -> list[str]:
    lines = [CONFIDENTIAL_LABEL,
             "internal audit table: do not publish (the original values and the "
             "epsilon/published columns reveal the landmarks)",
             f"epsilon: {rel.epsilon:g}", f"scheme: {scheme_info(rel.scheme).label}",
             f"mechanism: {mechanism}", f"noise: {noise}",
             "landmarks (0-based timestamps): "
             + (",".join(str(int(t)) for t in rel.landmarks) or "none")]
    stays = getattr(rel, "stays", ())
    if stays:  # each released once from its centroid (docs/stays.md)
        lines.append("stays, one landmark event each (0-based ranges): "
                     + ",".join(f"{a}-{b}" for a, b in stays))
    if seed is not None:
        lines.append(f"seed: {seed}")
    return lines


def series_audit_csv(series: Series, rel: Release, mechanism: str, noise: str = NUMPY_NOISE,
                     seed: int | None = None) -> str:
    """The confidential audit CSV: a CONFIDENTIAL header (landmarks, seed), then
    ``time,value,released,epsilon,published``."""
    return csv_with_header(_audit_lines(rel, mechanism, noise, seed),
                           series_release_frame(series, rel))


def time_labels(time: np.ndarray, kind: str, utc: bool = False) -> list:
    """Times as written to files: ISO-8601 strings, whole numbers where integral. With
    ``utc`` (the file's times carried a zone offset and were converted to UTC, or GPX /
    GeoLife times, which are UTC) every datetime ends in ``Z``: a converted time is never
    written as if it were local (docs/data-formats.md)."""
    if kind == "datetime":
        return iso_time_labels(time, utc)
    tf = np.asarray(time).astype(float)
    if np.all(tf == np.round(tf)):
        return [int(x) for x in tf]
    return [float(x) for x in tf]


def leakage_frame(time: np.ndarray, kind: str, result) -> pd.DataFrame:
    """``t,time,epsilon,landmark,bpl,fpl,tpl[,landmark_tpl]`` of a
    :class:`~lmdk_core.leakage.LeakageResult` (one row per timestamp)."""
    import pandas as pd

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
    import pandas as pd

    return pd.DataFrame({
        "time": time_labels(series.time, series.time_kind, series.utc),
        "value": series.values,
        "released": rel.released,
        "epsilon": rel.epsilon_t,
        "published": rel.published,
    })


def trajectory_release_frame(track: Track, rel: Release) -> pd.DataFrame:
    """``time,lat,lon,released_lat,released_lon,epsilon,published`` (+ ``segment`` when
    the track has several pieces)."""
    import pandas as pd

    return _with_segment(track, pd.DataFrame({
        "time": time_labels(track.time, track.time_kind, track.utc),
        "lat": track.lat,
        "lon": track.lon,
        "released_lat": rel.released[:, 0],
        "released_lon": rel.released[:, 1],
        "epsilon": rel.epsilon_t,
        "published": rel.published,
    }))


def _with_segment(track: Track, frame: pd.DataFrame) -> pd.DataFrame:
    """Add the ``segment`` column (piece of each point: GPX track segment) when the
    track has several pieces, so that nobody draws a line across their gaps."""
    if track.n_segments > 1:
        frame["segment"] = track.segment
    return frame


def _path(track: Track, lat: np.ndarray, lon: np.ndarray, ok: np.ndarray) -> dict:
    """The points ``ok`` as a LineString, or a MultiLineString with one line per piece
    when the track has several (no line across a gap)."""
    if track.n_segments == 1:
        return _line(lat[ok], lon[ok])
    parts = []
    for a, b in track.segment_ranges():
        keep = np.flatnonzero(ok[a:b]) + a
        if keep.size:
            parts.append([[round(float(lon[i]), 7), round(float(lat[i]), 7)] for i in keep])
    return {"type": "MultiLineString", "coordinates": parts}


def _line(lat: np.ndarray, lon: np.ndarray) -> dict:
    coords = [[round(float(b), 7), round(float(a), 7)] for a, b in zip(lat, lon, strict=True)]
    if len(coords) == 1:
        return {"type": "Point", "coordinates": coords[0]}
    return {"type": "LineString", "coordinates": coords}


def trajectory_geojson(track: Track, rel: Release) -> dict:
    """The **confidential** audit FeatureCollection: the original path, the released
    path (withheld points left out), one Point per landmark (its original location) and
    one Point per released location with its timestamp, ε_t and whether it was
    published; the top-level ``properties.confidential`` says :data:`CONFIDENTIAL_LABEL`."""
    times = time_labels(track.time, track.time_kind, track.utc)
    ok = ~rel.withheld
    feats = [
        {"type": "Feature",
         "geometry": _path(track, track.lat, track.lon, np.ones(len(track), dtype=bool)),
         "properties": {"kind": "original", "name": track.name, "points": len(track)}},
    ]
    if ok.any():
        feats.append({"type": "Feature",
                      "geometry": _path(track, rel.released[:, 0], rel.released[:, 1], ok),
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
    return {"type": "FeatureCollection",
            "properties": {"confidential": CONFIDENTIAL_LABEL,
                           "landmarks": [int(t) for t in rel.landmarks]},
            "features": feats}


def trajectory_publishable_frame(track: Track, rel: Release,
                                 decimals: int | None = None) -> pd.DataFrame:
    """``time,released_lat,released_lon`` (``t`` instead of ``time`` for a track without
    times; both coordinates empty where withheld), rounded to ``decimals`` places of a
    degree when given (:func:`release_decimals`)."""
    import pandas as pd

    col, times = _time_column(track.time, track.time_kind, track.utc)
    r = np.asarray(rel.released, dtype=float)
    if decimals is not None:
        r = np.round(r, decimals)
    return _with_segment(track, pd.DataFrame({col: times, "released_lat": r[:, 0],
                                              "released_lon": r[:, 1]}))


def trajectory_publishable_csv(track: Track, rel: Release, mechanism: str,
                               noise: str = NUMPY_NOISE, *,
                               radius: float | None = None) -> str:
    """The publishable CSV of a trajectory release: header lines, then
    ``time,released_lat,released_lon``. With the protection ``radius`` r (metres) the
    coordinates are rounded to :func:`release_decimals` ``(ε, r, degrees=True)`` places
    and the header says so."""
    header = release_header(rel, mechanism, noise)
    decimals = None
    if radius is not None:
        decimals = release_decimals(rel.epsilon, radius, degrees=True)
        header.append(rounding_line(decimals, "released coordinates (degrees)"))
    return csv_with_header(header, trajectory_publishable_frame(track, rel, decimals))


def trajectory_audit_csv(track: Track, rel: Release, mechanism: str, noise: str = NUMPY_NOISE,
                         seed: int | None = None) -> str:
    """The confidential audit CSV: a CONFIDENTIAL header (landmarks, seed), then
    ``time,lat,lon,released_lat,released_lon,epsilon,published``."""
    return csv_with_header(_audit_lines(rel, mechanism, noise, seed),
                           trajectory_release_frame(track, rel))


def trajectory_publishable_geojson(track: Track, rel: Release, mechanism: str,
                                   noise: str = NUMPY_NOISE) -> dict:
    """The publishable FeatureCollection: the released path (a LineString of the
    released points, withheld ones left out) and one Feature per timestamp with its
    time and released location (``geometry: null`` where withheld). The top-level
    ``properties`` hold the header (ε, scheme, mechanism, noise sampler); nothing about
    the original path, the landmarks, ε_t or the seed."""
    col, times = _time_column(track.time, track.time_kind, track.utc)
    r = np.asarray(rel.released, dtype=float)
    ok = ~rel.withheld
    header = release_header(rel, mechanism, noise)
    props = {"title": header[0], "epsilon": float(rel.epsilon),
             "scheme": scheme_info(rel.scheme).label, "mechanism": mechanism, "noise": noise,
             "note": header[-1]}
    feats: list[dict[str, object]] = []
    if ok.any():
        feats.append({"type": "Feature", "geometry": _path(track, r[:, 0], r[:, 1], ok),
                      "properties": {"kind": "released_path"}})
    for t in range(len(times)):
        geom = ({"type": "Point", "coordinates": [round(float(r[t, 1]), 7),
                                                  round(float(r[t, 0]), 7)]}
                if ok[t] else None)
        feats.append({"type": "Feature", "geometry": geom,
                      "properties": {"kind": "released_point", col: times[t]}})
    return {"type": "FeatureCollection", "properties": props, "features": feats}


def geojson_text(obj: dict) -> str:
    """Compact, valid JSON text (no NaN)."""
    return json.dumps(obj, allow_nan=False)
