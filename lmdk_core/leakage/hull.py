r"""The exact build of ``L_P``: the upper convex hull of every row pair's prefix chain.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17, Theorems 4–5; TKDE'18): for rows ``q ≠ d`` of ``P``, the best
subset ``S`` is a prefix of the states sorted by ``q_j / d_j`` descending, so each pair
contributes its prefix points ``(D, Q) = (d(S), q(S))`` and

.. math::

    L_P(α) = \max_{(D, Q)} \log \frac{Q\,(e^α - 1) + 1}{D\,(e^α - 1) + 1}.

Only the upper convex hull of those points, up to the vertex with the largest
``Q − D``, can be optimal (docs/leakage-algorithm.md). This module is the readable
numpy reference: it sorts every pair (:func:`build_exact`); the pruned build of
:mod:`~lmdk_core.leakage.pruning` merges into the same :class:`Hull` but sorts only the
pairs that may reach it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

__all__ = ["COMPILED_MIN_POINTS", "Hull", "HullPoints", "build_exact", "chain_points",
           "chain_points_many", "hulls_many", "one_batch", "pair_batches", "upper_hull"]

#: point sets at least this large run :func:`upper_hull`'s loop compiled, when numba is
#: already loaded (a population batch loads it for its recursions): never loaded for it
COMPILED_MIN_POINTS = 64


def _chain(D, Q, keep):  # pragma: no cover - compiled by numba
    """The loop of :func:`upper_hull` on indices: ``keep[:m]`` the hull's points, m
    returned; the same comparisons of the same products, in the same order."""
    m = 0
    for i in range(D.size):
        d = D[i]
        q = Q[i]
        while m >= 2:
            a = keep[m - 2]
            b = keep[m - 1]
            if (D[b] - D[a]) * (q - Q[a]) - (Q[b] - Q[a]) * (d - D[a]) >= 0.0:
                m -= 1
            else:
                break
        keep[m] = i
        m += 1
    return m


def _relevant_hulls(D, Q, start, length, Ds, Qs, keep, out_len):  # pragma: no cover
    """:meth:`Hull.add` on an empty hull for every segment ``[start_s, start_s +
    length_s)`` of the points ``(D, Q)`` (compiled by numba): the point :func:`upper_hull`
    keeps of each D — the first of ``np.lexsort((−Q, D))``'s order, i.e. of a stable
    sort by D the first of the largest Q — in ascending D (into ``Ds, Qs`` from
    ``start_s``), :func:`_chain` on them (the hull's indices within the segment in
    ``keep`` from ``start_s``), then the hull's relevant part: the vertices up to the first largest
    ``Q − D`` (``np.argmax``), their number in ``out_len[s]``. The same comparisons of
    the same numbers, in the same order."""
    for s in range(start.size):
        lo = start[s]
        d = D[lo:lo + length[s]]
        q = Q[lo:lo + length[s]]
        order = np.argsort(d, kind="mergesort")  # stable: a D's points in their order
        w = 0
        r = 0
        while r < order.size:  # each run of one D: its first point of the largest Q
            i = order[r]
            pick = i
            r += 1
            while r < order.size and d[order[r]] == d[i]:
                if q[order[r]] > q[pick]:
                    pick = order[r]
                r += 1
            Ds[lo + w] = d[pick]
            Qs[lo + w] = q[pick]
            w += 1
        hd, hq, at = Ds[lo:lo + w], Qs[lo:lo + w], keep[lo:lo + w]
        m = _chain(hd, hq, at)  # the hull's indices in the segment
        best = 0
        top = hq[at[0]] - hd[at[0]]
        for j in range(1, m):
            v = hq[at[j]] - hd[at[j]]
            if v > top:
                top = v
                best = j
        out_len[s] = best + 1


#: the compiled loops, once numba is loaded (:func:`_when_numba_loaded`)
_COMPILED: dict[Callable, Callable | None] = {}


def _when_numba_loaded(loop: Callable) -> Callable | None:
    """``loop`` compiled (:func:`_chain` compiled into it:
    :func:`~lmdk_core.foundation.compiled_paths.compile_with_helpers`), or None while
    numba is not loaded: a hull never loads it, a population batch has loaded it for
    its recursions."""
    if loop not in _COMPILED and "numba" in sys.modules:
        from lmdk_core.foundation.compiled_paths import compile_with_helpers

        _COMPILED[loop] = compile_with_helpers(lambda _stamp: loop, [_chain], nogil=True)
    return _COMPILED.get(loop)


def _chain_kernel() -> Callable | None:
    """:func:`_chain` compiled, or None when numba is not loaded yet."""
    return _when_numba_loaded(_chain)


def _relevant_kernel() -> Callable | None:
    """:func:`_relevant_hulls` compiled, or None when numba is not loaded yet."""
    return _when_numba_loaded(_relevant_hulls)


class HullPoints(NamedTuple):
    """Points ``(D, Q)`` of the loss function's plane (Cao et al., ICDE 2017, Theorem 4):
    ``D`` the summed probabilities of a set of states under one row, ``Q`` under the
    other."""

    D: np.ndarray
    Q: np.ndarray


def upper_hull(D: np.ndarray, Q: np.ndarray) -> HullPoints:
    """Upper convex hull (Andrew's monotone chain) of points ``(D, Q)``, D ascending.

    Collinear middle points are dropped (they never give a strictly larger loss). Large
    point sets run the loop compiled (:func:`_chain`, the same comparisons) once numba is
    loaded; the result is the same either way (tests/engine/test_leakage_hull_compiled.py).

    Parameters
    ----------
    D, Q : array_like
        Coordinates of the points (same length).

    Returns
    -------
    HullPoints
        The hull's vertices ``(D, Q)``, D strictly ascending.

    Examples
    --------
    >>> D, Q = upper_hull([0.0, 0.5, 1.0, 0.25], [0.0, 1.0, 1.0, 0.2])
    >>> D.tolist(), Q.tolist()
    ([0.0, 0.5, 1.0], [0.0, 1.0, 1.0])
    """
    D = np.asarray(D, dtype=float)
    Q = np.asarray(Q, dtype=float)
    order = np.lexsort((-Q, D))
    D, Q = D[order], Q[order]
    first = np.concatenate(([True], D[1:] != D[:-1]))  # highest Q per D (not np.r_: ~20 µs)
    D, Q = D[first], Q[first]
    kernel = _chain_kernel() if D.size >= COMPILED_MIN_POINTS else None
    if kernel is not None:
        keep = np.empty(D.size, dtype=np.intp)
        m = kernel(D, Q, keep)
        return HullPoints(D[keep[:m]], Q[keep[:m]])
    hd: list[float] = []
    hq: list[float] = []
    for d, q in zip(D.tolist(), Q.tolist(), strict=True):
        while len(hd) >= 2 and (
            (hd[-1] - hd[-2]) * (q - hq[-2]) - (hq[-1] - hq[-2]) * (d - hd[-2]) >= 0.0
        ):
            hd.pop()
            hq.pop()
        hd.append(d)
        hq.append(q)
    return HullPoints(np.array(hd), np.array(hq))


class Hull:
    """The relevant upper hull: vertices from D = 0 up to the largest Q − D."""

    def __init__(self) -> None:
        self.D = np.zeros(1)
        self.Q = np.zeros(1)

    def height(self, D: np.ndarray) -> np.ndarray:
        """The hull's upper boundary; continued with slope 1 after the last vertex.

        A point on or below it is dominated for every slope λ >= 1, i.e. every α > 0.
        Over an edge with a subnormal ``D_b − D_a`` the slope overflows and ``np.interp``
        gives inf or nan (which dropped points of the hull): those heights are computed
        again through the fraction ``(D − D_a)/(D_b − D_a)`` in [0, 1].
        """
        hd, hq = self.D, self.Q
        with np.errstate(over="ignore", invalid="ignore"):
            h = np.interp(D, hd, hq)
        bad = ~np.isfinite(h)
        if np.any(bad):
            x = D[bad]
            a = np.clip(np.searchsorted(hd, x, side="right") - 1, 0, hd.size - 2)
            t = np.minimum((x - hd[a]) / (hd[a + 1] - hd[a]), 1.0)
            h[bad] = hq[a] + t * (hq[a + 1] - hq[a])
        right = D > hd[-1]
        if np.any(right):
            h[right] = hq[-1] + (D[right] - hd[-1])
        return h

    def add(self, D: np.ndarray, Q: np.ndarray) -> None:
        """Merge candidate points into the hull (points under it are dropped first)."""
        if D.size == 0:
            return
        up = Q > self.height(D)
        if not np.any(up):
            return
        hd, hq = upper_hull(np.concatenate(([0.0], self.D, D[up])),
                            np.concatenate(([0.0], self.Q, Q[up])))
        last = int(np.argmax(hq - hd))
        self.D, self.Q = hd[: last + 1], hq[: last + 1]

    def slopes(self) -> np.ndarray:
        """Slopes of the hull edges (descending)."""
        if self.D.size < 2:
            return np.zeros(0)
        with np.errstate(over="ignore"):  # an edge over a subnormal ΔD is vertical: inf
            return np.diff(self.Q) / np.diff(self.D)

    def sigma(self, lam: np.ndarray) -> np.ndarray:
        """Support function ``σ(λ) = max_v (Q_v − λ D_v)`` at each λ."""
        return np.max(self.Q[None, :] - lam[:, None] * self.D[None, :], axis=1)


def hulls_many(points: list[HullPoints]) -> list[HullPoints] | None:
    """``(hull.D, hull.Q)`` after ``hull = Hull(); hull.add(D, Q)`` for every ``(D, Q)``
    of ``points``, the same arrays bit for bit, all in one compiled call
    (:func:`_relevant_hulls`: each set's points above the empty hull's boundary with
    the hull's two (0, 0) vertices, sorted and cut to one per D as :func:`upper_hull`
    does, its upper hull and the hull's relevant part). None when numba is not loaded
    (the caller builds them one by one) or a coordinate is not finite."""
    kernel = _relevant_kernel()
    if kernel is None or not points:
        return None
    sizes = np.array([p.D.size for p in points], dtype=np.intp)
    D_all = np.concatenate([np.asarray(p.D, dtype=float) for p in points])
    Q_all = np.concatenate([np.asarray(p.Q, dtype=float) for p in points])
    if not (np.isfinite(D_all).all() and np.isfinite(Q_all).all()):
        return None
    up = Q_all > Hull().height(D_all)  # element-wise: each set's own test in Hull.add
    owner = np.repeat(np.arange(sizes.size), sizes)[up]
    counts = np.bincount(owner, minlength=sizes.size)
    live = np.flatnonzero(counts)
    out = [HullPoints(np.zeros(1), np.zeros(1)) for _ in range(sizes.size)]  # nothing above
    if not live.size:
        return out
    # each live set: (0, 0) twice (the new point and the empty hull's vertex), then its
    # points above, in their order
    lens = counts[live] + 2
    start = np.r_[0, np.cumsum(lens)[:-1]].astype(np.intp)
    D = np.zeros(int(lens.sum()))
    Q = np.zeros(D.size)
    where = np.cumsum(counts > 0) - 1  # a set's position among the live ones
    rank = np.arange(owner.size) - np.repeat(np.r_[0, np.cumsum(counts)[:-1]], counts)
    at = start[where[owner]] + 2 + rank
    D[at], Q[at] = D_all[up], Q_all[up]
    Ds, Qs = np.empty(D.size), np.empty(D.size)
    keep = np.empty(D.size, dtype=np.intp)
    out_len = np.empty(live.size, dtype=np.intp)
    kernel(D, Q, start, lens.astype(np.intp), Ds, Qs, keep, out_len)
    for j, i in enumerate(live.tolist()):
        idx = start[j] + keep[start[j]:start[j] + out_len[j]]
        out[i] = HullPoints(Ds[idx], Qs[idx])
    return out


def chain_points(P: np.ndarray, ii: np.ndarray, kk: np.ndarray) -> HullPoints:
    """All prefix points (D, Q) of the row pairs (P[ii], P[kk]) over states with q > d.

    States are sorted by q_j/d_j descending (Cao's Theorem 4), i.e. by d_j/q_j
    ascending (no infinity for d_j = 0). One ``np.sort`` of int64 keys does it: the
    bits of the non-negative float d_j/q_j (monotone as integers) with the state index
    in the lowest ``b`` bits (``2^b >= n``). That can reorder only ratios within
    ``2^b`` ulps of each other; every prefix is still a real subset S, so the result
    never exceeds the true maximum and falls short of it by ~``n·2^b`` ulps at most.
    (For subnormal ratios the ulps are absolute: such prefixes have ``D < 2^-1022`` and
    only matter where ``D·(e^α − 1)`` is not negligible, i.e. for α beyond ~670.)
    """
    q = P[ii]
    d = P[kk]
    B, n = q.shape
    pos = q > d
    npos = pos.sum(axis=1)
    width = int(npos.max()) if npos.size else 0
    if width == 0:
        return HullPoints(np.zeros(0), np.zeros(0))
    key = np.full((B, n), 2.0)
    np.divide(d, q, out=key, where=pos)
    bits = max(1, int(n - 1).bit_length())
    mask = (1 << bits) - 1
    packed = key.view(np.int64)
    packed &= ~np.int64(mask)
    packed |= np.arange(n, dtype=np.int64)[None, :]
    packed.sort(axis=1)
    idx = packed[:, :width] & np.int64(mask)
    idx += (np.arange(B, dtype=np.int64) * n)[:, None]
    Qc = np.cumsum(q.ravel()[idx], axis=1)
    Dc = np.cumsum(d.ravel()[idx], axis=1)
    sel = np.arange(width)[None, :] < npos[:, None]
    return HullPoints(Dc[sel], Qc[sel])


def chain_points_many(matrices: list[np.ndarray]) -> list[HullPoints]:
    """:func:`chain_points` of every ordered pair of distinct rows, for each of several
    ``n × n`` matrices (the same n), in one call on their stacked rows: each row pair is
    sorted and summed on its own, so every matrix gets the points (and their order) of
    its own call, bit for bit."""
    if not matrices:
        return []
    n = matrices[0].shape[0]
    ii, kk = np.nonzero(~np.eye(n, dtype=bool))
    shift = (np.arange(len(matrices)) * n)[:, None]
    P = np.concatenate(matrices)
    rows_q, rows_d = (ii + shift).ravel(), (kk + shift).ravel()
    D, Q = chain_points(P, rows_q, rows_d)
    per_matrix = (P[rows_q] > P[rows_d]).sum(axis=1).reshape(len(matrices), -1).sum(axis=1)
    cut = np.cumsum(per_matrix)[:-1]
    return [HullPoints(d, q) for d, q in zip(np.split(D, cut), np.split(Q, cut),
                                             strict=True)]


def one_batch(n: int, memory_elements: int = 1 << 21) -> bool:
    """Whether :func:`build_exact` sorts all ``n(n − 1)`` pairs of an ``n``-state matrix
    in one batch of :func:`pair_batches` (n <= 16 at the default memory)."""
    full = max(1, memory_elements // max(n, 1))
    return n * (n - 1) <= max(1, min(full, 4096 // max(n, 1) + 1))


def pair_batches(pairs_i: np.ndarray, pairs_k: np.ndarray, n: int,
                 budget: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (ii, kk) batches whose B×n work arrays stay within ``budget`` elements.

    The first batches are small so that the hull is tight before big batches arrive.
    """
    total = pairs_i.size
    full = max(1, budget // max(n, 1))
    size = max(1, min(full, 4096 // max(n, 1) + 1))
    start = 0
    while start < total:
        stop = min(total, start + size)
        yield pairs_i[start:stop], pairs_k[start:stop]
        start = stop
        size = min(full, size * 4)


def build_exact(P: np.ndarray, hull: Hull, memory_elements: int) -> int:
    """Merge the prefix chains of every ordered pair of distinct rows into ``hull``.

    ``O(n³ log n)`` time, work arrays of at most ``memory_elements`` floats. Returns the
    number of pairs sorted, ``n(n − 1)``.
    """
    n = P.shape[0]
    ii, kk = np.nonzero(~np.eye(n, dtype=bool))
    for bi, bk in pair_batches(ii, kk, n, memory_elements):
        hull.add(*chain_points(P, bi, bk))
    return int(ii.size)
