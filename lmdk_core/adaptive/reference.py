"""Adaptive, the reference definition: the one readable statement of the scheme.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), the Adaptive scheme, as read in docs/definitions.md:

1. the budget starts as Uniform: ``ε_t = ε/(|L|+1)`` reserved for every timestamp;
2. at each t a sampling component publishes a fresh noisy value ``o_t = M(x_t; ε_t)``
   with probability equal to its sampling rate (always at the first timestamp);
   otherwise it repeats the last published value (post-processing, ``ε_t = 0``);
3. after each noisy publication it compares the change ``d(o_t, o_prev)`` between the
   last two publications with the noise scale, the mechanism's expected error at ε_t
   (``Δf/ε_t`` for Laplace, ``2r/ε_t`` for Planar Laplace): a change within the noise
   lowers the rate by a step (not below the floor), a larger change raises it (up to 1);
4. when a **landmark** is approximated, its share b is handed to the future: each of
   the k later landmarks and every later timestamp gets ``+b/(k+1)``; skipping a regular
   timestamp frees nothing (regular timestamps do not compose).

:func:`adaptive_reference` is that text as code, with the per-timestamp budget array of
the paper (step 4 rewrites every later budget: O(T) per handed-on landmark). The engine
runs faster variants of it — the same loop with O(1) bookkeeping
(:mod:`lmdk_core.adaptive.loop`), the Laplace series kernel reading numpy's stream
(:mod:`lmdk_core.adaptive.series_kernel`), the compiled trajectory kernel
(:mod:`lmdk_core.adaptive.planar_kernel`), the population's lockstep release over many
users (:mod:`lmdk_core.population.lockstep`) and the batched exact draws
(:mod:`lmdk_core.adaptive.exact_draws`) — and each is tested bit for bit against this
function on many random inputs (tests/engine/test_adaptive_bitwise.py).

Where the randomness comes from is a parameter, a :class:`Draws`: the sampling coin at
t and the released value at t. :class:`GeneratorDraws` is the engine's single-series
order (one numpy Generator, step by step); the population draws every coin and standard
variate of a user ahead (:class:`PresampledDraws`); the exact path draws its values with
the exact sampler (:mod:`lmdk_core.mechanisms.exact_noise`). Everything else —
decisions, budgets, hand-overs — is this function, each rule a call of
:mod:`lmdk_core.adaptive.rules` (the same functions every variant calls).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.mechanisms.base import Mechanism

__all__ = ["Draws", "GeneratorDraws", "PresampledDraws", "adaptive_reference"]


class Draws(Protocol):
    """The randomness of one Adaptive release."""

    def coin(self, t: int) -> float:
        """The sampling decision's uniform double at t (asked only for t after the first
        publication; t publishes when it is below the rate)."""

    def release(self, t: int, value, epsilon: float):
        """The released value of ``value`` (the data at t) at budget ``epsilon``: one
        draw of the mechanism at that budget."""


class GeneratorDraws:
    """Coins and noise from one numpy Generator, in the order of the steps: the coin is
    ``gen.random()``, the release ``mech.perturb_one(value, ε, gen)``."""

    def __init__(self, mech: Mechanism, gen: np.random.Generator) -> None:
        self._random = gen.random
        self._gen = gen
        self._perturb = mech.perturb_one

    def coin(self, t: int) -> float:
        """The next uniform double of the generator."""
        return self._random()

    def release(self, t: int, value, epsilon: float):
        """One draw of the mechanism from the generator."""
        return self._perturb(value, epsilon, self._gen)


class PresampledDraws:
    """Coins and standard variates drawn ahead (one of each per timestamp), as the
    population release does: the coin at t is ``coins[t]``, the release at t scales the
    variates at t (``mech.release_presampled``)."""

    def __init__(self, mech: Mechanism, coins: np.ndarray,
                 variates: tuple[np.ndarray, ...]) -> None:
        self._mech = mech
        self._coins = coins
        self._variates = variates

    def coin(self, t: int) -> float:
        """The pre-drawn coin of t."""
        return float(self._coins[t])

    def release(self, t: int, value, epsilon: float):
        """The pre-drawn variates of t scaled at ``epsilon``."""
        x = np.asarray(value, dtype=float)[None]
        draws = tuple(v[t:t + 1] for v in self._variates)
        return self._mech.release_presampled(x, np.array([float(epsilon)]), draws)[0]


def adaptive_reference(
    values: np.ndarray,
    landmarks: np.ndarray,
    *, planned: np.ndarray,
    mech: Mechanism,
    draws: Draws,
    settings: AdaptiveSettings,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Adaptive release of ``values`` (T,) or (T, 2): ``(released, spent, published)``.

    ``landmarks``: the landmark timestamps; ``planned``: the Uniform start ``ε/(|L|+1)``
    per timestamp; ``released[t]`` is ``o_t`` (the last publication repeated where t
    approximates), ``spent[t]`` the budget spent at t (0 where approximated),
    ``published[t]`` whether t released a fresh noisy value.
    """
    T = planned.size
    eps = np.array(planned, dtype=float)            # ε_t still reserved for each t
    is_lm = np.zeros(T, dtype=bool)
    is_lm[landmarks] = True
    noise_scale = np.asarray(mech.expected_error(eps), dtype=float)
    released = np.full(values.shape, np.nan)
    published = np.zeros(T, dtype=bool)
    rate = settings.initial_rate
    last = None                                     # the last published value
    for t in range(T):
        # (2) the sampling component: always publish first, then with the current rate
        if last is None or publishes(draws.coin(t), rate):
            out = draws.release(t, values[t], eps[t])
            # (3) the analysis: is the change since the last publication within noise?
            if last is not None:
                within = within_noise(noise_scale[t], mech.distance_one(out, last))
                rate = rate_after_publication(rate, within, settings.min_rate, settings.step)
            released[t] = out
            published[t] = True
            last = out
        else:
            # approximate: repeat the last release (post-processing, spends nothing)
            released[t] = last
            if is_lm[t]:
                # (4) a skipped landmark's share goes to the future: + b/(k+1) each
                later = slice(t + 1, T)
                k = int(is_lm[later].sum())
                eps[later] = handed_on_budget(eps[later], eps[t], k)
                if t + 1 < T:
                    noise_scale[later] = mech.expected_error(eps[later])
            eps[t] = 0.0
    return released, eps, published
