"""AppTest: the Dummy landmarks page draws the option charts only while their expander
is open (a closed expander's charts would otherwise be built, sent and drawn on every change)."""

from __future__ import annotations

import numpy as np

from lmdk_core.dummies import dummy_options, select_option
from tests.app.test_app_timeline import plotly_array
from tests.conftest import chart_specs, open_page

EXPANDER = "dl_options_open"


def test_option_charts_only_while_open():
    at = open_page("dummies", 60)
    closed = chart_specs(at)
    assert len(closed) == 1  # the release's timeline; the details are closed
    # the details' caption is there either way
    assert any(c.value.startswith("Metric of L: ") for c in at.caption)
    at.session_state[EXPANDER] = True  # what a click on the expander sends
    at.run()
    assert not at.exception
    figs = chart_specs(at)
    assert len(figs) == 3
    # the probabilities drawn are the engine's for this session's seed and ε_sel
    seed = int(at.session_state["w_seed"])
    eps_sel = float(at.number_input(key="dl_eps_sel").value)
    landmarks = [int(t) for t in at.session_state["series_landmarks"][
        at.sidebar.selectbox(key="w_series_name").value]]
    sel = select_option(dummy_options(168, landmarks, "heuristic", "gap_std"), eps_sel, seed)
    bars = next(f for f in figs if f["data"][0]["type"] == "bar")
    assert np.allclose(plotly_array(bars["data"][0]["y"]), sel.probabilities[:200])
    # a change of the metric keeps the details open and redraws them
    at.selectbox(key="dl_metric").set_value("nearest_mean").run()
    assert not at.exception and len(chart_specs(at)) == 3
    at.session_state[EXPANDER] = False
    at.run()
    assert len(chart_specs(at)) == 1
