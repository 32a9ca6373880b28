"""Landmark-set metrics: the number ``m(S)`` an option is judged by (the
``calcMetric``/``evalSeq`` of Katsomallos et al., CODASPY 2022), with its sensitivity for
the private selection."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable

import numpy as np

from lmdk_core.dummies.membership import (
    MEMBERSHIP_BLOCK_CELLS,
    check_series_length,
    membership_row,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks, check_positive

__all__ = ["METRICS", "FunctionMetric", "GapStd", "Metric", "NearestDistanceMean", "get_metric",
           "std_from_moments"]


class Metric(ABC):
    """A number computed from a landmark set ``S`` of a series of length ``T``.

    This is the ``calcMetric``/``evalSeq`` of Katsomallos et al. (CODASPY 2022).
    Subclasses implement :meth:`values` on a boolean membership matrix (one row per set,
    ``member[r, t]`` True when t is a landmark of set r); :meth:`with_added` may be overridden
    with an incremental formula. :meth:`sensitivity` returns a bound on ``|m(S) − m(S̃)|`` over
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
        T = check_series_length(length)
        lm = check_landmarks(landmarks, T)
        return float(self.values(membership_row(lm, T)[None, :])[0])

    def with_added(self, member: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Metric of ``S ∪ {c}`` for every candidate c (regular timestamps of ``S``).

        The default builds the candidate sets block-wise and calls :meth:`values`.
        """
        member = np.asarray(member, dtype=bool)
        cand = np.asarray(candidates, dtype=int)
        out = np.empty(cand.size)
        block = max(1, MEMBERSHIP_BLOCK_CELLS // max(1, member.size))
        for s in range(0, cand.size, block):
            c = cand[s : s + block]
            rows = np.repeat(member[None, :], c.size, axis=0)
            rows[np.arange(c.size), c] = True
            out[s : s + c.size] = self.values(rows)
        return out


def std_from_moments(sumsq: np.ndarray, count: np.ndarray, total: int) -> np.ndarray:
    """Population standard deviation of ``count`` numbers with sum ``total`` and sum of
    squares ``sumsq``, from exact integers (int64):
    ``sqrt(count·sumsq − total²) / count`` — so equal gap configurations give equal
    floats (the :class:`GapStd` metric, its incremental forms and the heuristic's greedy
    step; Katsomallos et al., CODASPY'22, "Dummy landmark generation").

    >>> std_from_moments(np.array([1 + 9]), np.array([2]), 4).tolist()  # gaps 1 and 3
    [1.0]
    """
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
        return std_from_moments((gaps * gaps).sum(axis=1), ext.sum(axis=1), T + 1)

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
        return std_from_moments(new, np.full(cand.size, gaps.size + 1), T + 1)

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
        T = check_series_length(length)
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
        T = check_series_length(length)
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
        value = s(check_series_length(length)) if callable(s) else s
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
