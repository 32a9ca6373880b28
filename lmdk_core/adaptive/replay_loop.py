"""Adaptive with numpy's Laplace noise on a series, in Python, from doubles drawn in bulk.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), Adaptive scheme (:mod:`lmdk_core.adaptive.reference`) with
the Laplace mechanism (Dwork et al., TCC 2006). The engine's loop
(:mod:`lmdk_core.adaptive.loop`) asks the generator for one double per coin
(``Generator.random()``) and one Laplace value per publication
(``Generator.laplace(0, b)``): two numpy calls per step, most of its ~3 µs a step in a
process where the compiled kernel (:mod:`lmdk_core.adaptive.series_kernel`) has not been
loaded (a cold process below ~800,000 points).

Every one of those draws is one uniform double of the generator, in the loop's order: a
coin is that double; numpy's Laplace sampler turns its double ``U`` into
``loc − b·log(2 − U − U)`` (``U ≥ 0.5``) or ``loc + b·log(U + U)`` (``0 < U < 0.5``) with
the C library's ``log`` — which Python's :func:`math.log` calls — and draws again on
``U = 0`` (numpy's ``random_laplace``). So the release's ``2T − 1`` doubles at most are
drawn in one ``Generator.random(2T − 1)`` call and the loop reads them from a list, with
the same floats in the same operations as the engine's loop; then the generator is put
back where the engine's loop leaves it (its state restored, the ``k`` doubles used drawn
again: one bulk call draws what ``k`` scalar calls draw). On a double of exactly 0 — which
numpy's Laplace sampler rejects — the function gives up before anything is returned (the
state restored) and the caller runs the engine's loop. The simulations of
``lmdk solve-epsilon`` (:mod:`lmdk_core.adaptive.simulations`) and the population's
compiled block (:mod:`lmdk_core.adaptive.block_kernel`) replay numpy's Laplace draws the
same way. Tested bit for bit against the engine's loop, generator state after included
(tests/engine/test_adaptive_replay_loop.py).
"""

from __future__ import annotations

from math import log

import numpy as np

from lmdk_core.adaptive.publications import Publications
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings

__all__ = ["adaptive_laplace_replayed"]


def adaptive_laplace_replayed(x: np.ndarray, is_lm: np.ndarray, *, V: float,
                              sensitivity: float, gen: np.random.Generator,
                              settings: AdaptiveSettings) -> Publications | None:
    """The engine's loop's release of ``x`` (a series, float64) with Laplace noise of
    scale ``sensitivity/ε_t`` from the constant start ``V``, and ``gen`` left in the same
    state; None (``gen`` untouched) when a double of exactly 0 comes up or ``gen`` is not
    a numpy Generator."""
    T = int(x.size)
    if type(gen) is not np.random.Generator or T == 0:
        return None
    bitgen = gen.bit_generator
    state = bitgen.state
    u = gen.random(2 * T - 1).tolist()
    xs = np.asarray(x, dtype=np.float64).tolist()
    lms = np.asarray(is_lm, dtype=bool).tolist()
    after = sum(lms)  # landmarks after t (counting t until passed)
    rate, lo, step = settings.initial_rate, settings.min_rate, settings.step
    b = sensitivity / V  # Laplace's scale Δf/ε_t, also its expected error
    pub_t: list[int] = []
    pub_out: list[float] = []
    pub_eps: list[float] = []
    used = 0
    last = 0.0
    for t in range(T):
        lm = lms[t]
        if lm:
            after -= 1
        if t:
            coin = u[used]
            used += 1
            if not publishes(coin, rate):
                if lm:
                    V = handed_on_budget(V, V, after)  # + V/(k+1), k landmarks after t
                    b = sensitivity / V
                continue
        w = u[used]
        used += 1
        if w >= 0.5:
            z = 0.0 - b * log(2.0 - w - w)
        elif w > 0.0:
            z = 0.0 + b * log(w + w)
        else:  # numpy's sampler draws again: leave it to the engine's loop
            bitgen.state = state
            return None
        out = xs[t] + z
        if t:
            rate = rate_after_publication(rate, within_noise(b, abs(out - last)), lo, step)
        pub_t.append(t)
        pub_out.append(out)
        pub_eps.append(V)
        last = out
    bitgen.state = state
    gen.random(used)  # the generator where the engine's loop leaves it
    return Publications(np.asarray(pub_t, dtype=np.int64), np.asarray(pub_out),
                        np.asarray(pub_eps))
