"""Exact discrete Laplace noise from random bits: the project's floating-point-safe sampler.

**The law.** For integers ``t ≥ 1`` and ``j ≥ 0`` the discrete Laplace law of scale
``σ = t/2^j`` is ``P(Y = y) = (1 − a)/(1 + a) · a^|y|``, ``a = exp(−1/σ)``, ``y ∈ ℤ``
(the two-sided geometric of Ghosh, Roughgarden & Sundararajan, STOC 2009). Adding it to
an integer is ``Δ/σ``-differentially private for integer changes of at most ``Δ``.

**The algorithm** (Canonne, Kamath & Steinke, "The discrete Gaussian for differential
privacy", NeurIPS 2020, Algorithms 1 and 2), in integer arithmetic only:

1. ``U`` uniform on ``{0, …, t−1}`` (rejection from ``bitlen(t−1)`` random bits);
2. accept with probability ``exp(−U/t)`` (Bernoulli(exp(−γ)), Algorithm 1: draw
   Bernoulli(γ/k) for k = 1, 2, … until the first failure; true iff that k is odd,
   since ``P(k odd) = Σ_i (−γ)^i/i! = e^−γ``), else restart;
3. ``V`` = the number of successes of Bernoulli(exp(−1)) before the first failure;
4. ``X = U + t·V`` (geometric: ``P(X = x) ∝ exp(−x/t)``), ``Y = ⌊X/2^j⌋``
   (``P(Y = y) ∝ exp(−y·2^j/t)``);
5. a sign bit ``B``; restart when ``B = 1`` and ``Y = 0`` (so 0 is not counted twice);
   return ``(1 − 2B)·Y``.

Every Bernoulli(n/d) with integers ``0 ≤ n ≤ d < 2⁶²`` compares the binary expansion of
``n/d`` with random bits, lazily (two bits on average; exact;
:mod:`lmdk_core.mechanisms.exact_bernoulli`). A Bernoulli(n/(d·k)) whose
denominator would leave 62 bits is drawn as Bernoulli(1/k) and Bernoulli(n/d) — the same
probability. No floating-point number is involved, so the law is exactly the one above:
no Mironov attack ("On significance of the least significant bits for differential
privacy", CCS 2012) applies.

**Two implementations, one stream.** :func:`reference_draws` is the definition (plain
Python integers, clear, ~20 µs a value); the compiled kernel
(:mod:`lmdk_core.mechanisms.discrete_laplace_kernel`, numba) performs the same steps and
consumes the same bits in the same order, so on the same stream both give the same
values — the tests check it bit for bit. :func:`discrete_laplace` takes the kernel when
it pays for its one-off load (:mod:`lmdk_core.foundation.compiled_paths`'s cost rule).

**Scales.** :func:`dyadic_upper_scale` turns any positive rational scale into the
smallest ``t/2^j ≥ σ`` with 31 significant bits (relative excess below 2⁻³⁰): rounding
the scale up adds noise, it never removes privacy.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lmdk_core.foundation.compiled_paths import KernelCost, PathChooser, lazy_njit
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms.entropy import BitReader, EntropyStream, stream
from lmdk_core.mechanisms.exact_bernoulli import INT_LIMIT, bernoulli_exp

__all__ = ["MAX_T", "discrete_laplace", "dyadic_upper_scale", "reference_draws"]

#: significant bits of the scale numerator t (its relative rounding is below 2⁻³⁰)
SCALE_BITS = 30
#: t must stay below this, so that ``X = U + t·V`` stays below 2⁶² unless V ≥ 2¹⁰
#: (probability e^−1024); the sampler raises rather than wrap around
MAX_T = 2**52

#: CPU per value measured on the project's 2-core machine (benchmarks/bench_noise.py):
#: the Python reference ~7 µs, the kernel ~0.25 µs; loading the kernel from numba's
#: cache ~0.33 s (numba imported): the kernel pays from ~50,000–100,000 values
COST = KernelCost(python_s=7e-6, compiled_s=2.5e-7, load_s=0.33, overhead_s=2e-5)
_CHOOSER = PathChooser(COST)
#: tests and benchmarks: True / False forces the kernel / the reference; None chooses
FORCE_COMPILED: bool | None = None


def dyadic_upper_scale(sigma: Fraction) -> tuple[int, int]:
    """The smallest ``t/2^j ≥ sigma`` with ``t < 2^31`` significant bits when possible
    (``j = clamp(30 − ⌊log₂ σ⌋, 0, 62)``, ``t = ⌈σ·2^j⌉``); InputError when ``t`` would
    reach :data:`MAX_T` (a scale above ~2⁵¹ units).

    >>> dyadic_upper_scale(Fraction(1))
    (1073741824, 30)
    >>> dyadic_upper_scale(Fraction(10, 3))
    (1789569707, 29)
    """
    if sigma <= 0:
        raise InputError("the noise scale must be positive")
    num, den = sigma.numerator, sigma.denominator
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):  # 2^e > σ: ⌊log₂ σ⌋ = e − 1
        e -= 1
    j = min(max(SCALE_BITS - e, 0), 62)
    t = max(1, -((-num << j) // den))
    if t >= MAX_T:
        raise InputError(f"a noise scale of {float(sigma):.3g} steps is beyond the exact "
                         "sampler's range (below 2^51 steps); raise ε")
    return t, j


# -- the reference (plain Python integers) ---------------------------------------------

def _uniform_below(bits: BitReader, t: int, width: int) -> int:
    """Uniform on ``{0, …, t−1}``: ``width = bitlen(t−1)`` bits until below ``t``."""
    if t == 1:
        return 0
    while True:
        v = bits.take(width)
        if v < t:
            return v


def _one_draw(bits: BitReader, t: int, j: int, width: int) -> int:
    """One discrete Laplace value of scale ``t/2^j`` (module docstring, steps 1–5)."""
    while True:
        u = _uniform_below(bits, t, width)
        if not bernoulli_exp(bits, u, t):
            continue
        v = 0
        while bernoulli_exp(bits, 1, 1):
            v += 1
        if v > (INT_LIMIT - u) // t:  # pragma: no cover - probability below e^-1024
            raise OverflowError("discrete Laplace draw beyond 2^62")
        y = (u + t * v) >> j
        b = bits.take(1)
        if b == 1 and y == 0:
            continue
        return -y if b else y


def reference_draws(t: np.ndarray, j: np.ndarray, width: np.ndarray, which: np.ndarray,
                    s: EntropyStream) -> np.ndarray:
    """``out[i]`` ~ discrete Laplace of scale ``t[which[i]] / 2^j[which[i]]`` (int64),
    drawn one by one in Python from the stream ``s`` (``width = bitlen(t − 1)``)."""
    bits = BitReader(s)
    tl, jl, wl = t.tolist(), j.tolist(), width.tolist()
    out = np.empty(which.size, dtype=np.int64)
    try:
        for i, g in enumerate(which.tolist()):
            out[i] = _one_draw(bits, tl[g], jl[g], wl[g])
    finally:
        bits.close()
    return out


# -- choosing the path ---------------------------------------------------------------

_kernel = None


def _compiled_kernel():
    """The compiled sampler (compiled, or loaded from numba's cache, on first use);
    None without numba."""
    global _kernel
    if _kernel is None:
        if lazy_njit() is None:  # pragma: no cover - numba is a dependency
            return None
        from lmdk_core.mechanisms.discrete_laplace_kernel import draws

        _kernel = draws
    return _kernel


def discrete_laplace(t: np.ndarray, j: np.ndarray, which: np.ndarray,
                     s: EntropyStream | None = None) -> np.ndarray:
    """Independent discrete Laplace values, ``out[i]`` of scale ``t[which[i]] /
    2^j[which[i]]`` (int64 arrays: the distinct scales and, per value, the index of its
    scale), from the stream ``s`` (this process's OS entropy by default). The compiled
    kernel when it pays (or ``FORCE_COMPILED``), else the Python reference: the same
    values from the same bits."""
    s = stream() if s is None else s
    t = np.ascontiguousarray(t, dtype=np.int64)
    j = np.ascontiguousarray(j, dtype=np.int64)
    which = np.ascontiguousarray(which, dtype=np.int64)
    width = np.array([int(v - 1).bit_length() for v in t.tolist()], dtype=np.int64)
    n = which.size
    use = _CHOOSER.use_compiled(n, _kernel is not None, FORCE_COMPILED)
    kernel = _compiled_kernel() if use else None
    with s.lock:
        if kernel is None:
            return reference_draws(t, j, width, which, s)
        out = np.empty(n, dtype=np.int64)
        done = 0
        while True:
            done = kernel(t, j, width, which, out, done, s.words, s.state)
            if done == n:
                return out
            s.refill_keeping_unread()
