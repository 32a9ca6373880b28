"""Figures of the *Choose ε* page: accuracy against ε, an attacker's posterior against ε,
and the averaging attack on a stay point. They take engine results and return plotly
figures (no streamlit here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.figures.common import plain_figure, template_json
from lmdk_core.figures.style import COLORS, SCHEME_COLORS
from lmdk_core.foundation.quoting import plotly_text

__all__ = ["accuracy_figure", "averaging_figure", "posterior_figure"]

_PALETTE = SCHEME_COLORS


def _layout(fig: go.Figure, height: int = 360) -> go.Figure:
    """The Choose ε charts' height, margins, legend below and unified hover."""
    fig.update_layout(_LAYOUT, height=height)
    return fig


#: the Choose ε charts' layout (:func:`_layout`, :func:`_plain_layout`)
_LAYOUT = {"margin": {"l": 60, "r": 20, "t": 40, "b": 50},
           "legend": {"orientation": "h", "y": -0.25, "x": 0},
           "template": "plotly_white", "hovermode": "x unified"}


def _plain_layout(shapes: list[dict], annotations: list[dict], xaxis: dict, yaxis: dict,
                  height: int = 360) -> dict:
    """:func:`_layout`'s layout as a plain dictionary (the template's JSON included), with
    the reference lines' ``shapes`` and ``annotations`` and the two axes."""
    return {**_LAYOUT, "template": template_json("plotly_white"), "height": height,
            "shapes": shapes, "annotations": annotations, "xaxis": xaxis, "yaxis": yaxis}


def _target_line(y: float, text: str) -> tuple[dict, dict]:
    """The dashed grey line at ``y`` labelled ``text`` at its top left: the shape and
    annotation of ``add_hline(y, line={"dash": "dash", "color": "#444"},
    annotation_position="top left")``."""
    return ({"line": {"color": "#444", "dash": "dash"}, "type": "line", "x0": 0, "x1": 1,
             "xref": "x domain", "y0": y, "y1": y, "yref": "y"},
            {"showarrow": False, "text": text, "x": 0, "xanchor": "left",
             "xref": "x domain", "y": y, "yanchor": "bottom", "yref": "y"})


def _epsilon_line(x: float, color: str) -> tuple[dict, dict]:
    """The dotted line at the current ε, labelled at its bottom right: the shape and
    annotation of ``add_vline(x, line={"dash": "dot", "color": color},
    annotation_position="bottom right")``."""
    return ({"line": {"color": color, "dash": "dot"}, "type": "line", "x0": x, "x1": x,
             "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"},
            {"showarrow": False, "text": f"current ε = {x:g}", "x": x, "xanchor": "left",
             "xref": "x", "y": 0, "yanchor": "bottom", "yref": "y domain"})


def _epsilon_axis() -> dict:
    """The log axis of total ε."""
    return {"type": "log", "title": {"text": "total budget ε"}}


def accuracy_figure(eps_grid: np.ndarray, curves: Mapping[str, np.ndarray], *, kind: str,
                    target: float, current_epsilon: float, unit: str = "",
                    solutions: Mapping[str, float | None] | None = None,
                    per: str = "each") -> go.Figure:
    """Accuracy reached by each scheme against total ε (log axis), the target as a
    horizontal line, the current ε as a vertical one and each scheme's solution as a
    marker. ``kind`` 'within' plots a probability (%), 'mean' an error in ``unit``;
    ``per`` 'all' titles the probability as that of every reading within at once.

    Written as plain dictionaries into a figure plotly does not validate again
    (:func:`~lmdk_core.figures.common.plain_figure`): validating the traces, the
    template and the two reference lines took ~40 ms of every ε step of the page."""
    scale = 100.0 if kind == "within" else 1.0
    data = [{"type": "scatter", "x": eps_grid, "y": np.asarray(y) * scale, "mode": "lines",
             "name": SCHEMES[key].label, "line": {"color": _PALETTE.get(key), "width": 2}}
            for key, y in curves.items()]
    data += _solution_markers(solutions or {}, target * scale)
    (s1, a1), (s2, a2) = (_target_line(target * scale, "target"),
                          _epsilon_line(current_epsilon, COLORS["epsilon"]))
    yaxis = {"title": {"text": _accuracy_title(kind, per, plotly_text(unit))},
             "rangemode": "tozero"}
    return plain_figure(data, _plain_layout([s1, s2], [a1, a2], _epsilon_axis(), yaxis))


def _solution_markers(solutions: Mapping[str, float | None], y: float) -> list[dict]:
    """A diamond at each scheme's solution ε (schemes without one have none), at the
    target's height ``y``."""
    return [{"type": "scatter", "x": [e], "y": [y], "mode": "markers",
             "marker": {"color": _PALETTE.get(key), "size": 10, "symbol": "diamond"},
             "name": f"{SCHEMES[key].label}: ε = {e:.3g}", "showlegend": False}
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
    landmark TPL). Plain dictionaries, as :func:`accuracy_figure`."""
    data = [{"type": "scatter", "x": eps_grid, "y": 100 * independent, "mode": "lines",
             "name": "if values are independent (loss ε)",
             "line": {"color": COLORS["released"], "width": 2}}]
    if correlated is not None:
        data.append({"type": "scatter", "x": eps_grid, "y": 100 * correlated,
                     "mode": "lines",
                     "name": "under the correlation model (loss = landmark TPL)",
                     "line": {"color": COLORS["landmark"], "width": 2}})
    (s1, a1), (s2, a2) = (_target_line(100 * prior, f"prior {prior:.0%}"),
                          _epsilon_line(current_epsilon, "#555"))
    yaxis = {"title": {"text": "attacker's posterior at most (%)"}, "range": [0, 100]}
    return plain_figure(data, _plain_layout([s1, s2], [a1, a2], _epsilon_axis(), yaxis))


def averaging_figure(days: Sequence[int], mean_m: np.ndarray, p90_m: np.ndarray,
                     rice_m: np.ndarray, estimates: np.ndarray, *, largest_days: int
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
