"""The Adaptive release loop for the Laplace mechanism, reading the generator's stream.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), Adaptive scheme as defined in
:mod:`lmdk_core.adaptive.reference` (tested bit for bit against it): at each
timestamp a sampling decision (one uniform double ``u < rate``; none at the first
timestamp), a Laplace draw when it publishes, a rate update after each publication
(``Δf/ε_t > |o_t − o_prev|`` lowers it by ``step`` down to ``min_rate``, otherwise it
rises by ``step`` up to 1), and a skipped landmark's share handed to the future
(``V ← V + V/(k+1)``, k = landmarks after it; all unspent budgets are equal, so one
number ``V`` is the whole allocation still to come).

numpy's ``Generator.laplace(0, b)`` draws one uniform double U and returns
``0 − b·log(2 − U − U)`` for ``U >= 1/2`` and ``0 + b·log(U + U)`` for ``0 < U < 1/2``
(``U = 0`` is rejected and redrawn). So the doubles are drawn ahead in blocks with
``Generator.random`` (the same doubles) from a copy of the caller's generator and decoded
here with the same libm ``log``; the caller's generator is then advanced by exactly the
number used. Draws, values and decisions are those of calling ``random()`` and
``laplace()`` step by step (tested bit for bit against that loop).

The loop itself is :func:`_laplace_steps`, plain Python compiled by numba where that
pays (``numba`` calls the C library's ``log``, as numpy does; see
:mod:`lmdk_core.adaptive.compiled` for when); otherwise the same function runs
uncompiled, which avoids numba's one-off load.
"""

from __future__ import annotations

import math

import numpy as np

from lmdk_core.adaptive.compiled import KernelCost, lazy_njit, worth_compiling

__all__ = ["COST", "adaptive_laplace"]

#: doubles drawn ahead at a time
_DRAW_BLOCK = 1 << 20
#: measured seconds per step: the plain loop ~0.9 µs, compiled ~0.04 µs; loading the
#: compiled loop from numba's cache ~0.45 s (numba imported)
COST = KernelCost(python_s=0.9e-6, compiled_s=0.04e-6, load_s=0.45)
#: force a path in tests: True (compiled at every length), False (never), None (COST)
FORCE_COMPILED: bool | None = None


def _laplace_steps(xs, is_lm, n_after, d, p, t, n_pub, V, rate, last, lo, step, sens,
                   pub_t, pub_out, pub_eps):
    """Advance the loop from timestamp ``t`` using the doubles ``d[p:]``.

    ``n_after`` counts the landmarks after t. Stops at the end of the series or when a
    step might need more doubles than are left (it is then redone after a refill).
    Returns the new ``(p, t, n_pub, V, rate, last, n_after)``.
    """
    T = xs.size
    N = d.size
    b = sens / V
    while t < T:
        q = p
        if n_pub > 0:
            if q >= N:
                break
            u = d[q]
            q += 1
            if not (u < rate):  # approximate: repeat the last release
                if is_lm[t]:
                    n_after -= 1
                    V = V + V / (n_after + 1)
                    b = sens / V
                p = q
                t += 1
                continue
        if q >= N:
            break
        u = d[q]
        q += 1
        while u == 0.0 and q < N:  # numpy rejects U = 0 and draws again
            u = d[q]
            q += 1
        if u == 0.0:
            break
        if u >= 0.5:
            out = xs[t] + (0.0 - b * math.log(2.0 - u - u))
        else:
            out = xs[t] + (0.0 + b * math.log(u + u))
        if n_pub > 0:
            if sens / V > abs(out - last):
                rate = max(lo, rate - step)
            else:
                rate = min(1.0, rate + step)
        pub_t[n_pub] = t
        pub_out[n_pub] = out
        pub_eps[n_pub] = V
        n_pub += 1
        last = out
        if is_lm[t]:
            n_after -= 1
        p = q
        t += 1
    return p, t, n_pub, V, rate, last, n_after


_compiled = None


def _steps_function(T: int):
    """The compiled loop where it pays for T steps (compiling or loading it then), else
    the plain function."""
    global _compiled
    use = (worth_compiling(T, COST, _compiled is not None) if FORCE_COMPILED is None
           else FORCE_COMPILED)
    if not use:
        return _laplace_steps
    if _compiled is None:
        njit = lazy_njit()
        if njit is None:  # pragma: no cover - numba is a dependency
            return _laplace_steps
        _compiled = njit(cache=True, nogil=True)(_laplace_steps)
    return _compiled


def adaptive_laplace(x: np.ndarray, is_lm: np.ndarray, V: float, sensitivity: float,
                     gen: np.random.Generator, initial_rate: float, min_rate: float,
                     step: float):
    """Run Adaptive with Laplace noise of scale ``sensitivity/ε_t`` on the series ``x``.

    ``V`` is the (constant) starting budget per timestamp. Returns the published
    timestamps, their released values and their budgets, or None when the generator's
    bit generator cannot be copied (the caller then runs the step-by-step loop).
    """
    T = x.size
    try:
        ahead = np.random.Generator(type(gen.bit_generator)())
        ahead.bit_generator.state = gen.bit_generator.state
    except (TypeError, ValueError, AttributeError):
        return None
    xs = np.ascontiguousarray(x, dtype=np.float64)
    lm = np.ascontiguousarray(is_lm, dtype=np.bool_)
    n_after = int(np.count_nonzero(lm))  # landmarks after the current timestamp (+ itself)
    pub_t = np.empty(T, dtype=np.int64)
    pub_out = np.empty(T)
    pub_eps = np.empty(T)
    steps = _steps_function(T)
    block = int(min(2 * T + 64, _DRAW_BLOCK))
    marks = [(0, ahead.bit_generator.state)]  # (doubles drawn before, state) per block
    d = ahead.random(block)
    drawn = block
    used = 0  # doubles consumed before d[0]
    p, t, n_pub = 0, 0, 0
    V, rate, last = float(V), float(initial_rate), 0.0
    while True:
        p, t, n_pub, V, rate, last, n_after = steps(
            xs, lm, n_after, d, p, t, n_pub, V, rate, last, float(min_rate), float(step),
            float(sensitivity), pub_t, pub_out, pub_eps)
        if t >= T:
            break
        used += p
        marks.append((drawn, ahead.bit_generator.state))
        d = np.concatenate([d[p:], ahead.random(block)])
        drawn += block
        p = 0
    used += p
    # the caller's generator: exactly the doubles consumed (from the last block's start)
    start, state = next(m for m in reversed(marks) if m[0] <= used)
    gen.bit_generator.state = state
    for k in range(start, used, block):
        gen.random(min(block, used - k))
    return pub_t[:n_pub], pub_out[:n_pub], pub_eps[:n_pub]
