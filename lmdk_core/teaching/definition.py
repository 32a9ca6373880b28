"""The Learn page's first lesson: the definition of differential privacy.

``M`` is ε-DP if for neighbouring data sets ``D, D'`` and every set of outputs ``O``,
``Pr[M(D) ∈ O] ≤ e^ε · Pr[M(D') ∈ O]`` (Dwork, McSherry, Nissim, Smith 2006; Dwork &
Roth, *The Algorithmic Foundations of Differential Privacy*, Def. 2.4) — shown with the
Laplace densities of a count and of the same count with one more person
(:func:`neighbouring_densities`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon, check_positive

__all__ = [
    "NeighbourDensities",
    "laplace_density",
    "neighbouring_densities",
]


def laplace_density(x: ArrayLike, mu: float, scale: float) -> np.ndarray:
    """Density of Laplace(μ, b): ``exp(−|x − μ|/b) / 2b`` (Dwork & Roth, Def. 3.2)."""
    b = check_positive(scale, "the Laplace scale b")
    z = np.asarray(x, dtype=float)
    return np.exp(-np.abs(z - mu) / b) / (2.0 * b)


def _laplace_interval(low: float, high: float, mu: float, b: float) -> float:
    """``Pr[low <= X <= high]`` for X ~ Laplace(μ, b), computed from the tail on the side
    of μ the interval lies on (no cancellation far out in the tails)."""
    if low >= mu:
        return 0.5 * (math.exp(-(low - mu) / b) - math.exp(-(high - mu) / b))
    if high <= mu:
        return 0.5 * (math.exp((high - mu) / b) - math.exp((low - mu) / b))
    return 1.0 - 0.5 * math.exp((low - mu) / b) - 0.5 * math.exp(-(high - mu) / b)


@dataclass(frozen=True)
class NeighbourDensities:
    """Laplace output densities of a count on two neighbouring data sets.

    ``D`` has the true count ``count_d``, ``D'`` one more person (``count_d2 =
    count_d + Δf``). ``log_ratio`` is the privacy loss ``ln(p_D(x)/p_D'(x))``, which the
    Laplace mechanism keeps within ``[−ε, ε]`` at every output ``x``.
    """

    x: np.ndarray
    density_d: np.ndarray
    density_d2: np.ndarray
    log_ratio: np.ndarray
    epsilon: float
    sensitivity: float
    scale: float
    count_d: float
    count_d2: float

    @property
    def max_abs_loss(self) -> float:
        """``max_x |ln(p_D(x)/p_D'(x))|`` over the grid — equal to ε (attained off the
        segment between the two counts)."""
        return float(np.max(np.abs(self.log_ratio)))

    def interval_probabilities(self, low: float, high: float) -> tuple[float, float]:
        """``(Pr[M(D) ∈ [low, high]], Pr[M(D') ∈ [low, high]])`` — one set O of outputs.

        Their ratio always lies within ``[e^−ε, e^ε]`` (the definition with O an interval).
        """
        if not (np.isfinite(low) and np.isfinite(high)) or high < low:
            raise InputError("the interval must have finite ends with low <= high")
        return (_laplace_interval(low, high, self.count_d, self.scale),
                _laplace_interval(low, high, self.count_d2, self.scale))


def neighbouring_densities(
    epsilon: float, sensitivity: float = 1.0, count: float = 10.0, points: int = 801
) -> NeighbourDensities:
    """The Laplace mechanism ``M(D) = f(D) + Lap(Δf/ε)`` on ``D`` (count ``count``) and on
    its neighbour ``D'`` (count ``count + Δf``): densities on a grid wide enough to show
    both tails (±6 scales), and the privacy loss ``ln(p_D/p_D') = (|x − f(D')| − |x −
    f(D)|)/b ∈ [−ε, ε]`` (Dwork & Roth, Thm 3.6)."""
    eps = check_epsilon(epsilon)
    df = check_positive(sensitivity, "the sensitivity Δf")
    b = df / eps
    c1, c2 = float(count), float(count) + df
    span = 6.0 * b + df
    x = np.linspace(c1 - span, c2 + span, int(points))
    p1 = laplace_density(x, c1, b)
    p2 = laplace_density(x, c2, b)
    loss = (np.abs(x - c2) - np.abs(x - c1)) / b
    return NeighbourDensities(x, p1, p2, loss, eps, df, b, c1, c2)
