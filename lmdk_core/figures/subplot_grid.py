"""One column of stacked panels as plain plotly layout JSON, without plotly.

The Timeline and Learn figures stack their panels in one column on a shared time axis:
the layout plotly's ``make_subplots(rows, 1, shared_xaxes=…, vertical_spacing=…,
row_heights=…, subplot_titles=…)`` builds (without its default template). Written here
with plotly's own arithmetic, float for float and key for key, so that the report
(:mod:`lmdk_core.report`), which draws these figures as static SVG, does not load plotly
(0.2–0.3 s of a report's CPU) — and the app's figures stay exactly what they were:
tests/engine/test_subplot_grid.py compares the JSON with ``make_subplots``' on random
arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SUPPORTED_OPTIONS", "column_layout"]

#: the ``make_subplots`` options :func:`column_layout` reproduces (one column)
SUPPORTED_OPTIONS = frozenset({"shared_xaxes", "vertical_spacing", "row_heights",
                               "subplot_titles"})

#: the font of the panel titles (``make_subplots``' default)
_TITLE_FONT_SIZE = 16


def _heights(rows: int, spacing: float, row_heights: Sequence[float] | None) -> list[float]:
    """Each panel's height as a fraction of the plot, bottom to top (plotly's
    ``row_dir < 0``: the list is reversed for a grid that starts at the top left)."""
    if row_heights is None:
        return [(1.0 - spacing * (rows - 1)) / rows] * rows
    if len(row_heights) != rows:
        raise ValueError(f"row_heights needs {rows} values, not {len(row_heights)}")
    cum_sum = float(sum(row_heights))
    heights = [(1.0 - spacing * (rows - 1)) * (h / cum_sum) for h in row_heights]
    return list(reversed(heights))


def _clamped(v: float) -> float:
    """A domain end just outside [0, 1] (float error) put on the edge, as plotly does."""
    if v < 0.0 and v > -0.01:
        return 0.0
    if v > 1.0 and v < 1.01:
        return 1.0
    if not 0.0 <= v <= 1.0:
        raise ValueError("the panels do not fit in the figure")
    return v


def _y_domains(rows: int, spacing: float, heights: list[float]) -> list[list[float]]:
    """The ``[bottom, top]`` of each panel, top panel first."""
    starts = [sum(heights[:r]) + r * spacing for r in range(rows)][::-1]
    return [[_clamped(starts[r] + 0.0), _clamped(starts[r] + heights[-1 - r] - 0.0)]
            for r in range(rows)]


def column_layout(rows: int, *, shared_xaxes: bool = False,
                  vertical_spacing: float | None = None,
                  row_heights: Sequence[float] | None = None,
                  subplot_titles: Sequence[str] | None = None) -> dict:
    """The layout of ``make_subplots(rows, 1, …)`` as plotly's ``to_plotly_json`` gives
    it, without the ``template`` key: ``xaxis``/``yaxis`` … ``xaxisN``/``yaxisN`` with
    their domains and anchors (the upper x axes matching the bottom one, their tick
    labels hidden, when ``shared_xaxes``), then the panel titles as annotations."""
    if not isinstance(rows, int) or rows <= 0:
        raise ValueError("rows must be a whole number > 0")
    if vertical_spacing is None:
        vertical_spacing = 0.5 / rows if subplot_titles is not None else 0.3 / rows
    if vertical_spacing < 0 or vertical_spacing > 1 or (
            rows > 1 and vertical_spacing > 1.0 / float(rows - 1)):
        raise ValueError("vertical_spacing does not fit the rows")
    heights = _heights(rows, vertical_spacing, row_heights)
    # one column: x from 0 to the whole width (plotly: 0 + 0·spacing + l, width − r)
    x_domain = [0.0, 1.0]
    layout: dict = {}
    domains = _y_domains(rows, vertical_spacing, heights)
    for r in range(rows):
        k = "" if r == 0 else str(r + 1)
        layout[f"xaxis{k}"] = {"anchor": f"y{k}", "domain": list(x_domain)}
        layout[f"yaxis{k}"] = {"anchor": f"x{k}", "domain": domains[r]}
    if shared_xaxes and rows > 1:
        for r in range(rows - 1):  # every axis but the bottom one matches it
            axis = layout[f"xaxis{'' if r == 0 else r + 1}"]
            axis["matches"] = f"x{rows}"
            axis["showticklabels"] = False
    titles = [{"font": {"size": _TITLE_FONT_SIZE}, "showarrow": False, "text": text,
               "x": sum(x_domain) / 2.0, "xanchor": "center", "xref": "paper",
               "y": domains[i][1], "yanchor": "bottom", "yref": "paper"}
              for i, text in enumerate(subplot_titles or ()) if text and i < rows]
    if titles:
        layout["annotations"] = titles
    return layout
