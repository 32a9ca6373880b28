"""The declared bound k on landmark events (issue 35 item 2; docs/privacy-model.md):
Uniform and Adaptive's start spend ε/(k+1) whatever |L| ≤ k is, more than k landmark
events are refused, and the one verifier told k judges |L| > k not private."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import allocate, check_max_landmarks
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.engine.verifier import landmark_event_count, verify
from lmdk_core.foundation.errors import InputError


@settings(max_examples=200, deadline=None)
@given(T=st.integers(1, 60), k=st.integers(0, 70), eps=st.floats(0.01, 10),
       data=st.data())
def test_uniform_is_eps_over_k_plus_1_and_passes_the_verifier(T, k, eps, data):
    n = data.draw(st.integers(0, min(k, T)))
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), min_size=n, max_size=n)))
    for scheme in ("uniform", "adaptive"):
        a = allocate(scheme, T, lm, eps, max_landmarks=k)
        assert np.all(a == eps / (k + 1))  # the same whatever L is
        assert verify(a, lm, eps, max_landmarks=k).private
    skip = allocate("skip", T, lm, eps, max_landmarks=k)
    assert verify(skip, lm, eps, max_landmarks=k).private


def test_more_landmarks_than_k_are_refused_and_not_private():
    with pytest.raises(InputError, match="3 landmark events are more than the declared "
                                         "bound k = 2"):
        allocate("skip", 10, [1, 2, 3], 1.0, max_landmarks=2)
    with pytest.raises(InputError, match="must be a whole number"):
        check_max_landmarks(-1)
    v = verify(np.full(10, 0.1), [1, 2, 3], 1.0, max_landmarks=2)
    assert not v.private and v.exceeds_bound
    assert "3 landmark events are more than the declared bound k = 2" in v.summary()
    assert verify(np.full(10, 0.1), [1, 2, 3], 1.0, max_landmarks=3).private


def test_a_stay_counts_as_one_landmark_event():
    assert landmark_event_count(np.array([2, 3, 4, 8]), ((2, 4),)) == 2
    assert landmark_event_count(np.array([0, 9]), ((2, 4), (6, 7))) == 2
    lat = 48.85 + np.arange(20) * 1e-4
    lon = 2.35 + np.zeros(20)
    rel = release_trajectory(lat, lon, [15], epsilon=1.0, radius=100.0, scheme="uniform", seed=1,
                             stays=[(2, 8)], max_landmarks=2)
    assert rel.verdict.private and rel.max_landmarks == 2
    assert np.allclose(rel.epsilon_t[rel.epsilon_t > 0], 1.0 / 3)
    with pytest.raises(InputError, match="2 landmark events are more than"):
        release_trajectory(lat, lon, [15], epsilon=1.0, radius=100.0, scheme="uniform", seed=1,
                           stays=[(2, 8)], max_landmarks=1)


def test_the_release_noise_does_not_depend_on_the_landmarks_marked():
    x = np.linspace(0, 5, 100)
    a = release_series(x, [3, 50], epsilon=1.0, scheme="uniform", sensitivity=2.0, seed=9,
                       max_landmarks=5)
    b = release_series(x, [1, 2, 3, 4, 5], epsilon=1.0, scheme="uniform", sensitivity=2.0, seed=9,
                       max_landmarks=5)
    np.testing.assert_array_equal(a.released, b.released)
    assert a.max_landmarks == b.max_landmarks == 5
