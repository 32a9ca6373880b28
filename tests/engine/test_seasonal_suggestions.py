"""Seasonal spike suggestions: the daily peaks of a meter are not landmarks.

Synthetic hourly meter, 4 weeks (seed 7): base load 0.3 kWh, a morning peak at 06:00
(+1.5) and an evening peak at 19:00 (+2.0), each reading scaled by U(0.6, 1.4) and
N(0, 0.05) noise added; four real anomalies of +2.8 to +4.0 kWh at other hours."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.discovery import deviation_suggestions, seasonal_phase

ANOMALIES = {100: 3.5, 250: 4.0, 400: 2.8, 555: 3.0}


def meter(weeks: int = 4, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = pd.date_range("2024-01-01", periods=weeks * 168, freq="h")
    h = t.hour.to_numpy()
    x = 0.3 + 1.5 * np.exp(-0.5 * ((h - 6) / 0.7) ** 2) + 2.0 * np.exp(-0.5 * ((h - 19) / 1.0) ** 2)
    x = x * rng.uniform(0.6, 1.4, size=x.size) + rng.normal(0, 0.05, x.size)
    for i, v in ANOMALIES.items():
        x[i] += v
    return t.to_numpy(), np.clip(x, 0, None)


def test_daily_peaks_are_not_suggested_but_anomalies_are():
    t, x = meter()
    before = deviation_suggestions(x)  # rolling median only
    phase, label = seasonal_phase(t, "datetime")
    after = deviation_suggestions(x, phase=phase)
    assert label == "hour of the day"
    # before: dozens of ordinary 06:00/19:00 peaks; after: exactly the four anomalies
    peak_hours = {5, 6, 7, 18, 19, 20}
    assert len(before) > 50
    assert sum(pd.Timestamp(t[s.timestamp]).hour in peak_hours for s in before) > 40
    assert [s.timestamp for s in after] == sorted(ANOMALIES)
    print(f"suggestions before/after the seasonal profile: {len(before)} / {len(after)}")


def test_phase_choice():
    t, _ = meter(weeks=9)
    assert seasonal_phase(t, "datetime")[1] == "hour of the week"
    ph, _ = seasonal_phase(t, "datetime", "day")
    assert ph[:25].tolist() == list(range(24)) + [0]
    assert seasonal_phase(t[:48], "datetime")[0] is None  # under 3 days
    assert seasonal_phase(np.arange(100), "number")[0] is None
    with pytest.raises(InputError, match="season"):
        seasonal_phase(t, "datetime", "month")


def test_cli_suggest_uses_the_season(tmp_path, capsys):
    t, x = meter()
    src = tmp_path / "meter.csv"
    pd.DataFrame({"time": pd.DatetimeIndex(t).strftime("%Y-%m-%dT%H:%M:%S"),
                  "value": x.round(4)}).to_csv(src, index=False)
    assert main(["suggest", "--input", str(src), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["landmarks"] == sorted(ANOMALIES)
    assert out["parameters"]["season"] == "hour of the day"
    assert main(["suggest", "--input", str(src), "--season", "none", "--max-events",
                 "10000", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["landmarks"]) > 50
    # the same daily peaks, capped: the 20 strongest events are offered, the rest counted
    assert main(["suggest", "--input", str(src), "--season", "none", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["events"]) == 20 and out["parameters"]["events_left_out"] > 0
    assert "left out" in out["notes"][0]
