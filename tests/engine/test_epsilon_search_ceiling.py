"""Accuracy → ε passes over the grid cells that cannot meet a target (epsilon_search's
cell ceiling): the same solutions — smallest ε, every interval, accuracy, method, reason —
as the search that maximises the accuracy inside every cell (the ceiling switched off),
on random series, landmarks, schemes, mechanisms and targets (hypothesis); and the
Laplace peak it uses is the largest probability over every noise scale."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import lmdk_core.decision.epsilon_search as search
from lmdk_core.decision.accuracy import AccuracyTarget
from lmdk_core.decision.noise_laws import laplace_within, laplace_within_peak


def _evaluations(fn):
    """fn() and how many accuracies it evaluated."""
    n = [0]
    original = search.static_accuracy

    def counted(*args, **kwargs):
        n[0] += 1
        return original(*args, **kwargs)
    with patch.object(search, "static_accuracy", counted):
        return fn(), n[0]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), T=st.integers(3, 30), scheme=st.sampled_from(
           ["uniform", "skip", "user", "w-event", "event"]),
       mech=st.sampled_from(["laplace", "geometric"]),
       kind=st.sampled_from(["within", "within", "mean"]),
       per=st.sampled_from(["each", "typical", "all"]),
       a=st.floats(0.2, 4.0), p=st.floats(0.3, 0.99))
def test_the_solution_is_that_of_the_search_of_every_cell(data, T, scheme, mech, kind, per,
                                                          a, p):
    x = np.array(data.draw(st.lists(st.integers(-6, 6), min_size=T, max_size=T)), float)
    lm = sorted(set(data.draw(st.lists(st.integers(0, T - 1), max_size=4))))
    per = per if kind == "within" else ("typical" if per == "all" else per)
    target = AccuracyTarget(kind, a, p if kind == "within" else 0.95, per)
    kw = {"mechanism": mech, "sensitivity": 1.0, "window": 3, "eps_range": (1e-2, 1e3)}

    def solve():
        return search.solve_epsilon(x, lm, scheme, target, **kw)
    ours, n_ours = _evaluations(solve)
    with patch.object(search, "_cell_ceiling", lambda *args: None):
        every_cell, n_every = _evaluations(solve)
    assert ours == every_cell
    assert n_ours <= n_every


def test_skip_each_unreachable_on_the_demo_evaluates_a_sixteenth():
    from lmdk_core.data.demo import demo_series, demo_series_landmarks

    target = AccuracyTarget("within", 1.0, 0.95, "each")

    def solve():
        return search.solve_epsilon(demo_series().values, demo_series_landmarks(), "skip",
                                    target, sensitivity=2.9)
    ours, n_ours = _evaluations(solve)
    with patch.object(search, "_cell_ceiling", lambda *args: None):
        every_cell, n_every = _evaluations(solve)
    assert ours == every_cell and ours.epsilon is None
    # the demo's repeated readings peak at 14 %: no cell can reach 95 %
    assert n_every > 3000 and n_ours < n_every / 16


@settings(max_examples=100, deadline=None)
@given(st.floats(-50.0, 50.0), st.floats(0.01, 10.0))
def test_laplace_peak_is_the_largest_probability_over_every_scale(delta, a):
    peak = float(laplace_within_peak(np.array([delta]), a)[0])
    b = np.geomspace(1e-3, 1e4, 20_001)
    p = laplace_within(np.full(b.size, delta), b, a)
    assert np.all(p <= peak + 1e-12)
    if abs(delta) > a:  # attained: a dense scan of the scale comes within 1e-6 of it
        assert p.max() >= peak - 1e-6 * max(peak, 1e-300) or peak < 1e-300
    else:
        assert peak == 1.0
