"""95 % intervals of a released value from the noise law (no data involved).

For a value released as x + Z, ``[o − q, o + q]`` holds x with probability ≥ 1 − α when
``P(|Z| ≤ q) ≥ 1 − α``:

* Laplace of scale b (Dwork et al., TCC 2006): ``P(|Z| ≤ q) = 1 − e^{−q/b}``, so
  ``q = b·ln(1/α)`` (b·ln 20 ≈ 3.0·b at 95 %);
* two-sided geometric with a = e^{−1/b} (Ghosh et al., STOC 2009): ``P(|Z| ≤ q) =
  1 − 2a^{q+1}/(1+a)`` for a whole q, so q is the smallest whole number with
  ``a^{q+1} ≤ α(1+a)/2``.

A ratio of two noisy values (the mean: noisy sum / noisy count) gets the range of the
ratio over the two intervals at 1 − α/2 each (Bonferroni), clamped to the bounds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ALPHA", "geometric_half_width", "laplace_half_width", "ratio_interval"]

#: 1 − the intervals' coverage
ALPHA = 0.05


def laplace_half_width(scale: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """``q = b·ln(1/α)``: ``P(|Z| ≤ q) = 1 − α`` for Z ~ Laplace(0, b)."""
    return np.asarray(scale, dtype=float) * np.log(1.0 / alpha)


def geometric_half_width(scale: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """The smallest whole q with ``P(|Z| ≤ q) = 1 − 2a^{q+1}/(1+a) ≥ 1 − α`` for the
    two-sided geometric Z of scale b (a = e^{−1/b})."""
    b = np.asarray(scale, dtype=float)
    log_a = -1.0 / b
    a = np.exp(log_a)
    q = np.maximum(np.ceil(np.log(alpha * (1 + a) / 2) / log_a) - 1, 0)
    # one step of correction for rounding at the boundary: the coverage must hold
    short = 1 - 2 * np.exp((q + 1) * log_a) / (1 + a) < 1 - alpha
    return q + short


def ratio_interval(num_lo: np.ndarray, num_hi: np.ndarray, den_lo: np.ndarray,
                   den_hi: np.ndarray, *, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """The range of ``n/d`` over ``n ∈ [num_lo, num_hi]``, ``d ∈ [den_lo, den_hi]``,
    clamped to ``[lo, hi]``; the whole ``[lo, hi]`` where the denominator's interval
    reaches 0 or below."""
    d_lo = np.where(den_lo > 0, den_lo, 1.0)
    d_hi = np.where(den_lo > 0, den_hi, 1.0)
    corners = np.stack([num_lo / d_lo, num_lo / d_hi, num_hi / d_lo, num_hi / d_hi])
    low = np.clip(corners.min(axis=0), lo, hi)
    high = np.clip(corners.max(axis=0), lo, hi)
    positive = den_lo > 0
    return np.where(positive, low, lo), np.where(positive, high, hi)
