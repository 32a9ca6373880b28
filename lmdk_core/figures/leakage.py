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
    plain_figure,
)
from lmdk_core.figures.style import (
    AXIS_TITLES,
    LANDMARK_BAR_PATTERN,
    plotly_date_axis,
    plotly_layout,
    plotly_title,
)
from lmdk_core.foundation.quoting import plotly_text, plotly_texts
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
    # state labels carry user text (a unit, an uploaded matrix's state names)
    names = plotly_texts(labels) if labels is not None else [str(k) for k in range(n)]
    long = plotly_texts(hover) if hover is not None else names
    title, row_title, col_title = (plotly_text(t) for t in (title, row_title, col_title))
    heatmap = {"type": "heatmap", "z": P, "x": names, "y": names, "colorscale": _BLUES,
               "zmin": 0.0, "zmax": float(max(P.max(), 1e-12)),
               "colorbar": {"title": {"text": "probability"}},
               "customdata": _cell_states(long),
               "hovertemplate": row_title + " %{customdata[0]}<br>" + col_title
               + " %{customdata[1]}<br>probability %{z:.4g}<extra></extra>"}
    show = n <= MAX_TICK_LABELS
    layout = plotly_layout(titles=True)
    layout.update(
        title=plotly_title(title),
        height=height or int(min(620, max(320, 160 + 11 * n))),
        # the title under the toolbar band: on a phone the toolbar covered it
        margin={"l": 10, "r": 10, "t": layout["margin"]["t"], "b": 10},
        # slanted whenever the labels would not fit side by side (bin ranges like
        # "1.2–2.5 kWh" ran together even with few states)
        xaxis={"title": {"text": col_title}, "showticklabels": show, "type": "category",
               "tickangle": _tick_angle(names), "automargin": True},
        yaxis={"title": {"text": row_title}, "autorange": "reversed",
               "showticklabels": show, "type": "category"},
    )
    # plain dictionaries (figures.common.plain_figure): the heatmap is rebuilt on every
    # change of the model (bins, smoothing, strength) and plotly's validation of it took
    # ~10 ms
    return plain_figure([heatmap], layout)


def _blues() -> list[list]:
    """Plotly's "Blues" colour scale as the validated heatmap writes it."""
    from plotly.colors import sequential

    return [[i / (len(sequential.Blues) - 1), c] for i, c in enumerate(sequential.Blues)]


#: the heatmap's colour scale, as ``colorscale="Blues"`` becomes in the chart's JSON
_BLUES = _blues()


_EPS_T_HOVER = "%{customdata}<br>ε_t = %{y:.4g}<extra></extra>"


def _landmark_mask(n: int, result: LeakageResult) -> np.ndarray:
    """True at the landmark timestamps of ``result`` (none when it has no landmarks)."""
    is_lm = np.zeros(n, dtype=bool)
    if result.landmarks is not None:
        is_lm[result.landmarks] = True
    return is_lm


def _budget_step_traces(x: np.ndarray, labels: Sequence[str], eps_t: np.ndarray,
                        is_lm: np.ndarray) -> list[dict]:
    """ε_t of a long series: a filled step line (one SVG path, decimated for display;
    one bar per timestamp is slow to draw at this length) and the landmarks as markers."""
    traces = [{"type": "scatter", "x": x, "y": eps_t, "name": "ε_t (regular)",
               "mode": "lines", "fill": "tozeroy", "opacity": 0.35,
               "line": {"color": COLORS["regular"], "width": 1, "shape": "hv"},
               "customdata": labels, "hovertemplate": _EPS_T_HOVER}]
    if is_lm.any():
        traces.append({"type": "scatter", "x": x[is_lm], "y": eps_t[is_lm],
                       "name": "ε_t (landmark)", "mode": "markers",
                       "marker": {"symbol": "triangle-up", "size": 8,
                                  "color": COLORS["landmark"]},
                       "customdata": np.asarray(labels)[is_lm],
                       "hovertemplate": _EPS_T_HOVER})
    return traces


def _budget_bar_traces(x: np.ndarray, labels: Sequence[str], eps_t: np.ndarray,
                       is_lm: np.ndarray) -> list[dict]:
    """ε_t as one bar per timestamp: regular bars, then the landmark bars (hatched)
    with a triangle on top (a shape, not only a colour)."""
    traces: list[dict] = []
    width = bar_width(x)  # one width for both traces (not each one's spacing)
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if not mask.any():
            continue
        traces.append({"type": "bar", "x": x[mask], "y": eps_t[mask],
                       "name": f"ε_t ({kind})", "opacity": 0.35,
                       **({"width": width} if width is not None else {}),
                       "marker": {"color": COLORS[kind], "line": {"width": 0},
                                  **({"pattern": LANDMARK_BAR_PATTERN}
                                     if kind == "landmark" else {})},
                       "customdata": np.asarray(labels)[mask],
                       "hovertemplate": _EPS_T_HOVER})
    if is_lm.any():
        traces.append({"type": "scatter", "x": x[is_lm], "y": eps_t[is_lm],
                       "name": "ε_t (landmark)", "mode": "markers", "showlegend": False,
                       "hoverinfo": "skip",
                       "marker": {"symbol": "triangle-up", "size": 8,
                                  "color": COLORS["landmark"]}})
    return traces


def _curve_styles(result: LeakageResult) -> list[tuple[str, np.ndarray, str, str, float]]:
    """(name, values, colour, dash, width) of each leakage curve of ``result``.

    The same styles as the Timeline and Compare charts: TPL dotted purple, landmark TPL
    solid red; the two directions thin, dashed (BPL) and dash-dotted (FPL): told apart
    by their line, not only their colour."""
    curves = [("BPL (from the past)", result.bpl, COLORS["bpl"], "dash", 1.2),
              ("FPL (from the future)", result.fpl, COLORS["fpl"], "dashdot", 1.2),
              ("TPL", result.tpl, COLORS["tpl"], "dot", 2.5)]
    if result.landmark_tpl is not None:
        curves.append(("landmark TPL", result.landmark_tpl, COLORS["landmark_tpl"], "solid",
                       2.0))
    return curves


def _leakage_curve_traces(x: np.ndarray, labels: Sequence[str],
                          result: LeakageResult) -> list[dict]:
    """BPL, FPL, TPL and landmark TPL as lines (:func:`_curve_styles`), with a star at
    each landmark's TPL."""
    traces = [{"type": "scatter", "x": x, "y": y, "name": name, "mode": "lines",
               "line": {"color": color, "dash": dash, "width": width},
               "customdata": labels,
               "hovertemplate": "%{customdata}<br>" + name + " = %{y:.4g}<extra></extra>"}
              for name, y, color, dash, width in _curve_styles(result)]
    lm = result.landmarks
    if lm is not None and lm.size and result.landmark_tpl is not None:
        traces.append({"type": "scatter", "x": x[lm], "y": result.landmark_tpl[lm],
                       "name": "landmark", "mode": "markers",
                       "marker": {"symbol": "star", "size": 10, "color": COLORS["landmark"]},
                       "hoverinfo": "skip"})
    return traces


def _reference_lines(epsilon: float | None, supremum: float | None, target: float | None
                     ) -> tuple[list[dict], list[dict]]:
    """Horizontal lines for ε, the long-run limit of TPL (when finite) and the target α:
    the shapes and annotations ``add_hline`` adds, as plain dictionaries (each
    ``add_hline`` checked every trace of the figure again: half the chart's build time)."""
    lines = []
    if epsilon is not None:
        lines.append((epsilon, {"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                      f"ε = {epsilon:g}", "top left"))
    if supremum is not None and math.isfinite(supremum):
        # right, below its line: the ε label sits top left, and the two lines are often
        # close (they overlapped on the left)
        lines.append((supremum, {"color": COLORS["tpl"], "dash": "dashdot", "width": 1},
                      f"long-run limit of TPL = {supremum:.3g}", "bottom right"))
    if target is not None:
        lines.append((target, {"color": TARGET_COLOR, "dash": "longdash", "width": 1.5},
                      f"target α = {target:g}", "top right"))
    shapes = [{"line": line, "type": "line", "x0": 0, "x1": 1, "xref": "x domain",
               "y0": y, "y1": y, "yref": "y"} for y, line, _, _ in lines]
    annotations = [{"showarrow": False, "text": text, "x": 0 if where.endswith("left") else 1,
                    "xanchor": where.split()[1], "xref": "x domain", "y": y,
                    "yanchor": "bottom" if where.startswith("top") else "top", "yref": "y"}
                   for y, _, text, where in lines]
    return shapes, annotations


def _leakage_alt(n: int, result: LeakageResult, epsilon: float | None,
                 target: float | None) -> str:
    """The chart's text alternative (the app names the chart by it for screen readers)."""
    parts = [f"Leakage chart of {n} timestamps: the budget ε_t per timestamp "
             "(bars, landmarks dark and hatched) and the privacy leakage under temporal "
             "correlation: BPL from the past and FPL from the future (dashed), TPL (dotted, "
             f"maximum {float(np.max(result.tpl)):.3g})"]
    if result.landmark_tpl is not None:
        parts.append(f", landmark TPL (solid, maximum {float(np.max(result.landmark_tpl)):.3g})")
    if epsilon is not None:
        parts.append(f"; ε = {epsilon:g} dashed")
    if target is not None:
        parts.append(f"; target α = {target:g}")
    return "".join(parts) + "."


def _cell_states(names: Sequence[str]) -> np.ndarray:
    """Per cell (i, j) of an n × n matrix, the names of its row and column state (for
    the hover)."""
    n = len(names)
    custom = np.empty((n, n, 2), dtype=object)
    custom[:, :, 0] = np.asarray(names, dtype=object)[:, None]
    custom[:, :, 1] = np.asarray(names, dtype=object)[None, :]
    return custom


def _tick_angle(names: Sequence[str]) -> int:
    """Horizontal column labels when they fit side by side (48 characters in all at the
    longest label's width), else slanted by 45°."""
    return 0 if len(names) * max((len(s) for s in names), default=1) <= 48 else -45


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
    is_lm = _landmark_mask(x.size, result)
    budget = _budget_step_traces if x.size > BARS_MAX_POINTS else _budget_bar_traces
    data = budget(x, labels, result.epsilon_t, is_lm) + _leakage_curve_traces(x, labels,
                                                                              result)
    shapes, annotations = _reference_lines(epsilon, supremum, target)
    layout = plotly_layout(titles=False, legend_y=-0.12)
    if time_kind == "datetime":
        layout["xaxis"] = plotly_date_axis()
    layout.update(
        height=height, hovermode="x unified", barmode="overlay", bargap=0.1,
        **({"shapes": shapes, "annotations": annotations} if shapes else {}),
        yaxis={"title": {"text": AXIS_TITLES["leakage"]}, "rangemode": "tozero"},
        meta={"alt": _leakage_alt(x.shape[0], result, epsilon, target)},
    )
    # plain dictionaries (figures.common.plain_figure): the chart is rebuilt on every
    # change of the model, the allocation or the target, and plotly's validation of its
    # traces took most of its ~25 ms
    fig = plain_figure(data, layout)
    # a long series: min/max per pixel column for display (landmarks always drawn)
    keep = result.landmarks if result.landmarks is not None else ()
    return decimate_figure(fig, x.shape[0], keep=keep)
