"""The utility line in what leaves the app: the CLI's release / geo-release / report
output (JSON and text), the internal report and the public release note (which states
the level in words but no number computed from the raw data)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from lmdk_core.data.demo import demo_series, demo_series_landmarks
from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.decision.utility import data_scale, format_amount, release_utility
from lmdk_core.engine.release import release_series
from lmdk_core.files.config import ViewConfig
from lmdk_core.report import compute_report
from lmdk_core.report.release_note import build_release_note
from lmdk_core.report.render import build_report
from tests.conftest import ASSETS, run_cli

UTILITY_KEYS = {"utility", "utility_sentence", "expected_error_typical",
                "expected_error_worst", "expected_error_mean", "expected_error_unit",
                "data_scale", "data_scale_name", "error_to_scale"}


def _series_csv(tmp_path, values) -> str:
    src = tmp_path / "s.csv"
    pd.DataFrame({"time": range(len(values)), "value": values}).to_csv(src, index=False)
    return str(src)


def test_cli_release_json_and_text_carry_the_utility(tmp_path):
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(10, 2, 300), 3)  # IQR ≈ 2.7
    src = _series_csv(tmp_path, x)
    base = ["release", "--input", src, "--landmarks", "3,7", "--sensitivity", "1",
            "--max-landmarks", "2", "--output", str(tmp_path / "o.csv")]
    # ε = 30, ε_t = 10: MAE 0.1 — useful
    p = run_cli(*base, "--epsilon", "30", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert UTILITY_KEYS <= set(d)
    assert d["utility"] == "useful"
    assert d["expected_error_typical"] == pytest.approx(0.1)
    assert d["data_scale"] == pytest.approx(data_scale(x).value)
    assert d["data_scale_name"] == "interquartile range"
    # ε = 0.3, ε_t = 0.1: MAE 10 — noise, while the privacy verdict is fine
    p = run_cli(*base, "--epsilon", "0.3", "--json")
    d = json.loads(p.stdout)
    assert d["landmark_private"] is True and d["utility"] == "not useful"
    assert d["utility_sentence"].startswith("This release is not useful:")
    p = run_cli(*base, "--epsilon", "0.3")
    assert p.returncode == 0
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("utility:"))
    assert line.startswith("utility: NOT USEFUL — This release is not useful:")
    assert "raise ε to about" in line


def test_cli_release_zero_budget_everywhere_is_not_useful(tmp_path):
    """Skip with every timestamp a landmark publishes nothing: every ε_t is 0."""
    src = _series_csv(tmp_path, [1.0, 2.0, 3.0, 4.0])
    p = run_cli("release", "--input", src, "--landmarks", "0,1,2,3", "--scheme", "skip",
                "--epsilon", "1", "--output", str(tmp_path / "o.csv"), "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["utility"] == "not useful" and d["expected_error_typical"] is None
    assert "nothing is released" in d["utility_sentence"]


def test_cli_geo_release_reports_metres_against_the_extent(tmp_path):
    gpx = ASSETS / "sample_tracks" / "cerknicko-jezero.gpx"
    out = str(tmp_path / "o.csv")
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(gpx), "--landmarks", "0,215,287", "--epsilon",
                "1", "--radius", "100", "--max-landmarks", "3", "--output", out, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert UTILITY_KEYS <= set(d)
    assert d["expected_error_unit"] == "m" and d["data_scale_name"] == "extent"
    assert d["expected_error_typical"] == pytest.approx(2 * 100 / 0.25)  # 2r/ε_t
    assert d["error_to_scale"] == pytest.approx(800 / d["data_scale"])
    # a bad setting: ε = 0.01 → 80 km per point
    p = run_cli("geo-release", "--noise", "fast",
                "--input", str(gpx), "--landmarks", "0,215,287", "--epsilon",
                "0.01", "--max-landmarks", "3", "--output", out)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("utility:"))
    assert "NOT USEFUL" in line and "80 km" in line and "larger r is not a fix" in line


def test_internal_report_shows_the_utility_beside_the_verdict():
    cfg = ViewConfig(landmarks=demo_series_landmarks(), seed=3, sensitivity=0.2,
                     extra={"compare_schemes": ["uniform", "skip"]})
    rd = compute_report(cfg)
    s = demo_series()
    rel = release_series(s.values, cfg.landmarks, epsilon=1.0, scheme="uniform",
                         mechanism="laplace", sensitivity=0.2, seed=3)
    uv = release_utility(rel, sensitivity=0.2, unit=s.unit)
    assert rd.utility.level == uv.level and rd.utility.typical == pytest.approx(uv.typical)
    html = build_report(cfg)
    # the box follows the privacy verdict box, in the summary and the allocation section
    assert html.count("class='verdict") >= 4 and html.count(f"Utility: {uv.label}") >= 2
    assert format_amount(uv.typical, "kWh") in html and "interquartile range" in html
    first_verdict = html.index("class='verdict ")
    assert html.index("utility'>", first_verdict) > first_verdict
    # the comparison table has a utility column
    assert re.search(r"<th[^>]*>utility</th>", html)


@pytest.mark.parametrize("kind", ["series", "track"])
def test_release_note_states_the_level_but_no_data_scale(kind):
    if kind == "series":
        cfg = ViewConfig(landmarks=demo_series_landmarks(), seed=5, sensitivity=0.2)
        data = demo_series().values
    else:
        tr = demo_track()
        cfg = ViewConfig(data_kind="track", dataset="demo-paris",
                         landmarks=demo_track_landmarks(), seed=5, radius=100.0)
        data = np.c_[tr.lat, tr.lon]
    rd = compute_report(cfg)
    html = build_release_note(cfg)
    # the level from public settings only: the mechanism's expected error at the noisy
    # publications of the allocation for k landmark events (the declared bound, never
    # the number marked) against the declared Δf (a track: nothing declared, not judged)
    from lmdk_core.decision.utility import declared_utility
    from lmdk_core.report.release_note import public_view

    view = public_view(rd)
    eps = view.epsilon_t[view.published]
    errors = 2 * cfg.radius / eps if kind == "track" else cfg.sensitivity / eps
    level, sentence = declared_utility(errors, None if kind == "track" else cfg.sensitivity,
                                       "the declared largest change of one reading Δf",
                                       "m" if kind == "track" else "kWh")
    assert f"Utility: {level}" in html
    assert sentence.split(" (")[0].replace("'", "&#x27;") in html
    # neither the scale (computed from the raw data) nor the landmark count of the advice
    sc = data_scale(data)
    assert format_amount(sc.value, "m" if kind == "track" else "kWh") not in html
    assert f"{sc.value:.3g}" not in html
    assert "landmarks share ε" not in html and "fewer landmarks" not in html


def test_release_note_says_not_useful_in_words():
    cfg = ViewConfig(landmarks=demo_series_landmarks(), seed=5, sensitivity=0.2, epsilon=0.05)
    html = build_release_note(cfg)
    assert "Utility: not useful" in html and "This release is not useful" in html
    assert "verdict red utility" in html  # its own box, as prominent as the verdict's


def test_cli_report_json_has_the_utility(tmp_path):
    cfg_path = tmp_path / "v.json"
    from lmdk_core.files.config import config_to_json

    cfg_path.write_text(config_to_json(ViewConfig(landmarks=demo_series_landmarks(),
                                                  seed=1, sensitivity=0.2)))
    p = run_cli("report", "--config", str(cfg_path), "--output", str(tmp_path / "r.html"),
                "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert UTILITY_KEYS <= set(d) and d["expected_error_unit"] == "kWh"
