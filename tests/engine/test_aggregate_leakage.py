"""Temporal leakage of an aggregate release under a declared matrix
(lmdk_core/aggregate/temporal_leakage.py): the bound stated for each user's own
landmarks holds for every landmark set of at most k windows; with public landmarks it is
the exact largest landmark TPL; the header carries it and is the same for neighbours."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.aggregate.plan import LandmarkSetting, plan_allocation
from lmdk_core.aggregate.temporal_leakage import aggregate_leakage
from lmdk_core.leakage import smoothed_matrix
from lmdk_core.leakage.tpl import max_landmark_tpl


@settings(max_examples=40, deadline=None)
@given(T=st.integers(2, 40), k=st.integers(0, 6), s=st.floats(0.01, 2.0),
       n=st.integers(2, 5), data=st.data())
def test_personal_bound_holds_for_every_set_of_at_most_k_landmarks(T, k, s, n, data):
    P = smoothed_matrix(n, s)
    setting = LandmarkSetting("personal", k=k)
    plan = plan_allocation("uniform", T, setting, 1.0)
    leak = aggregate_leakage(plan.allocation, setting, P)
    assert leak.bound
    lm = data.draw(st.lists(st.integers(0, T - 1), unique=True, max_size=min(k, T)))
    # a user's spend: the plan at their contributions, 0 elsewhere (never more)
    assert max_landmark_tpl(plan.allocation, lm, P) <= leak.landmark_tpl + 1e-9


def test_public_landmarks_give_the_exact_largest_landmark_tpl():
    P = smoothed_matrix(3, 0.2)
    setting = LandmarkSetting("public", windows=np.array([2, 9, 30]))
    plan = plan_allocation("uniform", 48, setting, 1.0)
    leak = aggregate_leakage(plan.allocation, setting, P)
    assert not leak.bound
    assert leak.landmark_tpl == max_landmark_tpl(plan.allocation, [2, 9, 30], P)
    assert "landmark TPL " in leak.describe(1.0) and "at most" not in leak.describe(1.0)


def test_no_correlation_leaks_no_more_than_the_theorem():
    """With independent windows (uniform rows), TPL_t = ε_t and the landmark bound is
    (k+1)·ε/(k+1) = ε."""
    P = np.full((3, 3), 1 / 3)
    setting = LandmarkSetting("personal", k=4)
    plan = plan_allocation("uniform", 30, setting, 1.0)
    leak = aggregate_leakage(plan.allocation, setting, P)
    assert np.isclose(leak.max_tpl, 0.2) and np.isclose(leak.landmark_tpl, 1.0)


def test_stay_matrix_is_stochastic_and_independent_at_zero():
    from lmdk_core.aggregate.temporal_leakage import stay_matrix

    for cells, stay in [(1, 0.0), (5, 0.3), (64, 0.99)]:
        P = stay_matrix(cells, stay)
        assert P.shape == (cells, cells) and np.allclose(P.sum(axis=1), 1.0)
        assert (P >= 0).all() and np.isclose(P[0, 0], stay + (1 - stay) / cells)
    with pytest.raises(ValueError):
        stay_matrix(4, 1.0)
