"""``lmdk report`` through the entry point (``tests.conftest.run_cli``): the report file,
the JSON summary, bad inputs."""

from __future__ import annotations

import json

import pytest

from lmdk_core.data.demo import demo_series_landmarks
from lmdk_core.files.config import ViewConfig, config_to_json
from tests.conftest import assert_clean_error, run_cli


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "view.json"
    path.write_text(config_to_json(ViewConfig(landmarks=demo_series_landmarks(),
                                              sensitivity=0.2, seed=5)))
    return path


def test_report_writes_offline_html_and_summary(config_file, tmp_path):
    out = tmp_path / "report.html"
    p = run_cli("report", "--config", str(config_file), "--output", str(out), "--json")
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["landmark_private"] is True and summary["scheme"] == "uniform"
    assert summary["output"] == str(out) and summary["max_landmark_tpl"] > 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Landmark-private" in text
    from tests.engine.test_report import parse

    assert parse(text).external == []  # no CDN script or remote stylesheet
    assert summary["bytes"] == len(text.encode("utf-8"))


def test_report_plain_output_and_stdout(config_file, tmp_path):
    out = tmp_path / "r.html"
    p = run_cli("report", "--config", str(config_file), "--output", str(out))
    assert p.returncode == 0 and p.stdout.startswith(f"wrote {out}")
    assert "Landmark-private" in p.stdout
    p = run_cli("report", "--config", str(config_file), "--output", "-")
    assert p.returncode == 0 and p.stdout.startswith("<!DOCTYPE html>")


def test_report_flags_a_violated_config(tmp_path):
    cfg = tmp_path / "event.json"
    cfg.write_text(config_to_json(ViewConfig(landmarks=[3, 7], scheme="event")))
    p = run_cli("report", "--config", str(cfg), "--output", str(tmp_path / "r.html"), "--json")
    assert p.returncode == 0, p.stderr  # the report documents the violation
    assert json.loads(p.stdout)["landmark_private"] is False
    assert "NOT landmark-private" in (tmp_path / "r.html").read_text(encoding="utf-8")


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("make, fragment", [
    (lambda d: str(d / "missing.json"), "no such file"),
    (lambda d: _write(d, "empty.json", "  \n"), "empty"),
    (lambda d: _write(d, "notjson.json", "time,value\n0,1\n"), "not valid JSON"),
    (lambda d: _write(d, "other.json", '{"type": "FeatureCollection"}'), "format"),
    (lambda d: _write(d, "list.json", "[1, 2]"), "format"),
    (lambda d: _write(d, "eps.json", config_to_json(ViewConfig()).replace(
        '"epsilon": 1.0', '"epsilon": -2')), "epsilon"),
    (lambda d: _write(d, "epsstr.json", config_to_json(ViewConfig()).replace(
        '"epsilon": 1.0', '"epsilon": "big"')), "epsilon"),
    (lambda d: _write(d, "scheme.json", config_to_json(ViewConfig()).replace(
        '"scheme": "uniform"', '"scheme": "magic"')), "scheme"),
    (lambda d: _write(d, "lm.json", config_to_json(ViewConfig(landmarks=[500]))), "beyond"),
    (lambda d: _write(d, "unknown.json", config_to_json(ViewConfig()).replace(
        '"page": "timeline"', '"page": "timeline", "colour": "red"')), "unknown field"),
    (lambda d: str(d), "folder"),
    (lambda d: _write(d, "cmp.json", config_to_json(ViewConfig(
        extra={"compare_schemes": ["uniform", "sometimes"]}))), "unknown scheme"),
])
def test_bad_config_is_exit_2_with_one_line(tmp_path, make, fragment):
    p = run_cli("report", "--config", make(tmp_path), "--output", str(tmp_path / "r.html"))
    assert_clean_error(p, fragment)
    assert not (tmp_path / "r.html").exists()


def test_bad_output_and_missing_arguments(config_file, tmp_path):
    assert_clean_error(run_cli("report", "--config", str(config_file), "--output",
                               str(tmp_path / "nope" / "r.html")), "does not exist")
    assert_clean_error(run_cli("report", "--config", str(config_file), "--output",
                               str(tmp_path)), "folder")
    assert_clean_error(run_cli("report", "--output", "r.html"), "--config")
