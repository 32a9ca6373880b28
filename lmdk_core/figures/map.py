"""Figures of the Map page: the layers of the Leaflet map of a trajectory release (as
one JSON-ready value that the page's map component draws) and the small tables shown
beside them (the budget / displacement / leakage panels are in
:mod:`lmdk_core.figures.track_budget`).

Everything here takes data and returns figures, tables or plain values; no streamlit.
Colours follow :data:`lmdk_core.figures.COLORS` (original grey, released blue,
landmarks red, approximations orange).

The map's value has two parts so that the page redraws only what changed:
:func:`base_spec` depends on the track only (bounds, original path, clickable track
points; computed once per track) and :func:`overlay_spec` on the release (released path
and points, expected displacement circles, landmarks, suggestions, waypoints).
:func:`map_spec` puts both together. Tooltips are plain text, shown as text by the page
(a waypoint or file name from an uploaded file is never read as HTML). The map draws
with Leaflet shipped in ``assets/leaflet`` (no internet needed); the background is
plain unless online tiles are asked for explicitly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from lmdk_core.data.digest import array_digest
from lmdk_core.data.track import Track, Waypoint
from lmdk_core.engine.release import Release
from lmdk_core.engine.stay_events import centroid, condense, condensed_points, stay_members
from lmdk_core.figures.common import (
    COLORS,
    data_labels,
)
from lmdk_core.figures.epsilon_preview import LINEAR_SCHEMES
from lmdk_core.figures.object_memo import per_object
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.foundation.quoting import shorten_user_text
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace

__all__ = [
    "LEAFLET_DIR",
    "LEGEND",
    "MAP_COLORS",
    "MAX_CIRCLES",
    "MAX_MARKERS",
    "base_spec",
    "displacement_summary",
    "expected_displacement_quantile",
    "landmark_frame",
    "map_payload",
    "map_spec",
    "marker_indices",
    "nearest_in_time",
    "overlay_spec",
    "revisit_candidates",
    "track_noise_bases",
]

#: vendored Leaflet 1.9 (BSD-2-Clause, see its LICENSE there), drawn by the page's map
LEAFLET_DIR = Path(__file__).resolve().parents[2] / "assets" / "leaflet"
#: at most this many clickable track points / released points are drawn (thinned above)
MAX_MARKERS = 1500
#: at most this many expected-displacement circles are drawn
MAX_CIRCLES = 100

MAP_COLORS = {
    **COLORS,
    "point": "#555555",
    "suggestion": COLORS["approximated"],
    "waypoint": COLORS["tpl"],
    "circle": COLORS["released"],
}

# --------------------------------------------------------------------------- legend
#: the map's legend: (kind, stroke colour, fill colour, text); kind is "line",
#: "dashed", "dot" or "target" (a dot in a dark ring: the landmarks, told apart by shape,
#: not by colour alone; the size in px follows the text)
LEGEND: list[tuple[str, str, str, str]] = [
    ("line", MAP_COLORS["original"], "", "original path"),
    ("dot8", MAP_COLORS["point"], "#ffffff", "track point (click: landmark on/off)"),
    ("target12", "#ffffff", MAP_COLORS["landmark"], "landmark: a ringed dot (click to remove)"),
    ("dot8", MAP_COLORS["released"], MAP_COLORS["released"],
     "released point (a noisy location, under the true path)"),
    ("line", MAP_COLORS["released"], "", "released points joined (off: Layers button)"),
    ("dot8", MAP_COLORS["approximated"], "#ffffff", "approximation (ε_t = 0)"),
    ("dashed", MAP_COLORS["circle"], "", "expected displacement 2r/ε_t"),
    ("dot14", MAP_COLORS["landmark"], "#ffd6d6", "stay, one landmark event"),
    ("dot10", MAP_COLORS["suggestion"], "#ffe0b2", "suggested stay"),
    ("dot10", MAP_COLORS["waypoint"], "#e1d5f0", "waypoint / place"),
]


# --------------------------------------------------------------------------- helpers
def marker_indices(T: int, max_markers: int = MAX_MARKERS,
                   keep: Iterable[int] = ()) -> np.ndarray:
    """Indices of the points to draw: all of them up to ``max_markers``, else an evenly
    spaced subset (always with the first and last point and every index in ``keep``)."""
    if T <= max_markers:
        idx = np.arange(T)
    else:
        idx = np.unique(np.linspace(0, T - 1, max_markers).round().astype(int))
    extra = np.asarray([int(k) for k in keep if 0 <= int(k) < T], dtype=int)
    return np.union1d(idx, extra).astype(int)


def _coords(values: np.ndarray) -> list[float]:
    """Degrees rounded to 6 decimals (~0.1 m): plenty on a screen, a third less JSON."""
    return np.round(np.asarray(values, float), 6).tolist()


def _budgets(eps: np.ndarray) -> list[float]:
    """Budgets for tooltips (shown with 3 significant digits): 6 significant digits
    instead of Python's 17 keep the JSON short."""
    return [float(f"{v:.6g}") for v in np.asarray(eps, float)]


def _pieces(lat: np.ndarray, lon: np.ndarray, ranges: Iterable[np.ndarray]) -> list[dict]:
    """Lines as ``{"lat": [...], "lon": [...]}``, one per index array of 2+ points."""
    return [{"lat": _coords(lat[ix]), "lon": _coords(lon[ix])} for ix in ranges if ix.size > 1]


@per_object(maxsize=8)
def base_spec(track: Track) -> dict:
    """The parts of the map that depend on the track only (computed once per track
    object): its bounds, the original path (one line per piece: none across a gap), the
    clickable track points (every point up to :data:`MAX_MARKERS`, else an evenly spaced
    subset) with their time labels (for tooltips).

    ``key`` identifies the track, so the page refits the view only when it changes."""
    lat, lon = np.asarray(track.lat, float), np.asarray(track.lon, float)
    T = len(track)
    idx = marker_indices(T)
    labels = data_labels(track)
    pad = 0.0005  # ~50 m, so points on the edge are not cut
    digest = array_digest(lat, lon)
    name = "Track points (click to toggle)"
    if idx.size < T:
        name = f"Track points, {idx.size:,} of {T:,} (click to toggle)"
    return {
        "key": f"{T}:{digest[:16]}",
        "bounds": [[float(lat.min()) - pad, float(lon.min()) - pad],
                   [float(lat.max()) + pad, float(lon.max()) + pad]],
        "path": _pieces(lat, lon, (np.arange(a, b) for a, b in track.segment_ranges())),
        "points": {"t": idx.tolist(), "lat": _coords(lat[idx]), "lon": _coords(lon[idx]),
                   "label": [str(labels[i]) for i in idx]},
        "points_name": name,
    }


def overlay_spec(
    track: Track,
    rel: Release,
    radius: float,
    *,
    show_released: bool = True,
    show_circles: bool = False,
    suggestions: Sequence = (),
    waypoints: Sequence[Waypoint] = (),
    events: Sequence[tuple[int, int]] = (),
    max_markers: int = MAX_MARKERS,
    max_circles: int = MAX_CIRCLES,
) -> dict:
    """The layers that change with the release: released path and points (noisy
    releases with their ε_t and error in metres; approximations, which repeat the last
    release), expected-displacement circles (radius 2r/ε_t, Andrés et al. CCS'13, around
    at most ``max_circles`` published points), landmarks, suggested stays and waypoints.

    ``suggestions`` are stay points (objects with ``lat``, ``lon``, ``start``, ``end``,
    ``arrival``, ``departure`` and ``duration_minutes``, e.g.
    :class:`lmdk_core.landmarks.discovery.StayPoint`). Tooltip texts are plain text: the page
    shows them as text (never as HTML), so a waypoint named like a tag stays a name.

    ``events`` are the accepted stays protected as one landmark event each (inclusive
    ranges; docs/stays.md): one ring each at the stay's true centroid, and their fixes
    are left out of the landmark markers (a stay is removed as a whole, beside the map).
    """
    lat, lon = np.asarray(track.lat, float), np.asarray(track.lon, float)
    labels = data_labels(track)
    return {
        "preview": _preview_numbers(rel, radius),
        "released": (_released_layers(track, rel, max_markers)
                     if show_released and (~rel.withheld).any() else None),
        "circles": (_circles(lat, lon, rel, radius, max_circles)
                    if show_circles and rel.published.any() else None),
        "stays": [_stay_marker(k, s) for k, s in enumerate(suggestions)],
        "waypoints": [_waypoint_marker(w) for w in waypoints],
        "events": [_event_ring(lat, lon, rel, labels, a, b) for a, b in events],
        "landmarks": _landmark_layer(lat, lon, rel, labels, events),
    }


def track_noise_bases(rel: Release) -> np.ndarray:
    """For each timestamp of a trajectory release, the true location (T, 2) its
    released point carries noise around: its own where it published, that of the
    publication it repeats where it approximated (the repeat's fresh post-processing
    noise is around that too), a stay's centroid for the fixes of a stay released as
    one event (docs/stays.md); NaN where withheld. Planar Laplace (Andrés et al.,
    CCS'13) draws a displacement of scale r/ε_t, so at another ε' and r' the same draw
    puts the point at ``base + (released − base)·(r'/r)·(ε/ε')`` for a scheme whose
    budgets are ε times a fixed share (the Map's preview)."""
    x = np.asarray(rel.original, dtype=float)
    T = x.shape[0]
    sources = x
    if rel.stays:
        cond = condense(T, rel.stays)
        sources = condensed_points(x, cond)[cond.index]
    src = np.where(rel.published, np.arange(T), -1)
    np.maximum.accumulate(src, out=src)
    base = np.full((T, 2), np.nan)
    ok = src >= 0
    base[ok] = sources[src[ok]]
    return base


def _preview_numbers(rel: Release, radius: float) -> dict:
    """What the Map's ε and r sliders need to preview this release in the browser:
    whether it scales (``live``: a static scheme, :data:`LINEAR_SCHEMES`; Adaptive
    decides from its own noise), its ε and r, the theorem's verdict (``private``,
    ``ratio`` = largest total / ε: the same at every ε), the mean displacement of the
    released points and the mean expected displacement 2r/ε_t over the published ones
    (both scale by (r'/r)·(ε/ε'))."""
    totals = np.asarray(rel.verdict.totals, dtype=float)
    err = np.asarray(rel.errors, dtype=float)
    err = err[np.isfinite(err)]
    pub = np.asarray(rel.epsilon_t, dtype=float)[np.asarray(rel.published, dtype=bool)]
    pub = pub[pub > 0]
    expected = (float(np.mean(PlanarLaplace(radius).expected_error(pub)))
                if pub.size else None)
    return {"live": rel.scheme in LINEAR_SCHEMES, "epsilon": float(rel.epsilon),
            "radius": float(radius), "private": bool(rel.verdict.private),
            "ratio": float(totals.max() / float(rel.epsilon)) if totals.size else 0.0,
            "mean_err": float(np.mean(err)) if err.size else None,
            "mean_expected": expected}


def _released_layers(track: Track, rel: Release, max_markers: int) -> dict:
    """The released path (one line per piece of the track, withheld points left out) and
    the released points drawn (at most ``max_markers``), split into noisy releases
    (``published``) and approximations, with their ε_t and error in metres. For a
    static scheme each drawn point also carries its noise's true base (``blat``/``blon``,
    :func:`track_noise_bases`): the browser moves them while the ε or r slider is
    dragged (the line joining every released point, off by default, is hidden then:
    its bases would double what a 5,000-point track sends on every rerun)."""
    ok = ~rel.withheld
    rl, ro = rel.released[:, 0], rel.released[:, 1]
    ranges = [np.flatnonzero(ok[a:b]) + a for a, b in track.segment_ranges()]
    lines = _pieces(rl, ro, ranges)
    idx = np.intersect1d(marker_indices(len(track), max_markers), np.flatnonzero(ok))
    base = track_noise_bases(rel) if rel.scheme in LINEAR_SCHEMES else None
    layers = {}
    for what, sel in (("published", idx[rel.published[idx]]),
                      ("approximated", idx[~rel.published[idx]])):
        layers[what] = {"t": sel.tolist(), "lat": _coords(rl[sel]), "lon": _coords(ro[sel]),
                        "eps": _budgets(rel.epsilon_t[sel]),
                        "err": np.round(rel.errors[sel], 1).tolist()}
        if base is not None:
            layers[what]["blat"] = _coords(base[sel, 0])
            layers[what]["blon"] = _coords(base[sel, 1])
    return {"lines": lines, **layers}


def _circles(lat: np.ndarray, lon: np.ndarray, rel: Release, radius: float,
             max_circles: int) -> dict:
    """Expected-displacement circles (radius 2r/ε_t, Andrés et al. CCS'13) around the
    true points of at most ``max_circles`` evenly spaced noisy releases."""
    pub = np.flatnonzero(rel.published)
    if pub.size > max_circles:
        pub = pub[np.unique(np.linspace(0, pub.size - 1, max_circles).round().astype(int))]
    return {"lat": _coords(lat[pub]), "lon": _coords(lon[pub]),
            "r": np.round(PlanarLaplace(radius).expected_error(rel.epsilon_t[pub]),
                          2).tolist()}


def _stay_marker(k: int, s) -> dict:
    """Suggested stay ``k`` (0-based) with its tooltip: times, duration, timestamps."""
    return {"lat": float(s.lat), "lon": float(s.lon),
            "tip": (f"Suggested stay {k + 1}: {s.arrival[11:16] or s.arrival} to "
                    f"{s.departure[11:16] or s.departure} ({s.duration_minutes:.0f} min, "
                    f"t={s.start}-{s.end}); accept it beside the map")}


def _waypoint_marker(w: Waypoint) -> dict:
    """A waypoint with its tooltip: its (shortened) name and nearest track point."""
    return {"lat": float(w.lat), "lon": float(w.lon),
            "tip": (f"Waypoint: {shorten_user_text(w.name)} (nearest track point "
                    f"t={w.index}, {w.distance_m:,.0f} m)")}


def _event_ring(lat: np.ndarray, lon: np.ndarray, rel: Release, labels: Sequence[str],
                a: int, b: int) -> dict:
    """The ring of the stay ``a``–``b`` (inclusive) protected as one landmark event: at
    its true centroid, with the ε it is released at (the sum of its fixes' ε_t)."""
    c_lat, c_lon = centroid(lat[a:b + 1], lon[a:b + 1])
    eps_g = float(np.sum(rel.epsilon_t[a:b + 1]))
    return {"lat": c_lat, "lon": c_lon, "range": [int(a), int(b)],
            "tip": (f"Stay t={a}-{b} ({labels[a]} to {labels[b]}, {b - a + 1} fixes): one "
                    f"landmark event, released once at ε = {eps_g:.3g}; its fixes publish "
                    "that point (remove it beside the map)")}


def _landmark_layer(lat: np.ndarray, lon: np.ndarray, rel: Release, labels: Sequence[str],
                    events: Sequence[tuple[int, int]]) -> dict:
    """The landmark markers with ε_t and time label; fixes of a stay event are left out
    (the event's ring stands for them)."""
    lm = np.asarray(rel.landmarks, dtype=int)
    if len(events):
        lm = np.setdiff1d(lm, stay_members(events))
    return {"t": lm.tolist(), "lat": _coords(lat[lm]), "lon": _coords(lon[lm]),
            "eps": _budgets(rel.epsilon_t[lm]), "label": [str(labels[i]) for i in lm]}


@per_object(maxsize=8)
def _base_json(track: Track) -> str:
    """:func:`base_spec` as JSON text, encoded once per track."""
    return json.dumps(base_spec(track), separators=(",", ":"), allow_nan=False)


def map_payload(track: Track, rel: Release, radius: float, *, tiles: bool = False,
                **overlays) -> dict:
    """:func:`map_spec` as the page sends it: the track's part and the release's part as
    JSON text (parsed by the page's map in the browser). Streamlit passes a string on
    as it is, where it would encode (and digest, for the element's identity) thousands
    of numbers on every rerun; the track's part is encoded once per track."""
    return {"base": _base_json(track),
            "overlay": json.dumps(overlay_spec(track, rel, radius, **overlays),
                                  separators=(",", ":"), allow_nan=False),
            **_map_settings(tiles)}


def _map_settings(tiles: bool) -> dict:
    """The parts of the map's value besides its layers: tiles, legend, colours."""
    return {"tiles": bool(tiles), "legend": [list(row) for row in LEGEND],
            "colors": dict(MAP_COLORS)}


def map_spec(track: Track, rel: Release, radius: float, *, tiles: bool = False,
             **overlays) -> dict:
    """Everything the page's Leaflet map draws, as one JSON-ready value:
    :func:`base_spec` (track only), :func:`overlay_spec` (the release; ``overlays`` are
    its keyword arguments), ``tiles`` (OpenStreetMap's online background, off by
    default: it reveals the area to their servers), the legend and the colours."""
    return {"base": base_spec(track),
            "overlay": overlay_spec(track, rel, radius, **overlays),
            **_map_settings(tiles)}


def revisit_candidates(lat: np.ndarray, lon: np.ndarray, t: int,
                       within_m: float = 15.0) -> list[int]:
    """The visits of the spot of track point ``t``: one point per run of consecutive
    timestamps lying within ``within_m`` metres of it (for each other run its point
    closest to ``t``'s location; for ``t``'s own run, ``t``). A single entry means the
    spot is visited once, so a click on it is unambiguous; several mean the track
    comes back and the marker on top need not be the visit the user meant."""
    lat, lon = np.asarray(lat, float), np.asarray(lon, float)
    d = distance_m(lat, lon, float(lat[t]), float(lon[t]))
    near = np.flatnonzero(np.nan_to_num(d, nan=np.inf) <= within_m)
    if near.size <= 1:
        return [int(t)]
    runs = np.split(near, np.flatnonzero(np.diff(near) > 1) + 1)
    out = []
    for run in runs:
        out.append(int(t) if t in run else int(run[np.argmin(d[run])]))
    return sorted(out)


def nearest_in_time(candidates: Sequence[int], reference: Iterable[int]) -> int | None:
    """The candidate closest in time to any timestamp of ``reference`` (the user's
    neighbouring selection), ties to the earlier; None without a reference."""
    ref = np.fromiter((int(r) for r in reference), dtype=np.int64)
    if not len(candidates) or ref.size == 0:
        return None
    gaps = [int(np.min(np.abs(ref - c))) for c in candidates]
    return int(candidates[int(np.argmin(gaps))])


# --------------------------------------------------------------------------- tables
def expected_displacement_quantile(q: float, epsilon_t: np.ndarray, radius: float) -> float:
    """Quantile q of the displacement of one release picked at random among timestamps
    with budgets ``epsilon_t`` (a mixture of Gamma(2, r/ε_t) laws); exact when all
    budgets are equal."""
    eps = np.asarray(epsilon_t, float)
    eps = eps[eps > 0]
    if eps.size == 0:
        return float("nan")
    mech = PlanarLaplace(radius)
    uniq = np.unique(eps)
    if uniq.size == 1:
        return float(mech.displacement_quantile(q, uniq[0]))
    scale = radius / eps

    def f(d: float) -> float:
        u = d / scale
        return float(np.mean(1.0 - (1.0 + u) * np.exp(-u))) - q

    qs = mech.displacement_quantile(q, uniq)
    return float(brentq(f, float(qs.min()), float(qs.max()), xtol=1e-6))


def displacement_summary(rel: Release, radius: float) -> pd.DataFrame:
    """Mean, median and 95th percentile of the displacement in metres: measured at the
    noisy releases, expected there (Planar Laplace: mean 2r/ε_t, Gamma(2, r/ε_t)
    quantiles), and measured over every released point (approximations included)."""
    pub = rel.published
    e_pub = rel.errors[pub]
    e_all = rel.errors[~np.isnan(rel.errors)]

    def stats(e: np.ndarray) -> list[float]:
        if e.size == 0:
            return [float("nan")] * 3
        return [float(e.mean()), float(np.median(e)), float(np.percentile(e, 95))]

    eps = rel.epsilon_t[pub]
    if eps.size:
        expected = [float(np.mean(2.0 * radius / eps)),
                    expected_displacement_quantile(0.5, eps, radius),
                    expected_displacement_quantile(0.95, eps, radius)]
    else:
        expected = [float("nan")] * 3
    return pd.DataFrame(
        {"measured at noisy releases (m)": stats(e_pub),
         "expected, Planar Laplace (m)": expected,
         "all released points (m)": stats(e_all)},
        index=["mean", "median", "95th percentile"],
    )


def landmark_frame(track: Track, landmarks: Sequence[int],
                   epsilon_t: np.ndarray | None = None) -> pd.DataFrame:
    """One row per landmark: t, time, (ε_t when given,) lat, lon."""
    lm = [int(t) for t in landmarks]
    labels = data_labels(track)
    df = pd.DataFrame({
        "t": pd.Series(lm, dtype="int64"),
        "time": [labels[t] for t in lm],
        "lat": [float(track.lat[t]) for t in lm],
        "lon": [float(track.lon[t]) for t in lm],
    })
    if epsilon_t is not None:
        df.insert(2, "ε_t", [float(epsilon_t[t]) for t in lm])
    return df


# --------------------------------------------------------------------------- chart
