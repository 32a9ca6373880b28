"""Every user's verdict, vectorised (lmdk_core/aggregate/user_verdicts.py), against the one
verifier (lmdk_core/engine/verifier.py) run user by user, and the declared-k rule."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.aggregate.landmark_bound import check_k, kept_contributions
from lmdk_core.aggregate.plan import LandmarkSetting, plan_allocation
from lmdk_core.aggregate.user_verdicts import user_worst_totals
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError


def _contributions(draw, n_users: int, T: int):
    """Sorted (user, window) pairs, each user's windows distinct, with flags."""
    user, window = [], []
    for u in range(n_users):
        ws = draw(st.lists(st.integers(0, T - 1), unique=True, max_size=T))
        for w in sorted(ws):
            user.append(u)
            window.append(w)
    n = len(user)
    landmark = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    kept = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return (np.asarray(user, dtype=np.int64), np.asarray(window, dtype=np.int64),
            np.asarray(landmark, dtype=bool), np.asarray(kept, dtype=bool))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), n_users=st.integers(1, 6), T=st.integers(1, 12),
       epsilon=st.floats(0.01, 10))
def test_vectorised_verdicts_equal_the_verifier_user_by_user(data, n_users, T, epsilon):
    user, window, landmark, kept = _contributions(data.draw, n_users, T)
    kind = data.draw(st.sampled_from(["random", "uniform"]))
    if kind == "random":
        alloc = np.asarray(data.draw(st.lists(st.floats(0, epsilon), min_size=T,
                                              max_size=T)))
    else:
        k = data.draw(st.integers(0, T))
        alloc = plan_allocation("uniform", T, LandmarkSetting("personal", k=k), epsilon
                                ).allocation
    worst, private, n_lm = user_worst_totals(n_users, user, window, kept, landmark, alloc,
                                             epsilon)
    for u in range(n_users):  # brute force: build u's allocation, ask the verifier
        mine = user == u
        eps_u = np.zeros(T)
        eps_u[window[mine & kept]] = alloc[window[mine & kept]]
        lm_u = window[mine & landmark]
        v = verify(eps_u, lm_u, epsilon)
        assert private[u] == v.private
        assert np.isclose(worst[u], v.worst_total, rtol=1e-12, atol=1e-15)
        assert n_lm[u] == lm_u.size


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n_users=st.integers(1, 6), T=st.integers(1, 12),
       k=st.integers(0, 4), rule=st.sampled_from(["drop", "refuse"]))
def test_the_k_rule_makes_every_user_landmark_private_at_eps_over_k_plus_1(
        data, n_users, T, k, rule):
    """Uniform at ε/(k+1) with the drop or refuse rule: every user passes the verifier,
    whatever their number of landmark windows; without the rule, a user with more than
    k landmark windows fails (the rule is needed)."""
    user, window, landmark, _ = _contributions(data.draw, n_users, T)
    plan = plan_allocation("uniform", T, LandmarkSetting("personal", k=k), 1.0)
    assert plan.verdict.private
    kept, dropped, refused = kept_contributions(user, landmark, k, rule)
    _, private, _ = user_worst_totals(n_users, user, window, kept, landmark,
                                      plan.allocation, 1.0)
    assert private.all()
    everything = np.ones(user.size, dtype=bool)
    _, private_all, n_lm = user_worst_totals(n_users, user, window, everything, landmark,
                                             plan.allocation, 1.0)
    over = n_lm > k
    if k + 1 < T:  # ε/(k+1): a user with k + 1 landmarks (and another window) exceeds ε
        has_regular = np.bincount(user[~landmark], minlength=n_users) > 0
        assert not private_all[over & has_regular].any()
    # drop keeps exactly k landmark contributions of a user who has more
    for u in np.flatnonzero(over):
        mine = user == u
        if rule == "drop":
            assert (kept[mine] & landmark[mine]).sum() == k
            assert dropped[mine].sum() == n_lm[u] - k
        else:
            assert not kept[mine].any() and refused[mine].all()


def test_skip_with_personal_landmarks_leaves_out_every_landmark_contribution():
    user = np.array([0, 0, 0, 1, 1])
    landmark = np.array([True, False, True, False, True])
    kept, dropped, _ = kept_contributions(user, landmark, 1, "drop", skip=True)
    assert kept.tolist() == [False, True, False, True, False]
    assert dropped.sum() == 3
    plan = plan_allocation("skip", 5, LandmarkSetting("personal", k=1), 1.0)
    assert np.all(plan.allocation == 1.0)
    _, private, _ = user_worst_totals(2, user, np.array([0, 1, 2, 0, 1]), kept, landmark,
                                      plan.allocation, 1.0)
    assert private.all()


def test_k_must_be_a_whole_number_at_least_0():
    for bad in (-1, 1.5, "x", float("nan"), True):
        try:
            check_k(bad)
        except InputError:
            continue
        raise AssertionError(f"check_k accepted {bad!r}")
    assert check_k(0) == 0 and check_k(5) == 5


def test_adaptive_is_refused_with_personal_landmarks():
    try:
        plan_allocation("adaptive", 5, LandmarkSetting("personal", k=2), 1.0)
    except InputError as exc:
        assert "--landmark-times" in str(exc)
    else:
        raise AssertionError("Adaptive accepted personal landmarks")
