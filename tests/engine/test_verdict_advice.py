"""The verdict's one-sentence reason and its advice: an amber verdict's calibration is
computed, checked, and following it turns the verdict green — unlike lowering ε."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.decision.verdict import AMBER, GREEN, LEAKAGE_RTOL, RED, privacy_verdict
from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.setting_limits import LIMITS
from lmdk_core.leakage import calibrate_scale, landmark_tpl, smoothed_matrix
from lmdk_core.leakage.model import DEFAULT_SERIES_SPEC, correlation_from_spec

STATIC = ["uniform", "skip", "w-event", "event", "user"]


def demo():
    s, lm = demo_series(), demo_series_landmarks()
    return s, lm, correlation_from_spec(None, s)


def test_the_default_series_model_is_estimated_from_the_data_and_stores_only_its_recipe():
    s, _, m = demo()
    assert m.key == "estimated" and m.n_states == 10
    assert "10 equal-count bins" in m.short and "add-one smoothing" in m.short
    assert "167 transitions" in m.description and "reversed" in m.description
    # forward and backward are both counted from the data (not the same matrix)
    assert not np.allclose(m.forward, m.backward)
    # a saved configuration gets the recipe, never the matrix (derived from raw data)
    assert m.spec == DEFAULT_SERIES_SPEC
    assert "[" not in json.dumps(m.spec)


def test_lowering_epsilon_alone_cannot_turn_the_demo_green():
    """Why the advice is not 'lower ε': under the model estimated from the demo
    week, landmark TPL stays about 3 × ε for every ε from 0.01 to 5."""
    s, lm, m = demo()
    for eps in np.geomspace(0.01, 5, 9):
        pv = privacy_verdict(allocate("uniform", len(s), lm, eps), lm, eps,
                             backward=m.backward, forward=m.forward, advise=False)
        assert pv.colour == AMBER
        assert 2.5 < pv.landmark_tpl_max / eps < 3.5


@pytest.mark.parametrize("eps", [0.05, 1.0, 5.0])
@pytest.mark.parametrize("scheme", ["uniform", "skip", "w-event"])
def test_following_the_demos_advice_turns_it_green(eps, scheme):
    s, lm, m = demo()
    eps_t = allocate(scheme, len(s), lm, eps, window=10)
    pv = privacy_verdict(eps_t, lm, eps, backward=m.backward, forward=m.forward,
                         model=m.short)
    assert pv.colour == AMBER and pv.advice is not None
    assert pv.why.startswith("Amber because the data's consecutive values are correlated")
    assert f"ε = {pv.advice.epsilon:.3g}" in pv.sentence  # the advice is in the sentence
    a = pv.advice
    assert a.target == eps and a.epsilon == pytest.approx(a.scale * eps)
    # follow it as the app does: the same scheme at the calibrated ε, target α = ε
    after = allocate(scheme, len(s), lm, a.epsilon, window=10)
    np.testing.assert_allclose(after, a.scale * eps_t, rtol=1e-12)
    pv2 = privacy_verdict(after, lm, a.epsilon, backward=m.backward, forward=m.forward,
                          leakage_target=eps)
    assert pv2.colour == GREEN and pv2.why.startswith("Green because")
    # and it is the largest such ε (up to the search tolerance, 1e-6)
    lt_more = landmark_tpl(a.scale * (1 + 1e-4) * eps_t, lm, m.backward, m.forward).max()
    assert lt_more > eps


def _matrix(draw, n):
    rows = [draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)) for _ in range(n)]
    P = np.asarray(rows)
    return P / P.sum(axis=1, keepdims=True)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_advice_always_works(data):
    """For random chains, landmark sets, static schemes and ε: whenever the verdict is
    amber with advice, the scheme at the advised ε is green under target α = ε; whenever
    it is amber, the advice is there (unless c·ε leaves the explorer's range)."""
    n = data.draw(st.integers(2, 5))
    PF, PB = _matrix(data.draw, n), _matrix(data.draw, n)
    T = data.draw(st.integers(2, 40))
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=min(T, 5))))
    scheme = data.draw(st.sampled_from(STATIC))
    eps = data.draw(st.floats(0.05, 5.0))
    w = data.draw(st.integers(1, 6))
    eps_t = allocate(scheme, T, lm, eps, window=w)
    pv = privacy_verdict(eps_t, lm, eps, backward=PB, forward=PF)
    if pv.colour != AMBER:
        return
    if pv.advice is None:  # only when the calibrated ε leaves the explorer's range
        c = calibrate_scale(eps_t, eps, PB, PF, lm, rtol=1e-6).value
        assert c * eps < LIMITS["epsilon"].low
        return
    a = pv.advice
    after = allocate(scheme, T, lm, a.epsilon, window=w)
    pv2 = privacy_verdict(after, lm, a.epsilon, backward=PB, forward=PF, leakage_target=eps)
    assert pv2.colour == GREEN
    assert pv2.landmark_tpl_max <= eps * (1 + LEAKAGE_RTOL)


def test_every_colour_says_why_in_one_sentence():
    T, lm = 30, [4, 12]
    green = privacy_verdict(allocate("uniform", T, lm, 1.0), lm, 1.0,
                            backward=np.full((3, 3), 1 / 3))
    amber = privacy_verdict(allocate("uniform", T, lm, 1.0), lm, 1.0,
                            backward=smoothed_matrix(4, 0.05))
    red = privacy_verdict(allocate("event", T, lm, 1.0), lm, 1.0)
    none = privacy_verdict(allocate("uniform", T, lm, 1.0), lm, 1.0)
    assert green.colour == GREEN and green.why.startswith("Green because")
    assert amber.colour == AMBER and amber.why.startswith("Amber because")
    assert red.colour == RED and red.why.startswith("Red because")
    assert "independent" in none.why and none.colour == GREEN
    for pv in (green, amber, red, none):
        assert pv.why.count(". ") == 0 and pv.why.endswith(".")  # one sentence
        assert pv.to_dict()["verdict_why"] == pv.why
    assert red.advice is None and green.advice is None
    assert amber.to_dict()["calibrated_epsilon"] == pytest.approx(amber.advice.epsilon)


def test_without_matrices_the_amber_advice_names_the_ways_that_work():
    T, lm = 30, [4, 12]
    eps_t = allocate("uniform", T, lm, 1.0)
    lt = landmark_tpl(eps_t, lm, smoothed_matrix(4, 0.05))
    pv = privacy_verdict(eps_t, lm, 1.0, landmark_tpl=lt)
    assert pv.colour == AMBER and pv.advice is None
    assert "Lowering ε alone does not help" in pv.sentence and "calibrate" in pv.sentence


def test_advice_is_not_computed_for_very_long_allocations():
    """Above ADVICE_MAX_LENGTH the verdict gives the general advice at once (the
    calibration search would run dozens of landmark-TPL evaluations on every rerun)."""
    from lmdk_core.decision.verdict import ADVICE_MAX_LENGTH, calibration_advice
    from lmdk_core.leakage.loss import LossFunction

    L = LossFunction(np.array([[0.9, 0.1], [0.1, 0.9]]))
    eps_t = np.full(ADVICE_MAX_LENGTH + 1, 1 / 3)
    assert calibration_advice(eps_t[:200], [3, 7], epsilon=1.0, target=1.0, backward=L,
                              forward=L) is not None
    assert calibration_advice(eps_t, [3, 7], epsilon=1.0, target=1.0, backward=L, forward=L) is None
