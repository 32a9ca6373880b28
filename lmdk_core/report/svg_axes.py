"""Axes of the report's static SVG charts: the figure's subplots in pixels
(:class:`Canvas`), each axis's range over the data it shows (linear, log or time), and
the ticks, labels, grid lines and titles drawn for them. Used by
:mod:`lmdk_core.report.svg`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.figures.figure_spec import FigureSpec
from lmdk_core.figures.style import DATE_TICK_FORMATS, FONT
from lmdk_core.report.svg_marks import fmt, text_element

if TYPE_CHECKING:  # a plotly figure is read through its JSON; plotly is not imported here
    import plotly.graph_objects as go

__all__ = ["Axis", "Canvas", "as_numbers", "date_label", "draw_grid", "place_x_axes",
           "place_y_axes"]

#: candidate spacings of the ticks of a time axis, in minutes
_DATE_STEPS = [1, 5, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 4320, 10080, 20160, 43200]


@dataclass
class Axis:
    """One axis: where it is drawn (pixels) and what it spans (data units, log10 for a
    log axis)."""

    lo: float
    hi: float
    p0: float
    p1: float
    kind: str = "linear"  # linear | log | date

    def px(self, v: np.ndarray) -> np.ndarray:
        """Pixel positions of data values (NaN for non-positive values on a log axis)."""
        v = np.asarray(v, dtype=float)
        if self.kind == "log":
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(v > 0, np.log10(v), np.nan)
        span = (self.hi - self.lo) or 1.0
        return self.p0 + (v - self.lo) / span * (self.p1 - self.p0)


def as_numbers(v, date: bool) -> np.ndarray:
    """Values of an x or y array as floats (datetimes as milliseconds since 1970)."""
    a = np.asarray(v)
    if a.dtype.kind == "M" or (a.dtype.kind in "OU" and date):
        ms = a.astype("datetime64[ms]")
        out = ms.astype(np.int64).astype(float)
        out[np.isnat(ms)] = np.nan
        return out
    try:
        return a.astype(float)
    except (TypeError, ValueError):
        return np.arange(a.size, dtype=float)


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round ticks (steps of 1, 2, 2.5 or 5 × 10^k) within [lo, hi]."""
    span = hi - lo
    if not np.isfinite(span) or span <= 0:
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def _date_ticks(lo: float, hi: float, width: float) -> tuple[list[float], str]:
    """Tick positions (ms) and the style's format for the chosen spacing."""
    want = max(2, int(width // 110))
    minutes = (hi - lo) / 60_000.0
    step = next((s for s in _DATE_STEPS if minutes / s <= want), _DATE_STEPS[-1]) * 60_000.0
    start = math.ceil(lo / step) * step
    ticks = [start + i * step for i in range(int((hi - start) / step) + 1)]
    return ticks, _date_format(step)


def _date_format(step: float) -> str:
    """The style's tick format for ticks ``step`` ms apart (its first band holding it)."""
    return next(f for a, b, f in DATE_TICK_FORMATS
                if (a is None or step >= a) and (b is None or step < b))


def date_label(ms: float, fmt: str) -> str:
    """A time (ms since 1970) formatted with ``strftime`` format ``fmt``."""
    dt = np.datetime64(int(ms), "ms").astype("datetime64[s]").item()
    return dt.strftime(fmt)


class Canvas:
    """The figure's subplots in pixels and the SVG elements drawn so far: of a
    :class:`~lmdk_core.figures.figure_spec.FigureSpec` (plain JSON, the report's) or of
    a plotly figure (read through its ``to_plotly_json``)."""

    def __init__(self, fig: FigureSpec | go.Figure, width: int) -> None:
        if isinstance(fig, FigureSpec):
            self.layout, self.traces = fig.layout, fig.data
        else:
            self.layout = fig.layout.to_plotly_json()
            self.traces = [t.to_plotly_json() for t in fig.data]
        self.width = width
        self.height = int(self.layout.get("height") or 400)
        m = {"l": 60, "r": 20, "t": 40, "b": 40, **self.layout.get("margin", {})}
        self.left, self.top = m["l"], m["t"]
        self.plot_w = width - m["l"] - m["r"]
        self.plot_h = self.height - m["t"] - m["b"]
        self.parts: list[str] = []
        self.defs: set[str] = set()
        self.x: dict[str, Axis] = {}
        self.y: dict[str, Axis] = {}

    def axis_layout(self, name: str) -> dict:
        """The layout of axis 'x', 'y2', … ('xaxis', 'yaxis2' in the layout)."""
        return self.layout.get(f"{name[0]}axis{name[1:]}", {})

    def trace_axes(self, tr: dict) -> tuple[str, str]:
        """The (x, y) axis names a trace is drawn on."""
        return tr.get("xaxis") or "x", tr.get("yaxis") or "y"

    def traces_on_y(self, name: str) -> list[dict]:
        """The traces drawn on y axis ``name``."""
        return [t for t in self.traces if self.trace_axes(t)[1] == name]


def _finite_span(v: np.ndarray) -> tuple[float, float]:
    """(min, max) of the finite values; (0, 1) when there are none."""
    v = v[np.isfinite(v)]
    return (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)


def _is_date_x(c: Canvas, names: list[str]) -> bool:
    """Whether the x axes show time: a trace has datetime x values or an axis is a date axis."""
    if any(np.asarray(t.get("x", [])).dtype.kind == "M" for t in c.traces):
        return True
    return any(c.axis_layout(n).get("type") == "date" for n in names)


def _x_data_range(c: Canvas, date: bool) -> tuple[float, float]:
    """Every trace's x span, padded by 1 % on both sides."""
    xs = [as_numbers(t["x"], date) for t in c.traces if len(t.get("x", []))]
    lo, hi = _finite_span(np.concatenate(xs or [np.zeros(1)]))
    pad = 0.01 * (hi - lo or 1.0)
    return lo - pad, hi + pad


def _x_range(c: Canvas, names: list[str], date: bool) -> tuple[float, float]:
    """The first fixed ``range`` of the axes, else the data's padded span."""
    rng = next((c.axis_layout(n)["range"] for n in names if c.axis_layout(n).get("range")),
               None)
    if rng is None:
        return _x_data_range(c, date)
    r = np.asarray(rng, dtype="datetime64[ms]") if date else np.asarray(rng, dtype=float)
    lo, hi = (float(v) for v in as_numbers(r, date))
    return lo, hi


def place_x_axes(c: Canvas) -> None:
    """Every x axis: its range over the traces of every axis it matches (one time axis)."""
    names = sorted({c.trace_axes(t)[0] for t in c.traces})
    date = _is_date_x(c, names)
    lo, hi = _x_range(c, names, date)
    for n in names:
        dom = c.axis_layout(n).get("domain", [0, 1])
        c.x[n] = Axis(lo, hi, c.left + dom[0] * c.plot_w, c.left + dom[1] * c.plot_w,
                       "date" if date else "linear")


def _y_values(c: Canvas, name: str) -> np.ndarray:
    """Every y drawn on axis ``name``: its traces' values and its reference lines' ``y0``."""
    vals = [np.asarray(t.get("y", []), dtype=float) for t in c.traces_on_y(name)]
    hl = [float(s["y0"]) for s in c.layout.get("shapes", []) if s.get("yref") == name]
    return np.concatenate(vals + [np.asarray(hl, dtype=float)])


def _y_pad(lo: float, hi: float) -> float:
    """The margin above and below the data: 5 % of its span (of |hi| for a flat series)."""
    return 0.05 * (hi - lo or abs(hi) or 1.0)


def _log_y_range(v: np.ndarray) -> tuple[float, float]:
    """A log axis spans the positive values' log10, padded on both sides."""
    lo, hi = _finite_span(np.log10(v[np.isfinite(v) & (v > 0)]))
    pad = _y_pad(lo, hi)
    return lo - pad, hi + pad


def _linear_y_range(c: Canvas, name: str, v: np.ndarray) -> tuple[float, float]:
    """The axis's fixed ``range``, else the data's span (from 0 for bars and ``tozero``),
    padded above and below unless it starts at 0."""
    al = c.axis_layout(name)
    if al.get("range"):
        lo, hi = (float(r) for r in al["range"])
        return lo, hi
    lo, hi = _finite_span(v)
    bars = any(t.get("type") == "bar" for t in c.traces_on_y(name))
    if bars or al.get("rangemode") == "tozero":
        lo = min(lo, 0.0)
    pad = _y_pad(lo, hi)
    return (lo if lo == 0 else lo - pad), hi + pad


def place_y_axes(c: Canvas) -> None:
    """Every y axis (one per panel): its range and where its panel is drawn."""
    for name in sorted({c.trace_axes(t)[1] for t in c.traces}):
        al = c.axis_layout(name)
        log = al.get("type") == "log"
        v = _y_values(c, name)
        lo, hi = _log_y_range(v) if log else _linear_y_range(c, name, v)
        dom = al.get("domain", [0, 1])
        c.y[name] = Axis(lo, hi, c.top + (1 - dom[0]) * c.plot_h,
                          c.top + (1 - dom[1]) * c.plot_h, "log" if log else "linear")


def _y_ticks(ax: Axis) -> tuple[list[float], list[str]]:
    """Pixel positions and labels of a y axis's ticks: powers of ten on a log axis,
    about four round numbers on a linear one."""
    if ax.kind == "log":
        ticks = [float(k) for k in range(math.ceil(ax.lo), math.floor(ax.hi) + 1)]
        pos = [ax.p0 + (k - ax.lo) / (ax.hi - ax.lo or 1) * (ax.p1 - ax.p0) for k in ticks]
        return pos, [f"{10 ** k:,.4g}" for k in ticks]
    ticks = _nice_ticks(ax.lo, ax.hi, 4)
    return ax.px(np.asarray(ticks)).tolist(), [f"{t:.4g}" for t in ticks]


def _x_ticks(ax: Axis) -> tuple[list[float], list[str]]:
    """Data positions and labels of an x axis's ticks: the style's date formats on a
    time axis, about six round numbers otherwise."""
    if ax.kind == "date":
        ticks, tick_format = _date_ticks(ax.lo, ax.hi, ax.p1 - ax.p0)
        return ticks, [date_label(t, tick_format) for t in ticks]
    ticks = _nice_ticks(ax.lo, ax.hi, 6)
    return ticks, [f"{t:g}" for t in ticks]


def _axis_title(c: Canvas, name: str) -> str | None:
    """The title text of axis ``name``, if it has one."""
    return (c.axis_layout(name).get("title") or {}).get("text")


def _y_grid(c: Canvas, name: str, ax: Axis, x0: float, x1: float) -> None:
    """One y axis: light grid lines across the plot, tick labels and the rotated title."""
    size = FONT["size"] - 1
    for p, lab in zip(*_y_ticks(ax), strict=True):
        c.parts.append(f'<line x1="{fmt(x0)}" x2="{fmt(x1)}" y1="{fmt(p)}" '
                       f'y2="{fmt(p)}" stroke="#e6e6e6"/>')
        c.parts.append(text_element(x0 - 5, p, lab, anchor="end", size=size, baseline="middle"))
    title = _axis_title(c, name)
    if title:
        mid = (ax.p0 + ax.p1) / 2
        c.parts.append(f'<g transform="translate({fmt(x0 - 46)},{fmt(mid)}) rotate(-90)">'
                       + text_element(0, 0, title, size=FONT["size"]) + "</g>")


def _x_grid(c: Canvas, name: str, ax: Axis) -> None:
    """Tick labels and title of an x axis, under the lowest panel."""
    y0 = max(a.p0 for a in c.y.values())
    ticks, labels = _x_ticks(ax)
    for t, lab in zip(ax.px(np.asarray(ticks)).tolist(), labels, strict=True):
        anchor = "start" if t - ax.p0 < 30 else "middle"  # the first label stays whole
        c.parts.append(text_element(t, y0 + 14, lab, anchor=anchor, size=FONT["size"] - 1))
    title = _axis_title(c, name)
    if title:
        c.parts.append(text_element((ax.p0 + ax.p1) / 2, y0 + 34, title))


def draw_grid(c: Canvas) -> None:
    """Axes: ticks, labels, light grid lines and the axis titles. The x axes share one
    range, so only the first one is labelled."""
    x0 = min(a.p0 for a in c.x.values())
    x1 = max(a.p1 for a in c.x.values())
    for name, ax in c.y.items():
        _y_grid(c, name, ax, x0, x1)
    first = list(c.x)[0]
    _x_grid(c, first, c.x[first])
