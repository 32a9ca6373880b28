"""The rows and sentences the Choose ε page shows, computed from the engine's answers
(no Streamlit): the accuracy solutions per scheme, the ε ranges that meet a target only
in part, the data's own landmark events and the repeat-inference simulation.

Every figure is taken from :class:`~lmdk_core.decision.accuracy.EpsilonSolution`,
:class:`~lmdk_core.decision.sensitivity.LandmarkEvent` and
:class:`~lmdk_core.decision.attacker.RepeatInference`; this module only formats them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lmdk_core.decision.accuracy import AccuracyTarget, EpsilonSolution
from lmdk_core.decision.attacker import RepeatInference, posterior_bound
from lmdk_core.decision.sensitivity import LandmarkEvent
from lmdk_core.engine.allocation import SCHEMES


def solution_rows(sols: Sequence[EpsilonSolution], target: AccuracyTarget,
                  unit: str) -> list[dict[str, str]]:
    """One row per scheme: the ε needed ('unreachable' when none on the searched range
    meets the target), the accuracy reached there (a probability for a 'within' target,
    an error in ``unit`` for a 'mean' target) and whether the scheme is landmark-private."""
    rows = []
    for s in sols:
        if s.epsilon is None:
            got = "—"
        elif target.kind == "within":
            got = f"{s.achieved:.1%}"
        else:
            got = f"{s.achieved:.3g} {unit}".strip()
        rows.append({"scheme": SCHEMES[s.scheme].label,
                     "ε needed": "unreachable" if s.epsilon is None else f"{s.epsilon:.4g}",
                     "reached": got,
                     "landmark-private": {True: "yes", False: "NO", None: "—"}[
                         s.landmark_private]})
    return rows


def solution_notes(sols: Sequence[EpsilonSolution]) -> str:
    """The notes of the solutions as a Markdown list (the only explanation of
    'unreachable'); empty when no solution has one."""
    return "\n".join(
        f"- **{SCHEMES[s.scheme].label}**" + (" (unreachable)" if s.epsilon is None else "")
        + f": {s.reason or s.method}" for s in sols if s.reason or s.method)


def partial_ranges(sols: Sequence[EpsilonSolution]) -> list[str]:
    """One sentence per scheme that meets the target only on part of the ε range (a
    repeated value drifts out of the bound when the noise shrinks): its ε intervals."""
    out = []
    for s in sols:
        spans = s.partial_intervals()
        if not spans:
            continue
        text = " and ".join(f"{a:.4g} to {b:.4g}" for a, b in spans)
        out.append(f"{SCHEMES[s.scheme].label} meets the target only for ε from {text}: a "
                   "repeated value drifts out of the bound when the noise shrinks.")
    return out


def uncovered_event_sentence(events: Sequence[LandmarkEvent], sensitivity: float, unit: str,
                             epsilon: float, prior: float) -> str | None:
    """When Δf does not cover one of the data's landmark events (a change larger than
    Δf), the sentence about the worst of them: its likelihood ratio
    ``exp(Σ|d_t|·ε_t/Δf)`` against ``e^ε`` and the posterior it allows from ``prior``
    (Dwork & Roth, Thm 3.6); None when every event is covered."""
    uncovered = [e for e in events if not e.covered]
    if not uncovered:
        return None
    worst = max(uncovered, key=lambda e: e.log_ratio)
    span = (f"t={worst.timestamps[0]}" + (f"–{worst.timestamps[-1]}"
                                          if len(worst.timestamps) > 1 else ""))
    return (f"**Δf = {sensitivity:g} {unit} does not cover this data's own landmark "
            f"events**, so the figures ε promises do not hold for them: the event at {span}"
            f" changes readings by up to {max(abs(d) for d in worst.changes):.3g} {unit}, "
            f"so the release is {worst.likelihood_ratio:,.3g} times more likely with the "
            f"event than without (e^ε = {math.exp(epsilon):.3g}) and a {prior:.0%} "
            f"suspicion can grow to {worst.posterior(prior):.1%}, not "
            f"{float(posterior_bound(prior, epsilon)):.1%}. Use a Δf that covers them (the "
            "sidebar offers the value derived from the data).")


def event_rows(events: Sequence[LandmarkEvent], labels: Sequence[str], unit: str,
               prior: float) -> list[dict[str, str]]:
    """One row per landmark event: when, the change per reading, the ε spent on it, the
    likelihood ratio ``exp(Σ|d_t|·ε_t/Δf)``, the posterior from ``prior`` and whether Δf
    covers it."""
    return [{
        "event": (labels[e.timestamps[0]] if len(e.timestamps) == 1 else
                  f"{labels[e.timestamps[0]]} – {labels[e.timestamps[-1]]}"),
        f"change per reading ({unit})": ", ".join(f"{d:+.3g}" for d in e.changes),
        "ε spent on it": f"{sum(e.epsilon_t):.3g}",
        "likelihood ratio": f"{e.likelihood_ratio:,.3g}",
        f"posterior from {prior:.0%}": f"{e.posterior(prior):.1%}",
        "covered by Δf": "yes" if e.covered else "NO"} for e in events]


def repeat_rows(table: Sequence[tuple[str, RepeatInference]]) -> list[dict[str, str]]:
    """One row per scheme of a repeat-inference simulation
    (:func:`~lmdk_core.decision.attacker.simulate_repeat_inference`): values flagged per
    release, the share of them that are landmarks, the share of landmarks found."""
    def share(x: float) -> str:
        return "—" if math.isnan(x) else f"{x:.0%}"

    return [{"scheme": SCHEMES[s].label,
             "flagged per release": f"{r.flagged_per_run:.3g}",
             "of which landmarks": share(r.precision),
             "landmarks found": share(r.recall)} for s, r in table]
