""":func:`lmdk_core.leakage.hull.upper_hull`'s compiled loop (:func:`_chain`, used once
numba is loaded) against its Python loop: the same vertices, bit for bit, on random,
collinear and nearly collinear point sets and on the hulls of real loss functions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from lmdk_core.leakage import hull  # noqa: E402


def _both(D, Q):
    saved = hull.COMPILED_MIN_POINTS
    try:
        hull.COMPILED_MIN_POINTS = 10**9  # the Python loop
        want = hull.upper_hull(D, Q)
        hull.COMPILED_MIN_POINTS = 0  # the compiled loop
        assert hull._chain_kernel() is not None
        got = hull.upper_hull(D, Q)
    finally:
        hull.COMPILED_MIN_POINTS = saved
    return want, got


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 600),
       st.sampled_from(["random", "collinear", "nearly", "chains"]))
def test_compiled_chain_equals_the_python_loop(seed, n, shape):
    import numba  # noqa: F401  (loaded, as in a batch)

    rng = np.random.default_rng(seed)
    D = rng.random(n)
    if shape == "random":
        Q = rng.random(n)
    elif shape == "collinear":
        Q = 0.3 + 0.7 * D
    elif shape == "nearly":
        Q = (0.3 + 0.7 * D) * (1 + rng.integers(-2, 3, n) * 2.0**-52)
    else:  # prefix sums like the loss function's chains (Cao et al., ICDE'17, Thm 4)
        D = np.cumsum(rng.dirichlet(np.ones(n)))
        Q = np.minimum(np.cumsum(rng.dirichlet(np.ones(n) * 0.3)), 1.0)
    (wd, wq), (gd, gq) = _both(D, Q)
    assert wd.tobytes() == gd.tobytes() and wq.tobytes() == gq.tobytes()
