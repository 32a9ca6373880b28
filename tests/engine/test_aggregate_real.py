"""Population statistics on a real multi-user, multi-day table (GeoLife users 000–010,
tests/data/real/README.md): at ε = 1, k = 5 landmark windows per user (stays discovered),
hourly windows and 2 km cells, the landmark-private cell counts' measured mean absolute
error is at most a quarter of user level's at the same ε (numpy noise, seed 20261206;
benchmarks/bench_aggregate.py prints the whole table)."""

from __future__ import annotations

import json
from pathlib import Path

from lmdk_core.cli import main

REAL = (Path(__file__).resolve().parents[1] / "data" / "real" / "geolife-multiuser"
        / "geolife-11users-per-minute.csv")


def test_landmark_level_error_is_at_most_a_quarter_of_user_level(tmp_path, capsys):
    rc = main(["aggregate", "--input", str(REAL), "--user-col", "user", "--time-col", "time",
               "--window", "1h", "--lat-col", "lat", "--lon-col", "lon", "--cell", "2000",
               "--bbox", "39.85,116.20,40.10,116.50", "--start", "2008-10-23T00:00",
               "--end", "2008-11-03T00:00", "--landmarks-per-user", "5", "--epsilon", "1",
               "--scheme", "uniform", "--output", str(tmp_path / "stats.csv"),
               "--noise", "fast", "--seed", "20261206", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    summary = json.loads(out.out)
    measured = summary["confidential"]["measured_error"]
    assert summary["confidential"]["users"] >= 10 and summary["windows"] == 264
    assert measured["landmark"] <= measured["user"] / 4
    assert measured["event"] < measured["landmark"] < measured["w-event"] < measured["user"]
    expected = {lv["level"]: lv["expected_error"] for lv in summary["levels"]}
    for level, err in measured.items():  # 48,048 values per level: within 5 % of the law
        assert abs(err / expected[level] - 1) < 0.05, level
