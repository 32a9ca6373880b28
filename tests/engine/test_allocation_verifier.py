"""Schemes and the one landmark-privacy verifier (property tests with hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import SCHEMES, allocate, literal_uniform_reading, scheme_info
from lmdk_core.engine.verifier import tolerance, verify
from lmdk_core.foundation.errors import InputError


@st.composite
def instances(draw, min_landmarks=0):
    T = draw(st.integers(max(1, min_landmarks), 60))
    k = draw(st.integers(min(min_landmarks, T), T))
    lm = sorted(draw(st.permutations(range(T)))[:k])
    eps = draw(st.floats(0.01, 20, allow_nan=False))
    w = draw(st.integers(1, T))
    return T, lm, eps, w


def brute_totals(eps_t, lm):
    """Σ_{i∈L∪{t}} ε_i straight from the definition."""
    return np.array([sum(eps_t[i] for i in set(lm) | {t}) for t in range(len(eps_t))])


@settings(max_examples=200, deadline=None)
@given(instances())
def test_every_scheme_but_event_is_landmark_private(inst):
    T, lm, eps, w = inst
    # ε/w per timestamp is landmark-private when w >= |L|+1 (the next test shows "only")
    w = max(w, len(lm) + 1)
    for key in ("user", "w-event", "uniform", "skip"):
        alloc = allocate(key, T, lm, eps, window=w)
        v = verify(alloc, lm, eps)
        assert v.private, (key, T, lm, eps, v.summary())
        np.testing.assert_allclose(v.totals, brute_totals(alloc, lm), rtol=1e-12)
        np.testing.assert_allclose(v.slack, eps - v.totals)


@settings(max_examples=150, deadline=None)
@given(instances())
def test_w_event_is_private_exactly_when_w_exceeds_landmarks(inst):
    T, lm, eps, w = inst
    v = verify(allocate("w-event", T, lm, eps, window=w), lm, eps)
    # total = (|L| + [t regular]) ε/w; worst over t
    worst = (len(lm) + (1 if len(lm) < T else 0)) / w
    assert v.private == (worst <= 1 + 1e-9)


@settings(max_examples=150, deadline=None)
@given(instances(min_landmarks=2))
def test_event_level_fails_with_two_landmarks(inst):
    T, lm, eps, _ = inst
    v = verify(allocate("event", T, lm, eps), lm, eps)
    assert not v.private
    assert v.worst_total >= 2 * eps - 1e-9


@settings(max_examples=100, deadline=None)
@given(instances(min_landmarks=1))
def test_event_level_fails_with_one_landmark_and_a_regular_timestamp(inst):
    T, lm, eps, _ = inst
    v = verify(allocate("event", T, lm, eps), lm, eps)
    assert v.private == (len(lm) == T == 1)


@settings(max_examples=150, deadline=None)
@given(instances(min_landmarks=1))
def test_literal_uniform_reading_fails_at_a_regular_timestamp(inst):
    T, lm, eps, _ = inst
    if len(lm) == T:
        return  # no regular timestamp to break
    alloc = literal_uniform_reading(T, lm, eps)
    v = verify(alloc, lm, eps)
    assert not v.private
    assert v.worst_timestamp not in lm
    assert v.worst_total == pytest.approx(eps + eps / (len(lm) + 1))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.data())
def test_verifier_agrees_with_brute_force_on_random_allocations(T, data):
    eps_t = np.array(data.draw(st.lists(st.floats(0, 2), min_size=T, max_size=T)))
    lm = data.draw(st.sets(st.integers(0, T - 1)))
    eps = data.draw(st.floats(0.1, 5))
    v = verify(eps_t, lm, eps)
    tot = brute_totals(eps_t, lm)
    assert v.private == bool(np.all(tot <= eps + tolerance(eps, len(lm) + 1)))
    assert v.worst_total == pytest.approx(tot.max())
    assert tot[v.worst_timestamp] == pytest.approx(tot.max())


def test_uniform_example_from_the_issue():
    alloc = allocate("uniform", 10, [2, 5], 1.0)
    np.testing.assert_allclose(alloc, 1 / 3)
    v = verify(alloc, [2, 5], 1.0)
    assert v.private and v.worst_total == pytest.approx(1.0)


def test_uniform_all_landmarks_gets_eps_over_L():
    alloc = allocate("uniform", 4, [0, 1, 2, 3], 2.0)
    np.testing.assert_allclose(alloc, 0.5)
    assert verify(alloc, [0, 1, 2, 3], 2.0).private


def test_skip_and_user_values():
    np.testing.assert_allclose(allocate("skip", 5, [1, 3], 2.0), [2, 0, 2, 0, 2])
    np.testing.assert_allclose(allocate("user", 4, [], 2.0), 0.5)


def test_verdict_reports_worst_timestamp_and_violations():
    v = verify([0.5, 0.5, 0.9, 0.1], [0, 1], 1.0)
    assert not v.private
    assert v.worst_timestamp == 2 and v.worst_total == pytest.approx(1.9)
    assert list(v.violations) == [2, 3]  # totals 1.0, 1.0, 1.9, 1.1
    assert "NOT landmark-private" in v.summary()


@pytest.mark.parametrize(
    "args, msg",
    [
        (("uniform", 0, [], 1.0), "length"),
        (("uniform", 5, [5], 1.0), "outside"),
        (("uniform", 5, [-1], 1.0), "outside"),
        (("uniform", 5, [], 0.0), "epsilon"),
        (("uniform", 5, [], -2.0), "epsilon"),
        (("w-event", 5, [], 1.0), "window"),
        (("nope", 5, [], 1.0), "unknown scheme"),
    ],
)
def test_bad_allocation_input(args, msg):
    with pytest.raises(InputError, match=msg):
        allocate(*args)


@pytest.mark.parametrize(
    "alloc, msg",
    [([], "at least one"), ([0.1, -0.1], ">= 0"), ([0.1, float("nan")], "finite")],
)
def test_bad_verifier_input(alloc, msg):
    with pytest.raises(InputError, match=msg):
        verify(alloc, [], 1.0)


def test_every_scheme_has_a_description():
    for key, s in SCHEMES.items():
        assert scheme_info(key) is s and s.description
    assert scheme_info("Event-Level").key == "event"


def test_small_exhaustive_check_of_the_theorem_quantity():
    # every landmark set of T=5 under Uniform: the total is exactly ε at regular t
    for k in range(6):
        for lm in itertools.combinations(range(5), k):
            v = verify(allocate("uniform", 5, lm, 1.0), lm, 1.0)
            assert v.private and v.worst_total == pytest.approx(1.0)


@given(T=st.integers(1, 60), data=st.data(), share=st.floats(1e-3, 10))
def test_uniform_total_for_share_gives_that_share_everywhere(T, data, share):
    from lmdk_core.engine.allocation import uniform_total_for_share

    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T)))
    total = uniform_total_for_share(share, T, len(lm))
    eps_t = allocate("uniform", T, lm, total)
    np.testing.assert_allclose(eps_t, share, rtol=1e-12)
    assert verify(eps_t, lm, total).private
