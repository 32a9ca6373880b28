"""The optimal chain of options (Algorithm 1, "Optimal dummy landmark set options
selection", of Katsomallos et al., "Landmark privacy", CODASPY 2022): exact, by branch and
bound on the lattice of sets reached, memoisation and a meet-in-the-middle join."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from lmdk_core.dummies.chain import DummyOptions, ProgressCallback, notify, prepare_chain
from lmdk_core.dummies.heuristic import heuristic_options
from lmdk_core.dummies.membership import MEMBERSHIP_BLOCK_CELLS, membership_row
from lmdk_core.dummies.metrics import Metric, get_metric
from lmdk_core.foundation.errors import InputError

__all__ = ["OPTIMAL_MAX_REGULAR", "optimal_options"]

#: Largest number of regular timestamps ``R = T − |L|`` the optimal search accepts.
#: The search space holds ``R!`` chains (12! ≈ 4.8e8). Measured on one laptop core at
#: R = 12: ≈ 0.01 s when m(L) lies outside the range of chain means (settled by the
#: bounds), ≈ 0.3 s and < 100 MB for the hardest inputs found (built-in metrics with
#: m(L) inside that range, or a custom metric with random values per set, where
#: nothing can be pruned or merged). R = 13 needs ≈ 3x the time and memory, R = 14
#: ≈ 4 s and ≈ 0.6 GB.
OPTIMAL_MAX_REGULAR = 12


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
    landmarks: Iterable[int] | None,
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
    T, lm, regular = prepare_chain(length, landmarks)
    met = get_metric(metric)
    R = regular.size
    if R > OPTIMAL_MAX_REGULAR:
        raise InputError(
            f"the optimal search is limited to {OPTIMAL_MAX_REGULAR} regular timestamps "
            f"(it examines R! chains); this series has R = T − |L| = {R}. Use the heuristic "
            "method, or a shorter series / more landmarks"
        )
    lat = _Lattice.of(R)
    # 1. metric of every reachable set (mask 0 is L itself)
    notify(progress, 0.0, f"evaluating the metric of {lat.full + 1} sets")
    mvals = _set_metrics(T, lm, regular, met, lat)
    chain = _optimal_chain(mvals, lat, lambda: _heuristic_chain(T, lm, met, regular), progress)
    notify(progress, 1.0, "done")
    return DummyOptions(T, lm, _chain_to_added(regular, chain), mvals[np.asarray(chain)],
                        float(mvals[0]), met, "optimal")


def _optimal_chain(mvals: np.ndarray, lat: _Lattice, heuristic: Callable[[], list[int]],
                   progress: ProgressCallback | None) -> list[int]:
    """Steps 2–4 of :func:`optimal_options`: the chain of masks whose sum of ``mvals`` is
    closest to ``R·m(L)``; ``heuristic()`` gives the starting upper bound."""
    R = lat.R
    target = R * float(mvals[0])  # compare sums instead of means
    # 2. exact bounds; the target outside every chain's reach: the extreme chain is optimal
    b = _chain_bounds(mvals, lat)
    if target >= b.max_c[0]:
        return _extreme_chain(mvals, b.max_c, lat, use_max=True)
    if target <= b.min_c[0]:
        return _extreme_chain(mvals, b.min_c, lat, use_max=False)
    # 3. upper bound from the heuristic chain
    best_chain = heuristic()
    best = float(abs(mvals[np.asarray(best_chain)].sum() - target))
    scale = max(1.0, float(np.abs(mvals).max()) * R, abs(target))
    if best <= 1e-9 * scale:
        return best_chain
    # 4. meet in the middle
    found = _meet_in_the_middle(mvals, lat, b, _Goal(target, best, 1e-9 * scale,
                                                      1e-12 * scale), progress)
    return best_chain if found is None else found


@dataclass(frozen=True)
class _Goal:
    """What the search aims at: the ``target`` sum, the ``best`` distance found so far,
    the tolerance ``tol`` of a tie and the ``quantum`` under which sums merge."""

    target: float
    best: float
    tol: float
    quantum: float


def _meet_in_the_middle(mvals: np.ndarray, lat: _Lattice, b: _Bounds, goal: _Goal,
                        progress: ProgressCallback | None) -> list[int] | None:
    """Step 4 of :func:`optimal_options`: the partial sums forwards from L to level
    ``h = R // 2`` and backwards from T to it, joined there; the best chain, or None when
    none beats ``goal.best``."""
    R, h = lat.R, lat.R // 2
    tick = _ticker(progress, R, h)
    limit = goal.best + goal.tol
    # 4a. forward: sums of m over levels 1..|S| of the chains reaching S (incl. m(S))
    fwd = _half_search(lat, mvals, 0, [(f"forward search, level {j} of {h}", lat.levels[j])
                                       for j in range(1, h + 1)],
                       forward=True, lo=b.min_c, hi=b.max_c, target=goal.target, limit=limit,
                       quantum=goal.quantum, tick=tick)
    # 4b. backward: sums of m over levels |S|+1..R of the chains from S to T
    bwd = _half_search(lat, mvals, lat.full,
                       [(f"backward search, level {R - j} of {R - h}", lat.levels[j])
                        for j in range(R - 1, h - 1, -1)],
                       forward=False, lo=b.min_p, hi=b.max_p, target=goal.target, limit=limit,
                       quantum=goal.quantum, tick=tick)
    # 4c. join at level h
    found = _join(lat.levels[h], fwd, bwd, goal.target, goal.best, goal.tol, tick)
    return None if found is None else _trace_chain(found, fwd, bwd, lat.full)


@dataclass(frozen=True)
class _Lattice:
    """The sets reachable from L, as bitmasks of the R regular timestamps added."""

    R: int
    full: int
    masks: np.ndarray
    pow2: np.ndarray
    has: np.ndarray
    levels: list[np.ndarray]

    @classmethod
    def of(cls, R: int) -> _Lattice:
        full = (1 << R) - 1
        masks = np.arange(full + 1, dtype=np.int64)
        pow2 = np.int64(1) << np.arange(R, dtype=np.int64)
        has = (masks[:, None] & pow2) != 0
        pop = has.sum(axis=1)
        return cls(R, full, masks, pow2, has, [masks[pop == j] for j in range(R + 1)])


def _set_metrics(T: int, lm: np.ndarray, regular: np.ndarray, met: Metric,
                 lat: _Lattice) -> np.ndarray:
    """The metric of all ``2^R`` sets, evaluated block-wise."""
    base = membership_row(lm, T)
    mvals = np.empty(lat.full + 1)
    block = max(1, MEMBERSHIP_BLOCK_CELLS // T)
    for s in range(0, lat.full + 1, block):
        rows = np.repeat(base[None, :], min(block, lat.full + 1 - s), axis=0)
        rows[:, regular] = lat.has[s : s + rows.shape[0]]
        mvals[s : s + rows.shape[0]] = met.values(rows)
    return mvals


@dataclass(frozen=True)
class _Bounds:
    """Per set S: the smallest/largest sum a chain can still collect after reaching S
    (levels |S|+1..R: ``min_c``, ``max_c``) and collect to reach it (1..|S|: ``min_p``,
    ``max_p``)."""

    min_c: np.ndarray
    max_c: np.ndarray
    min_p: np.ndarray
    max_p: np.ndarray


def _chain_bounds(mvals: np.ndarray, lat: _Lattice) -> _Bounds:
    """Exact bounds by dynamic programming over the levels."""
    R, pow2, levels = lat.R, lat.pow2, lat.levels
    min_c = np.zeros(lat.full + 1)
    max_c = np.zeros(lat.full + 1)
    for j in range(R - 1, -1, -1):
        S = levels[j]
        nb = S[:, None] | pow2
        ok = (S[:, None] & pow2) == 0
        min_c[S] = np.where(ok, mvals[nb] + min_c[nb], np.inf).min(axis=1)
        max_c[S] = np.where(ok, mvals[nb] + max_c[nb], -np.inf).max(axis=1)
    min_p = np.zeros(lat.full + 1)
    max_p = np.zeros(lat.full + 1)
    for j in range(1, R + 1):
        S = levels[j]
        pb = S[:, None] & ~pow2
        ok = (S[:, None] & pow2) != 0
        min_p[S] = mvals[S] + np.where(ok, min_p[pb], np.inf).min(axis=1)
        max_p[S] = mvals[S] + np.where(ok, max_p[pb], -np.inf).max(axis=1)
    return _Bounds(min_c, max_c, min_p, max_p)


def _chain_to_added(regular: np.ndarray, chain_masks: list[int]) -> np.ndarray:
    """The regular timestamp added at each step of a chain of masks."""
    prev, bits = 0, []
    for mk in chain_masks:
        bits.append(int(mk ^ prev).bit_length() - 1)
        prev = mk
    return regular[np.asarray(bits, dtype=int)]


def _extreme_chain(mvals: np.ndarray, bound: np.ndarray, lat: _Lattice,
                   use_max: bool) -> list[int]:
    """The chain of the largest (``use_max``) or smallest sum, following ``bound``."""
    S, chain = 0, []
    while S != lat.full:
        cand = [S | (1 << b) for b in range(lat.R) if not S >> b & 1]
        score = [mvals[c] + bound[c] for c in cand]
        S = cand[int(np.argmax(score) if use_max else np.argmin(score))]
        chain.append(S)
    return chain


def _heuristic_chain(T: int, lm: np.ndarray, met: Metric, regular: np.ndarray) -> list[int]:
    """The heuristic's chain as masks: its objective bounds the optimum from above."""
    heur = heuristic_options(T, lm, met)
    index_of = {int(r): b for b, r in enumerate(regular)}
    chain, S = [], 0
    for r in heur.added:
        S |= 1 << index_of[int(r)]
        chain.append(S)
    return chain


def _ticker(progress: ProgressCallback | None, R: int, h: int) -> Callable[[str], None]:
    """``tick(message)``: one unit of the search done; reports about 50 times in all."""
    total_units = sum(math.comb(R, j) for j in range(1, h + 1))
    total_units += sum(math.comb(R, j) for j in range(h, R)) + math.comb(R, h)
    units, every = 0, max(1, total_units // 50)

    def tick(message: str) -> None:
        nonlocal units
        units += 1
        if units % every == 0:
            notify(progress, units / total_units, message)

    return tick


def _half_search(lat: _Lattice, mvals: np.ndarray, start: int,
                 stages: list[tuple[str, np.ndarray]], *, forward: bool, lo: np.ndarray,
                 hi: np.ndarray, target: float, limit: float, quantum: float,
                 tick: Callable[[str], None]) -> dict[int, _Level]:
    """Partial sums of the chains through each set of ``stages``, merged when equal.

    Forward (from L, ``start`` = 0): the sums over levels 1..|S| of the chains reaching
    S, each extending a set one bit smaller. Backward (from T, ``start`` = full): the
    sums over levels |S|+1..R of the chains from S, each extending a set one bit larger.
    A partial sum is kept when the rest of a chain (bounds ``lo``, ``hi`` at S) can
    still bring the total within ``limit`` of ``target``."""
    table: dict[int, _Level] = {
        start: _Level(np.zeros(1), np.zeros(1, np.int8), np.zeros(1, np.int32))
    }
    for message, sets in stages:
        for S in sets.tolist():
            ext = _extensions(lat, mvals, table, S, forward)
            tick(message)
            if ext is None:
                continue
            vals, bits, idxs = ext
            keep = _interval_distance(target - vals, lo[S], hi[S]) <= limit
            if keep.any():
                table[S] = _dedup(vals[keep], bits[keep], idxs[keep], quantum)
    return table


def _extensions(lat: _Lattice, mvals: np.ndarray, table: dict[int, _Level], S: int,
                forward: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The partial sums reaching ``S`` from its neighbours one bit away already in
    ``table`` (smaller sets forwards, larger backwards): ``(sums, bit, index in the
    neighbour's level)``, or None when no neighbour is reached."""
    parts, bits, idxs = [], [], []
    for b in range(lat.R):
        if forward:
            ok, other = S >> b & 1, S ^ (1 << b)
        else:
            ok, other = not S >> b & 1, S | (1 << b)
        if ok and other in table:
            near = table[other]
            parts.append(near.vals + mvals[S if forward else other])
            bits.append(np.full(near.vals.size, b, np.int8))
            idxs.append(np.arange(near.vals.size, dtype=np.int32))
    if not parts:
        return None
    return np.concatenate(parts), np.concatenate(bits), np.concatenate(idxs)


def _join(middle: np.ndarray, fwd: dict[int, _Level], bwd: dict[int, _Level], target: float,
          best: float, tol: float,
          tick: Callable[[str], None]) -> tuple[int, int, int] | None:
    """The best pair of halves meeting at a set of the middle level, by binary search:
    (set, index in its forward level, index in its backward level), or None when no
    pair beats ``best``."""
    found = None
    for S in middle.tolist():
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
    return found


def _trace_chain(found: tuple[int, int, int], fwd: dict[int, _Level],
                 bwd: dict[int, _Level], full: int) -> list[int]:
    """The chain of masks through the joined halves, from L's first option to T."""
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
    return first_half[::-1] + second_half

