r"""The loss function ``L_P(α)`` of a transition matrix, precomputed once.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17, Theorems 4–5; TKDE'18) show that the privacy leakage
carried from one timestamp to the next through a transition matrix ``P`` is

.. math::

    L_P(α) = \max_{q, d} \max_S \log \frac{q(S)\,(e^α - 1) + 1}{d(S)\,(e^α - 1) + 1},

over ordered pairs ``(q, d)`` of distinct rows of ``P`` and subsets ``S`` of states,
and that the best ``S`` is a prefix of the states sorted by ``q_j / d_j`` descending
(only states with ``q_j > d_j`` ever help). Writing ``x = e^α − 1`` and
``(D, Q) = (d(S), q(S))``, each candidate contributes ``log((Q x + 1)/(D x + 1))``.

**Geometry used here** (instead of Cao's ``n(n−1) × n`` tables). With ``u = 1/x``,
``(Qx + 1)/(Dx + 1) = (Q + u)/(D + u)`` is the slope from the point ``(−u, −u)`` to
``(D, Q)``. Seen from a point to the left of all candidates, the steepest candidate is
a vertex of the *upper convex hull* of the candidate points in the ``(D, Q)`` plane,
and only the hull part whose edges are steeper than 1 matters (up to the vertex with
the largest ``Q − D``, the total-variation distance). Equivalently, with the support
function ``σ(λ) = max (Q − λD) = max_{q,d} Σ_j max(q_j − λ d_j, 0)``,
``L_P(α) = log λ*`` where ``σ(λ*) = u(λ* − 1)``.

So the precomputation keeps only that hull — tens to hundreds of vertices — merging the
row pairs' prefix chains into it batch by batch (``O(n²)`` memory at most). For
``n > 48`` most pairs are discarded without sorting (:func:`_build_pruned`):

1. seeds (pairs with the largest total variation ``TV = σ_pair(1)``, the largest
   ``Z = Σ_j q_j [d_j < 2⁻¹⁰⁰⁰]`` — the mass on ``d_j = 0`` and on ``d_j`` so small that
   ``q_j / d_j`` could overflow — and every column's largest ratio) are sorted exactly
   and give a first hull;
2. every pair's ``σ_pair(λ) = Σ_j max(q_j − λd_j, 0)`` is bounded from above on a grid
   of slopes ``S = λ_0 > … > λ_G = 1`` taken from that hull: at ``S``, the largest
   ratio ``P_ij / P_kj`` with ``P_kj >= 2⁻¹⁰⁰⁰``, by ``Z`` (``σ_pair(λ) <= Z`` for every
   ``λ >= S``); at large λ exactly from the few triples with ``λ P_kj < P_ij`` (a walk
   down the sorted columns); elsewhere by a compiled kernel summing the hinge terms
   directly, ``n`` multiply-adds per pair and slope;
3. ``σ_pair`` is convex in λ, so it lies under the chord of its grid values; a pair
   whose chord stays under the hull's ``σ`` at every hull slope in ``[1, S]``, and
   whose ``Z`` stays under the hull's ``σ(∞) = Q`` at ``D = 0``, cannot raise ``L_P``
   and is dropped (a relative slack of ``1e-11`` is allowed, which changes ``L_P`` by
   at most ``1e-11``). ``chord − σ_hull`` is concave on each grid interval, so one
   binary search finds where to test it;
4. the kernel work is staged: ``TV`` and a few *first-stage* slopes are bounded for every
   pair in float32 (chosen on a sample of 8 rows to minimise the expected number of
   passes, a float64 pass counted as 2.5 float32 ones; for a dense random matrix 5 of 13);
   only pairs that pass the test get the other slopes in float64, and pairs still not
   dropped get their float32 bounds again in float64 (pairs that tie with the hull need
   an allowance under the slack);
5. the survivors are sorted (one int64 sort per pair, see :func:`_chain_points`) in
   order of decreasing total variation, each batch re-tested against the grown hull.

**Rounding bounds** (unit roundoffs ``r = 2⁻⁵³`` of float64 and ``r₃₂ = 2⁻²⁴`` of
float32). The kernel computes ``t̂_j = fl(q_j − λd_j)`` (one or two roundings:
``|t̂_j − t_j| ≤ 2.01r(q_j + λd_j)``) and adds the ``max(t̂_j, 0)`` in any order
(vectorised). A term differs from ``max(t_j, 0)`` only where ``t_j > 0`` or ``t̂_j > 0``,
i.e. where ``λd_j < q_j(1 + 5r)``, so the terms err by at most ``4.1r Σ_j q_j``, and
adding ``m ≤ n`` non-negative terms errs by at most ``γ_{n−1} Σ_j q_j(1 + 5r)`` with
``γ_k = kr/(1 − kr)`` (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2).
The bound used is ``ŝ + 2(n + 8)r Σ_j q_j`` (``Σ_j q_j`` exactly rounded by
``math.fsum``); at λ = 1, where ``q_j − d_j`` is rounded relatively (Sterbenz), it is
``ŝ(1 + 2(n + 8)r)``. In float32 the kernel runs at the largest float32 ``λ' ≤ λ``
(``σ`` is non-increasing, so ``σ(λ) ≤ σ(λ')``) on ``fl₃₂(P)`` with its subnormals
flushed to zero (they are slow in hardware); converting ``P`` adds
``r₃₂(q_j + λ'd_j)`` per term and underflow lowers a term by at most ``4·2⁻¹²⁶``, even
with subnormals flushed to zero (flushing ``d_j`` or ``λ'd_j`` only raises a term), so the
bound is ``ŝ + 2(n + 8)r₃₂ Σ_j q_j + 4n·2⁻¹²⁰``. The sparse walk adds
``2(n + 8)r(P_ij + λP_kj)`` per term, and ``Z`` (a matrix product of non-negative terms)
is scaled by ``1 + 2(n + 8)r``; float64 bounds and the walk also add ``4n·2⁻¹⁰¹⁶``
for underflow, the walk also ``nλ·2⁻¹⁰⁷⁰`` for terms it misses where ``P_ij/λ`` is
subnormal. The dominance test itself is evaluated in float64;
its rounding (~1e-16 relative) is far inside the slack.

The kernels are compiled by numba (``cache=True``: compiled once per machine, a few
seconds, then loaded from ``__pycache__``); without numba the same functions run as
plain Python — correct, but slow for large matrices. They release the GIL: from 256
states on, two threads scan halves of the rows. For a dense random matrix with
``n = 2000`` the first stage is 6 float32 passes of ``n³`` multiply-adds (TV and 5
slopes), under 1% of the pairs reach the second stage and 0.3% are sorted. Matrices
whose ratios span hundreds of orders of magnitude defeat step 3 and fall back to sorting
nearly every pair (still ``O(n²)`` memory); so do matrices with many entries below
``2⁻¹⁰⁰⁰``, whose pairs are only tested against the hull's mass on ``D = 0`` for slopes
beyond ``S`` (exact, but about 2 minutes for 1,000 states).

Evaluation: two adjacent hull vertices give equal values at one ``x`` (the curves
cross once for ``x > 0``), so the optimal vertex is found by ``searchsorted`` on those
breakpoints and ``L_P(α) = log1p(Q x) − log1p(D x)`` is one formula per value.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

try:  # compiled kernels of the pruned build; the plain functions are the same code
    from numba import njit
except ImportError:  # pragma: no cover - numba is a dependency; keep working without it
    njit = None

from lmdk_core.leakage.correlation import check_transition_matrix
from lmdk_core.validation import InputError

__all__ = ["LossFunction", "LossStats", "loss_function", "as_loss", "upper_hull"]

_U = 2.0**-53  # unit roundoff of float64
#: relative slack accepted when discarding a pair: changes L_P by at most ~1e-11.
_PRUNE_RTOL = 1e-11
#: above this α, e^α − 1 is evaluated through logs (e^α overflows at ~709.8).
_BIG_ALPHA = 700.0
#: matrices with more states than this are pruned before sorting (see module doc).
_AUTO_PRUNE_N = 48
#: from this many states on, the heavy numpy parts run in two threads (they release the GIL).
_THREADS_N = 256
#: probabilities below this count as zeros in the bound Z (a ratio q_j / d_j < 2^1000)
_CUT = 2.0**-1000


@dataclass(frozen=True)
class LossStats:
    """How the precomputation went (for benchmarks and the curious)."""

    n_states: int
    pairs: int
    pairs_sorted: int
    hull_vertices: int


def upper_hull(D: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Upper convex hull (Andrew's monotone chain) of points ``(D, Q)``, D ascending.

    Collinear middle points are dropped (they never give a strictly larger loss).
    """
    D = np.asarray(D, dtype=float)
    Q = np.asarray(Q, dtype=float)
    order = np.lexsort((-Q, D))
    D, Q = D[order], Q[order]
    first = np.r_[True, D[1:] != D[:-1]]  # highest Q per D
    D, Q = D[first], Q[first]
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
    return np.array(hd), np.array(hq)


class _Hull:
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
        hd, hq = upper_hull(np.r_[0.0, self.D, D[up]], np.r_[0.0, self.Q, Q[up]])
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


def _chain_points(P: np.ndarray, ii: np.ndarray, kk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        return np.zeros(0), np.zeros(0)
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
    return Dc[sel], Qc[sel]


def _pair_batches(pairs_i: np.ndarray, pairs_k: np.ndarray, n: int, budget: int):
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


class LossFunction:
    r"""``L_P(α)`` of a transition matrix ``P`` (Cao et al., ICDE'17 Thm 4–5; TKDE'18).

    .. math::

        L_P(α) = \max_{q \ne d \text{ rows of } P} \max_S
                 \log \frac{q(S)(e^α-1)+1}{d(S)(e^α-1)+1}

    Build once (``O(n²)`` memory; see the module docstring for the hull algorithm),
    then call with a number or an array of ``α >= 0``. Properties used by the TPL
    recursions: ``L(0) = 0``, ``0 <= L(α) <= α``, ``L`` non-decreasing; ``L ≡ 0``
    when all rows are equal, ``L(α) = α`` when two rows have disjoint supports.

    ``prune``: discard pairs without sorting them (default: when ``n > 48``);
    ``memory_elements``: size (in float64 elements) of the per-chunk work arrays.
    """

    def __init__(
        self,
        matrix: ArrayLike,
        *,
        name: str = "the transition matrix",
        prune: bool | None = None,
        memory_elements: int = 1 << 21,
    ) -> None:
        P = check_transition_matrix(matrix, name)
        n = P.shape[0]
        self.n_states = n
        hull = _Hull()
        sorted_pairs = 0
        if n >= 2:
            if prune is None:
                prune = n > _AUTO_PRUNE_N
            if prune:
                sorted_pairs = _build_pruned(P, hull, memory_elements)
            else:
                ii, kk = np.nonzero(~np.eye(n, dtype=bool))
                for bi, bk in _pair_batches(ii, kk, n, memory_elements):
                    hull.add(*_chain_points(P, bi, bk))
                sorted_pairs = ii.size
        self._set_vertices(hull.D, hull.Q)
        self.stats = LossStats(
            n_states=n,
            pairs=n * (n - 1),
            pairs_sorted=int(sorted_pairs),
            hull_vertices=int(self.vertex_D.size),
        )

    # -- vertices and breakpoints ------------------------------------------------------
    def _set_vertices(self, D: np.ndarray, Q: np.ndarray) -> None:
        D = np.asarray(D, dtype=float)
        Q = np.asarray(Q, dtype=float)
        if D.size > 1 and Q[0] == 0.0:  # (0, 0) is never optimal once other vertices exist
            D, Q = D[1:], Q[1:]
        #: hull vertices (D ascending): the (d(S), q(S)) that can be optimal for some α
        self.vertex_D = D
        self.vertex_Q = Q
        # Crossing of adjacent vertices a = v_{j-1}, b = v_j (curves equal at one x > 0):
        # x_j = [(Q_b − Q_a) − (D_b − D_a)] / (Q_a D_b − Q_b D_a). v_j is optimal for
        # x in [x_{j+1}, x_j]; larger x favours smaller D.
        if D.size > 1:
            num = (Q[1:] - Q[:-1]) - (D[1:] - D[:-1])
            den = Q[:-1] * D[1:] - Q[1:] * D[:-1]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                xs = np.where(den > 0, num / den, np.inf)
                # the same crossings in logs: finite even where num/den overflows (a
                # d(S) near the smallest float); used for α > 700, where x overflows
                # log den = log(Q_a D_b) + log1p(−Q_b D_a / (Q_a D_b)), all in logs (Q_a D_b
                # may underflow to 0 although the crossing is finite)
                lqa, lqb = np.log(Q[:-1]), np.log(Q[1:])
                lda, ldb = np.log(D[:-1]), np.log(D[1:])
                log_den = lqa + ldb + np.log1p(-np.exp(lqb + lda - lqa - ldb))
                log_xs = np.log(np.maximum(num, 0.0)) - log_den
                log_xs = np.where(np.isnan(log_xs), np.inf, log_xs)
            xs = np.maximum(xs, 0.0)
            xs = np.minimum.accumulate(xs)  # guard monotonicity against rounding
            log_xs = np.minimum.accumulate(log_xs)
            self._x_thr = xs[::-1].copy()  # ascending
            self._log_x_thr = log_xs[::-1].copy()
        else:
            self._x_thr = np.zeros(0)
            self._log_x_thr = np.zeros(0)
        self._wD = D[::-1].copy()  # vertex for searchsorted index k (ascending x)
        self._wQ = Q[::-1].copy()
        self._wQmD = self._wQ - self._wD
        self._thr_list = self._x_thr.tolist()
        self._log_thr_list = self._log_x_thr.tolist()
        self._wD_list = self._wD.tolist()
        self._wQ_list = self._wQ.tolist()
        self.is_zero = bool(Q.size == 1 and Q[0] == 0.0)
        #: breakpoints in α where the optimal vertex changes (descending with vertex index)
        self.breakpoints = np.log1p(self._x_thr[np.isfinite(self._x_thr)])

    # -- evaluation --------------------------------------------------------------------
    def __call__(self, alpha: ArrayLike) -> np.ndarray | float:
        """``L_P(α)`` for a number (returns a float) or an array (same shape) of ``α >= 0``."""
        try:
            a = np.asarray(alpha, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"α must be numbers, got {alpha!r}") from None
        if a.size and (not np.all(np.isfinite(a)) or np.any(a < 0)):
            raise InputError("α must be finite and >= 0 (a privacy leakage)")
        out = self.evaluate(a.reshape(-1)).reshape(a.shape)
        return float(out) if a.ndim == 0 else out

    def evaluate(self, a: np.ndarray) -> np.ndarray:
        """Vectorised ``L_P`` on a 1-D float array of ``α >= 0`` (no validation).

        With ``x = e^α − 1`` and the optimal hull vertex ``(D, Q)`` for that x (one
        ``searchsorted`` on the vertices' crossing points),
        ``log((Qx + 1)/(Dx + 1)) = log1p((Q − D)·x / (1 + D·x))`` — one ``log1p`` per α,
        accurate for small α as well. Hot path of the leakage recursions: no Python work
        per element, no error-state context unless some α exceeds 700.
        """
        if self.is_zero:
            return np.zeros(a.shape)
        if a.size and a.max() > _BIG_ALPHA:
            return self._evaluate_big(a)
        x = np.expm1(a)
        k = self._x_thr.searchsorted(x, side="right")
        return np.log1p(self._wQmD.take(k) * x / (1.0 + self._wD.take(k) * x))

    def _evaluate_big(self, a: np.ndarray) -> np.ndarray:
        big = a > _BIG_ALPHA
        with np.errstate(over="ignore", invalid="ignore"):
            x = np.expm1(a)
            k = np.searchsorted(self._x_thr, x, side="right")
            D = self._wD[k]
            val = np.log1p(self._wQmD[k] * x / (1.0 + D * x))  # as evaluate (α <= 700)
        # log x = log(e^α − 1) = α to within e^−700: pick the vertex in logs
        kb = np.searchsorted(self._log_x_thr, a[big], side="right")
        val[big] = _big_values(a[big], self._wQ[kb], self._wD[kb])
        return val

    def scalar(self, a: float) -> float:
        """Fast ``L_P(α)`` for one Python float ``α >= 0`` (no validation)."""
        if self.is_zero:
            return 0.0
        if a > _BIG_ALPHA:
            k = bisect_right(self._log_thr_list, a)  # log x = α to within e^−700
            Q, D = self._wQ_list[k], self._wD_list[k]
            u = math.exp(-a)
            if D == 0.0:
                return a + math.log(Q + u)
            # log(D + e^−α) in logs: D and e^−α may both be subnormal (1 bit of precision)
            return math.log(Q + u) - float(np.logaddexp(math.log(D), -a))
        x = math.expm1(a)
        k = bisect_right(self._thr_list, x)
        D = self._wD_list[k]
        return math.log1p((self._wQ_list[k] - D) * x / (1.0 + D * x))

    def evaluate_max(self, alpha: ArrayLike) -> np.ndarray:
        """``max`` over all hull vertices (slower; a cross-check of the breakpoints)."""
        a = np.asarray(alpha, dtype=float).reshape(-1)
        x = np.expm1(np.minimum(a, _BIG_ALPHA))[:, None]
        vals = np.log1p(self.vertex_Q[None, :] * x) - np.log1p(self.vertex_D[None, :] * x)
        return np.maximum(vals.max(axis=1), 0.0)

    def __repr__(self) -> str:
        return (
            f"LossFunction(n_states={self.n_states}, vertices={self.vertex_D.size}, "
            f"pairs_sorted={self.stats.pairs_sorted}/{self.stats.pairs})"
        )


def _big_values(a: np.ndarray, Q: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``log((Qx + 1)/(Dx + 1))`` for α > 700 via ``1/x ≈ e^{−α}`` (x would overflow)."""
    u = np.exp(-a)
    with np.errstate(divide="ignore"):
        # log(D + e^−α) in logs: D and e^−α may both be subnormal (1 bit of precision)
        out = np.where(D == 0.0, a + np.log(Q + u), np.log(Q + u) - np.logaddexp(np.log(D), -a))
    return np.where(Q == 0.0, 0.0, out)


def _build_pruned(P: np.ndarray, hull: _Hull, memory_elements: int) -> int:
    """Build the hull streaming over all row pairs, sorting only pairs that may matter.

    Returns the number of pairs whose prefix chains were sorted.
    """
    n = P.shape[0]
    P = np.ascontiguousarray(P, dtype=np.float64)
    fs = np.array([math.fsum(row) for row in P.tolist()])  # exactly rounded row sums
    coef = (n + 8) * 2 * _U  # rounding allowance per unit of summed magnitude
    threads = 2 if n >= _THREADS_N else 1
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        return _build_pruned_in(P, hull, memory_elements, fs, coef, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _run(pool: ThreadPoolExecutor | None, fn, parts: list) -> list:
    """``fn`` over ``parts``, in the worker threads when there are any (kernels drop the GIL)."""
    if pool is None:
        return [fn(p) for p in parts]
    return list(pool.map(fn, parts))


def _build_pruned_in(P: np.ndarray, hull: _Hull, memory_elements: int, fs: np.ndarray,
                     coef: float, pool: ThreadPoolExecutor | None) -> int:
    n = P.shape[0]
    # Z[i, k] = Σ_j P_ij [P_kj < c]: σ_pair(λ) <= Z for λ >= S (the mass on d_j = 0, and
    # on the d_j so small (below c = 2^-1000) that q_j / d_j could overflow).
    tiny = P < _CUT
    Z = P @ tiny.T.astype(float)
    np.fill_diagonal(Z, 0.0)
    # S = the largest ratio P_ij / P_kj with P_kj >= c (< 2^1000): no chain edge steeper.
    colmax = P.max(axis=0)
    colmin = np.where(tiny, np.inf, P).min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratios = colmax / colmin
    ratios = ratios[np.isfinite(ratios)]
    S = max(float(ratios.max()) if ratios.size else 1.0, 1.0)
    del tiny
    # TV[i, k] >= σ_pair(1), the total variation distance (compiled kernel, upper bound).
    # float32 copy, subnormals flushed to zero (within the bound's underflow term; they
    # would send every multiply through the processor's slow subnormal path)
    P32 = P.astype(np.float32)
    P32[P32 < np.finfo(np.float32).tiny] = 0.0
    coef32 = (n + 8) * 2 * _U32
    TV = np.empty((n, n))
    blocks = _row_blocks(n, max(_BLOCK, n // (8 * (2 if pool is not None else 1))))
    _run(pool, lambda rows: _tv_rows(P32, fs, coef32, rows, TV), blocks)
    np.fill_diagonal(TV, -1.0)

    # Seeds: the pairs most likely on the hull — largest TV, largest Z, and for every
    # state the pair with the largest ratio in that state's column.
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
    for bi, bk in _pair_batches(si, sk, n, memory_elements):
        hull.add(*_chain_points(P, bi, bk))
    sorted_pairs = si.size
    seeded = np.zeros((n, n), dtype=np.bool_)
    seeded[si, sk] = True

    # Columns sorted ascending, one column per row (the walk of the sparse slopes).
    Is = np.argsort(P, axis=0, kind="stable")
    VsT = np.ascontiguousarray(np.take_along_axis(P, Is, axis=0).T)
    IsT = np.ascontiguousarray(Is.T, dtype=np.int32)
    del Is
    # Grid of slopes S = λ_0 > λ_1 > ... > λ_G = 1 at which every pair's σ is bounded.
    grid, kind = _choose_grid(VsT, hull, S, coef * float(fs.max()))
    G = grid.size
    checks = _Checks(hull, grid)
    sparse = np.flatnonzero(kind == _SPARSE)
    dense = np.flatnonzero(kind == _DENSE)
    scan = _Scan(P, P32, fs, coef, coef32, Z, TV, VsT, IsT, grid, kind, sparse, seeded, checks)
    first = _first_stage(scan, kind, dense, checks, n)
    second = np.setdiff1d(dense, first)
    gi1 = np.sort(np.r_[np.flatnonzero(kind != _DENSE), first])
    per = max(1, min(n, memory_elements // max(n * (G + 2), 1)))
    found = _run(pool, lambda rows: scan(rows, first, second, gi1, False),
                 _row_blocks(n, per))
    si = np.concatenate([f[0] for f in found])
    sk = np.concatenate([f[1] for f in found])
    ss = np.concatenate([f[2] for f in found])
    del found
    order = np.argsort(-ss[:, -1], kind="stable")
    si, sk, ss = si[order], sk[order], ss[order]
    # Survivors by decreasing TV, each batch re-tested against the hull as grown so far
    # (an older hull is smaller, so the test stays sound); chains are computed in two
    # worker threads (numpy releases the GIL) while this thread merges them.
    state = {"checks": checks, "version": hull.D}

    def work(bi: np.ndarray, bk: np.ndarray, bs: np.ndarray, chk: _Checks):
        live = ~chk.dominated(bs)
        if not np.any(live):
            return np.zeros(0), np.zeros(0), 0
        D, Q = _chain_points(P, bi[live], bk[live])
        return D, Q, int(live.sum())

    batches = _survivor_batches(si, sk, ss, n, memory_elements)
    with ThreadPoolExecutor(max_workers=2 if pool is not None else 1) as chains:
        pending: deque = deque()
        for batch in batches:
            if state["version"] is not hull.D:
                state["checks"] = _Checks(hull, grid)
                state["version"] = hull.D
            pending.append(chains.submit(work, *batch, state["checks"]))
            if len(pending) >= 3:
                D, Q, cnt = pending.popleft().result()
                hull.add(D, Q)
                sorted_pairs += cnt
        while pending:
            D, Q, cnt = pending.popleft().result()
            hull.add(D, Q)
            sorted_pairs += cnt
    return sorted_pairs


def _row_blocks(n: int, size: int) -> list[np.ndarray]:
    return [np.arange(a, min(n, a + size)) for a in range(0, n, max(1, size))]


def _survivor_batches(si, sk, ss, n, budget):
    full = max(1, budget // max(n, 1))
    size = max(1, min(full, 4096 // max(n, 1) + 1))
    start = 0
    while start < si.size:
        stop = min(si.size, start + size)
        yield si[start:stop], sk[start:stop], ss[start:stop]
        start = stop
        size = min(full, size * 2)


#: how each grid slope is bounded (see :func:`_choose_grid`)
_ZERO, _SPARSE, _DENSE, _TV = 0, 1, 2, 3


def _choose_grid(VsT: np.ndarray, hull: _Hull, S: float, allowance: float,
                 max_inner: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Slopes at which every pair's σ is bounded, and how: S (from Z), inner slopes, 1.

    Inner slopes are hull edge slopes spread evenly in log λ. Each is bounded exactly
    from the triples with ``λ P_kj < P_ij`` when there are few of them (large λ, sparse
    walk), else by the dense kernel when its rounding ``allowance`` is negligible against
    the hull's σ(λ), else skipped.
    """
    n = VsT.shape[0]
    if S <= 1.0:  # every ratio (d_j >= c) is 1: σ_pair(λ) <= Z for all λ >= 1
        return np.array([1.0]), np.array([_ZERO])
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
        if _count_triples(VsT, lam, limit) <= limit:
            inner.append(lam)
            kinds.append(_SPARSE)
        elif allowance <= 1e-7 * sh:
            inner.append(lam)
            kinds.append(_DENSE)
    return np.array([S, *inner, 1.0]), np.array([_ZERO, *kinds, _TV])


class _Checks:
    """Sound dominance test of a pair from upper bounds of its σ on a grid of slopes.

    ``σ_pair`` is convex in λ, so on each grid interval it lies under the chord of its
    grid values; ``σ_hull`` is convex and piecewise linear with kinks at the hull's edge
    slopes, so chord − σ_hull is concave on the interval and linear between check points
    (the grid and the kinks in [1, S]); its maximum is at the check point where the hull's
    active ``D`` passes the chord's slope (binary search in :func:`_dominated`), so one
    pair costs ``O(G log C)`` instead of ``O(G C)``. Beyond S, ``σ_pair <= Z`` (the bound
    at S) is tested against ``σ_hull(∞)``, the hull's Q at D = 0.
    """

    def __init__(self, hull: _Hull, grid: np.ndarray) -> None:
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
        #: check points (descending) and (1 + slack)·σ_hull there
        self.lam = lam
        self.H = sig * (1.0 + _PRUNE_RTOL)
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
        self.Dsc = act * (1.0 + _PRUNE_RTOL)
        #: position of each grid point among the check points
        self.gpos = np.searchsorted(-lam, -grid).astype(np.int64)
        self.all = np.arange(grid.size, dtype=np.int64)

    def dominated(self, sig: np.ndarray, gi: np.ndarray | None = None) -> np.ndarray:
        """True for pairs (rows of ``sig``, shape (m, G)) that cannot raise L_P.

        ``gi``: test only these grid points (a coarser grid, still sound).
        """
        gi = self.all if gi is None else gi
        out = np.empty(sig.shape[0], dtype=np.bool_)
        _dominated_rows(np.ascontiguousarray(sig), gi, self.gpos[gi], self.lam, self.H,
                        self.Dsc, out)
        return out


class _Scan:
    """The compiled scan of rows (:func:`_scan_rows`) with its fixed arguments."""

    def __init__(self, P, P32, fs, coef, coef32, Z, TV, VsT, IsT, grid, kind, sparse, seeded,
                 checks):
        self.args = (P, P32, fs, coef, coef32, Z, TV, VsT, IsT, grid, _float32_below(grid),
                     kind, sparse)
        self.seeded = seeded
        self.checks = checks
        self.G = grid.size

    def __call__(self, rows: np.ndarray, first: np.ndarray, second: np.ndarray,
                 gi1: np.ndarray, emit_all: bool):
        """Pairs (i in ``rows``, any k) that pass the tests: (i, k, grid bounds)."""
        n = self.args[0].shape[0]
        chk = self.checks
        cap = rows.size * n
        oi = np.empty(cap, dtype=np.int64)
        ok = np.empty(cap, dtype=np.int64)
        osig = np.empty((cap, self.G))
        c = _scan_rows(*self.args, first.astype(np.int64), second.astype(np.int64),
                       gi1.astype(np.int64), chk.gpos[gi1], chk.gpos, chk.lam, chk.H,
                       chk.Dsc, self.seeded, rows.astype(np.int64), emit_all, oi, ok, osig)
        return oi[:c].copy(), ok[:c].copy(), osig[:c].copy()


def _float32_below(lam: np.ndarray) -> np.ndarray:
    """The largest float32 <= each λ (capped at 1e30): σ there bounds σ(λ) from above."""
    lam32 = np.minimum(lam, 1e30).astype(np.float32)
    high = lam32.astype(np.float64) > lam
    lam32[high] = np.nextafter(lam32[high], np.float32(0.0))
    return lam32


def _first_stage(scan: _Scan, kind: np.ndarray, dense: np.ndarray, checks: _Checks,
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
    base = np.flatnonzero(kind != _DENSE)

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


# -- compiled kernels -------------------------------------------------------------------
# Without numba the same functions run as plain Python (correct, but slow for big n).

#: rows of a block: their rows stay in cache while every row k streams past them once
_BLOCK = 64
#: rows sampled to choose the first-stage slopes
_SAMPLE_ROWS = 8
#: cost of a float64 pass (second stage, rows one by one) in float32 passes
_F64_PASS = 2.5
_SPARSE_DIV = 32
_WIDEN = 1.0 + 8 * _U  # makes a computed threshold p/λ an upper bound of the true one
_U32 = 2.0**-24  # unit roundoff of float32
#: absolute error per float32 term from underflow, even with denormals flushed to zero
#: (flushing d_j or λd_j only raises a term; q_j, q_j − λd_j and the sums lose < 2^-126)
_TINY32 = 2.0**-120
#: the same for float64 terms
_TINY64 = 2.0**-1016
#: per unit of λ: a term of the walk missed where the threshold P_ij/λ is subnormal
_TINY_WALK = 2.0**-1070


def _kernel(**options):
    def wrap(fn):
        if njit is None:  # pragma: no cover - numba is a dependency
            return fn
        return njit(cache=True, nogil=True, **options)(fn)

    return wrap


# Sums of non-negative terms may be added in any order (vectorised) and q − λd may be one
# fused multiply-add: the rounding bound of the module docstring holds for both.
@_kernel(fastmath={"reassoc", "contract"})
def _hinge_sum(q, d, lam):
    s = 0.0
    for j in range(q.size):
        s += max(q[j] - lam * d[j], 0.0)
    return s


@_kernel(fastmath={"reassoc", "contract"})
def _hinge_sum2(q, p, d, lam):
    s = 0.0
    t = 0.0
    for j in range(d.size):
        ld = lam * d[j]
        s += max(q[j] - ld, 0.0)
        t += max(p[j] - ld, 0.0)
    return s, t


@_kernel(fastmath={"reassoc", "contract"})
def _hinge_sum_f32(q, d, lam):
    s = np.float32(0.0)
    for j in range(q.size):
        s += max(q[j] - lam * d[j], np.float32(0.0))
    return s


@_kernel(fastmath={"reassoc", "contract"})
def _hinge_sum2_f32(q, p, d, lam):
    s = np.float32(0.0)
    t = np.float32(0.0)
    for j in range(d.size):
        ld = lam * d[j]
        s += max(q[j] - ld, np.float32(0.0))
        t += max(p[j] - ld, np.float32(0.0))
    return s, t


@_kernel()
def _tv_rows(P32, fs, coef32, rows, out):
    """``out[i, k] >= σ_pair(1) = Σ_j max(P_ij − P_kj, 0)`` for i in ``rows``, all k
    (float32 sums, with their rounding bound; see the module docstring)."""
    n = P32.shape[0]
    m = rows.size
    one = np.float32(1.0)
    tiny = n * 4.0 * _TINY32
    for b0 in range(0, m, _BLOCK):
        b1 = min(m, b0 + _BLOCK)
        for k in range(n):
            d = P32[k]
            for b in range(b0, b1, 2):
                i = rows[b]
                if b + 1 < b1:
                    i2 = rows[b + 1]
                    s, t = _hinge_sum2_f32(P32[i], P32[i2], d, one)
                    out[i, k] = (np.float64(s) + tiny) + coef32 * fs[i]
                    out[i2, k] = (np.float64(t) + tiny) + coef32 * fs[i2]
                else:
                    s = _hinge_sum_f32(P32[i], d, one)
                    out[i, k] = (np.float64(s) + tiny) + coef32 * fs[i]


@_kernel()
def _dense_into(P, P32, fs, coef, coef32, rows, b0, nb, k, grid, grid32, slopes, single,
                s, live):
    """``s[r, g] >= σ(λ_g)`` of the live pairs (rows[b0 + r], k) for g in ``slopes``: in
    float32 at the float32 slope ``grid32[g] <= λ_g`` if ``single``, else in float64."""
    n = P.shape[0]
    for a in range(slopes.size):
        g = slopes[a]
        r = 0
        if single:
            lam = grid32[g]
            tiny = n * 4.0 * _TINY32
            d32 = P32[k]
            while r < nb:
                if live[r] and r + 1 < nb and live[r + 1]:
                    i = rows[b0 + r]
                    i2 = rows[b0 + r + 1]
                    x, y = _hinge_sum2_f32(P32[i], P32[i2], d32, lam)
                    s[r, g] = (np.float64(x) + tiny) + coef32 * fs[i]
                    s[r + 1, g] = (np.float64(y) + tiny) + coef32 * fs[i2]
                    r += 2
                else:
                    if live[r]:
                        i = rows[b0 + r]
                        x = _hinge_sum_f32(P32[i], d32, lam)
                        s[r, g] = (np.float64(x) + tiny) + coef32 * fs[i]
                    r += 1
        else:
            lam64 = grid[g]
            d = P[k]
            # at λ = 1 each term q_j − d_j is rounded relatively: a relative bound, tight
            # enough for pairs that tie with the hull
            rel = 1.0 + coef if lam64 == 1.0 else 1.0
            add = 0.0 if lam64 == 1.0 else coef
            tiny64 = n * 4.0 * _TINY64  # underflow
            while r < nb:
                if live[r] and r + 1 < nb and live[r + 1]:
                    i = rows[b0 + r]
                    i2 = rows[b0 + r + 1]
                    x64, y64 = _hinge_sum2(P[i], P[i2], d, lam64)
                    s[r, g] = (x64 * rel + tiny64) + add * fs[i]
                    s[r + 1, g] = (y64 * rel + tiny64) + add * fs[i2]
                    r += 2
                else:
                    if live[r]:
                        i = rows[b0 + r]
                        x64 = _hinge_sum(P[i], d, lam64)
                        s[r, g] = (x64 * rel + tiny64) + add * fs[i]
                    r += 1


@_kernel()
def _dominated(s, gi, gpos, lam, H, Dsc):
    """Whether the chords of the bounds ``s[gi]`` stay under ``H`` (see :class:`_Checks`)."""
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
def _dominated_rows(sig, gi, gpos, lam, H, Dsc, out):
    for r in range(sig.shape[0]):
        out[r] = _dominated(sig[r], gi, gpos, lam, H, Dsc)


@_kernel()
def _count_triples(VsT, lam, limit):
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
def _scan_rows(P, P32, fs, coef, coef32, Z, TV, VsT, IsT, grid, grid32, kind, sparse, first,
               second, gi1, gpos1, gpos, lam, H, Dsc, seeded, rows, emit_all, out_i, out_k,
               out_s):
    """Bound σ of the pairs (i in ``rows``, every k) at the grid slopes; keep the pairs
    that pass the first-stage test (slopes ``gi1``) and then the full test.

    Per slope kind: Z (×(1 + coef)) at S, the exact sparse walk, the dense kernel, TV at 1.
    Returns the number of pairs written to ``out_*`` (all pairs i != k if ``emit_all``).
    """
    n = P.shape[0]
    G = grid.size
    Gs = sparse.size
    m = rows.size
    buf = np.zeros((_BLOCK, n, max(Gs, 1)))
    s = np.zeros((_BLOCK, G))
    live = np.zeros(_BLOCK, dtype=np.bool_)
    thr = np.empty(max(Gs, 1))
    lam_sp = np.empty(max(Gs, 1))
    for g in range(Gs):
        lam_sp[g] = grid[sparse[g]]
    allg = np.arange(G)
    nref = first.size + (1 if kind[G - 1] == _TV else 0)
    refine = np.empty(nref, dtype=np.int64)
    refine[: first.size] = first
    if nref > first.size:
        refine[nref - 1] = G - 1  # λ = 1
    cnt = 0
    for b0 in range(0, m, _BLOCK):
        nb = min(m, b0 + _BLOCK) - b0
        if Gs > 0:
            buf[:nb] = 0.0
            for r in range(nb):
                i = rows[b0 + r]
                for j in range(n):
                    p = P[i, j]
                    if p == 0.0:
                        continue
                    for g in range(Gs):
                        thr[g] = p * _WIDEN / lam_sp[g]
                    top = thr[Gs - 1]
                    col = VsT[j]
                    idx = IsT[j]
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
        for k in range(n):
            anyone = False
            for r in range(nb):
                i = rows[b0 + r]
                ok = i != k and (emit_all or not seeded[i, k])
                live[r] = ok
                if ok:
                    anyone = True
                    for g in range(G):
                        if kind[g] == _ZERO:
                            s[r, g] = Z[i, k] * (1.0 + coef)
                        elif kind[g] == _TV:
                            s[r, g] = TV[i, k]
                    for g in range(Gs):
                        s[r, sparse[g]] = buf[r, k, g] + n * (4.0 * _TINY64
                                                             + lam_sp[g] * _TINY_WALK)
            if not anyone:
                continue
            _dense_into(P, P32, fs, coef, coef32, rows, b0, nb, k, grid, grid32, first, True,
                        s, live)
            if not emit_all:
                anyone = False
                for r in range(nb):
                    if live[r]:
                        if _dominated(s[r], gi1, gpos1, lam, H, Dsc):
                            live[r] = False
                        else:
                            anyone = True
                if not anyone:
                    continue
            if second.size > 0:
                _dense_into(P, P32, fs, coef, coef32, rows, b0, nb, k, grid, grid32, second,
                            False, s, live)
            if not emit_all:
                anyone = False
                for r in range(nb):
                    if live[r]:
                        if second.size > 0 and _dominated(s[r], allg, gpos, lam, H, Dsc):
                            live[r] = False
                        else:
                            anyone = True
                if not anyone:
                    continue
                # the float32 bounds (TV, first stage) again in float64: pairs that tie
                # with the hull need the float64 allowance, which is under the slack
                _dense_into(P, P32, fs, coef, coef32, rows, b0, nb, k, grid, grid32, refine,
                            False, s, live)
                for r in range(nb):
                    if live[r] and _dominated(s[r], allg, gpos, lam, H, Dsc):
                        live[r] = False
            for r in range(nb):
                if not live[r]:
                    continue
                out_i[cnt] = rows[b0 + r]
                out_k[cnt] = k
                for g in range(G):
                    out_s[cnt, g] = s[r, g]
                cnt += 1
    return cnt


def loss_function(matrix: ArrayLike, **kwargs) -> LossFunction:
    """Precompute ``L_P`` of a transition matrix (see :class:`LossFunction`)."""
    return LossFunction(matrix, **kwargs)


def as_loss(obj: LossFunction | ArrayLike, name: str = "the transition matrix") -> LossFunction:
    """A :class:`LossFunction` as is, or one built from a matrix."""
    if isinstance(obj, LossFunction):
        return obj
    return LossFunction(obj, name=name)
