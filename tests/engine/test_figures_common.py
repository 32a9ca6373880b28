"""The subplot grid and ε lines the Map, Timeline and Compare figures write as plain
dictionaries (figures.common): the same layout, axes and shapes plotly's make_subplots,
add_trace(row=…, col=…) and add_hline build."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
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
