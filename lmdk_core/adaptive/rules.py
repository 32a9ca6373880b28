"""Adaptive's update rules, each written once: sampling, feedback, budget hand-over.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), the Adaptive scheme (steps as numbered in
:mod:`lmdk_core.adaptive.reference`):

* **sampling** (step 2) — after the first timestamp, t publishes when its uniform coin is
  below the sampling rate: :func:`publishes`;
* **feedback** (step 3) — after a publication, the change since the previous one is
  *within the noise* when the noise scale (the mechanism's expected error at ε_t)
  exceeds it (:func:`within_noise`); the rate then drops by ``step``, not below
  ``min_rate``, and otherwise rises by ``step``, up to 1
  (:func:`rate_after_publication`; the same rule for many users at once:
  :func:`rates_after_publication`);
* **budget hand-over** (step 4) — when a landmark with budget b and k later landmarks
  is approximated, every later timestamp's budget grows by ``b/(k+1)``
  (:func:`handed_on_budget`).

Every variant calls these functions: the reference, the engine's loop
(:mod:`~lmdk_core.adaptive.loop`), the exact-noise loop and its batch plan
(:mod:`~lmdk_core.adaptive.exact_draws`), the population's lockstep release
(:mod:`lmdk_core.population.lockstep`) and the numba kernels
(:mod:`~lmdk_core.adaptive.series_kernel`, :mod:`~lmdk_core.adaptive.planar_kernel`),
which compile the scalar rules into their loops
(:func:`lmdk_core.foundation.compiled_paths.compile_with_helpers`). So the rules are
plain Python on scalars — numba compiles them as they are; nothing here imports numba —
and work element-wise on numpy arrays where they can (:func:`publishes`, :func:`within_noise`,
:func:`handed_on_budget`). tests/engine/test_adaptive_rules.py replaces each rule by a
variant and checks that every variant follows it (a copy of a rule elsewhere fails).
"""

from __future__ import annotations

import numpy as np

__all__ = ["handed_on_budget", "publishes", "rate_after_publication",
           "rates_after_publication", "within_noise"]


def publishes(coin, rate):
    """Whether the sampling component publishes: ``coin < rate`` for the timestamp's
    uniform coin in [0, 1) (Katsomallos et al. CODASPY'22, Adaptive's sampling; the
    first timestamp publishes without a coin). Scalars or arrays.

    >>> publishes(0.3, 0.5), publishes(0.5, 0.5)
    (True, False)
    """
    return coin < rate


def within_noise(noise_scale, change):
    """Whether a publication's change ``d(o_t, o_prev)`` from the previous publication
    is within the noise: ``noise_scale > change``, the noise scale being the
    mechanism's expected error at ε_t (``Δf/ε_t`` for Laplace, ``2r/ε_t`` for Planar
    Laplace; Katsomallos et al. CODASPY'22, Adaptive's feedback). Scalars or arrays.

    A change within the noise stays within it when it shrinks: the trajectory kernel
    settles most decisions from bounds of the geodesic distance by that property.

    >>> within_noise(2.0, 1.5), within_noise(2.0, 2.0)
    (True, False)
    """
    return noise_scale > change


def rate_after_publication(rate: float, within: bool, min_rate: float, step: float) -> float:
    """The sampling rate after a publication: ``max(min_rate, rate − step)`` when its
    change was within the noise (:func:`within_noise`), else ``min(1, rate + step)``
    (Katsomallos et al. CODASPY'22, Adaptive's feedback). Scalars.

    >>> rate_after_publication(0.5, True, 0.2, 0.2), rate_after_publication(0.3, True, 0.2, 0.2)
    (0.3, 0.2)
    >>> rate_after_publication(0.9, False, 0.2, 0.2)
    1.0
    """
    return max(min_rate, rate - step) if within else min(1.0, rate + step)


def rates_after_publication(rates: np.ndarray, within: np.ndarray, min_rate: float,
                            step: float) -> np.ndarray:
    """:func:`rate_after_publication` of many users at once, element by element (the
    same floats: tests/engine/test_adaptive_rules.py).

    >>> rates_after_publication(np.array([0.5, 0.9]), np.array([True, False]), 0.2, 0.2)
    array([0.3, 1. ])
    """
    return np.where(within, np.maximum(min_rate, rates - step), np.minimum(1.0, rates + step))


def handed_on_budget(budget, skipped, later_landmarks):
    """The budget of a later timestamp once a landmark holding ``skipped`` (b) is
    approximated with ``later_landmarks`` (k) landmarks after it: ``budget + b/(k+1)``
    — b is shared by those k landmarks and the current release (Katsomallos et al.
    CODASPY'22, Adaptive's budget distribution; regular timestamps free nothing).
    Scalars or arrays.

    >>> handed_on_budget(0.25, 0.25, 1)
    0.375
    """
    return budget + skipped / (later_landmarks + 1)
