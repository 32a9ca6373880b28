"""The statistics of a population per window, their sensitivities and their totals.

Neighbouring populations differ in **one user's contribution at one window** — changed
(the user moved, a reading changed within the bounds) or added/removed. With one
contribution per user per window (:mod:`lmdk_core.aggregate.contributions`):

* **cell counts** (tracks): a changed contribution moves one user from cell a to cell b,
  so the histogram changes by −1 in a and +1 in b: **L1 sensitivity 2**; an added or
  removed user changes one cell by 1. Noise: two-sided geometric of scale 2/ε_t in every
  cell (Ghosh et al., STOC 2009), ε_t-DP for the whole histogram of the window;
* **count** (series): the number of users with a reading in the window; a changed
  reading leaves it unchanged, an added user changes it by 1: **Δ = 1**, geometric;
* **sum** (series) of values clamped to [LO, HI]: a changed value moves the sum by at
  most HI − LO, an added one by at most max(|LO|, |HI|): **Δ = max(HI − LO, |LO|,
  |HI|)** (= HI − LO when LO ≤ 0 ≤ HI), Laplace noise of scale Δ/ε_t;
* **mean** (series): noisy sum / noisy count, ε_t split in halves (ε_t/2 each), then
  clamped to [LO, HI] (post-processing).

:class:`Totals` holds what a partition of whole users adds up (sums and counts per
window and cell); totals of partitions add.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.foundation.errors import InputError

__all__ = ["STATISTICS", "Statistic", "Totals", "statistic", "totals_of"]

#: the statistics of a series population
STATISTICS = ("sum", "mean", "count")


@dataclass(frozen=True)
class Statistic:
    """What is released per window (and cell): ``kind`` is 'cells', 'sum', 'mean' or
    'count'; ``bounds`` the declared [LO, HI] of a series."""

    kind: str
    bounds: tuple[float, float] | None = None

    @property
    def sensitivity(self) -> float:
        """Δ of the released query per window (module docstring): 2 for cell counts, 1
        for a count, max(HI − LO, |LO|, |HI|) for a sum (the mean's sum part too)."""
        if self.kind == "cells":
            return 2.0
        if self.kind == "count":
            return 1.0
        lo, hi = self.declared_bounds()
        return float(max(hi - lo, abs(lo), abs(hi)))

    def declared_bounds(self) -> tuple[float, float]:
        """[LO, HI] of a series statistic (:func:`statistic` refuses one without)."""
        if self.bounds is None:
            raise InputError(f"the {self.kind} of a series needs declared bounds --bounds LO,HI")
        return self.bounds

    @property
    def integer(self) -> bool:
        """Whether the released values are counts (geometric noise)."""
        return self.kind in ("cells", "count")

    def describe(self) -> str:
        """The header line of the statistic (public settings only)."""
        if self.kind == "cells":
            return ("statistic: users per cell per window (each user's first fix of the "
                    "window); L1 sensitivity 2; two-sided geometric noise")
        lo, hi = self.declared_bounds()
        base = (f"statistic: {self.kind} per window of each user's mean reading clamped to "
                f"the declared bounds [{lo:g}, {hi:g}]")
        if self.kind == "count":
            return base + "; sensitivity 1; two-sided geometric noise"
        if self.kind == "sum":
            return base + f"; sensitivity {self.sensitivity:g}; Laplace noise"
        return (base + f"; noisy sum (sensitivity {self.sensitivity:g}, Laplace, ε_t/2) / "
                "noisy count (sensitivity 1, geometric, ε_t/2), clamped to the bounds")


def statistic(kind: str, bounds: tuple[float, float] | None = None) -> Statistic:
    """A checked :class:`Statistic`: series kinds need finite bounds LO < HI."""
    if kind == "cells":
        return Statistic("cells")
    if kind not in STATISTICS:
        raise InputError(f"unknown statistic {kind!r}; choose {', '.join(STATISTICS)}")
    if bounds is None:
        raise InputError("a series statistic needs declared bounds --bounds LO,HI")
    lo, hi = (float(b) for b in bounds)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise InputError("--bounds must be finite numbers LO,HI")
    if lo >= hi:
        raise InputError(f"--bounds {lo:g},{hi:g}: LO must be below HI")
    return Statistic(kind, (lo, hi))


@dataclass
class Totals:
    """Per window (rows) and cell (columns; one column for series): the ``count`` of
    contributions and the ``total`` of their values."""

    count: np.ndarray
    total: np.ndarray

    def __add__(self, other: Totals) -> Totals:
        return Totals(self.count + other.count, self.total + other.total)

    @classmethod
    def zeros(cls, windows: int, cells: int) -> Totals:
        return cls(np.zeros((windows, cells), dtype=np.int64), np.zeros((windows, cells)))

    def values(self, stat: Statistic) -> np.ndarray:
        """The true statistic per window and cell (the mean is NaN where nobody
        contributed)."""
        if stat.kind in ("cells", "count"):
            return self.count.astype(float)
        if stat.kind == "sum":
            return self.total.copy()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)


def totals_of(window: np.ndarray, cell: np.ndarray, value: np.ndarray, mask: np.ndarray,
              *, windows: int, cells: int) -> Totals:
    """The :class:`Totals` of the contributions selected by ``mask`` (those in no cell,
    ``cell`` < 0, are left out)."""
    sel = np.asarray(mask, dtype=bool) & (cell >= 0)
    flat = window[sel] * cells + cell[sel]
    n = windows * cells
    count = np.bincount(flat, minlength=n).reshape(windows, cells).astype(np.int64)
    total = np.bincount(flat, weights=value[sel], minlength=n).reshape(windows, cells)
    return Totals(count, total)
