"""The Choose ε page's rows and sentences (lmdk_core.decision.choice_tables), checked
against the engine's own objects: real solutions of solve_epsilon, real landmark events."""

from __future__ import annotations

import math

import numpy as np

from lmdk_core.decision.accuracy import AccuracyTarget, EpsilonSolution
from lmdk_core.decision.attacker import RepeatInference, posterior_bound
from lmdk_core.decision.choice_tables import (
    event_rows,
    partial_ranges,
    repeat_rows,
    solution_notes,
    solution_rows,
    uncovered_event_sentence,
)
from lmdk_core.decision.epsilon_search import solve_epsilon
from lmdk_core.decision.sensitivity import LandmarkEvent


def test_solution_rows_follow_the_solver():
    values = np.sin(np.arange(48) / 4.0) * 3 + 5
    target = AccuracyTarget("within", 1.0, 0.9, "each")
    sols = [solve_epsilon(values, [5, 6, 20], s, target, window=4, mechanism="laplace",
                          sensitivity=1.0) for s in ("uniform", "skip")]
    rows = solution_rows(sols, target, "kWh")
    assert [r["scheme"] for r in rows] == ["Uniform", "Skip"]
    for r, s in zip(rows, sols, strict=True):
        assert r["ε needed"] == ("unreachable" if s.epsilon is None else f"{s.epsilon:.4g}")
        if s.epsilon is not None:
            assert r["reached"] == f"{s.achieved:.1%}"
    notes = solution_notes(sols)
    assert notes.count("\n") == sum(bool(s.reason or s.method) for s in sols) - 1


def test_partial_ranges_name_only_split_or_bounded_intervals():
    target = AccuracyTarget("mean", 1.0)
    whole = EpsilonSolution("uniform", 0.5, 0.9, target, "exact", extra={
        "intervals": [(0.5, 1e4)]})
    split = EpsilonSolution("skip", 0.5, 0.9, target, "exact", extra={
        "intervals": [(0.5, 2.0), (7.0, 1e4)]})
    capped = EpsilonSolution("user", 0.3, 0.9, target, "exact", extra={
        "intervals": [(0.3, 40.0)]})
    none = EpsilonSolution("event", None, None, target, "exact", reason="never")
    out = partial_ranges([whole, split, capped, none])
    assert out == [
        "Skip meets the target only for ε from 0.5 to 2 and 7 to 1e+04: a repeated value "
        "drifts out of the bound when the noise shrinks.",
        "User-level meets the target only for ε from 0.3 to 40: a repeated value drifts "
        "out of the bound when the noise shrinks."]
    assert solution_rows([none], target, "kWh") == [{
        "scheme": "Event-level", "ε needed": "unreachable", "reached": "—",
        "landmark-private": "—"}]
    assert solution_notes([none]) == "- **Event-level** (unreachable): never"


def test_uncovered_event_sentence_uses_the_worst_event():
    covered = LandmarkEvent((3,), (0.5,), (0.2,), 1.0)
    small = LandmarkEvent((10, 11), (2.0, -1.5), (0.2, 0.2), 1.0)
    big = LandmarkEvent((30,), (9.0,), (0.2,), 1.0)
    assert uncovered_event_sentence([covered], 1.0, "kWh", 1.0, 0.1) is None
    text = uncovered_event_sentence([covered, small, big], 1.0, "kWh", 1.0, 0.1)
    assert "at t=30 changes readings by up to 9 kWh" in text
    assert f"{math.exp(9 * 0.2):,.3g} times more likely" in text
    assert f"not {float(posterior_bound(0.1, 1.0)):.1%}" in text
    rows = event_rows([small, big], [f"t{i}" for i in range(40)], "kWh", 0.1)
    assert rows[0]["event"] == "t10 – t11" and rows[1]["event"] == "t30"
    assert rows[0]["change per reading (kWh)"] == "+2, -1.5"
    assert rows[1]["covered by Δf"] == "NO"
    assert rows[1]["posterior from 10%"] == f"{big.posterior(0.1):.1%}"


def test_repeat_rows_show_a_dash_for_undefined_shares():
    table = [("uniform", RepeatInference(math.nan, math.nan, 0.0, 0.1, 20)),
             ("skip", RepeatInference(1.0, 0.5, 2.0, 0.1, 20))]
    rows = repeat_rows(table)
    assert rows[0]["of which landmarks"] == "—" and rows[0]["landmarks found"] == "—"
    assert rows[1] == {"scheme": "Skip", "flagged per release": "2",
                       "of which landmarks": "100%", "landmarks found": "50%"}
