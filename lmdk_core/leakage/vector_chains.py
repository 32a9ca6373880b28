r"""Many BPL/FPL recursions advanced together as numpy vectors, without compiled code.

Cao, Yoshikawa, Xiao, Xiong (ICDE'17, Eq. (12)–(14); TKDE'18): backward and forward
privacy leakage follow ``a_t = L(a_{t−1}) + ε_t`` with the loss function ``L``
(:class:`~lmdk_core.leakage.loss.LossFunction`); the landmark TPL of a population's
audit (Katsomallos et al., CODASPY'22; :mod:`~lmdk_core.leakage.tpl_many`) runs two such
recursions per user, restarted at the user's landmarks. :func:`run_chains` advances the
recursions of every user of a block together, one timestamp per step, each chain with
its own budget, restarts and loss function: about a dozen numpy calls per step whatever
the number of chains, so on a block of a few hundred users it costs about what the
compiled chains (:func:`~lmdk_core.leakage.recursion.chains_kernel`) cost, and a
process that never needed numba does not load it (0.8 s of CPU per process).

Every element does the operations of :meth:`LossFunction.scalar
<lmdk_core.leakage.loss.LossFunction.scalar>` in their order: ``x = expm1(a)``, the hull
vertex ``k`` of x (:class:`VertexTables`: the number of the loss function's crossings
``<= x``, which is ``searchsorted(side="right")`` in its ascending table), then
``log1p((Q_k − D_k)·x / (1 + D_k·x)) + ε_t``. So each chain's doubles are those of the
one-recursion loop (:func:`~lmdk_core.leakage.recursion.recurse`) wherever numpy's
``expm1`` and ``log1p`` are the C library's functions, as the compiled loop's are:
:func:`numpy_is_libm` tells (numpy's baseline loops; a processor with AVX-512 runs
numpy's own SIMD versions, and the callers keep the compiled loop there).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from lmdk_core.leakage.loss import LOG_BRANCH_ALPHA, LossFunction
from lmdk_core.leakage.restarts import SAFE_SEGMENT_ALPHA

__all__ = ["CHECK_EVERY", "ChainsResult", "VertexTables", "numpy_is_libm", "run_chains"]

#: steps between two checks of the log branch (see :func:`run_chains`)
CHECK_EVERY = 64


@functools.cache
def numpy_is_libm() -> bool:
    """Whether numpy's float64 ``expm1`` and ``log1p`` run their baseline loops, which
    call the C library's ``expm1`` / ``log1p`` (those the compiled loops and
    :mod:`math` call): then the vector recursions give the compiled loops' doubles. On a
    processor where numpy dispatches them to its AVX-512 code (``X86_V4``) the results
    may differ in the last bits, and False sends the callers to the compiled loops."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:  # pragma: no cover - numpy < 2.0
        return False
    info = opt_func_info(func_name="^(expm1|log1p)$", signature="float64")
    current = [str(sig.get("current", "")) for fn in ("expm1", "log1p")
               for sig in info.get(fn, {}).values()]
    return len(current) == 2 and all(c.startswith("baseline") for c in current)


class VertexTables:
    """The hull tables of several loss functions side by side, for vector lookups.

    ``thr`` (M, n): column j holds loss function j's crossings (ascending) padded with
    +inf to the longest table's length M; ``v_start[j]`` is where its vertex tables start
    in ``qmd`` (``Q − D``), ``d`` (``D``) and ``q`` (``Q``), all end to end. The flat
    crossings ``thr_all`` (``thr_start``, ``thr_len``) serve the compiled chains. A
    loss function is added once per object (:meth:`add`); :meth:`freeze` builds the
    arrays."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.losses: list[LossFunction] = []

    def add(self, loss: LossFunction) -> int:
        """The column of ``loss`` in the tables (added once per object)."""
        key = id(loss)
        if key not in self.ids:
            self.ids[key] = len(self.losses)
            self.losses.append(loss)
        return self.ids[key]

    def freeze(self) -> VertexTables:
        """Build the arrays from the loss functions added so far; returns self."""
        thr = [L._x_thr for L in self.losses]
        self.thr_len = np.array([a.size for a in thr], dtype=np.intp)
        self.thr_start = np.r_[0, np.cumsum(self.thr_len)[:-1]].astype(np.intp)
        self.thr_all = np.concatenate(thr) if thr else np.zeros(0)
        width = int(self.thr_len.max()) if thr else 0
        self.thr = np.full((width, len(thr)), np.inf)
        for j, a in enumerate(thr):
            self.thr[:a.size, j] = a
        v_len = np.array([L._wD.size for L in self.losses], dtype=np.intp)
        self.v_start = np.r_[0, np.cumsum(v_len)[:-1]].astype(np.intp)
        self.qmd = np.concatenate([L._wQmD for L in self.losses]) if thr else np.zeros(0)
        self.d = np.concatenate([L._wD for L in self.losses]) if thr else np.zeros(0)
        self.q = np.concatenate([L._wQ for L in self.losses]) if thr else np.zeros(0)
        #: a NaN crossing would make the count differ from a binary search
        self.countable = not bool(np.isnan(self.thr_all).any())
        return self


def vertex_index(thr_cols: np.ndarray, x: np.ndarray, v_start: np.ndarray,
                 cmp: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[i]`` = ``v_start[i]`` + the number of column i of ``thr_cols`` (M, n) that
    are ``<= x[i]``: ``searchsorted(side="right")`` in each element's own ascending
    table (padded with +inf, never ``<=`` a finite x), plus where its vertices start.
    ``cmp`` (M, n) bool is scratch space."""
    np.less_equal(thr_cols, x, out=cmp)
    np.add.reduce(cmp, axis=0, dtype=np.intp, out=out)
    out += v_start
    return out


class ChainsResult:
    """The recursions of :func:`run_chains`: ``values[:length_c, col[c]]`` is chain c's
    output in its own step order, ``done[c]`` the number of its steps done (its length,
    unless its value left the range of the loss function's fast branch)."""

    def __init__(self, values: np.ndarray, col: np.ndarray, done: np.ndarray) -> None:
        self.values, self.col, self.done = values, col, done

    def chain(self, c: int, n: int) -> np.ndarray:
        """The first ``n`` steps of chain c (a view)."""
        return self.values[:n, self.col[c]]


def run_chains(eps: Sequence[np.ndarray], restart: Sequence[np.ndarray],
               loss: np.ndarray, tables: VertexTables) -> ChainsResult:
    """The recursions ``a_t = L_c(a_{t−1}) + ε_t`` from ``a_{−1} = 0`` of every chain c,
    state 0 after every step t with ``restart[c][t]``, advanced together.

    Parameters
    ----------
    eps : sequence of numpy.ndarray
        Chain c's budgets in its step order (an FPL chain: the budget reversed).
    restart : sequence of numpy.ndarray of bool
        Where chain c restarts (after that step), same lengths.
    loss : numpy.ndarray of int
        Chain c's loss function: a column of ``tables`` (frozen).
    tables : VertexTables
        The loss functions' tables.

    Returns
    -------
    ChainsResult
        Every chain's values; a chain whose value exceeds the loss function's log branch
        (``α > 700``) stops there (``done``), as the compiled loops do.

    The chains are ordered by length, so after step t only those longer than t go on (a
    prefix of the columns). The log branch is checked every :data:`CHECK_EVERY` steps:
    no value grows by more than its budget in a step (``L(α) <= α``), so while the
    largest value plus the window's largest budget times its length stays below
    :data:`~lmdk_core.leakage.restarts.SAFE_SEGMENT_ALPHA` (650, a margin of 50 for
    rounding) no chain can reach 700 in the window; otherwise every step of it is
    checked."""
    n_ch = len(eps)
    lengths = np.array([e.size for e in eps], dtype=np.intp)
    order = np.argsort(-lengths, kind="stable")
    col = np.empty(n_ch, dtype=np.intp)
    col[order] = np.arange(n_ch)
    T = int(lengths.max()) if n_ch else 0
    rows = np.zeros((n_ch, T))
    marks = np.zeros((n_ch, T), dtype=bool)
    for j, c in enumerate(order.tolist()):
        rows[j, :lengths[c]] = eps[c]
        marks[j, :lengths[c]] = restart[c]
    E = np.ascontiguousarray(rows.T)  # (T, chains): one step's budgets contiguous
    R = np.ascontiguousarray(marks.T)
    restart_steps = set(np.flatnonzero(R.any(axis=1)).tolist())
    del rows, marks
    sorted_len = lengths[order]
    # after step t, chains [0, alive[t]) go on
    alive = np.searchsorted(-sorted_len, -np.arange(1, T + 1), side="left")
    out = np.empty((T, n_ch))
    done = lengths.copy()
    if T == 0:
        return ChainsResult(out, col, done)
    thr_cols = tables.thr[:, loss[order]]
    v_start = tables.v_start[loss[order]]
    qmd, dtab = tables.qmd, tables.d
    a_buf = np.zeros(n_ch)
    x_buf, q_buf, d_buf = np.empty(n_ch), np.empty(n_ch), np.empty(n_ch)
    k_buf = np.empty(n_ch, dtype=np.intp)
    cmp_buf = np.empty(thr_cols.shape, dtype=bool)
    n = n_ch
    a = a_buf
    x, q, d, k = x_buf, q_buf, d_buf, k_buf
    thr_n, v_n, cmp = thr_cols, v_start, cmp_buf
    check = False
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            if t and alive[t - 1] != n:  # the chains of length t end: narrower views
                n = int(alive[t - 1])
                a, x, q, d, k = a[:n], x_buf[:n], q_buf[:n], d_buf[:n], k_buf[:n]
                thr_n, v_n, cmp = thr_cols[:, :n], v_start[:n], cmp_buf[:, :n]
            if t % CHECK_EVERY == 0:
                window = E[t:t + CHECK_EVERY, :n]
                check = float(a.max()) + float(window.max()) * window.shape[0] \
                    > SAFE_SEGMENT_ALPHA
            if check:
                over = a > LOG_BRANCH_ALPHA
                if over.any():
                    gone = order[:n][over]
                    done[gone] = np.minimum(done[gone], t)
                    a = np.where(over, 0.0, a)  # its values from here on are not read
            np.expm1(a, out=x)
            np.less_equal(thr_n, x, out=cmp)  # vertex_index, inline
            np.add.reduce(cmp, axis=0, dtype=np.intp, out=k)
            k += v_n
            qmd.take(k, out=q, mode="clip")  # k is in range: "clip" only skips a copy
            dtab.take(k, out=d, mode="clip")
            q *= x
            d *= x
            d += 1.0
            q /= d  # (Q − D)·x / (1 + D·x)
            a = out[t, :n]
            np.log1p(q, out=a)
            a += E[t, :n]
            if t in restart_steps:
                a = np.where(R[t, :n], 0.0, a)
    return ChainsResult(out, col, done)
