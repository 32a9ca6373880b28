"""The subplot grid and ε lines the Map, Timeline and Compare figures write as plain
dictionaries (figures.common): the same layout, axes and shapes plotly's make_subplots,
add_trace(row=…, col=…) and add_hline build; with_template (the Learn charts): the same
figure as plotly's validated ``update_layout(template=…)``."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.subplots import make_subplots

from lmdk_core.figures.common import COLORS, hline, subplot_axes, subplot_layout


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 1), (3, 1), (4, 1), (2, 3), (3, 4)])
def test_subplot_layout_is_what_make_subplots_builds(rows, cols):
    opts = {"shared_xaxes": True, "vertical_spacing": 0.09,
            "subplot_titles": [f"panel {k}" for k in range(rows * cols)]}
    ref = make_subplots(rows=rows, cols=cols, **opts).layout.to_plotly_json()
    ref.pop("template")
    ours = subplot_layout(rows, cols, **opts)
    assert set(ours) == set(ref)
    for key, axis in ref.items():
        if key == "annotations":
            for a, b in zip(ours[key], axis, strict=True):
                assert a == b
            continue
        assert {k: v for k, v in ours[key].items() if k != "domain"} == {
            k: v for k, v in axis.items() if k != "domain"}
        assert np.allclose(ours[key]["domain"], axis["domain"])


def test_subplot_layout_returns_a_fresh_copy_each_time():
    a = subplot_layout(2, subplot_titles=("a", "b"))
    a["yaxis"]["title"] = {"text": "changed"}
    a["annotations"].append({"text": "extra"})
    b = subplot_layout(2, subplot_titles=["a", "b"])  # lists and tuples alike
    assert "title" not in b["yaxis"] and len(b["annotations"]) == 2


@pytest.mark.parametrize("rows, cols", [(3, 1), (2, 3)])
def test_axes_and_hline_are_what_add_trace_and_add_hline_set(rows, cols):
    ref = make_subplots(rows=rows, cols=cols)
    layout = subplot_layout(rows, cols)
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            ref.add_trace(go.Scatter(x=[0, 1], y=[0, 1]), row=r, col=c)
            t = ref.data[-1]
            assert subplot_axes(r, c, cols) == {"xaxis": t.xaxis, "yaxis": t.yaxis}
            ref.add_hline(y=0.5, line={"color": COLORS["epsilon"], "dash": "dash",
                                       "width": 1.2},
                          annotation_text="ε = 0.5", annotation_position="top left",
                          row=r, col=c)
            hline(layout, 0.5, r, c, cols, text="ε = 0.5", width=1.2)
    built = go.Figure(layout=layout)
    assert [s.to_plotly_json() for s in built.layout.shapes] == [
        s.to_plotly_json() for s in ref.layout.shapes]
    assert [a.to_plotly_json() for a in built.layout.annotations] == [
        a.to_plotly_json() for a in ref.layout.annotations]


# ---------------------------------------------------------------- plain figures, templates
def _json(fig: go.Figure) -> dict:
    """The chart's JSON as the browser receives it, parsed (key order aside)."""
    import json

    import plotly.io as pio

    return json.loads(pio.to_json(fig, validate=False))


def _reference_template(fig: go.Figure, name: str) -> go.Figure:
    """What with_template replaces: plotly's validated assignment of the template."""
    return fig.update_layout(template=name)


def test_with_template_is_update_layout_template_and_leaves_the_figure():
    from lmdk_core.figures.common import with_template

    fig = make_subplots(rows=2, cols=1, subplot_titles=["a", "b"])
    fig.add_trace(go.Scatter(x=np.arange(5), y=np.arange(5.0) ** 2, name="sq"), row=1, col=1)
    fig.add_trace(go.Bar(x=[1, 2], y=[3, 4]), row=2, col=1)
    fig.add_hline(y=2.0, row=2, col=1)
    before = _json(fig)
    ours = with_template(fig, "plotly_white")
    assert _json(fig) == before  # the figure given is not changed
    assert _json(ours) == _json(_reference_template(go.Figure(fig), "plotly_white"))
    # and it is one plotly accepts: its validated construction is the same figure
    assert _json(go.Figure(ours.to_dict())) == _json(ours)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.05, 5.0), st.floats(0.0, 20.0), st.floats(0.01, 0.99),
       st.lists(st.floats(0.01, 5.0), min_size=1, max_size=8))
def test_learn_figures_are_those_of_the_validated_template(epsilon, cut, prior, eps):
    """Lesson charts built with with_template against the same charts with plotly's own
    template assignment (the Learn page's charts before): the same JSON."""
    from lmdk_core.figures import learn as lf
    from lmdk_core.teaching.definition import neighbouring_densities

    nd = neighbouring_densities(epsilon, 1.0, 10.0)
    eps_arr = np.asarray(eps)
    weights = np.linspace(0.2, 1.0, eps_arr.size)
    build = [lambda: lf.neighbours_figure(nd, (cut, float(nd.x[-1]))),
             lambda: lf.posterior_figure(prior, epsilon),
             lambda: lf.discount_figure(eps_arr, weights)]
    ours = [_json(b()) for b in build]
    original = lf.with_template
    lf.with_template = _reference_template
    try:
        ref = [_json(b()) for b in build]
    finally:
        lf.with_template = original
    assert ours == ref
