"""The lmdk CLI through its entry point (``tests.conftest.run_cli``: in process, or real
processes with ``LMDK_CLI_SUBPROCESS=1``): contract outputs and bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk_core.files.export import release_decimals
from tests.conftest import ASSETS, assert_clean_error, run_cli


def test_allocate_uniform_contract():
    p = run_cli("allocate", "--length", "10", "--landmarks", "2,5", "--epsilon", "1",
                "--scheme", "uniform", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"scheme", "epsilon_t", "landmark_private", "worst_timestamp",
                        "worst_total"}
    assert out["scheme"] == "uniform"
    np.testing.assert_allclose(out["epsilon_t"], [1 / 3] * 10)
    assert out["landmark_private"] is True
    assert out["worst_total"] == pytest.approx(1.0)


def test_allocate_event_is_flagged_and_no_landmarks_means_none():
    out = json.loads(run_cli("allocate", "--length", "4", "--landmarks", "1,2", "--epsilon",
                             "1", "--scheme", "event", "--json").stdout)
    assert out["landmark_private"] is False and out["worst_total"] == pytest.approx(3.0)
    out = json.loads(run_cli("allocate", "--length", "4", "--landmarks", "", "--epsilon", "2",
                             "--scheme", "skip", "--json").stdout)
    assert out["epsilon_t"] == [2, 2, 2, 2] and out["landmark_private"] is True


def test_allocate_w_event_needs_window():
    p = run_cli("allocate", "--length", "4", "--epsilon", "1", "--scheme", "w-event",
                "--window", "2", "--json")
    assert json.loads(p.stdout)["epsilon_t"] == [0.5] * 4
    assert_clean_error(run_cli("allocate", "--length", "4", "--epsilon", "1", "--scheme",
                               "w-event"), "window")


def test_check_exit_codes(tmp_path):
    ok = tmp_path / "ok.csv"
    ok.write_text("0.5\n0.25\n0.25\n0.5\n")
    p = run_cli("check", "--allocation", str(ok), "--landmarks", "1,2", "--epsilon", "1",
                "--json")
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert "scheme" not in out and out["landmark_private"] is True
    bad = tmp_path / "bad.csv"
    bad.write_text("0.5\n0.5\n0.5\n0.5\n")
    p = run_cli("check", "--allocation", str(bad), "--landmarks", "1,2", "--epsilon", "1",
                "--json")
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["landmark_private"] is False and out["worst_total"] == pytest.approx(1.5)


def test_release_writes_the_contract_columns(tmp_path):
    src = tmp_path / "s.csv"
    pd.DataFrame({"time": range(4000), "value": 3.0}).to_csv(src, index=False)
    out = tmp_path / "out.csv"
    p = run_cli("release", "--input", str(src), "--landmarks", "3,7", "--epsilon", "0.5",
                "--scheme", "uniform", "--mechanism", "laplace", "--sensitivity", "1",
                "--max-landmarks", "2", "--seed", "0", "--output", str(out),
                "--audit", str(tmp_path / "audit.csv"), "--json")
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(out, comment="#")
    assert list(df.columns) == ["time", "released"]  # publishable: released values only
    assert df["time"].tolist() == list(range(4000))
    audit = pd.read_csv(tmp_path / "audit.csv", comment="#")
    assert list(audit.columns) == ["time", "value", "released", "epsilon", "published"]
    np.testing.assert_allclose(audit["epsilon"], 0.5 / 3)  # ε/(k+1), declared k = 2
    # the publishable file rounds the audit's values: b = Δf/ε = 2, step 10^(0-3)
    assert release_decimals(0.5, 1.0) == 3
    assert "# released values rounded to 3 decimal places" in out.read_text()
    np.testing.assert_array_equal(np.round(audit["released"], 3), df["released"])
    summary = json.loads(p.stdout)
    assert summary["landmark_private"] is True
    assert summary["audit"] == str(tmp_path / "audit.csv")
    # MAE at ε_t = 1/6: Δf/ε_t = 6; SE 6/√4000 ≈ 0.095, tolerance 0.5
    assert abs(np.abs(df["released"] - 3.0).mean() - 6.0) < 0.5


def test_release_skip_and_stdout(tmp_path):
    src = tmp_path / "s.csv"
    src.write_text("time,value\n2024-01-01T00:00,1\n2024-01-01T01:00,2\n2024-01-01T02:00,3\n")
    p = run_cli("release", "--input", str(src), "--landmarks", "1", "--epsilon", "1",
                "--scheme", "skip", "--seed", "1")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.strip().splitlines() if not ln.startswith("#")]
    assert lines[0] == "time,released"
    # the landmark shows t=0's release plus fresh noise of the regular law: never a repeat
    # that would give away where the landmark is (issue 35)
    assert lines[2].split(",")[1] != lines[1].split(",")[1]
    assert "# scheme: Skip" in p.stdout


def test_geo_release_gpx_to_csv_and_geojson(tmp_path):
    gpx = ASSETS / "sample_tracks" / "cerknicko-jezero.gpx"
    out = tmp_path / "out.csv"
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(gpx), "--landmarks", "0,215,287", "--epsilon", "1",
                "--radius", "100", "--scheme", "uniform", "--max-landmarks", "3", "--seed", "0",
                "--output", str(out),
                "--json", "--audit", str(tmp_path / "audit.csv"))
    assert p.returncode == 0, p.stderr
    # the file has 7 track segments: a segment column keeps the pieces apart
    assert list(pd.read_csv(out, comment="#").columns) == ["time", "released_lat",
                                                           "released_lon", "segment"]
    df = pd.read_csv(tmp_path / "audit.csv", comment="#")
    assert {"lat", "lon", "released_lat", "released_lon", "epsilon", "published"} <= set(df)
    summary = json.loads(p.stdout)
    names = {c["name"] for c in summary["candidate_landmarks"]}
    assert "VANSHNG LK" in names
    # ε_t = 1/(k+1) = 1/4 -> expected displacement 2r/ε_t = 800 m; tolerance 15 %
    assert abs(summary["mean_displacement_m"] - 800) < 120
    geo = tmp_path / "out.geojson"
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(gpx), "--landmarks", "0,215", "--epsilon", "1",
                "--radius", "100", "--scheme", "skip", "--seed", "0", "--output", str(geo),
                "--audit", str(tmp_path / "audit.geojson"))
    assert p.returncode == 0, p.stderr
    fc = json.loads(geo.read_text())
    kinds = {f["properties"]["kind"] for f in fc["features"]}
    assert kinds == {"released_path", "released_point"}
    assert fc["properties"]["scheme"] == "Skip"
    fc = json.loads((tmp_path / "audit.geojson").read_text())
    kinds = [f["properties"]["kind"] for f in fc["features"]]
    assert kinds[:2] == ["original", "released"] and kinds.count("landmark") == 2
    assert fc["properties"]["confidential"].startswith("CONFIDENTIAL")


def test_geo_release_csv_track(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("time,lat,lon\n0,48.85,2.35\n1,48.851,2.351\n2,48.852,2.352\n")
    out = tmp_path / "o.csv"
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(src), "--epsilon", "1", "--radius", "50",
                "--seed", "3", "--output", str(out))
    assert p.returncode == 0, p.stderr
    assert len(pd.read_csv(out, comment="#")) == 3


BAD_SERIES = {
    "empty.csv": "",
    "columns.csv": "a,b\n1,2\n",
    "nan.csv": "time,value\n0,1\n1,NaN\n",
    "text.csv": "time,value\n0,1\n1,one\n",
    "unsorted.csv": "time,value\n1,1\n0,2\n",
    # repeated times are kept (one rule everywhere: docs/inputs.md), tested in
    # tests/engine/test_real_data_faults.py
}


@pytest.mark.parametrize("name", sorted(BAD_SERIES))
def test_release_bad_files(tmp_path, name):
    src = tmp_path / name
    src.write_text(BAD_SERIES[name])
    assert_clean_error(run_cli("release", "--input", str(src), "--epsilon", "1",
                               "--output", str(tmp_path / "o.csv")))


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["allocate", "--length", "5", "--epsilon", "0", "--json"], "epsilon"),
        (["allocate", "--length", "5", "--epsilon", "-1", "--json"], "epsilon"),
        (["allocate", "--length", "5", "--epsilon", "nan", "--json"], "epsilon"),
        (["allocate", "--length", "5", "--epsilon", "abc"],
         "--epsilon must be a number from 0.001 to 100; got `abc`"),
        (["allocate", "--length", "5", "--landmarks", "9", "--epsilon", "1"], "outside"),
        (["allocate", "--length", "5", "--landmarks", "a,b", "--epsilon", "1"], "whole number"),
        (["allocate", "--length", "0", "--epsilon", "1"], "length"),
        (["allocate", "--length", "5", "--epsilon", "1", "--scheme", "adaptive"], "invalid choice"),
        (["allocate", "--epsilon", "1"], "required"),
        (["release", "--input", "/no/such/file.csv", "--epsilon", "1"], "no such file"),
        (["check", "--allocation", "/no/such.csv", "--epsilon", "1"], "no such file"),
        (["geo-release", "--noise", "fast",
          "--input", "/no/such.gpx", "--epsilon", "1", "--output", "x.csv"],
         "no such file"),
        (["frobnicate"], "invalid choice"),
        ([], ""),
    ],
)
def test_bad_arguments_give_one_line(args, fragment):
    p = run_cli(*args)
    if not args:
        assert p.returncode == 2 and "Traceback" not in p.stderr
        return
    assert_clean_error(p, fragment)


def test_geo_release_bad_inputs(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("time,lat,lon\n0,100,2\n")
    assert_clean_error(run_cli("geo-release", "--noise", "fast",
                               "--input", str(bad), "--epsilon", "1",
                               "--output", str(tmp_path / "o.csv")), "latitude")
    notgpx = tmp_path / "x.gpx"
    notgpx.write_text("hello")
    assert_clean_error(run_cli("geo-release", "--noise", "fast",
                               "--input", str(notgpx), "--epsilon", "1",
                               "--output", str(tmp_path / "o.csv")), "GPX")
    good = tmp_path / "g.csv"
    good.write_text("lat,lon\n48.85,2.35\n")
    assert_clean_error(run_cli("geo-release", "--noise", "fast",
                               "--input", str(good), "--epsilon", "1",
                               "--radius", "0", "--output", str(tmp_path / "o.csv")), "radius")
    assert_clean_error(run_cli("geo-release", "--noise", "fast",
                               "--input", str(good), "--epsilon", "1",
                               "--output", str(tmp_path / "nodir" / "o.csv")), "does not exist")


def test_check_bad_allocation(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("0.1\nminus\n")
    assert_clean_error(run_cli("check", "--allocation", str(f), "--epsilon", "1"), "finite")
    f.write_text("0.1\n0.2\n")
    assert_clean_error(run_cli("check", "--allocation", str(f), "--landmarks", "5",
                               "--epsilon", "1"), "outside")
