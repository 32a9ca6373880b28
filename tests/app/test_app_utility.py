"""AppTest: the utility line beside the privacy verdict on the Timeline, Map and Compare
pages — its numbers are the engine's (lmdk_core.decision.utility) for the page's own release."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.decision.utility import format_amount, release_utility
from lmdk_core.engine.release import release_series, release_trajectory
from tests.conftest import open_page

TIMEOUT = 120


def utility_lines(at: AppTest) -> list[str]:
    """Each utility box as one text: its badge (words and icon) and the sentence after."""
    md = [m.value for m in at.markdown]
    return [f"{v} {md[i + 1]}" for i, v in enumerate(md)
            if "-badge[" in v and "Utility: " in v and i + 1 < len(md)]


def verdict_boxes(at: AppTest) -> list[str]:
    return [b.value for b in [*at.success, *at.warning, *at.error]
            if "andmark-private" in b.value]


def test_timeline_shows_the_utility_line_under_the_verdict():
    at = open_page("timeline", TIMEOUT)
    # Δf is not drawn on Leakage (landmark TPL does not depend on it); the line uses the
    # shared setting, derived from the data unless chosen on the Timeline
    sens = float(at.session_state["w_sensitivity"])
    eps = float(at.number_input(key="w_epsilon").value)
    s = demo_series()
    rel = release_series(s.values, demo_series_landmarks(), epsilon=eps, scheme="uniform",
                         mechanism="laplace", sensitivity=sens, seed=0)
    uv = release_utility(rel, sensitivity=sens, unit=s.unit)
    lines = utility_lines(at)
    assert len(lines) == 1 and len(verdict_boxes(at)) == 1
    assert f"Utility: {uv.label}" in lines[0]
    assert format_amount(uv.typical, "kWh") in lines[0]
    assert "interquartile range" in lines[0]


def test_timeline_bad_and_good_settings():
    at = open_page("timeline", TIMEOUT)
    at.number_input(key="w_sensitivity").set_value(0.2).run()
    at.number_input(key="w_epsilon").set_value(0.05).run()
    assert not at.exception
    line = utility_lines(at)[0]
    # ε = 0.05 with 5 landmarks: ε_t = 0.05/6, MAE 0.2/ε_t = 24 kWh — noise
    assert "Utility: not useful" in line and "This release is not useful:" in line
    assert "24 kWh" in line and "raise ε to about" in line and "fewer landmarks" in line
    # the privacy verdict beside it is not red: a private release can still be noise
    assert not any(v.startswith("**Not landmark-private") for v in verdict_boxes(at))
    at.number_input(key="w_epsilon").set_value(30.0).run()
    line = utility_lines(at)[0]
    assert "Utility: useful" in line and "keeps the series' shape" in line


def test_map_shows_displacement_against_the_track_extent():
    at = open_page("map", TIMEOUT)
    tr = demo_track()
    radius = float(at.number_input(key="w_radius").value)
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=radius,
                             scheme="uniform", seed=0, max_landmarks=5)  # the sidebar's declared k
    uv = release_utility(rel, radius=radius)
    line = utility_lines(at)[0]
    assert f"Utility: {uv.label}" in line
    assert format_amount(uv.typical, "m") in line and "track's extent" in line
    at.number_input(key="w_epsilon").set_value(0.05).run()
    line = utility_lines(at)[0]
    # ε_t = 0.05/(k+1), k = 5: 2r/ε_t = 24 km on a track 3.3 km across
    assert "Utility: not useful" in line and "24 km" in line
    assert "a larger r is not a fix" in line


@pytest.mark.parametrize("data", ["series", "track"])
def test_compare_has_one_utility_line_per_scheme(data):
    at = open_page("compare", TIMEOUT)
    if data == "track":
        at.radio(key="w_analysis_data").set_value("track").run()
    assert not at.exception
    lines = utility_lines(at)
    # one utility line per scheme; one verdict box when the three verdicts agree
    assert len(lines) == 3 and len(verdict_boxes(at)) in (1, 3)
    assert all("mean error" in line.lower() for line in lines)
    unit = " m" if data == "track" else "kWh"
    assert all(unit in line or " km" in line for line in lines)


def test_leakage_and_dummies_pages_show_the_utility_line_too():
    at = open_page("leakage", TIMEOUT)
    lines = utility_lines(at)
    assert len(lines) == 1 and len(verdict_boxes(at)) == 1
    # a constant allocation (no release drawn): the line is the allocation's
    at.radio(key="lk_alloc").set_value("constant").run()
    at.number_input(key="lk_const_eps").set_value(0.01).run()
    assert not at.exception
    line = utility_lines(at)[0]
    # Δf is not drawn on Leakage (landmark TPL does not depend on it); the line uses the
    # shared setting, derived from the data unless chosen on the Timeline
    sens = float(at.session_state["w_sensitivity"])
    assert "Utility: not useful" in line
    assert format_amount(sens / 0.01, "kWh") in line  # Laplace: Δf/ε_t
    at.switch_page("app_pages/dummies.py").run()
    assert not at.exception
    assert len(utility_lines(at)) == 1 and len(verdict_boxes(at)) == 1
