"""Figures of the dummy-landmarks page: the option chain and the selection probabilities."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lmdk_core.dummies import DummyOptions, DummySelection
from lmdk_core.figures.common import COLORS

__all__ = ["options_strip_figure", "selection_probability_figure"]

#: cell codes of the strip: regular, real landmark, dummy landmark, selected dummy
_REGULAR, _LANDMARK, _DUMMY = 0, 1, 2


def _option_grid(options: DummyOptions, rows: int) -> np.ndarray:
    """The strip's cells: row 0 the original landmarks, row i also the first i dummies
    (0 regular, :data:`_LANDMARK`, :data:`_DUMMY`)."""
    z = np.zeros((rows + 1, options.length), dtype=int)
    z[:, options.landmarks] = _LANDMARK
    for i in range(rows):
        z[i + 1, options.added[: i + 1]] = _DUMMY
    return z


def _option_labels(rows: int) -> list[str]:
    """Row labels: "L (original)", then "Li: +i dummies"."""
    return ["L (original)"] + [f"L{i + 1}: +{i + 1} dumm{'y' if i == 0 else 'ies'}"
                               for i in range(rows)]


def options_strip_figure(options: DummyOptions, selected: int | None = None,
                         max_rows: int = 25) -> go.Figure:
    """One row per option (L, L₁, L₂, …), one column per timestamp: real landmarks red,
    dummies orange, regular timestamps light grey; the selected option is outlined."""
    n = len(options)
    rows = min(n, max_rows)
    T = options.length
    z = _option_grid(options, rows)
    colorscale = [[0.0, "#eeeeee"], [0.33, "#eeeeee"], [0.34, COLORS["landmark"]],
                  [0.66, COLORS["landmark"]], [0.67, COLORS["approximated"]],
                  [1.0, COLORS["approximated"]]]
    text = np.where(z == _LANDMARK, "landmark", np.where(z == _DUMMY, "dummy", "regular"))
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(T), y=_option_labels(rows), zmin=0, zmax=2, colorscale=colorscale,
        showscale=False, xgap=1, ygap=1, text=text,
        hovertemplate="%{y}<br>t=%{x}: %{text}<extra></extra>",
    ))
    if selected is not None and selected < rows:
        fig.add_shape(type="rect", x0=-0.5, x1=T - 0.5, y0=selected + 0.5, y1=selected + 1.5,
                      line={"color": COLORS["epsilon"], "width": 3})
    fig.update_layout(
        height=max(220, 26 * (rows + 1) + 80), margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "timestamp t", "dtick": max(1, T // 20)},
        yaxis={"autorange": "reversed"},
        title={"text": "Options: red = real landmarks, orange = dummies"
               + (f" (first {rows} of {n})" if n > rows else ""), "font": {"size": 14}},
    )
    return fig


def selection_probability_figure(selection: DummySelection, max_bars: int = 200) -> go.Figure:
    """Bar chart of every option's Exponential-mechanism probability; the drawn option
    in red, a dashed line at the uniform probability 1/n for reference."""
    p = selection.probabilities[:max_bars]
    n = selection.probabilities.size
    idx = np.arange(p.size)
    colors = np.where(idx == selection.index, COLORS["landmark"], COLORS["released"])
    diffs = selection.options.differences[:max_bars]
    fig = go.Figure(go.Bar(
        x=idx + 1, y=p, marker={"color": colors.tolist()},
        customdata=np.column_stack([diffs, selection.options.metrics[:max_bars]]),
        hovertemplate="option L%{x}<br>P = %{y:.4f}<br>metric %{customdata[1]:.3g}, "
        "|difference| %{customdata[0]:.3g}<extra></extra>",
    ))
    fig.add_hline(y=1 / n, line={"dash": "dash", "color": COLORS["epsilon"], "width": 1},
                  annotation_text="uniform 1/n", annotation_position="top right")
    fig.update_layout(
        height=300, margin={"l": 60, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "option (number of dummies added)"},
        yaxis={"title": "selection probability", "rangemode": "tozero"},
        title={"text": f"Exponential mechanism, ε_sel = {selection.epsilon:g}, "
               f"Δu = {selection.sensitivity:g} (red: the seeded draw)",
               "font": {"size": 14}},
    )
    return fig
