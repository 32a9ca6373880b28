"""lmdk_core.decision.attacker.posterior_vs_epsilon: the Choose ε page's posterior-vs-ε curves,
checked against the definition (the allocation's largest landmark TPL, Cao et al.
ICDE 2017, from the direct definition and brute-force loss of
tests/engine/test_leakage_oracles.py)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision import attacker
from lmdk_core.decision.attacker import planning_scheme, posterior_bound, posterior_vs_epsilon
from lmdk_core.engine.allocation import allocate
from lmdk_core.leakage.loss import LossFunction
from tests.engine.test_leakage_oracles import brute_loss, direct_landmark_tpl


def test_doctests():
    assert doctest.testmod(attacker).failed == 0


def test_adaptive_is_judged_by_its_starting_uniform_allocation():
    assert planning_scheme("adaptive") == "uniform"
    assert [planning_scheme(s) for s in ("uniform", "skip", "w-event")] == [
        "uniform", "skip", "w-event"]


def _chain(rng: np.random.Generator, n: int) -> np.ndarray:
    P = rng.random((n, n)) + 0.05
    return P / P.sum(axis=1, keepdims=True)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["uniform", "skip", "adaptive"]),
       st.lists(st.integers(0, 7), max_size=3, unique=True))
def test_correlated_curve_is_the_posterior_at_the_largest_landmark_tpl(seed, scheme, lm):
    rng = np.random.default_rng(seed)
    Pb, Pf = _chain(rng, 3), _chain(rng, 3)
    grid = np.geomspace(0.05, 3.0, 4)
    T = 8
    curve = posterior_vs_epsilon(0.2, grid, scheme=scheme, length=T, landmarks=lm, window=None,
                                 backward=LossFunction(Pb), forward=LossFunction(Pf))
    np.testing.assert_array_equal(curve.independent, posterior_bound(0.2, grid))
    for i, e in enumerate(grid):
        eps_t = allocate(planning_scheme(scheme), T, lm, float(e))
        oracle = max(direct_landmark_tpl(list(eps_t), lm, lambda a: brute_loss(Pb, a),
                                         lambda a: brute_loss(Pf, a)))
        # tolerance: the fast loss agrees with the brute-force oracle to 1e-9
        # (tests/engine/test_leakage_oracles.py); relative 1e-7 over the sums of T terms
        assert curve.landmark_tpl[i] == pytest.approx(oracle, rel=1e-7, abs=1e-9)
    np.testing.assert_array_equal(curve.correlated, posterior_bound(0.2, curve.landmark_tpl))
    assert np.all(curve.correlated >= curve.independent - 1e-12)  # correlation never helps
