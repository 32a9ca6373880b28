"""Figures of the *Choose ε* page: accuracy against ε, an attacker's posterior against ε,
and the averaging attack on a stay point. They take engine results and return plotly
figures (no streamlit here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.figures.style import COLORS, SCHEME_COLORS

__all__ = ["accuracy_figure", "averaging_figure", "posterior_figure"]

_PALETTE = SCHEME_COLORS


def _layout(fig: go.Figure, height: int = 360) -> go.Figure:
    """The Choose ε charts' height, margins, legend below and unified hover."""
    fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": 40, "b": 50},
                      legend={"orientation": "h", "y": -0.25, "x": 0},
                      template="plotly_white", hovermode="x unified")
    return fig


def accuracy_figure(eps_grid: np.ndarray, curves: Mapping[str, np.ndarray], *, kind: str,
                    target: float, current_epsilon: float, unit: str = "",
                    solutions: Mapping[str, float | None] | None = None,
                    per: str = "each") -> go.Figure:
    """Accuracy reached by each scheme against total ε (log axis), the target as a
    horizontal line, the current ε as a vertical one and each scheme's solution as a
    marker. ``kind`` 'within' plots a probability (%), 'mean' an error in ``unit``;
    ``per`` 'all' titles the probability as that of every reading within at once."""
    fig = go.Figure()
    scale = 100.0 if kind == "within" else 1.0
    for key, y in curves.items():
        fig.add_trace(go.Scatter(x=eps_grid, y=np.asarray(y) * scale, mode="lines",
                                 name=SCHEMES[key].label,
                                 line={"color": _PALETTE.get(key), "width": 2}))
    fig.add_traces(_solution_markers(solutions or {}, target * scale))
    fig.add_hline(y=target * scale, line={"dash": "dash", "color": "#444"},
                  annotation_text="target", annotation_position="top left")
    fig.add_vline(x=current_epsilon, line={"dash": "dot", "color": COLORS["epsilon"]},
                  annotation_text=f"current ε = {current_epsilon:g}",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title="total budget ε")
    fig.update_yaxes(title=_accuracy_title(kind, per, unit), rangemode="tozero")
    return _layout(fig)


def _solution_markers(solutions: Mapping[str, float | None], y: float) -> list[go.Scatter]:
    """A diamond at each scheme's solution ε (schemes without one have none), at the
    target's height ``y``."""
    return [go.Scatter(x=[e], y=[y], mode="markers",
                       marker={"color": _PALETTE.get(key), "size": 10, "symbol": "diamond"},
                       name=f"{SCHEMES[key].label}: ε = {e:.3g}", showlegend=False)
            for key, e in solutions.items() if e is not None]


def _accuracy_title(kind: str, per: str, unit: str) -> str:
    """The y-axis title: the share of readings within the bound (of all at once for
    ``per`` 'all'), or the mean error in ``unit``."""
    if kind != "within":
        return f"mean error ({unit})" if unit else "mean error"
    return "all readings within at once (%)" if per == "all" else "readings within the bound (%)"


def posterior_figure(eps_grid: np.ndarray, independent: np.ndarray,
                     correlated: np.ndarray | None, prior: float,
                     current_epsilon: float) -> go.Figure:
    """The largest posterior of an attacker with prior p, against ε: with independent
    values (loss ε) and, when given, under the correlation model (loss = largest
    landmark TPL)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=eps_grid, y=100 * independent, mode="lines",
                             name="if values are independent (loss ε)",
                             line={"color": COLORS["released"], "width": 2}))
    if correlated is not None:
        fig.add_trace(go.Scatter(x=eps_grid, y=100 * correlated, mode="lines",
                                 name="under the correlation model (loss = landmark TPL)",
                                 line={"color": COLORS["landmark"], "width": 2}))
    fig.add_hline(y=100 * prior, line={"dash": "dash", "color": "#444"},
                  annotation_text=f"prior {prior:.0%}", annotation_position="top left")
    fig.add_vline(x=current_epsilon, line={"dash": "dot", "color": "#555"},
                  annotation_text=f"current ε = {current_epsilon:g}",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title="total budget ε")
    fig.update_yaxes(title="attacker's posterior at most (%)", range=[0, 100])
    return _layout(fig)


def averaging_figure(days: Sequence[int], mean_m: np.ndarray, p90_m: np.ndarray,
                     rice_m: np.ndarray, estimates: np.ndarray, largest_days: int
                     ) -> go.Figure:
    """Left: distance from the attacker's average to the true place against the number
    of daily releases (simulated mean, 90th percentile, normal-limit mean). Right: the
    simulated attackers' estimates after the largest number of days, in metres around
    the true place (0, 0)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, column_widths=[0.58, 0.42],
                        subplot_titles=("error of the averaged estimate",
                                        f"estimates after {largest_days} days"))
    d = np.asarray(days)
    fig.add_trace(go.Scatter(x=d, y=mean_m, mode="lines+markers", name="simulated mean",
                             line={"color": COLORS["released"]}), 1, 1)
    fig.add_trace(go.Scatter(x=d, y=p90_m, mode="lines", name="90th percentile",
                             line={"color": COLORS["released"], "dash": "dot"}), 1, 1)
    fig.add_trace(go.Scatter(x=d, y=rice_m, mode="markers", name="normal limit (Rice mean)",
                             marker={"symbol": "x", "color": COLORS["landmark"]}), 1, 1)
    if estimates.size:
        fig.add_trace(go.Scattergl(x=estimates[:, 0], y=estimates[:, 1], mode="markers",
                                   name="attacker's estimate",
                                   marker={"size": 4, "color": COLORS["released"], "opacity": 0.5}),
                      1, 2)
    fig.add_trace(go.Scatter(x=[0], y=[0], mode="markers", name="true place",
                             marker={"symbol": "star", "size": 14,
                                     "color": COLORS["landmark"]}), 1, 2)
    fig.update_xaxes(type="log", title="days of releases", row=1, col=1)
    fig.update_yaxes(title="metres", rangemode="tozero", row=1, col=1)
    fig.update_xaxes(title="east (m)", row=1, col=2)
    fig.update_yaxes(title="north (m)", scaleanchor="x2", row=1, col=2)
    fig = _layout(fig, 380)
    fig.update_layout(hovermode="closest")
    return fig
