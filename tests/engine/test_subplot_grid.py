"""lmdk_core.figures.subplot_grid.column_layout writes the layout plotly's
make_subplots builds for one column of panels: the same JSON, key for key and float for
float (json.dumps writes each float's shortest repr), on random arguments — so the
Timeline and Learn figures, made from it without plotly, are unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.subplots import make_subplots

from lmdk_core.figures.common import subplot_layout
from lmdk_core.figures.subplot_grid import column_layout


@st.composite
def grids(draw) -> tuple[int, dict]:
    rows = draw(st.integers(1, 6))
    opts: dict = {}
    if draw(st.booleans()):
        opts["shared_xaxes"] = draw(st.booleans())
    if draw(st.booleans()):
        most = 1.0 / (rows - 1) if rows > 1 else 1.0
        opts["vertical_spacing"] = draw(st.sampled_from([0.07, 0.09, 0.12])
                                        | st.floats(0, most))
    if draw(st.booleans()):
        opts["row_heights"] = draw(st.lists(
            st.sampled_from([0.5, 0.25, 0.62, 0.38]) | st.floats(0.01, 5), min_size=rows,
            max_size=rows))
    if draw(st.booleans()):
        opts["subplot_titles"] = draw(st.lists(st.sampled_from(["", "Data", "ε <b>x</b>"]),
                                               max_size=rows + 1))
    return rows, opts


@settings(max_examples=300, deadline=None)
@given(grids())
def test_column_layout_is_make_subplots_json(grid):
    rows, opts = grid
    ref = make_subplots(rows=rows, cols=1, **opts).layout.to_plotly_json()
    ref.pop("template")
    assert json.dumps(column_layout(rows, **opts)) == json.dumps(ref)


@pytest.mark.parametrize("rows, opts", [
    (3, {"shared_xaxes": True, "vertical_spacing": 0.07, "row_heights": [0.5, 0.25, 0.25],
         "subplot_titles": ["a", "b", "c"]}),  # the Timeline with leakage
    (2, {"shared_xaxes": True, "vertical_spacing": 0.07, "row_heights": [0.62, 0.38],
         "subplot_titles": ("a", "b")}),  # the Timeline
    (2, {"shared_xaxes": True, "vertical_spacing": 0.12}),  # Learn
])
def test_subplot_layout_of_one_column_is_make_subplots_json(rows, opts):
    ref = make_subplots(rows=rows, cols=1, **{
        k: list(v) if isinstance(v, tuple) else v for k, v in opts.items()}).layout
    ref_json = ref.to_plotly_json()
    ref_json.pop("template")
    assert json.dumps(subplot_layout(rows, **opts)) == json.dumps(ref_json)


def test_spacing_that_does_not_fit_is_refused_as_by_plotly():
    with pytest.raises(ValueError):
        make_subplots(rows=3, cols=1, vertical_spacing=0.6)
    with pytest.raises(ValueError):
        column_layout(3, vertical_spacing=0.6)
