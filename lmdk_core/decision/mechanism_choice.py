"""Choosing the noise mechanism and the sensitivity Δf for a real series.

* :func:`mechanism_problems` lists, all at once, what stops a mechanism from running
  on the data with the chosen Δf, each with the change that fixes it. The two-sided
  Geometric mechanism (Ghosh, Roughgarden & Sundararajan, STOC 2009) adds whole
  numbers with ``P(Z = z) ∝ a^|z|``, ``a = exp(−ε/Δf)``: it needs whole-number data
  (counts) and a whole-number Δf ≥ 1. Laplace (Dwork et al. 2006) takes any real data
  and any Δf > 0.
* :func:`clamp_to_bounds` and :func:`sensitivity_from_bounds`: data bounds declared by
  the user, as diffprivlib's ``bounds=(lower, upper)`` and OpenDP's clamping
  transformation do. Every value is clamped to ``[lower, upper]``; one person's
  reading then changes a published value by at most ``Δf = upper − lower`` (a
  reading replaced by another reading: the bounded sensitivity of a single value).
  The bounds must come from knowledge of the domain (a meter's rated maximum), never
  from the data themselves — bounds read off the data leak them — so the app shows
  the data's range only as a hint and counts the values that clamping changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree

__all__ = ["ClampResult", "MechanismProblem", "clamp_to_bounds", "mechanism_problems",
           "sensitivity_from_bounds"]


@dataclass(frozen=True)
class MechanismProblem:
    """Why a mechanism cannot run (``problem``) and what to change (``fix``)."""

    problem: str
    fix: str
    kind: str  # 'sensitivity' or 'data'

    def __str__(self) -> str:
        return f"{self.problem} — {self.fix}"


def mechanism_problems(values: ArrayLike, mechanism: str,
                       sensitivity: float) -> list[MechanismProblem]:
    """Every reason ``mechanism`` cannot release ``values`` with sensitivity Δf, each
    with its fix (empty list: it can). Only the Geometric mechanism has conditions
    beyond Δf > 0: whole-number Δf ≥ 1 and whole-number data."""
    if str(mechanism).lower() != "geometric":
        return []
    checks = (_geometric_sensitivity_problem(float(sensitivity)),
              _geometric_data_problem(np.asarray(values, dtype=float)))
    return [p for p in checks if p is not None]


def _geometric_sensitivity_problem(d: float) -> MechanismProblem | None:
    """The Geometric mechanism needs a whole-number Δf ≥ 1 (None when Δf is one)."""
    if np.isfinite(d) and d >= 1 and d == round(d):
        return None
    up = max(1, int(np.ceil(d))) if np.isfinite(d) else 1
    return MechanismProblem(
        f"the Geometric mechanism needs a whole-number sensitivity Δf ≥ 1, and Δf = {d:g}",
        f"set Δf to a whole number such as {up} (the most one person can change a count), "
        "or choose Laplace, which takes any Δf > 0", "sensitivity")


def _geometric_data_problem(x: np.ndarray) -> MechanismProblem | None:
    """The Geometric mechanism adds whole numbers: every finite value must be whole."""
    frac = np.flatnonzero(np.isfinite(x) & (x != np.round(x)))
    if not frac.size:
        return None
    return MechanismProblem(
        f"the Geometric mechanism adds whole numbers to counts, and {frac.size:,} of "
        f"{x.size:,} values "
        f"{agree(frac.size, 'is not a whole number', 'are not whole numbers')} "
        f"(e.g. t={int(frac[0])}: "
        f"{x[frac[0]]:g})",
        "choose Laplace for real-valued data (e.g. kWh), or round the values to whole "
        "numbers (e.g. count in units of 0.1 kWh) and use Geometric", "data")


@dataclass(frozen=True)
class ClampResult:
    """Values clamped to ``[lower, upper]``; how many were below / above."""

    values: np.ndarray
    lower: float
    upper: float
    n_below: int
    n_above: int

    @property
    def n_clamped(self) -> int:
        """Values that clamping changed."""
        return self.n_below + self.n_above

    @property
    def sensitivity(self) -> float:
        """Δf = upper − lower (see :func:`sensitivity_from_bounds`)."""
        return sensitivity_from_bounds(self.lower, self.upper)


def _check_bounds(lower: float, upper: float) -> tuple[float, float]:
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError):
        raise InputError("the data bounds must be numbers") from None
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise InputError("the data bounds must be finite numbers")
    if hi <= lo:
        raise InputError(f"the upper bound ({hi:g}) must be larger than the lower bound "
                         f"({lo:g})")
    return lo, hi


def sensitivity_from_bounds(lower: float, upper: float) -> float:
    """``Δf = upper − lower``: with every value in ``[lower, upper]``, replacing one
    reading by any other changes the published value by at most that much
    (diffprivlib and OpenDP derive the sensitivity of a clamped value the same way)."""
    lo, hi = _check_bounds(lower, upper)
    return hi - lo


def clamp_to_bounds(values: ArrayLike, lower: float, upper: float) -> ClampResult:
    """``min(max(x, lower), upper)`` for every value, with the counts of values that
    were below ``lower`` and above ``upper``."""
    lo, hi = _check_bounds(lower, upper)
    x = np.asarray(values, dtype=float)
    return ClampResult(np.clip(x, lo, hi), lo, hi, int(np.sum(x < lo)), int(np.sum(x > hi)))
