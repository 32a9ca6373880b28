"""``lmdk dummies`` and ``lmdk suggest`` through the ``lmdk`` entry point (in this
process, or real ``python -m lmdk_core`` processes with ``LMDK_CLI_SUBPROCESS=1``; see
``tests.conftest.run_cli``): JSON contract, and bad input -> exit 2, one stderr line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.dummies import OPTIMAL_MAX_REGULAR
from lmdk_core.foundation.geodesy import destination
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]


def lmdk(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=ROOT)


def ok_json(*args: str) -> dict:
    proc = lmdk(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def assert_clean_error(proc: subprocess.CompletedProcess, fragment: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("lmdk: error:"), lines[0]
    assert fragment.lower() in lines[0].lower(), (fragment, lines[0])
    assert proc.stdout == ""


# --------------------------------------------------------------------------- dummies


@pytest.mark.parametrize(("method", "metric"), [("heuristic", "gap_std"),
                                                ("optimal", "gap_std"),
                                                ("optimal", "nearest_mean")])
def test_dummies_json_contract(method, metric):
    out = ok_json("dummies", "--length", "12", "--landmarks", "2,3,9", "--method", method,
                  "--metric", metric, "--epsilon", "1", "--seed", "4")
    assert {"original_metric", "options", "probabilities", "selected"} <= set(out)
    opts = [set(o["timestamps"]) for o in out["options"]]
    assert len(opts) == 9
    prev = {2, 3, 9}
    for o in opts:
        assert prev < o and len(o) == len(prev) + 1
        prev = o
    assert opts[-1] == set(range(12))
    p = np.array(out["probabilities"])
    assert p.size == 9 and p.sum() == pytest.approx(1.0) and np.all(p > 0)
    u = -np.abs(np.array([o["metric"] for o in out["options"]]) - out["original_metric"])
    w = np.exp(1.0 * u / (2 * out["sensitivity"]))
    np.testing.assert_allclose(p, w / w.sum())
    assert out["sensitivity"] == pytest.approx(5.5)
    assert set(out["selected"]["timestamps"]) in opts
    assert out["method"] == method and out["metric"] == metric
    again = ok_json("dummies", "--length", "12", "--landmarks", "2,3,9", "--method", method,
                    "--metric", metric, "--epsilon", "1", "--seed", "4")
    assert again == out


def test_dummies_sensitivity_and_text_output():
    out = ok_json("dummies", "--length", "10", "--landmarks", "0,1", "--epsilon", "5",
                  "--sensitivity", "0.01", "--seed", "0", "--max-options", "4")
    assert len(out["options"]) == 4
    # a tiny sensitivity makes the selection (almost) deterministic: the closest option
    diffs = [abs(o["metric"] - out["original_metric"]) for o in out["options"]]
    assert out["selected"]["index"] == int(np.argmin(diffs))
    proc = lmdk("dummies", "--length", "10", "--landmarks", "0,1", "--epsilon", "1")
    assert proc.returncode == 0, proc.stderr
    assert "selected landmarks:" in proc.stdout and "probability" in proc.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--length", "10", "--landmarks", "12"], "outside the series"),
        (["--length", str(OPTIMAL_MAX_REGULAR + 3), "--landmarks", "0,1", "--method",
          "optimal"], f"limited to {OPTIMAL_MAX_REGULAR}"),
        (["--length", "10", "--landmarks", "2", "--epsilon", "0"],
         "--epsilon must be a number from 0.01 to 1,000"),
        (["--length", "10", "--landmarks", "2", "--epsilon", "-1"],
         "--epsilon must be a number from 0.01 to 1,000"),
        (["--length", "10", "--landmarks", ""], "at least one landmark"),
        (["--length", "0", "--landmarks", "0"], "--length must be a whole number from 1 to"),
        (["--length", "3", "--landmarks", "0,1,2"], "no regular timestamp"),
        (["--length", "ten", "--landmarks", "1"], "--length"),
        (["--length", "10", "--landmarks", "1,x"], "landmark `x` is not a range"),
        (["--length", "10", "--landmarks", "1", "--metric", "median"], "--metric"),
        (["--length", "10", "--landmarks", "1", "--sensitivity", "0"], "sensitivity"),
        (["--length", "10", "--landmarks", "1", "--method", "optimal", "--max-options", "2"],
         "heuristic only"),
    ],
)
def test_dummies_bad_input(args, fragment):
    full = ["dummies", *args]
    if "--epsilon" not in args:
        full += ["--epsilon", "1"]
    assert_clean_error(lmdk(*full, "--json"), fragment)


# --------------------------------------------------------------------------- suggest


def stay_track(n_walk=20, n_stay=40, seed=0):
    """Walk east 84 m/min, stay 40 min within 30 m, walk on; one point per minute."""
    rng = np.random.default_rng(seed)
    lat, lon = 48.8566, 2.3522
    la, lo = [], []
    for i in range(2 * n_walk + n_stay):
        if n_walk <= i < n_walk + n_stay:
            a, b = destination(lat, lon, rng.uniform(0, 360), 30 * np.sqrt(rng.random()))
            la.append(float(a))
            lo.append(float(b))
            continue
        lat, lon = (float(v) for v in destination(lat, lon, 90.0, 84.0))
        la.append(lat)
        lo.append(lon)
    time = pd.date_range("2024-05-01 08:00", periods=len(la), freq="1min")
    return pd.DataFrame({"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "lat": la, "lon": lo})


def write_gpx(frame: pd.DataFrame, path: Path, with_time: bool = True) -> None:
    pts = "\n".join(
        f'<trkpt lat="{r.lat}" lon="{r.lon}">'
        + (f"<time>{r.time}Z</time>" if with_time else "") + "</trkpt>"
        for r in frame.itertuples()
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><name>t</name><trkseg>{pts}</trkseg></trk></gpx>"
    )


def check_one_stay(out: dict, kind: str = "track") -> None:
    assert out["kind"] == kind and out["method"] == "stay_points"
    assert len(out["suggestions"]) == 1
    s = out["suggestions"][0]
    assert s["reason"] == "stay"
    assert 17 <= s["timestamps"][0] <= 20 and 59 <= s["timestamps"][-1] <= 62
    assert 39 <= s["duration_minutes"] <= 45
    assert set(s["centroid"]) == {"lat", "lon"}
    assert out["landmarks"] == s["timestamps"]


def test_suggest_track_csv_and_gpx(tmp_path):
    frame = stay_track()
    csv = tmp_path / "track.csv"
    frame.to_csv(csv, index=False)
    check_one_stay(ok_json("suggest", "--input", str(csv)))
    gpx = tmp_path / "track.gpx"
    write_gpx(frame, gpx)
    check_one_stay(ok_json("suggest", "--input", str(gpx)))
    # a longer time threshold: no stay
    out = ok_json("suggest", "--input", str(gpx), "--duration", "60")
    assert out["suggestions"] == [] and out["landmarks"] == []
    proc = lmdk("suggest", "--input", str(csv))
    assert proc.returncode == 0 and "stay t=" in proc.stdout


def test_suggest_track_without_times(tmp_path):
    frame = stay_track()[["lat", "lon"]]
    csv = tmp_path / "notime.csv"
    frame.to_csv(csv, index=False)
    assert_clean_error(lmdk("suggest", "--input", str(csv), "--json"), "--minutes-per-point")
    check_one_stay(ok_json("suggest", "--input", str(csv), "--minutes-per-point", "1"))
    gpx = tmp_path / "notime.gpx"
    write_gpx(stay_track(), gpx, with_time=False)
    assert_clean_error(lmdk("suggest", "--input", str(gpx)), "minutes per point")


def test_suggest_series(tmp_path):
    rng = np.random.default_rng(2)
    x = 5 + 0.5 * np.sin(2 * np.pi * np.arange(200) / 100) + rng.normal(0, 0.05, 200)
    x[[30, 150]] += [2.0, -1.5]
    csv = tmp_path / "series.csv"
    pd.DataFrame({"time": np.arange(200), "value": x}).to_csv(csv, index=False)
    out = ok_json("suggest", "--input", str(csv))
    assert out["kind"] == "series" and out["method"] == "deviation"
    assert {30, 150} <= set(out["landmarks"])
    assert all(s["reason"] == "deviation" and s["score"] > 5.0 for s in out["suggestions"])
    assert [s["timestamp"] for s in out["suggestions"] if s["score"] > 10] == [30, 150]
    assert out["landmarks"] == sorted(t for s in out["suggestions"] for t in s["timestamps"])
    # the seasonal profile (default --season auto) needs dates; these times are numbers
    assert out["parameters"] == {
        "window": 24, "k": 5.0, "season": "no seasonal profile (the times are not dates)",
        "window_from": "24 timestamps: the times are not dates: no sampling interval to "
                       "derive a day from",
        "max_events": 20, "events_left_out": 0}
    strict = ok_json("suggest", "--input", str(csv), "--k", "50")  # the largest k
    assert strict["landmarks"] == []


@pytest.mark.parametrize(
    ("content", "args", "fragment"),
    [
        ("", [], "empty"),
        ("time,value\n", [], "no data rows"),
        ("time,value\n0,1\n1,x\n", [], "line 3"),
        ("time,value\n0,1\n1,2\n2,3\n", ["--window", "2"],
         "--window must be a whole number from 3 to 10,000"),
        ("time,value\n0,1\n1,2\n2,3\n", ["--k", "0"], "--k must be a number from 0.5 to 50"),
        ("time,lat,lon\n0,48.1,2.3\n60,48.1,2.3\n", ["--distance", "-5"], "distance"),
        ("time,lat,lon\n0,95,2.3\n", [], "latitude"),
        ("<gpx>broken", [], "GPX"),
    ],
)
def test_suggest_bad_input(tmp_path, content, args, fragment):
    path = tmp_path / "input.csv"
    path.write_text(content)
    assert_clean_error(lmdk("suggest", "--input", str(path), *args, "--json"), fragment)


def test_suggest_missing_file(tmp_path):
    assert_clean_error(lmdk("suggest", "--input", str(tmp_path / "nope.csv")), "no such file")
