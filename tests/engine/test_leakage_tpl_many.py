"""The population audit's landmark TPL of many users at once
(:func:`lmdk_core.leakage.tpl_many.max_landmark_tpls`) against the one-user function it
batches (:func:`lmdk_core.leakage.tpl.max_landmark_tpl`): the same float, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, smoothed_matrix
from lmdk_core.leakage.tpl import max_landmark_tpl
from lmdk_core.leakage.tpl_many import max_landmark_tpls


def _problem(rng: np.random.Generator, max_T: int):
    n = int(rng.integers(2, 8))
    P = rng.random((n, n)) ** 3
    P /= P.sum(axis=1, keepdims=True)
    lb = LossFunction(P)
    lf = lb if rng.random() < 0.5 else LossFunction(P[rng.permutation(n)])
    T = int(rng.integers(1, max_T))
    lm = np.sort(rng.choice(T, min(T, int(rng.integers(0, 9))), replace=False))
    eps = np.full(T, float(rng.choice([0.01, 0.2, 1.0, 5.0])) / (lm.size + 1))
    eps *= rng.integers(0, 3, T)  # Adaptive-like: skipped (0) and doubled budgets
    return eps, lm, lb, lf


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([30, 400, 3000]))
def test_many_users_equal_one_user_at_a_time_bit_for_bit(seed, users, max_T):
    rng = np.random.default_rng(seed)
    problems = [_problem(rng, max_T) for _ in range(users)]
    got = max_landmark_tpls(problems)
    want = np.array([max_landmark_tpl(*p) for p in problems])
    assert got.tobytes() == want.tobytes()


def test_shared_loss_zero_loss_and_the_log_branch_fall_back_exactly():
    """A loss function shared by users, an independent model (L = 0, the fallback) and
    budgets large enough for the recursion's log branch (α > 650, the fallback)."""
    L = LossFunction(smoothed_matrix(4, 0.1))
    Z = LossFunction(np.full((3, 3), 1 / 3))
    E = LossFunction(np.eye(3))
    rng = np.random.default_rng(7)
    problems = [(rng.random(500), [3, 200], L, L), (rng.random(50), [], L, L),
                (rng.random(80), [10], Z, Z), (np.full(400, 3.0), [5], E, E),
                (rng.random(60), list(range(60)), L, L), (np.zeros(20), [4], L, L)]
    got = max_landmark_tpls(problems)
    want = np.array([max_landmark_tpl(*p) for p in problems])
    assert got.tobytes() == want.tobytes()
    assert max_landmark_tpls([]).size == 0
