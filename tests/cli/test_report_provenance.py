"""What `lmdk report` says about where its release comes from: the internal report of a
configuration by reference names the referenced file and its SHA-256; a public release
note built from a configuration names the sampler of the published file (the exact
sampler for a series, numpy's Planar Laplace for a track) and refuses Adaptive, whose
published allocation differs from the recomputed one."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from lmdk_core.data.demo_track import demo_track_landmarks
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.files.export import NUMPY_NOISE, PLANAR_NOISE
from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_internal_report_by_reference_names_the_file_and_its_sha256(tmp_path):
    for name in ("view_by_reference.json", "series.csv"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    digest = hashlib.sha256((tmp_path / "series.csv").read_bytes()).hexdigest()
    assert json.loads((tmp_path / "view_by_reference.json").read_text())["data_file"][
        "sha256"] == digest
    p = run_cli("report", "--config", "view_by_reference.json", "--data", "series.csv",
                "--output", "report.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "report.html").read_text()
    assert f"the file series.csv (SHA-256 {digest})" in html
    assert "embedded in the configuration" not in html


@pytest.mark.parametrize("kind", ["series", "track"])
def test_public_note_from_a_configuration_names_the_published_sampler(tmp_path, kind):
    cfg = (ViewConfig(landmarks=[27, 28, 85, 86, 139], sensitivity=0.2, scheme="skip")
           if kind == "series" else
           ViewConfig(data_kind="track", dataset="demo-paris",
                      landmarks=demo_track_landmarks(), radius=150.0))
    (tmp_path / "view.json").write_text(config_to_json(cfg))
    p = run_cli("report", "--config", "view.json", "--output", "note.html", "--public",
                cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "note.html").read_text()
    assert NUMPY_NOISE not in html
    if kind == "series":
        assert SAMPLER_NAME in html
    else:
        assert "numpy floating-point Planar Laplace" in html and PLANAR_NOISE.startswith(
            "numpy floating-point Planar Laplace")


@pytest.mark.parametrize("kind", ["series", "track"])
def test_public_note_of_an_adaptive_configuration_is_refused_in_one_line(tmp_path, kind):
    cfg = (ViewConfig(landmarks=[27, 28], scheme="adaptive") if kind == "series" else
           ViewConfig(data_kind="track", dataset="demo-paris", scheme="adaptive",
                      landmarks=demo_track_landmarks()))
    (tmp_path / "view.json").write_text(config_to_json(cfg))
    p = run_cli("report", "--config", "view.json", "--output", "note.html", "--public",
                cwd=tmp_path)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "Adaptive" in p.stderr
    assert not (tmp_path / "note.html").exists()
    # the internal report of the same configuration is still available
    p = run_cli("report", "--config", "view.json", "--output", "report.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("as_json", [True, False])
def test_the_public_note_summary_says_what_the_note_says(tmp_path, as_json):
    """`lmdk report --public` prints the note's verdict (declared k), not the internal one:
    views marking 2 and 5 landmarks with the same declared k print the same summary,
    which names neither count nor timestamp."""
    outputs = []
    for lm in ([27, 139], [27, 28, 85, 86, 139]):
        cfg = ViewConfig(landmarks=lm, seed=3, sensitivity=2.9,
                         extra={"max_landmarks": 5})
        (tmp_path / "view.json").write_text(config_to_json(cfg))
        p = run_cli("report", "--config", "view.json", "--output", "note.html", "--public",
                    *(["--json"] if as_json else []), cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        outputs.append(p.stdout)
    assert outputs[0] == outputs[1]
    assert "landmarks plus" not in outputs[0] and "t=" not in outputs[0]
    if as_json:
        summary = json.loads(outputs[0])
        assert summary["form"] == "public release note" and summary["max_landmarks"] == 5
        assert "worst_timestamp" not in summary and summary["landmark_tpl_bound"] is None
