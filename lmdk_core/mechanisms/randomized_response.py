"""Randomized response (Warner, JASA 1965), k-ary form (Kairouz, Oh, Viswanath 2014).

Each categorical value in ``0..k-1`` is reported truthfully with probability
``p = e^ε/(e^ε + k - 1)`` and otherwise replaced by one of the other ``k - 1``
categories uniformly (each with ``q = 1/(e^ε + k - 1)``); ``p/q = e^ε`` so every
report is ε-DP. The unbiased estimate of the true proportion of category j from the
observed proportion λ_j is ``(λ_j - q)/(p - q)``. Expected error of one report: it is
wrong with probability ``1 - p``.

Computed as ``p = 1/(1 + (k-1)e^{-ε})`` and ``1 - p = (k-1)e^{-ε}/(1 + (k-1)e^{-ε})``,
which stay exact at any ε (``e^ε`` itself overflows above ε ≈ 709.78 and gave inf/inf).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import as_generator, check_epsilon, check_epsilon_array
from lmdk_core.mechanisms.base import Mechanism


class RandomizedResponse(Mechanism):
    """k-ary randomized response (``categories = 2`` is Warner's coin-flip survey).

    Error is measured as a mismatch (``distance`` is 1 where a report differs from the
    truth, else 0), so ``expected_error`` is the probability ``1 − p`` of a wrong report.
    """

    name = "randomized_response"
    label = "Randomized response"
    data_kind = "category"

    def __init__(self, categories: int = 2) -> None:
        if not isinstance(categories, (int, np.integer)) or categories < 2:
            raise InputError(f"randomized response needs at least 2 categories, got {categories!r}")
        self.categories = int(categories)

    def truth_probability(self, epsilon: ArrayLike) -> np.ndarray:
        """``p = e^ε/(e^ε + k - 1) = 1/(1 + (k-1)e^{-ε})`` (no overflow at large ε)."""
        m = (self.categories - 1) * np.exp(-check_epsilon_array(epsilon))
        return 1.0 / (1.0 + m)

    def lie_probability(self, epsilon: ArrayLike) -> np.ndarray:
        """``1 - p = (k-1)/(e^ε + k - 1)``, computed without cancellation."""
        m = (self.categories - 1) * np.exp(-check_epsilon_array(epsilon))
        return m / (1.0 + m)

    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """The odds of a wrong report, ``(1 − p)/p = (k − 1)·e^{−ε}`` (so ``p = 1/(1 +
        scale)``): the noise parameter, shrinking as ε grows."""
        return (self.categories - 1) * np.exp(-check_epsilon_array(epsilon))

    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """Every ε > 0 is usable: ``p`` and ``1 − p`` are computed without overflow."""
        return check_epsilon_array(epsilon)

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """The reports as integers in ``0..k−1`` (:meth:`_values`)."""
        return self._values(values)

    def _values(self, values: ArrayLike) -> np.ndarray:
        x = np.asarray(values)
        if x.dtype.kind == "b":
            x = x.astype(int)
        if x.dtype.kind == "f" and np.all(np.isfinite(x)) and np.all(x == np.round(x)):
            x = x.astype(int)
        if x.dtype.kind not in "iu" or np.any((x < 0) | (x >= self.categories)):
            raise InputError(
                f"randomized response takes categories 0..{self.categories - 1} (whole numbers)"
            )
        return x

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """Keep each report with probability ``p``, else one of the other ``k − 1``
        categories uniformly."""
        gen = as_generator(rng)
        keep = gen.random(x.shape) < self.truth_probability(epsilon)
        # another category, uniformly among the k-1 others
        other = (x + gen.integers(1, self.categories, size=x.shape)) % self.categories
        return np.where(keep, x, other)

    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """Probability that one report is wrong: ``1 - p`` (the mean mismatch)."""
        return self.lie_probability(epsilon)

    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(mismatch ≤ d)``: 0 below 0, ``p`` on [0, 1), 1 from 1 on."""
        d = np.asarray(d, dtype=float)
        p = float(self.truth_probability(epsilon))
        return np.where(d < 0, 0.0, np.where(d < 1, p, 1.0))

    @staticmethod
    def distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """The mismatch: 1.0 where two reports differ, else 0.0."""
        return (np.asarray(a) != np.asarray(b)).astype(float)

    def estimate_proportions(self, reports: ArrayLike, epsilon: float) -> np.ndarray:
        """Unbiased estimate ``(λ_j - q)/(p - q)`` of each category's true proportion."""
        r = self._values(reports)
        if r.size == 0:
            raise InputError("no reports to estimate from")
        eps = check_epsilon(epsilon)
        # q = 1/(e^ε + k - 1) and p - q = (1 - e^{-ε})/(1 + (k-1)e^{-ε}), both without
        # overflow or cancellation
        m = (self.categories - 1) * np.exp(-eps)
        q = np.exp(-eps) / (1.0 + m)
        gap = -np.expm1(-eps) / (1.0 + m)
        lam = np.bincount(r.ravel(), minlength=self.categories) / r.size
        return (lam - q) / gap
