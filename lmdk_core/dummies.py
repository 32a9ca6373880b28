"""Dummy landmarks: nested landmark-set options and their private selection.

Source: Katsomallos et al., "Landmark privacy" (CODASPY 2022), "Protecting landmarks"
(dummy landmark generation, Algorithms 1 and 2, privacy-preserving option selection). The idea
is to publish, instead of the
landmark set ``L``, a larger set ``L′`` with ``L ⊂ L′ ⊆ T`` so that the real
landmarks hide among dummy ones.

**Options.** An option sequence is a chain of nested sets
``L ⊂ L₁ ⊂ L₂ ⊂ … ⊂ L_R = T`` where each step adds exactly one regular timestamp
(``R = |T ∖ L|``; the seed's ``getOpts`` returns every such *valid* chain). Each
option is judged by a metric ``m`` of the set (the seed's ``calcMetric``/``evalSeq``),
by default the standard deviation of the distances between consecutive landmarks;
see :class:`GapStd`. The seed's two ways to build the chain:

* **heuristic** (Algorithm 2, :func:`heuristic_options`): greedily add the regular
  timestamp whose set has the metric closest to ``m(L)``;
* **optimal** (Algorithm 1, :func:`optimal_options`): among all ``R!`` chains, the
  one whose *mean* metric is closest to the original,
  ``argmin_chain |(1/R)·Σ_{i=1..R} m(L_i) − m(L)|``. Exact, with branch and bound,
  memoisation on the set reached and a meet-in-the-middle join; refused above
  :data:`OPTIMAL_MAX_REGULAR` regular timestamps.

**Private selection** (:func:`select_option`): one option is drawn with the
Exponential mechanism (McSherry & Talwar 2007) under its own budget ``ε_sel``, with
utility ``u(L_i) = −|m(L_i) − m(L)|`` and sensitivity ``Δu`` (see
:meth:`Metric.sensitivity` for the derivation): ``P(L_i) = exp(ε_sel·u_i/(2Δu)) / Z``.

**Budget.** :func:`release_series_with_dummies` and
:func:`release_trajectory_with_dummies` select ``L′`` and then release the data with
``L′`` as the landmark set (the verifier is applied with ``L′``). The selection is
ε_sel-DP and the release is landmark ε-private, so by sequential composition the
whole pipeline spends ``ε_sel + ε`` (Dwork & Roth 2014, Thm 3.16). Because
``L ⊆ L′`` and every ε_t ≥ 0, ``Σ_{i∈L∪{t}} ε_i ≤ Σ_{i∈L′∪{t}} ε_i``: a release that is
landmark-private for ``L′`` is also landmark-private for the original ``L``.

Caveat (also true of the seed's design): the *list* of options is computed from
``L`` (every option contains ``L``), so the Exponential mechanism's guarantee covers
the choice among the listed options; only the selected ``L′`` may leave the
trusted side, never the option list or the probabilities of a real ``L``.
"""

from __future__ import annotations

import heapq
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.mechanisms.exponential import Exponential
from lmdk_core.release import AdaptiveSettings, Release, release_series, release_trajectory
from lmdk_core.validation import (
    InputError,
    as_generator,
    check_epsilon,
    check_landmarks,
    check_positive,
)
from lmdk_core.verifier import Verdict, verify

__all__ = [
    "HEURISTIC_MAX_STEPS",
    "METHODS",
    "METRICS",
    "OPTIMAL_MAX_REGULAR",
    "DummyOptions",
    "DummyRelease",
    "DummySelection",
    "FunctionMetric",
    "GapStd",
    "Metric",
    "NearestDistanceMean",
    "ProgressCallback",
    "dummy_options",
    "get_metric",
    "heuristic_options",
    "optimal_options",
    "release_series_with_dummies",
    "release_trajectory_with_dummies",
    "select_option",
    "selection_probabilities",
    "utility_sensitivity",
]

#: Largest number of regular timestamps ``R = T − |L|`` the optimal search accepts.
#: The search space holds ``R!`` chains (12! ≈ 4.8e8). Measured on one laptop core at
#: R = 12: ≈ 0.01 s when m(L) lies outside the range of chain means (settled by the
#: bounds), ≈ 0.3 s and < 100 MB for the hardest inputs found (built-in metrics with
#: m(L) inside that range, or a custom metric with random values per set, where
#: nothing can be pruned or merged). R = 13 needs ≈ 3x the time and memory, R = 14
#: ≈ 4 s and ≈ 0.6 GB.
OPTIMAL_MAX_REGULAR = 12

#: Largest number of dummies the heuristic adds in one call when ``max_options`` is not
#: given: the options list (JSON, report) is O(R·T) numbers. Each step costs O(√T) for
#: the gap std (a full chain at T = 100,000 takes seconds with ``max_options``), O(T)
#: for the other metrics.
HEURISTIC_MAX_STEPS = 5_000

#: The two ways to build the chain of options.
METHODS = ("heuristic", "optimal")

#: ``progress(fraction in [0, 1], message)``; called from long computations.
ProgressCallback = Callable[[float, str], None]

# Rows × timestamps of one membership block evaluated at once (memory bound).
_BLOCK_CELLS = 2_000_000


def _check_length(length: int) -> int:
    if isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer)):
        try:
            as_float = float(length)
        except (TypeError, ValueError):
            raise InputError(
                f"the series length T must be a whole number, got {length!r}"
            ) from None
        if not as_float.is_integer():
            raise InputError(f"the series length T must be a whole number, got {length!r}")
        length = int(as_float)
    if length < 1:
        raise InputError(f"the series length T must be at least 1, got {length}")
    return int(length)


def _membership(landmarks: np.ndarray, length: int) -> np.ndarray:
    row = np.zeros(length, dtype=bool)
    row[landmarks] = True
    return row


# ----------------------------------------------------------------------------- metrics


class Metric(ABC):
    """A number computed from a landmark set ``S`` of a series of length ``T``.

    This is the seed's ``calcMetric``/``evalSeq``. Subclasses implement
    :meth:`values` on a boolean membership matrix (one row per set, ``member[r, t]``
    True when t is a landmark of set r); :meth:`with_added` may be overridden with an
    incremental formula. :meth:`sensitivity` returns a bound on ``|m(S) − m(S̃)|`` over
    the landmark sets a neighbouring input may have, which bounds the sensitivity of
    the selection utility ``−|m(option) − m(L)|`` (reverse triangle inequality).
    """

    key: str = "metric"
    label: str = "metric"
    description: str = ""

    @abstractmethod
    def values(self, member: np.ndarray) -> np.ndarray:
        """The metric of every row of the (n_sets, T) boolean matrix ``member``."""

    def sensitivity(self, length: int) -> float | None:
        """Bound on the change of the metric between neighbouring landmark sets of a
        series of length ``length`` (None when unknown: the caller must give one)."""
        return None

    def __call__(self, landmarks: Iterable[int], length: int) -> float:
        """The metric of one landmark set."""
        T = _check_length(length)
        lm = check_landmarks(landmarks, T)
        return float(self.values(_membership(lm, T)[None, :])[0])

    def with_added(self, member: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Metric of ``S ∪ {c}`` for every candidate c (regular timestamps of ``S``).

        The default builds the candidate sets block-wise and calls :meth:`values`.
        """
        member = np.asarray(member, dtype=bool)
        cand = np.asarray(candidates, dtype=int)
        out = np.empty(cand.size)
        block = max(1, _BLOCK_CELLS // max(1, member.size))
        for s in range(0, cand.size, block):
            c = cand[s : s + block]
            rows = np.repeat(member[None, :], c.size, axis=0)
            rows[np.arange(c.size), c] = True
            out[s : s + c.size] = self.values(rows)
        return out


def _std_from_moments(sumsq: np.ndarray, count: np.ndarray, total: int) -> np.ndarray:
    """Population std of ``count`` numbers with sum ``total`` and sum of squares
    ``sumsq``, from exact integers: ``sqrt((count·sumsq − total²)) / count``."""
    num = count.astype(np.int64) * sumsq.astype(np.int64) - np.int64(total) ** 2
    return np.sqrt(np.maximum(num, 0).astype(float)) / count.astype(float)


class GapStd(Metric):
    """Standard deviation of the distances between consecutive landmarks (default).

    The series' start and end count as boundaries: with ``S = {s_1 < … < s_k}`` the
    gaps are ``g_i = s_{i+1} − s_i`` over ``−1, s_1, …, s_k, T`` (k+1 gaps, each ≥ 1,
    summing to ``T + 1``) and the metric is their population standard deviation
    ``sqrt(Σg_i²/(k+1) − ((T+1)/(k+1))²)``. It is 0 for evenly spread landmarks (and
    for ``S = T``), large for clustered ones. Katsomallos et al. 2022 ("Dummy landmark generation":
    "the standard deviation of all the distances from the previous/next landmark").

    Computed from exact integer moments, so equal configurations give equal floats.
    """

    key = "gap_std"
    label = "Std of gaps between landmarks"
    description = (
        "standard deviation of the distances between consecutive landmarks "
        "(series start and end count as boundaries)"
    )

    def values(self, member: np.ndarray) -> np.ndarray:
        member = np.asarray(member, dtype=bool)
        n, T = member.shape
        ext = np.concatenate([member, np.ones((n, 1), dtype=bool)], axis=1)
        pos = np.arange(T + 1, dtype=np.int64)
        prev_incl = np.maximum.accumulate(np.where(ext, pos, -1), axis=1)
        prev = np.empty_like(prev_incl)
        prev[:, 0] = -1
        prev[:, 1:] = prev_incl[:, :-1]
        gaps = np.where(ext, pos - prev, 0)
        return _std_from_moments((gaps * gaps).sum(axis=1), ext.sum(axis=1), T + 1)

    def with_added(self, member: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """O(T + C): adding c splits the gap (p, q) around it into (p, c) and (c, q)."""
        member = np.asarray(member, dtype=bool)
        cand = np.asarray(candidates, dtype=np.int64)
        if np.any(member[cand]):
            raise InputError("dummy candidates must be regular timestamps (not landmarks)")
        T = member.size
        points = np.concatenate([[-1], np.flatnonzero(member), [T]]).astype(np.int64)
        gaps = np.diff(points)
        sumsq = int((gaps * gaps).sum())
        k = np.searchsorted(points, cand)
        p, q = points[k - 1], points[k]
        new = sumsq - (q - p) ** 2 + (cand - p) ** 2 + (q - cand) ** 2
        return _std_from_moments(new, np.full(cand.size, gaps.size + 1), T + 1)

    def sensitivity(self, length: int) -> float:
        """``(T − 1)/2``: the metric of any non-empty landmark set lies in
        ``[0, (T − 1)/2]``, so no change of the landmarks moves it by more.

        Proof: write the k+1 gaps (k ≥ 1) as ``g_i = 1 + h_i`` with ``h_i ≥ 0`` and
        ``Σh_i = H = T − k ≤ T − 1``. The std is shift-invariant and, for m = k+1
        non-negative numbers of sum H, ``std² = Σh²/m − (H/m)² ≤ H²/m − H²/m²``, i.e.
        ``std ≤ H·√(m−1)/m ≤ H/2`` (``√(m−1)/m ≤ 1/2`` for every m ≥ 1). The bound is
        attained: ``L = {0}`` has std ``(T−1)/2`` and ``L = T`` has 0, and moving the
        single landmark of ``{0}`` to the middle changes the std by ≈ ``(T−1)/2``.
        """
        T = _check_length(length)
        return max(T - 1, 1) / 2.0


class NearestDistanceMean(Metric):
    """Mean distance from a timestamp to its nearest landmark.

    ``m(S) = (1/T)·Σ_{t=0}^{T−1} min_{s∈S} |t − s|`` (needs S non-empty). Small when the
    landmarks cover the series evenly and densely; a coverage measure in the spirit of
    Katsomallos et al.'s "distance from the previous/next landmark".
    """

    key = "nearest_mean"
    label = "Mean distance to the nearest landmark"
    description = "mean over all timestamps of the distance to the nearest landmark"

    def values(self, member: np.ndarray) -> np.ndarray:
        member = np.asarray(member, dtype=bool)
        n, T = member.shape
        if n and not np.all(member.any(axis=1)):
            raise InputError("the nearest-landmark distance needs at least one landmark")
        pos = np.arange(T, dtype=np.int64)
        big = np.int64(4 * T + 4)
        prev = np.maximum.accumulate(np.where(member, pos, -big), axis=1)
        nxt = np.minimum.accumulate(np.where(member, pos, big)[:, ::-1], axis=1)[:, ::-1]
        d = np.minimum(pos - prev, nxt - pos)
        return d.sum(axis=1) / float(T)

    def with_added(self, member: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """O(T + C) closed form: between landmarks a < b the interior points contribute
        ``⌊(b−a)²/4⌋``; the f points before the first landmark ``f(f+1)/2``, likewise
        after the last one."""
        member = np.asarray(member, dtype=bool)
        cand = np.asarray(candidates, dtype=np.int64)
        if np.any(member[cand]):
            raise InputError("dummy candidates must be regular timestamps (not landmarks)")
        T = member.size
        lm = np.flatnonzero(member).astype(np.int64)
        if lm.size == 0:
            raise InputError("the nearest-landmark distance needs at least one landmark")

        def inner(g):
            return (g * g) // 4

        def edge(f):
            return f * (f + 1) // 2

        first, last = lm[0], lm[-1]
        total = edge(first) + edge(T - 1 - last) + int(inner(np.diff(lm)).sum())
        k = np.searchsorted(lm, cand)
        a = lm[np.clip(k - 1, 0, lm.size - 1)]
        b = lm[np.clip(k, 0, lm.size - 1)]
        delta = np.where(
            k == 0,
            edge(cand) + inner(first - cand) - edge(first),
            np.where(
                k == lm.size,
                inner(cand - last) + edge(T - 1 - cand) - edge(T - 1 - last),
                inner(cand - a) + inner(b - cand) - inner(b - a),
            ),
        )
        return (total + delta) / float(T)

    def sensitivity(self, length: int) -> float:
        """``(T − 1)/2``: adding landmarks never increases the metric, so its maximum
        over non-empty sets is reached by a single landmark p, where it equals
        ``(p(p+1)/2 + (T−1−p)(T−p)/2)/T ≤ (T−1)/2`` (p at either end); its minimum is
        0 (``S = T``). Any change of the landmarks moves it by at most ``(T−1)/2``."""
        T = _check_length(length)
        return max(T - 1, 1) / 2.0


class FunctionMetric(Metric):
    """A user-supplied metric ``func(sorted_landmarks, T) -> float``.

    ``sensitivity`` is a number or a function of T bounding the metric's change
    between neighbouring landmark sets; without it, private selection needs an
    explicit sensitivity.
    """

    def __init__(
        self,
        key: str,
        func: Callable[[np.ndarray, int], float],
        sensitivity: float | Callable[[int], float] | None = None,
        label: str | None = None,
        description: str = "",
    ) -> None:
        if not callable(func):
            raise InputError("a custom metric needs a function f(landmarks, T) -> number")
        self.key = str(key)
        self.label = label or self.key
        self.description = description
        self._func = func
        self._sensitivity = sensitivity

    def values(self, member: np.ndarray) -> np.ndarray:
        member = np.asarray(member, dtype=bool)
        T = member.shape[1]
        out = np.array([float(self._func(np.flatnonzero(row), T)) for row in member])
        if not np.all(np.isfinite(out)):
            raise InputError(f"metric {self.key!r} returned a value that is not a finite number")
        return out

    def sensitivity(self, length: int) -> float | None:
        s = self._sensitivity
        if s is None:
            return None
        value = s(_check_length(length)) if callable(s) else s
        return check_positive(value, f"sensitivity of metric {self.key!r}")


#: Built-in metrics by key.
METRICS: dict[str, Metric] = {m.key: m for m in (GapStd(), NearestDistanceMean())}


def get_metric(metric: str | Metric) -> Metric:
    """A :class:`Metric` from its key (``'gap_std'``, ``'nearest_mean'``) or itself."""
    if isinstance(metric, Metric):
        return metric
    key = str(metric).strip().lower().replace("-", "_")
    if key not in METRICS:
        raise InputError(
            f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}"
        )
    return METRICS[key]


# ----------------------------------------------------------------------------- options


@dataclass(frozen=True)
class DummyOptions:
    """A chain of nested options ``L ⊂ L₁ ⊂ … ⊂ L_n``.

    ``added[i]`` is the regular timestamp added at step i, so option i is
    ``L ∪ {added[0], …, added[i]}``; ``metrics[i] = m(L_{i+1})``. ``objective`` is the
    seed's Algorithm 1 criterion ``|mean(metrics) − m(L)|``.
    """

    length: int
    landmarks: np.ndarray
    added: np.ndarray
    metrics: np.ndarray
    original_metric: float
    metric: Metric = field(repr=False)
    method: str = "heuristic"

    def __len__(self) -> int:
        return int(self.added.size)

    def option(self, i: int) -> np.ndarray:
        """Sorted timestamps of option ``i`` (0-based: option 0 adds one dummy)."""
        n = len(self)
        if not -n <= i < n:
            raise InputError(f"option {i} does not exist; there are {n} options")
        i = i % n
        return np.sort(np.concatenate([self.landmarks, self.added[: i + 1]]))

    @property
    def options(self) -> list[np.ndarray]:
        """Every option's sorted timestamps."""
        return [self.option(i) for i in range(len(self))]

    @property
    def differences(self) -> np.ndarray:
        """``|m(L_i) − m(L)|`` per option."""
        return np.abs(self.metrics - self.original_metric)

    @property
    def objective(self) -> float:
        """``|mean_i m(L_i) − m(L)|`` (the seed's ``|evalSum/#opt − evalOrig|``)."""
        return float(abs(self.metrics.mean() - self.original_metric))

    def to_dict(self) -> dict:
        """JSON-ready summary (the CLI's keys)."""
        return {
            "method": self.method,
            "metric": self.metric.key,
            "original_metric": float(self.original_metric),
            "objective": self.objective,
            "options": [
                {"timestamps": self.option(i).tolist(), "metric": float(m)}
                for i, m in enumerate(self.metrics)
            ],
        }


def _prepare(length: int, landmarks: Iterable[int] | None) -> tuple[int, np.ndarray, np.ndarray]:
    T = _check_length(length)
    lm = check_landmarks(landmarks, T)
    if lm.size == 0:
        raise InputError(
            "mark at least one landmark: dummy landmarks hide real ones, and there are none"
        )
    regular = np.setdiff1d(np.arange(T), lm)
    if regular.size == 0:
        raise InputError(
            "every timestamp is already a landmark: there is no regular timestamp to add as "
            "a dummy"
        )
    return T, lm, regular


def _notify(progress: ProgressCallback | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(float(min(1.0, max(0.0, fraction))), message)


def heuristic_options(
    length: int,
    landmarks: Iterable[int],
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
    T, lm, regular = _prepare(length, landmarks)
    met = get_metric(metric)
    steps = regular.size
    if max_options is not None:
        if isinstance(max_options, bool) or not isinstance(max_options, (int, np.integer)):
            raise InputError(f"max_options must be a whole number, got {max_options!r}")
        if max_options < 1:
            raise InputError(f"max_options must be at least 1, got {max_options}")
        steps = min(steps, int(max_options))
    elif steps > HEURISTIC_MAX_STEPS:
        raise InputError(
            f"the heuristic would add {steps:,} dummies one by one (the series has {steps:,} "
            f"regular timestamps); the limit is {HEURISTIC_MAX_STEPS:,} — pass max_options "
            "(CLI: --max-options) to build only the first options"
        )
    member = _membership(lm, T)
    m0 = float(met.values(member[None, :])[0])
    if type(met) is GapStd:
        added, metrics = _greedy_gap_std(T, lm, steps, m0, progress)
        _notify(progress, 1.0, "done")
        return DummyOptions(T, lm, added, metrics, m0, met, "heuristic")
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
            _notify(progress, (step + 1) / steps, f"added {step + 1} of {steps} dummies")
    _notify(progress, 1.0, "done")
    return DummyOptions(T, lm, added, metrics, m0, met, "heuristic")


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
    points = [-1, *lm.tolist(), T]
    heaps: dict[int, list[int]] = {}  # gap length -> starts p (lazy: stale entries skipped)
    length_at: dict[int, int] = {}  # start p of a live gap with a candidate -> its length
    live: dict[int, int] = {}  # gap length (>= 2) -> number of live gaps
    sumsq = 0
    for p, q in zip(points[:-1], points[1:], strict=True):
        g = q - p
        sumsq += g * g
        if g >= 2:
            heapq.heappush(heaps.setdefault(g, []), p)
            length_at[p] = g
            live[g] = live.get(g, 0) + 1
    n_gaps = len(points) - 1
    total = T + 1
    added = np.empty(steps, dtype=int)
    metrics = np.empty(steps)
    every = max(1, steps // 100)
    offsets = np.array([-1, 0, 1, 2], dtype=np.int64)
    for step in range(steps):
        cnt = n_gaps + 1
        G = np.fromiter(live.keys(), dtype=np.int64, count=len(live))
        # R* with std(S − R*) = m0: cnt·(S − R*) − total² = (m0·cnt)²
        r_star = sumsq - ((m0 * cnt) ** 2 + total * total) / cnt
        a_star = G / 2.0 - np.sqrt(np.maximum(G * G / 4.0 - r_star / 2.0, 0.0))
        A = np.floor(a_star).astype(np.int64)[:, None] + offsets[None, :]
        A = np.clip(A, 1, (G // 2)[:, None])
        GG = np.broadcast_to(G[:, None], A.shape)
        new = sumsq - GG * GG + A * A + (GG - A) ** 2
        vals = _std_from_moments(new.ravel(), np.full(new.size, cnt), total)
        dist = np.abs(vals - m0)
        best = np.flatnonzero(dist == dist.min())
        choice = None
        for k in best.tolist():
            g = int(GG.ravel()[k])
            heap = heaps[g]
            while length_at.get(heap[0]) != g:  # drop stale starts
                heapq.heappop(heap)
            c = heap[0] + int(A.ravel()[k])
            if choice is None or c < choice[0]:
                choice = (c, g, heap[0], float(vals[k]))
        c, g, p, value = choice
        heapq.heappop(heaps[g])
        del length_at[p]
        live[g] -= 1
        if live[g] == 0:
            del live[g]
        for start, ln in ((p, c - p), (c, p + g - c)):
            if ln >= 2:
                heapq.heappush(heaps.setdefault(ln, []), start)
                length_at[start] = ln
                live[ln] = live.get(ln, 0) + 1
        sumsq += (c - p) ** 2 + (p + g - c) ** 2 - g * g
        n_gaps += 1
        added[step] = c
        metrics[step] = value
        if step % every == 0:
            _notify(progress, (step + 1) / steps, f"added {step + 1} of {steps} dummies")
    return added, metrics


@dataclass
class _Level:
    """Memo of the partial sums reaching one set: values with provenance."""

    vals: np.ndarray
    bit: np.ndarray
    idx: np.ndarray


def _dedup(vals: np.ndarray, bit: np.ndarray, idx: np.ndarray, quantum: float) -> _Level:
    keys = np.round(vals / quantum)
    _, first = np.unique(keys, return_index=True)
    first = first[np.argsort(vals[first], kind="stable")]
    return _Level(vals[first], bit[first], idx[first])


def _interval_distance(x: np.ndarray | float, lo: float, hi: float) -> np.ndarray:
    """Distance from x to the interval [lo, hi]."""
    return np.maximum(np.maximum(lo - x, x - hi), 0.0)


def optimal_options(
    length: int,
    landmarks: Iterable[int],
    metric: str | Metric = "gap_std",
    *,
    progress: ProgressCallback | None = None,
) -> DummyOptions:
    """The best chain of options (Katsomallos et al. 2022, Algorithm 1, "Optimal dummy landmark set
    options selection").

    Minimises ``|(1/R)·Σ_{i=1..R} m(L_i) − m(L)|`` exactly over all ``R!`` valid chains
    ``L ⊂ L₁ ⊂ … ⊂ L_R = T`` (R regular timestamps, one added per step). The mean of a
    chain depends only on the sets it visits, so the search works on the lattice of
    sets reached (bitmasks of added regular timestamps), not on permutations:

    1. the metric of all ``2^R`` sets is computed once (vectorized);
    2. exact bounds by dynamic programming: the smallest/largest sum a chain can still
       collect after reaching a set, and the smallest/largest sum collected to reach it;
    3. the heuristic's chain gives an upper bound on the optimum; a partial sum whose
       bounds cannot beat it is pruned (branch and bound);
    4. partial sums reaching the same set are memoised and merged when equal, forwards
       from L up to the middle level and backwards from T down to it; the halves are
       joined by binary search (meet in the middle).

    Worst case ``O(R!/(R/2)!)`` memory and time instead of ``O(R!·R)``; refused above
    :data:`OPTIMAL_MAX_REGULAR` regular timestamps. ``progress(fraction, message)``
    is called as the search advances.
    """
    T, lm, regular = _prepare(length, landmarks)
    met = get_metric(metric)
    R = regular.size
    if R > OPTIMAL_MAX_REGULAR:
        raise InputError(
            f"the optimal search is limited to {OPTIMAL_MAX_REGULAR} regular timestamps "
            f"(it examines R! chains); this series has R = T − |L| = {R}. Use the heuristic "
            "method, or a shorter series / more landmarks"
        )
    full = (1 << R) - 1
    masks = np.arange(full + 1, dtype=np.int64)
    pow2 = np.int64(1) << np.arange(R, dtype=np.int64)
    has = (masks[:, None] & pow2) != 0
    pop = has.sum(axis=1)

    # 1. metric of every reachable set (mask 0 is L itself)
    _notify(progress, 0.0, f"evaluating the metric of {full + 1} sets")
    base = _membership(lm, T)
    mvals = np.empty(full + 1)
    block = max(1, _BLOCK_CELLS // T)
    for s in range(0, full + 1, block):
        rows = np.repeat(base[None, :], min(block, full + 1 - s), axis=0)
        rows[:, regular] = has[s : s + rows.shape[0]]
        mvals[s : s + rows.shape[0]] = met.values(rows)
    m0 = float(mvals[0])
    target = R * m0  # compare sums instead of means
    levels = [masks[pop == j] for j in range(R + 1)]

    # 2. exact bounds: completion after a set (levels |S|+1..R), prefix up to it (1..|S|)
    min_c = np.zeros(full + 1)
    max_c = np.zeros(full + 1)
    for j in range(R - 1, -1, -1):
        S = levels[j]
        nb = S[:, None] | pow2
        ok = (S[:, None] & pow2) == 0
        min_c[S] = np.where(ok, mvals[nb] + min_c[nb], np.inf).min(axis=1)
        max_c[S] = np.where(ok, mvals[nb] + max_c[nb], -np.inf).max(axis=1)
    min_p = np.zeros(full + 1)
    max_p = np.zeros(full + 1)
    for j in range(1, R + 1):
        S = levels[j]
        pb = S[:, None] & ~pow2
        ok = (S[:, None] & pow2) != 0
        min_p[S] = mvals[S] + np.where(ok, min_p[pb], np.inf).min(axis=1)
        max_p[S] = mvals[S] + np.where(ok, max_p[pb], -np.inf).max(axis=1)

    def chain_to_added(chain_masks: list[int]) -> np.ndarray:
        prev, bits = 0, []
        for mk in chain_masks:
            bits.append(int(mk ^ prev).bit_length() - 1)
            prev = mk
        return regular[np.asarray(bits, dtype=int)]

    def extreme_chain(use_max: bool) -> list[int]:
        bound = max_c if use_max else min_c
        S, chain = 0, []
        while S != full:
            cand = [S | (1 << b) for b in range(R) if not S >> b & 1]
            score = [mvals[c] + bound[c] for c in cand]
            S = cand[int(np.argmax(score) if use_max else np.argmin(score))]
            chain.append(S)
        return chain

    def done(chain_masks: list[int]) -> DummyOptions:
        _notify(progress, 1.0, "done")
        added = chain_to_added(chain_masks)
        return DummyOptions(T, lm, added, mvals[np.asarray(chain_masks)], m0, met, "optimal")

    # The target outside every chain's reach: the extreme chain is optimal.
    if target >= max_c[0]:
        return done(extreme_chain(True))
    if target <= min_c[0]:
        return done(extreme_chain(False))

    # 3. upper bound from the heuristic chain
    heur = heuristic_options(T, lm, met)
    index_of = {int(r): b for b, r in enumerate(regular)}
    chain, S = [], 0
    for r in heur.added:
        S |= 1 << index_of[int(r)]
        chain.append(S)
    best_chain = chain
    best = float(abs(mvals[np.asarray(chain)].sum() - target))
    scale = max(1.0, float(np.abs(mvals).max()) * R, abs(target))
    tol = 1e-9 * scale
    quantum = 1e-12 * scale
    if best <= tol:
        return done(best_chain)

    h = R // 2
    total_units = sum(math.comb(R, j) for j in range(1, h + 1))
    total_units += sum(math.comb(R, j) for j in range(h, R)) + math.comb(R, h)
    units, every = 0, max(1, total_units // 50)

    def tick(message: str) -> None:
        nonlocal units
        units += 1
        if units % every == 0:
            _notify(progress, units / total_units, message)

    # 4a. forward: sums of m over levels 1..|S| of the chains reaching S (incl. m(S))
    fwd: dict[int, _Level] = {0: _Level(np.zeros(1), np.zeros(1, np.int8), np.zeros(1, np.int32))}
    for j in range(1, h + 1):
        for S in levels[j].tolist():
            parts, bits, idxs = [], [], []
            for b in range(R):
                if S >> b & 1 and (S ^ (1 << b)) in fwd:
                    prev = fwd[S ^ (1 << b)]
                    parts.append(prev.vals + mvals[S])
                    bits.append(np.full(prev.vals.size, b, np.int8))
                    idxs.append(np.arange(prev.vals.size, dtype=np.int32))
            tick(f"forward search, level {j} of {h}")
            if not parts:
                continue
            vals = np.concatenate(parts)
            keep = _interval_distance(target - vals, min_c[S], max_c[S]) <= best + tol
            if keep.any():
                fwd[S] = _dedup(vals[keep], np.concatenate(bits)[keep],
                                np.concatenate(idxs)[keep], quantum)

    # 4b. backward: sums of m over levels |S|+1..R of the chains from S to T
    bwd: dict[int, _Level] = {
        full: _Level(np.zeros(1), np.zeros(1, np.int8), np.zeros(1, np.int32))
    }
    for j in range(R - 1, h - 1, -1):
        for S in levels[j].tolist():
            parts, bits, idxs = [], [], []
            for b in range(R):
                nxt = S | (1 << b)
                if not S >> b & 1 and nxt in bwd:
                    succ = bwd[nxt]
                    parts.append(succ.vals + mvals[nxt])
                    bits.append(np.full(succ.vals.size, b, np.int8))
                    idxs.append(np.arange(succ.vals.size, dtype=np.int32))
            tick(f"backward search, level {R - j} of {R - h}")
            if not parts:
                continue
            vals = np.concatenate(parts)
            keep = _interval_distance(target - vals, min_p[S], max_p[S]) <= best + tol
            if keep.any():
                bwd[S] = _dedup(vals[keep], np.concatenate(bits)[keep],
                                np.concatenate(idxs)[keep], quantum)

    # 4c. join at level h
    found = None
    for S in levels[h].tolist():
        tick("joining the two halves")
        a_lvl, b_lvl = fwd.get(S), bwd.get(S)
        if a_lvl is None or b_lvl is None:
            continue
        a, bb = a_lvl.vals, b_lvl.vals
        lo, hi = a.min() + bb[0], a.max() + bb[-1]
        if _interval_distance(target, lo, hi) >= best:
            continue
        pos = np.searchsorted(bb, target - a)
        j_lo = np.clip(pos - 1, 0, bb.size - 1)
        j_hi = np.clip(pos, 0, bb.size - 1)
        e_lo = np.abs(a + bb[j_lo] - target)
        e_hi = np.abs(a + bb[j_hi] - target)
        jb = np.where(e_lo <= e_hi, j_lo, j_hi)
        err = np.minimum(e_lo, e_hi)
        ia = int(np.argmin(err))
        if err[ia] < best:
            best = float(err[ia])
            found = (S, ia, int(jb[ia]))
            if best <= tol:
                break
    if found is None:
        return done(best_chain)

    S, ia, ib = found
    first_half = []
    node, i = S, ia
    while node != 0:
        first_half.append(node)
        lvl = fwd[node]
        node, i = node ^ (1 << int(lvl.bit[i])), int(lvl.idx[i])
    second_half = []
    node, i = S, ib
    while node != full:
        lvl = bwd[node]
        node, i = node | (1 << int(lvl.bit[i])), int(lvl.idx[i])
        second_half.append(node)
    return done(first_half[::-1] + second_half)


def dummy_options(
    length: int,
    landmarks: Iterable[int],
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    *,
    max_options: int | None = None,
    progress: ProgressCallback | None = None,
) -> DummyOptions:
    """Options by ``method``: ``'heuristic'`` (:func:`heuristic_options`) or
    ``'optimal'`` (:func:`optimal_options`; ``max_options`` does not apply)."""
    key = str(method).strip().lower()
    if key == "heuristic":
        return heuristic_options(length, landmarks, metric, max_options=max_options,
                                 progress=progress)
    if key == "optimal":
        if max_options is not None:
            raise InputError("max_options applies to the heuristic only; the optimal chain "
                             "always ends at the whole series")
        return optimal_options(length, landmarks, metric, progress=progress)
    raise InputError(f"unknown method {method!r}; choose heuristic or optimal")


# --------------------------------------------------------------------------- selection


def utility_sensitivity(
    metric: str | Metric, length: int, sensitivity: float | None = None
) -> float:
    """Δu of the selection utility ``u = −|m(option) − m(L)|``.

    ``|u(L, o) − u(L̃, o)| ≤ |m(L) − m(L̃)|`` by the reverse triangle inequality, so the
    metric's own bound (:meth:`Metric.sensitivity`, ``(T−1)/2`` for both built-in
    metrics) serves; an explicit ``sensitivity`` overrides it.
    """
    if sensitivity is not None:
        return check_positive(sensitivity, "utility sensitivity")
    met = get_metric(metric)
    s = met.sensitivity(length)
    if s is None:
        raise InputError(
            f"metric {met.key!r} states no sensitivity; pass the utility sensitivity explicitly"
        )
    return check_positive(s, "utility sensitivity")


@dataclass(frozen=True)
class DummySelection:
    """One option drawn by the Exponential mechanism, and every option's probability."""

    options: DummyOptions
    epsilon: float
    sensitivity: float
    utilities: np.ndarray
    probabilities: np.ndarray
    index: int

    @property
    def selected(self) -> np.ndarray:
        """``L′``: the landmark set to release with (sorted)."""
        return self.options.option(self.index)

    @property
    def dummies(self) -> np.ndarray:
        """``L′ ∖ L``: the dummy landmarks that were added."""
        return np.setdiff1d(self.selected, self.options.landmarks)

    def to_dict(self) -> dict:
        """The CLI's JSON: options, probabilities and the selection."""
        return {
            **self.options.to_dict(),
            "epsilon": self.epsilon,
            "sensitivity": self.sensitivity,
            "utilities": self.utilities.tolist(),
            "probabilities": self.probabilities.tolist(),
            "selected": {
                "index": self.index,
                "timestamps": self.selected.tolist(),
                "dummies": self.dummies.tolist(),
                "metric": float(self.options.metrics[self.index]),
            },
        }


def selection_probabilities(
    options: DummyOptions, epsilon: float, sensitivity: float | None = None
) -> np.ndarray:
    """``P(L_i) = exp(ε·u_i/(2Δu)) / Z`` with ``u_i = −|m(L_i) − m(L)|`` (Katsomallos et al. 2022,
    "Privacy-preserving option selection"; McSherry & Talwar 2007)."""
    du = utility_sensitivity(options.metric, options.length, sensitivity)
    return Exponential(du).probabilities(-options.differences, check_epsilon(epsilon, "ε_sel"))


def select_option(
    options: DummyOptions,
    epsilon: float,
    seed: int | np.random.Generator | None = None,
    sensitivity: float | None = None,
) -> DummySelection:
    """Draw one option with the Exponential mechanism under budget ``epsilon`` (ε_sel).

    Utility ``u_i = −|m(L_i) − m(L)|``, sensitivity from :func:`utility_sensitivity`
    unless given; ε_sel-differentially private with respect to the landmark set for
    the listed options (see the module docstring for the caveat on the list itself).
    """
    if not isinstance(options, DummyOptions) or len(options) == 0:
        raise InputError("there are no options to select from; build them first")
    eps = check_epsilon(epsilon, "ε_sel")
    du = utility_sensitivity(options.metric, options.length, sensitivity)
    u = -options.differences
    mech = Exponential(du)
    p = mech.probabilities(u, eps)
    gen = as_generator(seed)
    index = int(gen.choice(p.size, p=p))
    return DummySelection(options, eps, du, u, p, index)


# ----------------------------------------------------------------- selection + release


@dataclass(frozen=True)
class DummyRelease:
    """A release made with the selected ``L′`` and its budget accounting.

    ``release.verdict`` checks the allocation against ``L′`` (what the release used);
    ``original_verdict`` checks the same allocation against the real ``L`` (implied by
    the first since ``L ⊆ L′``).
    """

    selection: DummySelection
    release: Release
    original_verdict: Verdict
    epsilon_selection: float
    epsilon_release: float

    @property
    def total_epsilon(self) -> float:
        """``ε_sel + ε`` (sequential composition)."""
        return self.epsilon_selection + self.epsilon_release

    def accounting(self) -> dict:
        """The budget split, for display."""
        return {
            "epsilon_selection": self.epsilon_selection,
            "epsilon_release": self.epsilon_release,
            "epsilon_total": self.total_epsilon,
            "composition": "sequential: ε_sel (option selection) + ε (landmark release with L′)",
            "landmarks_used": self.selection.selected.tolist(),
            "dummies": self.selection.dummies.tolist(),
            "private_for_selected": bool(self.release.verdict.private),
            "private_for_original": bool(self.original_verdict.private),
        }


def _select_for(
    length: int,
    landmarks: Iterable[int] | None,
    epsilon_selection: float,
    method: str,
    metric: str | Metric,
    utility_sens: float | None,
    max_options: int | None,
    gen: np.random.Generator,
    progress: ProgressCallback | None,
) -> DummySelection:
    eps_sel = check_epsilon(epsilon_selection, "ε_sel")
    opts = dummy_options(length, landmarks, method, metric, max_options=max_options,
                         progress=progress)
    return select_option(opts, eps_sel, gen, utility_sens)


def release_series_with_dummies(
    values: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    epsilon_selection: float,
    scheme: str,
    mechanism: str = "laplace",
    sensitivity: float = 1.0,
    *,
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    selection_sensitivity: float | None = None,
    max_options: int | None = None,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    progress: ProgressCallback | None = None,
) -> DummyRelease:
    """Select ``L′`` privately (budget ``epsilon_selection``), then
    :func:`~lmdk_core.release.release_series` with ``L′`` as the landmark set
    (budget ``epsilon``). Total spent: ``ε_sel + ε`` by sequential composition."""
    x = np.asarray(values)
    if x.ndim != 1 or x.size == 0:
        raise InputError("the series is empty or not one column of numbers")
    eps = check_epsilon(epsilon)
    gen = as_generator(seed)
    sel = _select_for(x.size, landmarks, epsilon_selection, method, metric,
                      selection_sensitivity, max_options, gen, progress)
    rel = release_series(values, sel.selected, eps, scheme, mechanism, sensitivity, gen,
                         window, adaptive)
    return DummyRelease(sel, rel, verify(rel.epsilon_t, sel.options.landmarks, eps),
                        sel.epsilon, eps)


def release_trajectory_with_dummies(
    lat: ArrayLike,
    lon: ArrayLike,
    landmarks: Iterable[int] | None,
    epsilon: float,
    epsilon_selection: float,
    radius: float,
    scheme: str,
    *,
    method: str = "heuristic",
    metric: str | Metric = "gap_std",
    selection_sensitivity: float | None = None,
    max_options: int | None = None,
    seed: int | np.random.Generator | None = None,
    window: int | None = None,
    adaptive: AdaptiveSettings | None = None,
    progress: ProgressCallback | None = None,
) -> DummyRelease:
    """Select ``L′`` privately (budget ``epsilon_selection``), then
    :func:`~lmdk_core.release.release_trajectory` with ``L′`` (budget ``epsilon``,
    Planar Laplace with protection ``radius`` metres). Total: ``ε_sel + ε``."""
    la = np.asarray(lat)
    if la.ndim != 1 or la.size == 0:
        raise InputError("the trajectory is empty")
    eps = check_epsilon(epsilon)
    gen = as_generator(seed)
    sel = _select_for(la.size, landmarks, epsilon_selection, method, metric,
                      selection_sensitivity, max_options, gen, progress)
    rel = release_trajectory(lat, lon, sel.selected, eps, radius, scheme, gen, window, adaptive)
    return DummyRelease(sel, rel, verify(rel.epsilon_t, sel.options.landmarks, eps),
                        sel.epsilon, eps)
