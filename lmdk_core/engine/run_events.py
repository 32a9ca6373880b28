"""Runs of a series as landmark events: one release per run of consecutive readings.

A *run* is a range ``start..end`` of consecutive readings of a series that belong to one
event — a heart-rate cool-down, a holiday in a meter, a weekend in an office — as
``lmdk suggest`` and the Timeline find them (:func:`lmdk_core.landmarks.discovery.
suggestion_events`). Protected as **one landmark event** (docs/series-events.md), exactly
as a track's stay is (docs/stays.md, :mod:`lmdk_core.engine.stay_events`, whose
condensed timeline, grouped verifier and fresh post-processing noise the release reuses):

* one Laplace (or two-sided Geometric) release is made for the whole run, of the run's
  level ``m = mean(x_start … x_end)`` (:func:`run_level`), at the run's budget ε_g;
* every reading of the run publishes that released level plus fresh noise of the
  regular reading's law (post-processing: ε_t = 0; :mod:`lmdk_core.engine.repeat_noise`),
  so the file shows no run of identical values.

If every reading of a run may change by up to Δf (the declared sensitivity), the mean
changes by at most Δf (``|mean(x') − mean(x)| ≤ mean|x'_i − x_i| ≤ Δf``), so the one
release is ε_g-DP for any change of the whole run, and the landmark-privacy theorem
(Katsomallos et al., CODASPY 2022) holds in its grouped form
``Σ_{g ∩ (L∪{t}) ≠ ∅} ε_g ≤ ε`` (:func:`lmdk_core.engine.verifier.verify` with
``groups``). A declared bound k counts each run once.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.validation import landmark_runs, parse_landmark_ranges

__all__ = ["format_runs", "parse_runs", "run_level", "runs_of"]


def run_level(values: ArrayLike, whole: bool = False) -> float:
    """The level a run's one release noises: the mean ``m = (1/|g|) Σ_{i∈g} x_i``, or
    for whole-number data (the Geometric mechanism, ``whole``) ``⌊m + ½⌋``.

    Sensitivity (docs/series-events.md): a change of every reading by at most Δf moves
    ``m`` by at most Δf; ``⌊· + ½⌋`` is monotone and commutes with whole shifts, so for
    a whole Δf it moves ``⌊m + ½⌋`` by at most Δf too."""
    m = float(np.mean(np.asarray(values, dtype=float)))
    return float(np.floor(m + 0.5)) if whole else m


def parse_runs(text: str | None) -> list[tuple[int, int]]:
    """Parse runs written as ranges ``"10-50,80-120"`` (inclusive; ``"7"`` is a run of one
    reading); ``""`` or None means none — the landmark syntax
    (:func:`lmdk_core.foundation.validation.parse_landmark_ranges`)."""
    return parse_landmark_ranges(text, what="run")


def format_runs(runs: Iterable[tuple[int, int]]) -> str:
    """``"10-50,80-120"``: the form :func:`parse_runs` reads (a run of one reading as
    ``"7"``)."""
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def runs_of(landmarks: Iterable[int]) -> list[tuple[int, int]]:
    """The runs of two or more consecutive ``landmarks`` ``(first, last)``: what a batch
    releases as one event each (a single landmark stays a landmark of its own).

    >>> runs_of([3, 4, 5, 9, 11, 12])
    [(3, 5), (11, 12)]
    """
    return [(a, b) for a, b in landmark_runs(landmarks) if b > a]
