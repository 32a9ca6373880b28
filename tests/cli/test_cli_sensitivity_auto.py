"""``lmdk release --sensitivity auto``: Δf derived from the data with the engine function
the app's Timeline uses (lmdk_core.decision.sensitivity.derived_sensitivity), printed with
how it was derived; explicit numbers unchanged; bad values exit 2 with one line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.series import load_series_csv
from lmdk_core.decision.sensitivity import derived_sensitivity
from tests.conftest import ROOT, assert_clean_error, run_cli

SERIES = ROOT / "examples" / "series.csv"
LANDMARKS = "27,28,85,86,139"


def _release(tmp_path, *extra: str):
    out = tmp_path / "out.csv"
    p = run_cli("release", "--input", str(SERIES), "--landmarks", LANDMARKS, "--epsilon", "1",
                "--noise", "fast", "--seed", "3", "--output", str(out), *extra)
    assert p.returncode == 0, p.stderr
    return p, out


def test_auto_is_the_apps_derived_value_and_says_how(tmp_path):
    p, out = _release(tmp_path, "--sensitivity", "auto", "--audit", str(tmp_path / "a.csv"),
                      "--json")
    doc = json.loads(p.stdout)
    series = load_series_csv(SERIES)
    want = derived_sensitivity(series, [27, 28, 85, 86, 139])
    assert doc["sensitivity"] == want.value == 2.9  # the demo's events: up to 2.82 kWh
    # the app's Timeline on the same week and landmarks derives the same
    assert derived_sensitivity(demo_series(), demo_series_landmarks()).value == 2.9
    assert doc["sensitivity_from"].startswith("--sensitivity auto: Δf = 2.9 is derived")
    assert "t=139" in doc["sensitivity_from"]
    assert "sensitivity Δf = 2.9" in out.read_text()  # the file states the Δf used
    # the noise scale follows: expected error Δf/ε_t with ε_t = 1/6
    assert doc["expected_error_typical"] == pytest.approx(2.9 * 6)


def test_auto_in_the_printout_and_beside_a_csv_on_stdout(tmp_path):
    p, _ = _release(tmp_path, "--sensitivity", "AUTO")
    assert p.stdout.startswith("lmdk: note: --sensitivity auto: Δf = 2.9")
    p = run_cli("release", "--input", str(SERIES), "--epsilon", "1", "--noise", "fast",
                "--seed", "3", "--sensitivity", "auto")
    assert p.returncode == 0
    assert p.stderr.startswith("lmdk: note: --sensitivity auto")
    rows = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert rows[0] == "time,released" and len(rows) == 169


def test_explicit_numbers_keep_working(tmp_path):
    p, _ = _release(tmp_path, "--sensitivity", "1.5", "--json")
    doc = json.loads(p.stdout)
    assert doc["sensitivity"] == 1.5 and doc["sensitivity_from"] == "given (--sensitivity)"
    assert doc["expected_error_typical"] == pytest.approx(1.5 * 6)
    p, _ = _release(tmp_path, "--json")  # the default
    assert json.loads(p.stdout)["sensitivity"] == 1.0


def test_auto_with_geometric_is_whole(tmp_path):
    df = pd.read_csv(SERIES)
    df["value"] = (df["value"] * 100).round().astype(int)
    src = tmp_path / "int.csv"
    df.to_csv(src, index=False)
    p = run_cli("release", "--input", str(src), "--landmarks", LANDMARKS, "--epsilon", "1",
                "--mechanism", "geometric", "--sensitivity", "auto", "--noise", "fast",
                "--seed", "3", "--output", str(tmp_path / "o.csv"), "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    want = derived_sensitivity(load_series_csv(src), [27, 28, 85, 86, 139], whole=True)
    assert doc["sensitivity"] == want.value == 282.0
    assert "a whole number" in doc["sensitivity_from"]


@pytest.mark.parametrize("bad", ["autox", "0", "-1", "nan", "", "1e10"])
def test_bad_sensitivity_is_one_line(bad):
    p = run_cli("release", "--input", str(SERIES), "--epsilon", "1", "--sensitivity", bad)
    assert_clean_error(p, "--sensitivity must be")
    assert "or auto" in p.stderr
