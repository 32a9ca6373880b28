"""A static scheme's allocation in compact form: one share, and the timestamps it skips.

Every static scheme of :mod:`lmdk_core.engine.allocation` (event ε, user ε/T, w-event
ε/w, Uniform ε/(k+1), Skip ε off the landmarks; Katsomallos et al., CODASPY 2022) plans
the same budget at every timestamp except at a set Z where it plans nothing::

    ε_t = s   for t ∉ Z,        ε_t = 0   for t ∈ Z

(Z is empty except for Skip, where Z = L). A release of 10⁷ timestamps then needs no
array of 10⁷ budgets, published flags or expected errors: the verifier checks this form
exactly (:func:`lmdk_core.engine.verifier.verify`; tests/engine/test_share_allocation.py
proves it gives the array check's verdict on random inputs), and the arrays are
materialised only when something reads them (docs/performance.md, "Large inputs").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ShareAllocation"]


@dataclass(frozen=True, eq=False)
class ShareAllocation:
    """``ε_t = share`` at every timestamp ``t < length`` except ``ε_t = 0`` at
    ``zero_at`` (sorted, unique indices in ``0 … length−1``)."""

    length: int
    share: float
    zero_at: np.ndarray

    def array(self) -> np.ndarray:
        """The allocation as one budget per timestamp (a fresh array)."""
        out = np.full(self.length, self.share)
        out[self.zero_at] = 0.0
        return out

    def fresh(self) -> np.ndarray:
        """Where the share is spent (``ε_t > 0`` when ``share > 0``), as a boolean mask."""
        out = np.ones(self.length, dtype=bool)
        out[self.zero_at] = False
        return out

    @property
    def first_fresh(self) -> int:
        """The first timestamp outside ``zero_at`` (``length`` when there is none)."""
        return first_outside(self.zero_at, self.length)


def first_outside(sorted_unique: np.ndarray, length: int) -> int:
    """The first index of ``0 … length−1`` missing from ``sorted_unique`` (sorted, unique,
    in range), ``length`` when none is: the first k with ``sorted_unique[k] != k``."""
    gaps = np.flatnonzero(sorted_unique != np.arange(sorted_unique.size))
    return int(gaps[0]) if gaps.size else min(int(sorted_unique.size), length)
