"""The Adaptive release loop of the engine: the reference with O(1) bookkeeping per step.

:func:`lmdk_core.adaptive.reference.adaptive_reference` rewrites every later budget when
a landmark is handed on. But the budget starts constant (Uniform) and a handed-on share
is added to *every* later timestamp, so all budgets not yet spent are equal at any time:
one running value ``V`` replaces the array (``V ← V + V/(k+1)`` when a landmark with k
later landmarks is approximated — the very floating-point operation the reference
applies to each later element, :func:`lmdk_core.adaptive.rules.handed_on_budget`).
Draws, their order and every decision are the reference's (tested bit for bit against
it); the loop costs O(T) whatever the number of landmarks.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.adaptive.publications import Publications
from lmdk_core.adaptive.reference import Draws
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.mechanisms.base import Mechanism

__all__ = ["adaptive_publications"]


def adaptive_publications(
    values: np.ndarray,
    is_lm: np.ndarray,
    *, start: float,
    mech: Mechanism,
    draws: Draws,
    settings: AdaptiveSettings,
) -> Publications:
    """The published timestamps (increasing, the first is 0), their released values and
    their budgets; ``start`` is the constant Uniform budget ``ε/(|L|+1)``."""
    T = is_lm.size
    V = start
    noise_scale = mech.expected_error(np.array([V]))[0]
    rate, min_rate, step = settings.initial_rate, settings.min_rate, settings.step
    coin, release, distance = draws.coin, draws.release, mech.distance_one
    after = int(np.count_nonzero(is_lm))  # landmarks after t (counting t until passed)
    lms = is_lm.tolist()
    pub_t: list[int] = []
    pub_out: list = []
    pub_eps: list[float] = []
    last = None
    for t in range(T):
        if lms[t]:
            after -= 1
        if last is None or publishes(coin(t), rate):
            out = release(t, values[t], V)
            if last is not None:
                within = within_noise(noise_scale, distance(out, last))
                rate = rate_after_publication(rate, within, min_rate, step)
            pub_t.append(t)
            pub_out.append(out)
            pub_eps.append(V)
            last = out
        elif lms[t]:
            V = handed_on_budget(V, V, after)  # + b/(k+1), k = landmarks after t
            noise_scale = mech.expected_error(np.array([V]))[0]
    return Publications(pub_t, pub_out, pub_eps)
