"""The two-sided geometric mechanism (Ghosh, Roughgarden, Sundararajan, STOC 2009).

For integer data: ``o = x + Z`` with ``P(Z = k) = (1-a)/(1+a) · a^|k|``,
``a = exp(-ε/Δf)`` (Δf a whole number). ε-differentially private; the discrete
analogue of Laplace. Expected error: ``E|Z| = 2a/(1-a²)``, ``E Z² = 2a/(1-a)²``.
Sampled as the difference of two i.i.d. geometric variables with success probability
``p = 1 - a = -expm1(-ε/Δf)`` (``1 - exp(-ε/Δf)`` rounds to 0 below ε/Δf ≈ 1e-16).

Usable range: ``ε/Δf ≥ MIN_RATIO = 1e-12``. Then the noise stays far below 2⁵³, so
every released count is an exact whole number (P(|Z| ≥ 2⁵³) ≈ e^(−9000)); numpy's
sampler silently caps its draws at 2⁶³−1 once p is near 1e-19, so smaller budgets are
refused with a message instead.

:class:`ExactGeometric` is the same mechanism with the exact sampler: the same parameters, usable
ranges, expected errors and distances, but exact discrete Laplace noise added **to the
values themselves** on a public grid (:mod:`lmdk_core.mechanisms.exact_noise`):
textbook floating-point noise is not differentially private (Mironov, "On significance
of the least significant bits for differential privacy", CCS 2012); this sampler is. It
draws from OS entropy, so its ``rng`` argument is accepted but does not affect the noise.
It is the mechanism of every publishable output; the exploration views keep numpy's
sampler for speed and reproducibility.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import (
    as_generator,
    budget_below,
    check_epsilon_array,
    check_positive,
    describe_budget,
)
from lmdk_core.mechanisms.base import Mechanism
from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME, exact_geometric
from lmdk_core.mechanisms.exact_scaled import ExactScaledNoise
from lmdk_core.mechanisms.laplace import Laplace

#: smallest ε/Δf the mechanism accepts (see the module docstring).
MIN_RATIO = 1e-12


def check_counts(values: ArrayLike) -> np.ndarray:
    """``values`` as floats if they are all finite whole numbers, else InputError."""
    x = np.asarray(values, dtype=float)
    if np.any(~np.isfinite(x)) or np.any(x != np.round(x)):
        raise InputError(
            "the geometric mechanism is for whole numbers (counts); "
            "round the data or use the Laplace mechanism"
        )
    return x


class Geometric(Mechanism):
    """Two-sided geometric mechanism for integer-valued data: ``o = x + Z``,
    ``P(Z = k) ∝ a^|k|``, ``a = exp(−ε/Δf)``."""

    name = "geometric"
    label = "Geometric (integers)"
    data_kind = "count"
    exact_sampler = staticmethod(exact_geometric)
    numpy_draws: ClassVar[str | None] = "geometric"  # None in the exact subclass

    def __init__(self, sensitivity: float = 1) -> None:
        s = check_positive(sensitivity, "sensitivity")
        if s != round(s):
            raise InputError(
                f"the geometric mechanism needs a whole-number sensitivity, got {sensitivity!r}"
            )
        self.sensitivity = int(round(s))

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """The values as floats holding whole numbers (:func:`check_counts`)."""
        return check_counts(values)

    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """``epsilon`` as an array of budgets in the usable range ``ε/Δf ≥ MIN_RATIO``,
        else InputError stating the range."""
        floor = self.sensitivity * MIN_RATIO
        lo = budget_below(epsilon, floor)
        if lo is not None:
            raise InputError(
                f"a budget of {describe_budget(lo)} is too small for the geometric "
                f"mechanism with Δf = {self.sensitivity}: its noise would exceed "
                "the whole numbers a "
                f"release can hold exactly; the usable range is ε_t ≥ Δf·1e-12 = "
                f"{floor:.3g} — raise ε"
            )
        return check_epsilon_array(epsilon)

    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """Noise scale ``Δf/ε`` (``P(Z = k) ∝ exp(−|k|/scale)``, OpenDP's parameter)."""
        return self.sensitivity / check_epsilon_array(epsilon)

    def ratio(self, epsilon: ArrayLike) -> np.ndarray:
        """``a = exp(-ε/Δf)``."""
        return np.exp(-check_epsilon_array(epsilon) / self.sensitivity)

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + G₁ − G₂``, ``G_i`` geometric with success probability ``1 − a``."""
        gen = as_generator(rng)
        p = -np.expm1(-epsilon / self.sensitivity)
        z = gen.geometric(p, size=x.shape) - gen.geometric(p, size=x.shape)
        return x + z

    def exact(self) -> Geometric:
        """The same mechanism with the exact sampler (:class:`ExactGeometric`)."""
        return ExactGeometric(self.sensitivity)

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One noisy count, parameters trusted (Adaptive's loop): the same draws as
        :meth:`perturb` on a one-element array, without its checks."""
        p = -np.expm1(-epsilon / self.sensitivity)
        z = gen.geometric(p, size=1)[0] - gen.geometric(p, size=1)[0]
        return float(value) + float(z)

    distance_one = staticmethod(Laplace.distance_one)

    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """Mean absolute error ``2a/(1-a²)`` (``1 − a² = −expm1(−2ε/Δf)``, exact for tiny ε)."""
        e = check_epsilon_array(epsilon) / self.sensitivity
        return 2.0 * np.exp(-e) / -np.expm1(-2.0 * e)

    def expected_rmse(self, epsilon: ArrayLike) -> np.ndarray:
        """Root mean squared error ``√(2a)/(1-a)`` (``1 − a = −expm1(−ε/Δf)``)."""
        e = check_epsilon_array(epsilon) / self.sensitivity
        return np.sqrt(2.0 * np.exp(-e)) / -np.expm1(-e)

    def noise_cdf(self, k: ArrayLike, epsilon: float) -> np.ndarray:
        """Exact CDF ``P(Z <= k)`` of the noise at budget ``epsilon``."""
        a = float(self.ratio(epsilon))
        kf = np.floor(np.asarray(k, dtype=float))
        return np.where(kf >= 0, 1.0 - a ** (kf + 1) / (1 + a), a ** (-kf) / (1 + a))

    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(|Z| ≤ d) = 1 − 2a^{⌊d⌋+1}/(1+a)`` for ``d ≥ 0``, 0 below."""
        a = float(self.ratio(epsilon))
        k = np.floor(np.asarray(d, dtype=float))
        with np.errstate(over="ignore"):
            tail = 2.0 * a ** (np.maximum(k, 0.0) + 1) / (1 + a)
        return np.where(k >= 0, 1.0 - tail, 0.0)

    def presample(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        """Two sets of ``n`` uniform doubles (for ``G₁`` and ``G₂``)."""
        return gen.random(n), gen.random(n)

    def release_presampled(self, values: np.ndarray, epsilon: np.ndarray,
                           draws: tuple[np.ndarray, ...]) -> np.ndarray:
        """``x + G₁ − G₂`` with ``G = ⌊log(1 − U)/log a⌋`` (geometric on {0, 1, …} with
        success probability ``1 − a``; ``log a = −ε/Δf``)."""
        log_q = -epsilon / self.sensitivity
        g1 = np.floor(np.log1p(-draws[0]) / log_q)
        g2 = np.floor(np.log1p(-draws[1]) / log_q)
        return values + (g1 - g2)

    distance = staticmethod(Laplace.distance)


class ExactGeometric(ExactScaledNoise, Geometric):
    """The two-sided geometric mechanism with the exact sampler."""

    #: the sampler's name and public parameters, as a file's header states them
    sampler = SAMPLER_NAME
