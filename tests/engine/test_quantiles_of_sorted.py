"""Quantile bins without ``np.quantile`` (:func:`lmdk_core.leakage.estimation.
quantiles_of_sorted` and :func:`~lmdk_core.foundation.sorted_unique.distinct_sorted`, the bins
of the correlation model estimated from the data, Cao et al. ICDE'17): bit for bit
numpy's own ``np.quantile`` (linear method) and ``np.unique`` on many random inputs, and
``discretize_series``' quantile edges as ``np.unique(np.quantile(v, ...))`` gives them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lmdk_core.foundation.sorted_unique import distinct_sorted
from lmdk_core.foundation.validation import check_landmarks
from lmdk_core.leakage.estimation import discretize_series, quantiles_of_sorted

_FINITE = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True,
                    width=64)
#: values with many ties, wide spreads and subnormals; no -0.0 (the callers send rows
#: holding -0.0 to np.quantile itself)
_VALUES = st.one_of(_FINITE, st.sampled_from([0.0, 1.0, -1.0, 1e-310, 1e300, -1e300]))


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda rows: st.integers(1, 40).flatmap(
    lambda n: arrays(np.float64, (rows, n), elements=_VALUES))),
    st.integers(1, 25))
def test_equals_np_quantile_bit_for_bit(X, k):
    X = np.where(X == 0.0, 0.0, X)  # +0.0 only
    S = np.sort(X, axis=1)
    probs = np.linspace(0.0, 1.0, k + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.quantile(S, probs, axis=1)
        got = quantiles_of_sorted(S, probs)
    assert got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, width=64), min_size=1, max_size=30))
def test_distinct_sorted_equals_np_unique(q):
    q = np.where(np.array(q) == 0.0, 0.0, q)
    np.testing.assert_array_equal(_bits(distinct_sorted(q)), _bits(np.unique(q)))


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(2, 60),
              elements=st.floats(-1e6, 1e6, allow_nan=False, width=64)),
       st.integers(1, 12))
def test_discretize_series_edges_are_numpy_quantiles(v, k):
    v = np.where(v == 0.0, 0.0, v)
    got = discretize_series(v, k, "quantile").edges
    if v.min() == v.max():
        return  # a constant series has its own two edges
    want = np.unique(np.quantile(v, np.linspace(0.0, 1.0, k + 1)))
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_known_case():
    """Four sorted values, quartiles by hand: positions 0, .75, 1.5, 2.25, 3."""
    S = np.array([[1.0, 2.0, 4.0, 8.0]])
    got = quantiles_of_sorted(S, np.linspace(0.0, 1.0, 5))[:, 0]
    np.testing.assert_array_equal(got, [1.0, 1.75, 3.0, 5.0, 8.0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=80), st.sampled_from([np.int64, np.int32,
                                                                   np.uint16]))
def test_landmarks_as_np_unique_gives_them(raw, dtype):
    """check_landmarks' distinct sort (no numpy.ma import) is np.unique's array: values
    and dtype, for lists and for unsorted arrays with repeats."""
    arr = np.array(raw, dtype=dtype)
    np.testing.assert_array_equal(distinct_sorted(arr), np.unique(arr))
    assert distinct_sorted(arr).dtype == np.unique(arr).dtype
    got = check_landmarks(raw, 61)
    np.testing.assert_array_equal(got, np.unique(np.array(raw, dtype=int)))
    assert got.dtype == np.unique(np.array(raw, dtype=int)).dtype
