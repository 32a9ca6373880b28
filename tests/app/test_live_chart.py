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


def test_a_preview_grid_is_sent_once_then_named_by_its_digest():
    """The slider preview's leakage grids (unchanged by an ε step, most of a large ε
    step's message) go in full the first time, then as their digest; a changed grid
    (new landmarks, model or data) goes in full again; the memoised preview is not
    changed."""
    from app_support.live_chart import grid_digest, shared_grids

    scrub = {"epsilon": 1.0, "traces": [
        {"i": 0, "y0": "AAAA", "rule": "noise", "base": "AAAA"},
        {"i": 5, "y0": "AAAA", "rule": "grid", "grid": "AAAAAAAA"},
        {"i": 6, "y0": "AAAA", "rule": "grid", "grid": "AACAAAAA"}]}
    first, full = shared_grids(scrub, [])
    assert first == {"epsilon": 1.0, "traces": [
        scrub["traces"][0], scrub["traces"][1] | {"gridKey": grid_digest("AAAAAAAA")},
        scrub["traces"][2] | {"gridKey": grid_digest("AACAAAAA")}]}
    assert full == [grid_digest("AAAAAAAA"), grid_digest("AACAAAAA")]
    again, full = shared_grids(scrub, [grid_digest("AAAAAAAA"), grid_digest("AACAAAAA")])
    assert full == [] and [t.get("grid") for t in again["traces"]] == [None] * 3
    assert [t.get("gridKey") for t in again["traces"]] == [
        None, grid_digest("AAAAAAAA"), grid_digest("AACAAAAA")]
    changed = {"traces": [{"i": 5, "rule": "grid", "grid": "AAAAAAAB"}]}
    out, full = shared_grids(changed, [grid_digest("AAAAAAAA")])
    assert out["traces"][0]["grid"] == "AAAAAAAB" and full == [grid_digest("AAAAAAAB")]
    assert scrub["traces"][1] == {"i": 5, "y0": "AAAA", "rule": "grid", "grid": "AAAAAAAA"}
    assert shared_grids(None, []) == (None, [])


def test_compare_sends_its_grids_once_per_session():
    """On the Compare page (the demo week) an ε step sends the preview's leakage grids
    as digests only: the session counts them as sent, at most GRIDS_REMEMBERED."""
    from app_support import state_keys as K
    from app_support.live_chart import GRIDS_REMEMBERED

    at = open_page("compare")
    sent = list(at.session_state[K.PREVIEW_GRIDS_SENT])
    assert 1 <= len(sent) <= GRIDS_REMEMBERED
    at.sidebar.number_input(key="w_epsilon").set_value(1.5).run()
    assert not at.exception
    assert list(at.session_state[K.PREVIEW_GRIDS_SENT]) == sent  # nothing new sent
