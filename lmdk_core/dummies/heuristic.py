"""The heuristic chain of options (Algorithm 2, "Heuristic dummy landmark set options
selection", of Katsomallos et al., "Landmark privacy", CODASPY 2022): greedily add the
regular timestamp whose set has the metric closest to ``m(L)``."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

import numpy as np

from lmdk_core.dummies.chain import DummyOptions, ProgressCallback, notify, prepare_chain
from lmdk_core.dummies.membership import membership_row
from lmdk_core.dummies.metrics import GapStd, Metric, get_metric, std_from_moments
from lmdk_core.foundation.errors import InputError

__all__ = ["HEURISTIC_MAX_STEPS", "heuristic_options"]

#: Largest number of dummies the heuristic adds in one call when ``max_options`` is not
#: given: the options list (JSON, report) is O(R·T) numbers. Each step costs O(√T) for
#: the gap std (a full chain at T = 100,000 takes seconds with ``max_options``), O(T)
#: for the other metrics.
HEURISTIC_MAX_STEPS = 5_000


def heuristic_options(
    length: int,
    landmarks: Iterable[int] | None,
    metric: str | Metric = "gap_std",
    *,
    max_options: int | None = None,
    progress: ProgressCallback | None = None,
) -> DummyOptions:
    """Greedy chain of options (Katsomallos et al. 2022, Algorithm 2, "Heuristic dummy landmark set
    options selection").

    Starting from ``L' = L``, repeatedly add the regular timestamp r minimising
    ``|m(L' ∪ {r}) − m(L)|`` (ties: the earliest timestamp) until ``L' = T`` (or
    ``max_options`` dummies were added). O(T) per step for the built-in metrics.
    Without ``max_options`` at most :data:`HEURISTIC_MAX_STEPS` steps are accepted.
    """
    T, lm, regular = prepare_chain(length, landmarks)
    met = get_metric(metric)
    steps = _step_count(regular.size, max_options)
    member = membership_row(lm, T)
    m0 = float(met.values(member[None, :])[0])
    if type(met) is GapStd:
        added, metrics = _greedy_gap_std(T, lm, steps, m0, progress)
    else:
        added, metrics = _greedy(met, member, steps, m0, progress)
    notify(progress, 1.0, "done")
    return DummyOptions(T, lm, added, metrics, m0, met, "heuristic")


def _step_count(n_regular: int, max_options: int | None) -> int:
    """How many dummies to add: all ``n_regular`` (at most :data:`HEURISTIC_MAX_STEPS`),
    or the first ``max_options``."""
    if max_options is None:
        if n_regular > HEURISTIC_MAX_STEPS:
            raise InputError(
                f"the heuristic would add {n_regular:,} dummies one by one (the series has "
                f"{n_regular:,} regular timestamps); the limit is {HEURISTIC_MAX_STEPS:,} — "
                "pass max_options (CLI: --max-options) to build only the first options"
            )
        return n_regular
    if isinstance(max_options, bool) or not isinstance(max_options, (int, np.integer)):
        raise InputError(f"max_options must be a whole number, got {max_options!r}")
    if max_options < 1:
        raise InputError(f"max_options must be at least 1, got {max_options}")
    return min(n_regular, int(max_options))


def _greedy(met: Metric, member: np.ndarray, steps: int, m0: float,
            progress: ProgressCallback | None) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2 for any metric: each step evaluates every candidate (O(T)).
    ``member`` (the landmark mask) is updated in place."""
    added = np.empty(steps, dtype=int)
    metrics = np.empty(steps)
    every = max(1, steps // 100)
    for step in range(steps):
        cand = np.flatnonzero(~member)
        vals = met.with_added(member, cand)
        i = int(np.argmin(np.abs(vals - m0)))
        member[cand[i]] = True
        added[step] = cand[i]
        metrics[step] = vals[i]
        if step % every == 0:
            notify(progress, (step + 1) / steps, f"added {step + 1} of {steps} dummies")
    return added, metrics


def _greedy_gap_std(T: int, lm: np.ndarray, steps: int, m0: float,
                    progress: ProgressCallback | None) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2 for the gap-std metric in O(√T) per step instead of O(T).

    Adding c to a gap of length g at offset a (``c = p + a``) changes the sum of squared
    gaps by ``−R(a)`` with ``R(a) = 2a(g − a)``; the count of gaps is the same for every
    candidate, so the metric is increasing in ``S − R`` and the best candidates of a
    gap length g are the two offsets around the ``a*`` whose ``R`` hits the target
    ``m(L)``. Only the distinct gap lengths (at most ``√(2T)`` of them) are examined, each
    at the offsets next to ``a*`` (``a <= g/2``: the earlier of the two symmetric
    timestamps) in its earliest gap; the metric values are the same exact-integer
    formula as :meth:`GapStd.with_added`, and ties go to the earliest timestamp, so the
    chain is the plain greedy's (tested against it).
    """
    gaps = _Gaps(T, lm)
    added = np.empty(steps, dtype=int)
    metrics = np.empty(steps)
    every = max(1, steps // 100)
    for step in range(steps):
        c, g, p, value = _best_gap_addition(gaps, m0)
        gaps.split(p, g, c)
        added[step] = c
        metrics[step] = value
        if step % every == 0:
            notify(progress, (step + 1) / steps, f"added {step + 1} of {steps} dummies")
    return added, metrics


#: offsets around ``floor(a*)`` examined in each gap length (:func:`_best_gap_addition`)
_OFFSETS = np.array([-1, 0, 1, 2], dtype=np.int64)


def _best_gap_addition(gaps: _Gaps, m0: float) -> tuple[int, int, int, float]:
    """The greedy step for the gap std: ``(c, g, p, m)``, the timestamp ``c`` whose set's
    gap std ``m`` is closest to ``m0`` (ties: the earliest), in the gap of length ``g``
    starting at ``p`` (see :func:`_greedy_gap_std`)."""
    cnt = gaps.n_gaps + 1
    G = gaps.lengths()
    # R* with std(S − R*) = m0: cnt·(S − R*) − total² = (m0·cnt)²
    r_star = gaps.sumsq - ((m0 * cnt) ** 2 + gaps.total * gaps.total) / cnt
    a_star = G / 2.0 - np.sqrt(np.maximum(G * G / 4.0 - r_star / 2.0, 0.0))
    A = np.floor(a_star).astype(np.int64)[:, None] + _OFFSETS[None, :]
    A = np.clip(A, 1, (G // 2)[:, None])
    GG = np.broadcast_to(G[:, None], A.shape)
    new = gaps.sumsq - GG * GG + A * A + (GG - A) ** 2
    vals = std_from_moments(new.ravel(), np.full(new.size, cnt), gaps.total)
    dist = np.abs(vals - m0)
    choice: tuple[int, int, int, float] | None = None
    for k in np.flatnonzero(dist == dist.min()).tolist():
        g = int(GG.ravel()[k])
        p = gaps.earliest(g)
        c = p + int(A.ravel()[k])
        if choice is None or c < choice[0]:
            choice = (c, g, p, float(vals[k]))
    assert choice is not None  # the minimum of dist is attained at least once
    return choice


class _Gaps:
    """The gaps between consecutive points of ``[-1, *L, T]`` as dummies are added: the
    sum of their squared lengths, their count, and for each length ≥ 2 the number of
    gaps and (a lazy heap of) their starts, so the earliest gap of a length is found in
    O(log T)."""

    def __init__(self, T: int, lm: np.ndarray) -> None:
        points = [-1, *lm.tolist(), T]
        self.heaps: dict[int, list[int]] = {}  # length -> starts (stale entries skipped)
        self.length_at: dict[int, int] = {}  # start of a live gap of length >= 2 -> length
        self.live: dict[int, int] = {}  # length (>= 2) -> number of live gaps
        self.sumsq = 0
        for p, q in zip(points[:-1], points[1:], strict=True):
            self.sumsq += (q - p) ** 2
            self._add(p, q - p)
        self.n_gaps = len(points) - 1
        self.total = T + 1

    def _add(self, start: int, g: int) -> None:
        """Index a new gap of length ``g`` at ``start`` (only gaps that can take a dummy)."""
        if g >= 2:
            heapq.heappush(self.heaps.setdefault(g, []), start)
            self.length_at[start] = g
            self.live[g] = self.live.get(g, 0) + 1

    def lengths(self) -> np.ndarray:
        """The distinct lengths of the gaps that can take a dummy."""
        return np.fromiter(self.live.keys(), dtype=np.int64, count=len(self.live))

    def earliest(self, g: int) -> int:
        """The start of the earliest live gap of length ``g``."""
        heap = self.heaps[g]
        while self.length_at.get(heap[0]) != g:  # drop stale starts
            heapq.heappop(heap)
        return heap[0]

    def split(self, p: int, g: int, c: int) -> None:
        """Add timestamp ``c`` to the earliest gap of length ``g``, which starts at ``p``."""
        heapq.heappop(self.heaps[g])
        del self.length_at[p]
        self.live[g] -= 1
        if self.live[g] == 0:
            del self.live[g]
        self._add(p, c - p)
        self._add(c, p + g - c)
        self.sumsq += (c - p) ** 2 + (p + g - c) ** 2 - g * g
        self.n_gaps += 1
