"""The one verdict (lmdk_core.decision.verdict): theorem + landmark TPL under a
correlation model."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.verdict import AMBER, GREEN, LEAKAGE_RTOL, RED, privacy_verdict
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import landmark_tpl, smoothed_matrix

INDEPENDENT = np.full((4, 4), 0.25)  # every row equal: no correlation, L_P ≡ 0


def test_green_when_both_hold():
    eps_t = allocate("uniform", 20, [3, 9], 1.0)
    pv = privacy_verdict(eps_t, [3, 9], 1.0, backward=INDEPENDENT)
    assert pv.colour == GREEN and pv.private
    assert pv.landmark_tpl_max == pytest.approx(1.0)
    d = pv.to_dict()
    assert d["verdict"] == "green" and d["landmark_private"] is True
    assert d["landmark_tpl_max"] == pytest.approx(1.0)
    json.dumps(d)  # JSON-ready


def test_amber_when_the_theorem_holds_but_correlation_leaks_more():
    eps_t = allocate("uniform", 50, [10, 30], 1.0)
    P = smoothed_matrix(10, 0.1)
    pv = privacy_verdict(eps_t, [10, 30], 1.0, backward=P, model="smoothed s = 0.1",
                         time_labels=[f"hour {t}" for t in range(50)])
    lt = landmark_tpl(eps_t, [10, 30], P)
    assert pv.colour == AMBER and pv.private  # theorem alone: private
    assert pv.landmark_tpl_max == pytest.approx(lt.max())
    assert pv.worst_timestamp == pv.landmark_tpl_timestamp == int(np.argmax(lt))
    assert "if consecutive values were independent" in pv.sentence
    assert f"{lt.max():.4g} > ε = 1" in pv.sentence
    assert f"hour {pv.worst_timestamp}" in pv.sentence and "smoothed s = 0.1" in pv.sentence
    assert pv.to_dict()["verdict"] == "amber"


def test_red_when_the_theorem_fails_with_or_without_a_model():
    eps_t = allocate("event", 10, [2], 1.0)  # ε_2 + ε_t = 2ε
    for kw in ({}, {"backward": INDEPENDENT}, {"backward": smoothed_matrix(5, 0.01)}):
        pv = privacy_verdict(eps_t, [2], 1.0, **kw)
        assert pv.colour == RED and not pv.private
        assert pv.worst_timestamp == verify(eps_t, [2], 1.0).worst_timestamp
        assert "over budget" in pv.sentence


def test_no_model_is_the_theorem():
    """Without a correlation model the colour is the verifier's (green or red) and no
    landmark TPL is reported."""
    rng = np.random.default_rng(12)
    for _ in range(200):
        T = int(rng.integers(1, 30))
        lm = sorted(set(rng.integers(0, T, size=int(rng.integers(0, 4))).tolist()))
        eps_t = rng.uniform(0, 0.6, size=T)
        pv = privacy_verdict(eps_t, lm, 1.0)
        v = verify(eps_t, lm, 1.0)
        assert pv.colour == (GREEN if v.private else RED)
        assert pv.landmark_tpl_max is None and "landmark_tpl_max" not in pv.to_dict()


@settings(max_examples=60, deadline=None)
@given(T=st.integers(1, 25), data=st.data())
def test_independent_matrix_gives_the_theorem(T, data):
    """With every row of P equal, landmark TPL equals the theorem's total, so the colour
    is never amber and matches the verifier."""
    lm = data.draw(st.lists(st.integers(0, T - 1), max_size=4, unique=True))
    eps_t = np.array(data.draw(st.lists(st.floats(0, 1), min_size=T, max_size=T)))
    pv = privacy_verdict(eps_t, lm, 1.0, backward=INDEPENDENT)
    v = verify(eps_t, lm, 1.0)
    assert pv.colour == (GREEN if v.private else RED)
    assert pv.landmark_tpl_max == pytest.approx(v.worst_total, rel=1e-12, abs=1e-12)


def test_boundary_of_the_leakage_tolerance():
    """landmark TPL exactly ε, or above by less than LEAKAGE_RTOL, is green; above by
    more is amber. The theorem itself holds in all three cases."""
    eps_t = np.full(5, 0.5)
    for over, colour in ((0.0, GREEN), (0.5 * LEAKAGE_RTOL, GREEN), (3 * LEAKAGE_RTOL, AMBER)):
        lt = np.full(5, 0.5)
        lt[3] = 1.0 * (1 + over)
        pv = privacy_verdict(eps_t, [1], 1.0, landmark_tpl=lt)
        assert pv.private and pv.colour == colour, (over, pv.colour)


def test_leakage_target_and_bad_inputs():
    eps_t = allocate("uniform", 30, [5], 1.0)
    P = smoothed_matrix(10, 0.1)
    lt = landmark_tpl(eps_t, [5], P)
    assert privacy_verdict(eps_t, [5], 1.0, landmark_tpl=lt).colour == AMBER
    pv = privacy_verdict(eps_t, [5], 1.0, landmark_tpl=lt, leakage_target=lt.max())
    assert pv.colour == GREEN and "leakage target α" in pv.sentence
    with pytest.raises(InputError, match="timestamps"):
        privacy_verdict(eps_t, [5], 1.0, landmark_tpl=lt[:-1])
    with pytest.raises(InputError, match="target"):
        privacy_verdict(eps_t, [5], 1.0, landmark_tpl=lt, leakage_target=0.0)
    # an infinite leakage is amber, never green
    inf = lt.copy()
    inf[0] = np.inf
    assert privacy_verdict(eps_t, [5], 1.0, landmark_tpl=inf).colour == AMBER
    # a model that could not be evaluated says so, and the verdict is the theorem's
    pv = privacy_verdict(eps_t, [5], 1.0, model_note="too many states.")
    assert pv.colour == GREEN and "too many states" in pv.sentence
