"""The Choose ε page: accuracy → ε with apply, attacker's view, repeated releases."""

from __future__ import annotations

import math

import pytest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.decision.accuracy import AccuracyTarget
from lmdk_core.decision.epsilon_search import solve_epsilon
from tests.conftest import open_page

ATTACKER, REPEATED = "What an attacker learns", "Repeated releases"


@pytest.fixture(scope="module")
def at():
    return open_page("choose_epsilon")


def open_tab(at, label: str):
    """Switch to the tab ``label`` (a tab click: the page reruns and computes only the
    open tab)."""
    at.session_state["choose_tab"] = label
    return at.run()


def test_only_the_open_tab_is_computed():
    page = open_page("choose_epsilon")
    buttons = [b.label for b in page.button]
    assert any(b.startswith("Apply Uniform") for b in buttons)  # the accuracy tab
    assert not any("more certain" in m.value for m in page.markdown)  # no attacker tab
    assert not any(b.startswith("Apply ε =") for b in buttons)  # no schedule tab
    open_tab(page, ATTACKER)
    assert not page.exception
    assert any("more certain" in m.value for m in page.markdown)
    assert not any(b.label.startswith("Apply Uniform") for b in page.button)


def test_uniform_solution_applies_to_the_sidebar(at):
    assert not at.error, [e.value for e in at.error]
    at.number_input(key="w_acc_bound_series").set_value(1.0).run()
    at.slider(key="w_acc_prob").set_value(90.0).run()
    expected = solve_epsilon(demo_series().values, demo_series_landmarks(), "uniform",
                             AccuracyTarget("within", 1.0, 0.9),
                             sensitivity=float(at.session_state.w_sensitivity))
    # Uniform with |L| = 5: ε = 6·Δf·ln(10)/1, Δf the value derived from the demo (2.9)
    assert at.session_state.w_sensitivity == 2.9
    assert expected.epsilon == pytest.approx(6 * 2.9 * math.log(10), rel=1e-8)
    btn = next(b for b in at.button if b.label.startswith("Apply Uniform"))
    btn.click().run()
    assert not at.exception
    assert at.session_state.w_epsilon == pytest.approx(round(expected.epsilon, 6))
    assert at.session_state.w_scheme == "uniform"
    assert any("Applied ε" in i.value for i in at.info)


def test_out_of_range_answers_cannot_be_applied(at):
    at.number_input(key="w_acc_bound_series").set_value(0.5).run()
    user = next(b for b in at.button if b.label.startswith("Apply User-level"))
    assert user.disabled  # ε in the thousands is outside the sidebar's range


def test_attacker_and_schedule_sentences(at):
    text = " ".join(m.value for m in open_tab(at, ATTACKER).markdown)
    assert "more certain" in text
    # Skip's approximations carry fresh noise: no repeat shows where the landmarks are
    assert "shows no trace of which timestamps are landmarks" in text
    assert "100% of them are landmarks" not in text
    text = " ".join(m.value for m in open_tab(at, REPEATED).caption)
    assert "recurs in every release" in text
    apply = next(b for b in at.button if b.label.startswith("Apply ε ="))
    apply.click().run()
    assert at.session_state.w_epsilon < 1  # a per-release share of the yearly target


def test_track_view_has_the_averaging_attack(at):
    at.radio(key="w_analysis_data").set_value("track").run()
    open_tab(at, ATTACKER)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    text = " ".join(m.value for m in at.markdown)
    assert "days of releases" in text and "from the true place" in text


@pytest.mark.parametrize("per", ["each", "all"])
def test_adaptive_is_solved_for_each_and_all_readings(per):
    page = open_page("choose_epsilon")
    page.number_input(key="w_acc_bound_series").set_value(1.0).run()
    page.slider(key="w_acc_prob").set_value(95.0).run()
    page.radio(key="w_acc_per").set_value(per).run()
    page.slider(key="w_acc_runs").set_value(10).run()
    next(b for b in page.button if b.label.startswith("Estimate Adaptive")).click().run()
    # 10 releases all within certify at most 0.05^(1/10) = 74 %: the slider is named
    assert any("at least 59" in e.value and "Runs per ε" in e.value for e in page.error), \
        [e.value for e in page.error]
    # 60 % needs 6 runs: 20 are simulated (small and fast), the answer is for this target
    page.slider(key="w_acc_prob").set_value(60.0).run()
    page.slider(key="w_acc_runs").set_value(20).run()
    next(b for b in page.button if b.label.startswith("Estimate Adaptive")).click().run()
    assert not page.exception and not page.error, [e.value for e in page.error]
    sol = page.session_state["adaptive_solution"]
    assert sol.target.per == per and sol.target.probability == pytest.approx(0.6)
    assert sol.epsilon is not None and "Clopper–Pearson" in sol.method
    assert any("Adaptive reaches" in s.value for s in page.success)


def test_attacker_view_states_likelihood_ratios_that_hold_for_the_demo():
    """At the default (derived) Δf every landmark event of the demo is covered and its
    stated likelihood ratio is ≤ e^ε; with Δf = 0.2 the page says the medical
    device's readings give a ratio near 66 and a 10 % suspicion grows to 88 %."""
    from lmdk_core.decision.sensitivity import landmark_events
    from lmdk_core.engine.allocation import allocate

    page = open_tab(open_page("choose_epsilon"), ATTACKER)
    assert not page.error, [e.value for e in page.error]
    table = next(d.value for d in page.dataframe if "likelihood ratio" in d.value.columns)
    assert list(table["covered by Δf"]) == ["yes", "yes", "yes"]
    lm = demo_series_landmarks()
    events = landmark_events(demo_series(), lm, allocate("uniform", 168, lm, 1.0), 2.9)
    assert list(table["likelihood ratio"]) == [f"{e.likelihood_ratio:,.3g}" for e in events]
    assert all(float(r) <= math.e for r in table["likelihood ratio"])
    page.session_state["w_sensitivity"] = 0.2
    page.run()
    assert not page.exception
    msg = next(e.value for e in page.error if "does not cover" in e.value)
    assert "66.1 times more likely" in msg and "88.0%" in msg and "23.2%" in msg


def test_the_attacker_view_under_the_estimated_model_is_conservative_and_says_so():
    """Under the default model (estimated from the demo week) the correlated sentence
    takes the worst landmark TPL over the smoothing range, says the model is estimated,
    and the page shows how landmark TPL moves with the smoothing (issue 35, item 6)."""
    import json

    import numpy as np

    from lmdk_core.engine.allocation import allocate
    from lmdk_core.leakage import landmark_tpl
    from lmdk_core.leakage.conservative import smoothing_variants
    from lmdk_core.leakage.model import correlation_from_spec

    page = open_tab(open_page("choose_epsilon"), ATTACKER)
    assert not page.exception
    text = " ".join(m.value for m in page.markdown)
    assert "estimated from this data: the worst over smoothing 1, 0.5, 0.1 and 0.01" in text
    assert "How landmark TPL moves with the model" in text
    # the worst row of the table is the one the sentence uses
    spec = json.loads(json.dumps({"model": "estimated", "bins": 10, "binning": "quantile",
                                  "smoothing": 1.0, "backward": "estimated"}))
    model = correlation_from_spec(spec, demo_series())
    lm = demo_series_landmarks()
    eps_t = allocate("uniform", 168, lm, 1.0)
    worst = max(float(np.max(landmark_tpl(eps_t, lm, v.backward, v.forward)))
                for v in smoothing_variants(model))
    own = float(np.max(landmark_tpl(eps_t, lm, model.backward, model.forward)))
    assert worst > own
    assert f"| 0.01 | {worst:.3g} |" in text
