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

from lmdk_core.validation import InputError, as_generator, check_epsilon, check_epsilon_array


class RandomizedResponse:
    """k-ary randomized response (``categories = 2`` is Warner's coin-flip survey)."""

    name = "randomized_response"
    label = "Randomized response"

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

    def perturb(
        self,
        values: ArrayLike,
        epsilon: ArrayLike,
        rng: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """Randomized reports, one ε per element or one for all."""
        x = self._values(values)
        eps = check_epsilon_array(epsilon, x.shape[0] if x.ndim else None)
        gen = as_generator(rng)
        keep = gen.random(x.shape) < self.truth_probability(eps)
        # another category, uniformly among the k-1 others
        other = (x + gen.integers(1, self.categories, size=x.shape)) % self.categories
        return np.where(keep, x, other)

    def expected_error(self, epsilon: ArrayLike) -> np.ndarray:
        """Probability that one report is wrong: ``1 - p``."""
        return self.lie_probability(epsilon)

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
