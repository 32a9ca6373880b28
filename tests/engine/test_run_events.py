"""A series' runs of consecutive readings as ONE landmark event each
(docs/series-events.md, lmdk_core/engine/run_events.py): the run level's sensitivity, the
release through the stay machinery (condensed timeline, grouped verifier, fresh noise),
its expected error against simulated releases, and the utility advice."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.utility import release_utility
from lmdk_core.engine.release import release_series
from lmdk_core.engine.run_events import format_runs, parse_runs, run_level
from lmdk_core.engine.stay_events import condense, condensed_points, stay_members
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import Laplace


@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=60), st.integers(1, 50),
       st.booleans(), st.integers(0, 2**31))
def test_a_run_level_moves_at_most_by_the_sensitivity(values, df, whole, seed):
    """Every reading of the run changed by at most Δf (a whole Δf for whole-number data):
    the level — the mean, or ⌊mean + ½⌋ for whole numbers — moves by at most Δf
    (floating-point slack of 1e-9 relative)."""
    rng = np.random.default_rng(seed)
    x = np.round(values) if whole else np.asarray(values, dtype=float)
    moved = x + rng.uniform(-df, df, x.size) * rng.integers(0, 2, x.size)
    if whole:
        moved = x + rng.integers(-df, df + 1, x.size)
    slack = 1e-9 * max(1.0, float(np.abs(x).max()))
    assert abs(run_level(moved, whole) - run_level(x, whole)) <= df + slack
    if whole:
        assert float(run_level(x, True)).is_integer()


def test_parse_and_format_runs():
    assert parse_runs("3,10-20") == [(3, 3), (10, 20)]
    assert format_runs([(3, 3), (10, 20)]) == "3,10-20"
    assert parse_runs("") == []
    with pytest.raises(InputError, match="run"):
        parse_runs("20-10")


@settings(max_examples=60, deadline=None)
@given(st.integers(8, 120), st.sampled_from(["uniform", "skip", "adaptive", "user"]),
       st.floats(0.1, 5), st.integers(0, 2**31), st.sampled_from(["laplace", "geometric"]))
def test_a_run_release_is_verified_and_each_run_spends_once(T, scheme, eps, seed, mech):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(50, 10, T))
    a = int(rng.integers(1, T - 4))
    b = int(rng.integers(a + 1, T - 1))
    runs = [(a, b)]
    single = [T - 1]
    rel = release_series(x, single, epsilon=eps, scheme=scheme, mechanism=mech, sensitivity=3.0,
                         seed=seed, runs=runs, max_landmarks=2)
    assert rel.verdict.private and rel.verdict.groups == tuple(runs)
    assert rel.verdict.landmark_events == 2
    assert set(rel.landmarks.tolist()) == set(range(a, b + 1)) | set(single)
    assert np.all(rel.epsilon_t[a + 1:b + 1] == 0)
    assert not rel.published[a + 1:b + 1].any()
    shown = ~rel.withheld[a:b + 1]
    assert np.all(rel.renoised[a:b + 1] == shown)
    if mech == "laplace":  # a continuous law repeats a value with probability 0
        ok = rel.released[~rel.withheld]
        assert not (np.diff(ok) == 0).any()
    else:  # the run's level is a whole number: the Geometric release stays whole
        assert np.all(np.mod(rel.released[~rel.withheld], 1) == 0)
    if scheme == "uniform":  # ε/(k+1) with k = 2 events, however long the run
        np.testing.assert_allclose(rel.epsilon_t[[a, 0 if a else b + 1]], eps / 3)


def test_a_run_release_equals_the_condensed_release():
    """The expanded release is the condensed one (same seed: the run's mean released
    once at its first reading), then every reading of the run moved by fresh Laplace
    noise of the regular scale drawn next from the same stream: draw for draw."""
    x = np.sin(np.arange(200) / 9.0) * 20 + 100
    runs = [(20, 80), (120, 170)]
    full = release_series(x, [5], epsilon=1.0, scheme="uniform", mechanism="laplace",
                          sensitivity=2.0, seed=9, runs=runs)
    c = condense(200, runs)
    small_x = condensed_points(x, c)
    assert small_x[c.index[20]] == pytest.approx(x[20:81].mean())
    lm_c = sorted({int(c.index[5]), int(c.index[20]), int(c.index[120])})
    gen = np.random.default_rng(9)
    small = release_series(small_x, lm_c, epsilon=1.0, scheme="uniform", mechanism="laplace",
                           sensitivity=2.0, seed=gen)
    want = small.released[c.index]
    members = stay_members(runs)
    want[members] = Laplace(2.0).perturb(want[members], 1.0 / 4, gen)
    np.testing.assert_array_equal(full.released, want)
    assert full.renoise_epsilon == 1.0 / 4


def test_runs_are_for_series_and_stays_for_tracks():
    with pytest.raises(InputError, match="runs"):
        release_series(np.ones(20), [], epsilon=1.0, scheme="uniform", runs=[(0, 5), (5, 8)])
    with pytest.raises(InputError, match="run 15-25"):
        release_series(np.ones(20), [], epsilon=1.0, scheme="uniform", runs=[(15, 25)])


def test_the_expected_error_of_a_run_matches_simulated_releases():
    """Seed 77, 3,000 releases of a series with one run (Uniform, ε = 1, Δf = 2): the
    utility's expected errors (the run's readings: their offset from the run's mean plus
    the run's noise plus the fresh noise) agree with the measured mean errors, reading
    by reading within 6 % (standard error about 2 %) and on average within 2 %."""
    rng = np.random.default_rng(77)
    x = rng.normal(10, 1, 60)
    x[20:40] += np.linspace(0, 6, 20)
    runs = [(20, 39)]
    errs = np.array([release_series(x, [], epsilon=1.0, scheme="uniform", mechanism="laplace",
                                    sensitivity=2.0, seed=rng, runs=runs).errors
                     for _ in range(3000)])
    rel = release_series(x, [], epsilon=1.0, scheme="uniform", mechanism="laplace", sensitivity=2.0,
                         seed=0, runs=runs)
    from lmdk_core.decision.expected_error import expected_errors

    c = condense(60, runs)
    want = expected_errors(x, rel.epsilon_t, rel.published, sensitivity=2.0,
                           sources=condensed_points(x, c)[c.index],
                           fresh=np.where(rel.renoised, rel.renoise_epsilon, 0.0))
    np.testing.assert_allclose(errs.mean(axis=0), want, rtol=0.06)
    assert errs.mean() == pytest.approx(want.mean(), rel=0.02)
    assert release_utility(rel, sensitivity=2.0).typical == pytest.approx(np.median(want))


def test_a_saved_view_keeps_its_runs_for_the_report_and_the_restore():
    """A series view's ``extra.runs`` (the Timeline's accepted runs) counts each run as
    one landmark event against the declared k, is released so by the report, and comes
    back on restore; a run outside the data is refused with a message naming it."""
    from lmdk_core.data.demo import demo_series
    from lmdk_core.files.config import ViewConfig, restored_view
    from lmdk_core.report.compute import _release_fn, landmark_events

    lm = [27, 28, 138, 139, 140, 155]
    cfg = ViewConfig(landmarks=lm, extra={"runs": "27-28,138-140", "max_landmarks": 3})
    assert landmark_events(cfg) == 3
    demo = demo_series()
    rel = _release_fn(cfg, demo)("uniform", 1.0, np.random.default_rng(0))
    assert rel.stays == ((27, 28), (138, 140)) and rel.verdict.landmark_events == 3
    assert rel.epsilon_t[0] == pytest.approx(1.0 / 4)
    view = restored_view(cfg, "demo-household", demo)
    assert view.stays == [(27, 28), (138, 140)] and view.landmarks == [155]
    bad = ViewConfig(landmarks=lm, extra={"runs": "160-900"})
    with pytest.raises(InputError, match="run 160-900"):
        restored_view(bad, "demo-household", demo)
