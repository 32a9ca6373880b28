"""Landmark discovery: stay points on synthetic tracks with known stays (Li et al.
2008) and deviation suggestions on series with injected spikes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import theilslopes

from lmdk_core.data.track import Track
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import destination, distance_m
from lmdk_core.landmarks.discovery import (
    DeviationSuggestion,
    detect_stay_points,
    deviation_scores,
    deviation_suggestions,
    stay_points,
    suggested_timestamps,
    track_minutes,
)

START = (48.8566, 2.3522)
WALK_M_PER_MIN = 84.0  # 1.4 m/s


def synthetic_track(segments, seed=0, start=START, jitter_m=30.0):
    """One point per minute. ``segments``: ("walk", n) moves n points east at 84 m/min;
    ("stay", n) holds n points within ``jitter_m`` of the next position.

    Returns (lat, lon, truth) with truth = list of (first, last, (lat, lon)) per stay.
    """
    rng = np.random.default_rng(seed)
    lat, lon = start
    la, lo, truth = [], [], []
    for kind, n in segments:
        if kind == "walk":
            for _ in range(n):
                lat, lon = (float(v) for v in destination(lat, lon, 90.0, WALK_M_PER_MIN))
                la.append(lat)
                lo.append(lon)
        else:
            lat, lon = (float(v) for v in destination(lat, lon, 90.0, WALK_M_PER_MIN))
            r = jitter_m * np.sqrt(rng.random(n))
            az = rng.uniform(0, 360, n)
            pla, plo = destination(np.full(n, lat), np.full(n, lon), az, r)
            truth.append((len(la), len(la) + n - 1, (lat, lon)))
            la.extend(pla.tolist())
            lo.extend(plo.tolist())
    return np.array(la), np.array(lo), truth


def as_track(lat, lon, kind="datetime", step_min=1.0):
    n = lat.size
    if kind == "datetime":
        time = pd.date_range("2024-05-01 08:00", periods=n, freq=f"{step_min}min").to_numpy()
    elif kind == "number":
        time = 1.7e9 + np.arange(n) * 60.0 * step_min  # Unix seconds
    else:
        time = np.arange(n, dtype=float)
    return Track(lat=lat, lon=lon, time=time, time_kind=kind)


def assert_matches_truth(stays, truth, slack=3):
    assert len(stays) == len(truth)
    for s, (first, last, (clat, clon)) in zip(stays, truth, strict=True):
        # the visit is covered, give or take the walking points within the radius
        assert first - slack <= s.start <= first and last <= s.end <= last + slack
        assert float(distance_m(s.lat, s.lon, clat, clon)) < 60
        assert (last - first) <= s.duration_minutes <= (last - first) + 2 * slack
        assert s.timestamps == list(range(s.start, s.end + 1))


def test_known_stays_are_found():
    lat, lon, truth = synthetic_track(
        [("walk", 30), ("stay", 45), ("walk", 25), ("stay", 30), ("walk", 20)])
    stays = stay_points(as_track(lat, lon))
    assert_matches_truth(stays, truth)
    d = stays[0].to_dict()
    assert d["reason"] == "stay" and set(d["centroid"]) == {"lat", "lon"}
    assert d["arrival"].startswith("2024-05-01T")


@pytest.mark.parametrize("speed", [WALK_M_PER_MIN, 15.0, 400.0])
def test_no_stay_on_straight_constant_speed_walk(speed):
    n = 200
    lat, lon = destination(np.full(n, START[0]), np.full(n, START[1]), 45.0,
                           speed * np.arange(n))
    assert stay_points(as_track(lat, lon)) == []


def test_time_threshold_decides():
    lat, lon, truth = synthetic_track([("walk", 10), ("stay", 16), ("walk", 10)])
    track = as_track(lat, lon)
    assert stay_points(track) == []  # 15 (+ up to 4) minutes < 20
    assert_matches_truth(stay_points(track, time_threshold_min=10), truth)


def test_distance_threshold_decides():
    lat, lon, truth = synthetic_track([("walk", 10), ("stay", 40), ("walk", 10)],
                                      jitter_m=150.0)
    track = as_track(lat, lon)
    # points 150 m around the centre are up to 300 m apart: a 50 m radius finds no stay
    assert stay_points(track, distance_threshold_m=50.0) == []
    big = stay_points(track, distance_threshold_m=400.0)
    assert len(big) == 1 and big[0].duration_minutes >= 30


def test_stay_at_end_of_track():
    lat, lon, truth = synthetic_track([("walk", 15), ("stay", 25)])
    assert_matches_truth(stay_points(as_track(lat, lon)), truth)


def test_track_without_times():
    lat, lon, truth = synthetic_track([("walk", 20), ("stay", 30), ("walk", 20)])
    track = as_track(lat, lon, kind="index")
    with pytest.raises(InputError, match="minutes per point"):
        stay_points(track)
    assert_matches_truth(stay_points(track, minutes_per_point=1.0), truth)
    # every 30 s the visit lasts half as long: below the threshold
    assert stay_points(track, minutes_per_point=0.5) == []


def test_numeric_times_are_seconds_by_default():
    lat, lon, truth = synthetic_track([("walk", 20), ("stay", 30), ("walk", 20)])
    track = as_track(lat, lon, kind="number")
    np.testing.assert_allclose(track_minutes(track), np.arange(lat.size))
    assert_matches_truth(stay_points(track), truth)
    # read as minutes, the same numbers span 60x longer: every 3 points are 3 hours
    assert len(stay_points(track, minutes_per_time_unit=1.0)) > 1


def test_missing_time_and_bad_parameters():
    lat, lon, _ = synthetic_track([("walk", 5), ("stay", 25)])
    times = pd.date_range("2024-05-01", periods=lat.size, freq="1min").to_numpy().copy()
    times[3] = np.datetime64("NaT")
    with pytest.raises(InputError, match="point 3 has no time"):
        stay_points(Track(lat=lat, lon=lon, time=times, time_kind="datetime"))
    track = as_track(lat, lon)
    for kw, frag in [({"distance_threshold_m": 0}, "distance"),
                     ({"time_threshold_min": -5}, "time threshold"),
                     ({"minutes_per_point": 0}, "minutes per point")]:
        with pytest.raises(InputError, match=frag):
            stay_points(track, **kw)
    with pytest.raises(InputError, match="empty"):
        detect_stay_points([], [], [])
    with pytest.raises(InputError, match="earlier"):
        detect_stay_points([1.0, 1.0], [2.0, 2.0], [5.0, 1.0])


def test_centroid_across_the_antimeridian():
    n = 30
    lon = np.where(np.arange(n) % 2 == 0, 179.9999, -179.9999)
    stays = detect_stay_points(np.full(n, -17.0), lon, np.arange(n, dtype=float))
    assert len(stays) == 1
    assert abs(stays[0].lon) > 179.99  # not 0, on the other side of the globe


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(5, 20), st.integers(26, 60)), min_size=1, max_size=3),
       st.integers(0, 10_000))
def test_random_stays_are_found(plan, seed):
    segments = []
    for walk, stay in plan:
        segments += [("walk", walk), ("stay", stay)]
    segments.append(("walk", 5))
    lat, lon, truth = synthetic_track(segments, seed=seed)
    assert_matches_truth(stay_points(as_track(lat, lon)), truth)


# -------------------------------------------------------------------------- deviations


def seasonal_series(n=24 * 14, seed=0, noise=0.1):
    """A slow weekly cycle and trend (the 24-point rolling median follows them) + noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return 2 + 0.5 * np.sin(2 * np.pi * t / 168) + 0.002 * t + rng.normal(0, noise, n)


def test_injected_spikes_are_found():
    x = seasonal_series()
    spikes = {40: 2.0, 100: -1.5, 101: 1.8, 250: 3.0}
    for t, v in spikes.items():
        x[t] += v
    found = {s.timestamp: s for s in deviation_suggestions(x)}
    clean = {s.timestamp for s in deviation_suggestions(seasonal_series())}
    assert len(clean) <= 2  # 5 robust sd of N(0, 0.1) noise: rare
    assert set(found) == set(spikes) | clean
    top = sorted(found.values(), key=lambda s: -s.score)[: len(spikes)]
    assert {s.timestamp for s in top} == set(spikes)
    for t, v in spikes.items():
        s = found[t]
        assert s.score > 10 and s.direction == ("above" if v > 0 else "below")
        assert s.to_dict()["reason"] == "deviation" and s.to_dict()["timestamps"] == [t]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 40), st.lists(st.integers(13, 90), max_size=5), st.integers(0, 10_000),
       st.data())
def test_random_spikes_are_found(first, gaps, seed, data):
    """Isolated spikes (>= 13 apart: at most one per half window) of 12-50 noise sd."""
    positions = {int(t) for t in np.cumsum([first, *gaps]) if t < 336}
    x = seasonal_series(seed=seed)
    for t in positions:
        x[t] += data.draw(st.sampled_from([-1, 1])) * data.draw(st.floats(1.2, 5.0))
    found = deviation_suggestions(x)
    scores = {s.timestamp: s.score for s in found}
    assert positions <= set(scores)
    # spikes against the noise's deviation scores; a level-shift suggestion carries its
    # CUSUM significance instead (without a seasonal phase, the trough of this weekly
    # cycle can be one: tests/engine/test_real_data_faults.py covers shifts)
    others = [s.score for s in found
              if s.timestamp not in positions and s.to_dict()["reason"] == "deviation"]
    # every spike (>= 12 noise sd) outranks every point of the noise
    assert min(scores[t] for t in positions) > max(others, default=0.0)


def test_scores_follow_the_formula():
    x = np.array([1.0, 2.0, 1.5, 9.0, 1.2, 1.4, 0.8, 1.1, 1.3])
    base, score = deviation_scores(x, window=3)
    ref = np.array([np.median(x[max(0, t - 1): t + 2]) for t in range(x.size)])
    # the two ends: Theil–Sen lines through the first / last 3 values
    t = np.arange(x.size)
    s0, i0 = theilslopes(x[:3], t[:3])[:2]
    s1, i1 = theilslopes(x[-3:], t[-3:])[:2]
    ref[0], ref[-1] = i0, i1 + s1 * t[-1]
    np.testing.assert_allclose(base, ref)
    r = x - ref
    sigma = 1.4826 * np.median(np.abs(r - np.median(r)))
    np.testing.assert_allclose(score, np.abs(r) / sigma)
    assert [s.timestamp for s in deviation_suggestions(x, window=3)] == [3]


def test_trend_does_not_flag_the_ends():
    rng = np.random.default_rng(4)
    t = np.arange(200)
    x = 5 + 0.5 * np.sin(2 * np.pi * t / 100) + rng.normal(0, 0.05, t.size)
    found = [s.timestamp for s in deviation_suggestions(x)]
    assert not [f for f in found if f < 12 or f >= 188], found
    x[[1, 198]] += [0.8, -0.8]  # 16 noise sd at the very ends
    found = [s.timestamp for s in deviation_suggestions(x)]
    assert 1 in found and 198 in found


def test_short_series():
    assert [s.timestamp for s in deviation_suggestions([1.0, 1.1, 0.9, 1.0, 9.0, 1.05])] == [4]
    assert deviation_suggestions([3.0]) == [] and deviation_suggestions([1.0, 2.0]) == []


def test_flat_series():
    x = np.full(100, 5.0)
    assert deviation_suggestions(x) == []
    x[37] = 6.0  # the MAD is 0: the mean absolute deviation takes over
    found = deviation_suggestions(x)
    assert [s.timestamp for s in found] == [37] and np.isfinite(found[0].score)


def test_deviation_bad_input():
    with pytest.raises(InputError, match="empty"):
        deviation_suggestions([])
    with pytest.raises(InputError, match="t=2"):
        deviation_suggestions([1.0, 2.0, np.nan, 3.0])
    with pytest.raises(InputError, match="at least 3"):
        deviation_suggestions(np.ones(10), window=2)
    with pytest.raises(InputError, match="whole number"):
        deviation_suggestions(np.ones(10), window=2.5)
    with pytest.raises(InputError, match="threshold k"):
        deviation_suggestions(np.ones(10), k=0)


def test_suggested_timestamps_union():
    lat, lon, _ = synthetic_track([("walk", 10), ("stay", 25)])
    stays = stay_points(as_track(lat, lon))
    dev = [DeviationSuggestion(3, 1.0, 0.0, 9.0), DeviationSuggestion(11, 1.0, 0.0, 9.0)]
    out = suggested_timestamps([*stays, *dev])
    assert out == sorted({3, 11, *stays[0].timestamps})
