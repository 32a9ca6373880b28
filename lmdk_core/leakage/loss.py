r"""The loss function ``L_P(α)`` of a transition matrix, precomputed once.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17, Theorems 4–5; TKDE'18): the privacy leakage carried from one
timestamp to the next through a transition matrix ``P`` is

.. math::

    L_P(α) = \max_{q, d} \max_S \log \frac{q(S)\,(e^α - 1) + 1}{d(S)\,(e^α - 1) + 1}

over ordered pairs ``(q, d)`` of distinct rows of ``P`` and subsets ``S`` of states.
The precomputation keeps the upper convex hull of the candidate points
``(D, Q) = (d(S), q(S))`` (:mod:`~lmdk_core.leakage.hull`; where it pays,
:func:`_prune_pays`, most pairs are discarded without sorting,
:mod:`~lmdk_core.leakage.pruning` with the numba kernels of
:mod:`~lmdk_core.leakage.kernels`); evaluation picks the optimal vertex by
one ``searchsorted`` on the vertices' crossing points. The derivation, the pruning and
its rounding bounds are in docs/leakage-algorithm.md.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage.correlation import check_transition_matrices, check_transition_matrix
from lmdk_core.leakage.hull import (
    Hull,
    HullPoints,
    build_exact,
    chain_points_many,
    hulls_many,
    one_batch,
    upper_hull,
)

__all__ = ["LOG_BRANCH_ALPHA", "LossFunction", "LossPair", "LossStats", "loss_function", "as_loss",
           "loss_functions", "loss_pair", "upper_hull"]

#: the loss function's log branch: above this α, ``e^α − 1`` is evaluated through logs
#: (``e^α`` overflows at ~709.8); the recursions' fast loops
#: (:mod:`~lmdk_core.leakage.recursion`, :mod:`~lmdk_core.leakage.restarts`) hand over
#: to :meth:`LossFunction.scalar` / :meth:`LossFunction.evaluate` above it.
LOG_BRANCH_ALPHA = 700.0
#: the measured crossover of the two builds once the pruning kernels are loaded: at 48
#: states they cost the same, from 56 the pruned build is 1.4–2.5× faster
#: (``benchmarks/bench_cli.py --loss-curve``); at or below it the exact build always runs.
_WARM_PRUNE_N = 52
#: both builds' cost in seconds per n³ (sorting or bounding n(n − 1) pairs of n columns),
#: fitted to the same measurements for n = 64–320 (Dirichlet rows, this 2-core machine):
#: exact 5·10⁻⁸, pruned 1.2·10⁻⁸; loading the pruning kernels from numba's cache costs
#: 0.3–0.57 s more than numba's import (0.55 taken: a whole ``lmdk loss`` prunes slower
#: than it sorts at 256 states, faster at 300); the overhead makes the loaded crossover
#: n ≈ 52.
_PRUNE_COST = {"python_s": 5.0e-8, "compiled_s": 1.2e-8, "load_s": 0.55,
               "overhead_s": 5.3e-3}
_chooser = None  # the PathChooser of the pruned build, made at the first large matrix
_kernels_loaded = False  # whether a pruned build ran in this process


def _prune_pays(n: int) -> bool:
    """Whether the pruned build (numba kernels) is cheaper than the exact build for an
    ``n``-state matrix in this process: by the measured cost curves, counting numba's
    import and the kernels' load when they are not loaded yet, and what exact builds
    have already cost this process (:class:`lmdk_core.foundation.compiled_paths.PathChooser`,
    the same rule as Adaptive's compiled kernels; units of n³). A single cold build
    loads numba from about 290 states (245 with numba already imported); once
    loaded, from 53."""
    global _chooser
    if n <= _WARM_PRUNE_N:
        return False
    from lmdk_core.foundation.compiled_paths import KernelCost, PathChooser

    if _chooser is None:
        _chooser = PathChooser(KernelCost(**_PRUNE_COST))
    return _chooser.use_compiled(n ** 3, _kernels_loaded)


@dataclass(frozen=True)
class LossStats:
    """How the precomputation went (for benchmarks and the curious)."""

    n_states: int
    pairs: int
    pairs_sorted: int
    hull_vertices: int


def optimal_vertices(D: ArrayLike, Q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The hull vertices ``(D, Q)`` (D ascending) that can be optimal for some α > 0:
    all but ``(0, 0)``, which is never optimal once other vertices exist."""
    D = np.asarray(D, dtype=float)
    Q = np.asarray(Q, dtype=float)
    if D.size > 1 and Q[0] == 0.0:
        return D[1:], Q[1:]
    return D, Q


def vertex_crossings(Da: np.ndarray, Qa: np.ndarray, Db: np.ndarray, Qb: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Where the curves of adjacent hull vertices ``a = v_{j−1}``, ``b = v_j`` cross
    (Cao et al., ICDE'17: ``log((Q x + 1)/(D x + 1))`` of each vertex, equal at one
    ``x > 0``): ``x_j = [(Q_b − Q_a) − (D_b − D_a)] / (Q_a D_b − Q_b D_a)`` (0 at least,
    ∞ where the denominator is not positive), and the same crossings in logs, finite
    even where the ratio overflows (a d(S) near the smallest float), used for α > 700
    where x overflows: ``log den = log(Q_a D_b) + log1p(−Q_b D_a / (Q_a D_b))`` all in
    logs (``Q_a D_b`` may underflow to 0 although the crossing is finite). Element-wise:
    the crossings of many hulls' vertex pairs in one call are each pair's own."""
    num = (Qb - Qa) - (Db - Da)
    den = Qa * Db - Qb * Da
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xs = np.where(den > 0, num / den, np.inf)
        lqa, lqb = np.log(Qa), np.log(Qb)
        lda, ldb = np.log(Da), np.log(Db)
        log_den = lqa + ldb + np.log1p(-np.exp(lqb + lda - lqa - ldb))
        log_xs = np.log(np.maximum(num, 0.0)) - log_den
        log_xs = np.where(np.isnan(log_xs), np.inf, log_xs)
    return np.maximum(xs, 0.0), log_xs


def running_min(x: np.ndarray) -> np.ndarray:
    """``x`` made non-increasing along its last axis (its running minimum): the crossings
    of a hull's vertices in order, guarded against rounding (a 2-D ``x``: each row on
    its own)."""
    return np.minimum.accumulate(x, axis=-1)


class LossFunction:
    r"""``L_P(α)`` of a transition matrix ``P`` (Cao et al., ICDE'17 Thm 4–5; TKDE'18).

    .. math::

        L_P(α) = \max_{q \ne d \text{ rows of } P} \max_S
                 \log \frac{q(S)(e^α-1)+1}{d(S)(e^α-1)+1}

    Build once (``O(n²)`` memory; the hull algorithm is in docs/leakage-algorithm.md),
    then call with a number or an array of ``α >= 0``. Properties used by the TPL
    recursions: ``L(0) = 0``, ``0 <= L(α) <= α``, ``L`` non-decreasing; ``L ≡ 0``
    when all rows are equal, ``L(α) = α`` when two rows have disjoint supports.

    Parameters
    ----------
    matrix : array_like
        A row-stochastic ``n × n`` matrix (entries >= 0, rows summing to 1).
    name : str
        How error messages name the matrix.
    prune : bool, optional
        Discard pairs without sorting them (:mod:`~lmdk_core.leakage.pruning`, compiled
        kernels); default: where it pays by the measured costs (:func:`_prune_pays`:
        a fresh process from about 290 states, once numba's kernels are loaded from 53).
    memory_elements : int
        Size (in float64 elements) of the per-chunk work arrays.

    Attributes
    ----------
    n_states : int
        Number of states ``n``.
    vertex_D, vertex_Q : numpy.ndarray
        The hull vertices ``(d(S), q(S))`` that are optimal for some α (D ascending).
    breakpoints : numpy.ndarray
        The α at which the optimal vertex changes.
    is_zero : bool
        True when ``L ≡ 0`` (all rows equal).
    stats : LossStats
        How the precomputation went.

    Raises
    ------
    InputError
        If ``matrix`` is not a transition matrix, or (when called) an α is negative,
        infinite or not a number.

    Examples
    --------
    >>> L = LossFunction([[0.8, 0.2], [0.1, 0.9]])
    >>> round(L(1.0), 6)  # log((0.8·x + 1)/(0.1·x + 1)), x = e − 1: rows 0 vs 1, S = {0}
    0.706275
    >>> L([0.0, 0.5]).round(6).tolist()
    [0.0, 0.355182]
    >>> LossFunction([[1.0, 0.0], [0.0, 1.0]])(2.0)  # disjoint rows: L(α) = α
    2.0
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
        hull = Hull()
        sorted_pairs = 0
        if n >= 2:
            if prune is None:
                prune = _prune_pays(n)
            if prune:  # imports numba: only where it pays (_prune_pays)
                global _kernels_loaded
                from lmdk_core.leakage.pruning import build_pruned

                sorted_pairs = build_pruned(P, hull, memory_elements)
                _kernels_loaded = True
            else:
                sorted_pairs = build_exact(P, hull, memory_elements)
        self._finish(n, hull, sorted_pairs)

    @classmethod
    def _of_hull(cls, n: int, hull: Hull, sorted_pairs: int) -> LossFunction:
        """The loss function of an ``n``-state matrix whose hull is already built
        (:func:`loss_functions`)."""
        self = cls.__new__(cls)
        self._finish(n, hull, sorted_pairs)
        return self

    def _finish(self, n: int, hull: Hull, sorted_pairs: int) -> None:
        self._set_vertices(hull.D, hull.Q)
        self._set_stats(n, int(sorted_pairs))

    def _set_stats(self, n: int, sorted_pairs: int) -> None:
        self.n_states = n
        self.stats = LossStats(
            n_states=n,
            pairs=n * (n - 1),
            pairs_sorted=sorted_pairs,
            hull_vertices=int(self.vertex_D.size),
        )

    # -- vertices and breakpoints ------------------------------------------------------
    def _set_vertices(self, D: np.ndarray, Q: np.ndarray) -> None:
        D, Q = optimal_vertices(D, Q)
        if D.size > 1:
            xs, log_xs = vertex_crossings(D[:-1], Q[:-1], D[1:], Q[1:])
            self._set_tables(D, Q, running_min(xs), running_min(log_xs))
        else:
            self._set_tables(D, Q, np.zeros(0), np.zeros(0))

    def _set_tables(self, D: np.ndarray, Q: np.ndarray, xs: np.ndarray,
                    log_xs: np.ndarray) -> None:
        """The tables of the hull vertices ``(D, Q)`` (D ascending, as
        :func:`optimal_vertices` leaves them) and of their crossings ``xs`` and
        ``log_xs`` (:func:`vertex_crossings`, made non-increasing by
        :func:`running_min`; empty for one vertex)."""
        #: hull vertices (D ascending): the (d(S), q(S)) that can be optimal for some α
        self.vertex_D = D
        self.vertex_Q = Q
        # v_j is optimal for x in [x_{j+1}, x_j]; larger x favours smaller D
        self._x_thr = xs[::-1].copy()  # ascending
        self._log_x_thr = log_xs[::-1].copy()
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

        Parameters
        ----------
        a : numpy.ndarray
            1-D float array of α >= 0.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> import numpy as np
        >>> LossFunction([[0.8, 0.2], [0.1, 0.9]]).evaluate(np.array([0.0, 1.0])).round(6).tolist()
        [0.0, 0.706275]
        """
        if self.is_zero:
            return np.zeros(a.shape)
        if a.size and a.max() > LOG_BRANCH_ALPHA:
            return self._evaluate_big(a)
        x = np.expm1(a)
        k = self._x_thr.searchsorted(x, side="right")
        return np.log1p(self._wQmD.take(k) * x / (1.0 + self._wD.take(k) * x))

    def _evaluate_big(self, a: np.ndarray) -> np.ndarray:
        big = a > LOG_BRANCH_ALPHA
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
        """Fast ``L_P(α)`` for one Python float ``α >= 0`` (no validation).

        Parameters
        ----------
        a : float
            α >= 0.

        Returns
        -------
        float

        Examples
        --------
        >>> round(LossFunction([[0.8, 0.2], [0.1, 0.9]]).scalar(1.0), 6)
        0.706275
        """
        if self.is_zero:
            return 0.0
        if a > LOG_BRANCH_ALPHA:
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
        """``max`` over all hull vertices (slower; a cross-check of the breakpoints).

        Parameters
        ----------
        alpha : array_like
            α >= 0.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> LossFunction([[0.8, 0.2], [0.1, 0.9]]).evaluate_max([1.0]).round(6).tolist()
        [0.706275]
        """
        a = np.asarray(alpha, dtype=float).reshape(-1)
        x = np.expm1(np.minimum(a, LOG_BRANCH_ALPHA))[:, None]
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


def loss_function(matrix: ArrayLike, **kwargs) -> LossFunction:
    """Precompute ``L_P`` of a transition matrix (see :class:`LossFunction`).

    Parameters
    ----------
    matrix : array_like
        A row-stochastic matrix.
    **kwargs
        ``name``, ``prune``, ``memory_elements`` of :class:`LossFunction`.

    Returns
    -------
    LossFunction

    Examples
    --------
    >>> loss_function([[0.8, 0.2], [0.1, 0.9]]).stats
    LossStats(n_states=2, pairs=2, pairs_sorted=2, hull_vertices=1)
    """
    return LossFunction(matrix, **kwargs)


def loss_functions(matrices: list[ArrayLike],
                   name: str = "the transition matrix") -> list[LossFunction]:
    """``[LossFunction(P) for P in matrices]``, the same functions bit for bit, the
    prefix chains of every small matrix sorted together (Cao et al., ICDE'17, Theorems
    4–5): matrices of the same n whose pairs make one batch of the exact build
    (:func:`~lmdk_core.leakage.hull.build_exact`) have their rows stacked and pass
    through one :func:`~lmdk_core.leakage.hull.chain_points_many` call, then each its
    own hull; the others are built one by one. The population audit builds two per user.

    Examples
    --------
    >>> a, b = loss_functions([[[0.8, 0.2], [0.1, 0.9]], [[0.5, 0.5], [0.5, 0.5]]])
    >>> round(a(1.0), 6), b.is_zero
    (0.706275, True)
    """
    checked = check_transition_matrices(matrices, name)
    out: list[LossFunction | None] = [None] * len(checked)
    groups: dict[int, list[int]] = {}
    for i, P in enumerate(checked):
        n = P.shape[0]
        if 2 <= n and one_batch(n) and not _prune_pays(n):
            groups.setdefault(n, []).append(i)
    for n, idx in groups.items():
        points = chain_points_many([checked[i] for i in idx])
        hulls = hulls_many(points)  # all hulls in one compiled call where numba is loaded
        if hulls is not None:
            for i, f in zip(idx, _of_hulls(n, hulls), strict=True):
                out[i] = f
            continue
        for i, (D, Q) in zip(idx, points, strict=True):
            hull = Hull()
            hull.add(D, Q)  # build_exact's one batch
            out[i] = LossFunction._of_hull(n, hull, n * (n - 1))
    return [f if f is not None else LossFunction(P, name=name)
            for f, P in zip(out, checked, strict=True)]


def _of_hulls(n: int, hulls: list[HullPoints]) -> list[LossFunction]:
    """``LossFunction._of_hull(n, hull, n(n − 1))`` of every hull of ``hulls``, the same
    tables bit for bit: the crossings of every hull's adjacent vertices in one
    :func:`vertex_crossings` call (element-wise: each pair's own doubles), their running
    minima along the rows of one padded table (+∞ after a hull's last crossing changes
    no minimum before it), then each function's tables from its slices."""
    verts = [optimal_vertices(h.D, h.Q) for h in hulls]
    sizes = np.array([D.size for D, _ in verts], dtype=np.intp)
    pairs = np.maximum(sizes - 1, 0)
    D_all = np.concatenate([D for D, _ in verts])
    Q_all = np.concatenate([Q for _, Q in verts])
    # pair k of hull h: its vertices j and j + 1 (j = k), at offset[h] + j in D_all
    first_pair = np.r_[0, np.cumsum(pairs)[:-1]]
    a = np.repeat(np.r_[0, np.cumsum(sizes)[:-1]] - first_pair, pairs) + np.arange(pairs.sum())
    xs, log_xs = vertex_crossings(D_all[a], Q_all[a], D_all[a + 1], Q_all[a + 1])
    width = int(pairs.max()) if pairs.size else 0
    row = np.repeat(np.arange(sizes.size), pairs)
    col = np.arange(pairs.sum()) - np.repeat(first_pair, pairs)
    tx = np.full((sizes.size, width), np.inf)
    tl = np.full((sizes.size, width), np.inf)
    tx[row, col], tl[row, col] = xs, log_xs
    tx, tl = running_min(tx), running_min(tl)
    out = []
    for h, (D, Q) in enumerate(verts):
        f = LossFunction.__new__(LossFunction)
        f._set_tables(D, Q, tx[h, :pairs[h]], tl[h, :pairs[h]])
        f._set_stats(n, n * (n - 1))
        out.append(f)
    return out


def as_loss(obj: LossFunction | ArrayLike, name: str = "the transition matrix") -> LossFunction:
    """A :class:`LossFunction` as is, or one built from a matrix.

    Parameters
    ----------
    obj : LossFunction or array_like
        A loss function, or a matrix to build one from.
    name : str
        How error messages name the matrix.

    Returns
    -------
    LossFunction

    Examples
    --------
    >>> L = LossFunction([[0.8, 0.2], [0.1, 0.9]])
    >>> as_loss(L) is L
    True
    >>> as_loss([[1.0, 0.0], [0.0, 1.0]])(0.5)
    0.5
    """
    if isinstance(obj, LossFunction):
        return obj
    return LossFunction(obj, name=name)


class LossPair(NamedTuple):
    """The loss functions of a correlation model (:func:`loss_pair`; Cao et al., ICDE'17)."""

    #: L_B = L_{P_B}, for the backward privacy leakage
    backward: LossFunction
    #: L_F = L_{P_F}, for the forward privacy leakage
    forward: LossFunction


def loss_pair(backward: LossFunction | ArrayLike,
              forward: LossFunction | ArrayLike | None) -> LossPair:
    """The backward and forward loss functions ``(L_B, L_F)`` of a correlation model
    (Cao et al., ICDE'17: BPL runs on ``L_B = L_{P_B}``, FPL on ``L_F = L_{P_F}``), each
    as :func:`as_loss` gives it; ``forward=None`` uses the backward one for both.

    Parameters
    ----------
    backward : LossFunction or array_like
        The backward matrix ``P_B`` or its loss function.
    forward : LossFunction or array_like or None
        The forward matrix ``P_F`` or its loss function; None: the same as ``backward``.

    Returns
    -------
    tuple of LossFunction
        ``(L_B, L_F)``.

    Raises
    ------
    InputError
        If a matrix is not row-stochastic, or the two describe different numbers of states.

    Examples
    --------
    >>> lb, lf = loss_pair([[0.8, 0.2], [0.1, 0.9]], None)
    >>> lb is lf
    True
    >>> loss_pair([[1.0]], [[0.5, 0.5], [0.5, 0.5]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lmdk_core.foundation.errors.InputError: the backward matrix has 1 states but ...
    """
    lb = as_loss(backward, "the backward matrix")
    lf = lb if forward is None else as_loss(forward, "the forward matrix")
    if lf.n_states != lb.n_states:
        raise InputError(
            f"the backward matrix has {lb.n_states} states but the forward matrix has "
            f"{lf.n_states}; both must describe the same states"
        )
    return LossPair(lb, lf)
