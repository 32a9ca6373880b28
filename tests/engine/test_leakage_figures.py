"""The Leakage page's curves (figures.leakage.leakage_curves_figure): its reference lines
for ε, the long-run limit of TPL and the target α are written as the shapes and
annotations ``add_hline`` adds — the same chart JSON as plotly's ``add_hline`` calls,
kept here as the reference, for every combination of lines (hypothesis)."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.engine.allocation import allocate
from lmdk_core.figures.leakage import TARGET_COLOR, leakage_curves_figure
from lmdk_core.figures.style import COLORS
from lmdk_core.leakage import temporal_leakage
from lmdk_core.leakage.correlation import smoothed_matrix
from lmdk_core.leakage.loss import LossFunction


def _reference_lines(fig: go.Figure, epsilon, supremum, target) -> None:
    """The lines as the chart drew them before, with plotly's add_hline."""
    if epsilon is not None:
        fig.add_hline(y=epsilon, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                      annotation_text=f"ε = {epsilon:g}", annotation_position="top left")
    if supremum is not None and math.isfinite(supremum):
        fig.add_hline(y=supremum, line={"color": COLORS["tpl"], "dash": "dashdot", "width": 1},
                      annotation_text=f"long-run limit of TPL = {supremum:.3g}",
                      annotation_position="bottom right")
    if target is not None:
        fig.add_hline(y=target, line={"color": TARGET_COLOR, "dash": "longdash", "width": 1.5},
                      annotation_text=f"target α = {target:g}",
                      annotation_position="top right")


def as_json(fig: go.Figure) -> dict:
    """What the browser receives (the chart's JSON), parsed: key order aside."""
    return json.loads(pio.to_json(fig, validate=False))


values = st.none() | st.floats(0.001, 100.0)


@settings(max_examples=30, deadline=None)
@given(values, values | st.just(math.inf), values, st.sampled_from([168, 1500]),
       st.floats(0.05, 0.9))
def test_reference_lines_are_those_add_hline_draws(epsilon, supremum, target, T, s):
    lm = demo_series_landmarks() if T == 168 else [3, 700, 701, 1499]
    time = demo_series().time if T == 168 else np.arange(T)
    L = LossFunction(smoothed_matrix(6, s))
    res = temporal_leakage(allocate("uniform", T, lm, 1.0), L, L, lm)
    kind = "datetime" if T == 168 else "numeric"
    ours = leakage_curves_figure(time, kind, res, epsilon, supremum=supremum, target=target)
    ref = ours.to_dict()
    ref["layout"].pop("shapes", None)
    ref["layout"].pop("annotations", None)
    ref = go.Figure(ref)  # validated
    _reference_lines(ref, epsilon, supremum, target)
    assert as_json(ours) == as_json(ref)


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
