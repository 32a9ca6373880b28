"""Supremum of BPL for a constant ε (Cao's Theorem 10) vs iterating the recursion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import LossFunction, bpl, smoothed_matrix, supremum, tpl, tpl_supremum
from tests.engine.test_leakage_oracles import stochastic_matrices


def iterate_to_limit(L: LossFunction, eps: float, steps: int = 200_000) -> tuple[float, bool]:
    """a ← L(a) + ε from a = ε until it stops moving (inf if it passes 1e4); returns the
    last value and whether it converged."""
    a = eps
    for _ in range(steps):
        b = L.scalar(a) + eps
        if b > 1e4:
            return math.inf, True
        if b - a <= 1e-14 * max(1.0, b):
            return b, True
        a = b
    return a, False


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(min_n=2, max_n=5), st.sampled_from([0.01, 0.1, 0.5, 1.0, 2.5]))
def test_supremum_is_the_limit_of_the_recursion(P, eps):
    L = LossFunction(P)
    sup = supremum(L, eps)
    lim, converged = iterate_to_limit(L, eps)
    if math.isinf(sup):
        assert math.isinf(lim) or lim > 50 * eps  # diverging (or still climbing)
    else:
        assert lim <= sup + 1e-9
        # a d(S) near the smallest float gives a finite but huge supremum that the
        # recursion approaches too slowly for 200,000 steps
        assert converged or sup > 100
        if converged:
            assert abs(lim - sup) < 1e-6 * max(1.0, sup)
        # the supremum is a fixed point and every BPL value stays below it
        assert abs(L.scalar(sup) + eps - sup) < 1e-9 * max(1.0, sup)
        assert np.all(bpl(np.full(300, eps), L) <= sup + 1e-9)


def test_divergence_with_a_zero_in_d():
    # q = (0.5, 0.5), d = (1, 0): Q = 0.5 where d = 0 → finite iff ε < log(1/0.5)
    P = np.array([[0.5, 0.5], [1.0, 0.0]])
    L = LossFunction(P)
    assert math.isinf(supremum(L, math.log(2.0)))
    assert math.isinf(supremum(L, 1.0))
    e = 0.5
    sup = supremum(L, e)
    assert math.isfinite(sup)
    # closed form for D = 0: y = e^ε(1 − Q)/(1 − e^ε Q)
    assert abs(sup - math.log(math.exp(e) * 0.5 / (1 - math.exp(e) * 0.5))) < 1e-12
    assert abs(iterate_to_limit(L, e)[0] - sup) < 1e-9


def test_identity_diverges_and_no_correlation_gives_epsilon():
    assert math.isinf(supremum(np.eye(3), 0.01))
    assert supremum(np.full((3, 3), 1 / 3), 0.7) == pytest.approx(0.7, abs=1e-15)
    assert supremum(np.eye(3), 0.0) == 0.0


def test_tpl_supremum_bounds_every_finite_horizon():
    P = smoothed_matrix(6, 0.2, "random", seed=4)
    e = 0.3
    s = tpl_supremum(e, P)
    assert abs(s - (2 * supremum(P, e) - e)) < 1e-12
    assert np.max(tpl(np.full(2000, e), P)) <= s + 1e-9
    assert np.max(tpl(np.full(2000, e), P)) > s - 1e-6
    PF = smoothed_matrix(6, 0.5, "shift")
    assert abs(tpl_supremum(e, P, PF) - (supremum(P, e) + supremum(PF, e) - e)) < 1e-12


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "abc"])
def test_bad_epsilon(bad):
    with pytest.raises(InputError, match="epsilon"):
        supremum(np.eye(2), bad)


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(min_n=2, max_n=6))
def test_divergence_threshold_separates_finite_from_infinite(P):
    """Below the threshold every supremum is finite, at and above it infinite."""
    from lmdk_core.leakage import divergence_threshold

    L = LossFunction(P)
    th = divergence_threshold(L)
    if math.isinf(th):
        assert math.isfinite(supremum(L, 30.0))
        return
    assert math.isinf(supremum(L, th * 1.001 + 1e-12))
    if th > 1e-9:
        assert math.isfinite(supremum(L, th * 0.999))


def test_divergence_threshold_examples():
    from lmdk_core.leakage import divergence_threshold

    assert divergence_threshold(np.eye(3)) == 0.0  # disjoint rows: L(α) = α
    assert math.isinf(divergence_threshold(np.full((3, 3), 1 / 3)))  # no correlation
    assert math.isinf(divergence_threshold(smoothed_matrix(4, 0.2)))  # no zero entries
    # row 0 reaches state 1 w.p. 0.5, row 1 never does: diverges for ε >= log 2
    P = np.array([[0.5, 0.5], [1.0, 0.0]])
    assert divergence_threshold(P) == pytest.approx(math.log(2))


def test_subnormal_d_gives_a_huge_finite_supremum():
    """d = 5e-324 (the smallest float) is not zero: the recursion converges to a fixed
    point near ε + log(q/d) instead of diverging, and the supremum says so."""
    P = np.array([[0.5, 0.5], [1.0, 5e-324]])
    L = LossFunction(P)
    sup = supremum(L, 30.0)
    assert math.isfinite(sup) and sup > 700
    assert abs(L.scalar(sup) + 30.0 - sup) < 1e-9 * sup  # a fixed point of a ← L(a) + ε


def test_subnormal_d_gives_the_exact_fixed_point():
    """Found by hypothesis: with d(S) = 2^-1074 the fixed point lies near α = 742, where
    e^-α is subnormal too; L(α) must add them in logs (log D + log1p(e^-α/D)), else the
    recursion and the supremum disagree by ~0.4. Closed form for this vertex (Q = 2/3):
    log(1 + D e^a) = log Q + ε ⇒ a = log(Q e^ε − 1) − log D."""
    P = np.array([[0, 0.5, 0.5, 0], [0, 0.5, 0.5, 0], [0, 2 / 3, 1 / 3, 0],
                  [0, 5e-324, 1.0, 0]])
    L = LossFunction(P)
    eps = 0.5
    sup = supremum(L, eps)
    closed = math.log(2 / 3 * math.exp(eps) - 1) - math.log(5e-324)
    assert sup == pytest.approx(closed, rel=1e-9)
    assert abs(L.scalar(sup) + eps - sup) < 1e-9 * sup
    lim, converged = iterate_to_limit(L, eps)
    assert converged and abs(lim - sup) < 1e-6 * sup
