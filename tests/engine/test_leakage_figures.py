"""The Leakage page's charts written as plain dictionaries (figures.leakage): the curves
(ε_t bars or steps, BPL/FPL/TPL/landmark TPL, the lines for ε, the long-run limit of TPL
and the target α) and the transition matrix's heatmap — the same chart JSON as plotly's
validated construction (go.Bar, go.Scatter, add_hline, go.Heatmap, update_layout), kept
here as the reference, on random models, lengths, landmarks and lines (hypothesis)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.engine.allocation import allocate
from lmdk_core.figures.common import BARS_MAX_POINTS, bar_width, decimate_figure, hover_labels
from lmdk_core.figures.leakage import (
    _EPS_T_HOVER,
    TARGET_COLOR,
    _curve_styles,
    _landmark_mask,
    _leakage_alt,
    leakage_curves_figure,
)
from lmdk_core.figures.style import (
    AXIS_TITLES,
    COLORS,
    LANDMARK_BAR_PATTERN,
    plotly_date_axis,
    plotly_layout,
)
from lmdk_core.leakage import temporal_leakage
from lmdk_core.leakage.correlation import smoothed_matrix
from lmdk_core.leakage.loss import LossFunction
from lmdk_core.leakage.tpl import LeakageResult


# ---------------------------------------------------------------- the reference: the chart
# as plotly's validated API built it (the page's figure before)
def _ref_budget_step_traces(x: np.ndarray, labels: Sequence[str], eps_t: np.ndarray,
                        is_lm: np.ndarray) -> list[go.Scatter]:
    """ε_t of a long series: a filled step line (one SVG path, decimated for display;
    one bar per timestamp is slow to draw at this length) and the landmarks as markers."""
    traces = [go.Scatter(
        x=x, y=eps_t, name="ε_t (regular)", mode="lines", fill="tozeroy",
        opacity=0.35, line={"color": COLORS["regular"], "width": 1, "shape": "hv"},
        customdata=labels, hovertemplate=_EPS_T_HOVER,
    )]
    if is_lm.any():
        traces.append(go.Scatter(
            x=x[is_lm], y=eps_t[is_lm], name="ε_t (landmark)", mode="markers",
            marker={"symbol": "triangle-up", "size": 8, "color": COLORS["landmark"]},
            customdata=np.asarray(labels)[is_lm], hovertemplate=_EPS_T_HOVER,
        ))
    return traces


def _ref_budget_bar_traces(x: np.ndarray, labels: Sequence[str], eps_t: np.ndarray,
                       is_lm: np.ndarray) -> list[go.Bar | go.Scatter]:
    """ε_t as one bar per timestamp: regular bars, then the landmark bars (hatched)
    with a triangle on top (a shape, not only a colour)."""
    traces: list[go.Bar | go.Scatter] = []
    for mask, kind in ((~is_lm, "regular"), (is_lm, "landmark")):
        if not mask.any():
            continue
        traces.append(go.Bar(
            x=x[mask], y=eps_t[mask], name=f"ε_t ({kind})", opacity=0.35,
            width=bar_width(x),  # one width for both traces (not each one's spacing)
            marker={"color": COLORS[kind], "line": {"width": 0},
                    **({"pattern": LANDMARK_BAR_PATTERN} if kind == "landmark" else {})},
            customdata=np.asarray(labels)[mask], hovertemplate=_EPS_T_HOVER,
        ))
    if is_lm.any():
        traces.append(go.Scatter(
            x=x[is_lm], y=eps_t[is_lm], name="ε_t (landmark)",
            mode="markers", showlegend=False, hoverinfo="skip",
            marker={"symbol": "triangle-up", "size": 8, "color": COLORS["landmark"]},
        ))
    return traces


def _ref_leakage_curve_traces(x: np.ndarray, labels: Sequence[str],
                          result: LeakageResult) -> list[go.Scatter]:
    traces = [go.Scatter(
        x=x, y=y, name=name, mode="lines",
        line={"color": color, "dash": dash, "width": width},
        customdata=labels, hovertemplate="%{customdata}<br>" + name
        + " = %{y:.4g}<extra></extra>",
    ) for name, y, color, dash, width in _curve_styles(result)]
    lm = result.landmarks
    if lm is not None and lm.size and result.landmark_tpl is not None:
        traces.append(go.Scatter(
            x=x[lm], y=result.landmark_tpl[lm], name="landmark", mode="markers",
            marker={"symbol": "star", "size": 10, "color": COLORS["landmark"]},
            hoverinfo="skip",
        ))
    return traces


def _ref_add_reference_lines(fig: go.Figure, epsilon: float | None, supremum: float | None,
                         target: float | None) -> None:
    """Horizontal lines for ε, the long-run limit of TPL (when finite) and the target α."""
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


def _reference_curves(time, time_kind, result, epsilon=None, *, supremum=None, target=None,
                      height=440) -> go.Figure:
    x = np.asarray(time)
    step = x.size > BARS_MAX_POINTS
    budget = _ref_budget_step_traces if step else _ref_budget_bar_traces
    labels = hover_labels(x, time_kind)
    is_lm = _landmark_mask(x.size, result)
    fig = go.Figure()
    fig.add_traces(budget(x, labels, result.epsilon_t, is_lm))
    fig.add_traces(_ref_leakage_curve_traces(x, labels, result))
    _ref_add_reference_lines(fig, epsilon, supremum, target)
    fig.update_layout(**plotly_layout(titles=False, legend_y=-0.12))
    if time_kind == "datetime":
        fig.update_xaxes(**plotly_date_axis())
    fig.update_layout(
        height=height, hovermode="x unified",
        barmode="overlay", bargap=0.1,
        yaxis={"title": AXIS_TITLES["leakage"], "rangemode": "tozero"},
        meta={"alt": _leakage_alt(x.shape[0], result, epsilon, target)},
    )
    return decimate_figure(fig, x.shape[0],
                           keep=() if result.landmarks is None else result.landmarks)


def as_json(fig: go.Figure) -> dict:
    """What the browser receives (the chart's JSON), parsed: key order aside."""
    return json.loads(pio.to_json(fig, validate=False))


values = st.none() | st.floats(0.001, 100.0)


@settings(max_examples=30, deadline=None)
@given(values, values | st.just(math.inf), values, st.sampled_from([168, 1500]),
       st.floats(0.05, 0.9), st.booleans())
def test_leakage_curves_are_the_validated_figure(epsilon, supremum, target, T, s,
                                                with_landmarks):
    lm = (demo_series_landmarks() if T == 168 else [3, 700, 701, 1499]) \
        if with_landmarks else []
    time = demo_series().time if T == 168 else np.arange(T)
    L = LossFunction(smoothed_matrix(6, s))
    res = temporal_leakage(allocate("uniform", T, lm, 1.0), L, L, lm or None)
    kind = "datetime" if T == 168 else "number"
    kw = {"supremum": supremum, "target": target}
    ours = leakage_curves_figure(time, kind, res, epsilon, **kw)
    assert as_json(ours) == as_json(_reference_curves(time, kind, res, epsilon, **kw))
    # every property is one plotly accepts: its validated construction is the same figure
    assert as_json(go.Figure(ours.to_dict())) == as_json(ours)


def _reference_heatmap(matrix, labels=None, *, hover=None, title="Transition matrix",
                       row_title="current state", col_title="next state", height=None):
    """The heatmap as plotly's validated API built it (the page's figure before)."""
    from lmdk_core.figures.leakage import MAX_TICK_LABELS, _cell_states, _tick_angle
    from lmdk_core.figures.style import plotly_layout, plotly_title

    P = np.asarray(matrix, dtype=float)
    n = P.shape[0]
    names = list(labels) if labels is not None else [str(k) for k in range(n)]
    long = list(hover) if hover is not None else names
    fig = go.Figure(go.Heatmap(
        z=P, x=names, y=names, colorscale="Blues", zmin=0.0, zmax=float(max(P.max(), 1e-12)),
        colorbar={"title": {"text": "probability"}}, customdata=_cell_states(long),
        hovertemplate=row_title + " %{customdata[0]}<br>" + col_title
        + " %{customdata[1]}<br>probability %{z:.4g}<extra></extra>",
    ))
    show = n <= MAX_TICK_LABELS
    fig.update_layout(**plotly_layout(titles=True))
    fig.update_layout(
        title=plotly_title(title),
        height=height or int(min(620, max(320, 160 + 11 * n))),
        margin={"l": 10, "r": 10, "t": plotly_layout(titles=True)["margin"]["t"], "b": 10},
        xaxis={"title": col_title, "showticklabels": show, "type": "category",
               "tickangle": _tick_angle(names), "automargin": True},
        yaxis={"title": row_title, "autorange": "reversed", "showticklabels": show,
               "type": "category"},
    )
    return fig


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 60), st.floats(0.0, 2.0), st.booleans(), st.booleans(),
       st.none() | st.integers(200, 700), st.sampled_from(["next state", "previous state"]))
def test_matrix_heatmap_is_the_validated_figure(n, s, named, with_hover, height, col_title):
    from lmdk_core.figures.leakage import matrix_heatmap

    P = smoothed_matrix(n, s)
    labels = [f"{k / 3:.2f}–{(k + 1) / 3:.2f} kWh" for k in range(n)] if named else None
    hover = [f"cell {k} (48.{k:04d}, 2.{k:04d})" for k in range(n)] if with_hover else None
    kw = {"hover": hover, "title": f"Forward P_F, {n} states", "col_title": col_title,
          "height": height}
    assert as_json(matrix_heatmap(P, labels, **kw)) == as_json(
        _reference_heatmap(P, labels, **kw))
