"""The Choose ε charts (figures.choose) written as plain dictionaries: the same figure
(same JSON) as plotly's validated construction with ``add_trace``, ``add_hline``,
``add_vline`` and ``update_layout(template="plotly_white")``, which is kept here as the
reference, on random curves, targets, solutions and ε (hypothesis)."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import SCHEMES
from lmdk_core.figures.choose import accuracy_figure, posterior_figure
from lmdk_core.figures.style import COLORS, SCHEME_COLORS

STATIC = ["uniform", "skip", "w-event", "user", "event"]


# ---------------------------------------------------------------- the reference builders
def _ref_layout(fig: go.Figure, height: int = 360) -> go.Figure:
    fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": 40, "b": 50},
                      legend={"orientation": "h", "y": -0.25, "x": 0},
                      template="plotly_white", hovermode="x unified")
    return fig


def _ref_accuracy(eps_grid, curves, *, kind, target, current_epsilon, unit="",
                  solutions=None, per="each") -> go.Figure:
    fig = go.Figure()
    scale = 100.0 if kind == "within" else 1.0
    for key, y in curves.items():
        fig.add_trace(go.Scatter(x=eps_grid, y=np.asarray(y) * scale, mode="lines",
                                 name=SCHEMES[key].label,
                                 line={"color": SCHEME_COLORS.get(key), "width": 2}))
    fig.add_traces([go.Scatter(x=[e], y=[target * scale], mode="markers",
                               marker={"color": SCHEME_COLORS.get(key), "size": 10,
                                       "symbol": "diamond"},
                               name=f"{SCHEMES[key].label}: ε = {e:.3g}", showlegend=False)
                    for key, e in (solutions or {}).items() if e is not None])
    fig.add_hline(y=target * scale, line={"dash": "dash", "color": "#444"},
                  annotation_text="target", annotation_position="top left")
    fig.add_vline(x=current_epsilon, line={"dash": "dot", "color": COLORS["epsilon"]},
                  annotation_text=f"current ε = {current_epsilon:g}",
                  annotation_position="bottom right")
    fig.update_xaxes(type="log", title="total budget ε")
    title = ((f"mean error ({unit})" if unit else "mean error") if kind != "within" else
             "all readings within at once (%)" if per == "all" else
             "readings within the bound (%)")
    fig.update_yaxes(title=title, rangemode="tozero")
    return _ref_layout(fig)


def _ref_posterior(eps_grid, independent, correlated, prior, current_epsilon) -> go.Figure:
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
    return _ref_layout(fig)


def as_json(fig: go.Figure) -> dict:
    """What the browser receives (the chart's JSON), parsed: key order aside."""
    return json.loads(pio.to_json(fig, validate=False))


def assert_valid_and_equal(ours: go.Figure, ref: go.Figure) -> None:
    assert as_json(ours) == as_json(ref)
    # every property is one plotly accepts: its validated construction is the same figure
    assert as_json(go.Figure(ours.to_dict())) == as_json(ref)


# ---------------------------------------------------------------- inputs
eps_values = st.floats(1e-4, 1e4, allow_nan=False)
fractions = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def accuracy_inputs(draw):
    n = draw(st.integers(2, 60))
    grid = np.geomspace(draw(st.floats(1e-4, 1.0)), draw(st.floats(2.0, 1e4)), n)
    schemes = draw(st.lists(st.sampled_from(STATIC), min_size=0, max_size=5, unique=True))
    curves = {s: np.asarray(draw(st.lists(fractions, min_size=n, max_size=n)))
              for s in schemes}
    solutions = {s: draw(st.none() | eps_values) for s in schemes}
    return grid, curves, {
        "kind": draw(st.sampled_from(["within", "mean"])),
        "target": draw(st.floats(0.01, 500.0)),
        "current_epsilon": draw(eps_values),
        "unit": draw(st.sampled_from(["", "kWh", "m"])),
        "solutions": draw(st.none() | st.just(solutions)),
        "per": draw(st.sampled_from(["each", "typical", "all"]))}


@settings(max_examples=40, deadline=None)
@given(accuracy_inputs())
def test_accuracy_figure_is_the_validated_figure(inputs):
    grid, curves, kw = inputs
    assert_valid_and_equal(accuracy_figure(grid, curves, **kw),
                           _ref_accuracy(grid, curves, **kw))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.data(), st.booleans(), st.floats(0.01, 0.5), eps_values)
def test_posterior_figure_is_the_validated_figure(n, data, with_corr, prior, eps):
    grid = np.geomspace(0.01, 10, n)
    ind = np.asarray(data.draw(st.lists(fractions, min_size=n, max_size=n)))
    corr = (np.asarray(data.draw(st.lists(fractions, min_size=n, max_size=n)))
            if with_corr else None)
    assert_valid_and_equal(posterior_figure(grid, ind, corr, prior, eps),
                           _ref_posterior(grid, ind, corr, prior, eps))


def test_the_template_is_plotly_white_whatever_the_default():
    fig = posterior_figure(np.geomspace(0.01, 10, 5), np.zeros(5), None, 0.1, 1.0)
    assert as_json(fig)["layout"]["template"] == json.loads(
        pio.to_json(go.Figure(layout={"template": "plotly_white"})))["layout"]["template"]
