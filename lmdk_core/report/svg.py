"""Static SVG of the report's figures: no plotly.js (4.8 MB), no script at all.

The report's charts are built as plotly's JSON in plain dictionaries
(:class:`~lmdk_core.figures.figure_spec.FigureSpec`: the app's own builders, with the
style of :mod:`lmdk_core.figures.style`; a plotly figure is read through its JSON) and
drawn here as inline SVG without plotly: what the figure holds —
subplots, lines (linear and step), filled areas, markers (circle, open circle, star,
cross, triangle, diamond), bars (landmark bars hatched), the ε reference lines, panel
titles and labels, the legend — on linear, log and date axes with the style's tick
labels. Each marker and bar carries its values as an SVG ``<title>`` (a tooltip on
hover). The result scales to the page width (``viewBox``); a phone shows it whole.

The axes (ranges, ticks, grid) are in :mod:`.svg_axes`, the marks (text, paths, marker
symbols) in :mod:`.svg_marks`; this module draws the traces, reference lines,
annotations and legend on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.figures.figure_spec import FigureSpec
from lmdk_core.figures.style import FONT, TITLE_FONT_SIZE
from lmdk_core.report.svg_axes import (
    Axis,
    Canvas,
    as_numbers,
    date_label,
    draw_grid,
    place_x_axes,
    place_y_axes,
)
from lmdk_core.report.svg_marks import (
    dash_attribute,
    esc,
    fmt,
    marker_element,
    path_data,
    text_element,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["figure_svg"]

#: width of the drawing in SVG units (it scales to the page)
WIDTH = 720
#: at most this many markers or bars get a tooltip (each one is a few dozen bytes)
MAX_TOOLTIPS = 2000


def _hatch(c: Canvas, color: str) -> str:
    """The fill of a hatched bar of ``color`` (its pattern defined once per colour)."""
    pid = "hatch-" + color.lstrip("#")
    if pid not in c.defs:
        c.defs.add(pid)
        c.parts.insert(0, f'<defs><pattern id="{pid}" width="5" height="5" '
                          f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                          f'<rect width="5" height="5" fill="{color}"/>'
                          f'<line x1="0" y1="0" x2="0" y2="5" stroke="#000000" '
                          f'stroke-opacity="0.45" stroke-width="1.4"/></pattern></defs>')
    return f"url(#{pid})"


def _tip(name: str, xs: np.ndarray, ys: np.ndarray, date: bool, i: int) -> str:
    """The tooltip of point ``i``: trace name, x (a date on a time axis) and y."""
    x = date_label(xs[i], "%a %d %b %H:%M") if date else f"{xs[i]:g}"
    return f"<title>{esc(name)} · {esc(x)}: {ys[i]:.4g}</title>"


@dataclass
class _Points:
    """One trace's points in data units and in pixels, and whether they get tooltips."""

    name: str
    xs: np.ndarray
    ys: np.ndarray
    xp: np.ndarray
    yp: np.ndarray
    date: bool
    tips: bool

    @classmethod
    def of(cls, tr: dict, xa: Axis, ya: Axis) -> _Points:
        """The points of trace ``tr`` on axes ``xa`` and ``ya``; no tooltips beyond
        :data:`MAX_TOOLTIPS` points or for a trace with ``hoverinfo="skip"``."""
        xs = as_numbers(tr.get("x", []), xa.kind == "date")
        ys = np.asarray(tr.get("y", []), dtype=float)
        tips = xs.size <= MAX_TOOLTIPS and tr.get("hoverinfo") != "skip"
        return cls(tr.get("name") or "", xs, ys, xa.px(xs), ya.px(ys), xa.kind == "date", tips)

    def tip(self, i: int) -> str:
        """The ``<title>`` of point ``i`` (empty without tooltips)."""
        return _tip(self.name, self.xs, self.ys, self.date, i) if self.tips else ""


def _zero_px(ya: Axis) -> float:
    """The pixel row where bars and filled areas start: y = 0, or the axis bottom above 0."""
    return float(ya.px(np.array([max(0.0, ya.lo)]))[0])


def _bar_fill(c: Canvas, marker: dict, default: str) -> str:
    """A bar's fill: its colour, hatched when the marker has a pattern (landmark bars)."""
    color = marker.get("color", default)
    return _hatch(c, color) if marker.get("pattern", {}).get("shape") else color


def _bar_half_width(tr: dict, xs: np.ndarray, xa: Axis) -> float:
    """Half a bar's width in pixels: the trace's ``width``, else 0.8 of the closest
    spacing of its x values (1 for a single bar)."""
    w = tr.get("width")
    if w is None:
        d = np.diff(np.unique(xs[np.isfinite(xs)]))
        w = 0.8 * float(d.min()) if d.size else 1.0
    return abs(float(xa.px(np.array([xa.lo + float(w)]))[0] - xa.p0)) / 2


def _bars(c: Canvas, tr: dict, pts: _Points, xa: Axis, ya: Axis) -> None:
    """A bar trace: one rectangle from the zero row per finite point."""
    fill = _bar_fill(c, tr.get("marker", {}), "#888888")
    half = _bar_half_width(tr, pts.xs, xa)
    zero = _zero_px(ya)
    op = tr.get("opacity", 1)
    for i, (x, y) in enumerate(zip(pts.xp.tolist(), pts.yp.tolist(), strict=True)):
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        top, h = min(y, zero), abs(zero - y)
        c.parts.append(f'<rect x="{fmt(x - half)}" y="{fmt(top)}" '
                       f'width="{fmt(max(2 * half, 0.6))}" height="{fmt(h)}" '
                       f'fill="{fill}" opacity="{op}">' + pts.tip(i) + "</rect>")


def _line(c: Canvas, tr: dict, pts: _Points, ya: Axis, color: str) -> None:
    """A line trace (linear or step), with the area down to zero under it for
    ``fill="tozeroy"``."""
    line = tr.get("line", {})
    d = path_data(pts.xp, pts.yp, line.get("shape", "linear"))
    if tr.get("fill") == "tozeroy" and d:
        ok = np.isfinite(pts.xp) & np.isfinite(pts.yp)
        c.parts.append(f'<path d="{d}V{fmt(_zero_px(ya))}H{fmt(pts.xp[ok][0])}Z" '
                       f'fill="{color}" fill-opacity="0.35" stroke="none"/>')
    c.parts.append(f'<path d="{d}" fill="none" stroke="{color}" '
                   f'stroke-width="{fmt(line.get("width", 2))}"'
                   f'{dash_attribute(line.get("dash"))}/>')


def _markers(c: Canvas, tr: dict, pts: _Points, color: str) -> None:
    """A trace's markers, each with its tooltip in a group."""
    mk = tr.get("marker", {})
    ok = np.flatnonzero(np.isfinite(pts.xp) & np.isfinite(pts.yp))
    for i in ok.tolist():
        el = marker_element(mk.get("symbol", "circle"), pts.xp[i], pts.yp[i],
                            size=mk.get("size", 6), color=mk.get("color", color),
                            line=mk.get("line", {}))
        c.parts.append(f"<g>{el}{pts.tip(i)}</g>" if pts.tips else el)


def _trace(c: Canvas, tr: dict) -> None:
    """One trace: bars, or lines and/or markers as its ``mode`` says."""
    xname, yname = c.trace_axes(tr)
    xa, ya = c.x[xname], c.y[yname]
    pts = _Points.of(tr, xa, ya)
    if tr.get("type") == "bar":
        _bars(c, tr, pts, xa, ya)
        return
    mode = tr.get("mode", "lines")
    color = tr.get("line", {}).get("color") or tr.get("marker", {}).get("color", "#444444")
    if "lines" in mode:
        _line(c, tr, pts, ya, color)
    if "markers" in mode:
        _markers(c, tr, pts, color)


def _reference_lines(c: Canvas) -> None:
    """The layout's horizontal lines across a panel (``xref`` "… domain"): the ε lines."""
    for s in c.layout.get("shapes", []):
        if s.get("type") != "line" or "domain" not in str(s.get("xref", "")):
            continue
        xa = c.x.get(s["xref"].split()[0], next(iter(c.x.values())))
        y = float(c.y[s["yref"]].px(np.array([s["y0"]]))[0])
        ln = s.get("line", {})
        c.parts.append(f'<line x1="{fmt(xa.p0)}" x2="{fmt(xa.p1)}" y1="{fmt(y)}" '
                       f'y2="{fmt(y)}" stroke="{ln.get("color", "#000")}" '
                       f'stroke-width="{fmt(ln.get("width", 1))}"'
                       f'{dash_attribute(ln.get("dash"))}/>')


def _annotation_x(c: Canvas, a: dict) -> float:
    """An annotation's x in pixels: a fraction of the figure (``paper``) or of its x axis."""
    xref = str(a.get("xref", "paper"))
    if xref == "paper":
        return c.left + float(a.get("x", 0)) * c.plot_w
    xa = c.x.get(xref.split()[0], next(iter(c.x.values())))
    return xa.p0 + float(a.get("x", 0)) * (xa.p1 - xa.p0)


def _annotation_y(c: Canvas, a: dict) -> float:
    """An annotation's y in pixels: a fraction of the figure (``paper``) or a data value."""
    yref = str(a.get("yref", "paper"))
    if yref == "paper":
        return c.top + (1 - float(a.get("y", 1))) * c.plot_h
    return float(c.y[yref].px(np.array([a["y"]]))[0])


def _annotations(c: Canvas) -> None:
    """The layout's annotations: panel titles (bold, above a panel) and labels."""
    for a in c.layout.get("annotations", []):
        anchor = {"left": "start", "right": "end"}.get(a.get("xanchor", "center"), "middle")
        title = a.get("yanchor") == "bottom" and str(a.get("yref", "paper")) == "paper"
        size = (a.get("font") or {}).get("size") or (TITLE_FONT_SIZE if title else FONT["size"])
        c.parts.append(text_element(_annotation_x(c, a), _annotation_y(c, a) - 5, a.get("text", ""),
                             anchor=anchor, size=size, bold=title))


def _legend_items(c: Canvas) -> list[dict]:
    """The traces the legend lists: named, shown in the legend, each name once."""
    items, seen = [], set()
    for tr in c.traces:
        name = tr.get("name")
        if not name or tr.get("showlegend") is False or name in seen:
            continue
        seen.add(name)
        items.append(tr)
    return items


def _legend_key(c: Canvas, tr: dict, x: float, y: float) -> list[str]:
    """The sample drawn before a legend label: a bar, or the line and/or marker."""
    if tr.get("type") == "bar":
        fill = _bar_fill(c, tr.get("marker", {}), "#888")
        return [f'<rect x="{fmt(x)}" y="{fmt(y + 2)}" width="16" height="10" '
                f'fill="{fill}"/>']
    out = []
    ln, mk = tr.get("line", {}), tr.get("marker", {})
    if "lines" in tr.get("mode", "lines"):
        out.append(f'<line x1="{fmt(x)}" x2="{fmt(x + 18)}" y1="{fmt(y + 7)}" '
                   f'y2="{fmt(y + 7)}" stroke="{ln.get("color", "#444")}" '
                   f'stroke-width="2"{dash_attribute(ln.get("dash"))}/>')
    if "markers" in tr.get("mode", ""):
        out.append(marker_element(mk.get("symbol", "circle"), x + 9, y + 7,
                           size=min(mk.get("size", 6), 11), color=mk.get("color", "#444"),
                           line=mk.get("line", {})))
    return out


def _legend(c: Canvas) -> int:
    """The legend under the chart, wrapped to the width; returns its height."""
    items = _legend_items(c)
    x, y, row_h = float(c.left), c.height + 6.0, 20
    out = []
    for tr in items:
        label = tr["name"]
        w = 28 + 6.2 * len(label)
        if x + w > c.width - 10 and x > c.left:
            x, y = float(c.left), y + row_h
        out.extend(_legend_key(c, tr, x, y))
        out.append(text_element(x + 24, y + 11, label, anchor="start"))
        x += w
    c.parts.extend(out)
    return int(y - c.height + row_h + 6) if items else 0


def _clip_paths(c: Canvas) -> None:
    """One clip path per panel, so each panel's traces stay inside it."""
    xa = next(iter(c.x.values()), None)
    if xa is None:  # no panel
        return
    for name, ax in c.y.items():
        c.parts.append(f'<clipPath id="clip-{name}"><rect x="{fmt(xa.p0)}" '
                       f'y="{fmt(ax.p1)}" width="{fmt(xa.p1 - xa.p0)}" '
                       f'height="{fmt(ax.p0 - ax.p1)}"/></clipPath>')


def _draw_traces(c: Canvas) -> None:
    """Every trace, in order, clipped to its panel."""
    for tr in c.traces:
        start = len(c.parts)
        _trace(c, tr)
        clip = c.trace_axes(tr)[1]
        c.parts[start:] = [f'<g clip-path="url(#clip-{clip})">', *c.parts[start:], "</g>"]


def figure_svg(fig: FigureSpec | go.Figure, *, title: str = "", description: str = "",
               width: int = WIDTH) -> str:
    """The figure as one ``<svg>`` element (``role="img"``, ``title``/``description`` as
    its text alternative; the figure's ``meta.alt`` when not given)."""
    c = Canvas(fig, width)
    place_x_axes(c)
    place_y_axes(c)
    draw_grid(c)
    _clip_paths(c)
    _draw_traces(c)
    _reference_lines(c)
    _annotations(c)
    extra = _legend(c)
    alt = description or (c.layout.get("meta") or {}).get("alt", "")
    head = (f'<svg viewBox="0 0 {width} '
            f'{c.height + extra}" role="img" class="chart" '
            f'font-family="{esc(FONT["family"])}" fill="{FONT["color"]}">'
            f"<title>{esc(title or alt[:80])}</title><desc>{esc(alt)}</desc>")
    return head + "".join(c.parts) + "</svg>"
