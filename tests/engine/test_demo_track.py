"""The built-in demo day in Paris: deterministic, realistic, with sensible default landmarks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk_core.data.demo_track import (
    DEMO_DATE,
    DEMO_PLACES,
    demo_track,
    demo_track_events,
    demo_track_landmarks,
)
from lmdk_core.data.track_loading import load_track
from lmdk_core.engine.release import release_trajectory
from lmdk_core.files.export import trajectory_release_frame
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.landmarks.discovery import stay_points


def test_demo_is_deterministic():
    a, b = demo_track(), demo_track()
    assert np.array_equal(a.lat, b.lat) and np.array_equal(a.lon, b.lon)
    assert np.array_equal(a.time, b.time)
    assert demo_track_landmarks() == demo_track_landmarks()


def test_one_day_in_paris_a_point_every_few_minutes():
    tr = demo_track()
    assert 300 <= len(tr) <= 500
    assert tr.time_kind == "datetime"
    times = pd.DatetimeIndex(tr.time)
    assert (times.normalize() == pd.Timestamp(DEMO_DATE)).all()  # one date
    assert times[0].hour == 0 and times[-1].hour == 23
    gaps = np.diff(times.asi8) / 60e9
    assert gaps.min() > 0 and gaps.max() <= 6  # increasing; at most ~5 minutes apart
    # inside Paris (between Opéra and Montmartre, give or take)
    assert tr.lat.min() > 48.85 and tr.lat.max() < 48.90
    assert tr.lon.min() > 2.31 and tr.lon.max() < 2.38


def test_moves_at_walking_or_metro_speed():
    tr = demo_track()
    step = distance_m(tr.lat[:-1], tr.lon[:-1], tr.lat[1:], tr.lon[1:])
    seconds = np.diff(pd.DatetimeIndex(tr.time).asi8) / 1e9
    speed = step / seconds
    assert np.percentile(speed, 99) < 12  # metro ~8 m/s plus GPS jitter
    assert np.median(speed) < 0.5  # mostly staying somewhere


def test_stays_are_found_at_the_places():
    tr = demo_track()
    stays = stay_points(tr)
    assert 6 <= len(stays) <= 12
    for key in ("home", "work", "lunch", "clinic", "evening"):
        p = DEMO_PLACES[key]
        d = [float(distance_m(s.lat, s.lon, p.lat, p.lon)) for s in stays]
        assert min(d) < 150, key
    # the night at home is the longest stay
    assert max(stays, key=lambda s: s.duration_minutes).start == 0


def test_default_landmarks_home_at_night_and_clinic_visit():
    tr = demo_track()
    events = demo_track_events()
    lm = demo_track_landmarks()
    assert lm == [t for t, _ in events] and lm == sorted(lm) and len(lm) == 4
    night = lm[0]
    assert pd.Timestamp(tr.time[night]).hour == 3
    home, clinic = DEMO_PLACES["home"], DEMO_PLACES["clinic"]
    assert distance_m(tr.lat[night], tr.lon[night], home.lat, home.lon) < 50
    for t in lm[1:]:
        assert distance_m(tr.lat[t], tr.lon[t], clinic.lat, clinic.lon) < 50
        assert 15 <= pd.Timestamp(tr.time[t]).hour <= 16
    assert "clinic" in events[1][1] and "home" in events[0][1]


def test_places_are_waypoints_attached_to_the_nearest_point():
    tr = demo_track()
    assert [w.name for w in tr.waypoints] == [p.name for p in DEMO_PLACES.values()]
    for w in tr.waypoints:
        assert 0 <= w.index < len(tr) and w.distance_m < 30


def test_demo_round_trips_through_the_release_csv():
    tr = demo_track()
    rel = release_trajectory(tr.lat, tr.lon, demo_track_landmarks(), epsilon=1.0, radius=100,
                             scheme="uniform", seed=0)
    csv = trajectory_release_frame(tr, rel).to_csv(index=False).encode()
    again = load_track(csv, filename="demo.csv")
    assert np.allclose(again.lat, tr.lat) and np.allclose(again.lon, tr.lon)
    assert again.time_kind == "datetime" and np.array_equal(again.time, tr.time)
