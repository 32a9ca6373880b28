"""Temporal privacy leakage of an aggregate release under a declared transition matrix.

Cao et al. (ICDE 2017) define temporal privacy leakage for exactly this setting: counts
of users per location released at every t, each user's location a Markov chain with a
transition matrix P (backward matrix P^B by Bayes' rule; here the declared matrix serves
both ways unless a backward one is given). A user's BPL, FPL and TPL follow the
recursions of :mod:`lmdk_core.leakage.tpl` on the **per-window budgets ε_t** that the
user's contributions are released with — the plan's allocation, a public setting. With
a declared matrix (never one counted from the raw data), every figure here depends on
public settings only and may be published.

* Public landmark windows L: the largest TPL and the largest landmark TPL (Katsomallos
  et al.'s leakage of the landmarks plus one window; :func:`max_landmark_tpl`).
* Each user's own landmarks under a declared k: where a user's landmarks are is not
  public, so the figure is the bound that holds for every set of at most k landmark
  windows: ``landmark TPL_t ≤ Σ_{i∈L∪{t}} TPL_i`` (each restarted recursion is at most the
  full one, which grows with every ε_i) ``≤`` the sum of the k + 1 largest TPL values of
  the constant budget ``max_t ε_t`` (as the public release note states for one series,
  docs/privacy-model.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.aggregate.plan import LandmarkSetting
from lmdk_core.leakage.loss import LossFunction
from lmdk_core.leakage.tpl import max_landmark_tpl, tpl

__all__ = ["AggregateLeakage", "aggregate_leakage", "stay_matrix"]


@dataclass(frozen=True)
class AggregateLeakage:
    """The largest TPL over the windows and the largest landmark TPL (exact for public
    landmarks, an upper bound for personal ones; ``bound`` says which)."""

    max_tpl: float
    landmark_tpl: float
    bound: bool

    def describe(self, epsilon: float) -> str:
        """The header line (public: declared matrix, public allocation)."""
        which = "at most" if self.bound else ""
        verdict = ("within" if self.landmark_tpl <= epsilon + 1e-12 else "ABOVE")
        return (f"temporal leakage under the declared transition matrix (Cao et al., ICDE "
                f"2017): largest TPL {self.max_tpl:.4g}; landmark TPL {which} "
                f"{self.landmark_tpl:.4g}, {verdict} ε = {epsilon:g}").replace("  ", " ")

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def aggregate_leakage(allocation: np.ndarray, setting: LandmarkSetting,
                      backward: np.ndarray, forward: np.ndarray | None = None
                      ) -> AggregateLeakage:
    """TPL of the per-window allocation under the declared matrices (module docstring)."""
    eps = np.asarray(allocation, dtype=float)
    lb = LossFunction(np.asarray(backward, dtype=float), name="the declared matrix")
    lf = lb if forward is None else LossFunction(np.asarray(forward, dtype=float),
                                                 name="the declared forward matrix")
    per_t = np.asarray(tpl(eps, lb, lf), dtype=float)
    if setting.kind == "personal":
        top = np.asarray(tpl(np.full(eps.size, float(eps.max())), lb, lf), dtype=float)
        k = setting.declared_k()
        return AggregateLeakage(float(per_t.max()),
                                float(np.sort(top)[-min(k + 1, eps.size):].sum()), True)
    if setting.kind == "public" and setting.windows.size:
        return AggregateLeakage(float(per_t.max()),
                                float(max_landmark_tpl(eps, setting.windows, lb, lf)), False)
    return AggregateLeakage(float(per_t.max()), float(per_t.max()), False)


def stay_matrix(cells: int, stay: float) -> np.ndarray:
    """A declared model of a user's cell between consecutive windows: stay in the same
    cell with probability ``stay``, else move to a cell drawn uniformly (itself
    included): ``P = stay·I + (1 − stay)/C · J``. One number a publisher can state (the
    app's preset); ``stay = 0`` makes windows independent (TPL = ε_t)."""
    if not 0.0 <= stay < 1.0 or cells < 1:
        raise ValueError("stay must be in [0, 1) and cells >= 1")
    return np.full((cells, cells), (1.0 - stay) / cells) + stay * np.eye(cells)
