"""Adaptive's exact values drawn in batches: one exact-sampler call per stretch of
timestamps that share a budget, not one per publication.

The exact sampler (:mod:`lmdk_core.mechanisms.exact_noise`) has a fixed cost per call
(parameters, the path choice, the lock; with OpenDP, used before, 0.1–0.2 ms), so
releasing Adaptive's publications one call each costs more than drawing them together.
In Adaptive the budget of the timestamps still to come changes only when a landmark is
approximated (the reference, :mod:`lmdk_core.adaptive.reference`, step 4). So at a
publication at t with budget V no budget can change before the first landmark after t:
:class:`BatchedExactDraws` applies the exact sampler at scale ``Δf/V`` to the values
``x_t … x_e`` at once (e the first landmark after t; at least :data:`MIN_BATCH` and at
most :data:`MAX_BATCH` values), keeps the results as *candidates*, and releases the
candidate of each later publication whose budget is still V. A candidate is never used
at another budget: when V changes, the remaining candidates are discarded and the next
publication draws a new batch.

**Privacy accounting stays exact.** Every released value is exactly one exact draw
applied to that timestamp's value at that timestamp's scale ``Δf/ε_t``, as in the
reference. Candidates of timestamps that approximate, or of timestamps after a budget
change, are never released and influence nothing: whether t publishes, and at which
budget, depends only on the sampling coins and on values already released
(post-processing), never on a candidate not yet released. So the released values have the
reference's joint distribution, each spending the ε_t the verifier accounts for; the exact
sampler draws every element of a vector independently from OS entropy.

**Where the coins are known ahead** (the population's lockstep release draws every
user's coins before its loop: :func:`exact_publications`), a batch is planned from them
(:func:`batch_plan`; Katsomallos et al., CODASPY 2022, the sampling component: j
publishes when its coin is below the rate, and the rate moves only at publications, by
one step within [min_rate, 1]). From the rate at t, bounds on the rate at every later j
follow; a timestamp whose coin is at least the upper bound cannot publish and its value
is not drawn, and a landmark whose coin is below the lower bound publishes for sure, so
the budget cannot change there and the batch runs on through the next landmark (fewer
sampler calls with dense landmarks). Which values are drawn depends only on the coins and
on values already released, like every other decision; a candidate is still released
only at the budget it was drawn at, and a publication without one draws a new batch.

The numpy coins are drawn as in the reference (one ``random()`` per step from the
caller's generator), so the sampling decisions' stream is unchanged.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.adaptive.publications import Publications
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.mechanisms.base import Mechanism

__all__ = ["MAX_BATCH", "MIN_BATCH", "BatchedExactDraws", "batch_end", "exact_publications",
           "next_landmarks", "batch_plan"]

#: fewest values drawn per sampler call: with landmarks everywhere a batch would hold one
#: value, and a call costs as much as ~5–10 values; at most this many are discarded when
#: a landmark inside the batch is approximated
MIN_BATCH = 16
#: most values drawn per sampler call (bounds memory and the draws after a budget change)
MAX_BATCH = 1 << 16


def next_landmarks(is_lm: np.ndarray) -> np.ndarray:
    """``nxt[t]``: the first landmark strictly after t (T where there is none)."""
    T = is_lm.shape[-1]
    pos = np.where(is_lm, np.arange(T), T)
    first_from = np.minimum.accumulate(pos[..., ::-1], axis=-1)[..., ::-1]  # first ≥ t
    nxt = np.full(is_lm.shape, T, dtype=np.int64)
    nxt[..., :-1] = first_from[..., 1:]
    return nxt


def batch_end(t: int, nxt: int, length: int) -> int:
    """The end (exclusive) of the batch drawn at t: through the first landmark after t,
    at least :data:`MIN_BATCH` and at most :data:`MAX_BATCH` values, within the series."""
    return min(length, t + MAX_BATCH, max(nxt + 1, t + MIN_BATCH))


def batch_plan(coins: list[float], lms: list[bool], nxt: list[int], t: int, rate: float,
               settings: AdaptiveSettings) -> tuple[list[int], int]:
    """The timestamps whose values a batch drawn at t holds, and its end (exclusive).

    ``coins[j]`` decides j, ``lms[j]`` marks the landmarks, ``nxt[j]`` is j's next
    landmark (:func:`next_landmarks`), ``rate`` the rate before t's decision (t itself
    publishes). The rate moves only at publications, by one step, within
    [min_rate, 1], so from ``hi = min(1, rate + step)`` and ``lo = max(min_rate, rate −
    step)`` (the bounds after t) and ``hi ← min(1, hi + step)``, ``lo ← max(min_rate,
    lo − step)`` after each timestamp that may publish, the rate at j lies in [lo, hi]
    (rounding is monotone, so the float bounds hold as the real ones do):

    * j with ``coin_j ≥ hi`` cannot publish: its value is not drawn;
    * a landmark j with ``coin_j < lo`` publishes for sure, so the budget does not
      change there; when every landmark since t did so, the batch runs on through the
      next landmark (:func:`batch_end` from j), within :data:`MAX_BATCH` values of t.
    """
    length = len(coins)
    end = batch_end(t, nxt[t], length)
    limit = min(length, t + MAX_BATCH)
    hi, lo = settings.raised(rate), settings.lowered(rate)
    idx = [t]
    steady = True  # every landmark so far publishes for sure: the budget is still ε
    j = t + 1
    while j < end:
        if hi >= 1.0 and lo <= settings.min_rate and not lms[j]:
            nxt_lm = min(end, nxt[j])  # nothing left to learn before j's next landmark
            idx.extend(range(j, nxt_lm))
            j = nxt_lm
            continue
        c = coins[j]
        if lms[j]:
            if steady and c < lo:  # a sure publication: the budget stays
                end = max(end, min(limit, batch_end(j, nxt[j], length)))
            else:
                steady = False
        if publishes(c, hi):
            idx.append(j)
            hi, lo = settings.raised(hi), settings.lowered(lo)
        j += 1
    return idx, end


class BatchedExactDraws:
    """:class:`~lmdk_core.adaptive.reference.Draws` for an exact mechanism on one series:
    coins from ``gen`` step by step, released values from batched exact-sampler calls."""

    def __init__(self, mech: Mechanism, values: np.ndarray, is_lm: np.ndarray,
                 gen: np.random.Generator) -> None:
        if mech.exact_sampler is None or mech.noise != "exact":
            raise ValueError("batched exact draws need a mechanism drawing with the exact sampler")
        self._mech = mech
        self._sampler = mech.exact_sampler
        self._values = values
        self._next = next_landmarks(is_lm)
        self._random = gen.random
        self._start = self._end = 0
        self._epsilon: float | None = None
        self._batch = np.zeros(0)
        #: sampler calls made and values drawn (for the benchmark)
        self.calls = 0
        self.drawn = 0

    def coin(self, t: int) -> float:
        """The next uniform double of the generator (as the reference draws it)."""
        return self._random()

    def release(self, t: int, value, epsilon: float):
        """The candidate of t drawn at ``epsilon``; a new batch from t when there is none
        (past the batch, or the budget changed)."""
        if not (self._start <= t < self._end and epsilon == self._epsilon):
            end = batch_end(t, int(self._next[t]), self._values.shape[0])
            self._batch = self._sampler(self._values[t:end], self._mech.scale(epsilon))
            self._start, self._end, self._epsilon = t, end, epsilon
            self.calls += 1
            self.drawn += end - t
        return float(self._batch[t - self._start])


def exact_publications(values: np.ndarray, is_lm: np.ndarray, *, start: float, mech: Mechanism,
                       coins: np.ndarray, settings: AdaptiveSettings):
    """One user's Adaptive with exact values requested in batches, as a generator.

    The loop of :func:`lmdk_core.adaptive.loop.adaptive_publications` with the coins
    drawn ahead (``coins[t]`` decides t, t ≥ 1). It **yields** each batch it needs as
    ``(values, ε)`` — the values of t and of the later timestamps that may publish
    before the batch's end (:func:`batch_plan`), all at the current budget ε — and is
    sent back their released values (one exact draw each at scale Δf/ε). Returns
    ``(pub_t, pub_out, pub_eps)`` like the loop.

    The population's lockstep release runs one per user and answers the requests of all
    the users waiting for a batch with one call of the exact sampler
    (:mod:`lmdk_core.population.lockstep`); per step it costs a few Python operations.
    """
    T = is_lm.size
    nxt = next_landmarks(is_lm).tolist()
    lms = is_lm.tolist()
    cs = coins.tolist()
    V = start
    noise_scale = mech.expected_error(np.array([V]))[0]
    rate, min_rate, step = settings.initial_rate, settings.min_rate, settings.step
    distance = mech.distance_one
    after = int(np.count_nonzero(is_lm))  # landmarks after t (counting t until passed)
    candidates: dict[int, float] = {}
    end, drawn_at = 0, None
    pub_t: list[int] = []
    pub_out: list = []
    pub_eps: list[float] = []
    last = None
    for t in range(T):
        if lms[t]:
            after -= 1
        if last is None or publishes(cs[t], rate):
            if not (t < end and drawn_at == V and t in candidates):
                idx, end = batch_plan(cs, lms, nxt, t, rate, settings)
                released = yield values[idx], V
                candidates = dict(zip(idx, np.asarray(released, dtype=float).tolist(),
                                      strict=True))
                drawn_at = V
            out = candidates[t]
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
