"""The pruned maximum of the landmark TPL (:func:`lmdk_core.leakage.tpl.max_landmark_tpl`,
what the population audit reports) against the maximum over every t — the full
computation and the definition."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, landmark_tpl, smoothed_matrix
from lmdk_core.leakage.tpl import max_landmark_tpl
from tests.engine.test_leakage_oracles import BruteLoss, direct_landmark_tpl, stochastic_matrices
from tests.engine.test_leakage_tpl import allocations

TOL = 1e-9


@settings(max_examples=80, deadline=None)
@given(stochastic_matrices(min_n=2, max_n=4), st.integers(0, 10_000), allocations(max_T=14))
def test_max_is_the_maximum_of_the_definition(PB, seed, alloc):
    eps, lm = alloc
    n = PB.shape[0]
    PF = np.random.default_rng(seed).random((n, n)) ** 3
    PF /= PF.sum(axis=1, keepdims=True)
    want = max(direct_landmark_tpl(eps.tolist(), lm, BruteLoss(PB), BruteLoss(PF)))
    assert abs(max_landmark_tpl(eps, lm, PB, PF) - want) <= TOL


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(50, 3000), st.integers(0, 8),
       st.sampled_from(["uniform", "sparse", "adaptive-like"]),
       st.sampled_from([0.01, 0.1, 0.5, 0.99]))
def test_max_equals_the_full_maximum_bit_for_bit(seed, T, n_lm, shape, strength):
    """Long allocations (many pruning batches): the same float as np.max over every t."""
    rng = np.random.default_rng(seed)
    P = smoothed_matrix(6, strength, "shift")
    L = LossFunction(P)
    lm = np.sort(rng.choice(T, min(n_lm, T), replace=False))
    eps = np.full(T, 1.0 / (lm.size + 1))
    if shape == "sparse":
        eps[rng.random(T) < 0.9] = 0.0
    elif shape == "adaptive-like":
        eps *= rng.integers(0, 3, T)
    assert max_landmark_tpl(eps, lm, L) == float(np.max(landmark_tpl(eps, lm, L)))


def test_all_landmarks_and_no_landmarks():
    L = LossFunction(np.array([[0.9, 0.1], [0.2, 0.8]]))
    eps = np.linspace(0.1, 0.5, 9)
    for lm in ([], list(range(9)), [0], [8]):
        assert max_landmark_tpl(eps, lm, L) == float(np.max(landmark_tpl(eps, lm, L)))
