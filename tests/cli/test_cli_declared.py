"""``lmdk release`` / ``geo-release`` publish only declared numbers (issue 35, items 1-2;
docs/privacy-model.md): Δf is a typed number or ``--bounds LO,HI`` (readings clamped,
Δf = HI − LO), ``--sensitivity auto`` is refused with the data's suggestion, and the bound
k on landmark events is ``--max-landmarks K`` (Uniform spends ε/(k+1) whatever |L| is).

Neighbour tests: inputs that differ in one reading (within the declared bounds, or
clamped into them) or in the landmarks marked (same k) give byte-identical headers; with
the same fast seed, Uniform's noise is the same draw whatever |L| ≤ k is (a deterministic
check that the noise scale does not depend on |L|)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk_core.data.series import load_series_csv
from lmdk_core.decision.sensitivity import derived_sensitivity
from lmdk_core.engine.release import release_series
from tests.conftest import ROOT, assert_clean_error, run_cli

SERIES = ROOT / "examples" / "series.csv"
TRACK = ROOT / "examples" / "track.gpx"
LANDMARKS = "27,28,85,86,139"


def _release(tmp_path, *extra: str, src=SERIES, landmarks=LANDMARKS, name="out.csv"):
    out = tmp_path / name
    p = run_cli("release", "--input", str(src), "--landmarks", landmarks, "--epsilon", "1",
                "--noise", "fast", "--seed", "3", "--output", str(out), *extra)
    assert p.returncode == 0, p.stderr
    return p, out


def _header(path) -> str:
    return "".join(ln for ln in path.read_text().splitlines(keepends=True)
                   if ln.startswith("#"))


def _released(path) -> np.ndarray:
    return pd.read_csv(path, comment="#")["released"].to_numpy(dtype=float)


def test_auto_is_refused_with_the_suggestion_and_how_to_declare():
    p = run_cli("release", "--input", str(SERIES), "--landmarks", LANDMARKS, "--epsilon", "1",
                "--sensitivity", "auto", "--output", "never.csv")
    assert_clean_error(p, "--sensitivity auto")
    want = derived_sensitivity(load_series_csv(SERIES), [27, 28, 85, 86, 139]).value
    assert want == 2.9
    assert "suggest Δf = 2.9" in p.stderr and "--sensitivity 2.9" in p.stderr
    assert "--bounds LO,HI" in p.stderr
    assert not (ROOT / "never.csv").exists()


def test_auto_with_geometric_suggests_a_whole_number(tmp_path):
    df = pd.read_csv(SERIES)
    df["value"] = (df["value"] * 100).round().astype(int)
    src = tmp_path / "int.csv"
    df.to_csv(src, index=False)
    p = run_cli("release", "--input", str(src), "--epsilon", "1", "--mechanism", "geometric",
                "--sensitivity", "auto", "--output", str(tmp_path / "o.csv"))
    assert_clean_error(p, "--sensitivity 282")
    assert not (tmp_path / "o.csv").exists()


def test_a_typed_sensitivity_is_declared_in_the_header(tmp_path):
    p, out = _release(tmp_path, "--sensitivity", "1.5", "--json")
    doc = json.loads(p.stdout)
    assert doc["sensitivity"] == 1.5 and doc["sensitivity_from"] == "declared (--sensitivity)"
    assert doc["max_landmarks"] == 5
    head = _header(out)
    assert "# mechanism: Laplace, declared sensitivity Δf = 1.5\n" in head
    assert "# k (declared bound on landmark events): 5 —" in head
    # Uniform spends ε/(k+1) = 1/6 whatever |L| is: expected error Δf/ε_t = 1.5·6
    assert doc["expected_error_typical"] == pytest.approx(1.5 * 6)


def test_bounds_clamp_the_readings_and_give_df_hi_minus_lo(tmp_path):
    p, out = _release(tmp_path, "--bounds", "0,2", "--json")
    doc = json.loads(p.stdout)
    x = load_series_csv(SERIES).values
    n_out = int(np.count_nonzero((x < 0) | (x > 2)))
    assert n_out > 0 and doc["clamped"] == n_out and doc["sensitivity"] == 2.0
    assert "# mechanism: Laplace, declared bounds [0, 2] (readings clamped into them), " \
           "Δf = HI − LO = 2\n" in _header(out)
    assert "clamped" not in _header(out).replace("readings clamped into them", "")
    # the released values are the clamped readings plus the noise of the same seed
    want = release_series(np.clip(x, 0, 2), [27, 28, 85, 86, 139], epsilon=1.0, scheme="uniform",
                          mechanism="laplace", sensitivity=2.0, seed=3, max_landmarks=5)
    np.testing.assert_allclose(_released(out), want.released, atol=5e-4)
    # the count goes to stderr beside a CSV on stdout, never into the file
    p = run_cli("release", "--input", str(SERIES), "--epsilon", "1", "--bounds", "0,2",
                "--noise", "fast", "--seed", "3")
    assert p.returncode == 0
    assert p.stderr.startswith(f"lmdk: note: {n_out} readings lay outside")
    assert "outside" not in p.stdout


def _neighbour(tmp_path, t: int, new: float):
    df = pd.read_csv(SERIES)
    df.loc[t, "value"] = new
    path = tmp_path / f"neighbour_{t}.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("declare", [("--bounds", "0,3"), ("--sensitivity", "2.9")])
def test_neighbouring_inputs_give_byte_identical_headers(tmp_path, declare):
    """One reading changed (a landmark's lowered by 2.5 — the audit's example; a regular
    one raised by 2.0; one pushed far beyond the bounds): the header is the same bytes."""
    _, base = _release(tmp_path, *declare, name="base.csv")
    heads = {_header(base)}
    for t, delta in [(139, -2.5), (40, 2.0), (60, 1e6)]:
        x = pd.read_csv(SERIES)["value"]
        src = _neighbour(tmp_path, t, float(x[t]) + delta)
        _, out = _release(tmp_path, *declare, src=src, name=f"n{t}.csv")
        heads.add(_header(out))
    assert len(heads) == 1, heads


@pytest.mark.parametrize("scheme", ["uniform", "adaptive", "skip"])
def test_the_landmarks_marked_do_not_change_the_header(tmp_path, scheme):
    heads = set()
    for lm in ["27,139", LANDMARKS, "3,50,90,120,160"]:
        _, out = _release(tmp_path, "--scheme", scheme, "--sensitivity", "2.9",
                          landmarks=lm, name=f"{scheme}_{lm}.csv")
        heads.add(_header(out))
    assert len(heads) == 1, heads


def test_uniform_noise_is_the_same_draw_for_2_and_5_landmarks(tmp_path):
    """Same seed, same declared k: the noise of a 2-landmark and a 5-landmark release is
    bit for bit the same draw — its scale Δf(k+1)/ε does not depend on |L|."""
    _, two = _release(tmp_path, "--sensitivity", "2.9", landmarks="27,139", name="two.csv")
    _, five = _release(tmp_path, "--sensitivity", "2.9", name="five.csv")
    np.testing.assert_array_equal(_released(two), _released(five))
    x = load_series_csv(SERIES).values
    noise = release_series(x, [27, 139], epsilon=1.0, scheme="uniform", mechanism="laplace",
                           sensitivity=2.9, seed=3, max_landmarks=5).released - x
    assert np.mean(np.abs(noise)) == pytest.approx(2.9 * 6, rel=0.2)  # 168 draws, seed 3


@pytest.mark.parametrize("args,fragment", [
    (["--max-landmarks", "3"], "5 landmark events are more than the declared bound k = 3"),
    (["--max-landmarks", "-1"], "--max-landmarks must be a whole number from 0"),
    (["--max-landmarks", "2.5"], "--max-landmarks must be a whole number"),
    (["--bounds", "3,3"], "--bounds 3,3: LO must be below HI"),
    (["--bounds", "5,1"], "LO must be below HI"),
    (["--bounds", "nan,3"], "--bounds must be two finite numbers"),
    (["--bounds", "0,inf"], "--bounds must be two finite numbers"),
    (["--bounds", "1,2,3"], "--bounds must be two numbers LO,HI"),
    (["--bounds", "0,2", "--sensitivity", "2"], "either --sensitivity or --bounds"),
    (["--bounds", "0,2.5", "--mechanism", "geometric"], "whole-number --bounds"),
])
def test_bad_declarations_are_one_line(tmp_path, args, fragment):
    out = tmp_path / "o.csv"
    p = run_cli("release", "--input", str(SERIES), "--landmarks", LANDMARKS, "--epsilon", "1",
                "--output", str(out), *args)
    assert_clean_error(p, fragment)
    assert not out.exists()


@pytest.mark.parametrize("bad", ["autox", "0", "-1", "nan", "", "1e10"])
def test_bad_sensitivity_is_one_line(bad):
    p = run_cli("release", "--input", str(SERIES), "--epsilon", "1", "--sensitivity", bad)
    assert_clean_error(p, "--sensitivity must be")
    assert "or auto" in p.stderr


def test_geo_release_declares_k_and_refuses_more_landmarks(tmp_path):
    heads = set()
    for lm in ["3,10", "3,10,20,30,40"]:
        out = tmp_path / f"t{len(lm)}.csv"
        p = run_cli("geo-release", "--noise", "fast",
                    "--input", str(TRACK), "--landmarks", lm, "--epsilon", "1",
                    "--seed", "1", "--output", str(out))
        assert p.returncode == 0, p.stderr
        heads.add(_header(out))
    assert len(heads) == 1 and "declared bound on landmark events): 5" in heads.pop()
    p = run_cli("geo-release", "--noise", "fast", "--input", str(TRACK), "--landmarks", "3,10,20",
                "--epsilon", "1", "--max-landmarks", "2", "--output", str(tmp_path / "x.csv"))
    assert_clean_error(p, "3 landmark events are more than the declared bound k = 2")


def test_batch_honours_a_declared_k(tmp_path):
    """``extra.max_landmarks`` of a batch configuration: k in the publishable header, and
    users with more flagged landmark events than k refused with one line (a run of
    flagged readings is one event: each example household has one, so k = 0 refuses)."""
    cfg = json.loads((ROOT / "examples" / "batch_config.json").read_text())
    base = ["batch", "--input", str(ROOT / "examples" / "households.csv"), "--user-col",
            "household", "--time-col", "time", "--value-col", "kwh", "--landmark-col",
            "event", "--noise", "fast", "--seed", "1", "--workers", "1"]
    for k, status in [(20, 0), (0, 2)]:
        cfg["extra"]["max_landmarks"] = k
        path = tmp_path / f"c{k}.json"
        path.write_text(json.dumps(cfg))
        out = tmp_path / f"o{k}.csv"
        p = run_cli(*base, "--config", str(path), "--output", str(out),
                    "--audit", str(tmp_path / f"a{k}.csv"))
        if status:
            assert_clean_error(p, "more landmark events than the declared bound k = 0")
            assert not out.exists()
        else:
            assert p.returncode == 0, p.stderr
            first = out.read_text().split("\n")[0]
            assert "k (declared bound on landmark events): 20" in first
            assert "EXPLORATORY" not in first and "EXPLORATORY" not in p.stderr
    # without a declared k, Uniform's noise scale follows each user's |L_u|: the file is
    # marked exploratory (first header line) and stderr says how to declare k
    del cfg["extra"]["max_landmarks"]
    path = tmp_path / "none.json"
    path.write_text(json.dumps(cfg))
    out = tmp_path / "none.csv"
    p = run_cli(*base, "--config", str(path), "--output", str(out),
                "--audit", str(tmp_path / "none_audit.csv"))
    assert p.returncode == 0, p.stderr
    assert out.read_text().startswith("# EXPLORATORY, not publishable: no declared bound k")
    assert "declare extra.max_landmarks" in p.stderr
