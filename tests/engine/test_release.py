"""Releases of series and trajectories: spent budget, approximations, verdicts, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.release import AdaptiveSettings, release_series, release_trajectory
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from tests.conftest import ASSETS


def test_laplace_mae_on_4000_constants_is_two():
    """ε = 0.5, Δf = 1 -> expected MAE Δf/ε = 2. SE of the MAE is b/√n = 0.032;
    tolerance 0.15 (~5 SE), seed 0."""
    rel = release_series(np.full(4000, 7.0), [], epsilon=0.5, scheme="uniform", mechanism="laplace",
                         sensitivity=1.0, seed=0)
    m = rel.metrics()
    assert abs(m["mae"] - 2.0) < 0.15
    assert m["expected_mae_published"] == pytest.approx(2.0)
    assert rel.verdict.private and rel.published.all()


def test_real_gpx_track_mean_displacement_is_two_r_over_eps():
    """cerknicko-jezero.gpx (296 real GPS points, from gpxpy's test files): ε = 1,
    r = 100 m -> mean displacement 2r/ε = 200 m; SD of Gamma(2, 100) is 141 m, SE 8.2 m;
    tolerance 30 m, seed 0."""
    track = load_track(ASSETS / "sample_tracks" / "cerknicko-jezero.gpx")
    rel = release_trajectory(track.lat, track.lon, [], epsilon=1.0, radius=100.0, scheme="uniform",
                             seed=0)
    m = rel.metrics()
    assert abs(m["mae"] - 200.0) < 30.0
    assert m["expected_mae_published"] == pytest.approx(200.0)


def test_skip_spends_nothing_at_landmarks_and_repeats_the_last_release():
    x = np.arange(20, dtype=float)
    rel = release_series(x, [0, 4, 5, 12], epsilon=1.0, scheme="skip", seed=1)
    assert np.all(rel.epsilon_t[[0, 4, 5, 12]] == 0)
    assert not rel.published[[0, 4, 5, 12]].any()
    assert np.isnan(rel.released[0])  # nothing released yet: withheld
    # an approximation shows the last release plus fresh noise of the regular law
    # (ε = 1 for Skip; post-processing): no run of identical values
    assert rel.renoised.tolist() == [t in (4, 5, 12) for t in range(20)]
    assert rel.renoise_epsilon == 1.0
    assert len({rel.released[3], rel.released[4], rel.released[5]}) == 3
    assert rel.released[12] != rel.released[11]
    assert rel.verdict.private
    assert rel.metrics()["n_withheld"] == 1


@pytest.mark.parametrize("scheme", ["event", "user", "w-event", "uniform", "skip", "adaptive"])
def test_every_scheme_releases_and_is_verified(scheme):
    x = np.sin(np.arange(100) / 7) * 10
    rel = release_series(x, [10, 50, 51], epsilon=2.0, scheme=scheme, seed=3, window=5)
    assert rel.released.shape == x.shape
    v = verify(rel.epsilon_t, [10, 50, 51], 2.0)
    assert v.private == rel.verdict.private
    assert rel.verdict.private == (scheme != "event")


def test_geometric_release_of_counts():
    counts = np.random.default_rng(0).poisson(20, 500).astype(float)
    rel = release_series(counts, [3], epsilon=1.0, scheme="uniform", mechanism="geometric",
                         sensitivity=1, seed=2)
    assert np.all(rel.released == np.round(rel.released))
    with pytest.raises(InputError, match="whole numbers"):
        release_series(counts + 0.5, [3], epsilon=1.0, scheme="uniform", mechanism="geometric",
                       sensitivity=1, seed=2)


@st.composite
def series_and_landmarks(draw):
    T = draw(st.integers(1, 80))
    kind = draw(st.sampled_from(["flat", "walk", "steps"]))
    seed = draw(st.integers(0, 2**16))
    gen = np.random.default_rng(seed)
    if kind == "flat":
        x = np.full(T, 5.0)
    elif kind == "walk":
        x = np.cumsum(gen.normal(0, draw(st.floats(0.01, 20)), T))
    else:
        x = np.repeat(gen.normal(0, 10, T // 5 + 1), 5)[:T]
    lm = sorted(draw(st.sets(st.integers(0, T - 1))))
    eps = draw(st.floats(0.05, 10))
    settings_ = AdaptiveSettings(
        initial_rate=1.0, min_rate=draw(st.floats(0.05, 1.0)), step=draw(st.floats(0.05, 1.0))
    )
    return x, lm, eps, seed, settings_


@settings(max_examples=300, deadline=None)
@given(series_and_landmarks())
def test_adaptive_final_allocation_is_landmark_private(case):
    x, lm, eps, seed, adaptive = case
    rel = release_series(x, lm, epsilon=eps, scheme="adaptive", seed=seed, adaptive=adaptive)
    v = verify(rel.epsilon_t, lm, eps)
    assert v.private, v.summary()
    assert np.all(rel.epsilon_t[~rel.published] == 0)
    assert np.all(rel.epsilon_t[rel.published] > 0)
    # approximations show the last released value plus fresh noise (never a repeat)
    for t in np.flatnonzero(~rel.published):
        if t > 0:
            assert rel.renoised[t] and rel.released[t] != rel.released[t - 1]
    if rel.renoised is not None:  # the noise of Adaptive's start (Uniform's share)
        assert rel.renoise_epsilon == rel.planned_epsilon_t[0]
    # budget only ever moves from skipped landmarks to later timestamps
    planned = rel.planned_epsilon_t
    if rel.published.any():
        assert np.all(rel.epsilon_t[rel.published] >= planned[rel.published] - 1e-12)


def test_adaptive_redistributes_a_skipped_landmark_share():
    # flat data: the sampling rate drops, landmarks get skipped and their share moves on
    x = np.full(400, 3.0)
    lm = list(range(0, 400, 20))
    rel = release_series(x, lm, epsilon=1.0, scheme="adaptive", seed=5)
    skipped_lm = [t for t in lm if not rel.published[t]]
    assert skipped_lm, "expected some landmark to be approximated on flat data"
    later = rel.epsilon_t[rel.published & (np.arange(400) > skipped_lm[0])]
    assert later.max() > 1.0 / (len(lm) + 1) + 1e-12
    assert rel.verdict.private


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.data())
def test_adaptive_trajectory_is_landmark_private(T, data):
    gen = np.random.default_rng(data.draw(st.integers(0, 1000)))
    lat = 48.85 + np.cumsum(gen.normal(0, 1e-4, T))
    lon = 2.35 + np.cumsum(gen.normal(0, 1e-4, T))
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1))))
    rel = release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme="adaptive", seed=1)
    assert verify(rel.epsilon_t, lm, 1.0).private
    assert np.all(rel.epsilon_t[~rel.published] == 0)
    assert rel.released.shape == (T, 2)


def test_trajectory_skip_withholds_a_starting_landmark():
    lat = np.linspace(48.85, 48.86, 10)
    lon = np.linspace(2.35, 2.36, 10)
    rel = release_trajectory(lat, lon, [0, 1, 5], epsilon=1.0, radius=50.0, scheme="skip", seed=0)
    assert rel.withheld[[0, 1]].all() and not rel.withheld[2:].any()
    assert rel.renoised.tolist() == [False] * 5 + [True] + [False] * 4
    assert not np.array_equal(rel.released[5], rel.released[4])


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"values": []}, "empty"),
        ({"values": [1.0, float("nan")]}, "missing"),
        ({"epsilon": 0}, "epsilon"),
        ({"landmarks": [99]}, "outside"),
        ({"mechanism": "gauss"}, "unknown mechanism"),
        ({"sensitivity": 0}, "sensitivity"),
        ({"scheme": "w-event"}, "window"),
    ],
)
def test_bad_release_input(kwargs, msg):
    args = {"values": [1.0, 2.0, 3.0], "landmarks": [1], "epsilon": 1.0, "scheme": "uniform"}
    args.update(kwargs)
    with pytest.raises(InputError, match=msg):
        release_series(**args)


def test_same_seed_same_release():
    a = release_series(np.arange(50.0), [3], epsilon=1.0, scheme="adaptive", seed=11)
    b = release_series(np.arange(50.0), [3], epsilon=1.0, scheme="adaptive", seed=11)
    np.testing.assert_array_equal(a.released, b.released)
    np.testing.assert_array_equal(a.epsilon_t, b.epsilon_t)


def test_long_adaptive_trajectory_is_private_and_measured(monkeypatch):
    """A trajectory long enough for the compiled Adaptive loop: the allocation passes the
    verifier, only published timestamps spend, every other point is the last
    publication moved by fresh noise (never the same point), and the errors are the
    geodesic distances from the released to the true points."""
    from lmdk_core.adaptive import planar_kernel
    from lmdk_core.mechanisms import PlanarLaplace

    T = 3000
    monkeypatch.setattr(planar_kernel, "FORCE_COMPILED", True)
    gen = np.random.default_rng(12)
    lat = -33.86 + np.cumsum(gen.normal(0, 1e-4, T))
    lon = 151.2 + np.cumsum(gen.normal(0, 1e-4, T))
    lm = np.sort(gen.choice(T, 40, replace=False))
    rel = release_trajectory(lat, lon, lm, epsilon=2.0, radius=50.0, scheme="adaptive", seed=4)
    assert rel.verdict.private and verify(rel.epsilon_t, lm, 2.0).private
    assert rel.published[0] and np.all(rel.epsilon_t[~rel.published] == 0)
    assert 0 < rel.published.sum() < T
    pub_rows = np.cumsum(rel.published) - 1
    held = rel.released[rel.published][pub_rows]
    np.testing.assert_array_equal(rel.renoised, ~rel.published)
    np.testing.assert_array_equal(rel.released[rel.published], held[rel.published])
    assert not np.any(np.all(rel.released[~rel.published] == held[~rel.published], axis=1))
    np.testing.assert_array_equal(rel.errors, PlanarLaplace.distance(rel.released, rel.original))
    spent = np.where(rel.published, rel.epsilon_t, 1.0)
    expected = np.where(rel.published, 2.0 * (50.0 / spent), np.nan)  # 2r/ε_t
    np.testing.assert_array_equal(rel.expected_errors, expected)
