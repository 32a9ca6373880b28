"""A static scheme's allocation in compact form (one share, zeros at a set Z) against its
array: the plan is the same floats as :func:`allocate`, and the verifier's check of the
compact form gives the array check's verdict — every field, the totals bit for bit, the
same refusals — on random allocations, landmark sets, budgets and shared budgets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import SCHEMES, allocate, planned_shares
from lmdk_core.engine.share_allocation import ShareAllocation
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError

#: shares that make the verdict's boundary cases: thirds, tiny shares absorbed by the
#: landmark sum, zero, huge ones
shares = st.one_of(st.sampled_from([0.0, 1 / 3, 0.5, 1.0, 1e-300, 5e-324, 1e300]),
                   st.floats(0.0, 10.0), st.floats(1e-20, 1e-10))


@st.composite
def allocations(draw):
    T = draw(st.integers(1, 40))
    zero_at = np.array(sorted(draw(st.sets(st.integers(0, T - 1)))), dtype=np.intp)
    lm = sorted(draw(st.sets(st.integers(0, T - 1))))
    if draw(st.booleans()) and zero_at.size:  # Skip: Z = L
        lm = zero_at.tolist()
    return ShareAllocation(T, draw(shares), zero_at), lm


def _fields(v):
    return (v.private, v.worst_timestamp, v.worst_total, v.epsilon, v.landmarks.tolist(),
            v.tolerance, v.groups, v.shared, v.max_landmarks, v.landmark_events)


@settings(max_examples=600, deadline=None)
@given(alloc=allocations(), data=st.data())
def test_the_compact_check_is_the_array_check(alloc, data):
    a, lm = alloc
    arr = a.array()
    n = max(len(lm), 1)
    # totals near the boundary: ε just below, at and above the largest total
    eps = data.draw(st.one_of(st.floats(1e-300, 100.0),
                              st.sampled_from([a.share * n, a.share * (n + 1),
                                               np.nextafter(a.share * (n + 1), 0)]))
                    .filter(lambda e: e >= 1e-300 and np.isfinite(e)))
    shared = data.draw(st.sampled_from([0.0, 0.0, 0.1, 1e-17]))
    k = data.draw(st.sampled_from([None, len(lm), max(len(lm) - 1, 0)]))
    want = verify(arr, lm, eps, shared=shared, max_landmarks=k)
    got = verify(a, lm, eps, shared=shared, max_landmarks=k)
    assert _fields(got) == _fields(want)
    np.testing.assert_array_equal(got.totals, want.totals)
    assert got.summary() == want.summary()
    # with groups the compact form is checked as its array (the grouped form)
    if a.length > 1:
        g = [(0, 1)]
        np.testing.assert_array_equal(verify(a, lm, eps, groups=g).totals,
                                      verify(arr, lm, eps, groups=g).totals)


@pytest.mark.parametrize("share", [float("nan"), float("inf"), -0.5])
def test_a_bad_share_is_refused_as_its_array_is(share):
    a = ShareAllocation(6, share, np.array([1, 4]))
    with pytest.raises(InputError) as want:
        verify(a.array(), [1], 1.0)
    with pytest.raises(InputError) as got:
        verify(a, [1], 1.0)
    assert str(got.value) == str(want.value)


def test_an_empty_or_unsorted_compact_allocation_is_refused():
    with pytest.raises(InputError, match="at least one"):
        verify(ShareAllocation(0, 1.0, np.zeros(0, dtype=int)), [], 1.0)
    with pytest.raises(InputError, match="sorted, unique"):
        verify(ShareAllocation(5, 1.0, np.array([3, 1])), [], 1.0)


@settings(max_examples=200, deadline=None)
@given(scheme=st.sampled_from(sorted(SCHEMES)), T=st.integers(1, 30), data=st.data(),
       eps=st.floats(1e-3, 10.0))
def test_allocate_is_the_compact_plan_as_an_array(scheme, T, data, eps):
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1))))
    k = data.draw(st.sampled_from([None, len(lm), len(lm) + 3]))
    kw = {"window": 3, "max_landmarks": k}
    plan = planned_shares(scheme, T, lm, eps, **kw)
    np.testing.assert_array_equal(allocate(scheme, T, lm, eps, **kw), plan.array())
    assert plan.first_fresh == int(np.argmax(plan.fresh())) if plan.fresh().any() \
        else plan.first_fresh == T
