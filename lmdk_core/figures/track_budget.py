"""The Map page's panels on one time axis, as Vega-Lite: the budget ε_t with the
theorem's total (Katsomallos et al. CODASPY'22), the displacement of the released points
(Planar Laplace, Andrés et al. CCS'13) and the leakage curves of Cao et al. (ICDE'17).

Each panel is a pair ``(data, spec)``: a table of numbers and a Vega-Lite specification
that depends only on the track and on which panels are shown, never on the landmarks, ε
or the noise. The page can therefore redraw a panel by replacing its data in place (a
changed landmark, ε or scheme only changes the table), where a changed plotly figure is
a new chart that the browser builds from scratch, twice. Everything here takes data and
returns plain values; no streamlit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk_core.data.track import Track
from lmdk_core.engine.release import Release
from lmdk_core.figures.common import BARS_MAX_POINTS, COLORS, data_labels, date_axis_values
from lmdk_core.figures.decimation import display_indices
from lmdk_core.figures.map import MAX_MARKERS, marker_indices
from lmdk_core.figures.style import (
    AXIS_TITLES,
    FONT,
    TITLE_FONT_SIZE,
    vega_config,
    vega_date_axis,
)

__all__ = ["PANEL_HEIGHT", "STAR", "budget_panels", "x_values"]

#: height of each panel in pixels, title, axes and legend included (the page passes it
#: to the chart element, which fits the panel into it)
PANEL_HEIGHT = 330
#: a five-pointed star (landmarks), as a Vega-Lite shape path on the unit square
STAR = ("M0,-1L0.224,-0.309L0.951,-0.309L0.363,0.118L0.588,0.809L0,0.382L-0.588,0.809"
        "L-0.363,0.118L-0.951,-0.309L-0.224,-0.309Z")
#: the series' names (as the legends show them) and colours
_SERIES = {
    "ε_t (budget spent)": COLORS["regular"],
    "landmark": COLORS["landmark"],
    "landmarks + this timestamp (must stay ≤ ε)": COLORS["total"],
    "ε": COLORS["epsilon"],
    "displacement (noisy release)": COLORS["released"],
    "displacement (approximation)": COLORS["approximated"],
    "expected 2r/ε_t": COLORS["epsilon"],
    "TPL": COLORS["tpl"],
    "landmark TPL": COLORS["landmark_tpl"],
}


def x_values(track: Track) -> tuple[np.ndarray, str]:
    """(x of every timestamp, its kind): milliseconds since 1970 (read as UTC, so a time
    shows as written in the file; kind "date") or the numeric times ("number") when every
    point has one, else the timestamp index t ("index")."""
    T = len(track)
    if track.time_kind == "datetime":
        x = date_axis_values(np.asarray(track.time))
        if not np.isnan(x).any():
            return x, "date"
    elif track.time_kind == "number":
        x = np.asarray(track.time, dtype=float)
        if np.isfinite(x).all():
            return x, "number"
    return np.arange(T, dtype=float), "index"


def _painter(*names: str):
    """``(legend layer, paint)`` of a panel drawing the series ``names``: the layer only
    draws the legend, one entry per name; ``paint(name, layer)`` gives ``layer`` that
    name's colour as a constant (a colour field would be one more value computed per
    row in the browser on every redraw)."""

    def paint(name: str, layer: dict) -> dict:
        if name not in names:
            raise ValueError(f"{name!r} is not a series of this panel")
        layer["mark"]["color"] = _SERIES[name]
        return layer
    return _legend(*names), paint


def _legend(*names: str) -> dict:
    """A layer that draws nothing but the legend of ``names``."""
    return {"data": {"values": [{"series": n} for n in names]},
            "mark": {"type": "point", "filled": True, "opacity": 0},
            "encoding": {"color": {
                "field": "series", "type": "nominal",
                "scale": {"domain": list(names), "range": [_SERIES[n] for n in names]},
                # one row; one entry per line, shortened, on a narrow (phone) screen
                "legend": {"title": None, "orient": "bottom", "direction": "horizontal",
                           "columns": {"expr": "width < 520 ? 1 : 0"},
                           "labelExpr": "width < 520 ? replace(datum.label, "
                                        "' (must stay ≤ ε)', ' (≤ ε)') : datum.label",
                           "labelLimit": 0, "symbolOpacity": 1, "symbolType": "circle"}}}}


def _x_encoding(kind: str) -> dict:
    """The time axis (every panel's data has every drawn timestamp's x, so the panels'
    axes span the same range)."""
    if kind == "date":  # UTC: the milliseconds are the file's wall times
        return {"field": "x", "type": "temporal", "title": None, "scale": {"type": "utc"},
                "axis": vega_date_axis()}  # the style's tick labels, as on plotly charts
    return {"field": "x", "type": "quantitative", "title": "t" if kind == "index" else "time",
            "scale": {"nice": False}}


def _hover(dates: bool, xe: dict, fields: list[dict]) -> dict:
    """One transparent full-height band per timestamp (halfway to its neighbours: the
    data's ``band0`` to ``band1``, see :func:`_with_bands`) that shows that timestamp's
    values on hover. Bands need no nearest-point search, which (a Voronoi diagram over
    every point, rebuilt with the data) cost ~0.1 s per redraw in the browser."""
    when = [{"field": "time", "type": "nominal"}] if dates else []
    return {
        "mark": {"type": "rect", "y": 0, "y2": {"expr": "height"}, "fill": "transparent"},
        "encoding": {
            "x": {**xe, "field": "band0"}, "x2": {"field": "band1"},
            "tooltip": [{"field": "t", "type": "quantitative", "title": "t"}, *when,
                        *fields]},
    }


def _with_bands(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the hover bands ``band0``/``band1`` around each row's x: from
    halfway to the previous row to halfway to the next (the ends extend as far out)."""
    x = frame["x"].to_numpy(dtype=float)
    if x.size < 2:
        return frame.assign(band0=x - 0.5, band1=x + 0.5)
    mid = (x[1:] + x[:-1]) / 2.0
    return frame.assign(band0=np.r_[x[0] - (mid[0] - x[0]), mid],
                        band1=np.r_[mid, x[-1] + (x[-1] - mid[-1])])


def _zoom() -> dict:
    """Drag to pan, wheel to zoom the time axis; double-click resets."""
    return {"name": "zoom", "select": {"type": "interval", "encodings": ["x"]},
            "bind": "scales"}


def _epsilon_rule(paint, title: str) -> list[dict]:
    """The dashed line at ε (the data's ``epsilon`` column) with its value at its left
    end, as on the plotly charts (under the line: the panel ends at ε). The label sits
    at the plot's left edge in pixels (it stays in view when the axis is panned), not at
    the data's first time: an aggregated time made Vega-Lite warn that one field was
    parsed as a number and as a date."""
    return [
        paint("ε", {
            "mark": {"type": "rule", "strokeDash": [6, 4], "strokeWidth": 1.5},
            "encoding": {"y": {"aggregate": "max", "field": "epsilon",
                               "type": "quantitative", "title": title}}}),
        {"transform": [{"aggregate": [{"op": "max", "field": "epsilon", "as": "e"}]},
                       {"calculate": "'ε = ' + format(datum.e, '.4~g')", "as": "label"}],
         "mark": {"type": "text", "align": "left", "baseline": "top", "dy": 3, "dx": 2,
                  "fontSize": FONT["size"]},
         "encoding": {"x": {"value": 0},
                      "y": {"field": "e", "type": "quantitative", "title": title},
                      "text": {"field": "label"}}},
    ]


def _panel(title: str, layers: list[dict], subtitle: str = "", description: str = "") -> dict:
    """A panel's Vega-Lite spec: title, text alternative, layers, renderer, style."""
    return {"title": {"text": title, "anchor": "start", "fontSize": TITLE_FONT_SIZE,
                      **({"subtitle": subtitle} if subtitle else {})},
            # the chart's text alternative (vega-embed labels the chart with it)
            "description": ". ".join(p for p in (title, subtitle, description) if p) + ".",
            "layer": layers,
            # one canvas instead of an SVG node per mark: cheaper to redraw
            "usermeta": {"embedOptions": {"renderer": "canvas"}},
            # the style's fonts, title, legend; the same axis width in every panel, so
            # their time axes line up
            "config": {**vega_config(), "axisY": {"minExtent": 64, "maxExtent": 64}}}


def _frame(x: np.ndarray, labels: np.ndarray | None, rows: np.ndarray,
           **columns: np.ndarray | float) -> pd.DataFrame:
    """The drawn ``rows`` of a panel: x, t, the time label (for dates), the given
    per-timestamp columns (scalars are repeated) and the hover bands."""
    return _with_bands(pd.DataFrame({
        "x": x[rows], "t": rows, **({"time": labels[rows]} if labels is not None else {}),
        **{k: (np.full(rows.size, float(v)) if np.ndim(v) == 0 else np.asarray(v)[rows])
           for k, v in columns.items()}}))


def _y(field: str, title: str, **extra) -> dict:
    """A quantitative y encoding of column ``field`` (``extra``: scale, axis, …)."""
    return {"field": field, "type": "quantitative", "title": title, **extra}


def _budget_marks(bars: bool, paint, xe: dict) -> list[dict]:
    """ε_t as one bar per timestamp (regular light, landmarks dark and starred), or above
    :data:`~lmdk_core.figures.common.BARS_MAX_POINTS` timestamps a filled step line with
    the landmarks starred: the same rule as the plotly charts (docs/chart-style.md)."""
    if bars:
        regular = paint("ε_t (budget spent)", {
            "params": [_zoom()], "transform": [{"filter": "!datum.lm"}],
            "mark": {"type": "rect"},
            "encoding": {"x": {**xe, "field": "bar0"}, "x2": {"field": "bar1"},
                         "y": _y("eps", AXIS_TITLES["budget"], scale={"zero": True}),
                         "y2": {"datum": 0}}})
        landmark = paint("landmark", {
            "transform": [{"filter": "datum.lm"}], "mark": {"type": "rect"},
            "encoding": {"x": {**xe, "field": "bar0"}, "x2": {"field": "bar1"},
                         "y": _y("eps", AXIS_TITLES["budget"]), "y2": {"datum": 0}}})
        marks = [regular, landmark]
    else:
        marks = [paint("ε_t (budget spent)", {
            "params": [_zoom()],
            "mark": {"type": "area", "interpolate": "step-after", "opacity": 0.6,
                     "line": {"strokeWidth": 1}},
            "encoding": {"x": xe, "y": _y("eps", AXIS_TITLES["budget"],
                                         scale={"zero": True})}})]
    return marks + [paint("landmark", {
        "transform": [{"filter": "datum.lm"}],
        "mark": {"type": "point", "shape": STAR, "filled": True, "size": 110,
                 "stroke": "white", "strokeWidth": 0.8, "opacity": 1},
        "encoding": {"x": xe, "y": _y("eps", AXIS_TITLES["budget"])}})]


def _budget_panel(x: np.ndarray, labels: np.ndarray | None, rel: Release,
                  is_lm: np.ndarray, xe: dict, dates: bool) -> tuple[pd.DataFrame, dict]:
    """The budget panel: ε_t (bars), the theorem's total Σ_{i∈L∪{t}} ε_i and ε."""
    T = is_lm.size
    rows = display_indices(T, [rel.epsilon_t, rel.verdict.totals], keep=rel.landmarks)
    budget = _frame(x, labels, rows, eps=rel.epsilon_t, total=rel.verdict.totals, lm=is_lm,
                    epsilon=rel.epsilon).assign(
        landmark=lambda d: np.where(d["lm"], "yes", "no"),
        # each bar 80 % of the way to its neighbours (the plotly charts' bar width)
        bar0=lambda d: d["x"] - 0.8 * (d["x"] - d["band0"]),
        bar1=lambda d: d["x"] + 0.8 * (d["band1"] - d["x"]))
    legend, paint = _painter("ε_t (budget spent)", "landmark",
                             "landmarks + this timestamp (must stay ≤ ε)", "ε")
    y, number = _y, _number
    bars = T <= BARS_MAX_POINTS
    return budget, _panel("Budget spent at each timestamp (ε_t)", description=(
        ("Bars of ε_t over time, the landmarks' bars dark with a star"
         if bars else "A filled step line of ε_t over time, the landmarks as stars")
        + ", a line of the landmarks plus each timestamp together, which must stay at or "
        "below ε (dashed)"), layers=[
        legend,
        *_budget_marks(bars, paint, xe),
        paint("landmarks + this timestamp (must stay ≤ ε)", {
            "mark": {"type": "line", "interpolate": "step", "strokeWidth": 1.5},
            "encoding": {"x": xe, "y": y("total", AXIS_TITLES["budget"])}}),
        *_epsilon_rule(paint, AXIS_TITLES["budget"]),
        _hover(dates, xe, [number("eps", "ε_t"), number("total", "Σ over L∪{t}"),
                           {"field": "landmark", "type": "nominal"}]),
    ])


def _number(field: str, title: str, fmt: str = ".4g") -> dict:
    """A tooltip field of column ``field`` in d3 format ``fmt``."""
    return {"field": field, "type": "quantitative", "title": title, "format": fmt}


def _displacement_panel(x: np.ndarray, labels: np.ndarray | None, rel: Release,
                        radius: float, xe: dict, dates: bool) -> tuple[pd.DataFrame, dict]:
    """The displacement panel: each released point's distance from the true one (metres,
    log scale; at most MAX_MARKERS markers) and Planar Laplace's expected 2r/ε_t at the
    noisy releases (Andrés et al. CCS'13)."""
    T = rel.epsilon_t.size
    pub = rel.published
    approx = ~pub & ~rel.withheld
    shown = np.zeros(T, dtype=bool)
    shown[marker_indices(T, MAX_MARKERS, keep=rel.landmarks)] = True
    err = np.maximum(rel.errors, 0.1)  # log scale: a point released exactly stays
    expected = np.full(T, np.nan)
    expected[pub] = 2.0 * radius / rel.epsilon_t[pub]
    rows = np.union1d(display_indices(T, [expected], keep=rel.landmarks),
                      np.flatnonzero(shown))
    disp = _frame(x, labels, rows, noisy=np.where(pub & shown, err, np.nan),
                  approx=np.where(approx & shown, err, np.nan), expected=expected)
    metres = {"scale": {"type": "log"}, "axis": {"labelExpr": (
        "datum.value >= 1000 ? format(datum.value / 1000, ',.4~g') + ' km' : "
        "format(datum.value, ',.4~g') + ' m'")}}
    legend, paint = _painter("displacement (noisy release)",
                             "displacement (approximation)", "expected 2r/ε_t")
    y, number = _y, _number
    return disp, _panel("Displacement of each released point", subtitle=(
        "metres, log scale; dashed: expected 2r/ε_t (Andrés et al. CCS'13)"), description=(
        "Filled dots: noisy releases; open circles: approximations that repeat the "
        "last release"), layers=[
        legend,
        paint("displacement (noisy release)", {
            "params": [_zoom()],
            "mark": {"type": "point", "filled": True, "size": 18, "opacity": 0.8},
            "encoding": {"x": xe, "y": y("noisy", AXIS_TITLES["displacement"], **metres)}}),
        paint("displacement (approximation)", {
            "mark": {"type": "point", "filled": False, "size": 18},
            "encoding": {"x": xe, "y": y("approx", AXIS_TITLES["displacement"], **metres)}}),
        paint("expected 2r/ε_t", {
            "mark": {"type": "line", "interpolate": "step", "strokeDash": [5, 3],
                     "strokeWidth": 1.5},
            "encoding": {"x": xe, "y": y("expected", AXIS_TITLES["displacement"], **metres)}}),
        _hover(dates, xe, [number("noisy", "moved (m, noisy)", ",.0f"),
                           number("approx", "moved (m, approximation)", ",.0f"),
                           number("expected", "expected 2r/ε_t (m)", ",.0f")]),
    ])


def _leakage_panel(x: np.ndarray, labels: np.ndarray | None, rel: Release,
                   leakage: dict[str, np.ndarray], xe: dict,
                   dates: bool) -> tuple[pd.DataFrame, dict]:
    """The leakage panel: TPL and landmark TPL (Cao et al. ICDE'17) against ε."""
    tpl = np.asarray(leakage["TPL"], dtype=float)
    ltpl = np.asarray(leakage["landmark TPL"], dtype=float)
    rows = display_indices(rel.epsilon_t.size, [tpl, ltpl], keep=rel.landmarks)
    leak = _frame(x, labels, rows, tpl=tpl, ltpl=ltpl, epsilon=rel.epsilon)
    legend, paint = _painter("TPL", "landmark TPL", "ε")
    y, number = _y, _number
    return leak, _panel(
        "Leakage under temporal correlation", subtitle="TPL and landmark TPL (Cao et al. "
        "ICDE'17)", description=("TPL dotted, landmark TPL solid, ε as a rule"),
        layers=[
            legend,
            paint("TPL", {
                "params": [_zoom()],
                "mark": {"type": "line", "strokeDash": [2, 2], "strokeWidth": 2},
                "encoding": {"x": xe, "y": y("tpl", AXIS_TITLES["leakage"],
                                             scale={"zero": True})}}),
            paint("landmark TPL", {
                "mark": {"type": "line", "strokeWidth": 2},
                "encoding": {"x": xe, "y": y("ltpl", AXIS_TITLES["leakage"])}}),
            *_epsilon_rule(paint, AXIS_TITLES["leakage"]),
            _hover(dates, xe, [number("tpl", "TPL"), number("ltpl", "landmark TPL")]),
        ])


def budget_panels(track: Track, rel: Release, radius: float, *,
                  leakage: dict[str, np.ndarray] | None = None,
                  displacement: bool = False) -> list[tuple[pd.DataFrame, dict]]:
    """``(data, Vega-Lite spec)`` of each panel, top to bottom.

    * Budget: ε_t at each timestamp (bars, landmarks dark with a star; a filled step
      line above BARS_MAX_POINTS, as on the plotly charts) and the
      theorem's total Σ_{i∈L∪{t}} ε_i, which must stay ≤ ε (dashed) for landmark privacy
      (Katsomallos et al. CODASPY'22).
    * With ``displacement``: the distance of each released point from the true one
      (metres, log scale; at most MAX_MARKERS markers) and Planar Laplace's expected
      2r/ε_t at the noisy releases (Andrés et al. CCS'13).
    * With ``leakage`` (``{'TPL': …, 'landmark TPL': …}``, Cao et al. ICDE'17): the two
      curves against ε.

    Tracks longer than DISPLAY_MAX_POINTS keep, per pixel-wide run of timestamps, the
    minimum and maximum of every curve and every landmark (display only: every number
    and download uses the whole release). The specifications depend only on ``track``,
    ``displacement`` and whether ``leakage`` is given."""
    x, kind = x_values(track)
    dates = kind == "date"
    xe = _x_encoding(kind)
    # the hover's time, as the page writes it elsewhere (a string per drawn row: cheaper
    # than formatting it in the browser on every redraw)
    labels = np.asarray(data_labels(track), dtype=object) if dates else None
    is_lm = np.zeros(len(track), dtype=bool)
    is_lm[rel.landmarks] = True
    panels = [_budget_panel(x, labels, rel, is_lm, xe, dates)]
    if displacement:
        panels.append(_displacement_panel(x, labels, rel, radius, xe, dates))
    if leakage:
        panels.append(_leakage_panel(x, labels, rel, leakage, xe, dates))
    return panels
