"""Exact discrete planar Laplace on the integer lattice ℤ²: the noise of the exact Planar
Laplace (:mod:`lmdk_core.mechanisms.exact_planar`), drawn from random bits with integer
arithmetic only.

**The law.** For a rational ``α > 0`` (per lattice step),
``P(N = n) = exp(−α‖n‖₂) / Z_α``, ``n ∈ ℤ²``, ``Z_α = Σ_{m ∈ ℤ²} exp(−α‖m‖₂)``: the
planar Laplace density of Andrés, Bordenabe, Chatzikokolakis & Palamidessi
("Geo-indistinguishability", CCS 2013) restricted to the lattice. Added to a lattice
point ``X`` it is α-geo-indistinguishable on the lattice, **exactly**: for any output
``z``, ``P(z − X)/P(z − X′) = exp(α(‖z − X′‖ − ‖z − X‖)) ≤ exp(α‖X − X′‖)`` (triangle
inequality; ``Z_α`` does not depend on X). docs/noise.md has the proof.

**The algorithm** (rejection; Canonne, Kamath & Steinke, "The discrete Gaussian for
differential privacy", NeurIPS 2020, use the same scheme for the discrete Gaussian):

1. propose ``n = (a, b)``, a and b independent discrete Laplace of scale ``σ = t/2^j ≥
   √2/α`` (:mod:`lmdk_core.mechanisms.discrete_laplace`): ``q(n) ∝ exp(−β‖n‖₁)``,
   ``β = 1/σ ≤ α/√2``;
2. accept with probability ``exp(−γ)``, ``γ = α‖n‖₂ − β‖n‖₁ ≥ 0`` (``‖n‖₁ ≤ √2‖n‖₂``);
   the accepted law is ``∝ q(n)·exp(−γ) ∝ exp(−α‖n‖₂)``; else go to 1 (about 79 % of
   proposals are accepted when α is small).

``γ = (P√m − Q)/R`` with integers ``P = A·t``, ``m = a² + b²``, ``Q = ‖n‖₁·2^(J+j)``,
``R = t·2^J`` (``α = A/2^J``). Bernoulli(exp(−γ)) is Canonne, Kamath & Steinke's
Algorithm 1 (⌊γ⌋ Bernoulli(e⁻¹) trials, then Bernoulli(exp(−{γ}))), each Bernoulli of an
irrational ``(P√m − C)/D`` drawn by comparing random bits with it exactly: after L bits
``v`` the uniform lies in ``[v/2^L, (v+1)/2^L)``, and ``(v+1)/2^L ≤ (P√m − C)/D`` iff
``((v+1)·D + C·2^L)² ≤ P²m·4^L`` — integers only, no square root, no floating point.
⌊γ⌋ is ``⌊(⌊√(P²m)⌋ − Q)/R⌋`` (``math.isqrt``). No floating-point number is involved,
so Mironov's attack ("On significance of the least significant bits for differential
privacy", CCS 2012) has nothing to act on.

The bits come from the process's OS-entropy stream
(:mod:`lmdk_core.mechanisms.entropy`), every bit used once.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms.discrete_laplace import discrete_laplace, dyadic_upper_scale
from lmdk_core.mechanisms.entropy import BitReader, EntropyStream, stream
from lmdk_core.mechanisms.exact_bernoulli import bernoulli_exp

__all__ = ["LatticeScale", "discrete_planar_laplace", "lattice_scale", "sqrt2_upper"]

#: significant bits of α's numerator A (α is rounded DOWN to A/2^J: never less noise)
ALPHA_BITS = 31


def sqrt2_upper(bits: int = 64) -> Fraction:
    """A rational upper bound of √2, within 2^-bits of it: ``(⌊√2·2^bits⌋ + 1)/2^bits``."""
    return Fraction(isqrt(2 << (2 * bits)) + 1, 1 << bits)


@dataclass(frozen=True)
class LatticeScale:
    """The parameters of one law: ``α = A/2^J`` (per lattice step) and the proposal's
    discrete Laplace scale ``t/2^j ≥ √2/α`` (bit width ``width`` of ``t − 1``)."""

    A: int
    J: int
    t: int
    j: int
    width: int

    @property
    def alpha(self) -> Fraction:
        """α exactly."""
        return Fraction(self.A, 1 << self.J)


def lattice_scale(alpha: Fraction) -> LatticeScale:
    """The largest ``A/2^J ≤ alpha`` with ``A`` of :data:`ALPHA_BITS` significant bits
    (never more: rounding α down only adds noise) and the smallest dyadic proposal scale
    ``t/2^j ≥ √2·2^J/A``; InputError when α is not positive or the proposal's scale is
    beyond the discrete Laplace sampler's range.

    >>> s = lattice_scale(Fraction(1, 100))
    >>> s.alpha <= Fraction(1, 100), float(s.alpha)
    (True, 0.00999999999476131)
    """
    alpha = Fraction(alpha)
    if alpha <= 0:
        raise InputError("the planar noise parameter α must be positive (ε_t > 0)")
    num, den = alpha.numerator, alpha.denominator
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):  # 2^e > α: ⌊log₂ α⌋ = e − 1
        e -= 1
    J = max(0, ALPHA_BITS - 1 - e)  # A = ⌊α·2^J⌋ has 31 bits (more only when α ≥ 2^30)
    A = (num << J) // den
    t, j = dyadic_upper_scale(sqrt2_upper() * Fraction(1 << J, A))
    return LatticeScale(A, J, t, j, int(t - 1).bit_length())


def _bernoulli_sqrt(bits: BitReader, p2m: int, c: int, d: int) -> bool:
    """Bernoulli(p), ``p = (√p2m − c)/d ∈ [0, 1]`` (integers, ``c ≥ 0``, ``d > 0``): a
    uniform drawn bit by bit against p, compared exactly by squaring."""
    v, shift = 0, 0
    while True:
        v = (v << 1) | bits.take(1)
        shift += 1
        target = p2m << (2 * shift)  # (√p2m · 2^L)²
        hi = (v + 1) * d + (c << shift)
        if hi * hi <= target:  # the whole interval lies below p
            return True
        lo = v * d + (c << shift)
        if lo * lo >= target:  # the whole interval lies at or above p
            return False


def _bernoulli_exp_sqrt(bits: BitReader, p: int, m: int, q: int, r: int) -> bool:
    """Bernoulli(exp(−γ)), ``γ = (p√m − q)/r ≥ 0`` (Canonne, Kamath & Steinke,
    Algorithm 1, for this irrational γ)."""
    p2m = p * p * m
    g = (isqrt(p2m) - q) // r  # ⌊γ⌋: ⌊(x − q)/r⌋ = ⌊(⌊x⌋ − q)/r⌋ for integers q, r > 0
    if g < 0:  # pragma: no cover - γ ≥ 0 by the choice of the proposal
        raise AssertionError("negative acceptance exponent")
    for _ in range(g):
        if not bernoulli_exp(bits, 1, 1):
            return False
    c = q + g * r  # {γ} = (p√m − c)/r ∈ [0, 1)
    k = 1
    while _bernoulli_sqrt(bits, p2m, c, r * k):  # Bernoulli({γ}/k)
        k += 1
    return k % 2 == 1


def _accepted(bits: BitReader, s: LatticeScale, a: int, b: int) -> bool:
    """Whether the proposal ``(a, b)`` is accepted: Bernoulli(exp(−γ)), step 2."""
    return _bernoulli_exp_sqrt(bits, s.A * s.t, a * a + b * b,
                               (abs(a) + abs(b)) << (s.J + s.j), s.t << s.J)


#: proposals drawn per wanted point (about 1/0.785 are needed; a few spare)
_OVERDRAW = 1.3


def discrete_planar_laplace(scales: list[LatticeScale], which: np.ndarray,
                            s: EntropyStream | None = None) -> np.ndarray:
    """Independent lattice points, row i of law ``scales[which[i]]`` (module docstring),
    as an int64 array of shape (n, 2), from the stream ``s`` (this process's OS entropy
    by default).

    The proposals of each law are drawn in bulk by the exact discrete Laplace sampler
    (its compiled kernel when the call is large enough), then accepted or rejected one by
    one in Python from the bits that follow; the accepted points fill that law's rows in
    order, and more proposals are drawn while some rows are empty. Every proposal and
    every acceptance uses fresh bits, so the rows are independent."""
    s = stream() if s is None else s
    idx = np.asarray(which, dtype=np.int64).ravel()
    out = np.empty((idx.size, 2), dtype=np.int64)
    for g in np.unique(idx).tolist():
        rows = np.flatnonzero(idx == g)
        sc = scales[g]
        done = 0
        while done < rows.size:
            m = int((rows.size - done) * _OVERDRAW) + 4
            prop = discrete_laplace(np.array([sc.t]), np.array([sc.j]),
                                    np.zeros(2 * m, dtype=np.int64), s).reshape(m, 2)
            with s.lock:
                bits = BitReader(s)
                try:
                    for a, b in prop.tolist():
                        if _accepted(bits, sc, a, b):
                            out[rows[done]] = (a, b)
                            done += 1
                            if done == rows.size:
                                break
                finally:
                    bits.close()
    return out
