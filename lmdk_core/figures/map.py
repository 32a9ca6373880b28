"""Figures of the Map page: a folium (Leaflet) map of a trajectory release, the plotly
budget / displacement / leakage chart, and the small tables shown beside them.

Everything here takes data and returns figures or tables; no streamlit. Colours follow
:data:`lmdk_core.figures.COLORS` (original grey, released blue, landmarks red,
approximations orange).

The map is built in two parts so that the app can keep it mounted while landmarks or
settings change: :func:`base_map` depends on the track only (tiles, original path,
clickable track points, legend, fitted to the track bounds) and :func:`overlay_layers`
returns the layers that change with the release (released path and points, expected
displacement circles, landmarks, suggestions, waypoints). :func:`full_map` puts both
together (for a stand-alone HTML file or a test).

Leaflet itself is loaded from ``assets/leaflet`` (inlined as ``data:`` URLs) when that
folder is present, so the map works without internet; the background is plain unless
online tiles are asked for explicitly. Every tooltip is HTML-escaped (:func:`_tip`):
waypoint and file names come from uploaded files. Click handling: clickable markers
carry a tooltip ``"Point t=12 · ..."`` or ``"Landmark t=12 · ..."``;
:func:`clicked_index` turns a click reported by streamlit-folium into a track index
(the tooltip's t, else the nearest track point).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import folium
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from branca.element import MacroElement, Template
from plotly.subplots import make_subplots
from scipy.optimize import brentq

from lmdk_core.data.track import Track, Waypoint
from lmdk_core.figures.common import COLORS, data_labels, decimate_figure
from lmdk_core.geodesy import distance_m
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace
from lmdk_core.quoting import shorten_user_text
from lmdk_core.release import Release

__all__ = [
    "LEAFLET_DIR",
    "MAX_CIRCLES",
    "MAX_MARKERS",
    "base_map",
    "budget_figure",
    "click_signature",
    "clicked_index",
    "displacement_summary",
    "expected_displacement_quantile",
    "full_map",
    "landmark_frame",
    "nearest_in_time",
    "revisit_candidates",
    "layer_control",
    "leaflet_links",
    "marker_indices",
    "overlay_layers",
]

#: vendored Leaflet (BSD-2-Clause, see its LICENSE there), same version as folium's CDN
LEAFLET_DIR = Path(__file__).resolve().parents[2] / "assets" / "leaflet"
#: at most this many clickable track points / released points are drawn (thinned above)
MAX_MARKERS = 1500
#: at most this many expected-displacement circles are drawn
MAX_CIRCLES = 100

MAP_COLORS = {
    **COLORS,
    "point": "#555555",
    "suggestion": "#ff7f0e",
    "waypoint": "#9467bd",
    "circle": "#1f77b4",
}

#: map panes (z-index) so that clickable track points sit above the released data and
#: below the landmarks; Leaflet's own overlay pane (track points, original path) is 400
PANES = {"lmdk-circles": 360, "lmdk-released": 370, "lmdk-candidates": 390,
         "lmdk-landmarks": 450}

_CLICK_RE = re.compile(r"^\s*(?:Point|Landmark) t=(\d+)\b")

# --------------------------------------------------------------------------- assets
@functools.lru_cache(maxsize=1)
def leaflet_links() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(js, css) links for folium: the vendored Leaflet as ``data:`` URLs when present
    (works offline), else folium's CDN links for Leaflet only."""
    js_file, css_file = LEAFLET_DIR / "leaflet.js", LEAFLET_DIR / "leaflet.css"
    if js_file.exists() and css_file.exists():
        js = base64.b64encode(js_file.read_bytes()).decode()
        css_text = css_file.read_text(encoding="utf-8")
        for img in ("layers.png", "layers-2x.png"):  # the layer control's icon
            if (LEAFLET_DIR / img).exists():
                data = base64.b64encode((LEAFLET_DIR / img).read_bytes()).decode()
                css_text = css_text.replace(f"url(images/{img})",
                                            f"url(data:image/png;base64,{data})")
        css = base64.b64encode(css_text.encode("utf-8")).decode()
        return ([("leaflet", f"data:text/javascript;base64,{js}")],
                [("leaflet_css", f"data:text/css;base64,{css}")])
    js_cdn = dict(folium.Map.default_js)["leaflet"]
    css_cdn = dict(folium.Map.default_css)["leaflet_css"]
    return [("leaflet", js_cdn)], [("leaflet_css", css_cdn)]


class _Legend(MacroElement):
    """A Leaflet control (bottom left) with the map's legend."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = L.control({position: "bottomleft"});
        {{ this.get_name() }}.onAdd = function (map) {
            var div = L.DomUtil.create("div", "lmdk-legend");
            div.innerHTML = {{ this.html|tojson }};
            L.DomEvent.disableClickPropagation(div);
            L.DomEvent.disableScrollPropagation(div);
            div.style.background = "rgba(255,255,255,0.92)";
            div.style.padding = "6px 9px";
            div.style.borderRadius = "4px";
            div.style.boxShadow = "0 1px 4px rgba(0,0,0,0.3)";
            div.style.font = "11px/1.45 sans-serif";
            div.style.color = "#222";
            return div;
        };
        {{ this.get_name() }}.addTo({{ this._parent.get_name() }});
        {% endmacro %}
        """
    )

    def __init__(self, html: str) -> None:
        super().__init__()
        self._name = "Legend"
        self.html = html


def _legend_html() -> str:
    def dot(color: str, fill: str, size: int = 10) -> str:
        return (f'<span style="display:inline-block;width:{size}px;height:{size}px;'
                f'border-radius:50%;border:2px solid {color};background:{fill};'
                'margin-right:6px;vertical-align:middle"></span>')

    def line(color: str, dash: str = "") -> str:
        style = "dashed" if dash else "solid"
        return (f'<span style="display:inline-block;width:18px;border-top:3px {style} {color};'
                'margin-right:6px;vertical-align:middle"></span>')

    c = MAP_COLORS
    rows = [
        line(c["original"]) + "original path",
        dot(c["point"], "#ffffff", 8) + "track point (click: landmark on/off)",
        dot(c["landmark"], c["landmark"], 12) + "landmark (click to remove)",
        line(c["released"]) + "released path",
        dot(c["released"], c["released"], 8) + "released point",
        dot(c["approximated"], "#ffffff", 8) + "approximation (ε_t = 0)",
        line(c["circle"], "dash") + "expected displacement 2r/ε_t",
        dot(c["suggestion"], "#ffe0b2", 10) + "suggested stay",
        dot(c["waypoint"], "#e1d5f0", 10) + "waypoint / place",
    ]
    return ('<details><summary style="cursor:pointer"><b>Legend</b></summary>'
            + "<br>".join(rows) + "<br><i>Layers: the button at the top right.</i></details>")


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


def _tip(text: str) -> str:
    """A tooltip's text as inert HTML: Leaflet's ``bindTooltip`` sets ``innerHTML``, so
    every tooltip (which may hold a waypoint or file name from an uploaded file) is
    escaped here, the one place tooltips are made."""
    return html.escape(str(text), quote=True)


def _point_records(lat: np.ndarray, lon: np.ndarray, idx: np.ndarray, tips: Sequence[str],
                   extra: dict[str, np.ndarray] | None = None) -> list[dict]:
    """One record per drawn point: position (7 decimals, ~1 cm), escaped tooltip and any
    ``extra`` numbers (e.g. a circle's radius ``r`` in metres)."""
    la = np.round(np.asarray(lat, float)[idx], 7).tolist()
    lo = np.round(np.asarray(lon, float)[idx], 7).tolist()
    cols = {name: np.asarray(v, float).tolist() for name, v in (extra or {}).items()}
    out = []
    for k in range(len(la)):
        rec = {"lat": la[k], "lon": lo[k]}
        if tips[k]:
            rec["tip"] = _tip(tips[k])
        for name, v in cols.items():
            rec[name] = v[k]
        out.append(rec)
    return out


class _Points(folium.map.Layer):
    """Circle markers (fixed pixel radius) or circles (``r`` metres), one tooltip each,
    drawn by a short loop in the page from one JSON value.

    folium's ``GeoJson`` compiles its data into a Jinja template on every render (about
    0.1 s per 1,500 points, on each rerun of the app); here the template is compiled once
    and the data are a plain value inserted into it. The JSON is made inert inside the
    page's ``<script>`` (``<``, ``>`` and ``&`` escaped as ``\\u003c`` …), and tooltips are
    HTML-escaped first (Leaflet sets a tooltip's ``innerHTML``)."""

    _template = Template("""
{% macro script(this, kwargs) %}
var {{ this.get_name() }} = L.featureGroup();
(function() {
  var d = {{ this.payload }}, s = {{ this.style }};
  for (var k = 0; k < d.length; k++) {
    var m = {{ "L.circle" if this.metres else "L.circleMarker" }}(
      [d[k].lat, d[k].lon], {{ "Object.assign({radius: d[k].r}, s)" if this.metres else "s" }});
    if (d[k].tip) m.bindTooltip(d[k].tip, {sticky: false});
    m.addTo({{ this.get_name() }});
  }
})();
{{ this.get_name() }}.addTo({{ this._parent.get_name() }});
{% endmacro %}
""")

    def __init__(self, records: list[dict], name: str, style: dict, *, metres: bool = False,
                 control: bool = True) -> None:
        super().__init__(name=name, overlay=True, control=control, show=True)
        self._name = "Points"
        self.metres = metres
        self.payload = _inert_json(records)
        self.style = _inert_json(style)


def _inert_json(value) -> str:
    """JSON that cannot end or open an HTML element inside a ``<script>``."""
    return (json.dumps(value, ensure_ascii=True).replace("<", "\\u003c")
            .replace(">", "\\u003e").replace("&", "\\u0026"))


def _polyline(points: np.ndarray, pane: str = "overlayPane", **style) -> folium.PolyLine:
    """A non-interactive line (clicks go through to the points under it). Its points are
    set after construction: folium validates locations one by one in Python (0.25 s for
    5,000 points), and these are finite floats already."""
    line = folium.PolyLine([[0.0, 0.0], [0.0, 0.0]], **style)
    line.locations = np.round(np.asarray(points, float), 7).tolist()
    line.options["interactive"] = False  # folium drops these two keyword arguments
    line.options["pane"] = pane
    return line


def _point_layer(records: list[dict], name: str, *, color: str, fill: str, radius: float,
                 weight: float = 1.5, fill_opacity: float = 0.9, interactive: bool = True,
                 control: bool = True, pane: str = "overlayPane") -> _Points:
    """Circle markers (fixed pixel radius) with one tooltip each."""
    style = {"color": color, "fillColor": fill, "fillOpacity": fill_opacity, "weight": weight,
             "radius": radius, "interactive": interactive, "pane": pane, "fill": True}
    return _Points(records, name, style, control=control)


# --------------------------------------------------------------------------- the map
def base_map(track: Track, *, tiles: bool = False, max_markers: int = MAX_MARKERS,
             keep_markers: Iterable[int] = ()) -> folium.Map:
    """Tiles (none by default: a plain offline background; OpenStreetMap's online
    tiles only with ``tiles=True``, which reveals the area to its servers), the original
    path, clickable track points (thinned to ``max_markers``), a legend and a scale;
    fitted to the track bounds.

    Depends on the track only, so the app can keep it mounted while the release changes.
    """
    lat, lon = np.asarray(track.lat, float), np.asarray(track.lon, float)
    # keyboard=False: Leaflet's keyboard handler focuses the map on the first mousedown,
    # which scrolls the page to the map's frame and swallows that first click
    m = folium.Map(tiles=None, control_scale=True, zoom_start=13, keyboard=False,
                   location=[float(lat.mean()), float(lon.mean())])
    if tiles:
        folium.TileLayer("OpenStreetMap", name="OpenStreetMap background").add_to(m)
    for pane, z in PANES.items():
        folium.map.CustomPane(pane, z_index=z, pointer_events=False).add_to(m)
    js, css = leaflet_links()
    m.default_js = js
    m.default_css = css
    pad = 0.0005  # ~50 m, so points on the edge are not cut
    m.fit_bounds([[float(lat.min()) - pad, float(lon.min()) - pad],
                  [float(lat.max()) + pad, float(lon.max()) + pad]])
    path = folium.FeatureGroup(name="Original path", control=True)
    for a, b in track.segment_ranges():  # one line per piece: none across a gap
        if b - a > 1:
            _polyline(np.column_stack([lat[a:b], lon[a:b]]), color=MAP_COLORS["original"],
                      weight=3, opacity=0.75).add_to(path)
    path.add_to(m)
    labels = data_labels(track)
    idx = marker_indices(len(track), max_markers, keep_markers)
    tips = [f"Point t={i} · {labels[i]} (click: make it a landmark)" for i in idx]
    name = "Track points (click to toggle)"
    if idx.size < len(track):
        name = f"Track points, {idx.size:,} of {len(track):,} (click to toggle)"
    _point_layer(_point_records(lat, lon, idx, tips), name, color=MAP_COLORS["point"],
                 fill="#ffffff", radius=4).add_to(m)
    _Legend(_legend_html()).add_to(m)
    return m


def overlay_layers(
    track: Track,
    rel: Release,
    radius: float,
    *,
    show_released: bool = True,
    show_circles: bool = False,
    suggestions: Sequence = (),
    waypoints: Sequence[Waypoint] = (),
    max_markers: int = MAX_MARKERS,
    max_circles: int = MAX_CIRCLES,
) -> list[folium.FeatureGroup]:
    """The layers that change with the release, each a named FeatureGroup (for the
    layer control): released path and points, expected-displacement circles
    (2r/ε_t around each published point), landmarks, suggested stays, waypoints.

    ``suggestions`` are stay points (objects with ``lat``, ``lon``, ``start``, ``end``,
    ``arrival``, ``departure`` and ``duration_minutes``, e.g.
    :class:`lmdk_core.discovery.StayPoint`).
    """
    lat, lon = np.asarray(track.lat, float), np.asarray(track.lon, float)
    labels = data_labels(track)
    T = len(track)
    groups: list[folium.FeatureGroup] = []
    ok = ~rel.withheld

    if show_released and ok.any():
        g = folium.FeatureGroup(name="Released path and points")
        rl, ro = rel.released[:, 0], rel.released[:, 1]
        for a, b in track.segment_ranges():  # one line per piece, as the original
            keep = np.flatnonzero(ok[a:b]) + a
            if keep.size > 1:
                _polyline(np.column_stack([rl[keep], ro[keep]]), pane="lmdk-released",
                          color=MAP_COLORS["released"], weight=1.2, opacity=0.45).add_to(g)
        idx = np.intersect1d(marker_indices(T, max_markers), np.flatnonzero(ok))
        pub = idx[rel.published[idx]]
        apx = idx[~rel.published[idx]]
        for sel, color, fill, what in (
            (pub, MAP_COLORS["released"], MAP_COLORS["released"], "noisy release"),
            (apx, MAP_COLORS["approximated"], "#ffffff", "approximation"),
        ):
            if sel.size == 0:
                continue
            if what == "noisy release":
                tips = [f"Released t={i} · {labels[i]} · noisy, ε_t = {rel.epsilon_t[i]:.3g}"
                        f" · {rel.errors[i]:,.0f} m from the true point" for i in sel]
            else:
                tips = [f"Released t={i} · {labels[i]} · last release repeated (ε_t = 0) · "
                        f"{rel.errors[i]:,.0f} m from the true point" for i in sel]
            _point_layer(_point_records(rl, ro, sel, tips), what, color=color, fill=fill,
                         radius=3, weight=1.5, fill_opacity=0.8, control=False,
                         pane="lmdk-released").add_to(g)
        groups.append(g)

    if show_circles and rel.published.any():
        g = folium.FeatureGroup(name="Expected displacement 2r/ε_t")
        pub = np.flatnonzero(rel.published)
        if pub.size > max_circles:
            pub = pub[np.unique(np.linspace(0, pub.size - 1, max_circles).round().astype(int))]
        r_exp = PlanarLaplace(radius).expected_error(rel.epsilon_t[pub])
        data = _point_records(lat, lon, pub, [""] * pub.size, {"r": r_exp})
        # outlines only: hundreds of overlapping fills would hide the map
        style = {"color": MAP_COLORS["circle"], "weight": 1, "opacity": 0.45,
                 "dashArray": "4 4", "fill": False, "interactive": False,
                 "pane": "lmdk-circles"}
        _Points(data, "circles", style, metres=True, control=False).add_to(g)
        groups.append(g)

    if len(suggestions):
        g = folium.FeatureGroup(name="Suggested stays")
        feats = []
        for k, s in enumerate(suggestions):
            tip = (f"Suggested stay {k + 1}: {s.arrival[11:16] or s.arrival} to "
                   f"{s.departure[11:16] or s.departure} ({s.duration_minutes:.0f} min, "
                   f"t={s.start}-{s.end}); accept it beside the map")
            feats.append({"lat": float(s.lat), "lon": float(s.lon), "tip": _tip(tip)})
        _point_layer(feats, "stays",
                     color=MAP_COLORS["suggestion"], fill="#ffe0b2", radius=14, weight=2.5,
                     fill_opacity=0.35, control=False, pane="lmdk-candidates").add_to(g)
        groups.append(g)

    if len(waypoints):
        g = folium.FeatureGroup(name="Waypoints / places")
        feats = []
        for w in waypoints:
            tip = (f"Waypoint: {shorten_user_text(w.name)} (nearest track point "
                   f"t={w.index}, {w.distance_m:,.0f} m)")
            feats.append({"lat": float(w.lat), "lon": float(w.lon), "tip": _tip(tip)})
        _point_layer(feats, "waypoints",
                     color=MAP_COLORS["waypoint"], fill="#e1d5f0", radius=9, weight=2,
                     fill_opacity=0.6, control=False, pane="lmdk-candidates").add_to(g)
        groups.append(g)

    # landmarks last: drawn on top, so they are the ones clicked
    g = folium.FeatureGroup(name=f"Landmarks ({rel.landmarks.size})")
    if rel.landmarks.size:
        lm = rel.landmarks
        tips = [f"Landmark t={i} · {labels[i]} · ε_t = {rel.epsilon_t[i]:.3g} "
                "(click to remove)" for i in lm]
        _point_layer(_point_records(lat, lon, lm, tips), "landmarks",
                     color="#ffffff", fill=MAP_COLORS["landmark"], radius=8, weight=2,
                     fill_opacity=1.0, control=False, pane="lmdk-landmarks").add_to(g)
    groups.append(g)
    return groups


def layer_control() -> folium.LayerControl:
    """A layer control (collapsed to a button at the top right; hover to open)."""
    return folium.LayerControl(collapsed=True, position="topright")


def full_map(track: Track, rel: Release, radius: float, **kwargs) -> folium.Map:
    """:func:`base_map` with every :func:`overlay_layers` layer and a layer control."""
    tiles = kwargs.pop("tiles", False)
    m = base_map(track, tiles=tiles, max_markers=kwargs.get("max_markers", MAX_MARKERS))
    for g in overlay_layers(track, rel, radius, **kwargs):
        g.add_to(m)
    layer_control().add_to(m)
    return m


# --------------------------------------------------------------------------- clicks
def click_signature(value: dict | None) -> tuple | None:
    """What identifies one click in streamlit-folium's returned value (its click
    counter and position), or None when nothing was clicked yet."""
    if not value:
        return None
    obj = value.get("last_object_clicked")
    if not obj or obj.get("lat") is None or obj.get("lng") is None:
        return None
    return (value.get("last_object_clicked_count"), round(float(obj["lat"]), 9),
            round(float(obj["lng"]), 9))


def clicked_index(value: dict | None, lat: np.ndarray, lon: np.ndarray) -> int | None:
    """The track index a click refers to, or None.

    A track point's or landmark's tooltip names its t exactly (points of a stay overlap
    on screen, so this beats the nearest point); another object with a tooltip
    (released point, suggestion, waypoint) is not a toggle; without a tooltip the
    nearest track point to the clicked position is used.
    """
    sig = click_signature(value)
    if sig is None:
        return None
    T = int(np.asarray(lat).size)
    tip = (value or {}).get("last_object_clicked_tooltip")
    if tip:
        m = _CLICK_RE.match(str(tip))
        if m is None:
            return None
        t = int(m.group(1))
        return t if 0 <= t < T else None
    d = distance_m(lat, lon, sig[1], sig[2])
    return int(np.nanargmin(d)) if T else None


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
def budget_figure(track: Track, rel: Release, radius: float, *,
                  leakage: dict[str, np.ndarray] | None = None,
                  height: int | None = None) -> go.Figure:
    """Panels on one time axis: the budget ε_t (a filled step line, landmarks as red
    stars) with the theorem's total Σ_{L∪{t}} ε_i against ε; the displacement of the
    released points (metres, log scale; at most MAX_MARKERS markers drawn) with the
    expected 2r/ε_t; and, if given, the leakage curves (``leakage`` maps 'TPL' /
    'landmark TPL' to arrays)."""
    T = len(track)
    x = np.asarray(track.time) if track.time_kind != "index" else np.arange(T)
    if track.time_kind == "datetime" and pd.isna(x).any():
        x = np.arange(T)
    t_idx = np.arange(T)
    is_lm = np.zeros(T, dtype=bool)
    is_lm[rel.landmarks] = True
    rows = 3 if leakage else 2
    titles = ["Budget spent at each timestamp (ε_t)",
              "Displacement of each released point (metres)"]
    if leakage:
        titles.append("Privacy leakage under temporal correlation (grid-cell model)")
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.09,
                        row_heights=[1 / rows] * rows, subplot_titles=titles)
    # SVG lines are one path each, cheap at any length; markers are thinned to
    # MAX_MARKERS and long lines decimated (min/max per pixel column; the statistics use
    # every point). WebGL is avoided: without a GPU (e.g. headless or remote browsers) it
    # is slower than SVG here. Hover data are numbers (the timestamp t), not strings: the
    # time label comes from the x axis.
    scatter = go.Scatter
    shown = np.zeros(T, dtype=bool)
    shown[marker_indices(T, MAX_MARKERS)] = True
    when = "%{x|%a %d %b %H:%M:%S}" if track.time_kind == "datetime" and x.dtype.kind == "M" \
        else "%{x}"
    # a filled step line rather than bars: points are unevenly spaced in time
    fig.add_trace(scatter(
        x=x, y=rel.epsilon_t, name="ε_t", mode="lines", fill="tozeroy",
        line={"color": COLORS["regular"], "width": 1, "shape": "hv"},
        fillcolor="rgba(31,119,180,0.25)",
        customdata=t_idx,
        hovertemplate="t=%{customdata} · " + when + "<br>ε_t = %{y:.4g} (0: the last "
        "release is repeated)<extra></extra>",
        showlegend=False,
    ), row=1, col=1)
    if is_lm.any():
        fig.add_trace(scatter(
            x=x[is_lm], y=rel.epsilon_t[is_lm], name="landmark", mode="markers",
            marker={"symbol": "star", "size": 11, "color": COLORS["landmark"],
                    "line": {"width": 1, "color": "white"}},
            customdata=t_idx[is_lm],
            hovertemplate="LANDMARK t=%{customdata} · " + when +
            "<br>ε_t = %{y:.4g}<extra></extra>",
        ), row=1, col=1)
    fig.add_trace(scatter(
        x=x, y=rel.verdict.totals, name="landmarks + this timestamp (must stay ≤ ε)", mode="lines",
        line={"color": COLORS["total"], "width": 1.5, "shape": "hvh"},
        hovertemplate="Σ over L∪{t} = %{y:.4g}<extra></extra>",
    ), row=1, col=1)
    fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                  annotation_text=f"ε = {rel.epsilon:g}", annotation_position="top left",
                  row=1, col=1)

    pub = rel.published
    approx = ~pub & ~rel.withheld
    for sel, name, color, symbol in ((pub, "displacement (noisy release)", COLORS["released"],
                                      "circle"),
                                     (approx, "displacement (approximation)",
                                      COLORS["approximated"], "circle-open")):
        sel = sel & shown
        if sel.any():
            fig.add_trace(scatter(
                x=x[sel], y=np.maximum(rel.errors[sel], 0.1), name=name, mode="markers",
                marker={"size": 4 if T > 1000 else 5, "color": color, "symbol": symbol},
                customdata=t_idx[sel],
                hovertemplate="t=%{customdata} · " + when + "<br>moved %{y:,.0f} m"
                "<br>" + name.split("(")[1].rstrip(")") + "<extra></extra>",
            ), row=2, col=1)
    if pub.any():
        expected = np.full(T, np.nan)
        expected[pub] = 2.0 * radius / rel.epsilon_t[pub]
        fig.add_trace(scatter(
            x=x, y=expected, name="expected 2r/ε_t", mode="lines", connectgaps=True,
            line={"color": COLORS["epsilon"], "width": 1.5, "dash": "dash", "shape": "hvh"},
            hovertemplate="expected displacement 2r/ε_t = %{y:,.0f} m<extra></extra>",
        ), row=2, col=1)
    if leakage:
        for name, values in leakage.items():
            color = COLORS["landmark_tpl"] if "landmark" in name else COLORS["tpl"]
            fig.add_trace(scatter(
                x=x, y=values, name=name, mode="lines",
                line={"color": color, "width": 2,
                      "dash": "solid" if "landmark" in name else "dot"},
                hovertemplate=name + " = %{y:.4g}<extra></extra>",
            ), row=3, col=1)
        fig.add_hline(y=rel.epsilon, line={"color": COLORS["epsilon"], "dash": "dash",
                                           "width": 1}, row=3, col=1)
        fig.update_yaxes(title_text="leakage", rangemode="tozero", row=3, col=1)
    fig.update_yaxes(title_text="ε_t", rangemode="tozero", row=1, col=1)
    measured = rel.errors[~np.isnan(rel.errors)]
    top = float(np.nanmax(np.r_[measured, 2.0 * radius / rel.epsilon_t[pub]])) \
        if pub.any() or measured.size else 10.0
    ticks = [10.0**k for k in range(0, int(np.ceil(np.log10(max(top, 10.0)))) + 1)]
    fig.update_yaxes(title_text="metres (log)", type="log", tickvals=ticks,
                     ticktext=[f"{v:,.0f} m" if v < 1000 else f"{v / 1000:,.0f} km"
                               for v in ticks], row=2, col=1)
    fig.update_layout(
        height=height or (720 if leakage else 520),
        # the legend below the panels: above them, the chart toolbar covers its right end
        margin={"l": 60, "r": 20, "t": 40, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.07, "x": 0},
        hovermode="closest",
    )
    return decimate_figure(fig, T, keep=rel.landmarks)
