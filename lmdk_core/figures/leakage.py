"""Figures of the Leakage page: transition-matrix heatmaps and the leakage curves.

Figure builders only (data in, plotly figures out). The curves follow Cao et al.
(ICDE'17 / TKDE'18): backward (BPL), forward (FPL) and temporal (TPL = BPL + FPL − ε_t)
privacy leakage per timestamp, and the landmark TPL of "landmark privacy under
temporal correlation" (Katsomallos et al., CODASPY 2022) (all landmarks plus one timestamp).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk_core.figures.common import (
    BARS_MAX_POINTS,
    COLORS,
    bar_width,
    decimate_figure,
    hover_labels,
)
from lmdk_core.figures.style import (
    AXIS_TITLES,
    LANDMARK_BAR_PATTERN,
    plotly_date_axis,
    plotly_layout,
    plotly_title,
)
from lmdk_core.leakage.tpl import LeakageResult

__all__ = ["leakage_curves_figure", "matrix_heatmap", "series_state_labels",
           "track_state_labels"]

#: colour of the target leakage α (not used for anything else)
TARGET_COLOR = "#8c564b"

#: above this many states the heatmap drops its tick labels (they would overlap)
MAX_TICK_LABELS = 40


def series_state_labels(edges: np.ndarray, unit: str = "") -> list[str]:
    """'[a, b) unit' for each bin of a discretised series (the last bin is closed)."""
    u = f" {unit}" if unit else ""
    n = edges.size - 1
    return [f"[{edges[k]:.3g}, {edges[k + 1]:.3g}{']' if k == n - 1 else ')'}{u}"
            for k in range(n)]


def track_state_labels(centre_lat: np.ndarray,
                       centre_lon: np.ndarray) -> tuple[list[str], list[str]]:
    """Short axis labels 'cell k' (numbered in order of first visit) and long hover
    labels 'cell k (lat, lon of its centre)'."""
    short = [f"cell {k}" for k in range(len(centre_lat))]
    long = [f"cell {k} ({a:.4f}, {o:.4f})"
            for k, (a, o) in enumerate(zip(centre_lat, centre_lon, strict=True))]
    return short, long


def matrix_heatmap(matrix: np.ndarray, labels: Sequence[str] | None = None, *,
                   hover: Sequence[str] | None = None, title: str = "Transition matrix",
                   row_title: str = "current state", col_title: str = "next state",
                   height: int | None = None) -> go.Figure:
    """Heatmap of a row-stochastic matrix: row = ``row_title`` state, column =
    ``col_title`` state (a backward matrix: current → previous). ``hover`` gives longer
    state names for the tooltip."""
    P = np.asarray(matrix, dtype=float)
    n = P.shape[0]
    names = list(labels) if labels is not None else [str(k) for k in range(n)]
    long = list(hover) if hover is not None else names
    custom = np.empty((n, n, 2), dtype=object)
    custom[:, :, 0] = np.asarray(long, dtype=object)[:, None]
    custom[:, :, 1] = np.asarray(long, dtype=object)[None, :]
    fig = go.Figure(go.Heatmap(
        z=P, x=names, y=names, colorscale="Blues", zmin=0.0, zmax=float(max(P.max(), 1e-12)),
        colorbar={"title": {"text": "probability"}}, customdata=custom,
        hovertemplate=row_title + " %{customdata[0]}<br>" + col_title
        + " %{customdata[1]}<br>probability %{z:.4g}<extra></extra>",
    ))
    show = n <= MAX_TICK_LABELS
    fig.update_layout(**plotly_layout(titles=True))
    fig.update_layout(
        title=plotly_title(title),
        height=height or int(min(620, max(320, 160 + 11 * n))),
        # the title under the toolbar band: on a phone the toolbar covered it
        margin={"l": 10, "r": 10, "t": plotly_layout(titles=True)["margin"]["t"], "b": 10},
        # slanted whenever the labels would not fit side by side (bin ranges like
        # "1.2–2.5 kWh" ran together even with few states)
        xaxis={"title": col_title, "showticklabels": show, "type": "category",
               "tickangle": 0 if n * max((len(s) for s in names), default=1) <= 48 else -45,
               "automargin": True},
        yaxis={"title": row_title, "autorange": "reversed", "showticklabels": show,
               "type": "category"},
    )
    return fig


def leakage_curves_figure(
    time: np.ndarray,
    time_kind: str,
    result: LeakageResult,
    epsilon: float | None = None,
    *,
    supremum: float | None = None,
    target: float | None = None,
    height: int = 440,
) -> go.Figure:
    """BPL, FPL, TPL and landmark TPL per timestamp, with the budget ε_t as bars and
    reference lines for ε, the supremum of TPL (when finite) and a target α."""
    x = np.asarray(time)
    labels = hover_labels(x, time_kind)
    fig = go.Figure()
    is_lm = np.zeros(x.size, dtype=bool)
    if result.landmarks is not None:
        is_lm[result.landmarks] = True
    if x.size > BARS_MAX_POINTS:
        # one bar per timestamp is slow to draw at this length: a filled step line (one
        # SVG path, decimated below) and the landmarks as markers
        fig.add_trace(go.Scatter(
            x=x, y=result.epsilon_t, name="ε_t (regular)", mode="lines", fill="tozeroy",
            opacity=0.35, line={"color": COLORS["regular"], "width": 1, "shape": "hv"},
            customdata=labels, hovertemplate="%{customdata}<br>ε_t = %{y:.4g}<extra></extra>",
        ))
        if is_lm.any():
            fig.add_trace(go.Scatter(
                x=x[is_lm], y=result.epsilon_t[is_lm], name="ε_t (landmark)",
                mode="markers",
                marker={"symbol": "triangle-up", "size": 8, "color": COLORS["landmark"]},
                customdata=np.asarray(labels)[is_lm],
                hovertemplate="%{customdata}<br>ε_t = %{y:.4g}<extra></extra>",
            ))
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if x.size <= BARS_MAX_POINTS and mask.any():
            fig.add_trace(go.Bar(
                x=x[mask], y=result.epsilon_t[mask], name=f"ε_t ({kind})", opacity=0.35,
                width=bar_width(x),  # one width for both traces (not each one's spacing)
                marker={"color": COLORS[kind], "line": {"width": 0},
                        **({"pattern": LANDMARK_BAR_PATTERN} if kind == "landmark" else {})},
                customdata=np.asarray(labels)[mask],
                hovertemplate="%{customdata}<br>ε_t = %{y:.4g}<extra></extra>",
            ))
            if kind == "landmark":  # a shape on top, not only a colour
                fig.add_trace(go.Scatter(
                    x=x[mask], y=result.epsilon_t[mask], name="ε_t (landmark)",
                    mode="markers", showlegend=False, hoverinfo="skip",
                    marker={"symbol": "triangle-up", "size": 8,
                            "color": COLORS["landmark"]},
                ))
    # the same styles as the Timeline and Compare charts: TPL dotted purple, landmark TPL
    # solid red; the two directions thin, dashed (BPL) and dash-dotted (FPL): told apart
    # by their line, not only their colour
    curves = [("BPL (from the past)", result.bpl, COLORS["bpl"], "dash", 1.2),
              ("FPL (from the future)", result.fpl, COLORS["fpl"], "dashdot", 1.2),
              ("TPL", result.tpl, COLORS["tpl"], "dot", 2.5)]
    if result.landmark_tpl is not None:
        curves.append(("landmark TPL", result.landmark_tpl, COLORS["landmark_tpl"], "solid",
                       2.0))
    for name, y, color, dash, width in curves:
        fig.add_trace(go.Scatter(
            x=x, y=y, name=name, mode="lines",
            line={"color": color, "dash": dash, "width": width},
            customdata=labels, hovertemplate="%{customdata}<br>" + name
            + " = %{y:.4g}<extra></extra>",
        ))
    if result.landmarks is not None and result.landmarks.size and result.landmark_tpl is not None:
        lm = result.landmarks
        fig.add_trace(go.Scatter(
            x=x[lm], y=result.landmark_tpl[lm], name="landmark", mode="markers",
            marker={"symbol": "star", "size": 10, "color": COLORS["landmark"]},
            hoverinfo="skip",
        ))
    if epsilon is not None:
        fig.add_hline(y=epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                      annotation_text=f"ε = {epsilon:g}", annotation_position="top left")
    if supremum is not None and math.isfinite(supremum):
        fig.add_hline(y=supremum, line={"color": COLORS["tpl"], "dash": "dashdot", "width": 1},
                      annotation_text=f"long-run limit of TPL = {supremum:.3g}",
                      # right, below its line: the ε label sits top left, and the two
                      # lines are often close (they overlapped on the left)
                      annotation_position="bottom right")
    if target is not None:
        fig.add_hline(y=target, line={"color": TARGET_COLOR, "dash": "longdash", "width": 1.5},
                      annotation_text=f"target α = {target:g}",
                      annotation_position="top right")
    fig.update_layout(**plotly_layout(titles=False, legend_y=-0.12))
    if time_kind == "datetime":
        fig.update_xaxes(**plotly_date_axis())
    fig.update_layout(
        height=height, hovermode="x unified",
        barmode="overlay", bargap=0.1,
        yaxis={"title": AXIS_TITLES["leakage"], "rangemode": "tozero"},
        # the chart's text alternative (the app names the chart by it for screen readers)
        meta={"alt": (
            f"Leakage chart of {x.shape[0]} timestamps: the budget ε_t per timestamp "
            "(bars, landmarks dark and hatched) and the privacy leakage under temporal "
            "correlation: "
            "BPL from the past and FPL from the future (dashed), TPL (dotted, maximum "
            f"{float(np.max(result.tpl)):.3g})"
            + (f", landmark TPL (solid, maximum {float(np.max(result.landmark_tpl)):.3g})"
               if result.landmark_tpl is not None else "")
            + (f"; ε = {epsilon:g} dashed" if epsilon is not None else "")
            + (f"; target α = {target:g}" if target is not None else "") + ".")},
    )
    # a long series: min/max per pixel column for display (landmarks always drawn)
    keep = result.landmarks if result.landmarks is not None else ()
    return decimate_figure(fig, x.shape[0], keep=keep)
