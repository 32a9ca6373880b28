"""Loss functions of many matrices built together
(:func:`lmdk_core.leakage.loss.loss_functions`, the population audit's two per user)
against :class:`~lmdk_core.leakage.loss.LossFunction` one matrix at a time (Cao et al.,
ICDE'17): the same hull, crossings and tables, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage.loss import LossFunction, loss_functions

FIELDS = ("vertex_D", "vertex_Q", "breakpoints", "_x_thr", "_log_x_thr", "_wD", "_wQ",
          "_wQmD")


def _matrix(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = rng.choice(["dirichlet", "sparse", "uniform", "identity", "counted"])
    if kind == "uniform":  # L ≡ 0
        return np.full((n, n), 1.0 / n)
    if kind == "identity":
        return np.eye(n)
    if kind == "counted":  # as the estimated model: (c_ij + 1) / (Σ_j c_ij + n)
        c = rng.integers(0, 50, (n, n)).astype(float) + 1.0
        return c / c.sum(axis=1, keepdims=True)
    P = rng.dirichlet(np.full(n, float(rng.choice([0.05, 0.5, 5.0]))), n)
    if kind == "sparse":
        P = P * (rng.random((n, n)) < 0.4)
        P[np.arange(n), rng.integers(0, n, n)] += 1.0
        P /= P.sum(axis=1, keepdims=True)
    return P


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25),
       st.sampled_from([(1, 4), (2, 17), (10, 11), (15, 19)]))
def test_built_together_equal_one_at_a_time_bit_for_bit(seed, count, sizes):
    rng = np.random.default_rng(seed)
    mats = [_matrix(rng, int(rng.integers(*sizes))) for _ in range(count)]
    together = loss_functions(mats)
    for P, got in zip(mats, together, strict=True):
        want = LossFunction(P)
        assert got.n_states == want.n_states and got.is_zero == want.is_zero
        assert got.stats == want.stats
        for f in FIELDS:
            assert getattr(got, f).tobytes() == getattr(want, f).tobytes(), f
        alpha = np.array([0.0, 1e-3, 0.5, 3.0, 40.0])
        assert got(alpha).tobytes() == want(alpha).tobytes()
