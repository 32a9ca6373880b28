"""``lmdk loss | leakage | supremum | calibrate`` through subprocess."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lmdk_core.cli import main
from lmdk_core.leakage import (
    LossFunction,
    landmark_tpl,
    max_tpl_constant,
    supremum,
    temporal_leakage,
    tpl_supremum,
)
from tests.conftest import assert_clean_error, run_cli

PB = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.05, 0.15, 0.8]])
PF = np.array([[0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, M in {"pb": PB, "pf": PF, "eye": np.eye(2)}.items():
        p = tmp_path / f"{name}.csv"
        p.write_text("\n".join(",".join(repr(float(x)) for x in row) for row in M) + "\n")
        paths[name] = str(p)
    alloc = tmp_path / "eps.csv"
    alloc.write_text("0.2\n0.0\n0.5\n0.1\n0.3\n")
    paths["alloc"] = str(alloc)
    return paths


def test_loss_contract(files):
    p = run_cli("loss", "--matrix", files["pb"], "--alpha", "0.1,1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"alpha", "loss"} and out["alpha"] == [0.1, 1.0]
    np.testing.assert_allclose(out["loss"], LossFunction(PB)(np.array([0.1, 1.0])), atol=1e-12)


def test_leakage_contract_with_allocation_and_landmarks(files):
    p = run_cli("leakage", "--backward", files["pb"], "--forward", files["pf"],
                "--allocation", files["alloc"], "--landmarks", "1,3", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"bpl", "fpl", "tpl", "landmark_tpl", "landmark_tpl_max"}
    assert out["landmark_tpl_max"] == pytest.approx(max(out["landmark_tpl"]))
    eps = np.array([0.2, 0.0, 0.5, 0.1, 0.3])
    res = temporal_leakage(eps, PB, PF)
    for k in ("bpl", "fpl", "tpl"):
        np.testing.assert_allclose(out[k], getattr(res, k), atol=1e-12)
    np.testing.assert_allclose(out["landmark_tpl"], landmark_tpl(eps, [1, 3], PB, PF),
                               atol=1e-12)


def test_leakage_constant_epsilon_forward_defaults_to_backward(files):
    p = run_cli("leakage", "--backward", files["pb"], "--epsilon", "0.4", "--length", "6",
                "--json")
    out = json.loads(p.stdout)
    assert set(out) == {"bpl", "fpl", "tpl"}
    np.testing.assert_allclose(out["fpl"], out["bpl"][::-1], atol=1e-12)
    np.testing.assert_allclose(out["tpl"], temporal_leakage(np.full(6, 0.4), PB).tpl)
    text = run_cli("leakage", "--backward", files["pb"], "--epsilon", "0.4", "--length", "3")
    assert text.returncode == 0 and text.stdout.splitlines()[0] == "t,epsilon_t,bpl,fpl,tpl"


def test_supremum_contract_and_null_for_infinity(files):
    out = json.loads(run_cli("supremum", "--matrix", files["pb"], "--epsilon", "0.1",
                             "--json").stdout)
    assert out == {"supremum": pytest.approx(supremum(PB, 0.1), abs=1e-12)}
    out = json.loads(run_cli("supremum", "--matrix", files["eye"], "--epsilon", "0.1",
                             "--json").stdout)
    assert out == {"supremum": None}


def test_calibrate_constant_and_scale(files):
    out = json.loads(run_cli("calibrate", "--matrix", files["pb"], "--target", "1",
                             "--json").stdout)
    assert out["length"] is None and out["achieved"] <= 1.0
    assert tpl_supremum(out["epsilon"], PB) <= 1.0 < tpl_supremum(out["epsilon"] * 1.0001, PB)
    out = json.loads(run_cli("calibrate", "--matrix", files["pb"], "--target", "1",
                             "--length", "20", "--json").stdout)
    assert abs(max_tpl_constant(out["epsilon"], 20, PB) - out["achieved"]) < 1e-12
    p = run_cli("calibrate", "--matrix", files["pb"], "--target", "1", "--length", "12",
                "--landmarks", "2,7", "--scheme", "uniform", "--json")
    out = json.loads(p.stdout)
    assert out["scheme"] == "uniform" and 0 < out["scale"] < 1
    assert out["epsilon"] == pytest.approx(out["scale"])
    got = landmark_tpl(np.array(out["epsilon_t"]), [2, 7], PB)
    assert got.max() <= 1.0 and math.isclose(got.max(), out["achieved"], abs_tol=1e-12)


BAD = [
    (["loss", "--matrix", "{pb}", "--alpha", "x"], "not a number"),
    (["loss", "--matrix", "{pb}", "--alpha", "-1"], ">= 0"),
    (["loss", "--matrix", "{bad}", "--alpha", "1"], "row 1 sums to 0.9"),
    (["loss", "--matrix", "{text}", "--alpha", "1"], "not a number"),
    (["loss", "--matrix", "{ragged}", "--alpha", "1"], "same count"),
    (["loss", "--matrix", "{empty}", "--alpha", "1"], "empty"),
    (["loss", "--matrix", "/nonexistent/P.csv", "--alpha", "1"], "no such file"),
    (["leakage", "--backward", "{pb}", "--epsilon", "1"], "--length"),
    (["leakage", "--backward", "{pb}", "--epsilon", "1", "--length", "3",
      "--allocation", "{alloc}"], "not both"),
    (["leakage", "--backward", "{pb}", "--forward", "{eye}", "--epsilon", "1",
      "--length", "3"], "same states"),
    (["leakage", "--backward", "{pb}", "--epsilon", "1", "--length", "3",
      "--landmarks", "7"], "outside the series"),
    (["supremum", "--matrix", "{pb}", "--epsilon", "-0.5"],
     "--epsilon must be a number from 0 to 700"),
    (["calibrate", "--matrix", "{pb}", "--target", "0"], "--target"),
    (["calibrate", "--matrix", "{pb}", "--target", "1", "--landmarks", "1"], "--length"),
    (["supremum", "--matrix", "{pb}"], "required"),
]
#: one bad input per command (and a broken file) also goes through a real process
SUBPROCESS = {0, 2, 8, 11, 12}


def _argv(files, tmp_path, args):
    for name, text in {"bad": "1,0\n0.5,0.4\n", "text": "a,b\n1,0\n",
                       "ragged": "1,0\n1\n", "empty": ""}.items():
        (tmp_path / f"{name}.csv").write_text(text)
        files[name] = str(tmp_path / f"{name}.csv")
    return [a.format(**files) for a in args]


@pytest.mark.parametrize("case", sorted(SUBPROCESS))
def test_bad_inputs_exit_2_with_one_line(files, tmp_path, case):
    args, fragment = BAD[case]
    assert_clean_error(run_cli(*_argv(files, tmp_path, args)), fragment)


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_inputs_in_process(files, tmp_path, capsys, case):
    """Every bad input: main() returns 2 with one 'lmdk: error:' line, nothing on stdout."""
    args, fragment = BAD[case]
    assert main(_argv(files, tmp_path, args)) == 2
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert out == "" and len(lines) == 1 and lines[0].startswith("lmdk: error:")
    assert fragment in lines[0] and "Traceback" not in err


def test_an_amber_verdict_names_a_calibration_that_turns_it_green(files):
    """`lmdk leakage --total-epsilon`: the amber verdict says why, and its advice (every
    ε_t × calibration_scale) is green under the same matrices with the target ε."""
    from lmdk_core.decision.verdict import privacy_verdict

    p = run_cli("leakage", "--backward", files["pb"], "--forward", files["pf"], "--epsilon",
                "0.2", "--length", "12", "--landmarks", "2,7", "--total-epsilon", "0.6",
                "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "amber" and out["verdict_why"].startswith("Amber because")
    c = out["calibration_scale"]
    assert out["calibrated_epsilon"] == pytest.approx(0.6 * c)
    after = privacy_verdict(np.full(12, 0.2 * c), [2, 7], 0.6 * c, backward=PB, forward=PF,
                            leakage_target=0.6)
    assert after.colour == "green"
    assert after.landmark_tpl_max == pytest.approx(out["calibrated_landmark_tpl_max"])
