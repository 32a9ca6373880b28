"""Dummy landmarks (Katsomallos et al. 2022, "Protecting landmarks"): metrics, nested options,
heuristic vs optimal (against a brute-force oracle), private selection and the selection +
release budget."""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.dummies import (
    OPTIMAL_MAX_REGULAR,
    DummyOptions,
    FunctionMetric,
    GapStd,
    NearestDistanceMean,
    dummy_options,
    get_metric,
    heuristic_options,
    optimal_options,
    release_series_with_dummies,
    release_trajectory_with_dummies,
    select_option,
    selection_probabilities,
    utility_sensitivity,
)
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError

FAST = settings(max_examples=50, deadline=None)


# ----------------------------------------------------------------- reference oracles


def ref_gap_std(landmarks, T):
    pts = [-1, *sorted(landmarks), T]
    return float(np.std(np.diff(pts)))


def ref_nearest_mean(landmarks, T):
    lm = sorted(landmarks)
    return float(np.mean([min(abs(t - s) for s in lm) for t in range(T)]))


REFERENCE = {"gap_std": ref_gap_std, "nearest_mean": ref_nearest_mean}


def brute_force_objective(T, L, metric):
    """min over all permutations of the regular timestamps of |mean metric − m(L)|."""
    met = get_metric(metric)
    regular = [t for t in range(T) if t not in L]
    m0 = met(L, T)
    best = np.inf
    for perm in itertools.permutations(regular):
        cur, total = list(L), 0.0
        for r in perm:
            cur.append(r)
            total += met(cur, T)
        best = min(best, abs(total / len(regular) - m0))
    return best


@st.composite
def series_with_landmarks(draw, min_t=2, max_t=9, max_regular=None):
    T = draw(st.integers(min_t, max_t))
    low = 1 if max_regular is None else max(1, T - max_regular)
    k = draw(st.integers(low, T - 1))
    L = draw(st.lists(st.integers(0, T - 1), min_size=k, max_size=k, unique=True))
    return T, sorted(L)


# --------------------------------------------------------------------------- metrics


def test_gap_std_known_values():
    m = GapStd()
    # gaps over -1, 0, 5: (1, 5) -> std 2
    assert m([0], 5) == pytest.approx(2.0)
    # evenly spread: gaps 2, 2, 2
    assert m([1, 3], 5) == 0.0
    assert m(range(7), 7) == 0.0


def test_nearest_mean_known_values():
    m = NearestDistanceMean()
    assert m([0], 5) == pytest.approx(2.0)  # 0,1,2,3,4
    assert m([2], 5) == pytest.approx(6 / 5)  # 2,1,0,1,2
    assert m([0, 4], 5) == pytest.approx(4 / 5)  # 0,1,2,1,0


@FAST
@given(series_with_landmarks(max_t=30), st.sampled_from(list(REFERENCE)))
def test_metrics_match_reference_and_incremental_formula(case, key):
    T, L = case
    met = get_metric(key)
    assert met(L, T) == pytest.approx(REFERENCE[key](L, T), abs=1e-12)
    member = np.zeros(T, dtype=bool)
    member[L] = True
    cand = np.flatnonzero(~member)
    fast = met.with_added(member, cand)
    slow = [REFERENCE[key]([*L, int(c)], T) for c in cand]
    np.testing.assert_allclose(fast, slow, atol=1e-12)


@FAST
@given(st.integers(2, 40), st.data(), st.sampled_from(list(REFERENCE)))
def test_sensitivity_bounds_any_change_of_landmarks(T, data, key):
    met = get_metric(key)
    a = data.draw(st.lists(st.integers(0, T - 1), min_size=1, unique=True))
    b = data.draw(st.lists(st.integers(0, T - 1), min_size=1, unique=True))
    assert abs(met(a, T) - met(b, T)) <= met.sensitivity(T) + 1e-12


@pytest.mark.parametrize("key", list(REFERENCE))
def test_sensitivity_bound_is_attained(key):
    met = get_metric(key)
    for T in (2, 7, 30):
        assert abs(met([0], T) - met(range(T), T)) == pytest.approx(met.sensitivity(T))
    assert utility_sensitivity(key, 11) == 5.0
    assert utility_sensitivity(key, 11, sensitivity=0.5) == 0.5


# --------------------------------------------------------------------------- options


def check_chain(opts: DummyOptions, T, L):
    sets = [set(o.tolist()) for o in opts.options]
    assert len(sets) == T - len(L)
    prev = set(L)
    for s in sets:
        assert set(L) <= s  # contains L
        assert prev < s and len(s) == len(prev) + 1  # nested, strictly growing by one
        assert all(0 <= t < T for t in s)
        prev = s
    assert sets[-1] == set(range(T))
    for o, m in zip(opts.options, opts.metrics, strict=True):
        assert opts.metric(o, T) == pytest.approx(m, abs=1e-12)
    assert opts.original_metric == pytest.approx(opts.metric(L, T))


@FAST
@given(series_with_landmarks(max_t=10), st.sampled_from(list(REFERENCE)))
def test_options_are_nested_and_contain_landmarks(case, key):
    T, L = case
    for method in ("heuristic", "optimal"):
        check_chain(dummy_options(T, L, method, key), T, L)


@FAST
@given(series_with_landmarks(max_t=12), st.sampled_from(list(REFERENCE)))
def test_heuristic_is_greedy(case, key):
    """Algorithm 2: every step adds the candidate whose metric is closest to m(L)."""
    T, L = case
    opts = heuristic_options(T, L, key)
    cur = list(L)
    for r, m in zip(opts.added, opts.metrics, strict=True):
        cands = [t for t in range(T) if t not in cur]
        diffs = [abs(REFERENCE[key]([*cur, c], T) - opts.original_metric) for c in cands]
        assert abs(m - opts.original_metric) == pytest.approx(min(diffs), abs=1e-12)
        ties = [c for c, d in zip(cands, diffs, strict=True) if d <= min(diffs) + 1e-9]
        assert r == ties[0]  # ties: the earliest timestamp
        cur.append(int(r))


@FAST
@given(series_with_landmarks(max_t=14, max_regular=8), st.sampled_from(list(REFERENCE)))
def test_optimal_objective_at_most_heuristic(case, key):
    T, L = case
    opt = optimal_options(T, L, key)
    heur = heuristic_options(T, L, key)
    assert opt.objective <= heur.objective + 1e-9


@FAST
@given(series_with_landmarks(max_t=11, max_regular=6), st.sampled_from(list(REFERENCE)))
def test_optimal_matches_brute_force(case, key):
    T, L = case
    assert optimal_options(T, L, key).objective == pytest.approx(
        brute_force_objective(T, L, key), abs=1e-9)


def _random_metric(salt: bytes) -> FunctionMetric:
    """Values spread at random over sets: nothing merges, the search must do the work."""
    def f(lm, T):
        if len(lm) == 1:
            return 0.5  # the original set: inside the range of the chain means
        h = hashlib.blake2b(np.asarray(lm, np.int64).tobytes() + salt, digest_size=8)
        return int.from_bytes(h.digest(), "little") / 2**64

    return FunctionMetric("random", f, sensitivity=1.0)


@pytest.mark.parametrize("salt", [b"a", b"b", b"c", b"d"])
def test_optimal_search_on_unstructured_metric_matches_brute_force(salt):
    met = _random_metric(salt)
    T, L = 8, [3]
    opt = optimal_options(T, L, met)
    assert opt.objective == pytest.approx(brute_force_objective(T, L, met), abs=1e-12)
    assert opt.objective <= heuristic_options(T, L, met).objective


def test_optimal_at_size_limit_reports_progress():
    """At the size limit (its time is in benchmarks/bench_dummies.py)."""
    calls = []
    T = OPTIMAL_MAX_REGULAR + 1
    opts = optimal_options(T, [0], _random_metric(b"limit"),
                           progress=lambda f, msg: calls.append((f, msg)))
    check_chain(opts, T, [0])
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 and isinstance(m, str) for f, m in calls)
    assert len(calls) > 5
    # built-in metric, worst input found for it at the limit
    opt = optimal_options(T, [T // 2 + 1], "gap_std")
    assert opt.objective <= heuristic_options(T, [T // 2 + 1]).objective + 1e-9


def test_optimal_refuses_above_limit():
    T = OPTIMAL_MAX_REGULAR + 2
    with pytest.raises(InputError, match=rf"limited to {OPTIMAL_MAX_REGULAR}.*heuristic"):
        optimal_options(T, [0], "gap_std")
    check_chain(heuristic_options(T, [0]), T, [0])  # the heuristic still works


def test_heuristic_max_options():
    opts = heuristic_options(50, [10, 11], max_options=5)
    assert len(opts) == 5
    full = heuristic_options(50, [10, 11])
    np.testing.assert_array_equal(opts.added, full.added[:5])
    with pytest.raises(InputError, match="max_options"):
        heuristic_options(50, [10], max_options=0)
    with pytest.raises(InputError, match="heuristic only"):
        dummy_options(10, [1], "optimal", max_options=3)


@pytest.mark.parametrize(
    ("length", "landmarks", "fragment"),
    [
        (10, [12], "outside the series"),
        (10, [-1], "outside the series"),
        (10, [], "at least one landmark"),
        (4, [0, 1, 2, 3], "no regular timestamp"),
        (0, [0], "at least 1"),
        (2.5, [0], "whole number"),
        ("x", [0], "whole number"),
    ],
)
def test_bad_input(length, landmarks, fragment):
    for method in ("heuristic", "optimal"):
        with pytest.raises(InputError, match=fragment):
            dummy_options(length, landmarks, method)


def test_unknown_method_and_metric():
    with pytest.raises(InputError, match="heuristic or optimal"):
        dummy_options(10, [1], "random")
    with pytest.raises(InputError, match="gap_std"):
        dummy_options(10, [1], "heuristic", "median")


# ------------------------------------------------------------------------- selection


@FAST
@given(series_with_landmarks(max_t=20), st.floats(0.01, 20), st.sampled_from(list(REFERENCE)))
def test_probabilities_are_exponential_mechanism(case, eps, key):
    T, L = case
    opts = heuristic_options(T, L, key)
    p = selection_probabilities(opts, eps)
    du = (T - 1) / 2
    u = -np.abs(opts.metrics - opts.original_metric)
    w = np.exp(eps * u / (2 * du))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-12)
    assert p.sum() == pytest.approx(1.0)
    sel = select_option(opts, eps, seed=3)
    np.testing.assert_allclose(sel.probabilities, p)
    np.testing.assert_allclose(sel.utilities, u)
    assert 0 <= sel.index < len(opts)


def test_selection_frequencies_follow_probabilities():
    opts = heuristic_options(12, [0, 1])
    eps = 8.0
    p = selection_probabilities(opts, eps)
    gen = np.random.default_rng(11)
    n = 6000
    counts = np.bincount([select_option(opts, eps, gen).index for _ in range(n)],
                         minlength=len(opts))
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(counts / n - p) < 5 * se + 1e-12)


def test_selection_seed_sensitivity_and_errors():
    opts = optimal_options(9, [2, 3])
    a, b = select_option(opts, 1.0, seed=5), select_option(opts, 1.0, seed=5)
    assert a.index == b.index and a.selected.tolist() == b.selected.tolist()
    assert set(a.dummies.tolist()) == set(a.selected.tolist()) - {2, 3}
    # a smaller sensitivity sharpens the distribution towards the best option
    sharp = selection_probabilities(opts, 1.0, sensitivity=0.01)
    assert int(np.argmax(sharp)) == int(np.argmin(opts.differences))
    assert sharp.max() > selection_probabilities(opts, 1.0).max()
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(InputError, match="ε_sel"):
            select_option(opts, bad)
    with pytest.raises(InputError, match="sensitivity"):
        selection_probabilities(opts, 1.0, sensitivity=0)
    custom = heuristic_options(6, [1], FunctionMetric("len", lambda lm, T: float(len(lm))))
    with pytest.raises(InputError, match="states no sensitivity"):
        select_option(custom, 1.0)
    assert select_option(custom, 1.0, seed=0, sensitivity=1.0).probabilities.sum() == (
        pytest.approx(1.0))


# ------------------------------------------------------------- selection + release


def test_release_series_with_dummies_budget_and_verdicts():
    rng = np.random.default_rng(0)
    values = rng.normal(10, 2, 30)
    out = release_series_with_dummies(values, [4, 20], epsilon=1.0, epsilon_selection=0.5,
                                      scheme="uniform", seed=7)
    sel, rel = out.selection, out.release
    assert rel.landmarks.tolist() == sel.selected.tolist()
    assert {4, 20} <= set(sel.selected.tolist())
    # uniform with L′: ε/(|L′|+1) everywhere, checked by the verifier with L′
    np.testing.assert_allclose(rel.epsilon_t, 1.0 / (sel.selected.size + 1))
    assert rel.verdict.private and out.original_verdict.private
    assert verify(rel.epsilon_t, sel.selected, 1.0).private
    assert out.total_epsilon == pytest.approx(1.5)
    acc = out.accounting()
    assert acc["epsilon_selection"] == 0.5 and acc["epsilon_release"] == 1.0
    assert acc["epsilon_total"] == pytest.approx(1.5)
    assert acc["landmarks_used"] == sel.selected.tolist()
    again = release_series_with_dummies(values, [4, 20], epsilon=1.0, epsilon_selection=0.5,
                                        scheme="uniform", seed=7)
    np.testing.assert_array_equal(again.release.released, rel.released)


def test_release_with_dummies_event_scheme_fails_verifier_for_l_prime():
    out = release_series_with_dummies(np.arange(12.0), [3], epsilon=1.0, epsilon_selection=1.0,
                                      scheme="event", seed=1)
    # event-level spends ε everywhere: not landmark-private once |L′| >= 2
    assert not out.release.verdict.private
    assert not out.accounting()["private_for_selected"]


def test_release_trajectory_with_dummies():
    lat = np.linspace(48.85, 48.86, 13)  # 11 regular timestamps: optimal is allowed
    lon = np.linspace(2.35, 2.36, 13)
    out = release_trajectory_with_dummies(lat, lon, [2, 9], epsilon=1.0, epsilon_selection=0.2,
                                          radius=100.0, scheme="uniform", method="optimal",
                                          metric="nearest_mean", seed=3)
    assert out.release.released.shape == (13, 2)
    assert out.release.landmarks.tolist() == out.selection.selected.tolist()
    assert out.release.verdict.private and out.original_verdict.private
    assert out.total_epsilon == pytest.approx(1.2)


def test_release_with_dummies_bad_input():
    with pytest.raises(InputError, match="ε_sel"):
        release_series_with_dummies(np.ones(5), [1], epsilon=1.0, epsilon_selection=0.0,
                                    scheme="uniform")
    with pytest.raises(InputError, match="empty"):
        release_series_with_dummies([], [1], epsilon=1.0, epsilon_selection=1.0, scheme="uniform")
    with pytest.raises(InputError, match="outside"):
        release_series_with_dummies(np.ones(5), [7], epsilon=1.0, epsilon_selection=1.0,
                                    scheme="uniform")
    with pytest.raises(InputError, match="greater than 0"):
        release_series_with_dummies(np.ones(5), [1], epsilon=-1.0, epsilon_selection=1.0,
                                    scheme="uniform")


class _PlainGapStd(GapStd):
    """The same metric through the generic O(T)-per-step greedy (the oracle)."""


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 400), st.data())
def test_fast_gap_std_heuristic_equals_the_plain_greedy(T, data):
    """The O(√T)-per-step heuristic for the gap std builds exactly the plain greedy's
    chain (same dummies in the same order, same metric floats) on random landmark sets,
    including clustered ones and sets at the series ends."""
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), min_size=1, max_size=max(1, T // 3))))
    if len(lm) == T:
        return
    steps = data.draw(st.integers(1, T - len(lm)))
    fast = heuristic_options(T, lm, "gap_std", max_options=steps)
    plain = heuristic_options(T, lm, _PlainGapStd(), max_options=steps)
    np.testing.assert_array_equal(fast.added, plain.added)
    assert fast.metrics.tobytes() == plain.metrics.tobytes()
    assert fast.original_metric == plain.original_metric
