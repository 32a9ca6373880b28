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


LISTS = ("_thr_list", "_log_thr_list", "_wD_list", "_wQ_list")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25),
       st.sampled_from([(2, 4), (2, 17), (10, 11), (15, 17)]))
def test_hulls_compiled_together_equal_one_at_a_time(seed, count, sizes):
    """With numba loaded (a population batch), every hull of a group is built in one
    compiled call (:func:`lmdk_core.leakage.hull.hulls_many`) and the crossings of all
    of them in one numpy call: the same tables bit for bit as one LossFunction each."""
    import numba  # noqa: F401  (loaded, as in a batch)

    from lmdk_core.leakage.hull import chain_points_many, hulls_many

    rng = np.random.default_rng(seed)
    mats = [_matrix(rng, int(rng.integers(*sizes))) for _ in range(count)]
    n0 = mats[0].shape[0]
    same = [P for P in mats if P.shape[0] == n0]
    assert hulls_many(chain_points_many(same)) is not None  # the compiled path runs
    for P, got in zip(mats, loss_functions(mats), strict=True):
        want = LossFunction(P, prune=False)
        assert got.stats == want.stats and got.is_zero == want.is_zero
        for f in FIELDS:
            assert getattr(got, f).tobytes() == getattr(want, f).tobytes(), f
        for f in LISTS:
            assert getattr(got, f) == getattr(want, f), f


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12),
       st.sampled_from(["random", "collinear", "nearly", "below", "ties", "dupes",
                        "empty"]))
def test_hulls_many_equals_hull_add(seed, count, shape):
    """:func:`~lmdk_core.leakage.hull.hulls_many` against ``Hull().add`` of each point
    set, on point sets a matrix would not give: collinear and nearly collinear points,
    every point under the empty hull, repeated D values and repeated points, empty
    sets."""
    import numba  # noqa: F401

    from lmdk_core.leakage.hull import Hull, HullPoints, hulls_many

    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        m = int(rng.integers(0, 90))
        D = rng.random(m) * 2
        if shape == "random":
            Q = rng.random(m) * 2
        elif shape == "collinear":
            Q = 0.1 + 1.5 * D
        elif shape == "nearly":
            Q = (0.1 + 1.5 * D) * (1 + rng.integers(-2, 3, m) * 2.0**-52)
        elif shape == "below":
            Q = D * rng.random(m)
        elif shape == "ties":  # one D, several Q
            D = np.round(D, 1)
            Q = rng.random(m) * 2
        elif shape == "dupes":  # the same point several times
            D = np.round(D, 1)
            Q = np.round(rng.random(m) * 2, 1)
        else:
            D, Q = D[:0], D[:0]
        sets.append(HullPoints(D, Q))
    got = hulls_many(sets)
    assert got is not None
    for (D, Q), (gd, gq) in zip(sets, got, strict=True):
        h = Hull()
        h.add(D, Q)
        assert gd.tobytes() == h.D.tobytes() and gq.tobytes() == h.Q.tobytes()
