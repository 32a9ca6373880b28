"""The public release note of a population statistic (``lmdk aggregate --note``).

What a reader of the published statistics needs to use them, and nothing that depends on
the raw data except through the noise (the rule of docs/privacy-model.md): the statistic
and its declared bounds, the window grid and the cell grid, the landmark setting (the
public landmark windows, or the declared bound k of each user's landmark windows — never
anyone's count), ε and the per-window budget ε_t the plan derives from them, the noise,
the **expected** absolute error of one released value and of each privacy level at the
same ε (functions of those settings alone: ``2a/(1−a²)`` with ``a = e^{−ε_t/Δ}`` for the
two-sided geometric, ``Δ/ε_t`` for Laplace), and the temporal leakage under a *declared*
transition matrix (Cao et al., ICDE 2017). Measured errors, true statistics and per-user
verdicts go to the CONFIDENTIAL audit only.

Landmark privacy: Katsomallos et al., "Landmark privacy: configurable differential privacy
protection for time series", CODASPY 2022. A grid read from the data (no ``--start``/
``--end``/``--bbox``) is not a public setting, so such a release is marked exploratory,
not publishable, here and in the file's header.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from lmdk_core import __version__
from lmdk_core.aggregate.levels import expected_error_curves, landmark_share
from lmdk_core.aggregate.output_files import grids_declared, header_lines
from lmdk_core.aggregate.population_release import DEFAULT_W, AggregateResult
from lmdk_core.report.templating import num, render_template

__all__ = ["aggregate_note_rows", "render_aggregate_note"]

_LEVEL_WORDS = {
    "event": "event level: one user's contribution at one window",
    "w-event": "w-event level: any {w} consecutive windows of one user",
    "user": "user level: all of one user's windows (ε/T)",
    "landmark": "landmark privacy (this release): a user's landmark windows together, "
                "plus any one other",
}


def _expected_levels(result: AggregateResult, w: int | None) -> list[tuple[str, str]]:
    """Expected |error| of one released value per level at this ε (public settings);
    ``w`` of the w-event level (default: 24 windows, at most T)."""
    spec = result.spec
    if spec.statistic.kind == "mean" or result.plan.scheme == "adaptive":
        return []
    w = w or min(DEFAULT_W, spec.windows.count)
    share = landmark_share(result.release, spec.epsilon)
    curves = expected_error_curves(spec.statistic, spec.windows.count, w, share,
                                   np.array([spec.epsilon]))
    return [(_LEVEL_WORDS[level].format(w=w), num(float(values[0]), ".3g"))
            for level, values in curves.items()]


def aggregate_note_rows(result: AggregateResult, noise: str, seeded: bool = False,
                        w: int | None = None) -> dict[str, object]:
    """The note's content: the header's public lines, the expected errors per level and
    whether the release may be published (declared grids and every user's verdict)."""
    lines = header_lines(result, noise, seeded)
    return {"settings": lines[1:], "levels": _expected_levels(result, w),
            "publishable": result.publishable and grids_declared(result),
            "declared": grids_declared(result), "epsilon": f"{result.spec.epsilon:g}"}


def render_aggregate_note(result: AggregateResult, noise: str, seeded: bool = False,
                          w: int | None = None, now: datetime | None = None) -> str:
    """The note as one self-contained HTML page (autoescaped Jinja2 template)."""
    rows = aggregate_note_rows(result, noise, seeded, w)
    date = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    return render_template("aggregate_note.html.j2", version=__version__, date=date,
                           **rows)
