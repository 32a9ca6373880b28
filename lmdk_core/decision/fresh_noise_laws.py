"""The error law of a reading shown with fresh post-processing noise.

A repeated value — an approximation (Skip's landmarks, Adaptive's skips) or a fix of a
stay released as one event — is published with fresh noise W of the regular law added
(:mod:`lmdk_core.engine.repeat_noise`), so its error is ``δ + Z + W``: the offset δ of
the value it repeats (0, the data's change since the publication, or a stay's
centroid minus the fix), the publication's noise Z and W, independent.

* **Laplace** Z ~ Lap(b₁), W ~ Lap(b₂), b₁ ≠ b₂: the characteristic function of Z + W
  is ``1/((1 + b₁²ω²)(1 + b₂²ω²))``, whose partial fractions make the law of Z + W the
  *signed mixture* ``w₁·Lap(b₁) + w₂·Lap(b₂)`` with ``w₁ = b₁²/(b₁² − b₂²)``,
  ``w₂ = −b₂²/(b₁² − b₂²)``; every probability and mean is that combination of the
  one-noise laws of :mod:`lmdk_core.decision.noise_laws`.
* **two-sided Geometric** α_i = e^{−ε_i/Δf} (Ghosh et al., STOC 2009): the generating
  function ``(1 − α)²/(1 + α² − α(z + 1/z))`` is linear in ``u = z + 1/z``, so the
  same partial fractions give ``w₁ = α₁(1 − α₂)²/((α₁ − α₂)(1 − α₁α₂))``, ``w₂ = 1 − w₁``.
* Equal scales (Skip and Uniform: W has the publication's own law) are the limit: for
  Laplace in closed form (density ``(b + |v|)e^{−|v|/b}/(4b²)``, ``E|δ + Z + W| = |δ| +
  (3b + |δ|)·e^{−|δ|/b}/2``); for Geometric the second scale is moved by 10⁻⁶ relative,
  which moves the law by about 10⁻⁶ relative while the cancellation of the two weights
  costs about 10⁻¹⁰.
* **Planar Laplace** (Andrés et al., CCS 2013), Z and W with Gamma(2, s_i) radii: the
  mean is ``E_W[m(|δ + W|)]`` with m the one-noise offset mean
  (:func:`lmdk_core.decision.noise_laws.planar_offset_mean`), by generalised
  Gauss–Laguerre nodes in W's radius and a midpoint rule in its angle; the probability
  of lying within a uses the radial law of the isotropic sum Z + W,
  ``P(|Z + W| ≤ ρ) = E_{|W|}[P(|(|W|, 0) + Z| ≤ ρ)]`` tabulated on a grid of ρ, in the
  angular rule of :func:`lmdk_core.decision.noise_laws.planar_within`.
"""

from __future__ import annotations

import functools

import numpy as np

from lmdk_core.decision.noise_laws import (
    THETA,
    geometric_mean,
    geometric_within,
    laplace_mean,
    laplace_within,
    planar_offset_mean,
    planar_within,
)

__all__ = ["geometric_fresh_mean", "geometric_fresh_within", "laplace_fresh_mean",
           "laplace_fresh_within", "planar_fresh_mean", "planar_fresh_within"]

#: how far apart two scales must be for the signed mixture; closer ones are moved apart
_APART = 1e-6


def _apart(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """``x2``, moved to ``x1·(1 + 10⁻⁶)`` where it is within 10⁻⁶ relative of ``x1``."""
    x1, x2 = np.broadcast_arrays(np.asarray(x1, float), np.asarray(x2, float))
    return np.where(np.abs(x1 - x2) < _APART * x1, x1 * (1 + _APART), x2)


def _laplace_weights(b1, b2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b2 = _apart(b1, b2)
    w1 = b1 * b1 / (b1 * b1 - b2 * b2)
    return w1, 1.0 - w1, b2


def _equal_laplace_cdf(z: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``P(Z + W ≤ z)`` for Z, W ~ Lap(b) independent: ``1 − (2b + z)e^{−z/b}/(4b)``
    (z ≥ 0), ``(2b + |z|)e^{−|z|/b}/(4b)`` (z < 0) — the density ``(b + |v|)e^{−|v|/b}/(4b²)``
    integrated."""
    u = np.abs(z)
    tail = (2 * b + u) * np.exp(-u / b) / (4 * b)
    return np.where(z >= 0, 1.0 - tail, tail)


def laplace_fresh_within(delta, b1, b2, a: float) -> np.ndarray:
    """``P(|δ + Z + W| ≤ a)``, Z ~ Lap(b₁), W ~ Lap(b₂) independent (module docstring);
    equal scales in closed form, ``G(a − δ) − G(−a − δ)`` (:func:`_equal_laplace_cdf`)."""
    d, b1, b2 = np.broadcast_arrays(np.asarray(delta, float), np.asarray(b1, float),
                                    np.asarray(b2, float))
    w1, w2, b2n = _laplace_weights(b1, b2)
    out = w1 * laplace_within(d, b1, a) + w2 * laplace_within(d, b2n, a)
    same = b1 == b2
    if same.any():
        out = np.where(same, _equal_laplace_cdf(a - d, b1) - _equal_laplace_cdf(-a - d, b1),
                       out)
    return np.clip(out, 0.0, 1.0)


def laplace_fresh_mean(delta, b1, b2) -> np.ndarray:
    """``E|δ + Z + W|``, Z ~ Lap(b₁), W ~ Lap(b₂) independent (module docstring); equal
    scales in closed form, ``|δ| + (3b + |δ|)e^{−|δ|/b}/2``."""
    d, b1, b2 = np.broadcast_arrays(np.abs(np.asarray(delta, float)), np.asarray(b1, float),
                                    np.asarray(b2, float))
    w1, w2, b2n = _laplace_weights(b1, b2)
    out = w1 * laplace_mean(d, b1) + w2 * laplace_mean(d, b2n)
    same = b1 == b2
    if same.any():
        out = np.where(same, d + (3 * b1 + d) * np.exp(-d / b1) / 2, out)
    return out


def _geometric_weights(e1, e2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights of the signed mixture for budgets-over-Δf ``e1``, ``e2`` (α = e^{−e}).

    When both α are below 2⁻⁶⁰ (ε/Δf above 41.6) the noise is 0 with probability above
    1 − 2⁻⁵⁸, so the sum's law is Z's alone to double precision: weight 1 on Z. This
    also avoids 0/0 once both α underflow (ε/Δf above 745)."""
    e2 = _apart(e1, e2)
    a1, a2 = np.exp(-np.asarray(e1, float)), np.exp(-e2)
    with np.errstate(divide="ignore", invalid="ignore"):
        w1 = a1 * (1 - a2) ** 2 / ((a1 - a2) * (1 - a1 * a2))
    w1 = np.where(np.maximum(a1, a2) < 2.0 ** -60, 1.0, w1)
    return w1, 1.0 - w1, a2


def geometric_fresh_within(delta, e1, e2, a: float) -> np.ndarray:
    """``P(|δ + Z + W| ≤ a)`` for two-sided Geometric Z, W with ε/Δf = ``e1``, ``e2``."""
    w1, w2, a2 = _geometric_weights(e1, e2)
    out = (w1 * geometric_within(delta, np.exp(-np.asarray(e1, float)), a)
           + w2 * geometric_within(delta, a2, a))
    return np.clip(out, 0.0, 1.0)


def geometric_fresh_mean(delta, e1, e2) -> np.ndarray:
    """``E|d + Z + W|`` for two-sided Geometric Z, W with ε/Δf = ``e1``, ``e2``."""
    w1, w2, a2 = _geometric_weights(e1, e2)
    return (w1 * geometric_mean(delta, np.exp(-np.asarray(e1, float)))
            + w2 * geometric_mean(delta, a2))


@functools.cache
def _radius_rule() -> tuple[np.ndarray, np.ndarray]:
    """W's radius: generalised Gauss–Laguerre nodes and weights (weight x·e^{−x},
    Gamma(2, 1)), the weights normalised; built at the first use, so that scipy.special
    (~0.2–0.4 s to import) loads only where a Planar Laplace law needs it."""
    from scipy.special import roots_genlaguerre

    x, w = roots_genlaguerre(40, 1.0)
    return x, w / w.sum()


#: W's angle: a midpoint rule on [0, π] (the integrands are even in the angle)
_PHI = (np.arange(24) + 0.5) * (np.pi / 24)


def planar_fresh_mean(delta, s1, s2) -> np.ndarray:
    """``E|δ + Z + W|`` for Planar Laplace Z, W with radial scales ``s1``, ``s2`` and δ
    metres of offset: ``E_W[m(|δ + W|, s₁)]`` (module docstring)."""
    d, a, b = np.broadcast_arrays(np.abs(np.asarray(delta, float)), np.asarray(s1, float),
                                  np.asarray(s2, float))
    r_x, r_w = _radius_rule()
    r = b[..., None, None] * r_x[:, None]
    c = np.cos(_PHI)[None, :]
    rho = np.sqrt(np.maximum(d[..., None, None] ** 2 + r * r
                             + 2 * d[..., None, None] * r * c, 0.0))
    m = planar_offset_mean(rho, a[..., None, None])
    return (m.mean(axis=-1) * r_w).sum(axis=-1)


#: the grid of ρ/s₁ on which the radial law of Z + W is tabulated
_RHO = np.concatenate([[0.0], np.geomspace(1e-4, 400.0, 400)])


@functools.lru_cache(maxsize=64)
def _sum_radial_cdf(ratio: float) -> np.ndarray:
    """``P(|Z + W| ≤ ρ·s₁)`` on :data:`_RHO` for s₂ = ratio·s₁ (s₁ = 1)."""
    r_x, r_w = _radius_rule()
    r = ratio * r_x
    out = np.empty(_RHO.size)
    for i, rho in enumerate(_RHO):
        out[i] = float((planar_within(r, np.ones(r.size), rho) * r_w).sum())
    return np.maximum.accumulate(np.clip(out, 0.0, 1.0))


def planar_fresh_within(delta, s1, s2, a: float) -> np.ndarray:
    """``P(|δ + Z + W| ≤ a)`` for Planar Laplace Z, W with radial scales ``s1``, ``s2``:
    the angular rule of :func:`~lmdk_core.decision.noise_laws.planar_within` on the
    radial law of Z + W (module docstring)."""
    d, s1, s2 = np.broadcast_arrays(np.abs(np.asarray(delta, float)), np.asarray(s1, float),
                                    np.asarray(s2, float))
    out = np.empty(d.shape)
    flat_d, flat_1, flat_2 = d.ravel(), s1.ravel(), s2.ravel()
    res = out.ravel()
    ratios = np.round(flat_2 / flat_1, 12)
    c = np.cos(THETA)
    for ratio in np.unique(ratios):
        k = ratios == ratio
        cdf = _sum_radial_cdf(float(ratio))
        dd, sc = flat_d[k][:, None], flat_1[k][:, None]
        disc = (dd * c) ** 2 - (dd ** 2 - a * a)
        ok = disc >= 0
        root = np.sqrt(np.where(ok, disc, 0.0))
        r1 = np.maximum(-dd * c - root, 0.0) / sc
        r2 = (-dd * c + root) / sc
        p = np.where(ok & (r2 > 0), np.interp(r2, _RHO, cdf, right=1.0)
                     - np.interp(r1, _RHO, cdf, right=1.0), 0.0)
        res[k] = p.mean(axis=-1)
    return res.reshape(d.shape)
