"""The verdict of a release under an estimated model builds each matrix's loss function
once (:func:`lmdk_core.decision.release_verdict.release_leakage` keeps them for the
verdict and its calibration advice) and says exactly what it said when every step built
its own from the matrices."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from lmdk_core.cli.report_commands import _report_config
from lmdk_core.decision.release_verdict import release_leakage, release_verdict
from lmdk_core.leakage import loss as loss_module
from lmdk_core.report.compute import compute_report

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def report_data():
    """The example view (estimated model, amber, with calibration advice)."""
    return compute_report(_report_config(str(EXAMPLES / "lmdk_view.json"), None))


def _count_builds(monkeypatch) -> list[int]:
    builds = [0]
    init = loss_module.LossFunction.__init__

    def counting(self, *args, **kwargs):
        builds[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(loss_module.LossFunction, "__init__", counting)
    return builds


def test_each_matrix_is_made_a_loss_function_once(report_data, monkeypatch):
    rd = report_data
    builds = _count_builds(monkeypatch)
    leak = release_leakage(rd.release, rd.leakage.model)
    verdict = release_verdict(rd.release, leak, rd.labels)
    assert leak.estimated and verdict.advice is not None  # the advice's search ran
    # the model's two matrices and each smoothing variant's two
    assert builds[0] == 2 + 2 * len(leak.variants)


def test_the_verdict_is_the_one_built_from_the_matrices(report_data):
    """The same sentences, leakage and advice, to the last bit, as when the verdict
    and its advice get the matrices and build their loss functions themselves."""
    rd = report_data
    leak = release_leakage(rd.release, rd.leakage.model)
    from_matrices = dataclasses.replace(leak, model_losses=None, variant_losses=())
    got = release_verdict(rd.release, leak, rd.labels)
    want = release_verdict(rd.release, from_matrices, rd.labels)
    assert (got.colour, got.headline, got.sentence, got.why) == (
        want.colour, want.headline, want.sentence, want.why)
    assert got.to_dict() == want.to_dict()
    assert got.advice is not None and want.advice is not None
    assert got.advice.to_dict() == want.advice.to_dict()
    assert leak.sweep is not None
    np.testing.assert_array_equal(leak.landmark_tpl, rd.leakage.landmark_tpl)
