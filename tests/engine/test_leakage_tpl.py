"""BPL / FPL / TPL and landmark TPL against direct implementations of the definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.verifier import landmark_totals
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import (
    LossFunction,
    bpl,
    fpl,
    landmark_tpl,
    restarts,
    segment_bpl,
    segment_fpl,
    smoothed_matrix,
    temporal_leakage,
    tpl,
)
from tests.engine.test_leakage_oracles import (
    BruteLoss,
    direct_landmark_tpl,
    naive_bpl,
    naive_fpl,
    stochastic_matrices,
)

TOL = 1e-9


@st.composite
def allocations(draw, max_T: int = 12):
    T = draw(st.integers(1, max_T))
    eps = draw(st.lists(st.one_of(st.just(0.0), st.floats(0.0, 2.0, allow_nan=False)),
                        min_size=T, max_size=T))
    lm = sorted(set(draw(st.lists(st.integers(0, T - 1), max_size=min(T, 4)))))
    return np.array(eps), lm


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(max_n=4), stochastic_matrices(max_n=4), allocations(max_T=15))
def test_bpl_fpl_tpl_match_the_recursions(PB, PF, alloc):
    eps, _ = alloc
    n = min(PB.shape[0], PF.shape[0])
    PB, PF = _restrict(PB, n), _restrict(PF, n)
    Lb, Lf = BruteLoss(PB), BruteLoss(PF)
    a = naive_bpl(eps.tolist(), Lb)
    f = naive_fpl(eps.tolist(), Lf)
    np.testing.assert_allclose(bpl(eps, PB), a, rtol=0, atol=TOL)
    np.testing.assert_allclose(fpl(eps, PF), f, rtol=0, atol=TOL)
    np.testing.assert_allclose(tpl(eps, PB, PF), np.add(a, f) - eps, rtol=0, atol=TOL)
    res = temporal_leakage(eps, PB, PF)
    np.testing.assert_allclose(res.tpl, np.add(a, f) - eps, rtol=0, atol=TOL)
    assert res.landmark_tpl is None


def _restrict(P: np.ndarray, n: int) -> np.ndarray:
    Q = P[:n, :n].copy()
    Q[Q.sum(axis=1) == 0, 0] = 1.0
    return Q / Q.sum(axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(stochastic_matrices(min_n=2, max_n=4), st.integers(0, 10_000), allocations(max_T=12))
def test_landmark_tpl_matches_the_definition(PB, seed, alloc):
    eps, lm = alloc
    n = PB.shape[0]
    rng = np.random.default_rng(seed)
    PF = rng.random((n, n)) ** 3
    PF /= PF.sum(axis=1, keepdims=True)
    want = direct_landmark_tpl(eps.tolist(), lm, BruteLoss(PB), BruteLoss(PF))
    got = landmark_tpl(eps, lm, PB, PF)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    res = temporal_leakage(eps, PB, PF, landmarks=lm)
    np.testing.assert_allclose(res.landmark_tpl, want, rtol=0, atol=TOL)


@pytest.mark.parametrize("merge_rtol", [-1.0, 0.0, 1e-13])
def test_restarted_recursions_agree_with_definition(merge_rtol, monkeypatch):
    """Restarted recursions run to the end (−1: never stop early), stopped when bitwise
    equal to the segment recursion (0), or within the engine's tolerance."""
    monkeypatch.setattr(restarts, "MERGE_RTOL", merge_rtol)
    rng = np.random.default_rng(11)
    for P in (smoothed_matrix(3, 0.02, "shift"), np.eye(2), rng.dirichlet(np.ones(4), 4),
              np.full((2, 2), 0.5)):
        L = LossFunction(P)
        eps = rng.random(30) * 0.4
        eps[[3, 9]] = 0.0
        for lm in ([], [12], [0, 29], [4, 5, 20]):
            want = direct_landmark_tpl(eps.tolist(), lm, L.scalar, L.scalar)
            np.testing.assert_allclose(landmark_tpl(eps, lm, L), want, rtol=0, atol=TOL)


def test_early_stop_changes_landmark_tpl_by_at_most_its_tolerance(monkeypatch):
    """Long gaps (2,200 and 700 timestamps): stopping a restarted recursion when it meets
    the segment recursion moves the result by no more than ~1e-13 relative."""
    rng = np.random.default_rng(5)
    P = rng.random((20, 20))
    P /= P.sum(axis=1, keepdims=True)
    eps = rng.uniform(0, 0.5, 3000)
    lm = [700, 2900]
    monkeypatch.setattr(restarts, "MERGE_RTOL", -1.0)
    full = landmark_tpl(eps, lm, P)
    monkeypatch.setattr(restarts, "MERGE_RTOL", 1e-13)
    np.testing.assert_allclose(landmark_tpl(eps, lm, P), full, rtol=1e-12, atol=0)


def test_landmark_tpl_larger_series_against_definition():
    rng = np.random.default_rng(3)
    P = rng.random((4, 4)) ** 2
    P /= P.sum(axis=1, keepdims=True)
    L = LossFunction(P)
    eps = rng.random(40) * 0.5
    eps[[5, 17]] = 0.0
    for lm in ([], [0], [39], [3, 4, 5], [7, 20, 33], list(range(0, 40, 3))):
        want = direct_landmark_tpl(eps.tolist(), lm, L.scalar, L.scalar)
        np.testing.assert_allclose(landmark_tpl(eps, lm, L), want, rtol=0, atol=TOL)


@settings(max_examples=60, deadline=None)
@given(allocations(max_T=30), st.integers(1, 6))
def test_without_correlation_landmark_tpl_is_the_theorem_sum(alloc, n):
    eps, lm = alloc
    no_corr = np.tile(np.full(n, 1.0 / n), (n, 1))
    got = landmark_tpl(eps, lm, no_corr)
    np.testing.assert_allclose(got, landmark_totals(eps, lm), rtol=0, atol=1e-12)
    np.testing.assert_allclose(tpl(eps, no_corr), eps, atol=1e-15)


def test_without_landmarks_landmark_tpl_is_tpl_and_all_landmarks_is_constant():
    P = smoothed_matrix(5, 0.05, "random", seed=1)
    eps = np.linspace(0.05, 0.3, 25)
    np.testing.assert_allclose(landmark_tpl(eps, [], P), tpl(eps, P), rtol=0, atol=1e-12)
    full = landmark_tpl(eps, range(25), P)
    assert np.allclose(full, full[0])
    # every timestamp a landmark: each α_i is its own segment: Σ ε_i
    assert abs(full[0] - eps.sum()) < 1e-12


def test_perfect_correlation_adds_up_everything():
    """With L(α) = α, BPL/FPL are running sums and TPL_t = Σ ε."""
    eps = np.array([0.1, 0.0, 0.3, 0.2])
    eye = np.eye(3)
    np.testing.assert_allclose(bpl(eps, eye), np.cumsum(eps))
    np.testing.assert_allclose(fpl(eps, eye), np.cumsum(eps[::-1])[::-1])
    np.testing.assert_allclose(tpl(eps, eye), np.full(4, eps.sum()))
    np.testing.assert_allclose(landmark_tpl(eps, [1, 2], eye), np.full(4, eps.sum()))


def test_segment_recursions_restart_at_landmarks():
    eps = np.array([0.5, 0.5, 0.5, 0.5, 0.5])
    eye = np.eye(2)
    np.testing.assert_allclose(segment_bpl(eps, [1, 3], eye), [0.5, 1.0, 0.5, 1.0, 0.5])
    # at t: FPL from (next landmark > t) − 1 down to t — landmark 1 looks ahead to 3
    np.testing.assert_allclose(segment_fpl(eps, [1, 3], eye), [0.5, 1.0, 0.5, 1.0, 0.5])
    np.testing.assert_allclose(segment_fpl(eps, [0, 2], eye), [1.0, 0.5, 1.5, 1.0, 0.5])


def test_uniform_allocation_under_correlation_exceeds_the_budget():
    """Landmark privacy's guarantee (ε) only holds without correlation."""
    eps = allocate("uniform", 30, [5, 12, 20], 1.0)
    strong = smoothed_matrix(4, 0.01)
    lt = landmark_tpl(eps, [5, 12, 20], strong)
    assert lt.max() > 1.0 + 0.1
    assert np.all(lt >= landmark_totals(eps, [5, 12, 20]) - 1e-12)


def test_bad_inputs():
    eye = np.eye(2)
    with pytest.raises(InputError, match=">= 0"):
        tpl([0.1, -0.2], eye)
    with pytest.raises(InputError, match="at least one"):
        bpl([], eye)
    with pytest.raises(InputError, match="outside the series"):
        landmark_tpl([0.1, 0.2], [5], eye)
    with pytest.raises(InputError, match="same states"):
        tpl([0.1], eye, np.eye(3))
    with pytest.raises(InputError, match="backward matrix"):
        tpl([0.1], [[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(InputError, match="finite"):
        fpl([0.1, float("nan")], eye)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1),
       st.sampled_from(["dense", "smoothed_strong", "smoothed_weak", "eye", "shift"]),
       st.integers(0, 8))
def test_fast_landmark_tpl_matches_the_restarted_recursions(T, seed, model, n_lm):
    """The vectorised path (restarted runs stopped where they meet the segment run)
    against the definition — recursions restarted between members of L ∪ {t} — on
    random series of up to 60 timestamps, weak to perfect correlation, zeros in ε."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    if model == "dense":
        P = rng.random((n, n)) ** 2
        P /= P.sum(axis=1, keepdims=True)
    elif model == "eye":
        P = np.eye(n)
    elif model == "shift":
        P = smoothed_matrix(n, 0.001, "shift")
    else:
        P = smoothed_matrix(n, 0.01 if model == "smoothed_strong" else 1.0, "random",
                            seed=int(rng.integers(1000)))
    L = LossFunction(P)
    eps = rng.uniform(0, 1.0, T) * (rng.random(T) > 0.2)
    lm = sorted(set(rng.integers(0, T, n_lm).tolist()))
    want = direct_landmark_tpl(eps.tolist(), lm, L.scalar, L.scalar)
    np.testing.assert_allclose(landmark_tpl(eps, lm, L), want, rtol=1e-12, atol=TOL)
