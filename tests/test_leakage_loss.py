"""The loss function L_P(α): exact against brute force and the LP, pruning is lossless."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, smoothed_matrix
from lmdk_core.leakage import loss as loss_module
from lmdk_core.leakage.loss import upper_hull
from lmdk_core.validation import InputError
from tests.test_leakage_oracles import ALPHAS, brute_loss, lp_loss, stochastic_matrices

TOL = 1e-9


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(max_n=7), st.booleans())
def test_loss_equals_brute_force(P, prune):
    L = LossFunction(P, prune=prune)
    want = np.array([brute_loss(P, a) for a in ALPHAS])
    np.testing.assert_allclose(L(np.array(ALPHAS)), want, rtol=0, atol=TOL)
    np.testing.assert_allclose([L.scalar(a) for a in ALPHAS], want, rtol=0, atol=TOL)
    np.testing.assert_allclose(L.evaluate_max(ALPHAS), want, rtol=0, atol=TOL)


@settings(max_examples=25, deadline=None)
@given(stochastic_matrices(max_n=5, min_positive=1e-4), st.sampled_from([0.03, 0.7, 4.0]))
def test_loss_equals_linear_program(P, a):
    assert abs(LossFunction(P)(a) - lp_loss(P, a)) < TOL


@pytest.mark.parametrize("seed", range(4))
def test_loss_equals_brute_force_n10(seed):
    rng = np.random.default_rng(seed)
    P = rng.random((10, 10)) ** (1 + 3 * seed)
    P[rng.random((10, 10)) < 0.2 * seed] = 0.0
    P[:, seed] += 1e-3
    P /= P.sum(axis=1, keepdims=True)
    L = LossFunction(P, prune=bool(seed % 2))
    for a in [0.01, 0.3, 1.0, 6.0]:
        assert abs(L(a) - brute_loss(P, a)) < TOL


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 9), st.floats(0.0, 30.0))
def test_identical_rows_leak_nothing_and_disjoint_rows_leak_everything(n, a):
    row = np.random.default_rng(n).random(n)
    row /= row.sum()
    same = LossFunction(np.tile(row, (n, 1)))
    assert same.is_zero and same(a) == 0.0
    ident = LossFunction(np.eye(n))
    assert abs(ident(a) - a) < 1e-12
    assert abs(LossFunction(smoothed_matrix(n, 0.0, "shift"))(a) - a) < 1e-12


def test_single_state_and_zero_alpha():
    assert LossFunction([[1.0]])(3.0) == 0.0
    L = LossFunction([[0.7, 0.3], [0.1, 0.9]])
    assert L(0.0) == 0.0
    assert L.scalar(0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(max_n=6))
def test_loss_is_monotone_and_below_alpha(P):
    L = LossFunction(P)
    a = np.linspace(0, 20, 401)
    v = L(a)
    assert np.all(np.diff(v) >= -1e-12)
    assert np.all(v <= a + 1e-12) and np.all(v >= 0)


def test_huge_alpha_stays_finite_and_exact():
    P = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [0.0, 0.2, 0.8]])
    L = LossFunction(P)
    # q = row 2, d = row 0: mass 0.8 of q where d = 0 (the best D = 0 vertex), so
    # L(α) = log(0.8(e^α−1)+1) = α + log 0.8 to double precision at these α
    assert abs(LossFunction(P)(30.0) - math.log(0.8 * math.expm1(30.0) + 1)) < 1e-12
    for a in [650.0, 700.5, 800.0, 5000.0]:
        want = a + math.log(0.8)
        assert abs(L(a) - want) < 1e-9
        assert abs(L.scalar(a) - want) < 1e-9
    Q = np.array([[0.6, 0.4], [0.3, 0.7]])  # no zeros: L(α) → log(max ratio) = log 2
    assert abs(LossFunction(Q)(900.0) - math.log(2.0)) < 1e-12


FAMILIES = ["uniform", "dirichlet", "zeros", "band", "smoothed", "powered", "duprows",
            "lowrank"]


def _family(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "uniform":
        P = rng.random((n, n))
    elif kind == "dirichlet":
        P = rng.dirichlet(np.full(n, 0.05), size=n)
    elif kind == "zeros":
        P = rng.random((n, n))
        P[rng.random((n, n)) < 0.7] = 0.0
        P[np.arange(n), rng.integers(0, n, n)] += 0.1
    elif kind == "band":
        P = np.zeros((n, n))
        for i in range(n):
            for d in (-2, -1, 0, 1, 2):
                P[i, (i + d) % n] = rng.random() + 0.01
    elif kind == "smoothed":
        return smoothed_matrix(n, 10 ** rng.uniform(-4, 1), "random", seed=int(rng.integers(99)))
    elif kind == "powered":
        P = rng.random((n, n)) ** 8
    elif kind == "duprows":
        P = rng.random((4, n))[rng.integers(0, 4, n)]
    else:
        P = rng.random((n, 3)) @ rng.random((3, n))
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("kind", FAMILIES)
def test_pruning_is_lossless(kind, threads, monkeypatch):
    """The pruned build (no sorting of dominated pairs) equals the all-pairs build."""
    if threads:  # the two-thread path normally starts at 256 states
        monkeypatch.setattr(loss_module, "_THREADS_N", 0)
    rng = np.random.default_rng(FAMILIES.index(kind))
    P = _family(kind, 70, rng)
    fast = LossFunction(P, prune=True)
    full = LossFunction(P, prune=False)
    assert fast.stats.pairs_sorted < full.stats.pairs_sorted
    a = np.r_[0.0, np.geomspace(1e-8, 600, 200), 750.0]
    np.testing.assert_allclose(fast(a), full(a), rtol=0, atol=1e-11)


def test_small_memory_budget_gives_the_same_function():
    rng = np.random.default_rng(7)
    P = _family("uniform", 60, rng)
    a = np.geomspace(1e-4, 50, 50)
    ref = LossFunction(P)(a)
    np.testing.assert_allclose(LossFunction(P, memory_elements=500)(a), ref, atol=1e-12)
    np.testing.assert_allclose(LossFunction(P, prune=False, memory_elements=100)(a), ref,
                               atol=1e-12)


def test_upper_hull_drops_inner_and_collinear_points():
    D = np.array([0.0, 0.5, 1.0, 0.25, 0.5, 0.75])
    Q = np.array([0.0, 1.0, 1.0, 0.5, 0.2, 1.0])
    hd, hq = upper_hull(D, Q)
    np.testing.assert_array_equal(hd, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(hq, [0.0, 1.0, 1.0])


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "x", [0.1, -1.0]])
def test_bad_alpha(bad):
    with pytest.raises(InputError, match="α"):
        LossFunction(np.eye(2))(bad)


def test_bad_matrix_is_rejected_at_construction():
    with pytest.raises(InputError, match="row 1 sums to 0.9"):
        LossFunction([[1.0, 0.0], [0.5, 0.4]])


def _brute_loss_logs(P: np.ndarray, alpha: float) -> float:
    """Brute force over row pairs and subsets, in logs (valid for any α > 0):
    log(q x + 1) = logaddexp(log q + log x, 0) with log x = log(e^α − 1)."""
    import itertools

    n = P.shape[0]
    log_x = alpha + math.log(-math.expm1(-alpha))
    M = np.array(list(itertools.product([0.0, 1.0], repeat=n)))
    best = 0.0
    with np.errstate(divide="ignore"):
        for i in range(n):
            for k in range(n):
                if i != k:
                    q, d = M @ P[i], M @ P[k]
                    v = np.logaddexp(np.log(q) + log_x, 0.0) - np.logaddexp(np.log(d) + log_x,
                                                                            0.0)
                    best = max(best, float(np.max(v)))
    return best


@pytest.mark.parametrize("tiny", [5e-324, 2.2e-313, 1e-300, 1e-200])
def test_huge_alpha_with_subnormal_probabilities(tiny):
    """Around and beyond α ≈ 709 (where e^α overflows) the vertex must still be chosen
    right: a crossing of two hull vertices beyond the largest float is not at infinity
    (regression: a d(S) near the smallest float once made L jump down at α = 709)."""
    P = np.array([[0, 0, 0, 0.5, 0.5], [0, 0, 0, 0.5, 0.5], [0, 0, 0, 0.5, 0.5],
                  [0, 0, 0, 1 - tiny, tiny], [0, 0, 1 / 3, 1 / 3, 1 / 3]])
    L = LossFunction(P)
    for a in [600.0, 700.5, 708.9, 709.5, 710.0, 720.0, 750.0, 800.0, 2000.0]:
        want = _brute_loss_logs(P, a)
        assert L.scalar(a) == pytest.approx(want, rel=1e-12, abs=1e-9), a
        assert float(L(np.array([a]))[0]) == pytest.approx(want, rel=1e-12, abs=1e-9), a
