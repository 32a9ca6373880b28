r"""The pruned build of ``L_P``: sort only the row pairs that may reach the hull.

Cao, Yoshikawa, Xiao, Xiong (ICDE'17 / TKDE'18) take the maximum over all ``n(n − 1)``
ordered row pairs. A pair whose support function
``σ_pair(λ) = Σ_j max(q_j − λ d_j, 0)`` stays under the hull's
``σ(λ) = max_v (Q_v − λ D_v)`` for every ``λ >= 1`` cannot raise ``L_P`` and need not be
sorted. The steps, each a function below (derivation and rounding bounds in
docs/leakage-algorithm.md):

1. bounds every pair gets cheaply: ``Z`` (the mass on ``d_j < 2⁻¹⁰⁰⁰``, bounds σ for
   ``λ >= S``, the largest finite ratio) and ``TV`` (σ at 1, a float32 kernel);
2. seeds (largest ``TV``, largest ``Z``, each column's largest ratio) sorted exactly
   into a first hull;
3. a grid of slopes ``S = λ_0 > … > λ_G = 1`` from that hull, each bounded by the sparse
   walk or the dense kernel (:mod:`~lmdk_core.leakage.kernels`, numba);
4. every pair's bounds tested against the hull (``σ_pair`` is convex: its chord on each
   grid interval bounds it), first on a few float32 slopes, then all in float64;
5. the survivors sorted by decreasing ``TV``, each batch re-tested against the hull
   as grown so far.

Importing this module imports numba (through the kernels); :mod:`~lmdk_core.leakage.loss`
imports it only where the pruned build pays (``loss._prune_pays``: by measured costs,
from about 290 states in a fresh process, from 53 once the kernels are loaded).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from lmdk_core.leakage import kernels
from lmdk_core.leakage.hull import Hull, chain_points, pair_batches
from lmdk_core.leakage.kernels import DENSE, SPARSE, TV, ZERO

__all__ = ["HullTest", "Scanner", "build_pruned"]

_U = 2.0**-53  # unit roundoff of float64
_U32 = 2.0**-24  # unit roundoff of float32
#: relative slack accepted when discarding a pair: changes L_P by at most ~1e-11.
_PRUNE_RTOL = 1e-11
#: from this many states on, the heavy numpy parts run in two threads (they release the GIL).
_THREADS_N = 256
#: probabilities below this count as zeros in the bound Z (a ratio q_j / d_j < 2^1000)
_CUT = 2.0**-1000
#: rows sampled to choose the first-stage slopes
_SAMPLE_ROWS = 8
#: cost of a float64 pass (second stage, rows one by one) in float32 passes
_F64_PASS = 2.5
#: a slope is walked sparsely while at most n³/_SPARSE_DIV triples lie under it
_SPARSE_DIV = 32


def build_pruned(P: np.ndarray, hull: Hull, memory_elements: int) -> int:
    """Build the hull streaming over all row pairs, sorting only pairs that may matter.

    Parameters
    ----------
    P : numpy.ndarray
        A validated row-stochastic matrix (n × n, n >= 2).
    hull : Hull
        The hull to grow (normally empty).
    memory_elements : int
        Size (in float64 elements) of the per-chunk work arrays.

    Returns
    -------
    int
        The number of pairs whose prefix chains were sorted.
    """
    n = P.shape[0]
    P = np.ascontiguousarray(P, dtype=np.float64)
    pool = ThreadPoolExecutor(max_workers=2) if n >= _THREADS_N else None
    try:
        M = _matrix(P)
        Z, S = _zero_mass_bound(P)
        TV = _total_variation(M, pool)
        seeded, sorted_pairs = _seed_hull(P, hull, Z, TV, memory_elements)
        VsT, IsT = _sorted_columns(P)
        grid = _grid(*_choose_grid(VsT, hull, S, M.coef * float(M.fs.max())))
        test = HullTest(hull, grid.lam)
        scan = Scanner(kernels.Scan(M, grid, Z, TV, VsT, IsT, seeded), test)
        si, sk, ss = _survivors(scan, test, pool, memory_elements)
        return sorted_pairs + _sort_survivors(P, hull, test, grid.lam, si, sk, ss,
                                              memory_elements, pool is not None)
    finally:
        if pool is not None:
            pool.shutdown()


def _run(pool: ThreadPoolExecutor | None, fn: Callable, parts: list) -> list:
    """``fn`` over ``parts``, in the worker threads when there are any (kernels drop the GIL)."""
    if pool is None:
        return [fn(p) for p in parts]
    return list(pool.map(fn, parts))


def _row_blocks(n: int, size: int) -> list[np.ndarray]:
    return [np.arange(a, min(n, a + size)) for a in range(0, n, max(1, size))]


def _matrix(P: np.ndarray) -> kernels.Matrix:
    """``P``, its float32 copy and the rounding allowances of the kernels' sums."""
    n = P.shape[0]
    fs = np.array([math.fsum(row) for row in P.tolist()])  # exactly rounded row sums
    # float32 copy, subnormals flushed to zero (within the bound's underflow term; they
    # would send every multiply through the processor's slow subnormal path)
    P32 = P.astype(np.float32)
    P32[P32 < np.finfo(np.float32).tiny] = 0.0
    return kernels.Matrix(P, P32, fs, (n + 8) * 2 * _U, (n + 8) * 2 * _U32)


def _zero_mass_bound(P: np.ndarray) -> tuple[np.ndarray, float]:
    """``Z`` and ``S``: ``Z[i, k] = Σ_j P_ij [P_kj < c]`` bounds σ_pair(λ) for every
    ``λ >= S``, the largest ratio ``P_ij / P_kj`` with ``P_kj >= c = 2⁻¹⁰⁰⁰`` (no chain
    edge is steeper); ``Z`` is the mass on ``d_j = 0`` and on the ``d_j`` so small that
    ``q_j / d_j`` could overflow."""
    tiny = P < _CUT
    Z = P @ tiny.T.astype(float)
    np.fill_diagonal(Z, 0.0)
    colmax = P.max(axis=0)
    colmin = np.where(tiny, np.inf, P).min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratios = colmax / colmin
    ratios = ratios[np.isfinite(ratios)]
    S = max(float(ratios.max()) if ratios.size else 1.0, 1.0)
    return Z, S


def _total_variation(M: kernels.Matrix, pool: ThreadPoolExecutor | None) -> np.ndarray:
    """``TV[i, k] >= σ_pair(1)``, the total variation distance (float32 kernel, upper
    bound); −1 on the diagonal."""
    n = M.P.shape[0]
    TV = np.empty((n, n))
    blocks = _row_blocks(n, max(kernels.BLOCK, n // (8 * (2 if pool is not None else 1))))
    _run(pool, lambda rows: kernels.tv_rows(M.P32, M.fs, M.coef32, rows, TV), blocks)
    np.fill_diagonal(TV, -1.0)
    return TV


def _seed_hull(P: np.ndarray, hull: Hull, Z: np.ndarray, TV: np.ndarray,
               memory_elements: int) -> tuple[np.ndarray, int]:
    """Sort the pairs most likely on the hull into it — largest TV, largest Z, and for
    every state the pair with the largest ratio in that state's column. Returns which
    pairs were sorted (n × n) and how many."""
    n = P.shape[0]
    m = min(n * (n - 1), 2 * n)
    flat_tv = np.argpartition(TV.ravel(), -m)[-m:]
    flat_z = np.argpartition(Z.ravel(), -m)[-m:]
    flat_z = flat_z[Z.ravel()[flat_z] > 0.0]  # (none for a matrix without zeros)
    ci = P.argmax(axis=0)
    ck = np.where(P > 0, P, np.inf).argmin(axis=0)
    seeds = np.unique(np.concatenate([flat_tv, flat_z, ci * n + ck]))
    si, sk = np.divmod(seeds, n)
    ok = si != sk
    si, sk = si[ok], sk[ok]
    order = np.argsort(-TV[si, sk], kind="stable")
    si, sk = si[order], sk[order]
    for bi, bk in pair_batches(si, sk, n, memory_elements):
        hull.add(*chain_points(P, bi, bk))
    seeded = np.zeros((n, n), dtype=np.bool_)
    seeded[si, sk] = True
    return seeded, int(si.size)


def _sorted_columns(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns sorted ascending, one column per row, and the row of each entry (the
    walk of the sparse slopes)."""
    Is = np.argsort(P, axis=0, kind="stable")
    VsT = np.ascontiguousarray(np.take_along_axis(P, Is, axis=0).T)
    IsT = np.ascontiguousarray(Is.T, dtype=np.int32)
    return VsT, IsT


def _float32_below(lam: np.ndarray) -> np.ndarray:
    """The largest float32 <= each λ (capped at 1e30): σ there bounds σ(λ) from above."""
    lam32 = np.minimum(lam, 1e30).astype(np.float32)
    high = lam32.astype(np.float64) > lam
    lam32[high] = np.nextafter(lam32[high], np.float32(0.0))
    return lam32


def _grid(lam: np.ndarray, kind: np.ndarray) -> kernels.Grid:
    return kernels.Grid(lam, _float32_below(lam), kind, np.flatnonzero(kind == SPARSE))


def _choose_grid(VsT: np.ndarray, hull: Hull, S: float, allowance: float,
                 max_inner: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Slopes at which every pair's σ is bounded, and how: S (from Z), inner slopes, 1.

    Inner slopes are hull edge slopes spread evenly in log λ. Each is bounded exactly
    from the triples with ``λ P_kj < P_ij`` when there are few of them (large λ, sparse
    walk), else by the dense kernel when its rounding ``allowance`` is negligible against
    the hull's σ(λ), else skipped.
    """
    n = VsT.shape[0]
    if S <= 1.0:  # every ratio (d_j >= c) is 1: σ_pair(λ) <= Z for all λ >= 1
        return np.array([1.0]), np.array([ZERO])
    sl = hull.slopes()
    sl = np.unique(sl[(sl > 1.0 + 1e-9) & (sl < S * (1 - 1e-9))])
    if sl.size > max_inner:
        # half spread evenly in log λ, half evenly along the hull (by kink index)
        half = max(1, max_inner // 2)
        targets = np.linspace(np.log(sl[0]), np.log(sl[-1]), half)
        by_log = np.searchsorted(np.log(sl), targets).clip(0, sl.size - 1)
        by_index = np.linspace(0, sl.size - 1, max_inner - half + 2).round().astype(int)[1:-1]
        sl = sl[np.unique(np.r_[by_log, by_index])]
    inner: list[float] = []
    kinds: list[int] = []
    sigma_h = hull.sigma(sl) if sl.size else np.zeros(0)
    limit = max(8 * n * n, n**3 // _SPARSE_DIV)
    for lam, sh in zip(sl[::-1].tolist(), sigma_h[::-1].tolist(), strict=True):
        if kernels.count_triples(VsT, lam, limit) <= limit:
            inner.append(lam)
            kinds.append(SPARSE)
        elif allowance <= 1e-7 * sh:
            inner.append(lam)
            kinds.append(DENSE)
    return np.array([S, *inner, 1.0]), np.array([ZERO, *kinds, TV])


class HullTest:
    """Sound dominance test of a pair from upper bounds of its σ on a grid of slopes.

    ``σ_pair`` is convex in λ, so on each grid interval it lies under the chord of its
    grid values; ``σ_hull`` is convex and piecewise linear with kinks at the hull's edge
    slopes, so chord − σ_hull is concave on the interval and linear between check points
    (the grid and the kinks in [1, S]); its maximum is at the check point where the hull's
    active ``D`` passes the chord's slope (binary search in :func:`kernels.dominated`), so
    one pair costs ``O(G log C)`` instead of ``O(G C)``. Beyond S, ``σ_pair <= Z`` (the
    bound at S) is tested against ``σ_hull(∞)``, the hull's Q at D = 0.
    """

    def __init__(self, hull: Hull, grid: np.ndarray) -> None:
        S = grid[0]
        hd, hq = hull.D, hull.Q
        with np.errstate(over="ignore"):  # vertical edges (subnormal ΔD): inf, filtered
            kinks = np.diff(hq) / np.diff(hd) if hd.size > 1 else np.zeros(0)
        lam = np.unique(np.r_[grid, kinks[(kinks >= 1.0) & (kinks <= S)]])[::-1]
        sig = np.empty(lam.size)
        for a in range(0, lam.size, 256):
            part = lam[a : a + 256]
            sig[a : a + 256] = np.max(hq[None, :] - part[:, None] * hd[None, :], axis=1)
        # At the top slope S the bound is Z, which bounds σ_pair for every λ >= S; the
        # hull's σ decreases towards its value at D = 0, σ_hull(∞) = Q_0.
        sig[0] = min(sig[0], hq[0] if hd[0] == 0.0 else 0.0)
        # (1 + slack)·D of the vertex active between check points c and c + 1: the hull's
        # σ has slope −D there (non-decreasing in c; made monotone against rounding)
        act = np.zeros(lam.size)
        if lam.size > 1:
            mid = 0.5 * (lam[:-1] + lam[1:])
            for a in range(0, mid.size, 256):
                part = mid[a : a + 256]
                v = np.argmax(hq[None, :] - part[:, None] * hd[None, :], axis=1)
                act[a : a + part.size] = hd[v]
            act[:-1] = np.maximum.accumulate(act[:-1])
        act[-1] = np.inf
        #: check points (descending), (1 + slack)·σ_hull there, the active D's and the
        #: position of each grid point among the check points
        self.points = kernels.Checks(lam, sig * (1.0 + _PRUNE_RTOL), act * (1.0 + _PRUNE_RTOL),
                                     np.searchsorted(-lam, -grid).astype(np.int64))
        self.all = np.arange(grid.size, dtype=np.int64)

    def dominated(self, sig: np.ndarray, gi: np.ndarray | None = None) -> np.ndarray:
        """True for pairs (rows of ``sig``, shape (m, G)) that cannot raise L_P.

        ``gi``: test only these grid points (a coarser grid, still sound).
        """
        gi = self.all if gi is None else gi
        out = np.empty(sig.shape[0], dtype=np.bool_)
        kernels.dominated_rows(np.ascontiguousarray(sig), gi, self.points.gpos[gi],
                               self.points, out)
        return out


class Scanner:
    """The compiled scan of rows (:func:`kernels.scan_rows`) with its fixed arguments."""

    def __init__(self, fixed: kernels.Scan, test: HullTest) -> None:
        self.fixed = fixed
        self.test = test

    def __call__(self, rows: np.ndarray, first: np.ndarray, second: np.ndarray,
                 gi1: np.ndarray, emit_all: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs (i in ``rows``, any k) that pass the tests: (i, k, grid bounds)."""
        n = self.fixed.M.P.shape[0]
        G = self.fixed.grid.lam.size
        cap = rows.size * n
        oi = np.empty(cap, dtype=np.int64)
        ok = np.empty(cap, dtype=np.int64)
        osig = np.empty((cap, G))
        gi1 = gi1.astype(np.int64)
        stage = kernels.Stage(first.astype(np.int64), second.astype(np.int64), gi1,
                              self.test.points.gpos[gi1])
        c = kernels.scan_rows(self.fixed, self.test.points, stage, rows.astype(np.int64),
                              emit_all, oi, ok, osig)
        return oi[:c].copy(), ok[:c].copy(), osig[:c].copy()


def _first_stage(scan: Scanner, kind: np.ndarray, dense: np.ndarray, checks: HullTest,
                 n: int) -> np.ndarray:
    """The dense slopes bounded for every pair before the first test (the rest only for
    the pairs that pass it), chosen on a sample of rows to minimise the expected cost
    ``|first| + w·|rest|·(fraction passing)`` in float32 passes (a float64 pass of the
    second stage costs ``w`` of them): starting from all dense slopes, drop the one
    whose loss lets the fewest extra pairs pass, and so on."""
    if dense.size <= 1:
        return dense
    rows = np.unique(np.linspace(0, n - 1, min(n, _SAMPLE_ROWS)).round().astype(np.int64))
    _, _, vals = scan(rows, dense, dense[:0], np.arange(kind.size), True)
    if vals.shape[0] == 0:
        return dense
    base = np.flatnonzero(kind != DENSE)

    def passing(sel: list[int]) -> float:
        gi = np.sort(np.r_[base, sel]).astype(np.int64)
        return float(np.mean(~checks.dominated(vals, gi)))

    current = dense.tolist()
    best, best_cost = list(current), float(len(current))
    while current:
        frac, drop = min((passing([g for g in current if g != d]), d) for d in current)
        current.remove(drop)
        cost = len(current) + _F64_PASS * (dense.size - len(current)) * frac
        if cost < best_cost:
            best, best_cost = list(current), cost
        if frac >= 0.5:  # fewer slopes only get worse from here
            break
    return np.array(sorted(best), dtype=np.int64)


def _survivors(scan: Scanner, test: HullTest, pool: ThreadPoolExecutor | None,
               memory_elements: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs that pass the staged test (rows, columns, grid bounds), by decreasing
    bound at λ = 1 (the total variation)."""
    grid = scan.fixed.grid
    n = scan.fixed.M.P.shape[0]
    G = grid.lam.size
    dense = np.flatnonzero(grid.kind == DENSE)
    first = _first_stage(scan, grid.kind, dense, test, n)
    second = np.setdiff1d(dense, first)
    gi1 = np.sort(np.r_[np.flatnonzero(grid.kind != DENSE), first])
    per = max(1, min(n, memory_elements // max(n * (G + 2), 1)))
    found = _run(pool, lambda rows: scan(rows, first, second, gi1, False),
                 _row_blocks(n, per))
    si = np.concatenate([f[0] for f in found])
    sk = np.concatenate([f[1] for f in found])
    ss = np.concatenate([f[2] for f in found])
    del found
    order = np.argsort(-ss[:, -1], kind="stable")
    return si[order], sk[order], ss[order]


class _Batch(NamedTuple):
    rows: np.ndarray
    cols: np.ndarray
    bounds: np.ndarray


def _survivor_batches(si: np.ndarray, sk: np.ndarray, ss: np.ndarray, n: int,
                      budget: int) -> Iterator[_Batch]:
    full = max(1, budget // max(n, 1))
    size = max(1, min(full, 4096 // max(n, 1) + 1))
    start = 0
    while start < si.size:
        stop = min(si.size, start + size)
        yield _Batch(si[start:stop], sk[start:stop], ss[start:stop])
        start = stop
        size = min(full, size * 2)


def _sort_survivors(P: np.ndarray, hull: Hull, test: HullTest, grid: np.ndarray,
                    si: np.ndarray, sk: np.ndarray, ss: np.ndarray, memory_elements: int,
                    two_threads: bool) -> int:
    """Survivors by decreasing TV, each batch re-tested against the hull as grown so far
    (an older hull is smaller, so the test stays sound); chains are computed in worker
    threads (numpy releases the GIL) while this thread merges them. ``test`` is the
    test of the current hull. Returns the number of pairs sorted."""

    def work(batch: _Batch, test: HullTest) -> tuple[np.ndarray, np.ndarray, int]:
        live = ~test.dominated(batch.bounds)
        if not np.any(live):
            return np.zeros(0), np.zeros(0), 0
        D, Q = chain_points(P, batch.rows[live], batch.cols[live])
        return D, Q, int(live.sum())

    version = hull.D
    sorted_pairs = 0
    with ThreadPoolExecutor(max_workers=2 if two_threads else 1) as chains:
        pending: deque = deque()
        for batch in _survivor_batches(si, sk, ss, P.shape[0], memory_elements):
            if version is not hull.D:
                test, version = HullTest(hull, grid), hull.D
            pending.append(chains.submit(work, batch, test))
            if len(pending) >= 3:
                D, Q, cnt = pending.popleft().result()
                hull.add(D, Q)
                sorted_pairs += cnt
        while pending:
            D, Q, cnt = pending.popleft().result()
            hull.add(D, Q)
            sorted_pairs += cnt
    return sorted_pairs
