"""The per-window allocation of an aggregate release, from public settings only.

Three ways to name landmarks (docs/aggregate.md):

* **none** — every window is a regular event; the scheme's allocation applies
  (Uniform is then ε per window, as event-level);
* **public** — landmark windows common to everyone (``--landmark-times``: a festival,
  a storm, election day); the ordinary schemes apply to the window series exactly as to
  one series (:func:`lmdk_core.engine.allocation.allocate`), and the allocation goes
  through the one verifier (:func:`lmdk_core.engine.verifier.verify`);
* **personal** — each user's own landmark windows, bounded by a declared k
  (:mod:`lmdk_core.aggregate.landmark_bound`): Uniform is ε/(k+1) in every window (ε/T
  when k ≥ T), Skip is ε in every window with every landmark contribution left out.
  The plan is verified for a user with k landmark windows (the worst a user whose
  contributions the rule keeps can be), and every user is verified on their own
  (:mod:`lmdk_core.aggregate.user_verdicts`).

Event, w-event and user level are the same constant allocations as for one series
(ε, ε/w, ε/T); with landmarks, the verdicts say whether they are landmark-private.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lmdk_core.engine.allocation import allocate, scheme_info
from lmdk_core.engine.verifier import Verdict, verify
from lmdk_core.foundation.errors import InputError

__all__ = ["LandmarkSetting", "Plan", "plan_allocation"]


@dataclass(frozen=True)
class LandmarkSetting:
    """How landmarks are named: ``kind`` 'none', 'public' (``windows``: the public
    landmark windows) or 'personal' (``k``: the declared bound per user, ``rule``: what
    happens to a user with more; ``source``: where a user's landmarks come from)."""

    kind: str = "none"
    windows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    k: int | None = None
    rule: str = "drop"
    source: str = ""

    def describe(self) -> str:
        """The header line (public settings only: never anyone's landmark count)."""
        if self.kind == "public":
            return (f"landmarks: {self.windows.size} public landmark windows (listed "
                    "below), common to every user")
        if self.kind == "personal":
            rule = ("their landmark contributions after the k-th are left out" if
                    self.rule == "drop" else "they are left out of every window")
            return (f"landmarks: each user's own, declared bound k = {self.k} landmark "
                    f"windows per user; users with more than k: {rule}")
        return "landmarks: none (every window a regular event)"

    def declared_k(self) -> int:
        """The declared bound k of personal landmarks (ValueError for another kind)."""
        if self.kind != "personal" or self.k is None:
            raise ValueError(f"landmarks {self.kind!r} declare no bound k")
        return int(self.k)


@dataclass(frozen=True)
class Plan:
    """The allocation ε_t per window, the scheme, and the verifier's verdict of the plan
    (for personal landmarks: for a user with k landmark windows)."""

    scheme: str
    allocation: np.ndarray
    verdict: Verdict
    skip_landmarks: bool


def plan_allocation(scheme: str, windows: int, setting: LandmarkSetting, epsilon: float,
                    w: int | None = None) -> Plan:
    """The :class:`Plan` of ``scheme`` over ``windows`` windows (module docstring).
    Adaptive's plan is its Uniform start; its release decides the rest."""
    key = scheme_info(scheme).key
    if setting.kind == "personal":
        if key == "adaptive":
            raise InputError("Adaptive needs landmarks common to everyone (--landmark-times); "
                             "with each user's own landmarks use uniform or skip")
        k = setting.declared_k()
        worst = np.arange(min(k, windows))
        if key in ("uniform", "skip"):
            # the allocation of the declared k (Uniform ε/(k+1), ε/T when k ≥ T), verified
            # for a user with k landmark windows, the worst the k rule keeps
            alloc = allocate(key, windows, worst, epsilon,
                             max_landmarks=k if k < windows else None)
            plan = alloc if key == "uniform" else np.full(windows, float(epsilon))
            return Plan(key, plan, verify(alloc, worst, epsilon, max_landmarks=k),
                        key == "skip")
        alloc = allocate(key, windows, [], epsilon, window=w)
        return Plan(key, alloc, verify(alloc, worst, epsilon, max_landmarks=k), False)
    lm = setting.windows if setting.kind == "public" else np.zeros(0, dtype=np.int64)
    alloc = allocate(key, windows, lm, epsilon, window=w)
    return Plan(key, alloc, verify(alloc, lm, epsilon), False)
