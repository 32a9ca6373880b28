"""A series' suggested runs of readings as ONE landmark event each, through the CLI on a
real sensor series (tests/data/real/series/occupancy.csv, UCI Occupancy Detection,
Candanedo & Feldheim 2016; tests/data/real/README.md): ``lmdk suggest`` offers the runs
and the k to declare, ``lmdk release --runs`` releases each run once (docs/series-events.md),
a declared k counts runs, not readings, and the release that was noise becomes useful."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.cli.test_cli_stays import lmdk, ok_json

ROOT = Path(__file__).resolve().parents[2]
OCCUPANCY = ROOT / "tests" / "data" / "real" / "series" / "occupancy.csv"
#: the CO₂ column (ppm), 16-minute readings over 6 days; the declared Δf and ε of the test
SERIES = ("--input", str(OCCUPANCY), "--time-col", "time", "--value-col", "V4")
SETTINGS = ("--epsilon", "2", "--sensitivity", "10", "--noise", "fast", "--seed", "3")


def suggested() -> dict:
    return ok_json("suggest", "--input", str(OCCUPANCY), "--value-col", "V4")


def test_suggest_offers_the_runs_and_the_k_to_declare():
    sug = suggested()
    events = [tuple(e) for e in sug["events"]]
    # the weekend's low level (129 readings) and one spike of 5: 134 readings, 2 events
    assert events == [(237, 365), (456, 460)]
    assert len(sug["landmarks"]) == 134
    assert sug["runs"] == "237-365,456-460"
    text = lmdk("suggest", "--input", str(OCCUPANCY), "--value-col", "V4").stdout
    assert "lmdk release --runs 237-365,456-460 --max-landmarks 2" in text
    assert "--scheme skip" in text


def test_a_suggested_run_is_one_event_and_the_release_becomes_useful(tmp_path):
    sug = suggested()
    every = ",".join(str(t) for t in sug["landmarks"])
    # every reading its own landmark: k must cover 134 events, and the release is noise
    per_reading = ok_json("release", *SERIES, *SETTINGS, "--landmarks", every,
                          "--max-landmarks", "134", "--output", str(tmp_path / "a.csv"))
    assert per_reading["landmark_private"] is True
    assert per_reading["utility"] == "not useful"
    # the advice names what would work: the runs as events, and Skip (better here)
    assert "--runs" in per_reading["utility_sentence"]
    assert "use Skip" in per_reading["utility_sentence"]
    # the suggested runs accepted as they are: 2 events, k = 2 covers them
    out = ok_json("release", *SERIES, *SETTINGS, "--runs", sug["runs"],
                  "--max-landmarks", "2", "--output", str(tmp_path / "b.csv"))
    assert out["landmark_private"] is True
    assert out["n_runs"] == 2 and out["n_landmark_events"] == 2
    assert out["utility"] == "useful", out["utility_sentence"]
    assert out["expected_error_typical"] < per_reading["expected_error_typical"] / 20


def test_a_declared_k_counts_events_not_readings(tmp_path):
    sug = suggested()
    every = ",".join(str(t) for t in sug["landmarks"])
    refused = lmdk("release", *SERIES, *SETTINGS, "--landmarks", every, "--max-landmarks",
                   "2", "--output", str(tmp_path / "a.csv"))
    err = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(err) == 1 and "134 landmark events" in err[0]
    refused = lmdk("release", *SERIES, *SETTINGS, "--runs", sug["runs"], "--max-landmarks",
                   "1", "--output", str(tmp_path / "b.csv"))
    err = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(err) == 1 and "2 landmark events" in err[0]


def test_the_published_runs_show_no_repeated_values_and_state_k_only(tmp_path):
    """Each reading of a run publishes the run's released level plus fresh noise
    (post-processing): no two consecutive equal values anywhere, and the header states
    the declared k, never the 134 readings or the 2 runs marked."""
    out = tmp_path / "b.csv"
    proc = lmdk("release", *SERIES, "--epsilon", "2", "--sensitivity", "10",
                "--runs", "237-365,456-460", "--max-landmarks", "3", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    header = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert any("k (declared bound on landmark events): 3" in ln for ln in header)
    assert not any("134" in ln or "237" in ln for ln in header)
    released = pd.read_csv(out, comment="#")["released"].to_numpy()
    assert released.size == 509 and np.isfinite(released).all()
    assert not (np.diff(released) == 0).any()


def test_runs_are_refused_clearly(tmp_path):
    for runs, says in (("237-900", "run"), ("x", "run")):
        proc = lmdk("release", *SERIES, *SETTINGS, "--runs", runs, "--output",
                    str(tmp_path / "a.csv"))
        err = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(err) == 1 and says in err[0], proc.stderr


def test_a_batch_counts_runs_of_flags_as_events(tmp_path):
    """examples/households.csv flags up to 12 consecutive readings per household: with
    each run of flags one event, a declared k = 5 releases every household; with every
    flagged reading its own event (extra.discovery.stays_as_events false) k = 5 is
    refused in one line."""
    cfg = json.loads((ROOT / "examples" / "batch_config.json").read_text(encoding="utf-8"))
    cfg["extra"]["max_landmarks"] = 5
    (tmp_path / "k5.json").write_text(json.dumps(cfg), encoding="utf-8")
    cfg["extra"]["discovery"] = {"stays_as_events": False}
    (tmp_path / "each.json").write_text(json.dumps(cfg), encoding="utf-8")
    args = ("--input", str(ROOT / "examples" / "households.csv"), "--user-col", "household",
            "--time-col", "time", "--value-col", "kwh", "--landmark-col", "event",
            "--noise", "fast", "--seed", "3", "--workers", "1")
    out, audit = tmp_path / "out.csv", tmp_path / "audit.csv"
    proc = lmdk("batch", "--config", str(tmp_path / "k5.json"), *args, "--output", str(out),
                "--audit", str(audit))
    assert proc.returncode == 0, proc.stderr
    head = out.read_text(encoding="utf-8").splitlines()[0]
    assert "k (declared bound on landmark events): 5" in head and "EXPLORATORY" not in head
    rows = pd.read_csv(audit, comment="#")
    assert rows["landmark_private"].all() and rows["n_landmarks"].max() == 12
    refused = lmdk("batch", "--config", str(tmp_path / "each.json"), *args, "--output",
                   str(tmp_path / "o2.csv"), "--audit", str(tmp_path / "a2.csv"))
    err = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(err) == 1 and "k = 5" in err[0], refused.stderr
