"""The live chart's figure as the browser gets it: Streamlit's chart theme applied as
``st.plotly_chart(theme="streamlit")`` applies it, and the chart's text alternative."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest
import streamlit  # noqa: F401 - registers the "streamlit" plotly template, as in the app

from app_support.live_chart import _theme, chart_alt, themed_spec
from lmdk_core.figures.style import PLOTLY_CONFIG
from tests.conftest import chart_configs, open_page


def test_the_theme_replaces_streamlit_placeholders_and_keeps_the_figure_own_values():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="released"),
                    layout={"font": {"color": "#262730"}, "title": {"text": "Panel"},
                            "meta": {"alt": "A chart of two released values."}})
    text, alt = themed_spec(fig)
    spec = json.loads(text)
    assert all(p not in text for p in _theme()["colors"])  # no "#000001" left
    template = spec["layout"]["template"]["layout"]
    assert template["colorway"][0] == _theme()["colors"]["#000001"]
    assert template["font"] == _theme()["layout"]["font"]  # the theme merged in
    assert spec["layout"]["font"] == {"color": "#262730"}  # the figure's own value
    assert spec["layout"]["title"]["text"] == "<b>Panel</b>"  # as Streamlit draws it
    assert alt == "A chart of two released values."
    assert fig.layout.title.text == "Panel"  # the figure itself is left as it was


def test_a_chart_without_meta_alt_is_named_by_its_titles_and_traces():
    spec = {"data": [{"name": "TPL"}, {"name": "<b>landmark</b> TPL"}, {"name": "TPL"}],
            "layout": {"title": {"text": "Leakage"},
                       "annotations": [{"text": "Forward", "xref": "paper", "yref": "paper"},
                                       {"text": "a point", "xref": "x", "yref": "y"}]}}
    assert chart_alt(spec) == "Chart. Leakage. Forward. shows: TPL, landmark TPL"
    assert chart_alt({"data": [], "layout": {}}) == "Chart. No description."


@pytest.mark.parametrize("page", ["timeline", "choose_epsilon", "compare", "leakage", "dummies",
                                  "learn"])
def test_every_chart_has_the_style_guide_toolbar(page):
    """One chart language: every chart a page draws has the style guide's toolbar
    (docs/chart-style.md), none plotly's default one."""
    at = open_page(page)
    configs = chart_configs(at)
    assert configs, f"{page}: no live chart drawn"
    assert all(c == PLOTLY_CONFIG for c in configs), (page, configs)
