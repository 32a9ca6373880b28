"""The one verifier of the landmark-privacy theorem.

**Theorem (landmark privacy; seed "Landmark privacy", DESIGN.md).** A release made
of independent per-timestamp ε_t-DP mechanisms satisfies landmark ε-privacy iff for
every timestamp t::

    Σ_{i ∈ L ∪ {t}} ε_i  <=  ε

(landmarks compose with each other and with the current timestamp; regular
timestamps never compose with each other). Every allocation the engine releases or
the app shows goes through :func:`verify`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.validation import InputError, check_epsilon, check_epsilon_array, check_landmarks

__all__ = ["Verdict", "verify", "landmark_totals", "TOLERANCE"]

#: relative floating-point tolerance: ε/3 + ε/3 + ε/3 may exceed ε by one ulp.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Verdict:
    """Outcome of :func:`verify`.

    ``totals[t] = Σ_{i∈L∪{t}} ε_i``, ``slack[t] = ε - totals[t]`` (negative where the
    theorem is violated); ``worst_timestamp`` is the first t with the largest total.
    """

    private: bool
    worst_timestamp: int
    worst_total: float
    epsilon: float
    totals: np.ndarray
    slack: np.ndarray
    landmarks: np.ndarray

    @property
    def violations(self) -> np.ndarray:
        """Timestamps whose total exceeds ε (beyond the tolerance)."""
        return np.flatnonzero(self.totals > self.epsilon * (1 + TOLERANCE))

    def summary(self) -> str:
        """One plain-language sentence for a badge or a log line."""
        t, tot = self.worst_timestamp, self.worst_total
        if self.private:
            return (
                f"Landmark-private: the largest total Σ over L∪{{t}} is {tot:.4g} "
                f"(at t={t}) ≤ ε = {self.epsilon:.4g}"
            )
        n = self.violations.size
        return (
            f"NOT landmark-private: at t={t} the landmarks plus t spend {tot:.4g} > "
            f"ε = {self.epsilon:.4g} ({n} timestamp{'s' if n != 1 else ''} over budget)"
        )

    def to_dict(self) -> dict:
        """The CLI's JSON keys."""
        return {
            "landmark_private": bool(self.private),
            "worst_timestamp": int(self.worst_timestamp),
            "worst_total": float(self.worst_total),
        }


def landmark_totals(epsilon_t: ArrayLike, landmarks: Iterable[int]) -> np.ndarray:
    """``Σ_{i∈L∪{t}} ε_i`` for every t, in O(T): the landmark sum plus ε_t off L."""
    eps = np.asarray(epsilon_t, dtype=float)
    lm = np.asarray(list(landmarks), dtype=int)
    lsum = float(eps[lm].sum()) if lm.size else 0.0
    extra = eps.copy()
    if lm.size:
        extra[lm] = 0.0
    return lsum + extra


def verify(epsilon_t: ArrayLike, landmarks: Iterable[int] | None, epsilon: float) -> Verdict:
    """Check an allocation ``epsilon_t`` (one ε_i >= 0 per timestamp) against the
    landmark-privacy theorem for landmark set ``landmarks`` and total budget ``epsilon``.
    """
    eps_total = check_epsilon(epsilon)
    eps = check_epsilon_array(epsilon_t, allow_zero=True, name="allocation")
    if eps.ndim != 1 or eps.size == 0:
        raise InputError("the allocation must hold one budget per timestamp (at least one)")
    lm = check_landmarks(landmarks, eps.size)
    totals = landmark_totals(eps, lm)
    worst = int(np.argmax(totals))
    worst_total = float(totals[worst])
    return Verdict(
        private=bool(worst_total <= eps_total * (1 + TOLERANCE)),
        worst_timestamp=worst,
        worst_total=worst_total,
        epsilon=eps_total,
        totals=totals,
        slack=eps_total - totals,
        landmarks=lm,
    )
