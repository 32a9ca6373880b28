"""The compiled BPL/FPL recursion (numba) against the Python reference loop, bit for bit.

The recursion ``a_t = L(a_{t-1}) + ε_t`` (Cao et al. ICDE'17) runs compiled for long
allocations; it must give exactly the doubles of :meth:`LossFunction.scalar` step by
step, including restarts at landmarks and the hand-over to the Python loop once α
exceeds 700 (where the loss function switches to logarithms).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, recursion, smoothed_matrix
from lmdk_core.leakage.recursion import recurse, run_python
from lmdk_core.leakage.tpl import landmark_tpl, tpl


def test_numba_is_there():
    """numba is a dependency: without it the compiled path would silently not be tested."""
    assert recursion.steps_kernel() is not None


def reference(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None) -> np.ndarray:
    return run_python(eps, loss, restart, np.empty(eps.size), 0)


@st.composite
def cases(draw):
    n = draw(st.integers(2, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["dirichlet", "smoothed", "sparse", "identity-ish"]))
    if kind == "dirichlet":
        P = rng.dirichlet(np.full(n, draw(st.sampled_from([0.05, 0.5, 5.0]))), n)
    elif kind == "smoothed":
        P = smoothed_matrix(n, draw(st.sampled_from([0.001, 0.05, 0.5])), "random",
                            seed=seed % 1000)
    elif kind == "sparse":
        P = rng.dirichlet(np.ones(n), n) * (rng.random((n, n)) < 0.4)
        P[np.arange(n), rng.integers(0, n, n)] += 1.0
        P /= P.sum(axis=1, keepdims=True)
    else:
        P = 0.999 * np.eye(n) + 0.001 / n
        P /= P.sum(axis=1, keepdims=True)
    T = draw(st.integers(1, 3000))
    scale = draw(st.sampled_from([1e-4, 0.01, 0.3, 5.0, 100.0]))
    eps = rng.exponential(scale, T) * (rng.random(T) < draw(st.sampled_from([0.3, 1.0])))
    restart = rng.random(T) < draw(st.sampled_from([0.0, 0.002, 0.1]))
    return P, eps, restart


def compiled(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None) -> np.ndarray:
    """:func:`recurse` with the compiled loop at every length."""
    old = recursion.COMPILED_MIN_LENGTH
    recursion.COMPILED_MIN_LENGTH = 1
    try:
        return recurse(eps, loss, restart)
    finally:
        recursion.COMPILED_MIN_LENGTH = old


@settings(max_examples=120, deadline=None)
@given(cases(), st.booleans())
def test_compiled_recursion_equals_the_python_loop_bit_for_bit(case, with_restart):
    P, eps, restart = case
    loss = LossFunction(P)
    got = compiled(eps, loss, restart if with_restart else None)
    want = reference(eps, loss, restart if with_restart else None)
    assert np.array_equal(got, want)


def test_hand_over_to_the_python_loop_above_700():
    """Budgets that push α past 700 (the loss function's log branch) mid-run: perfect
    correlation (the identity matrix, ``L(α) = α``) adds every budget up."""
    loss = LossFunction(np.eye(3))
    eps = np.concatenate([np.full(50, 0.1), np.full(10, 100.0), np.full(3000, 0.5)])
    restart = np.zeros(eps.size, dtype=bool)
    restart[[20, 1500]] = True
    for r in (None, restart):
        got = compiled(eps, loss, r)
        assert got.max() > 700.0
        assert np.array_equal(got, reference(eps, loss, r))


def test_long_leakage_is_the_same_compiled_or_not(monkeypatch):
    """TPL and landmark TPL of a 20,000-step allocation: compiled path = reference."""
    rng = np.random.default_rng(3)
    loss = LossFunction(smoothed_matrix(10, 0.1))
    eps = rng.uniform(0.0, 0.2, 20_000)
    lm = np.sort(rng.choice(eps.size, 40, replace=False))
    fast = (tpl(eps, loss), landmark_tpl(eps, lm, loss))
    monkeypatch.setattr(recursion, "COMPILED_MIN_LENGTH", 10**12)
    slow = (tpl(eps, loss), landmark_tpl(eps, lm, loss))
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
