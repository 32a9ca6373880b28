"""Many transition matrices checked at once (:func:`lmdk_core.leakage.correlation.
check_transition_matrices`, the population audit's estimated models) against
:func:`~lmdk_core.leakage.correlation.check_transition_matrix` one by one: the same
arrays bit for bit, or the same first error message, on many random lists (valid
matrices, and ones with a negative, NaN or infinite entry, a row off by more than the
tolerance or within it, a different shape, integers, nested lists)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage.correlation import (
    ROW_SUM_TOLERANCE,
    check_transition_matrices,
    check_transition_matrix,
)


def _matrix(rng: np.random.Generator, n: int, kind: int):
    P = rng.dirichlet(np.full(n, 0.5), n)
    P = P / P.sum(axis=1, keepdims=True)
    r, c = int(rng.integers(0, n)), int(rng.integers(0, n))
    if kind == 1:
        P[r, c] = -1e-3
    elif kind == 2:
        P[r, c] = np.nan
    elif kind == 3:
        P[r, c] = np.inf
    elif kind == 4:
        P[r, c] += 10 * ROW_SUM_TOLERANCE  # a row off by more than the tolerance
    elif kind == 5:
        P[r, c] += 0.5 * ROW_SUM_TOLERANCE  # within it
    elif kind == 6:
        return P.tolist()  # not an ndarray
    elif kind == 7:
        return np.eye(n, dtype=np.int64)  # integers
    elif kind == 8:
        return rng.dirichlet(np.ones(n + 1), n + 1)  # another shape
    elif kind == 9:
        return P.T.copy().T  # a non-contiguous view's values, transposed back
    return P


def _outcome(fn, matrices):
    try:
        return [np.asarray(m).view(np.int64).tolist() for m in fn(matrices)]
    except InputError as exc:
        return str(exc)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(0, 30),
       st.floats(0.0, 1.0))
def test_same_as_one_by_one(seed, n, count, bad_share):
    rng = np.random.default_rng(seed)
    kinds = [int(rng.integers(1, 10)) if rng.random() < bad_share else 0
             for _ in range(count)]
    matrices = [_matrix(rng, n, k) for k in kinds]
    one = _outcome(lambda ms: [check_transition_matrix(m) for m in ms], matrices)
    assert _outcome(check_transition_matrices, matrices) == one


def test_returns_copies():
    P = np.array([[0.5, 0.5], [0.1, 0.9]])
    out = check_transition_matrices([P, P])
    out[0][0, 0] = 0.0
    assert P[0, 0] == 0.5 and out[1][0, 0] == 0.5


def test_first_error_named():
    good = np.array([[0.5, 0.5], [0.1, 0.9]])
    bad = np.array([[0.5, 0.4], [0.1, 0.9]])
    with pytest.raises(InputError, match="row 0 sums to 0.9"):
        check_transition_matrices([good, bad, good])
