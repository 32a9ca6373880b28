"""A track's utility is judged by a typical day's extent, and its error is called a mean
(issue 37 §9: a traveller was rated *useful* at 32 km because the scale was the 2,000 km
extent; the CLI's "typical" error was a mean). Real multi-day track: GeoLife user 004's
ten recordings over five days (tests/data/real/gps/geolife-user004-recordings.gpx)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.data.track_loading import load_track
from lmdk_core.decision.utility import release_utility, utility_verdict
from lmdk_core.engine.release import release_trajectory
from lmdk_core.foundation.geodesy import distance_m
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
MULTI_DAY = ROOT / "tests" / "data" / "real" / "gps" / "geolife-user004-recordings.gpx"


def box_diagonal(lat: np.ndarray, lon: np.ndarray) -> float:
    la = np.percentile(lat, [2.5, 97.5])
    lo = np.percentile(lon, [2.5, 97.5])
    return float(distance_m(la[0], lo[0], la[1], lo[1]))


def test_a_multi_day_track_is_judged_by_its_typical_day():
    """The scale is the median over the track's 24-hour days (from the first fix) of each
    day's middle-95 % box diagonal, recomputed here with pandas."""
    track = load_track(str(MULTI_DAY), filename=str(MULTI_DAY))
    rel = release_trajectory(track.lat, track.lon, [], epsilon=1.0, radius=100.0, scheme="uniform",
                             seed=0, max_landmarks=5)
    uv = release_utility(rel, radius=100.0, times=track.time)
    t = pd.Series(track.time)
    day = ((t - t.min()) // pd.Timedelta(days=1)).to_numpy()
    extents = [box_diagonal(track.lat[day == d], track.lon[day == d]) for d in np.unique(day)]
    assert len(extents) == 5
    assert uv.scale.name == "typical day's extent"
    assert uv.scale.value == pytest.approx(float(np.median([e for e in extents if e > 0])),
                                           rel=1e-9)
    whole = release_utility(rel, radius=100.0)  # without times: the whole extent
    assert whole.scale.name == "extent" and uv.scale.value < whole.scale.value
    assert "a typical day's extent" in uv.sentence and "the median over the track's 5 days" \
        in uv.sentence


def test_a_traveller_32_km_off_is_not_useful():
    """The reported case: a week's journey of 2,000 km, each day in one town (a 3 km walk
    of fixes every 10 minutes, towns 330 km apart). At ε_t with 2r/ε_t = 32 km the
    extent made it 1.6 % — "useful"; a typical day's extent (about 3 km) makes it noise."""
    rng = np.random.default_rng(5)
    days, per_day = 7, 60
    start = np.datetime64("2024-06-01T08:00")
    times = np.concatenate([start + np.timedelta64(d, "D") + np.arange(per_day)
                            * np.timedelta64(10, "m") for d in range(days)])
    lat = np.full(days * per_day, 46.0) + rng.normal(0, 0.008, days * per_day)
    lon = np.repeat(np.arange(days) * 4.3, per_day) + rng.normal(0, 0.01, days * per_day)
    x = np.c_[lat, lon]
    eps_t = np.full(x.shape[0], 2 * 100.0 / 32_000)  # 2r/ε_t = 32 km at r = 100 m
    before = utility_verdict(x, eps_t, radius=100.0)
    after = utility_verdict(x, eps_t, radius=100.0, times=times)
    assert before.scale.value > 1.9e6 and before.level == "useful"
    assert 1_000 < after.scale.value < 5_000 and after.level == "not useful"
    assert "32 km" in after.sentence and "a typical day's extent" in after.sentence


def test_the_error_is_called_a_mean():
    """Uniform's single law: the stated error is its mean 2r/ε_t ("on average"), not a
    "typical" point (the median of Gamma(2, r/ε_t) is 1.68 r/ε_t, 16 % less)."""
    track = load_track(str(MULTI_DAY), filename=str(MULTI_DAY))
    rel = release_trajectory(track.lat, track.lon, [], epsilon=1.0, radius=100.0, scheme="uniform",
                             seed=0, max_landmarks=5)
    uv = release_utility(rel, radius=100.0, times=track.time)
    assert uv.typical == pytest.approx(1200.0)  # 2·100/(1/6)
    assert "a released point is on average 1.2 km from the truth" in uv.sentence
    assert "typical released" not in uv.sentence
    assert uv.short().startswith("mean error 1.2 km")


def test_geo_release_states_the_day_scale(tmp_path):
    proc = run_cli("geo-release", "--noise", "fast", "--input", str(MULTI_DAY),
                   "--epsilon", "1", "--seed", "1", "--output", str(tmp_path / "out.csv"),
                   "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    import json

    d = json.loads(proc.stdout)
    assert d["data_scale_name"] == "typical day's extent"
    assert "on average" in d["utility_sentence"]
