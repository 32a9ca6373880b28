"""The scheme comparison and the Monte Carlo error-vs-ε sweep (lmdk_core.decision.comparison)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.comparison import (
    compare_schemes,
    epsilon_grid,
    series_release_fn,
    sweep_reading,
    track_release_fn,
    utility_sweep,
)
from lmdk_core.engine.release import release_series
from lmdk_core.figures.compare import side_by_side_figure, utility_figure
from lmdk_core.foundation.errors import InputError

ALL = ["event", "user", "w-event", "uniform", "skip", "adaptive"]


def test_compare_schemes_uses_the_seed_and_the_verifier():
    values = np.linspace(0, 5, 60)
    fn = series_release_fn(values, [5, 30], mechanism="laplace", sensitivity=1.0, window=4)
    out = compare_schemes(fn, ["uniform", "skip", "event", "uniform"], 2.0, seed=7)
    assert list(out) == ["uniform", "skip", "event"]  # duplicates dropped, order kept
    ref = release_series(values, [5, 30], epsilon=2.0, scheme="uniform", mechanism="laplace",
                         sensitivity=1.0, seed=7, window=4)
    np.testing.assert_array_equal(out["uniform"].released, ref.released)
    assert out["uniform"].verdict.private and out["skip"].verdict.private
    assert not out["event"].verdict.private  # two landmarks: 3ε at a regular timestamp
    with pytest.raises(InputError, match="at least one scheme"):
        compare_schemes(fn, [], 1.0, 0)
    with pytest.raises(InputError, match="unknown scheme"):
        compare_schemes(fn, ["uniformly"], 1.0, 0)


def test_epsilon_grid():
    g = epsilon_grid(0.1, 10, 5)
    np.testing.assert_allclose(g, [0.1, 0.1 * 10**0.5, 1, 10**0.5, 10])
    np.testing.assert_allclose(epsilon_grid(1, 3, 3, log=False), [1, 2, 3])
    for lo, hi, n, msg in [(1, 1, 5, "greater"), (0, 1, 5, "greater than 0"),
                           (1, 2, 1, "from 2"), (1, 2, 1000, "from 2")]:
        with pytest.raises(InputError, match=msg):
            epsilon_grid(lo, hi, n)


def test_sweep_error_matches_laplace_expectation():
    """Uniform with |L| = 3 at ε spends ε/4 everywhere: Laplace MAE = 4Δf/ε. T = 1,000,
    R = 10, seed 11: the mean of 10,000 |Laplace| draws has a relative standard error of
    1%; tolerance 5%."""
    T, lm = 1000, [10, 500, 900]
    fn = series_release_fn(np.zeros(T), lm, mechanism="laplace", sensitivity=2.0)
    sw = utility_sweep(fn, ["uniform", "skip"], [0.5, 2.0], runs=10, seed=11, landmarks=lm)
    expected = {"uniform": 4 * 2.0 / np.array([0.5, 2.0]), "skip": 2.0 / np.array([0.5, 2.0])}
    for s, key in enumerate(sw.schemes):
        rel_err = sw.mean()[s] / expected[key] - 1
        assert np.all(np.abs(rel_err) < 0.05), (key, rel_err)
    assert sw.errors.shape == (2, 2, 10)
    np.testing.assert_array_equal(sw.landmarks_published[0], [1, 1])  # uniform
    np.testing.assert_array_equal(sw.landmarks_published[1], [0, 0])  # skip
    assert sw.private.all() and sw.n_landmarks == 3
    lo, hi = sw.band()
    assert np.all(lo <= sw.mean()) and np.all(sw.mean() <= hi)
    assert np.all(sw.standard_error() > 0)
    assert len(sw.to_records()) == 4


def test_common_random_numbers_and_reproducibility():
    """Event-level and w-event with w = 1 spend the same ε_t: with the shared generator of
    (seed, i, r) their errors are identical, run for run."""
    values = np.sin(np.arange(80) / 5)
    fn = series_release_fn(values, [], mechanism="laplace", sensitivity=1.0, window=1)
    a = utility_sweep(fn, ["event", "w-event"], [0.3, 1.0], runs=5, seed=3)
    np.testing.assert_array_equal(a.errors[0], a.errors[1])
    b = utility_sweep(fn, ["event", "w-event"], [0.3, 1.0], runs=5, seed=3)
    np.testing.assert_array_equal(a.errors, b.errors)
    c = utility_sweep(fn, ["event", "w-event"], [0.3, 1.0], runs=5, seed=4)
    assert not np.array_equal(a.errors, c.errors)


def test_sweep_progress_and_bad_inputs():
    fn = series_release_fn(np.ones(20), [3], mechanism="laplace", sensitivity=1.0)
    seen = []
    utility_sweep(fn, ["uniform", "skip"], [1, 2, 3], runs=2, seed=0,
                  progress=lambda f, m: seen.append(f))
    assert seen == pytest.approx([i / 6 for i in range(1, 7)])
    for kwargs, msg in [({"runs": 0}, "runs R"), ({"runs": 10_000}, "runs R"),
                        ({"epsilons": []}, "values of ε"), ({"epsilons": [1, -1]}, "epsilon"),
                        ({"schemes": []}, "at least one")]:
        args = {"schemes": ["uniform"], "epsilons": [1.0], "runs": 2} | kwargs
        with pytest.raises(InputError, match=msg):
            utility_sweep(fn, args["schemes"], args["epsilons"], runs=args["runs"], seed=0)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(2, 40), data=st.data(), eps=st.floats(0.05, 5),
       seed=st.integers(0, 2**31 - 1))
def test_every_run_but_event_level_is_landmark_private(T, data, eps, seed):
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T)))
    values = data.draw(st.lists(st.floats(-100, 100), min_size=T, max_size=T))
    w = data.draw(st.integers(len(lm) + 1, len(lm) + 5))
    fn = series_release_fn(values, lm, mechanism="laplace", sensitivity=1.0, window=w)
    sw = utility_sweep(fn, ALL, [eps], runs=2, seed=seed, landmarks=lm)
    for s, key in enumerate(sw.schemes):
        if key == "event":
            assert sw.private[s, 0] == (len(lm) == 0 or (len(lm) == 1 and T == 1))
        else:
            assert sw.private[s, 0], key
    if lm:
        assert sw.landmarks_published[sw.schemes.index("skip"), 0] == 0
        assert sw.landmarks_published[sw.schemes.index("uniform"), 0] == 1


def test_reading_names_the_best_scheme_and_the_catches():
    T, lm = 400, [50, 51, 200]
    fn = series_release_fn(np.zeros(T), lm, mechanism="laplace", sensitivity=1.0)
    sw = utility_sweep(fn, ["uniform", "skip", "event"], epsilon_grid(0.1, 10, 5), runs=5,
                       seed=2, landmarks=lm)
    text = "\n".join(sweep_reading(sw, 1.0, "kWh"))
    assert "most accurate landmark-private scheme is **Skip**" in text
    i = 2  # ε = 1 is the middle of the grid
    ratio = sw.mean()[0, i] / sw.mean()[1, i]
    assert f"Uniform's error is {ratio:.1f}× Skip's" in text
    assert "**Event-level is not landmark-private**" in text
    assert "Skip publishes nothing fresh at the landmarks" in text
    assert "From ε = 0.1 to 10" in text


def test_track_sweep_measures_displacement_in_metres():
    """Planar Laplace at ε_t has mean displacement 2r/ε_t: Uniform with no landmark at
    ε = 1, r = 50 m → 100 m. 200 points × 10 runs (seed 5): the radius is Gamma(2, r/ε),
    whose relative sd is 1/√2, so the mean of 2,000 draws has a relative standard error
    of 1.6%; tolerance 5%."""
    lat = np.full(200, 48.85)
    lon = np.linspace(2.30, 2.35, 200)
    fn = track_release_fn(lat, lon, [], radius=50.0)
    sw = utility_sweep(fn, ["uniform"], [1.0], runs=10, seed=5)
    assert abs(sw.mean()[0, 0] / 100.0 - 1) < 0.05
    assert np.isnan(sw.landmarks_published).all()


def test_figures_have_one_column_per_scheme():
    values = np.linspace(0, 1, 30)
    fn = series_release_fn(values, [4], mechanism="laplace", sensitivity=1.0)
    rels = compare_schemes(fn, ["uniform", "skip", "adaptive"], 1.0, 0)
    leak = {k: {"TPL": r.epsilon_t, "landmark TPL": r.verdict.totals} for k, r in rels.items()}
    fig = side_by_side_figure(np.arange(30), "number", rels, leakage=leak, unit="kWh")
    titles = [a.text for a in fig.layout.annotations if a.text in ("Uniform", "Skip",
                                                                   "Adaptive")]
    assert titles == ["Uniform", "Skip", "Adaptive"]
    assert {t.xaxis for t in fig.data} == {f"x{i}" if i > 1 else "x" for i in range(1, 10)}
    sw = utility_sweep(fn, ["uniform", "event"], [0.5, 1, 2], runs=3, seed=0, landmarks=[4])
    ufig = utility_figure(sw, unit="kWh", current=1.0)
    names = [t.name for t in ufig.data if t.name]
    assert names == ["Uniform", "Event-level (not landmark-private)", "current ε = 1"]
    # ticks are plain 1–2–5 values inside the data range
    assert list(ufig.layout.xaxis.tickvals) == [0.5, 1, 2]
    # the current ε outside the sweep draws no marker line
    names = [t.name for t in utility_figure(sw, current=50.0).data if t.name]
    assert not any(n.startswith("current") for n in names)
    # every legend entry once, even when the first column lacks it (Uniform: no "x")
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert len(legend) == len(set(legend)) and "nothing spent (approximated)" in legend


def test_reading_outside_the_range_with_leakage_and_lower_errors():
    T, lm = 300, [20, 150]
    values = np.zeros(T)
    values[lm] = 100.0  # Skip repeats the value before each spike: a large error there
    fn = series_release_fn(values, lm, mechanism="laplace", sensitivity=1.0)
    sw = utility_sweep(fn, ["uniform", "skip", "event"], [0.5, 1.0, 2.0], runs=4, seed=1,
                       landmarks=lm)
    text = "\n".join(sweep_reading(sw, 50.0))
    assert "current ε = 50 lies outside the swept range (0.5 to 2)" in text
    assert "the nearest swept value, ε = 2" in text
    text = "\n".join(sweep_reading(sw, 2.0, landmark_leakage={"uniform": 0.9, "skip": 7.5}))
    assert "outside" not in text
    assert "leak up to 7.5 (Skip)" in text and "Uniform)" not in text.split("leak up to")[1]
    assert "Skip leaks the most" in text
    i = 2
    best = int(np.argmin(sw.mean()[:2, i]))  # the best landmark-private scheme
    drop = 100 * (1 - sw.mean()[2, i] / sw.mean()[best, i])
    assert drop > 10
    name = ["Uniform", "Skip"][best]
    assert f"Event-level's error is {drop:.0f}% lower than {name}'s" in text
    assert "Uniform's" in text.split("the errors shrink:")[1]


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 60), data=st.data(), eps=st.floats(0.05, 5),
       seed=st.integers(0, 2**31 - 1))
def test_sweep_cells_are_the_releases_own_metrics_bit_for_bit(T, data, eps, seed):
    """The sweep reads each run's MAE and published share without the rest of
    Release.metrics() (its median and percentile): the same floats as from metrics(),
    withheld readings (NaN errors) and a release with nothing released included."""
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T)))
    values = data.draw(st.lists(st.floats(-100, 100), min_size=T, max_size=T))
    fn = series_release_fn(values, lm, mechanism="laplace", sensitivity=1.0,
                           window=len(lm) + 2)
    runs = 3
    sw = utility_sweep(fn, ALL, [eps], runs=runs, seed=seed, landmarks=lm)
    for s, key in enumerate(sw.schemes):
        ms = [fn(key, eps, np.random.default_rng([seed, 0, r])).metrics() for r in range(runs)]
        want = np.array([m["mae"] for m in ms])
        assert sw.errors[s, 0].tobytes() == want.tobytes(), key
        share = float(np.mean([m["n_published"] / T for m in ms]))
        assert sw.published[s, 0] == share, key
