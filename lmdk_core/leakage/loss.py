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

1. seeds (pairs with the largest total variation, the largest mass on ``d_j = 0``, and
   every column's largest ratio) are sorted exactly and give a first hull;
2. every pair's ``σ_pair(λ) = Σ_j max(q_j − λd_j, 0)`` is bounded from above on a grid
   of slopes taken from that hull: at large λ exactly from the few triples with
   ``λ P_kj < P_ij`` (non-negative terms), at small λ as an L1 distance
   ``½(‖q − λd‖₁ + Σq − λΣd)`` by ``scipy.spatial.distance.cdist`` (with its rounding
   bound added), at λ = 1 (total variation) with exactly rounded row sums;
3. ``σ_pair`` is convex in λ, so it lies under the chord of its grid values; a pair
   whose chord stays under the hull's ``σ`` at every hull slope cannot raise ``L_P``
   and is dropped (a relative slack of ``1e-11`` is allowed, which changes ``L_P`` by
   at most ``1e-11``);
4. the survivors are sorted (one int64 sort per pair, see :func:`_chain_points`) in
   order of decreasing total variation, each batch re-tested against the grown hull.

Matrices whose ratios span hundreds of orders of magnitude defeat step 3 and fall back
to sorting nearly every pair (still ``O(n²)`` memory). From 256 states on, the heavy
numpy work runs in two threads.

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
        """
        h = np.interp(D, self.D, self.Q)
        right = D > self.D[-1]
        if np.any(right):
            h[right] = self.Q[-1] + (D[right] - self.D[-1])
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
    from scipy.spatial.distance import cdist

    n = P.shape[0]
    rs = P.sum(axis=1)
    coef = (n + 8) * 2 * _U  # rounding allowance per unit of summed magnitude
    # Z[i, k] = Σ_j P_ij [P_kj = 0]: the chain's height at D = 0 (σ_pair(λ) for λ >= S).
    Z = P @ (P == 0).T.astype(float)
    np.fill_diagonal(Z, 0.0)
    # S = the largest finite ratio P_ij / P_kj: no chain edge after D = 0 is steeper.
    colmax = P.max(axis=0)
    colmin = np.where(P > 0, P, np.inf).min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratios = colmax / colmin
    ratios = ratios[np.isfinite(ratios)]
    S = max(float(ratios.max()) if ratios.size else 1.0, 1.0)
    # TV[i, k] = σ_pair(1) = Σ_j max(P_ij − P_kj, 0) = ½(‖q − d‖₁ + Σq − Σd), upper bound.
    # At λ = 1 there is no cancellation: each |q_j − d_j| is rounded relatively, so the
    # allowance is relative to ‖q − d‖₁ plus a few ulps for adding the row sums.
    # Row sums are exactly rounded (fsum), so rs_i − rs_k is off by at most one ulp.
    C1 = cdist(P, P, "cityblock")
    fs = np.array([math.fsum(row) for row in P.tolist()])
    TV = 0.5 * (C1 + (fs[:, None] - fs[None, :])) + coef * C1
    TV += _U * (fs[:, None] + fs[None, :])  # |Δ error| <= u·(rs_i + rs_k), halved, x2
    del C1
    np.fill_diagonal(TV, -1.0)

    # Seeds: the pairs most likely on the hull — largest TV, largest Z, and for every
    # state the pair with the largest ratio in that state's column.
    m = min(n * (n - 1), 2 * n)
    flat_tv = np.argpartition(TV.ravel(), -m)[-m:]
    flat_z = np.argpartition(Z.ravel(), -m)[-m:]
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
    seeded = np.zeros((n, n), dtype=bool)
    seeded[si, sk] = True

    # Grid of slopes S = λ_0 > λ_1 > ... > λ_G = 1 at which every pair's σ is bounded.
    Vs = np.sort(P, axis=0)
    Is = np.argsort(P, axis=0, kind="stable")
    grid, methods = _choose_grid(P, Vs, hull, S, coef)
    G = grid.size

    threads = 2 if n >= _THREADS_N else 1
    rows_per_chunk = max(1, (memory_elements * 8) // max(n * (G + 1), 1))
    checks = _Checks(hull, grid)
    surv_i: list[np.ndarray] = []
    surv_k: list[np.ndarray] = []
    surv_s: list[np.ndarray] = []
    for start in range(0, n, rows_per_chunk):
        rows = np.arange(start, min(n, start + rows_per_chunk))
        sig = np.empty((rows.size, n, G))

        def fill(g: int, rows: np.ndarray = rows, sig: np.ndarray = sig) -> None:
            lam = grid[g]
            if g == 0 and methods[g] == "zero":
                sig[:, :, g] = Z[rows] * (1.0 + coef)
            elif g == G - 1:
                sig[:, :, g] = TV[rows]
            elif methods[g] == "sparse":
                sig[:, :, g] = _sigma_sparse(P, Vs, Is, lam, rows, coef, memory_elements)
            else:
                c = cdist(P[rows], lam * P, "cityblock")
                sig[:, :, g] = 0.5 * (c + rs[rows, None] - lam * rs[None, :]) + coef * (
                    rs[rows, None] + lam * rs[None, :]
                )

        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(fill, range(G)))
        else:
            for g in range(G):
                fill(g)
        sig = sig.reshape(-1, G)
        keep = ~checks.dominated(sig)
        ii = np.repeat(rows, n)
        kk = np.tile(np.arange(n), rows.size)
        keep &= (ii != kk) & ~seeded[rows].ravel()
        surv_i.append(ii[keep])
        surv_k.append(kk[keep])
        surv_s.append(sig[keep])
        del sig
    si = np.concatenate(surv_i)
    sk = np.concatenate(surv_k)
    ss = np.concatenate(surv_s)
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
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending: deque = deque()
        for batch in batches:
            if state["version"] is not hull.D:
                state["checks"] = _Checks(hull, grid)
                state["version"] = hull.D
            pending.append(pool.submit(work, *batch, state["checks"]))
            if len(pending) >= 3:
                D, Q, cnt = pending.popleft().result()
                hull.add(D, Q)
                sorted_pairs += cnt
        while pending:
            D, Q, cnt = pending.popleft().result()
            hull.add(D, Q)
            sorted_pairs += cnt
    return sorted_pairs


def _sigma_sparse(P: np.ndarray, Vs: np.ndarray, Is: np.ndarray, lam: float, rows: np.ndarray,
                  coef: float, budget: int) -> np.ndarray:
    """Upper bounds of ``σ_pair(λ) = Σ_j max(P_ij − λP_kj, 0)`` for pairs (rows × all k).

    Enumerates only the triples (i, k, j) with ``λ P_kj < P_ij`` (few when λ is large):
    for row i and column j they are a prefix of column j sorted ascending (``Vs``,
    ``Is``). All terms are non-negative, so the rounding error is relative; it is
    added (``coef · Σ (P_ij + λP_kj)`` over the terms) to make the result an upper bound.
    """
    n = P.shape[0]
    c = rows.size
    Pr = P[rows]
    thr = Pr * ((1.0 + 8 * _U) / lam)  # generous: extra terms are clipped at 0 below
    cnt = np.empty((c, n), dtype=np.int64)
    for j in range(n):
        cnt[:, j] = np.searchsorted(Vs[:, j], thr[:, j], side="left")
    flat = cnt.ravel()
    cum = np.cumsum(flat)
    out = np.zeros(c * n)
    Pr_flat = Pr.ravel()
    start = 0
    done = 0
    while start < flat.size:
        stop = int(np.searchsorted(cum, done + budget, side="right"))
        stop = max(stop, start + 1)
        counts = flat[start:stop]
        tot = int(counts.sum())
        if tot:
            idx = np.repeat(np.arange(start, stop), counts)
            offs = np.repeat(np.cumsum(counts) - counts, counts)
            pos = np.arange(tot) - offs
            il, j = np.divmod(idx, n)
            k = Is[pos, j]
            pij = Pr_flat[idx]
            lp = lam * P[k, j]
            w = np.maximum(pij - lp, 0.0) + coef * (pij + lp)
            out += np.bincount(il * n + k, weights=w, minlength=c * n)
        done = int(cum[stop - 1])
        start = stop
    return out.reshape(c, n)


def _survivor_batches(si, sk, ss, n, budget):
    full = max(1, budget // max(n, 1))
    size = max(1, min(full, 4096 // max(n, 1) + 1))
    start = 0
    while start < si.size:
        stop = min(si.size, start + size)
        yield si[start:stop], sk[start:stop], ss[start:stop]
        start = stop
        size = min(full, size * 2)


def _choose_grid(P: np.ndarray, Vs: np.ndarray, hull: _Hull, S: float, coef: float,
                 max_inner: int = 20) -> tuple[np.ndarray, list[str]]:
    """Slopes at which every pair's σ is bounded, and how: S (from Z), inner slopes, 1.

    Inner slopes are hull edge slopes spread evenly in log λ. Each is computed exactly
    from the sparse triples when there are few of them (large λ), else by ``cdist``
    when its cancellation error (~ n·u·λ) is negligible against the hull's σ(λ), else
    skipped.
    """
    n = P.shape[0]
    if S <= 1.0:  # every finite ratio is 1: a chain is the single point (0, Z) = (0, TV)
        return np.array([1.0]), ["tv"]
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
    methods: list[str] = []
    sigma_h = hull.sigma(sl) if sl.size else np.zeros(0)
    sample = Vs  # column-sorted values; count triples with λ P_kj < P_ij
    for lam, sh in zip(sl[::-1].tolist(), sigma_h[::-1].tolist(), strict=True):
        thr = sample / lam
        count = 0
        for j in range(n):
            count += int(np.searchsorted(sample[:, j], thr[:, j], side="left").sum())
            if count > 8 * n * n:
                break
        if count <= 8 * n * n:
            inner.append(lam)
            methods.append("sparse")
        elif coef * (1.0 + lam) <= 1e-7 * sh:
            inner.append(lam)
            methods.append("cdist")
    return np.array([S, *inner, 1.0]), ["zero", *methods, "tv"]


class _Checks:
    """Sound dominance test of a pair from upper bounds of its σ on a grid of slopes.

    ``σ_pair`` is convex in λ, so on each grid interval it lies under the chord of its
    grid values; ``σ_hull`` is convex and piecewise linear with kinks at the hull's
    edge slopes, so chord − σ_hull is concave between kinks and it is enough to test
    at the kinks and the grid points (λ in [1, S]; beyond S both are constant).
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
        self.sigma_h = sig * (1.0 + _PRUNE_RTOL)
        # weights W (G × C): chord value at check c = sig @ W[:, c]
        G = grid.size
        W = np.zeros((G, lam.size))
        for c, lc in enumerate(lam):
            g = int(np.searchsorted(-grid, -lc, side="right")) - 1  # grid[g] >= lc
            g = min(max(g, 0), G - 1)
            if grid[g] == lc or g == G - 1:
                W[g, c] = 1.0
            else:
                w = (lc - grid[g + 1]) / (grid[g] - grid[g + 1])
                W[g, c] = w
                W[g + 1, c] = 1.0 - w
        self.W = W

    def dominated(self, sig: np.ndarray) -> np.ndarray:
        """True for pairs (rows of ``sig``, shape (m, G)) that cannot raise L_P."""
        out = np.empty(sig.shape[0], dtype=bool)
        block = max(1, (1 << 22) // max(self.W.shape[1], 1))
        for a in range(0, sig.shape[0], block):
            chord = sig[a : a + block] @ self.W
            out[a : a + block] = np.all(chord <= self.sigma_h[None, :], axis=1)
        return out


def loss_function(matrix: ArrayLike, **kwargs) -> LossFunction:
    """Precompute ``L_P`` of a transition matrix (see :class:`LossFunction`)."""
    return LossFunction(matrix, **kwargs)


def as_loss(obj: LossFunction | ArrayLike, name: str = "the transition matrix") -> LossFunction:
    """A :class:`LossFunction` as is, or one built from a matrix."""
    if isinstance(obj, LossFunction):
        return obj
    return LossFunction(obj, name=name)
