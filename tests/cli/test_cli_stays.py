"""Stays as landmark events through the CLI on real multi-day GeoLife tracks
(tests/data/real/geolife/, sources in tests/data/real/README.md): ``lmdk suggest`` offers
``--stays``, ``lmdk geo-release --stays`` releases them as one event each, and with the
suggested stays accepted at the defaults the displacement is usable."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
GEOLIFE = sorted((ROOT / "tests" / "data" / "real" / "geolife").glob("*.csv"))
#: every real multi-day GeoLife trajectory (the CSV conversions and the PLT file)
MULTI_DAY = GEOLIFE + sorted((ROOT / "tests" / "data" / "real" / "gps").glob("geolife*.plt"))


def lmdk(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=ROOT)


def ok_json(*args: str) -> dict:
    proc = lmdk(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_real_fixtures_are_there():
    assert len(GEOLIFE) >= 3 and len(MULTI_DAY) >= 4


@pytest.mark.parametrize("path", MULTI_DAY, ids=lambda p: p.name)
def test_suggested_stays_accepted_at_the_defaults_give_a_usable_release(path, tmp_path):
    """Target of issue 25 on real multi-day tracks: with the suggested stays accepted as
    they are and every other setting at its default (ε = 1, r = 100 m, Uniform), the
    median displacement is at most 5 km and none is beyond 100 km. Seeds 0 and 1 (the
    noise is seeded, so the figures are fixed; bench_stays.py shows seeds 0-4)."""
    sug = ok_json("suggest", "--input", str(path))
    assert sug["stays"], "the multi-day track has stays"
    spans = [tuple(int(v) for v in r.split("-")) for r in sug["stays"].split(",")]
    assert [(s["start"], s["end"]) for s in sug["suggestions"]] == spans
    # per-fix landmarks are still listed (the other way to accept)
    assert len(sug["landmarks"]) == sum(b - a + 1 for a, b in spans)
    for seed in ("0", "1"):
        out = ok_json("geo-release", "--noise", "fast",
                      "--input", str(path), "--stays", sug["stays"],
                      "--epsilon", "1", "--max-landmarks", str(len(spans)), "--seed", seed,
                      "--output", str(tmp_path / "o.csv"))
        assert out["landmark_private"] is True
        assert out["n_stays"] == len(spans) and out["n_landmark_events"] == len(spans)
        assert out["n_landmarks"] == len(sug["landmarks"])
        assert out["median_displacement_m"] <= 5_000, out
        assert out["max_displacement_m"] <= 100_000, out


def test_per_fix_landmarks_are_what_ruined_the_release(tmp_path):
    """Every fix of every stay a landmark (instead of one event per stay) on the track
    with most stays: the median displacement is over 100 km (seed 0)."""
    path = ROOT / "tests" / "data" / "real" / "geolife" / "geolife-user004.csv"
    sug = ok_json("suggest", "--input", str(path))
    out = ok_json("geo-release", "--noise", "fast", "--input", str(path), "--landmarks",
                  ",".join(str(t) for t in sug["landmarks"]), "--epsilon", "1", "--seed", "0",
                  "--max-landmarks", str(len(sug["landmarks"])),
                  "--output", str(tmp_path / "o.csv"))
    assert out["landmark_private"] is True and out["n_stays"] == 0
    assert out["median_displacement_m"] > 100_000


def test_suggest_text_offers_the_stays_and_geo_release_reports_them(tmp_path):
    path = GEOLIFE[0]
    proc = lmdk("suggest", "--input", str(path))
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "--stays" in ln)
    stays = line.rsplit("--stays ", 1)[1].strip()
    proc = lmdk("geo-release", "--noise", "fast",
                "--input", str(path), "--stays", stays, "--epsilon", "1",
                "--seed", "3", "--output", str(tmp_path / "o.csv"),
                "--audit", str(tmp_path / "audit.csv"))
    assert proc.returncode == 0, proc.stderr
    assert "protected as one landmark event each" in proc.stdout
    assert "Landmark-private" in proc.stdout
    # the CONFIDENTIAL audit names the stays; the publishable file holds released
    # values only: no stay, no landmark
    audit = (tmp_path / "audit.csv").read_text()
    assert "CONFIDENTIAL" in audit
    assert f"stays, one landmark event each (0-based ranges): {stays}" in audit
    head = (tmp_path / "o.csv").read_text().splitlines()
    assert not any("stay" in h.lower() or "landmark" in h.lower() for h in head if
                   not h.startswith("#"))


@pytest.mark.parametrize("stays, fragment", [
    ("10-5", "ends before it starts"),
    ("a-b", "not a range"),
    ("0-50,40-60", "overlap"),
    ("0-999999", "not a range of timestamps"),
])
def test_bad_stays_are_one_line_and_exit_2(stays, fragment, tmp_path):
    proc = lmdk("geo-release", "--noise", "fast",
                "--input", str(GEOLIFE[0]), "--stays", stays, "--epsilon", "1",
                "--output", str(tmp_path / "o.csv"))
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert fragment in lines[0], lines[0]


def test_a_report_of_a_view_with_stays_releases_them_as_events():
    """A saved Map view keeps its stays in extra.stays; the report recomputes the
    release with them (one event each) and verifies the grouped theorem; a stay outside
    the data is refused."""
    import pandas as pd

    from lmdk_core.files.config import ViewConfig
    from lmdk_core.foundation.errors import InputError
    from lmdk_core.report.compute import compute_report

    df = pd.read_csv(GEOLIFE[0])
    data = {"time": df["time"].tolist(), "lat": df["lat"].tolist(), "lon": df["lon"].tolist()}
    sug = ok_json("suggest", "--input", str(GEOLIFE[0]))
    spans = tuple(tuple(int(v) for v in r.split("-")) for r in sug["stays"].split(","))
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=data,
                     landmarks=sug["landmarks"], seed=1,
                     extra={"stays": sug["stays"], "max_landmarks": len(spans)})
    rep = compute_report(cfg)
    assert rep.release.stays == spans and rep.release.verdict.groups == spans
    assert rep.release.verdict.private
    n = len(spans)
    assert rep.release.epsilon_t.max() == pytest.approx(1.0 / (n + 1))  # declared k = n
    bad = ViewConfig(data_kind="track", dataset="embedded", data=data,
                     extra={"stays": f"0-{len(df)}"})
    with pytest.raises(InputError, match="not a range of timestamps"):
        compute_report(bad)
