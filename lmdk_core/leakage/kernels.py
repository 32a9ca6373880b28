r"""Compiled kernels of the pruned build of ``L_P``: upper bounds of each pair's σ.

For a pair of rows ``(q, d)`` of ``P`` the kernels bound
``σ_pair(λ) = Σ_j max(q_j − λ d_j, 0)`` from above (Cao, Yoshikawa, Xiao, Xiong,
ICDE'17 / TKDE'18; the hull geometry, the rounding bounds and the staging are derived
in docs/leakage-algorithm.md): in float32 and float64 (``n`` multiply-adds per pair and
slope, plus the stated rounding allowance), by an exact walk over the sorted columns
for large λ, and test the bounds against the hull (:func:`dominated`).

This module imports numba, and only :mod:`~lmdk_core.leakage.pruning` imports this
module: small matrices (``n <= 52``, the exact build) never load numba; larger ones
load it only where it pays (``loss._prune_pays``). Each kernel is
compiled with ``cache=True`` (once per machine, a few seconds; then loaded from
``__pycache__``) and releases the GIL. Without numba the same functions run as plain
Python — correct, but slow for large matrices.

The arguments are grouped in named tuples (numba passes them as typed tuples):
:class:`Matrix` (the matrix and its rounding allowances), :class:`Grid` (the slopes),
:class:`Checks` (the hull's dominance test), :class:`Scan` (everything fixed during a
scan) and :class:`Stage` (which slopes are bounded first).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lmdk_core.foundation.compiled_paths import lazy_njit

__all__ = [
    "Checks",
    "Grid",
    "Matrix",
    "Scan",
    "Stage",
    "count_triples",
    "dense_into",
    "dominated",
    "dominated_rows",
    "scan_rows",
    "tv_rows",
]

#: how each grid slope is bounded: by Z, by the sparse walk, by the dense kernel, by TV
ZERO, SPARSE, DENSE, TV = 0, 1, 2, 3
#: rows of a block: their rows stay in cache while every row k streams past them once
BLOCK = 64
_U = 2.0**-53  # unit roundoff of float64
_WIDEN = 1.0 + 8 * _U  # makes a computed threshold p/λ an upper bound of the true one
#: absolute error per float32 term from underflow, even with denormals flushed to zero
#: (flushing d_j or λd_j only raises a term; q_j, q_j − λd_j and the sums lose < 2^-126)
_TINY32 = 2.0**-120
#: the same for float64 terms
_TINY64 = 2.0**-1016
#: per unit of λ: a term of the walk missed where the threshold P_ij/λ is subnormal
_TINY_WALK = 2.0**-1070


class Matrix(NamedTuple):
    """The transition matrix as the kernels read it."""

    P: np.ndarray  #: float64, C-contiguous
    P32: np.ndarray  #: float32 copy, subnormals flushed to zero
    fs: np.ndarray  #: exactly rounded row sums Σ_j q_j (``math.fsum``)
    coef: float  #: float64 rounding allowance per unit of Σ_j q_j, 2(n + 8)·2⁻⁵³
    coef32: float  #: the same in float32, 2(n + 8)·2⁻²⁴


class Grid(NamedTuple):
    """Slopes ``S = λ_0 > … > λ_G = 1`` at which every pair's σ is bounded, and how."""

    lam: np.ndarray  #: the slopes (float64, descending)
    lam32: np.ndarray  #: the largest float32 <= each slope
    kind: np.ndarray  #: ZERO, SPARSE, DENSE or TV per slope
    sparse: np.ndarray  #: indices of the SPARSE slopes (int64)


class Checks(NamedTuple):
    """The hull's side of the dominance test (built by ``pruning.HullTest``)."""

    lam: np.ndarray  #: check points (descending): the grid and the hull's kinks in [1, S]
    H: np.ndarray  #: (1 + slack)·σ_hull at the check points
    Dsc: np.ndarray  #: (1 + slack)·D of the hull vertex active after each check point
    gpos: np.ndarray  #: position of each grid slope among the check points (int64)


class Scan(NamedTuple):
    """What stays fixed while the rows are scanned."""

    M: Matrix
    grid: Grid
    Z: np.ndarray  #: Z[i, k] = Σ_j P_ij [P_kj < 2⁻¹⁰⁰⁰] (bounds σ for λ >= S)
    TV: np.ndarray  #: upper bounds of σ_pair(1), the total variation (float32 kernel)
    VsT: np.ndarray  #: columns of P sorted ascending, one per row
    IsT: np.ndarray  #: the row index of each sorted entry (int32)
    seeded: np.ndarray  #: pairs already sorted into the hull (bool, n × n)


class Stage(NamedTuple):
    """The slopes bounded for every pair (``first``, float32) and for the pairs that
    pass the first test (``second``, float64)."""

    first: np.ndarray
    second: np.ndarray
    gi1: np.ndarray  #: the grid slopes tested after the first stage
    gpos1: np.ndarray  #: their positions among the check points


def _kernel(**options):
    def wrap(fn):
        njit = lazy_njit()
        if njit is None:  # pragma: no cover - numba is a dependency; work without it
            return fn
        return njit(cache=True, nogil=True, **options)(fn)

    return wrap


# Sums of non-negative terms may be added in any order (vectorised) and q − λd may be one
# fused multiply-add: the rounding bound of docs/leakage-algorithm.md holds for both.
@_kernel(fastmath={"reassoc", "contract"})
def hinge_sum(q, d, lam):
    """``Σ_j max(q_j − λ d_j, 0)`` in float64."""
    s = 0.0
    for j in range(q.size):
        s += max(q[j] - lam * d[j], 0.0)
    return s


@_kernel(fastmath={"reassoc", "contract"})
def hinge_sum2(q, p, d, lam):
    """:func:`hinge_sum` of two rows against the same ``d`` (one pass over ``d``)."""
    s = 0.0
    t = 0.0
    for j in range(d.size):
        ld = lam * d[j]
        s += max(q[j] - ld, 0.0)
        t += max(p[j] - ld, 0.0)
    return s, t


@_kernel(fastmath={"reassoc", "contract"})
def hinge_sum_f32(q, d, lam):
    """:func:`hinge_sum` in float32."""
    s = np.float32(0.0)
    for j in range(q.size):
        s += max(q[j] - lam * d[j], np.float32(0.0))
    return s


@_kernel(fastmath={"reassoc", "contract"})
def hinge_sum2_f32(q, p, d, lam):
    """:func:`hinge_sum2` in float32."""
    s = np.float32(0.0)
    t = np.float32(0.0)
    for j in range(d.size):
        ld = lam * d[j]
        s += max(q[j] - ld, np.float32(0.0))
        t += max(p[j] - ld, np.float32(0.0))
    return s, t


@_kernel()
def tv_rows(P32, fs, coef32, rows, out):
    """``out[i, k] >= σ_pair(1) = Σ_j max(P_ij − P_kj, 0)`` for i in ``rows``, all k
    (float32 sums, with their rounding bound)."""
    n = P32.shape[0]
    m = rows.size
    one = np.float32(1.0)
    tiny = n * 4.0 * _TINY32
    for b0 in range(0, m, BLOCK):
        b1 = min(m, b0 + BLOCK)
        for k in range(n):
            d = P32[k]
            for b in range(b0, b1, 2):
                i = rows[b]
                if b + 1 < b1:
                    i2 = rows[b + 1]
                    s, t = hinge_sum2_f32(P32[i], P32[i2], d, one)
                    out[i, k] = (np.float64(s) + tiny) + coef32 * fs[i]
                    out[i2, k] = (np.float64(t) + tiny) + coef32 * fs[i2]
                else:
                    s = hinge_sum_f32(P32[i], d, one)
                    out[i, k] = (np.float64(s) + tiny) + coef32 * fs[i]


@_kernel()
def _dense_f32(M, lam, block, k, g, s, live):
    """``s[r, g]`` for the live pairs (block[r], k) at the float32 slope ``lam``."""
    n = M.P.shape[0]
    nb = block.size
    tiny = n * 4.0 * _TINY32
    d32 = M.P32[k]
    r = 0
    while r < nb:
        if live[r] and r + 1 < nb and live[r + 1]:
            i = block[r]
            i2 = block[r + 1]
            x, y = hinge_sum2_f32(M.P32[i], M.P32[i2], d32, lam)
            s[r, g] = (np.float64(x) + tiny) + M.coef32 * M.fs[i]
            s[r + 1, g] = (np.float64(y) + tiny) + M.coef32 * M.fs[i2]
            r += 2
        else:
            if live[r]:
                i = block[r]
                x = hinge_sum_f32(M.P32[i], d32, lam)
                s[r, g] = (np.float64(x) + tiny) + M.coef32 * M.fs[i]
            r += 1


@_kernel()
def _dense_f64(M, lam64, block, k, g, s, live):
    """``s[r, g]`` for the live pairs (block[r], k) at the slope ``lam64`` in float64."""
    n = M.P.shape[0]
    nb = block.size
    d = M.P[k]
    # at λ = 1 each term q_j − d_j is rounded relatively: a relative bound, tight enough
    # for pairs that tie with the hull
    rel = 1.0 + M.coef if lam64 == 1.0 else 1.0
    add = 0.0 if lam64 == 1.0 else M.coef
    tiny64 = n * 4.0 * _TINY64  # underflow
    r = 0
    while r < nb:
        if live[r] and r + 1 < nb and live[r + 1]:
            i = block[r]
            i2 = block[r + 1]
            x64, y64 = hinge_sum2(M.P[i], M.P[i2], d, lam64)
            s[r, g] = (x64 * rel + tiny64) + add * M.fs[i]
            s[r + 1, g] = (y64 * rel + tiny64) + add * M.fs[i2]
            r += 2
        else:
            if live[r]:
                i = block[r]
                x64 = hinge_sum(M.P[i], d, lam64)
                s[r, g] = (x64 * rel + tiny64) + add * M.fs[i]
            r += 1


@_kernel()
def dense_into(M, grid, block, k, slopes, single, s, live):
    """``s[r, g] >= σ(λ_g)`` of the live pairs (block[r], k) for g in ``slopes``: in
    float32 at the float32 slope ``grid.lam32[g] <= λ_g`` if ``single``, else in
    float64."""
    for a in range(slopes.size):
        g = slopes[a]
        if single:
            _dense_f32(M, grid.lam32[g], block, k, g, s, live)
        else:
            _dense_f64(M, grid.lam[g], block, k, g, s, live)


@_kernel()
def dominated(s, gi, gpos, chk):
    """Whether the chords of the bounds ``s[gi]`` stay under ``chk.H`` (see
    ``pruning.HullTest``); ``gpos`` are the positions of ``gi`` among the check points."""
    lam, H, Dsc = chk.lam, chk.H, chk.Dsc
    G = gi.size
    for g in range(G):
        if s[gi[g]] > H[gpos[g]]:
            return False
    for g in range(G - 1):
        a = gpos[g]
        b = gpos[g + 1]
        if b - a < 2:
            continue
        sh = s[gi[g]]
        sl = s[gi[g + 1]]
        if max(sh, sl) <= H[a]:  # H is smallest at the interval's largest λ
            continue
        ll = lam[b]
        span = lam[a] - ll
        slope = (sh - sl) / span
        # chord − H grows from check point c to c + 1 (smaller λ) while Dsc[c] < −slope:
        # its maximum is at the first c with Dsc[c] >= −slope (checked with neighbours)
        lo = a
        hi = b
        while lo < hi:
            mid = (lo + hi) // 2
            if Dsc[mid] >= -slope:
                hi = mid
            else:
                lo = mid + 1
        for c in range(max(a + 1, lo - 1), min(b, lo + 2)):
            w = (lam[c] - ll) / span
            if w * sh + (1.0 - w) * sl > H[c]:
                return False
    return True


@_kernel()
def dominated_rows(sig, gi, gpos, chk, out):
    """:func:`dominated` for each row of ``sig``."""
    for r in range(sig.shape[0]):
        out[r] = dominated(sig[r], gi, gpos, chk)


@_kernel()
def count_triples(VsT, lam, limit):
    """``#{(i, k, j) : λ P_kj < P_ij}`` (as the sparse walk counts them; stops past limit)."""
    n = VsT.shape[0]
    total = 0
    for j in range(n):
        col = VsT[j]
        t = 0
        for i in range(n):  # thresholds col[i]/λ ascend with i: one merge per column
            x = col[i] * _WIDEN / lam
            while t < n and col[t] < x:
                t += 1
            total += t
        if total > limit:
            break
    return total


@_kernel()
def _sparse_walk(fx, block, buf):
    """``buf[r, k, g]``: σ of the pair (block[r], k) at the sparse slope g, exactly from
    the entries with ``λ P_kj < P_ij`` (a walk up the sorted columns), plus rounding."""
    n = fx.M.P.shape[0]
    sparse = fx.grid.sparse
    Gs = sparse.size
    coef = fx.M.coef
    thr = np.empty(Gs)
    lam_sp = np.empty(Gs)
    for g in range(Gs):
        lam_sp[g] = fx.grid.lam[sparse[g]]
    buf[: block.size] = 0.0
    for r in range(block.size):
        i = block[r]
        for j in range(n):
            p = fx.M.P[i, j]
            if p == 0.0:
                continue
            for g in range(Gs):
                thr[g] = p * _WIDEN / lam_sp[g]
            top = thr[Gs - 1]
            col = fx.VsT[j]
            idx = fx.IsT[j]
            for t in range(n):  # column j ascending: the k with λ P_kj < P_ij
                v = col[t]
                if v >= top:
                    break
                k = idx[t]
                for g in range(Gs - 1, -1, -1):
                    if v >= thr[g]:
                        break
                    lv = lam_sp[g] * v
                    buf[r, k, g] += max(p - lv, 0.0) + coef * (p + lv)


@_kernel()
def _cheap_bounds(fx, block, k, emit_all, buf, s, live):
    """Mark the pairs (block[r], k) to test and give them the bounds that cost nothing
    more: Z (×(1 + coef)) at S, TV at 1, the sparse walk. Returns whether any is live."""
    n = fx.M.P.shape[0]
    kind = fx.grid.kind
    sparse = fx.grid.sparse
    anyone = False
    for r in range(block.size):
        i = block[r]
        ok = i != k and (emit_all or not fx.seeded[i, k])
        live[r] = ok
        if ok:
            anyone = True
            for g in range(kind.size):
                if kind[g] == ZERO:
                    s[r, g] = fx.Z[i, k] * (1.0 + fx.M.coef)
                elif kind[g] == TV:
                    s[r, g] = fx.TV[i, k]
            for g in range(sparse.size):
                s[r, sparse[g]] = buf[r, k, g] + n * (4.0 * _TINY64
                                                      + fx.grid.lam[sparse[g]] * _TINY_WALK)
    return anyone


@_kernel()
def _drop_dominated(s, live, nb, gi, gpos, chk):
    """Clear ``live[r]`` of the pairs the test drops; whether any pair is still live."""
    anyone = False
    for r in range(nb):
        if live[r]:
            if dominated(s[r], gi, gpos, chk):
                live[r] = False
            else:
                anyone = True
    return anyone


@_kernel()
def _staged_tests(fx, chk, stage, refine, block, k, s, live):
    """The first-stage slopes in float32, the test on them; the other dense slopes in
    float64, the full test; then the float32 bounds (TV, first stage) again in float64
    (pairs that tie with the hull need the float64 allowance, under the slack) and the
    full test once more. Leaves ``live`` set for the pairs that pass."""
    nb = block.size
    allg = np.arange(fx.grid.lam.size)
    dense_into(fx.M, fx.grid, block, k, stage.first, True, s, live)
    if not _drop_dominated(s, live, nb, stage.gi1, stage.gpos1, chk):
        return
    if stage.second.size > 0:
        dense_into(fx.M, fx.grid, block, k, stage.second, False, s, live)
        if not _drop_dominated(s, live, nb, allg, chk.gpos, chk):
            return
    dense_into(fx.M, fx.grid, block, k, refine, False, s, live)
    _drop_dominated(s, live, nb, allg, chk.gpos, chk)


@_kernel()
def scan_rows(fx, chk, stage, rows, emit_all, out_i, out_k, out_s):
    """Bound σ of the pairs (i in ``rows``, every k) at the grid slopes; keep the pairs
    that pass the first-stage test (slopes ``stage.gi1``) and then the full test.

    Returns the number of pairs written to ``out_*`` (if ``emit_all``: every pair
    i != k, untested, with the bounds of the cheap and both stages' slopes).
    """
    n = fx.M.P.shape[0]
    G = fx.grid.lam.size
    Gs = fx.grid.sparse.size
    buf = np.zeros((BLOCK, n, max(Gs, 1)))
    s = np.zeros((BLOCK, G))
    live = np.zeros(BLOCK, dtype=np.bool_)
    first = stage.first
    nref = first.size + (1 if fx.grid.kind[G - 1] == TV else 0)
    refine = np.empty(nref, dtype=np.int64)
    refine[: first.size] = first
    if nref > first.size:
        refine[nref - 1] = G - 1  # λ = 1
    cnt = 0
    for b0 in range(0, rows.size, BLOCK):
        block = rows[b0:min(rows.size, b0 + BLOCK)]
        if Gs > 0:
            _sparse_walk(fx, block, buf)
        for k in range(n):
            if not _cheap_bounds(fx, block, k, emit_all, buf, s, live):
                continue
            if emit_all:
                dense_into(fx.M, fx.grid, block, k, first, True, s, live)
                if stage.second.size > 0:
                    dense_into(fx.M, fx.grid, block, k, stage.second, False, s, live)
            else:
                _staged_tests(fx, chk, stage, refine, block, k, s, live)
            for r in range(block.size):
                if not live[r]:
                    continue
                out_i[cnt] = block[r]
                out_k[cnt] = k
                for g in range(G):
                    out_s[cnt, g] = s[r, g]
                cnt += 1
    return cnt
