"""AppTest: the Compare page (schemes side by side and the error-vs-ε sweep)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_page

TIMEOUT = 120


@pytest.fixture
def compare() -> AppTest:
    return open_page("compare", TIMEOUT)


def column_titles(at: AppTest) -> list[str]:
    return [m.value.strip("*") for m in at.markdown
            if m.value.startswith("**") and m.value.endswith("**")]


def reading(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Reading the chart**"))


def test_compare_renders_demo_side_by_side(compare):
    at = compare
    assert "Compare" in at.title[0].value
    assert column_titles(at) == ["Uniform", "Skip", "Adaptive"]
    assert len(at.success) == 3 and not at.error  # three landmark-private verdicts
    assert sum("MAE (measured)" in m.value for m in at.markdown) == 3
    # Skip spends ε at every regular timestamp: under correlation its landmarks leak > ε
    assert any("landmark TPL up to" in w.value for w in at.warning)
    text = reading(at)
    assert "most accurate landmark-private scheme is **Skip**" in text
    assert "Skip publishes nothing fresh at the landmarks" in text
    assert any(b.label == "Privacy report (HTML)" for b in at.get("download_button"))


def test_changing_schemes_and_epsilon_updates_results(compare):
    at = compare
    at.multiselect(key="w_compare_schemes").set_value(["uniform", "event"]).run()
    assert not at.exception
    assert column_titles(at) == ["Uniform", "Event-level"]
    assert len(at.error) == 1 and "Not landmark-private" in at.error[0].value
    assert "**Event-level is not landmark-private**" in reading(at)
    before = [m.value for m in at.markdown if "MAE (measured)" in m.value]
    at.sidebar.number_input(key="w_epsilon").set_value(2.0).run()
    after = [m.value for m in at.markdown if "MAE (measured)" in m.value]
    assert len(after) == 2 and after != before  # less noise at ε = 2
    # ε = 2 is inside the default sweep (0.1 to 10); ε = 50 is not: offer to move it
    at.sidebar.number_input(key="w_epsilon").set_value(50.0).run()
    assert "outside the swept range" in reading(at)
    next(b for b in at.button if b.label.startswith("Sweep around")).click().run()
    assert at.number_input(key="w_sweep_low").value == 5.0
    assert at.number_input(key="w_sweep_high").value == 500.0
    assert "outside the swept range" not in reading(at)
    at.multiselect(key="w_compare_schemes").set_value(["uniform"]).run()
    assert any("at least two schemes" in i.value for i in at.info)


def test_sweep_is_cached_and_revisiting_is_instant(compare):
    at = compare
    store = at.session_state["compare_sweeps"]
    assert len(store) == 1
    sweep = next(iter(store.values()))
    assert sweep.runs == 20 and sweep.epsilons.size == 9
    at.switch_page("app_pages/timeline.py").run()
    at.switch_page("app_pages/compare.py").run()
    assert len(at.session_state["compare_sweeps"]) == 1  # nothing recomputed
    at.slider(key="w_sweep_runs").set_value(10).run()
    assert len(at.session_state["compare_sweeps"]) == 2
    at.slider(key="w_sweep_runs").set_value(20).run()
    assert len(at.session_state["compare_sweeps"]) == 2  # back to a stored sweep


def test_bad_sweep_range_is_explained(compare):
    at = compare
    at.number_input(key="w_sweep_low").set_value(5.0)
    at.number_input(key="w_sweep_high").set_value(1.0).run()
    assert not at.exception
    assert any("*To ε* must be greater than *From ε*" in e.value for e in at.error)


def test_compare_on_the_trajectory(compare):
    at = compare
    at.radio(key="w_analysis_data").set_value("track").run()
    assert not at.exception
    assert sum("Mean displacement" in m.value for m in at.markdown) == 3
    assert " m over 20 runs" in reading(at)
    assert any("grid cells" in c.value for c in at.caption)  # the Map's leakage model
