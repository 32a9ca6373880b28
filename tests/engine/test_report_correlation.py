"""The privacy report: the verdict's one-sentence reason and checked advice under the
model estimated from the data, and whether Δf covers the data's landmark events."""

from __future__ import annotations

import html

from lmdk_core.data.demo import demo_series_landmarks
from lmdk_core.files.config import ViewConfig
from lmdk_core.report import build_report, compute_report


def demo_cfg(sensitivity: float) -> ViewConfig:
    # no extra.correlation: the report's default model, estimated from the data
    return ViewConfig(landmarks=demo_series_landmarks(), sensitivity=sensitivity,
                      page="timeline")


def test_report_says_why_and_names_the_calibration_that_works():
    rd = compute_report(demo_cfg(2.9))
    pv = rd.verdict
    assert rd.leakage.model.key == "estimated" and rd.leakage.model.n_states == 10
    assert pv.colour == "amber" and pv.advice is not None
    body = html.unescape(build_report(demo_cfg(2.9)))
    assert pv.why in body and pv.why.startswith("Amber because")
    assert f"Calibrate: spending ε = {pv.advice.epsilon:.3g}" in body
    assert "10 equal-count bins" in body  # the model is described, never its matrix


def test_report_states_whether_delta_f_covers_the_landmark_events():
    ok = html.unescape(build_report(demo_cfg(2.9)))
    assert "Δf = 2.9 covers every landmark event" in ok
    bad = html.unescape(build_report(demo_cfg(0.2)))
    assert "Δf = 0.2 does NOT cover this data's landmark events" in bad
    assert "66.1 times more likely" in bad and "a Δf of 2.9" in bad
