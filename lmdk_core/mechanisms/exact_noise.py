"""Exact (floating-point-safe) Laplace and Geometric noise: discrete Laplace on a grid.

**Why.** Mironov ("On significance of the least significant bits for differential
privacy", CCS 2012) showed that textbook floating-point Laplace noise — ``x + b·log(U)``
computed in doubles, as numpy does — is not differentially private: the set of doubles
reachable from ``x`` differs from the one reachable from a neighbour ``x′``, so many
outputs betray their input exactly. Here no floating-point number touches the noise: it
is an integer drawn exactly from random bits
(:mod:`lmdk_core.mechanisms.discrete_laplace`: Canonne, Kamath & Steinke, "The discrete
Gaussian for differential privacy", NeurIPS 2020, Algorithms 1–2; OS entropy,
:mod:`lmdk_core.mechanisms.entropy`), added to the value **on a grid** — the snapping
idea of Mironov's paper and of OpenDP's float Laplace, with a coarser grid.

**Laplace** (:func:`exact_laplace`; docs/privacy-model.md, "Exact noise", has the
proof). For a value ``x``, scale ``b = Δf/ε`` and sensitivity ``Δf``:

* the grid step is ``g = 2^k``, ``k = max(⌊log₂ min(Δf, b)⌋ − 30, ⌊log₂ b⌋ − 50)`` —
  public (from Δf and ε only), at most 2⁻³⁰ of the scale and of Δf while ε ≥ 2⁻²⁰;
* ``N = ⌊x/g + ½⌋`` (exactly: ``x/g`` is exact for a power of two), so neighbours with
  ``|x − x′| ≤ Δf`` give ``|N − N′| ≤ Δ_g = ⌈Δf/g⌉`` (the sensitivity rounded up to
  the grid);
* ``Z`` discrete Laplace of scale ``σ = t/2^j ≥ Δ_g·(b/Δf)·(1 + 2⁻⁵⁰)`` grid steps
  (rounded up: the factor covers the one rounding of ``b = Δf/ε`` in doubles), so
  ``Δ_g/σ ≤ ε``: the integer ``N + Z`` is ε-DP;
* the released double is ``g·(N + Z)`` rounded once to the nearest double
  (``N·g + g·Z`` in IEEE arithmetic: both terms exact, one correctly rounded sum) — a
  function of ``N + Z`` alone, i.e. post-processing.

The law is the Laplace law of scale ``b`` up to the grid (a step of at most 2⁻³⁰ b) and
a scale larger by a factor at most ``(1 + 2⁻³⁰)(1 + g/Δf)`` (below 1 + 10⁻⁸ while
ε ≥ 10⁻⁷).

**Geometric** (:func:`exact_geometric`): whole values, grid 1, ``Δf`` whole; ``Z``
discrete Laplace of scale ``σ ≥ b·(1 + 2⁻⁵⁰)``: ``P(Z = k) ∝ a^|k|``,
``a = exp(−1/σ)`` — the two-sided geometric (Ghosh, Roughgarden & Sundararajan,
STOC 2009) of ``a = exp(−ε/Δf)`` up to that factor.

**Many values in one call.** The cost is per value (about a microsecond with the
compiled kernel), not per call, so callers may pass values one by one or all at once:
every element is drawn independently, and an element released with scale ``b_i`` is
ε_i-DP for a change of Δf in that element whatever the other elements are.

These releases cannot be seeded or reproduced (which is the point for publication);
reproducible runs use the numpy path (``--noise fast``). OpenDP (``opendp``) remains the
reference the tests compare this sampler's law with.
"""

from __future__ import annotations

from fractions import Fraction
from math import frexp, ldexp

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms.discrete_laplace import discrete_laplace, dyadic_upper_scale

__all__ = ["FAST_SAMPLER_NAME", "SAMPLER_NAME", "exact_geometric", "exact_laplace",
           "grid_index", "laplace_grid", "sampler_description"]

#: the name of the secure path, written into every file it produced
SAMPLER_NAME = ("exact discrete Laplace on a grid of 2^-30 of the scale (Canonne, Kamath "
                "and Steinke 2020; OS entropy; Mironov-safe)")
#: the name of the fast path (numpy floating-point noise: exploration only)
FAST_SAMPLER_NAME = "numpy floating-point samplers (fast; not protected against Mironov 2012)"

#: largest integer magnitude the geometric path accepts (int64 arithmetic)
_MAX_COUNT = 2**62
#: grid precision: the step is at most 2^-GRID_BITS of the scale and of Δf
GRID_BITS = 30
#: the grid is never finer than 2^-COARSEST_BITS of the scale (the noise in grid steps
#: must stay below 2^51)
COARSEST_BITS = 50
#: covers the one rounding of b = Δf/ε in doubles (relative error ≤ 2^-53)
_ROUNDING = Fraction(2**50 + 1, 2**50)


def sampler_description() -> str:
    """:data:`SAMPLER_NAME` (the sampler is this project's own; nothing to look up)."""
    return SAMPLER_NAME


def _exponent(v: float) -> int:
    """``⌊log₂ v⌋`` of a positive finite double."""
    return frexp(v)[1] - 1


def laplace_grid(scale: float, sensitivity: float) -> tuple[float, int, int]:
    """``(g, t, j)`` of the exact Laplace release at noise scale ``b = Δf/ε``: the grid
    step ``g = 2^k`` and the discrete scale ``t/2^j`` in steps (module docstring).

    >>> g, t, j = laplace_grid(1.0, 1.0)
    >>> g == 2.0**-30, t, j
    (True, 1073741825, 0)
    """
    eb, ed = _exponent(scale), _exponent(sensitivity)
    k = max(min(eb, ed) - GRID_BITS, eb - COARSEST_BITS, -1074)
    step = Fraction(2) ** k
    units = -(-Fraction(sensitivity) // step)  # Δ_g = ⌈Δf/g⌉
    t, j = dyadic_upper_scale(units * Fraction(scale) / Fraction(sensitivity) * _ROUNDING)
    return ldexp(1.0, k), t, j


def _prepare(values: ArrayLike, scales: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    try:
        x = np.asarray(values, dtype=float)
        b = np.asarray(scales, dtype=float)
    except (TypeError, ValueError):
        raise InputError("values and noise scales must be numbers") from None
    try:
        b = np.broadcast_to(b, x.shape)
    except ValueError:
        raise InputError(f"need one noise scale per value ({x.size}) or one for all, "
                         f"got {b.size}") from None
    if not np.all(np.isfinite(x)):
        raise InputError("values to release must be finite numbers (no NaN or infinity)")
    if not np.all(np.isfinite(b) & (b > 0)):
        raise InputError("noise scales Δf/ε must be positive finite numbers (ε_t > 0)")
    return x, b


def _scales(b: np.ndarray, params) -> tuple[list, np.ndarray]:
    """``params(scale)`` of each distinct scale and, per element, its index."""
    flat = b.ravel()
    if flat.size and flat[0] == flat[-1] and np.all(flat == flat[0]):
        return [params(float(flat[0]))], np.zeros(flat.size, dtype=np.int64)
    uniq, inv = np.unique(flat, return_inverse=True)
    return [params(v) for v in uniq.tolist()], inv.astype(np.int64).ravel()


def grid_index(x: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``N = ⌊x/g + ½⌋`` (as whole doubles) for grid steps ``g`` that are powers of two,
    computed exactly: ``x/g`` is exact, and so is its fractional part ``x/g − ⌊x/g⌋``.
    Monotone with ``N(x + g) = N(x) + 1``, hence ``|N(x) − N(x′)| ≤ ⌈|x − x′|/g⌉``.

    >>> grid_index(np.array([0.49, 0.5, -0.5, -0.51]), np.array([1.0]))
    array([ 0.,  1.,  0., -1.])
    """
    with np.errstate(over="ignore", invalid="ignore"):
        u = x / step
    if not np.all(np.isfinite(u)):
        raise InputError("a value is too large for the exact sampler's grid (its ratio "
                         "to the noise scale exceeds 1e300); rescale the data")
    n = np.floor(u)
    n += (u - n) >= 0.5
    return n


def exact_laplace(values: ArrayLike, scales: ArrayLike, sensitivity: float) -> np.ndarray:
    """``values_i`` released with exact discrete Laplace noise of scale ``b_i = Δf/ε_i``
    on the grid of :func:`laplace_grid` (one scale per element, or one for all): ε_i-DP
    for a change of at most ``sensitivity`` = Δf in element i (module docstring); same
    shape as ``values``.

    Raises InputError for non-finite values, non-positive scales, a scale beyond the
    sampler's range (ε_i below about 2⁻⁵⁰·Δf), or a release that overflows the doubles.
    """
    x, b = _prepare(values, scales)
    if not (np.isfinite(sensitivity) and sensitivity > 0):
        raise InputError("the sensitivity Δf must be a positive finite number")
    if x.size == 0:
        return x.copy()
    params, which = _scales(b, lambda v: laplace_grid(v, float(sensitivity)))
    step = np.array([p[0] for p in params])[which]
    z = discrete_laplace(np.array([p[1] for p in params]), np.array([p[2] for p in params]),
                         which)
    n = grid_index(x.ravel(), step)
    with np.errstate(over="ignore", invalid="ignore"):
        out = n * step + z * step
    if not np.all(np.isfinite(out)):
        raise InputError("a released value overflows (the value plus its noise is beyond "
                         "±1.8e308); rescale the data or raise ε")
    return out.reshape(x.shape)


def exact_geometric(values: ArrayLike, scales: ArrayLike,
                    sensitivity: float | None = None) -> np.ndarray:
    """``values_i + Z_i`` with ``Z_i`` discrete Laplace (two-sided geometric) of scale
    ``σ_i ≥ b_i = Δf/ε_i`` (``P(Z = k) ∝ exp(−|k|/σ_i)``, module docstring), drawn
    exactly; ``sensitivity`` is not needed (whole Δf, grid 1: the loss is Δf/σ_i ≤ ε_i).
    Values must be whole numbers of magnitude below 2⁶²; returns floats holding whole
    numbers.
    """
    x, b = _prepare(values, scales)
    if np.any(x != np.round(x)):
        raise InputError("the geometric mechanism is for whole numbers (counts); round the "
                         "data or use the Laplace mechanism")
    if np.any(np.abs(x) >= _MAX_COUNT):
        raise InputError(f"counts must be below 2^62 ≈ {_MAX_COUNT:.3g} in magnitude for the "
                         "exact geometric sampler")
    if x.size == 0:
        return x.copy()
    params, which = _scales(b, lambda v: dyadic_upper_scale(Fraction(v) * _ROUNDING))
    z = discrete_laplace(np.array([p[0] for p in params]), np.array([p[1] for p in params]),
                         which)
    out = (x.ravel().astype(np.int64) + z).astype(float)
    return out.reshape(x.shape)
