"""The Timeline figure (lmdk_core.figures.timeline): built directly, it is the same
figure make_subplots + add_trace(row=…) + add_hline would give; a long series draws at
most MARKERS_MAX_DISPLAYED of its original-value markers in view."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from lmdk_core.engine.release import release_series
from lmdk_core.figures.common import COLORS
from lmdk_core.figures.style import left_titles, plotly_date_axis, plotly_layout
from lmdk_core.figures.timeline import (
    MARKERS_MAX_DISPLAYED,
    PANEL_SPACING,
    WEBGL_THRESHOLD,
    timeline_figure,
)


def _release(T: int, landmarks: list[int], scheme: str = "skip"):
    values = np.random.default_rng(T).normal(2.0, 1.0, T)
    return release_series(values, landmarks, epsilon=1.0, scheme=scheme, mechanism="laplace",
                          sensitivity=0.2, seed=3, window=5)


def _reference(fig: go.Figure, unit: str, leakage: bool, height: int | None,
               uirevision: str | None, dates: bool = False) -> go.Figure:
    """``fig``'s traces placed with make_subplots, add_trace(row=…) and add_hline (the plain
    plotly construction the fast builder must match)."""
    rows = 3 if leakage else 2
    titles = [a.text for a in fig.layout.annotations[:rows]]
    ref = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=PANEL_SPACING,
                        row_heights=[0.5, 0.25, 0.25] if leakage else [0.62, 0.38],
                        subplot_titles=titles)
    eps = fig.layout.shapes[0].y0
    for tr in fig.data:
        row = int(tr.yaxis[1:] or 1)
        ref.add_trace(tr.update(xaxis=None, yaxis=None), row=row, col=1)
    for row in range(2, rows + 1):
        ref.add_hline(y=eps, line={"color": COLORS["epsilon"], "dash": "dash", "width": 1},
                      annotation_text=f"ε = {eps:g}", annotation_position="top left",
                      row=row, col=1)
    ref.update_yaxes(title_text=unit or "value", row=1, col=1)
    ref.update_yaxes(title_text="ε_t", rangemode="tozero", row=2, col=1)
    if leakage:
        ref.update_yaxes(title_text="leakage (ε units)", rangemode="tozero", row=3, col=1)
    if dates:  # the style guide's date ticks (docs/chart-style.md)
        ref.update_xaxes(**plotly_date_axis())
    # panel titles left-aligned, the toolbar band, the legend below: the style module's
    lay = ref.layout.to_plotly_json()
    left_titles(lay)
    ref.layout.annotations = lay["annotations"]
    ref.update_layout(plotly_layout(titles=True, legend_y=-0.1))
    ref.update_layout(
        height=height or (720 if leakage else 560),
        hovermode="closest", bargap=0.15, barmode="overlay", clickmode="event+select",
        uirevision=uirevision, meta=fig.layout.meta)
    return ref


@pytest.mark.parametrize("T", [12, 168, 2000, 6000])
@pytest.mark.parametrize("leakage", [False, True])
@pytest.mark.parametrize("kind", ["number", "datetime"])
def test_same_figure_as_make_subplots(T, leakage, kind):
    time = (np.arange(T) if kind == "number" else
            np.datetime64("2024-03-04T00:00") + np.arange(T) * np.timedelta64(1, "h"))
    rel = _release(T, [1, 2, T // 2])
    leak = ({"TPL": np.linspace(0, 1, T), "landmark TPL": np.linspace(0, 2, T)}
            if leakage else None)
    fig = timeline_figure(time, kind, rel, unit="kWh", leakage=leak, suggestions=[0, 5],
                          height=None, uirevision="u")
    ref = _reference(go.Figure(fig), "kWh", leakage, None, "u", dates=kind == "datetime")
    assert json.loads(fig.to_json()) == json.loads(ref.to_json())


def _original(fig: go.Figure):
    return next(tr for tr in fig.data if tr.name == "original")


def test_a_short_series_draws_every_marker():
    fig = timeline_figure(np.arange(168), "number", _release(168, [5]))
    assert _original(fig).marker.maxdisplayed is None
    assert _original(fig).marker.size == 6


def test_a_long_series_draws_at_most_the_display_limit_of_markers():
    T = 2000
    fig = timeline_figure(np.arange(T), "number", _release(T, [5, 700]))
    orig = _original(fig)
    assert orig.marker.maxdisplayed == MARKERS_MAX_DISPLAYED < T
    assert orig.mode == "lines+markers" and len(orig.x) == T  # every point is still there
    # landmarks and the other marker traces are drawn whole
    assert all(tr.marker.maxdisplayed is None for tr in fig.data
               if tr is not orig and getattr(tr, "marker", None) is not None)


def test_webgl_traces_are_not_given_a_marker_limit():
    T = 40_000  # decimated, and with this many landmarks kept, drawn with WebGL
    rel = _release(T, list(range(0, T, 12)), scheme="uniform")
    fig = timeline_figure(np.arange(T), "number", rel)
    orig = _original(fig)
    assert isinstance(orig, go.Scattergl) and len(orig.x) > WEBGL_THRESHOLD
    assert "maxdisplayed" not in orig.marker.to_plotly_json()


@pytest.mark.parametrize("T", [12, 168, 2000, 6000])
@pytest.mark.parametrize("kind", ["number", "datetime"])
def test_unvalidated_build_is_what_plotly_validates(T, kind):
    """The figure is built from plain dicts without plotly's validation (for speed): every
    property must survive plotly's validation unchanged (an invalid name or value would
    raise here, a coerced one would differ)."""
    time = (np.arange(T) if kind == "number" else
            np.datetime64("2024-03-04T00:00") + np.arange(T) * np.timedelta64(1, "h"))
    rel = _release(T, [1, 2, T // 2], scheme="adaptive")
    leak = {"TPL": np.linspace(0, 1, T), "landmark TPL": np.linspace(0, 2, T)}
    fig = timeline_figure(time, kind, rel, unit="kWh", leakage=leak, suggestions=[0, 5])
    validated = go.Figure(fig.to_dict())  # validates every property (raises if invalid)
    assert json.loads(fig.to_json()) == json.loads(validated.to_json())
