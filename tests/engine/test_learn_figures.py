"""Lesson 1's chart (figures.learn.neighbours_figure) written as plain dictionaries: the
same figure (same JSON) as plotly's validated construction with make_subplots,
add_trace, add_hline, add_annotation and update_layout(template="plotly_white"), kept
here as the reference, at random ε, Δf, counts and intervals (hypothesis)."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.subplots import make_subplots

from lmdk_core.figures.common import COLORS
from lmdk_core.figures.learn import BAND, D2_COLOR, D_COLOR, neighbours_figure
from lmdk_core.figures.style import rgba
from lmdk_core.teaching.definition import neighbouring_densities


def _reference(nd, interval=None) -> go.Figure:
    """The chart as plotly's validated API builds it (the page's figure before)."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        row_heights=[0.62, 0.38], subplot_titles=[
                            "What the analyst may see: density of the released count",
                            "Privacy loss ln(p_D(x) / p_D′(x)) — always between −ε and ε"])
    fig.add_trace(go.Scatter(x=nd.x, y=nd.density_d, name=f"D: true count {nd.count_d:g}",
                             line={"color": D_COLOR, "width": 2.5},
                             hovertemplate="output %{x:.2f}<br>density %{y:.4f}<extra>D</extra>"),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=nd.x, y=nd.density_d2,
                             name=f"D′: one more person, count {nd.count_d2:g}",
                             line={"color": D2_COLOR, "width": 2.5, "dash": "dash"},
                             hovertemplate="output %{x:.2f}<br>density %{y:.4f}<extra>D′</extra>"),
                  row=1, col=1)
    if interval is not None:
        lo, hi = interval
        m = (nd.x >= lo) & (nd.x <= hi)
        if m.any():
            fig.add_trace(go.Scatter(x=nd.x[m], y=nd.density_d[m], fill="tozeroy",
                                     mode="none", fillcolor=rgba(D_COLOR, 0.25),
                                     name="outputs in O (from D)", hoverinfo="skip"),
                          row=1, col=1)
            fig.add_trace(go.Scatter(x=nd.x[m], y=nd.density_d2[m], fill="tozeroy",
                                     mode="none", fillcolor=rgba(D2_COLOR, 0.25),
                                     name="outputs in O (from D′)", hoverinfo="skip"),
                          row=1, col=1)
    eps = nd.epsilon
    fig.add_trace(go.Scatter(x=[nd.x[0], nd.x[-1], nd.x[-1], nd.x[0]], y=[-eps, -eps, eps, eps],
                             fill="toself", fillcolor=BAND, mode="none", name="allowed: |loss| ≤ ε",
                             hoverinfo="skip"), row=2, col=1)
    fig.add_trace(go.Scatter(x=nd.x, y=nd.log_ratio, name="privacy loss",
                             line={"color": COLORS["total"], "width": 2.5},
                             hovertemplate="output %{x:.2f}<br>loss %{y:.3f}<extra></extra>"),
                  row=2, col=1)
    for y in (eps, -eps):
        fig.add_hline(y=y, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                      row=2, col=1)
    fig.add_annotation(x=nd.x[-1], y=eps, text=f"+ε = {eps:g}", showarrow=False,
                       xanchor="right", yanchor="bottom", row=2, col=1)
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_yaxes(title_text="loss", range=[-1.6 * eps, 1.6 * eps], row=2, col=1)
    fig.update_xaxes(title_text="released count x", row=2, col=1)
    fig.update_layout(height=580, margin={"l": 60, "r": 20, "t": 110, "b": 50},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.1, "x": 0},
                      template="plotly_white")
    return fig


def as_json(fig: go.Figure) -> dict:
    """What the browser receives (the chart's JSON), parsed: key order aside."""
    return json.loads(pio.to_json(fig, validate=False))


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 5.0), st.floats(0.1, 5.0), st.floats(0.0, 50.0),
       st.none() | st.tuples(st.floats(-20.0, 40.0), st.floats(-20.0, 60.0)))
def test_neighbours_figure_is_the_validated_figure(epsilon, sensitivity, count, interval):
    nd = neighbouring_densities(epsilon, sensitivity, count, points=201)
    ours = neighbours_figure(nd, interval)
    ref = _reference(nd, interval)
    assert as_json(ours) == as_json(ref)
    # every property is one plotly accepts: its validated construction is the same figure
    assert as_json(go.Figure(ours.to_dict())) == as_json(ref)
