"""Exact Bernoulli trials from random bits, in integer arithmetic only: the coin flips of the
exact samplers (:mod:`lmdk_core.mechanisms.discrete_laplace`,
:mod:`lmdk_core.mechanisms.discrete_planar_laplace`).

Bernoulli(n/d) with integers ``0 ≤ n``, ``0 < d < 2⁶²`` compares a uniform
``0.r₁r₂…`` read bit by bit with the binary expansion of ``n/d`` until they differ (two
bits on average; exact). Bernoulli(exp(−n/d)) for ``0 ≤ n ≤ d`` is Algorithm 1 of
Canonne, Kamath & Steinke ("The discrete Gaussian for differential privacy", NeurIPS
2020): draw Bernoulli(γ/k) for k = 1, 2, … until the first failure, true iff that k is odd
(``P(k odd) = Σ_i (−γ)^i/i! = e^−γ``, γ = n/d). No floating-point number is involved,
so Mironov's attack ("On significance of the least significant bits for differential
privacy", CCS 2012) has nothing to act on. The compiled kernel
(:mod:`lmdk_core.mechanisms.discrete_laplace_kernel`) performs the same steps on the same
bits.
"""

from __future__ import annotations

from lmdk_core.mechanisms.entropy import BitReader

__all__ = ["INT_LIMIT", "bernoulli", "bernoulli_exp"]

#: every integer of the exact samplers stays below 2⁶²: a Bernoulli(n/d)'s denominator d
#: (so that ``2n`` fits in 63 bits) and a discrete Laplace value ``X = U + t·V``
INT_LIMIT = 2**62


def bernoulli(bits: BitReader, n: int, d: int) -> bool:
    """Bernoulli(n/d), ``0 ≤ n``, ``0 < d < 2^62``: a uniform ``0.r₁r₂…`` against the
    binary expansion of ``n/d``, bit by bit until they differ.

    >>> from lmdk_core.mechanisms.entropy import EntropyStream
    >>> bernoulli(BitReader(EntropyStream()), 3, 3), bernoulli(BitReader(EntropyStream()), 0, 3)
    (True, False)
    """
    if n <= 0:
        return False
    if n >= d:
        return True
    while True:
        n <<= 1
        p = n >= d
        if p:
            n -= d
        r = bits.take(1)
        if r != p:
            return r < p
        if n == 0:
            return False


def _bernoulli_over_k(bits: BitReader, n: int, d: int, k: int) -> bool:
    """Bernoulli(n/(d·k)): one lazy comparison, or Bernoulli(1/k) and Bernoulli(n/d)
    when ``d·k`` would reach 2⁶²."""
    if k > (INT_LIMIT - 1) // d:
        return bernoulli(bits, 1, k) and bernoulli(bits, n, d)
    return bernoulli(bits, n, d * k)


def bernoulli_exp(bits: BitReader, n: int, d: int) -> bool:
    """Bernoulli(exp(−n/d)) for ``0 ≤ n ≤ d``, ``0 < d < 2^62`` (Canonne, Kamath &
    Steinke, NeurIPS 2020, Algorithm 1: Bernoulli(γ/k), k = 1, 2, …, until the first
    failure; true iff that k is odd).

    >>> from lmdk_core.mechanisms.entropy import EntropyStream
    >>> bernoulli_exp(BitReader(EntropyStream()), 0, 1)  # exp(0) = 1
    True
    """
    k = 1
    while _bernoulli_over_k(bits, n, d, k):
        k += 1
    return k % 2 == 1
