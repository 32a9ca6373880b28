"""Series suggestions scale with the sampling rate: the deviation window is a day of
readings (lmdk_core.landmarks.discovery.sampling_window), at most 20 events are offered
(cap_events), on the real series fixtures and on series that differ only in their rate
(docs/privacy-model.md, Discovery)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lmdk_core.data.series import load_series_csv
from lmdk_core.landmarks.discovery import (
    DEFAULT_DEVIATION_K,
    DEFAULT_MAX_SUGGESTED_EVENTS,
    DeviationSuggestion,
    cap_events,
    deviation_scores,
    sampling_window,
    seasonal_phase,
    series_suggestions,
)
from lmdk_core.population.landmarks import DiscoverySettings, discover_landmarks
from tests.conftest import assert_clean_error, run_cli

SERIES = Path(__file__).parents[1] / "data" / "real" / "series"


def _times(n: int, step_s: int) -> np.ndarray:
    return np.datetime64("2024-03-04T00:00") + np.arange(n) * np.timedelta64(step_s, "s")


# ---------------------------------------------------------------- the window
@pytest.mark.parametrize(("step_s", "n", "window"), [
    (3600, 24 * 30, 24),          # hourly: the former fixed default
    (300, 288 * 10, 288),         # 5-minute: a day
    (60, 1440 * 10, 1440),        # one-minute: a day, the most
    (5, 17280 * 2, 1440),         # 5-second: bounded to 1,440
    (86400, 400, 24),             # daily: the least
    (300, 400, 100),              # short: a quarter of the series
])
def test_the_window_is_a_day_of_readings_bounded(step_s, n, window):
    w, how = sampling_window(_times(n, step_s), "datetime", n)
    assert w == window, how
    assert how.startswith(f"{window} timestamps")


def test_times_that_are_not_dates_keep_24():
    w, how = sampling_window(np.arange(1871, 1971), "number", 100)
    assert w == 24 and "not dates" in how


# ---------------------------------------------------------------- the cap
def _s(t: int, score: float, reason: str = "deviation") -> DeviationSuggestion:
    return DeviationSuggestion(t, 1.0, 0.0, score, reason)


def test_the_cap_keeps_level_shifts_then_the_strongest_events_in_time_order():
    found = [_s(1, 9.0), _s(2, 6.0), _s(10, 5.5), _s(20, 2.0, "level_shift"),
             _s(21, 2.0, "level_shift"), _s(30, 7.0)]
    kept, left_out = cap_events(found, 3)
    assert [s.timestamp for s in kept] == [1, 2, 20, 21, 30]  # events (1-2), (20-21), 30
    assert left_out == 1
    assert cap_events(found, None) == (found, 0)
    assert cap_events(found, 4) == (found, 0)


# ---------------------------------------------------------------- the real fixtures
def _events(name: str, time_col: str, value_col: str):
    s = load_series_csv(SERIES / name, time_col=time_col, value_col=value_col)
    return s, series_suggestions(s.time, s.time_kind, s.values)


def test_run_log_5_seconds():
    """A 31-minute run every 5 s: with the fixed 24-reading window (2 minutes) its pace
    gave 43 suggestions in 8 events; a quarter of the run (94 readings) flags only the
    standing start."""
    s, got = _events("run-log.csv", "time", "Pace")
    assert got.window == 94
    assert 1 <= len(got.events) <= 3
    assert got.events[0][0] == 0


def test_occupancy_16_minutes():
    """Six days of office CO₂ every 16 minutes: a day is 90 readings; the weekend's low
    level (Sat 7 – Sun 8 Feb 2015) is one event, plus at most a few spikes."""
    s, got = _events("occupancy.csv", "time", "V4")
    assert got.window == 90 and "16-minute" in got.window_note
    assert 1 <= len(got.events) <= 5
    weekend = [(a, b) for a, b in got.events
               if str(s.time[a])[:10] == "2015-02-07" and str(s.time[b])[:10] == "2015-02-08"]
    assert weekend


def test_nile_yearly():
    s, got = _events("nile.csv", "year", "volume")
    assert got.window == 24
    assert [int(s.time[a]) for a, _ in got.events] == [1899]


def test_water_flow_hourly():
    """Hourly data keep the window of 24 and their suggestions; under the cap."""
    s, got = _events("water-flow.csv", "Time", "Water flow [l/s]")
    assert got.window == 24 and got.left_out == 0
    assert 5 <= len(got.events) <= DEFAULT_MAX_SUGGESTED_EVENTS


def test_a_random_walk_is_capped_and_says_so():
    s, got = _events("bitcoin.csv", "date", "price")
    assert len(got.events) == DEFAULT_MAX_SUGGESTED_EVENTS and got.left_out > 0


# ---------------------------------------------------------------- the property
def _meter(seed: int, hours: int, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """An hourly meter (daily profile, noise, 0–4 events of 1–3 whole hours) sampled
    ``rate`` times an hour: the same shape at every rate (each hour's value repeated)."""
    rng = np.random.default_rng(seed)  # data generator
    h = np.arange(hours)
    x = 0.5 + 0.4 * np.cos(2 * np.pi * (h - 19) / 24) + rng.normal(0, 0.05, hours)
    for _ in range(int(rng.integers(0, 5))):
        a, d = int(rng.integers(0, hours - 3)), int(rng.integers(1, 4))
        x[a:a + d] += rng.uniform(1, 4)
    return _times(hours * rate, 3600 // rate), np.repeat(x, rate)


#: A fine event on hours the hourly series does not flag must score there at least this
#: share of k (test_resampling_finer_does_not_add_suggestions): 0.95 until a meter
#: scoring 4.69σ hourly (0.94 k) was suggested at 15 minutes (seed 2,047,983,838) — the
#: same estimation noise as the 4.92σ case below, a little larger; a detector that saw
#: more in finer data would flag hours far below k.
BORDERLINE = 0.9


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hours=st.integers(96, 144),
       rate=st.sampled_from([2, 4, 6, 12, 60]))
@example(seed=528794202, hours=138, rate=2)     # hour 41: 4.92σ hourly, 5.01σ finer
@example(seed=2_047_983_838, hours=107, rate=4)  # hour 83: 4.69σ hourly
@example(seed=3461897003, hours=131, rate=12)   # was a level shift at 5 minutes only
def test_resampling_finer_does_not_add_suggestions(seed, hours, rate):
    """The same series hourly and ``rate`` times finer: every event suggested on the
    finer series lies on hours the hourly series suggests too, or on hours it scores
    within 10 % of the threshold k (with the fixed 24-reading window the events grew
    3 → 14 at one-minute sampling on one such meter; until the level-shift noise was
    measured an hour apart, 11 of 12 zero differences of a 5-minute copy made a 0.8σ
    dip a "shift").

    Why not "never more events": a centred median over an even window leans half a
    reading to the right (pandas), half an hour hourly but a quarter hour half-hourly,
    and a copy that repeats each hour's value cannot give every fine reading the
    hourly window, so the residuals — and the robust σ taken over all of them — differ
    by a few percent; a reading scoring 4.92σ hourly (k = 5) can score 5.01σ finer.
    That is a threshold meeting estimation noise, not a detector that sees more in
    finer data; a symmetric (odd) window would change the hourly suggestions the
    golden outputs pin."""
    t1, x1 = _meter(seed, hours, 1)
    tr, xr = _meter(seed, hours, rate)
    coarse = series_suggestions(t1, "datetime", x1, max_events=None)
    fine = series_suggestions(tr, "datetime", xr, max_events=None)
    assert fine.window == coarse.window * rate
    flagged = {s.timestamp for s in coarse.found}
    hourly_score = deviation_scores(x1, coarse.window,
                                    seasonal_phase(t1, "datetime").phase).score
    for a, b in fine.events:
        hrs = range(a // rate, b // rate + 1)
        if flagged.isdisjoint(hrs):
            assert max(hourly_score[h] for h in hrs) >= BORDERLINE * DEFAULT_DEVIATION_K, (
                f"fine event {(a, b)} on hours {hrs} the hourly series does not flag")
            assert {s.reason for s in fine.found if a <= s.timestamp <= b} == {"deviation"}


# ---------------------------------------------------------------- CLI and batch
def test_cli_suggest_reports_the_window_and_the_cap():
    p = run_cli("suggest", "--input", str(SERIES / "bitcoin.csv"), "--time-col", "date",
                "--value-col", "price", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["parameters"]["window"] == 24
    assert out["parameters"]["window_from"].startswith("24 timestamps")
    assert out["parameters"]["events_left_out"] > 0 and len(out["events"]) == 20
    p = run_cli("suggest", "--input", str(SERIES / "run-log.csv"), "--value-col", "Pace")
    assert p.returncode == 0 and "window: 94 timestamps: a quarter" in p.stdout
    p = run_cli("suggest", "--input", str(SERIES / "run-log.csv"), "--value-col", "Pace",
                "--window", "24", "--json")
    assert json.loads(p.stdout)["parameters"]["window"] == 24


def test_cli_suggest_bad_max_events():
    assert_clean_error(run_cli("suggest", "--input", str(SERIES / "nile.csv"), "--time-col",
                               "year", "--value-col", "volume", "--max-events", "0"),
                       "--max-events")


def test_batch_discovery_uses_the_derived_window_without_a_cap():
    t, x = _meter(3, 120, 12)
    got = discover_landmarks(t, x, "datetime", DiscoverySettings())
    want = series_suggestions(t, "datetime", x, max_events=None)
    assert want.window == 288
    assert got.tolist() == sorted(s.timestamp for s in want.found)
    assert DiscoverySettings.from_extra({"discovery": {"window": None}}).window is None
