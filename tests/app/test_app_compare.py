"""AppTest: the Compare page (schemes side by side and the error-vs-ε sweep)."""

from __future__ import annotations

import numpy as np
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


def run_sweep(at: AppTest) -> AppTest:
    """Press *Run the sweep* (the Monte Carlo sweep runs only on request)."""
    at.button(key="compare_run").click().run()
    assert not at.exception, at.exception
    # once the sweep is there, neither "Run the sweep" nor "Cancel" stays on the page
    keys = [b.key for b in at.button]
    assert "compare_run" not in keys and "compare_cancel" not in keys, keys
    return at


def reading(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Reading the chart**"))


def test_compare_renders_demo_side_by_side(compare):
    at = compare
    assert "Compare" in at.title[0].value
    assert column_titles(at) == ["Uniform", "Skip", "Adaptive"]
    # three verdicts: the theorem holds for each (no red); under the session's correlation
    # model their landmarks leak > ε, so they are amber
    assert not at.error
    # the three agree: one amber box for the three, each column with its own numbers
    assert sum("only if values were independent" in w.value for w in at.warning) == 1
    assert sum("MAE (measured)" in m.value for m in at.markdown) == 3
    # Skip spends ε at every regular timestamp: under correlation its landmarks leak > ε
    assert sum("landmark TPL up to" in m.value for m in at.markdown) == 3
    text = reading(run_sweep(at))
    assert "most accurate landmark-private scheme is **Skip**" in text
    assert "Skip publishes nothing fresh at the landmarks" in text
    # the report comes in two forms: the publishable note and the confidential report
    labels = [b.label for b in at.get("download_button")]
    assert "Public release note (HTML)" in labels
    assert "CONFIDENTIAL — Internal privacy report (HTML)" in labels


def test_changing_schemes_and_epsilon_updates_results(compare):
    at = compare
    at.multiselect(key="w_compare_schemes").set_value(["uniform", "event"]).run()
    assert not at.exception
    assert column_titles(at) == ["Uniform", "Event-level"]
    assert len(at.error) == 1 and "Not landmark-private" in at.error[0].value
    assert "**Event-level is not landmark-private**" in reading(run_sweep(at))
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
    assert "outside the swept range" not in reading(run_sweep(at))
    at.multiselect(key="w_compare_schemes").set_value(["uniform"]).run()
    assert any("at least two schemes" in i.value for i in at.info)


def test_sweep_runs_only_on_request_and_is_kept_per_settings(compare):
    at = compare
    assert len(at.session_state["compare_sweeps"]) == 0  # opening the page sweeps nothing
    assert not [m for m in at.markdown if m.value.startswith("**Reading the chart**")]
    assert at.button(key="compare_run").label == "Run the sweep"
    run_sweep(at)
    store = at.session_state["compare_sweeps"]
    assert len(store) == 1
    sweep = next(iter(store.values()))
    assert sweep.runs == 20 and sweep.epsilons.size == 9
    at.switch_page("app_pages/timeline.py").run()
    at.switch_page("app_pages/compare.py").run()
    assert len(at.session_state["compare_sweeps"]) == 1  # nothing recomputed
    at.slider(key="w_sweep_runs").set_value(10).run()
    assert len(at.session_state["compare_sweeps"]) == 1  # new settings: waits for Run
    run_sweep(at)
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
    assert len(at.session_state["compare_sweeps"]) == 0  # switching sweeps nothing
    assert " m over 20 runs" in reading(run_sweep(at))
    assert any("grid cells" in c.value for c in at.caption)  # the Map's leakage model


def test_geometric_on_real_valued_data_is_a_clear_error_with_the_fix(compare):
    """The demo series holds kWh (decimals) and the user's Δf = 0.2: the Geometric
    mechanism cannot release it. Compare says why and what to change
    (mechanism_problems), no traceback."""
    at = compare
    at.session_state["w_mechanism"] = "geometric"
    at.session_state["w_sensitivity"] = 0.2
    at.run()
    assert not at.exception
    msgs = [e.value for e in at.error if "Geometric mechanism cannot release" in e.value]
    assert len(msgs) == 1
    assert "whole-number sensitivity" in msgs[0] and "set Δf to a whole number" in msgs[0]
    assert "are not whole numbers" in msgs[0] and "choose Laplace" in msgs[0]
    assert not column_titles(at)  # nothing released under a mechanism that cannot run
    at.session_state["w_mechanism"] = "laplace"
    at.run()
    assert not at.exception and column_titles(at) == ["Uniform", "Skip", "Adaptive"]


def test_compare_shared_verdict_states_no_one_schemes_numbers_and_no_missing_button():
    """The demo's three schemes are all amber with different leakage and calibrated ε
    (conservative: the worst correlation model over the smoothing range, so Uniform
    0.023 and Skip 0.00391 on the demo week): the shared box states neither scheme's figures (each
    column does) and points to no button (Compare has no "Apply the calibration")."""
    at = open_page("compare", TIMEOUT)
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    assert "all 3 schemes" in text and "under every scheme" in text, text
    assert "each scheme's column gives its leakage and its calibrated ε" in text
    assert "the button below" not in text and "Calibrate before you publish: ε =" not in text
    assert not [b for b in at.button if "Apply the calibration" in str(b.label)]
    columns = " ".join(m.value for m in at.markdown)
    assert "Calibrated: ε = 0.023" in columns and "Calibrated: ε = 0.00391" in columns


def test_shared_plain_verdict_keeps_the_sentence_when_the_numbers_agree():
    from app_support.components import plain_verdict, shared_plain_verdict
    from lmdk_core.decision.verdict import privacy_verdict

    pv = privacy_verdict(np.full(10, 0.25), [2, 5], 1.0)
    assert shared_plain_verdict([pv, pv]) == plain_verdict(pv, button=False)


def test_a_toggle_or_a_scheme_added_does_not_simulate_adaptives_utility_again(
        compare, monkeypatch):
    """Adaptive's utility line simulates a few hundred whole releases
    (lmdk_core.decision.adaptive_accuracy); it is cached per release
    (app_support.components.cached_release_utility): switching the leakage panel or
    adding a scheme beside it keeps Adaptive's release, so its line is not simulated
    again — and the line shown is the same."""
    import lmdk_core.decision.adaptive_accuracy as aa

    calls = []
    real = aa.adaptive_expected_errors
    monkeypatch.setattr(aa, "adaptive_expected_errors",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    at = compare
    assert "adaptive" in at.multiselect(key="w_compare_schemes").value
    eps = at.sidebar.number_input(key="w_epsilon").value
    at.toggle(key="compare_leakage").set_value(False).run()
    at.multiselect(key="w_compare_schemes").set_value(
        [*at.multiselect(key="w_compare_schemes").value, "event"]).run()
    assert not at.exception, at.exception
    assert calls == []
    shown = [m.value for m in at.markdown]
    assert any("expected" in m for m in shown)
    at.sidebar.number_input(key="w_epsilon").set_value(eps + 0.7).run()  # a new release
    assert len(calls) == 1
    at.sidebar.number_input(key="w_epsilon").set_value(eps).run()  # the first one again
    assert len(calls) == 1
    assert [m.value for m in at.markdown] == shown
