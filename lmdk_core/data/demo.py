"""Built-in demo data, generated deterministically (no files, no network).

``demo_series``: one week of hourly electricity readings (kWh) of one household, with a
few notable events that a privacy officer would mark as landmarks.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.data.series import Series

__all__ = ["DEMO_SERIES_EVENTS", "demo_series", "demo_series_landmarks", "demo_series_times"]

#: the demo week's first hour
DEMO_SERIES_START = "2024-03-04T00:00"

#: notable events of the demo week: (hour index, what happened)
DEMO_SERIES_EVENTS: list[tuple[int, str]] = [
    (27, "Tue 03:00 - medical device running at night"),
    (28, "Tue 04:00 - medical device running at night"),
    (85, "Thu 13:00 - house empty: hospital visit"),
    (86, "Thu 14:00 - house empty: hospital visit"),
    (139, "Sat 19:00 - party: many guests"),
]


def demo_series() -> Series:
    """168 hourly readings (Mon 00:00 .. Sun 23:00, week of 2024-03-04) in kWh."""
    rng = np.random.default_rng(20240304)
    hours = np.arange(168)
    hod = hours % 24
    day = hours // 24
    base = 0.25 + 0.05 * np.cos(2 * np.pi * (hod - 3) / 24)
    morning = 0.9 * np.exp(-0.5 * ((hod - 7.5) / 1.0) ** 2)
    evening = 1.4 * np.exp(-0.5 * ((hod - 19.5) / 1.6) ** 2)
    weekend = day >= 5
    midday = np.where(weekend, 0.6, 0.1) * np.exp(-0.5 * ((hod - 13) / 2.0) ** 2)
    values = base + morning + evening + midday + rng.gamma(2.0, 0.05, size=168)
    values[[27, 28]] += [2.6, 2.4]      # night-time device
    values[[84, 85, 86, 87]] = [0.22, 0.12, 0.11, 0.2]  # empty house
    values[[138, 139, 140]] += [1.2, 2.9, 1.8]  # party
    return Series(time=demo_series_times(168), values=np.round(values, 2),
                  time_kind="datetime", name="Household electricity, one week (demo)",
                  unit="kWh")


def demo_series_times(n: int) -> np.ndarray:
    """``n`` hourly times from the demo week's start: the values and dtype (pandas 3's
    ``datetime64[us]``) of ``pd.date_range("2024-03-04", periods=n, freq="h")
    .to_numpy()``, which they replace (pandas cost the report 0.2 s of CPU to import;
    tests/engine/test_report_without_pandas.py compares them)."""
    start = np.datetime64(DEMO_SERIES_START, "us")
    return start + np.arange(n, dtype=np.int64) * np.timedelta64(1, "h")


def demo_series_landmarks() -> list[int]:
    """The demo's notable hours, as 0-based timestamps."""
    return [t for t, _ in DEMO_SERIES_EVENTS]
