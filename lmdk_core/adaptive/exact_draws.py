"""Adaptive's exact (OpenDP) values drawn in batches: one OpenDP call per stretch of
timestamps that share a budget, not one per publication.

OpenDP costs about 0.1–0.2 ms per call on top of about 22 µs per float-Laplace value
(:mod:`lmdk_core.mechanisms.exact_noise`), so releasing Adaptive's publications one call
each costs several times OpenDP's own per-value cost. In Adaptive the budget of the
timestamps still to come changes only when a landmark is approximated (the reference,
:mod:`lmdk_core.adaptive.reference`, step 4). So at a publication at t with budget V no
budget can change before the first landmark after t: :class:`BatchedExactDraws` applies
OpenDP's measurement of scale ``Δf/V`` to the values ``x_t … x_e`` at once (e the first
landmark after t; at least :data:`MIN_BATCH` and at most :data:`MAX_BATCH` values), keeps
the results as *candidates*, and releases the candidate of each later publication whose
budget is still V. A candidate is never used at another budget: when V changes, the
remaining candidates are discarded and the next publication draws a new batch.

**Privacy accounting stays exact.** Every released value is exactly one OpenDP draw
applied to that timestamp's value at that timestamp's scale ``Δf/ε_t``, as in the
reference. Candidates of timestamps that approximate, or of timestamps after a budget
change, are never released and influence nothing: whether t publishes, and at which
budget, depends only on the sampling coins and on values already released
(post-processing), never on a candidate not yet released. So the released values have the
reference's joint distribution, each spending the ε_t the verifier accounts for; OpenDP
draws every element of a vector independently from OS entropy.

The numpy coins are drawn as in the reference (one ``random()`` per step from the
caller's generator), so the sampling decisions' stream is unchanged.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.mechanisms.base import Mechanism

__all__ = ["MAX_BATCH", "MIN_BATCH", "BatchedExactDraws", "LockstepCandidates", "batch_end",
           "next_landmarks"]

#: fewest values drawn per OpenDP call: with landmarks everywhere a batch would hold one
#: value, and a call costs as much as ~5–10 values; at most this many are discarded when
#: a landmark inside the batch is approximated
MIN_BATCH = 16
#: most values drawn per OpenDP call (bounds memory and the draws after a budget change)
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


class BatchedExactDraws:
    """:class:`~lmdk_core.adaptive.reference.Draws` for an exact mechanism on one series:
    coins from ``gen`` step by step, released values from batched OpenDP calls."""

    def __init__(self, mech: Mechanism, values: np.ndarray, is_lm: np.ndarray,
                 gen: np.random.Generator) -> None:
        if mech.exact_sampler is None or mech.noise != "exact":
            raise ValueError("batched exact draws need a mechanism drawing with OpenDP")
        self._mech = mech
        self._values = values
        self._next = next_landmarks(is_lm)
        self._random = gen.random
        self._start = self._end = 0
        self._epsilon = None
        self._batch = np.zeros(0)
        #: OpenDP calls made and values drawn (for the benchmark)
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
            mech = self._mech
            self._batch = mech.exact_sampler(self._values[t:end], mech.scale(epsilon))
            self._start, self._end, self._epsilon = t, end, epsilon
            self.calls += 1
            self.drawn += end - t
        return float(self._batch[t - self._start])


class LockstepCandidates:
    """The batched exact draws of :class:`BatchedExactDraws` for many users at once (the
    population's lockstep Adaptive, :mod:`lmdk_core.population.lockstep`): per user the
    candidates of its current batch, the batch's end and its budget.

    At a timestamp t the publishing users without a candidate at their current budget
    (:meth:`missing`) ask for a batch each (:meth:`request`: ``x[u, t:e_u]`` at ``ε_u``,
    with ``e_u`` from :func:`batch_end`); the driver answers all the requests of a round
    with one OpenDP call per distinct scale, and :meth:`store` keeps the answers.
    """

    def __init__(self, x: np.ndarray, lengths: np.ndarray, is_lm: np.ndarray) -> None:
        U, T = is_lm.shape
        self._x = x
        self._lengths = np.asarray(lengths, dtype=np.int64)
        self._next = next_landmarks(is_lm)
        self.values = np.full((U, T), np.nan)
        self._end = np.zeros(U, dtype=np.int64)
        self._eps = np.full(U, np.nan)

    def missing(self, users: np.ndarray, t: int, eps_t: np.ndarray) -> np.ndarray:
        """The users among ``users`` (indices) with no candidate at t drawn at their
        budget ``eps_t[u]``."""
        ok = (self._end[users] > t) & (self._eps[users] == eps_t[users])
        return users[~ok]

    def request(self, users: np.ndarray, t: int,
                eps_t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The values and budgets of the new batches of ``users`` from t, and their ends."""
        ends = np.minimum(np.minimum(self._lengths[users], t + MAX_BATCH),
                          np.maximum(self._next[users, t] + 1, t + MIN_BATCH))
        values = np.concatenate([self._x[u, t:e] for u, e in zip(users, ends, strict=True)])
        budgets = np.repeat(eps_t[users], ends - t)
        return values, budgets, ends

    def store(self, users: np.ndarray, t: int, ends: np.ndarray, eps_t: np.ndarray,
              released: np.ndarray) -> None:
        """Keep the answers of :meth:`request` as the users' candidates."""
        parts = np.split(np.asarray(released, dtype=float), np.cumsum(ends - t)[:-1])
        for u, e, part in zip(users, ends, parts, strict=True):
            self.values[u, t:e] = part
        self._end[users] = ends
        self._eps[users] = eps_t[users]
