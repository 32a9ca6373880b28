"""The error law of one released reading, in closed form, for each noise distribution.

At a timestamp t that is *published* with budget ε_t the error is the mechanism's noise
Z; at an *approximated* t (Skip's landmarks, Adaptive's skips) the release repeats the
last publication s(t) < t, so the error is the data's change plus that publication's
noise, ``δ_t + Z_{s(t)}`` with ``δ_t = x_{s(t)} − x_t`` (Katsomallos et al., "Landmark
privacy: configurable differential privacy protection for time series", CODASPY 2022).
Exact laws, from the noise distributions:

* Laplace, b = Δf/ε_t (Dwork et al. TCC 2006): ``P(|δ + Z| ≤ a) = F(a − δ) − F(−a − δ)``
  with ``F(z) = ½e^{z/b}`` (z < 0), ``1 − ½e^{−z/b}`` (z ≥ 0); ``E|δ + Z| = |δ| +
  b·e^{−|δ|/b}``.
* two-sided Geometric, α = e^{−ε_t/Δf} (Ghosh et al. STOC 2009): ``P(Z ≤ k) = 1 −
  α^{k+1}/(1+α)`` (k ≥ 0), ``α^{−k}/(1+α)`` (k < 0); ``E|d + Z| = |d| +
  2α^{|d|+1}/(1−α²)`` for a whole number d.
* Planar Laplace with protection radius r (Andrés et al., "Geo-indistinguishability",
  CCS 2013): the displacement R ~ Gamma(2, s), s = r/ε_t, angle uniform:
  ``P(R ≤ d) = 1 − (1 + d/s)e^{−d/s}``, ``E R = 2s``. With an offset of length δ
  (an approximated point) the probability and the mean are integrals over the angle,
  computed with an equispaced rule on the circle (exponentially accurate for these
  smooth periodic integrands); the mean as a radial integral of the angular mean
  ``max(δ, R)·₂F₁(−½, −½; 1; min²/max²)`` (complete elliptic integrals), by Gauss–Legendre
  panels graded toward R = δ — exact to a few ulps.

:mod:`lmdk_core.decision.accuracy` aggregates these laws over a release;
:mod:`lmdk_core.decision.utility` uses the mean errors.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "laplace_cdf", "laplace_interval", "laplace_within", "laplace_within_peak", "laplace_mean",
    "geometric_cdf", "geometric_interval", "geometric_within", "geometric_mean",
    "gamma2_cdf", "planar_within", "planar_mean_unit", "planar_mean", "planar_offset_mean",
    "laplace_epsilon_for", "planar_epsilon_for",
]

#: angles of the equispaced rule on the circle (Planar Laplace with an offset)
ANGLES = 256


def laplace_cdf(z: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``F(z) = P(Z ≤ z)`` for Z ~ Laplace(0, b): ``½e^{z/b}`` (z < 0), ``1 − ½e^{−z/b}``."""
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b),
                    1.0 - 0.5 * np.exp(-np.maximum(z, 0) / b))


def laplace_interval(lo: np.ndarray, hi: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``P(lo ≤ Z ≤ hi) = F(hi) − F(lo)`` for Z ~ Laplace(0, b) (0 when hi < lo)."""
    return np.where(hi >= lo, laplace_cdf(hi, b) - laplace_cdf(lo, b), 0.0)


def laplace_within(delta: np.ndarray, b: np.ndarray, a: float) -> np.ndarray:
    """``P(|δ + Z| ≤ a) = F(a − δ) − F(−a − δ)`` for Z ~ Laplace(0, b)."""
    return laplace_cdf(a - delta, b) - laplace_cdf(-a - delta, b)


def laplace_within_peak(delta: np.ndarray, a: float) -> np.ndarray:
    """The largest ``P(|δ + Z| ≤ a)`` over every scale b > 0 of Z ~ Laplace(0, b), for
    readings ``|δ| > a`` (whose acceptance set leaves out z = 0): with L = |δ| − a and
    H = |δ| + a it is ``½(e^{−L/b} − e^{−H/b})``, largest at 1/b = ln(H/L)/(H − L), where
    it is ``½·(L/H)^{L/(H−L)}·(1 − L/H)``. 1 where ``|δ| ≤ a`` (no bound below 1)."""
    d = np.abs(np.asarray(delta, dtype=float))
    out = np.ones(d.shape)
    off = d > a
    lo, hi = d[off] - a, d[off] + a
    r = lo / hi
    out[off] = 0.5 * np.power(r, lo / (hi - lo)) * (1.0 - r)
    return out


def laplace_mean(delta: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``E|δ + Z| = |δ| + b·e^{−|δ|/b}`` for Z ~ Laplace(0, b)."""
    d = np.abs(delta)
    return d + b * np.exp(-d / b)


def geometric_cdf(k: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``P(Z ≤ ⌊k⌋)`` for two-sided Geometric Z: ``1 − α^{k+1}/(1+α)`` (k ≥ 0),
    ``α^{−k}/(1+α)`` (k < 0)."""
    k = np.floor(k)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = 1.0 - np.power(alpha, np.maximum(k, 0) + 1) / (1 + alpha)
        neg = np.power(alpha, np.maximum(-k, 0)) / (1 + alpha)
    return np.where(k >= 0, pos, neg)


def geometric_interval(lo: np.ndarray, hi: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``P(lo ≤ Z ≤ hi)`` for two-sided Geometric Z (whole numbers ⌈lo⌉ … ⌊hi⌋)."""
    k_hi, k_lo = np.floor(hi), np.ceil(lo)
    return np.where(k_hi >= k_lo, geometric_cdf(k_hi, alpha) - geometric_cdf(k_lo - 1, alpha),
                    0.0)


def geometric_within(delta: np.ndarray, alpha: np.ndarray, a: float) -> np.ndarray:
    """``P(|δ + Z| ≤ a)`` for two-sided Geometric Z: ``⌈−a − δ⌉ ≤ Z ≤ ⌊a − δ⌋``."""
    return geometric_interval(-a - delta, a - delta, alpha)


def geometric_mean(delta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``E|d + Z| = |d| + 2α^{|d|+1}/(1−α²)`` for two-sided Geometric Z, d = round(δ)."""
    d = np.abs(np.round(delta))
    with np.errstate(over="ignore", invalid="ignore"):
        return d + 2 * np.power(alpha, d + 1) / (1 - alpha * alpha)


def gamma2_cdf(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``P(R ≤ r) = 1 − (1 + r/s)e^{−r/s}`` for R ~ Gamma(2, s) (Planar Laplace's radius)."""
    u = np.maximum(r, 0) / s
    return 1.0 - (1.0 + u) * np.exp(-u)


THETA = (np.arange(ANGLES) + 0.5) * (2 * np.pi / ANGLES)


def planar_within(delta: np.ndarray, s: np.ndarray, d: float) -> np.ndarray:
    """P(|δ·e + R·u(θ)| ≤ d) for R ~ Gamma(2, s), θ uniform: for each θ the R in
    [R₁, R₂] with R² + 2δcosθ·R + δ² − d² ≤ 0."""
    delta = np.asarray(delta, float)[..., None]
    s = np.asarray(s, float)[..., None]
    c = np.cos(THETA)
    disc = (delta * c) ** 2 - (delta**2 - d * d)
    ok = disc >= 0
    root = np.sqrt(np.where(ok, disc, 0.0))
    r1 = np.maximum(-delta * c - root, 0.0)
    r2 = -delta * c + root
    p = np.where(ok & (r2 > 0), gamma2_cdf(r2, s) - gamma2_cdf(r1, s), 0.0)
    return p.mean(axis=-1)


@functools.cache
def _panel_rule() -> tuple[np.ndarray, np.ndarray]:
    """The 24 Gauss–Legendre nodes and weights per panel of the planar mean's radial
    integral (made at the first use: ``numpy.polynomial`` costs an import 5 ms of CPU)."""
    return np.polynomial.legendre.leggauss(24)


#: panel ends graded geometrically toward r = δ/s (where the angular mean has its
#: (r − δ)²·log|r − δ| singularity): 1, 1/2, …, 2⁻⁴⁵ of the distance
_GRADE = 2.0 ** -np.arange(46)
#: the radial integral stops at 64 scale units: the weight r·e^{−r} beyond is < 1e-25
_R_MAX = 64.0
#: panels of at most 4 scale units elsewhere (e^{−r} is resolved to rounding)
_UNIFORM = np.arange(0.0, _R_MAX + 1.0, 4.0)


def _binom_half_squared(n: int) -> np.ndarray:
    """(C(½, k))² for k = 0..n−1: the coefficients of ₂F₁(−½, −½; 1; m) = Σ C(½, k)² mᵏ."""
    c = np.empty(n)
    c[0] = 1.0
    for k in range(1, n):
        c[k] = c[k - 1] * (1.5 - k) / k
    return c * c


_F_SERIES = _binom_half_squared(64)


def _angular_excess(m: np.ndarray) -> np.ndarray:
    """F(m) − 1 for F(m) = ₂F₁(−½, −½; 1; m) = (2/π)(2E(m) − (1 − m)K(m)), accurate to
    rounding also where it is small: the series Σ_{k≥1} C(½, k)² mᵏ for m < ½ (64 terms,
    remainder < 2⁻⁶⁴), the elliptic integrals above (F(1) = 4/π)."""
    from scipy.special import ellipe, ellipk

    m = np.asarray(m, dtype=float)
    small = m < 0.5
    ms = np.where(small, m, 0.0)
    acc = np.zeros_like(m)
    for c in _F_SERIES[:0:-1]:  # Horner, k = 63 … 1
        acc = (acc + c) * ms
    with np.errstate(invalid="ignore"):
        big = np.where(m < 1.0, (2.0 / np.pi) * (2.0 * ellipe(m) - (1.0 - m) * ellipk(m)),
                       4.0 / np.pi) - 1.0
    return np.where(small, acc, big)


def planar_mean_unit(beta: np.ndarray) -> np.ndarray:
    """M(β) = E|β·e + N| for N Planar-Laplace noise of unit scale (radius ~ Gamma(2, 1),
    angle uniform; Andrés et al. CCS 2013).

    For radius r the mean over the angle is ``max(β, r)·F(min(β, r)²/max(β, r)²)`` with
    ``F(m) = ₂F₁(−½, −½; 1; m) = (2/π)(2E(m) − (1 − m)K(m))`` (complete elliptic
    integrals; F(0) = 1, F(1) = 4/π). With F = 1 the radial integral is closed,
    ``∫₀^∞ max(β, r)·r·e^{−r} dr = β + (β + 2)e^{−β}``, so

        M(β) = β + (β + 2)e^{−β} + ∫₀^∞ max(β, r)·(F(m) − 1)·r·e^{−r} dr.

    The remaining integrand is smooth except for a (r − β)²·log|r − β| term at r = β:
    composite 24-point Gauss–Legendre on panels graded toward β from both sides, panels
    of at most 4 elsewhere, up to r = 64. Agrees with 60-digit arithmetic to a few ulps
    (tests/engine/test_accuracy_edges.py).
    """
    b = np.asarray(beta, dtype=float).reshape(-1, 1)
    room = np.maximum(_R_MAX - b, 0.0)
    pts = np.concatenate([b * (1.0 - _GRADE), b + room * _GRADE, b,
                          np.broadcast_to(_UNIFORM, (b.shape[0], _UNIFORM.size))], axis=1)
    pts = np.sort(np.clip(pts, 0.0, _R_MAX), axis=1)
    lo, hi = pts[:, :-1, None], pts[:, 1:, None]
    half = 0.5 * (hi - lo)
    panel_x, panel_w = _panel_rule()
    r = lo + half * (1.0 + panel_x)             # (n, panels, nodes)
    bb = b[:, :, None]
    mx = np.maximum(bb, r)
    mn = np.minimum(bb, r)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(mx > 0, (mn / np.where(mx > 0, mx, 1.0)) ** 2, 0.0)
    excess = (mx * _angular_excess(m) * r * np.exp(-r) * (half * panel_w)).sum(axis=(1, 2))
    b = b[:, 0]
    return b + (b + 2.0) * np.exp(-b) + excess


def planar_mean(delta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E|δ·e + R·u(θ)| with R ~ Gamma(2, s), θ uniform: ``s·M(δ/s)``
    (:func:`planar_mean_unit`)."""
    delta = np.asarray(delta, float)
    s = np.asarray(s, float)
    d, sc = np.broadcast_arrays(delta, s)
    return sc * planar_mean_unit((d / sc).ravel()).reshape(d.shape)


def laplace_epsilon_for(bound: float, probability: float, sensitivity: float) -> float:
    """The per-timestamp ε_t with P(|Lap(Δf/ε_t)| ≤ a) = p: ε_t = Δf·ln(1/(1−p))/a."""
    return float(sensitivity * np.log(1.0 / (1.0 - probability)) / bound)


def planar_epsilon_for(distance: float, probability: float, radius: float) -> float:
    """The per-timestamp ε_t with P(R ≤ d) = p for R ~ Gamma(2, r/ε_t), by Lambert's W
    (Andrés et al. CCS 2013): ε_t = −(r/d)·(W₋₁(−(1−p)/e) + 1)."""
    from scipy.special import lambertw

    w = float(np.real(lambertw(-(1.0 - probability) / np.e, -1)))
    return float(-(radius / distance) * (w + 1.0))


#: the table of the planar offset mean: β = δ/s from 1e-6 to 1e6, log-spaced
_TABLE_BETA = (1e-6, 1e6, 1000)


@functools.cache
def _offset_table():
    """A cubic spline in log β of the excess ``M(β) − β − (β + 2)e^{−β}`` of the engine's
    exact planar mean (:func:`planar_mean_unit`), built once per
    process (about 1 s): within 2e-9 relative of the exact mean (measured 1.03e-9 over
    20,000 random β; tested)."""
    from scipy.interpolate import CubicSpline

    b = np.geomspace(*_TABLE_BETA)
    excess = planar_mean_unit(b) - b - (b + 2.0) * np.exp(-b)
    return CubicSpline(np.log(b), excess)


def planar_offset_mean(delta: ArrayLike, s: ArrayLike) -> np.ndarray:
    """``E|δ·e + R·u(θ)|`` for R ~ Gamma(2, s) (Planar Laplace at ε_t = r/s; Andrés et
    al. CCS 2013) and θ uniform: the error of a repeated point δ metres from the truth.

    It is ``s·M(δ/s)`` with M the engine's one implementation,
    :func:`planar_mean_unit` (over the angle
    ``max(δ, R)·₂F₁(−½, −½; 1; min²/max²)``, over R Gauss–Legendre panels graded toward
    the kink at R = δ; exact to a few ulps). A page evaluates it for every repeated
    point of a track on every rerun (1,700 points of a 5,000-point Adaptive release took
    4.4 s), so M is read from a cubic spline of its smooth part
    ``M(β) − β − (β + 2)e^{−β}`` on 1,000 log-spaced β in [1e-6, 1e6] (within 2e-9
    relative); beyond the table ``M(β) = β + 1.5/β`` (the noise's E R²/2 = 3 over 2β,
    below 1e-12 relative) and below it ``M(0) = 2`` joined quadratically to the table
(M'(0) = 0). δ = 0 gives 2s.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    sc = np.asarray(s, dtype=float)
    d, sc = np.broadcast_arrays(d, sc)
    beta = d / sc
    lo, hi, _ = _TABLE_BETA
    b = np.clip(beta, lo, hi)
    m = _offset_table()(np.log(b)) + b + (b + 2.0) * np.exp(-b)
    m = np.where(beta > hi, beta + 1.5 / np.where(beta > hi, beta, 1.0), m)
    m_lo = float(_offset_table()(np.log(lo))) + lo + (lo + 2.0) * np.exp(-lo)
    m = np.where(beta < lo, 2.0 + (m_lo - 2.0) * (beta / lo) ** 2, m)
    return sc * m
