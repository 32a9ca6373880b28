"""Many independent Adaptive releases of one short series at once (Monte Carlo accuracy).

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), Adaptive scheme, with the Laplace mechanism (Dwork et al.,
TCC 2006) drawn by numpy: :mod:`lmdk_core.decision.adaptive_accuracy` simulates R whole
releases per ε, release r drawing from its own generator (the r-th child of one
``SeedSequence``). The engine's loop (:mod:`lmdk_core.adaptive.loop`) runs them one
after the other in Python; here the R releases advance together, one timestamp at a
time, each rule applied to all of them as arrays (the functions of
:mod:`lmdk_core.adaptive.rules`, which work element-wise).

**The same floats.** Every draw of such a release is one uniform double of its
generator, in the order of the steps: a coin (``Generator.random``) at each timestamp
after the first, one Laplace value (``Generator.laplace``) per publication, and one per
repeated timestamp for the fresh post-processing noise
(:func:`lmdk_core.engine.repeat_noise.renoise`, drawn after the loop in timestamp order)
— ``2T − 1`` doubles in all, whatever the noise decides. numpy's Laplace sampler turns
its double U into ``loc − b·log(2 − U − U)`` (U ≥ ½) or ``loc + b·log(U + U)`` (0 < U <
½) with the C library's ``log``, which ``math.log`` calls too; the products and sums
are IEEE operations, the same in an array. So :func:`leading_uniforms` draws each
generator's first ``2T − 1`` doubles (what ``random()`` calls one by one give) and
:func:`laplace_releases` replays the releases from them. A row is marked for the
generator path (``ok`` False) when numpy would have drawn otherwise — a U of exactly 0,
which its sampler rejects and draws again (probability 2⁻⁵³ per double) — or when a
value is not finite (the checked path then refuses it). tests/engine/
test_adaptive_simulations.py checks the floats against the release, one generator at a
time, on random series.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rates_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.mechanisms.base import Mechanism

__all__ = ["LaplaceUniforms", "draws_per_release", "laplace_releases", "leading_uniforms"]


def draws_per_release(T: int) -> int:
    """The doubles one Adaptive release of T readings draws with Laplace noise: T − 1
    coins and one Laplace value per timestamp (published or re-noised), ``2T − 1``."""
    return max(2 * int(T) - 1, 0)


class LaplaceUniforms:
    """The first ``width`` doubles of each release's generator (rows), with what
    numpy's Laplace sampler makes of each: ``high`` (U ≥ ½), ``log`` (``log(2 − U − U)``
    or ``log(U + U)``, by ``math.log``) and ``usable`` (no U of exactly 0 in the row)."""

    def __init__(self, uniforms: np.ndarray) -> None:
        u = np.asarray(uniforms, dtype=float)
        self.uniforms = u
        self.high = u >= 0.5
        flat = u.ravel().tolist()
        self.log = np.array([math.log(2.0 - v - v) if v >= 0.5 else
                             (math.log(v + v) if v > 0.0 else math.nan) for v in flat],
                            dtype=float).reshape(u.shape)
        self.usable = ~(u == 0.0).any(axis=1)
        #: the seed sequences the rows were drawn from (to replay a row with its generator)
        self.children: Sequence[np.random.SeedSequence] = ()

    def noise(self, rows: np.ndarray, cursor: np.ndarray, scale: np.ndarray | float
              ) -> np.ndarray:
        """numpy's ``laplace(0.0, scale)`` from the double at ``cursor`` of each row (a
        row whose doubles are all used reads its last one: the caller discards it)."""
        at = np.minimum(cursor, self.uniforms.shape[1] - 1)
        step = scale * self.log[rows, at]
        return np.where(self.high[rows, at], 0.0 - step, 0.0 + step)


def leading_uniforms(children: Sequence[np.random.SeedSequence], width: int
                     ) -> LaplaceUniforms:
    """The first ``width`` doubles of ``default_rng(child)`` for each child — the same
    doubles as ``width`` calls of ``random()`` on it."""
    u = np.empty((len(children), width))
    for r, child in enumerate(children):
        u[r] = np.random.default_rng(child).random(width)
    draws = LaplaceUniforms(u)
    draws.children = list(children)
    return draws


def laplace_releases(x: np.ndarray, is_lm: np.ndarray, *, start: float, mech: Mechanism,
                     share: float, draws: LaplaceUniforms, settings: AdaptiveSettings
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(released (R, T), spent (R, T), ok (R,)) of one Adaptive release of the series
    ``x`` per row of ``draws`` (at least ``2T − 1`` doubles each), from the constant
    budget ``start``, with fresh noise at budget ``share`` (the regular share) on every
    repeated timestamp — the floats the engine's loop and
    :func:`~lmdk_core.engine.repeat_noise.renoise` give with the row's generator, where
    ``ok``. ``mech`` draws numpy's Laplace (``mech.numpy_draws == "laplace"``): its
    ``scale`` is the noise scale and its ``expected_error`` the feedback's noise scale."""
    R, T = draws.uniforms.shape[0], int(x.size)
    released = np.empty((R, T))
    spent = np.zeros((R, T))
    published = np.zeros((R, T), dtype=bool)
    if T == 0 or R == 0:
        return released, spent, np.ones(R, dtype=bool)
    rows = np.arange(R)
    cursor = np.zeros(R, dtype=np.intp)
    V = np.full(R, float(start))
    rate = np.full(R, float(settings.initial_rate))
    b, noise_scale = mech.scale(V), mech.expected_error(V)
    after = int(np.count_nonzero(is_lm))  # landmarks after t (counting t until passed)
    last = np.zeros(R)
    for t in range(T):
        if is_lm[t]:
            after -= 1
        if t == 0:
            pub = np.ones(R, dtype=bool)
        else:
            pub = publishes(draws.uniforms[rows, cursor], rate)
            cursor += 1
        out = float(x[t]) + draws.noise(rows, cursor, b)
        cursor += pub
        if t:
            within = within_noise(noise_scale, np.abs(out - last))
            rate = np.where(pub, rates_after_publication(rate, within, settings.min_rate,
                                                         settings.step), rate)
        last = np.where(pub, out, last)
        released[:, t] = last
        spent[:, t] = np.where(pub, V, 0.0)
        published[:, t] = pub
        if is_lm[t] and not pub.all():  # + b/(k+1), k = landmarks after t
            V = np.where(pub, V, handed_on_budget(V, V, after))
            b, noise_scale = mech.scale(V), mech.expected_error(V)
    if share > 0:
        fresh = mech.scale(share)
        for t in range(1, T):
            shown = ~published[:, t]
            if shown.any():
                released[:, t] = np.where(shown, released[:, t]
                                          + draws.noise(rows, cursor, fresh), released[:, t])
                cursor += shown
    ok = draws.usable & np.isfinite(released).all(axis=1)
    return released, spent, ok
