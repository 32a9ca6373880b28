"""Privacy levels side by side at the same ε: what each protects and what it costs.

For T windows and total budget ε:

=========  ==============  ==================================================================
level      ε_t             protects
=========  ==============  ==================================================================
event      ε               one user's contribution at one window
w-event    ε/w             any w consecutive windows of one user (Kellaris et al., VLDB 2014)
user       ε/T             all of one user's contributions (one per window: contribution
                           bounding, as DP Mobility Report and Tumult do)
landmark   the plan's      all of a user's landmark windows together, plus any one other
                           (Katsomallos et al., CODASPY 2022)
=========  ==============  ==================================================================

For each level: the **expected** absolute error of one released value (the mean over
the released windows of the noise law's E|Z| at ε_t: ``2a/(1−a²)`` for the geometric,
``Δ/ε_t`` for Laplace; NaN for the mean, which has no closed form here) and the
**measured** mean absolute error of an actual release against the true statistic (all
bounded contributions, before any landmark rule) — the measured error depends on the raw
data and is CONFIDENTIAL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.aggregate.noisy_release import StatisticRelease, release_statistic
from lmdk_core.aggregate.statistics import Statistic, Totals
from lmdk_core.mechanisms import Geometric, Laplace

__all__ = ["LEVELS", "LevelError", "compare_levels", "expected_error_at",
           "expected_error_curves", "landmark_share", "measured_error"]

#: the levels in the order they are shown
LEVELS = ("event", "w-event", "user", "landmark")


@dataclass(frozen=True)
class LevelError:
    """One level's ε_t (a constant, or NaN when it varies), expected and measured error."""

    level: str
    epsilon_t: float
    expected_error: float
    measured_error: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def expected_error_at(stat: Statistic, epsilon_t: np.ndarray) -> np.ndarray:
    """E|Z| of one released value at each ε_t (NaN for the mean)."""
    e = np.asarray(epsilon_t, dtype=float)
    if stat.kind == "mean":
        return np.full(e.shape, np.nan)
    mech = Geometric(int(stat.sensitivity)) if stat.integer else Laplace(stat.sensitivity)
    return np.asarray(mech.expected_error(e), dtype=float)


def measured_error(rel: StatisticRelease, truth: np.ndarray) -> float:
    """Mean |released − true| over every window and cell where both are numbers."""
    d = np.abs(rel.released - truth)
    ok = np.isfinite(d)
    return float(d[ok].mean()) if ok.any() else float("nan")


def _summary(level: str, rel: StatisticRelease, stat: Statistic,
             truth: np.ndarray) -> LevelError:
    eps = rel.allocation[rel.published]
    const = float(eps[0]) if eps.size and np.all(eps == eps[0]) else float("nan")
    exp_err = expected_error_at(stat, eps) if eps.size else np.array([np.nan])
    return LevelError(level, const, float(np.mean(exp_err)), measured_error(rel, truth))


def compare_levels(all_totals: Totals, landmark_release: StatisticRelease, stat: Statistic,
                   *, epsilon: float, w: int, noise: str = "exact", rng=None
                   ) -> list[LevelError]:
    """Event, w-event and user level released from every bounded contribution at the
    same ε, beside the landmark release already made (see the module docstring)."""
    T = all_totals.count.shape[0]
    truth = all_totals.values(stat)
    out = []
    for level, eps_t in (("event", epsilon), ("w-event", epsilon / w), ("user", epsilon / T)):
        rel = release_statistic(all_totals, stat, np.full(T, eps_t), noise, rng)
        out.append(_summary(level, rel, stat, truth))
    out.append(_summary("landmark", landmark_release, stat, truth))
    return out


def expected_error_curves(stat: Statistic, windows: int, w: int, landmark_share: float,
                          epsilons: np.ndarray) -> dict[str, np.ndarray]:
    """Expected |error| of one released value at each total ε of ``epsilons``, per level:
    ε_t = ε (event), ε/w, ε/T (user) and ε·``landmark_share`` (the landmark plan's ε_t/ε:
    1/(k+1) for Uniform with a declared k). Public settings only: these curves may be
    shown and published; NaN for the mean."""
    e = np.asarray(epsilons, dtype=float)
    shares = {"event": 1.0, "w-event": 1.0 / w, "user": 1.0 / windows,
              "landmark": float(landmark_share)}
    return {level: expected_error_at(stat, e * share) for level, share in shares.items()}


def landmark_share(rel: StatisticRelease, epsilon: float) -> float:
    """The landmark plan's mean ε_t over its fresh windows, divided by ε."""
    eps = rel.allocation[rel.published]
    return float(eps.mean() / epsilon) if eps.size else float("nan")
