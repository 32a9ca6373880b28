"""Static SVG of the report's plotly figures: no plotly.js (4.8 MB), no script at all.

The report's charts are built as plotly figures (the app's own builders, with the style
of :mod:`lmdk_core.figures.style`) and drawn here as inline SVG: what the figure holds —
subplots, lines (linear and step), filled areas, markers (circle, open circle, star,
cross, triangle, diamond), bars (landmark bars hatched), the ε reference lines, panel
titles and labels, the legend — on linear, log and date axes with the style's tick
labels. Each marker and bar carries its values as an SVG ``<title>`` (a tooltip on
hover). The result scales to the page width (``viewBox``); a phone shows it whole.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lmdk_core.figures.style import DATE_TICK_FORMATS, FONT, TITLE_FONT_SIZE

__all__ = ["figure_svg"]

#: width of the drawing in SVG units (it scales to the page)
WIDTH = 720
#: at most this many markers or bars get a tooltip (each one is a few dozen bytes)
MAX_TOOLTIPS = 2000
_DAY = 86_400_000.0
_DATE_STEPS = [1, 5, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 4320, 10080, 20160, 43200]


@dataclass
class _Axis:
    """One axis: where it is drawn (pixels) and what it spans (data units, log10 for a
    log axis)."""

    lo: float
    hi: float
    p0: float
    p1: float
    kind: str = "linear"  # linear | log | date

    def px(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=float)
        if self.kind == "log":
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(v > 0, np.log10(v), np.nan)
        span = (self.hi - self.lo) or 1.0
        return self.p0 + (v - self.lo) / span * (self.p1 - self.p0)


def _numbers(v, date: bool) -> np.ndarray:
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


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
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
    fmt = next(f for a, b, f in DATE_TICK_FORMATS
               if (a is None or step >= a) and (b is None or step < b))
    return ticks, fmt


def _date_label(ms: float, fmt: str) -> str:
    dt = np.datetime64(int(ms), "ms").astype("datetime64[s]").item()
    return dt.strftime(fmt)


def _text(x: float, y: float, text: str, *, anchor: str = "middle", size: float | None = None,
          bold: bool = False, baseline: str = "auto", fill: str | None = None) -> str:
    lines = str(text).replace("<br>", "\n").split("\n")
    size = size or FONT["size"]
    attrs = (f'x="{_fmt(x)}" y="{_fmt(y)}" text-anchor="{anchor}" font-size="{_fmt(size)}"'
             + (' font-weight="bold"' if bold else "")
             + (f' dominant-baseline="{baseline}"' if baseline != "auto" else "")
             + (f' fill="{fill}"' if fill else ""))
    if len(lines) == 1:
        return f"<text {attrs}>{_esc(lines[0])}</text>"
    spans = "".join(f'<tspan x="{_fmt(x)}" dy="{0 if i == 0 else 1.15}em">{_esc(s)}</tspan>'
                    for i, s in enumerate(lines))
    return f"<text {attrs}>{spans}</text>"


def _path(xp: np.ndarray, yp: np.ndarray, shape: str = "linear") -> str:
    """An SVG path through the points, broken at NaN; ``hv``/``hvh`` steps."""
    out: list[str] = []
    pen = False
    prev = None
    for x, y in zip(xp.tolist(), yp.tolist(), strict=True):
        if not (math.isfinite(x) and math.isfinite(y)):
            pen = False
            continue
        if not pen:
            out.append(f"M{_fmt(x)},{_fmt(y)}")
        elif shape == "hv":
            out.append(f"H{_fmt(x)}V{_fmt(y)}")
        elif shape == "hvh":
            mid = (prev[0] + x) / 2
            out.append(f"H{_fmt(mid)}V{_fmt(y)}H{_fmt(x)}")
        else:
            out.append(f"L{_fmt(x)},{_fmt(y)}")
        pen, prev = True, (x, y)
    return "".join(out)


def _marker(symbol: str, x: float, y: float, size: float, color: str, line: dict) -> str:
    r = size / 2
    open_ = symbol.endswith("-open")
    fill = "none" if open_ else color
    stroke = color if open_ else line.get("color", "none")
    sw = line.get("width", 1.5 if open_ else 0)
    style = f'fill="{fill}" stroke="{stroke}" stroke-width="{_fmt(sw)}"'
    base = symbol.removesuffix("-open")
    if base == "star":
        pts = []
        for k in range(10):
            a = math.pi / 2 + k * math.pi / 5
            rr = r * 1.2 if k % 2 == 0 else r * 0.5
            pts.append(f"{_fmt(x + rr * math.cos(a))},{_fmt(y - rr * math.sin(a))}")
        return f'<polygon points="{" ".join(pts)}" {style}/>'
    if base == "x":
        d = r * 0.8
        return (f'<path d="M{_fmt(x - d)},{_fmt(y - d)}L{_fmt(x + d)},{_fmt(y + d)}'
                f'M{_fmt(x - d)},{_fmt(y + d)}L{_fmt(x + d)},{_fmt(y - d)}" '
                f'stroke="{color}" stroke-width="2" fill="none"/>')
    if base == "triangle-up":
        return (f'<polygon points="{_fmt(x)},{_fmt(y - r)} {_fmt(x - r)},{_fmt(y + r * 0.8)} '
                f'{_fmt(x + r)},{_fmt(y + r * 0.8)}" {style}/>')
    if base == "diamond":
        return (f'<polygon points="{_fmt(x)},{_fmt(y - r)} {_fmt(x + r)},{_fmt(y)} '
                f'{_fmt(x)},{_fmt(y + r)} {_fmt(x - r)},{_fmt(y)}" {style}/>')
    return f'<circle cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(r)}" {style}/>'


def _dash(dash: str | None) -> str:
    arr = {"dash": "6,4", "dot": "2,3", "dashdot": "6,3,2,3", "longdash": "10,4"}.get(
        dash or "solid")
    return f' stroke-dasharray="{arr}"' if arr else ""


class _Canvas:
    """The figure's subplots in pixels and the SVG elements drawn so far."""

    def __init__(self, fig: go.Figure, width: int) -> None:
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
        self.x: dict[str, _Axis] = {}
        self.y: dict[str, _Axis] = {}

    def axis_layout(self, name: str) -> dict:
        """The layout of axis 'x', 'y2', … ('xaxis', 'yaxis2' in the layout)."""
        return self.layout.get(f"{name[0]}axis{name[1:]}", {})

    def trace_axes(self, tr: dict) -> tuple[str, str]:
        return tr.get("xaxis") or "x", tr.get("yaxis") or "y"


def _x_axes(c: _Canvas) -> None:
    """Every x axis: its range over the traces of every axis it matches (one time axis)."""
    names = sorted({c.trace_axes(t)[0] for t in c.traces})
    date = any(np.asarray(t.get("x", [])).dtype.kind == "M" for t in c.traces) \
        or any(c.axis_layout(n).get("type") == "date" for n in names)
    vals = np.concatenate([_numbers(t["x"], date) for t in c.traces if len(t.get("x", []))]
                          or [np.zeros(1)])
    vals = vals[np.isfinite(vals)]
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
    rng = next((c.axis_layout(n).get("range") for n in names if c.axis_layout(n).get("range")),
               None)
    if rng is not None:
        r = np.asarray(rng, dtype="datetime64[ms]") if date else np.asarray(rng, dtype=float)
        lo, hi = (float(v) for v in _numbers(r, date))
    else:
        pad = 0.01 * (hi - lo or 1.0)
        lo, hi = lo - pad, hi + pad
    for n in names:
        dom = c.axis_layout(n).get("domain", [0, 1])
        c.x[n] = _Axis(lo, hi, c.left + dom[0] * c.plot_w, c.left + dom[1] * c.plot_w,
                       "date" if date else "linear")


def _y_axes(c: _Canvas) -> None:
    for name in sorted({c.trace_axes(t)[1] for t in c.traces}):
        al = c.axis_layout(name)
        log = al.get("type") == "log"
        vals = [np.asarray(t.get("y", []), dtype=float) for t in c.traces
                if c.trace_axes(t)[1] == name]
        bars = any(t.get("type") == "bar" for t in c.traces if c.trace_axes(t)[1] == name)
        hl = [float(s["y0"]) for s in c.layout.get("shapes", []) if s.get("yref") == name]
        v = np.concatenate(vals + [np.asarray(hl, dtype=float)])
        v = v[np.isfinite(v) & ((v > 0) if log else True)]
        if log:
            v = np.log10(v)
        lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
        if not log and (bars or al.get("rangemode") == "tozero"):
            lo = min(lo, 0.0)
        if al.get("range") and not log:
            lo, hi = (float(r) for r in al["range"])
        else:
            pad = 0.05 * (hi - lo or abs(hi) or 1.0)
            lo, hi = (lo if lo == 0 and not log else lo - pad), hi + pad
        dom = al.get("domain", [0, 1])
        c.y[name] = _Axis(lo, hi, c.top + (1 - dom[0]) * c.plot_h,
                          c.top + (1 - dom[1]) * c.plot_h, "log" if log else "linear")


def _grid(c: _Canvas) -> None:
    """Axes: ticks, labels, light grid lines and the axis titles."""
    size = FONT["size"] - 1
    for name, ax in c.y.items():
        x0 = min(a.p0 for a in c.x.values())
        x1 = max(a.p1 for a in c.x.values())
        if ax.kind == "log":
            ticks = [float(k) for k in range(math.ceil(ax.lo), math.floor(ax.hi) + 1)]
            labels = [f"{10 ** k:,.4g}" for k in ticks]
            pos = [ax.p0 + (k - ax.lo) / (ax.hi - ax.lo or 1) * (ax.p1 - ax.p0) for k in ticks]
        else:
            ticks = _nice_ticks(ax.lo, ax.hi, 4)
            labels = [f"{t:.4g}" for t in ticks]
            pos = ax.px(np.asarray(ticks)).tolist()
        for p, lab in zip(pos, labels, strict=True):
            c.parts.append(f'<line x1="{_fmt(x0)}" x2="{_fmt(x1)}" y1="{_fmt(p)}" '
                           f'y2="{_fmt(p)}" stroke="#e6e6e6"/>')
            c.parts.append(_text(x0 - 5, p, lab, anchor="end", size=size, baseline="middle"))
        title = (c.axis_layout(name).get("title") or {}).get("text")
        if title:
            mid = (ax.p0 + ax.p1) / 2
            c.parts.append(f'<g transform="translate({_fmt(x0 - 46)},{_fmt(mid)}) rotate(-90)">'
                           + _text(0, 0, title, size=FONT["size"]) + "</g>")
    bottom = max(c.x, key=lambda n: max(a.p0 for a in c.y.values()))
    for name, ax in c.x.items():
        y0 = max(a.p0 for a in c.y.values())
        if name != bottom and len(c.x) > 1:
            continue
        if ax.kind == "date":
            ticks, fmt = _date_ticks(ax.lo, ax.hi, ax.p1 - ax.p0)
            labels = [_date_label(t, fmt) for t in ticks]
        else:
            ticks = _nice_ticks(ax.lo, ax.hi, 6)
            labels = [f"{t:g}" for t in ticks]
        for t, lab in zip(ax.px(np.asarray(ticks)).tolist(), labels, strict=True):
            anchor = "start" if t - ax.p0 < 30 else "middle"  # the first label stays whole
            c.parts.append(_text(t, y0 + 14, lab, anchor=anchor, size=size))
        title = (c.axis_layout(name).get("title") or {}).get("text")
        if title:
            c.parts.append(_text((ax.p0 + ax.p1) / 2, y0 + 34, title))


def _hatch(c: _Canvas, color: str) -> str:
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
    x = _date_label(xs[i], "%a %d %b %H:%M") if date else f"{xs[i]:g}"
    return f"<title>{_esc(name)} · {_esc(x)}: {ys[i]:.4g}</title>"


def _trace(c: _Canvas, tr: dict) -> None:
    xa, ya = (c.x[n] for n in (c.trace_axes(tr)[0],)), c.y[c.trace_axes(tr)[1]]
    xa = next(xa)
    xs = _numbers(tr.get("x", []), xa.kind == "date")
    ys = np.asarray(tr.get("y", []), dtype=float)
    xp, yp = xa.px(xs), ya.px(ys)
    name = tr.get("name") or ""
    tips = xs.size <= MAX_TOOLTIPS and tr.get("hoverinfo") != "skip"
    if tr.get("type") == "bar":
        marker = tr.get("marker", {})
        color = marker.get("color", "#888888")
        fill = _hatch(c, color) if marker.get("pattern", {}).get("shape") else color
        w = tr.get("width")
        if w is None:
            d = np.diff(np.unique(xs[np.isfinite(xs)]))
            w = 0.8 * float(d.min()) if d.size else 1.0
        half = abs(float(xa.px(np.array([xa.lo + float(w)]))[0] - xa.p0)) / 2
        zero = float(ya.px(np.array([max(0.0, ya.lo)]))[0])
        op = tr.get("opacity", 1)
        for i, (x, y) in enumerate(zip(xp.tolist(), yp.tolist(), strict=True)):
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            top, h = min(y, zero), abs(zero - y)
            c.parts.append(f'<rect x="{_fmt(x - half)}" y="{_fmt(top)}" '
                           f'width="{_fmt(max(2 * half, 0.6))}" height="{_fmt(h)}" '
                           f'fill="{fill}" opacity="{op}">'
                           + (_tip(name, xs, ys, xa.kind == "date", i) if tips else "")
                           + "</rect>")
        return
    mode = tr.get("mode", "lines")
    line = tr.get("line", {})
    color = line.get("color") or tr.get("marker", {}).get("color", "#444444")
    if "lines" in mode:
        d = _path(xp, yp, line.get("shape", "linear"))
        if tr.get("fill") == "tozeroy" and d:
            zero = float(ya.px(np.array([max(0.0, ya.lo)]))[0])
            ok = np.isfinite(xp) & np.isfinite(yp)
            c.parts.append(f'<path d="{d}V{_fmt(zero)}H{_fmt(xp[ok][0])}Z" fill="{color}" '
                           f'fill-opacity="0.35" stroke="none"/>')
        c.parts.append(f'<path d="{d}" fill="none" stroke="{color}" '
                       f'stroke-width="{_fmt(line.get("width", 2))}"'
                       f'{_dash(line.get("dash"))}/>')
    if "markers" in mode:
        mk = tr.get("marker", {})
        ok = np.flatnonzero(np.isfinite(xp) & np.isfinite(yp))
        for i in ok.tolist():
            el = _marker(mk.get("symbol", "circle"), xp[i], yp[i], mk.get("size", 6),
                         mk.get("color", color), mk.get("line", {}))
            if tips:
                el = f"<g>{el}{_tip(name, xs, ys, xa.kind == 'date', i)}</g>"
            c.parts.append(el)


def _shapes_and_labels(c: _Canvas) -> None:
    for s in c.layout.get("shapes", []):
        if s.get("type") != "line" or "domain" not in str(s.get("xref", "")):
            continue
        xa = c.x.get(s["xref"].split()[0], next(iter(c.x.values())))
        y = float(c.y[s["yref"]].px(np.array([s["y0"]]))[0])
        ln = s.get("line", {})
        c.parts.append(f'<line x1="{_fmt(xa.p0)}" x2="{_fmt(xa.p1)}" y1="{_fmt(y)}" '
                       f'y2="{_fmt(y)}" stroke="{ln.get("color", "#000")}" '
                       f'stroke-width="{_fmt(ln.get("width", 1))}"{_dash(ln.get("dash"))}/>')
    for a in c.layout.get("annotations", []):
        xref, yref = str(a.get("xref", "paper")), str(a.get("yref", "paper"))
        if xref == "paper":
            x = c.left + float(a.get("x", 0)) * c.plot_w
        else:
            xa = c.x.get(xref.split()[0], next(iter(c.x.values())))
            x = xa.p0 + float(a.get("x", 0)) * (xa.p1 - xa.p0)
        if yref == "paper":
            y = c.top + (1 - float(a.get("y", 1))) * c.plot_h
        else:
            y = float(c.y[yref].px(np.array([a["y"]]))[0])
        anchor = {"left": "start", "right": "end"}.get(a.get("xanchor", "center"), "middle")
        title = a.get("yanchor") == "bottom" and yref == "paper"
        size = (a.get("font") or {}).get("size") or (TITLE_FONT_SIZE if title else FONT["size"])
        c.parts.append(_text(x, y - 5, a.get("text", ""), anchor=anchor, size=size,
                             bold=title))


def _legend(c: _Canvas) -> int:
    """The legend under the chart, wrapped to the width; returns its height."""
    items, seen = [], set()
    for tr in c.traces:
        name = tr.get("name")
        if not name or tr.get("showlegend") is False or name in seen:
            continue
        seen.add(name)
        items.append(tr)
    x, y, row_h = float(c.left), c.height + 6.0, 20
    out = []
    for tr in items:
        label = tr["name"]
        w = 28 + 6.2 * len(label)
        if x + w > c.width - 10 and x > c.left:
            x, y = float(c.left), y + row_h
        if tr.get("type") == "bar":
            mk = tr.get("marker", {})
            col = mk.get("color", "#888")
            fill = _hatch(c, col) if mk.get("pattern", {}).get("shape") else col
            out.append(f'<rect x="{_fmt(x)}" y="{_fmt(y + 2)}" width="16" height="10" '
                       f'fill="{fill}"/>')
        else:
            ln, mk = tr.get("line", {}), tr.get("marker", {})
            if "lines" in tr.get("mode", "lines"):
                out.append(f'<line x1="{_fmt(x)}" x2="{_fmt(x + 18)}" y1="{_fmt(y + 7)}" '
                           f'y2="{_fmt(y + 7)}" stroke="{ln.get("color", "#444")}" '
                           f'stroke-width="2"{_dash(ln.get("dash"))}/>')
            if "markers" in tr.get("mode", ""):
                out.append(_marker(mk.get("symbol", "circle"), x + 9, y + 7,
                                   min(mk.get("size", 6), 11), mk.get("color", "#444"),
                                   mk.get("line", {})))
        out.append(_text(x + 24, y + 11, label, anchor="start"))
        x += w
    c.parts.extend(out)
    return int(y - c.height + row_h + 6) if items else 0


def figure_svg(fig: go.Figure, *, title: str = "", description: str = "",
               width: int = WIDTH) -> str:
    """The figure as one ``<svg>`` element (``role="img"``, ``title``/``description`` as
    its text alternative; the figure's ``meta.alt`` when not given)."""
    c = _Canvas(fig, width)
    _x_axes(c)
    _y_axes(c)
    _grid(c)
    for name, ax in c.y.items():  # clip each panel's traces to it
        xa = next(iter(c.x.values()))
        c.parts.append(f'<clipPath id="clip-{name}"><rect x="{_fmt(xa.p0)}" '
                       f'y="{_fmt(ax.p1)}" width="{_fmt(xa.p1 - xa.p0)}" '
                       f'height="{_fmt(ax.p0 - ax.p1)}"/></clipPath>')
    for tr in c.traces:
        start = len(c.parts)
        _trace(c, tr)
        clip = c.trace_axes(tr)[1]
        c.parts[start:] = [f'<g clip-path="url(#clip-{clip})">', *c.parts[start:], "</g>"]
    _shapes_and_labels(c)
    extra = _legend(c)
    alt = description or (c.layout.get("meta") or {}).get("alt", "")
    head = (f'<svg viewBox="0 0 {width} '
            f'{c.height + extra}" role="img" class="chart" '
            f'font-family="{_esc(FONT["family"])}" fill="{FONT["color"]}">'
            f"<title>{_esc(title or alt[:80])}</title><desc>{_esc(alt)}</desc>")
    return head + "".join(c.parts) + "</svg>"
