"""SVG marks of the report's static charts: numbers and text as SVG writes them, line
paths (linear and step), plotly's marker symbols and dash styles. Used by
:mod:`lmdk_core.report.svg` (no plotly here)."""

from __future__ import annotations

import html
import math

import numpy as np

from lmdk_core.figures.style import FONT

__all__ = ["dash_attribute", "esc", "fmt", "marker_element", "path_data", "text_element"]


def esc(text) -> str:
    """``text`` escaped for SVG text and attribute values."""
    return html.escape(str(text), quote=True)


def fmt(v: float) -> str:
    """A coordinate with at most one decimal, no trailing zeros (``12.0`` → ``12``)."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def text_element(x: float, y: float, text: str, *, anchor: str = "middle",
                 size: float | None = None, bold: bool = False, baseline: str = "auto",
                 fill: str | None = None) -> str:
    """A ``<text>`` at (x, y) in the style's font; ``<br>`` or newlines make lines."""
    lines = str(text).replace("<br>", "\n").split("\n")
    attrs = (f'x="{fmt(x)}" y="{fmt(y)}" text-anchor="{anchor}" '
             f'font-size="{fmt(size or FONT["size"])}"' + _text_style(bold, baseline, fill))
    if len(lines) == 1:
        return f"<text {attrs}>{esc(lines[0])}</text>"
    spans = "".join(f'<tspan x="{fmt(x)}" dy="{0 if i == 0 else 1.15}em">{esc(s)}</tspan>'
                    for i, s in enumerate(lines))
    return f"<text {attrs}>{spans}</text>"


def _text_style(bold: bool, baseline: str, fill: str | None) -> str:
    """The optional attributes of a ``<text>``: bold, baseline other than auto, fill."""
    return ((' font-weight="bold"' if bold else "")
            + (f' dominant-baseline="{baseline}"' if baseline != "auto" else "")
            + (f' fill="{fill}"' if fill else ""))


def _segment(shape: str, prev: tuple[float, float], x: float, y: float) -> str:
    """The path from the previous point ``prev`` to (x, y): a straight line, or a step
    (``hv``: across then up; ``hvh``: across half-way, up, across)."""
    if shape == "hv":
        return f"H{fmt(x)}V{fmt(y)}"
    if shape == "hvh":
        return f"H{fmt((prev[0] + x) / 2)}V{fmt(y)}H{fmt(x)}"
    return f"L{fmt(x)},{fmt(y)}"


def path_data(xp: np.ndarray, yp: np.ndarray, shape: str = "linear") -> str:
    """An SVG path through the points, broken at NaN; ``hv``/``hvh`` steps."""
    out: list[str] = []
    pen = False
    prev: tuple[float, float] | None = None  # the last point drawn (set while pen is down)
    for x, y in zip(xp.tolist(), yp.tolist(), strict=True):
        if not (math.isfinite(x) and math.isfinite(y)):
            pen = False
            continue
        out.append(_segment(shape, prev, x, y) if pen and prev is not None
                   else f"M{fmt(x)},{fmt(y)}")
        pen, prev = True, (x, y)
    return "".join(out)


def _star(x: float, y: float, r: float, color: str, style: str) -> str:
    """A five-pointed star: ten corners alternating between 1.2 r and 0.5 r."""
    pts = []
    for k in range(10):
        a = math.pi / 2 + k * math.pi / 5
        rr = r * 1.2 if k % 2 == 0 else r * 0.5
        pts.append(f"{fmt(x + rr * math.cos(a))},{fmt(y - rr * math.sin(a))}")
    return f'<polygon points="{" ".join(pts)}" {style}/>'


def _cross(x: float, y: float, r: float, color: str, style: str) -> str:
    """An × of two strokes in the marker's colour (it has no fill)."""
    d = r * 0.8
    return (f'<path d="M{fmt(x - d)},{fmt(y - d)}L{fmt(x + d)},{fmt(y + d)}'
            f'M{fmt(x - d)},{fmt(y + d)}L{fmt(x + d)},{fmt(y - d)}" '
            f'stroke="{color}" stroke-width="2" fill="none"/>')


def _triangle_up(x: float, y: float, r: float, color: str, style: str) -> str:
    """A triangle pointing up."""
    return (f'<polygon points="{fmt(x)},{fmt(y - r)} {fmt(x - r)},{fmt(y + r * 0.8)} '
            f'{fmt(x + r)},{fmt(y + r * 0.8)}" {style}/>')


def _diamond(x: float, y: float, r: float, color: str, style: str) -> str:
    """A square standing on a corner."""
    return (f'<polygon points="{fmt(x)},{fmt(y - r)} {fmt(x + r)},{fmt(y)} '
            f'{fmt(x)},{fmt(y + r)} {fmt(x - r)},{fmt(y)}" {style}/>')


def _circle(x: float, y: float, r: float, color: str, style: str) -> str:
    """A circle (every symbol without a shape of its own)."""
    return f'<circle cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(r)}" {style}/>'


#: plotly marker symbol (without ``-open``) → its SVG shape; any other symbol is a circle
_MARKER_SHAPES = {"star": _star, "x": _cross, "triangle-up": _triangle_up, "diamond": _diamond}


def marker_element(symbol: str, x: float, y: float, *, size: float, color: str, line: dict) -> str:
    """One marker of plotly's ``symbol`` (``…-open``: outline only) centred at (x, y)."""
    open_ = symbol.endswith("-open")
    fill = "none" if open_ else color
    stroke = color if open_ else line.get("color", "none")
    sw = line.get("width", 1.5 if open_ else 0)
    style = f'fill="{fill}" stroke="{stroke}" stroke-width="{fmt(sw)}"'
    shape = _MARKER_SHAPES.get(symbol.removesuffix("-open"), _circle)
    return shape(x, y, size / 2, color, style)


def dash_attribute(dash: str | None) -> str:
    """The ``stroke-dasharray`` attribute of plotly's dash style (none for solid)."""
    arr = {"dash": "6,4", "dot": "2,3", "dashdot": "6,3,2,3", "longdash": "10,4"}.get(
        dash or "solid")
    return f' stroke-dasharray="{arr}"' if arr else ""
