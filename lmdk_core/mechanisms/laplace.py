"""The Laplace mechanism (Dwork, McSherry, Nissim, Smith, TCC 2006).

``o = x + Z`` with ``Z ~ Lap(b)``, ``b = Δf/ε``, density ``exp(-|z|/b) / 2b``.
ε-differentially private for a query of L1 sensitivity Δf. Expected error:
``E|Z| = Δf/ε`` (MAE), ``sqrt(E Z²) = √2·Δf/ε`` (RMSE).

Usable range: the noise scale must satisfy ``Δf/ε ≤ MAX_SCALE = 1e300`` (ε ≥ Δf·1e-300).
numpy draws ``|Z| ≤ 37·b`` (the logarithm of its smallest uniform), so below that bound
every release is a finite number; a smaller ε (e.g. 5e-324, where Δf/ε overflows to
infinity) is refused with a message rather than releasing ±inf.

:class:`ExactLaplace` is the same mechanism with the exact sampler: the same parameters, usable
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
from lmdk_core.mechanisms.base import Mechanism, check_finite_release
from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME, exact_laplace
from lmdk_core.mechanisms.exact_scaled import ExactScaledNoise

#: largest noise scale Δf/ε the mechanism accepts (see the module docstring).
MAX_SCALE = 1e300


class Laplace(Mechanism):
    """Laplace mechanism with sensitivity ``Δf`` (default 1): ``o = x + Lap(Δf/ε)``."""

    name = "laplace"
    label = "Laplace"
    data_kind = "number"
    numpy_draws: ClassVar[str | None] = "laplace"  # None in the exact subclass

    def __init__(self, sensitivity: float = 1.0) -> None:
        self.sensitivity = check_positive(sensitivity, "sensitivity")

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """The values as floats (any real numbers)."""
        return np.asarray(values, dtype=float)

    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """``epsilon`` as an array of budgets in the usable range ``Δf/ε ≤ MAX_SCALE``,
        else InputError stating the range."""
        floor = self.sensitivity / MAX_SCALE
        lo = budget_below(epsilon, floor)
        if lo is not None:
            with np.errstate(divide="ignore", over="ignore"):
                b = np.float64(self.sensitivity) / np.float64(lo)
            raise InputError(
                f"a budget of {describe_budget(lo)} is too small for the Laplace "
                f"mechanism: its noise scale Δf/ε_t = {b:.3g} cannot be "
                "released as a finite number; "
                f"the usable range is ε_t ≥ Δf·1e-300 = {floor:.3g} — raise ε"
            )
        return check_epsilon_array(epsilon)

    def exact_sampler(self, values: ArrayLike, scales: ArrayLike) -> np.ndarray:
        """``values`` released by the exact sampler at scales ``Δf/ε``
        (:func:`~lmdk_core.mechanisms.exact_noise.exact_laplace`, which needs this
        mechanism's Δf for its grid)."""
        return exact_laplace(values, scales, self.sensitivity)

    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """Noise scale ``b = Δf/ε`` (per element)."""
        return self.sensitivity / check_epsilon_array(epsilon)

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Lap(Δf/ε)`` drawn by numpy (``Generator.laplace``).

        One budget for every value (Uniform, Skip's publications, fresh noise of the
        regular law) passes numpy one scale: the same draws as the per-element scales
        (numpy draws each value from its own scale either way), without the array of
        scales; the sum is formed in the noise's buffer (no further temporary)."""
        gen = as_generator(rng)
        one = epsilon.ndim == 1 and epsilon.size > 0 and epsilon.min() == epsilon.max()
        with np.errstate(over="ignore"):
            if one:
                out = self.noise_draws(float(epsilon[0]), x.shape[0], gen)
            else:
                out = gen.laplace(0.0, self.sensitivity / epsilon, size=x.shape)
            out += x
        return check_finite_release(out if out.ndim else out[()])

    def noise_draws(self, epsilon: float, size: int, gen: np.random.Generator) -> np.ndarray:
        """``size`` draws of ``Lap(Δf/ε)`` at one budget ε (in the usable range, checked
        by the caller), numpy's sequence: what :meth:`perturb` adds to ``size`` values at
        that budget, and one call of ``size = a + b`` draws what a call of ``a`` then a
        call of ``b`` draw (``Generator.laplace`` takes its uniforms one by one)."""
        with np.errstate(over="ignore"):
            return gen.laplace(0.0, self.sensitivity / epsilon, size=size)

    def exact(self) -> Laplace:
        """The same mechanism with the exact sampler (:class:`ExactLaplace`)."""
        return ExactLaplace(self.sensitivity)

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One noisy value, parameters trusted (Adaptive's loop): the same draw as
        :meth:`perturb` on a one-element array (the scalar call draws what ``size=1``
        draws), without its checks."""
        return float(value) + gen.laplace(0.0, self.sensitivity / epsilon)

    @staticmethod
    def distance_one(a: float, b: float) -> float:
        """``|a − b|`` for two numbers."""
        return abs(float(a) - float(b))

    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """Mean absolute error ``E|Z| = Δf/ε`` (whatever the values)."""
        return self.scale(epsilon)

    def expected_rmse(self, epsilon: ArrayLike) -> np.ndarray:
        """Root mean squared error ``√2·Δf/ε``."""
        return np.sqrt(2.0) * self.scale(epsilon)

    def noise_cdf(self, z: ArrayLike, epsilon: float) -> np.ndarray:
        """Exact CDF of the signed noise ``Z`` at budget ``epsilon``:
        ``½·e^{z/b}`` below 0, ``1 − ½·e^{−z/b}`` above."""
        b = float(self.scale(epsilon))
        z = np.asarray(z, dtype=float)
        return np.where(z < 0, 0.5 * np.exp(z / b), 1.0 - 0.5 * np.exp(-z / b))

    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(|Z| ≤ d) = 1 − e^{−d/b}`` (``−expm1(−d/b)``) for ``d ≥ 0``, 0 below."""
        b = float(self.scale(epsilon))
        d = np.asarray(d, dtype=float)
        return np.where(d >= 0, -np.expm1(-np.maximum(d, 0.0) / b), 0.0)

    def presample(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        """``n`` standard Laplace variates ``Lap(1)``."""
        return (gen.laplace(0.0, 1.0, n),)

    def release_presampled(self, values: np.ndarray, epsilon: np.ndarray,
                           draws: tuple[np.ndarray, ...]) -> np.ndarray:
        """``x + (Δf/ε)·L`` for standard Laplace variates ``L``."""
        return values + (self.sensitivity / epsilon) * draws[0]

    @staticmethod
    def distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Absolute difference (formed in the difference's buffer)."""
        d = np.subtract(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
        return np.abs(d, out=d) if isinstance(d, np.ndarray) else np.abs(d)


class ExactLaplace(ExactScaledNoise, Laplace):
    """The Laplace mechanism with the exact sampler (``values + Lap(Δf/ε)`` on a grid)."""

    #: the sampler's name and public parameters, as a file's header states them
    sampler = SAMPLER_NAME
