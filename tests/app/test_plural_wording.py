"""Counts agree with their nouns and verbs (issue 37 §9: "The 1 landmark are protected"):
the app's plain verdict, the engine's verdicts and refusals, the utility advice and the
CLI's printouts, each at a count of 1 and of more than 1."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from app_support.components import plain_verdict
from lmdk_core.decision.mechanism_choice import mechanism_problems
from lmdk_core.decision.verdict import privacy_verdict
from lmdk_core.engine.allocation import allocate, check_max_landmarks
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
#: "1 landmarks", "1 users' releases", "1 landmark are" … — a count of one with a plural
ONE_WITH_PLURAL = re.compile(r"(?<![\d.,])1 (?:\w+ )?(?:landmarks|events|stays|users|points|"
                             r"readings|fixes|suggestions|rows|timestamps)\b|"
                             r"(?<![\d.,])1 (?:landmark|landmark event|stay|user) are\b")


def test_counted_and_agree():
    assert counted(1, "fix", "fixes") == "1 fix" and counted(2, "fix", "fixes") == "2 fixes"
    assert counted(0, "landmark") == "0 landmarks"
    assert agree(1, "is", "are") == "is" and agree(0, "is", "are") == "are"


@pytest.mark.parametrize("scheme", ["uniform", "event"])  # green and red
def test_the_plain_verdict_with_one_landmark(scheme):
    pv = privacy_verdict(allocate(scheme, 6, [2], 1.0), [2], 1.0)
    text = plain_verdict(pv)
    assert text.startswith("The 1 landmark is ")
    assert not ONE_WITH_PLURAL.search(text + pv.sentence + pv.why)
    many = plain_verdict(privacy_verdict(allocate(scheme, 6, [2, 4], 1.0), [2, 4], 1.0))
    assert many.startswith("The 2 landmarks are ")


def test_the_amber_verdict_with_one_landmark():
    sticky = np.array([[0.9, 0.1], [0.1, 0.9]])
    pv = privacy_verdict(allocate("uniform", 6, [2], 1.0), [2], 1.0, backward=sticky,
                         advise=False)
    assert pv.colour == "amber"
    text = plain_verdict(pv)
    assert text.startswith("The 1 landmark is protected at ε = 1 only if")
    assert not ONE_WITH_PLURAL.search(text + pv.sentence + pv.why)


def test_refusals_over_the_declared_bound_with_one_event():
    summary = verify(np.full(4, 0.25), [1], 1.0, max_landmarks=0).summary()
    assert "1 landmark event is more than the declared bound k = 0" in summary
    with pytest.raises(InputError, match="1 landmark event is more than"):
        check_max_landmarks(0, 1)
    with pytest.raises(InputError, match="2 landmark events are more than"):
        check_max_landmarks(0, 2)


def test_the_geometric_refusal_with_one_fractional_value():
    problems = mechanism_problems(np.array([1.0, 2.5, 3.0]), "geometric", 1.0)
    assert any("1 of 3 values is not a whole number" in p.problem for p in problems)
    problems = mechanism_problems(np.array([1.5, 2.5, 3.0]), "geometric", 1.0)
    assert any("2 of 3 values are not whole numbers" in p.problem for p in problems)


def test_the_cli_stay_line_with_one_stay(tmp_path):
    proc = run_cli("geo-release", "--noise", "fast", "--input",
                   str(ROOT / "examples" / "track.gpx"),
                   "--stays", "271-295", "--epsilon", "1", "--seed", "1",
                   "--output", str(tmp_path / "out.csv"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = next(s for s in proc.stdout.splitlines() if "protected as one landmark" in s)
    assert line.startswith("1 stay protected as one landmark event each (1 landmark event "
                           "for 25 landmark fixes")
    assert not ONE_WITH_PLURAL.search(proc.stdout)
