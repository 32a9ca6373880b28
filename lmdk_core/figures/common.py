"""What every figure module shares: the colours, hover labels of timestamps and the
decimation of long traces for display.

Colours are the same on every chart (:data:`~lmdk_core.figures.style.COLORS`, the
style guide of docs/chart-style.md): original data grey, released data blue, landmarks
vermillion, approximated (nothing spent) orange, the ε reference black dashed.
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from lmdk_core.figures.decimation import display_indices
from lmdk_core.figures.object_memo import per_object
from lmdk_core.figures.style import COLORS
from lmdk_core.figures.subplot_grid import SUPPORTED_OPTIONS, column_layout

if TYPE_CHECKING:  # plotly is imported where a figure is made: the report draws SVG
    import plotly.graph_objects as go

__all__ = ["BARS_MAX_POINTS", "COLORS", "bar_width", "data_labels", "date_axis_values",
           "decimate_figure", "display_values", "hover_labels", "hline", "plain_figure",
           "subplot_axes", "subplot_layout", "template_json", "with_template"]

#: budgets of longer series are drawn as a filled step line (one SVG path) with landmark
#: markers instead of one bar per timestamp: thousands of bars took the browser about a
#: second to draw on every rerun
BARS_MAX_POINTS = 1000



def plain_figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure of traces and a layout written as plain dictionaries (plotly's JSON
    names), which plotly does not validate again: validating every property, a named
    template's and each ``add_hline``/``add_vline`` one by one, was most of a chart's
    build time on every rerun. The result equals ``go.Figure(data=data, layout=layout)``
    (same JSON), provided the dictionaries are valid — tests/engine/test_figures_common.py
    checks the figures built this way against plotly's validated construction."""
    import plotly.graph_objects as go

    return go.Figure(data=data, layout=layout, _validate=False)


def with_template(fig: go.Figure, name: str) -> go.Figure:
    """``fig`` with plotly's named template ``name``: the figure
    ``fig.update_layout(template=name)`` gives (same JSON), without validating the
    template's hundreds of properties again (~35 ms a chart, on every rerun that builds
    one). A new figure (:func:`plain_figure`); ``fig`` is left as it was."""
    d = fig.to_plotly_json()
    return plain_figure(d["data"], {**d["layout"], "template": template_json(name)})


@functools.lru_cache(maxsize=4)
def template_json(name: str) -> dict:
    """The JSON of plotly's named template ``name`` (e.g. 'plotly_white'), as
    ``layout.template = name`` puts it into a figure; computed once and shared: do not
    change it (a figure's ``to_dict`` copies it)."""
    import plotly.io as pio

    return pio.templates[name].to_plotly_json()


def subplot_layout(rows: int, cols: int = 1, **options) -> dict:
    """The layout ``make_subplots(rows, cols, **options)`` builds (axes, domains, panel
    titles; without plotly's default template, which ``go.Figure`` adds itself), as a
    fresh plain dictionary. ``make_subplots`` runs once per set of arguments: it
    validates every property it sets, most of a chart's build time on every rerun.
    List arguments (titles, heights) may be given as lists or tuples. One column
    (the Timeline's and Learn's panels) is written without plotly
    (:func:`~lmdk_core.figures.subplot_grid.column_layout`, the same JSON)."""
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list | tuple) else v)
                          for k, v in options.items()))
    return copy.deepcopy(_subplot_layout(rows, cols, frozen))


@functools.lru_cache(maxsize=64)
def _subplot_layout(rows: int, cols: int, options: tuple) -> dict:
    """A ``make_subplots`` grid's layout (cached per shape and options; no template)."""
    kwargs: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in options}
    if cols == 1 and set(kwargs) <= SUPPORTED_OPTIONS:
        return column_layout(rows, **kwargs)
    from plotly.subplots import make_subplots

    layout = make_subplots(rows=rows, cols=cols, **kwargs).layout.to_plotly_json()
    layout.pop("template", None)
    return layout


def subplot_axes(row: int, col: int = 1, cols: int = 1) -> dict[str, str]:
    """The ``xaxis`` / ``yaxis`` of a trace in subplot (row, col) of a grid of ``cols``
    columns, numbered as ``make_subplots`` does ('x', 'x2', … row by row)."""
    n = (row - 1) * cols + col
    k = "" if n == 1 else str(n)
    return {"xaxis": f"x{k}", "yaxis": f"y{k}"}


def hline(layout: dict, y: float, row: int, col: int = 1, cols: int = 1, *,
          text: str | None = None, width: float = 1) -> None:
    """A dashed ε-coloured line at ``y`` across subplot (row, col), labelled ``text`` at
    its top left: the shape and annotation ``add_hline(…, annotation_position="top
    left")`` adds, written into ``layout`` directly (``add_hline`` checks every trace of
    the figure on each call)."""
    ax = subplot_axes(row, col, cols)
    layout.setdefault("shapes", []).append({
        "line": {"color": COLORS["epsilon"], "dash": "dash", "width": width}, "type": "line",
        "x0": 0, "x1": 1, "xref": f"{ax['xaxis']} domain", "y0": y, "y1": y,
        "yref": ax["yaxis"]})
    if text is not None:
        layout.setdefault("annotations", []).append({
            "showarrow": False, "text": text, "x": 0, "xanchor": "left",
            "xref": f"{ax['xaxis']} domain", "y": y, "yanchor": "bottom",
            "yref": ax["yaxis"]})


def hover_labels(time: np.ndarray, time_kind: str, years: bool | None = None) -> list[str]:
    """Short human labels for timestamps ('Tue 05 Mar 03:00' or the number); with the
    year ('Tue 05 Mar 2013 03:00') when ``years`` (None: when ``time`` itself spans more
    than one calendar year — pass the whole series' answer for a few of its times)."""
    t = np.asarray(time)
    if time_kind == "datetime":
        from lmdk_core.figures.style import spans_years

        labels = _datetime_labels(t)
        if years is None:
            years = spans_years(t)
        if years:
            yrs = np.asarray(t, dtype="datetime64[Y]").astype(str)
            labels = [lab if lab == "?" else f"{lab[:-6]} {y} {lab[-5:]}"
                      for lab, y in zip(labels, yrs.tolist(), strict=True)]
        return labels
    if t.dtype.kind in "iu":
        return t.astype(str).tolist()
    return [f"{x:g}" if isinstance(x, (float, np.floating)) else str(x) for x in t]


_WEEKDAYS = np.array(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
_MONTHS = np.array(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                    "Nov", "Dec"])


def _datetime_labels(t: np.ndarray) -> list[str]:
    """strftime('%a %d %b %H:%M') of datetimes, '?' for NaT, with numpy only (pandas'
    strftime takes seconds on 200,000 timestamps). A datetime64 array is read as it is
    (``pd.to_datetime`` keeps its instants: the same minutes); other values (text,
    timestamps) through ``pd.to_datetime``."""
    raw = np.asarray(t).ravel()
    if raw.dtype.kind == "M":
        ts = raw.astype("datetime64[m]")
    else:
        import pandas as pd

        ts = np.asarray(pd.to_datetime(raw).values, dtype="datetime64[m]")
    nat = np.isnat(ts)
    ts = np.where(nat, np.datetime64(0, "m"), ts)
    days = ts.astype("datetime64[D]")
    months = ts.astype("datetime64[M]")
    weekday = _WEEKDAYS[(days.astype(np.int64) + 3) % 7]  # 1970-01-01 was a Thursday
    month = _MONTHS[months.astype(np.int64) % 12]
    dom = (days - months.astype("datetime64[D]")).astype(np.int64) + 1
    minutes = (ts - days.astype("datetime64[m]")).astype(np.int64)
    out = [f"{w} {d:02d} {m} {hm // 60:02d}:{hm % 60:02d}"
           for w, d, m, hm in zip(weekday.tolist(), dom.tolist(), month.tolist(),
                                  minutes.tolist(), strict=True)]
    for i in np.flatnonzero(nat).tolist():
        out[i] = "?"
    return out


def display_values(y: np.ndarray) -> np.ndarray:
    """``y`` as float32, for drawing only: plotly sends arrays as binary, 4 bytes a value
    instead of 8 (7 significant digits; hover shows 4). NaN and ±inf are kept."""
    with np.errstate(over="ignore"):
        return np.asarray(y, dtype=float).astype(np.float32)


def bar_width(x: np.ndarray) -> float | None:
    """One width for every bar over the time axis ``x``: 80 % of the median spacing of
    consecutive values (milliseconds for datetimes, as on a plotly date axis); None when
    it cannot be told (fewer than two distinct values, or labels that are not numbers).

    Without it plotly.js sizes each bar trace from the spacing of its own points, so a
    trace holding two far-apart landmarks (t = 40 and t = 120) draws each landmark bar as
    wide as the gap between them."""
    x = np.asarray(x)
    if x.size < 2:
        return None
    if np.issubdtype(x.dtype, np.datetime64):
        v = x.astype("datetime64[ms]").astype(np.int64).astype(float)
        v[np.isnat(x)] = np.nan
    else:
        try:
            v = x.astype(float)
        except (TypeError, ValueError):
            return None
    d = np.diff(v)
    d = d[np.isfinite(d) & (d > 0)]
    return float(0.8 * np.median(d)) if d.size else None


def date_axis_values(x: np.ndarray) -> np.ndarray:
    """Datetimes as milliseconds since 1970 (float64), for a plotly axis of ``type="date"``
    (plotly.js reads numbers there as such, without time zone). plotly sends a numeric
    array as binary, 8 bytes a value, where datetimes go as ISO strings of ~30 bytes
    each, on every trace that shares the axis. NaT becomes NaN (a gap)."""
    ns = np.asarray(x, dtype="datetime64[ns]")
    out = ns.astype(np.int64).astype(float) / 1e6
    out[np.isnat(ns)] = np.nan
    return out


def decimate_figure(fig: go.Figure, T: int, keep=()) -> go.Figure:
    """Decimate, for display, every long trace of ``fig``: min/max of its y per
    pixel-wide bucket (:func:`~lmdk_core.figures.decimation.display_indices`), plus the
    timestamps in ``keep`` for a trace with one point per timestamp (``len(x) == T``);
    x, y and per-point customdata are cut alike. Traces of at most DISPLAY_MAX_POINTS
    points (landmarks, markers, short series) are left whole. In place; returns it."""
    keep = np.asarray(list(keep), dtype=np.int64)
    for tr in fig.data:
        xy = _paired_xy(tr)
        if xy is None:
            continue
        n = len(xy[1])
        yv = np.asarray(xy[1], dtype=float)
        idx = display_indices(n, [yv], keep if n == T else ())
        if idx.size >= n:
            continue
        tr.update({"x": np.asarray(xy[0])[idx], "y": display_values(yv[idx]),
                   **_cut_customdata(tr, n, idx)})
    return fig


def _paired_xy(tr) -> tuple | None:
    """A trace's x and y when it has both, of one length (one point each); else None."""
    x = getattr(tr, "x", None)
    y = getattr(tr, "y", None)
    if x is None or y is None or len(x) != len(y):
        return None
    return x, y


def _cut_customdata(tr, n: int, idx: np.ndarray) -> dict:
    """``{"customdata": …}`` cut to ``idx`` for a trace with per-point customdata (``n``
    rows); empty otherwise."""
    cd = getattr(tr, "customdata", None)
    return {"customdata": np.asarray(cd)[idx]} if cd is not None and len(cd) == n else {}


@per_object(maxsize=16)
def data_labels(data) -> list[str]:
    """:func:`hover_labels` of a dataset (anything with ``time`` and ``time_kind``: a
    series or a track), computed once per data object: the app keeps its datasets for the
    session, and 20,000 labels cost ~30 ms on every rerun otherwise. The list is shared:
    do not change it."""
    return hover_labels(data.time, data.time_kind)
