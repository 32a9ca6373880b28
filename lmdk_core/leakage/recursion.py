"""The BPL/FPL recursion ``a_t = L(a_{t−1}) + ε_t``: the Python reference and its
compiled loop.

Cao, Yoshikawa, Xiao, Xiong, ICDE'17 (Eq. (12)–(14)) / TKDE'18: backward and forward
privacy leakage follow this recursion with the loss function ``L = L_P``
(:class:`~lmdk_core.leakage.loss.LossFunction`); :mod:`~lmdk_core.leakage.tpl` runs it
forwards (BPL) and on the reversed budget (FPL), restarted at landmarks. Recursions of
:data:`COMPILED_MIN_LENGTH` steps or more run in a numba loop with the operations of
:meth:`LossFunction.scalar` (tested equal bit for bit); numba is imported only then.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from collections.abc import Callable

import numpy as np

from lmdk_core.foundation.compiled_paths import compile_with_helpers
from lmdk_core.leakage.loss import LOG_BRANCH_ALPHA, LossFunction

__all__ = ["COMPILED_MIN_LENGTH", "chains_kernel", "recurse", "run_python", "steps_kernel"]

#: recursions at least this long run compiled (numba), when numba is installed
COMPILED_MIN_LENGTH = 2_000


def _vertex(thr, lo, length, x):  # pragma: no cover - compiled into the kernels by numba
    """The number of ``thr[lo : lo + length]`` (ascending) that are ``<= x``: numpy's
    ``searchsorted(side="right")`` by binary search, the hull vertex of ``x`` in a loss
    function's crossing table. Plain Python, made callable from the compiled loops
    (numba's ``register_jitable``, :func:`_compiled`)."""
    p, q = lo, lo + length
    while p < q:
        m = (p + q) // 2
        if thr[m] <= x:
            p = m + 1
        else:
            q = m
    return p - lo


def _run_steps(eps, restart, thr, wQ, wD, out):  # pragma: no cover - compiled by numba
    """The loop of :func:`recurse` for ``α <= 700``: ``L(α) = log1p((Q_k − D_k)x/(1 + D_k x))``
    with ``x = expm1(α)`` and ``k`` the hull vertex for x (``searchsorted`` right on the
    crossings), the same operations in the same order as :meth:`LossFunction.scalar`.
    Returns the number of steps done; fewer than ``eps.size`` when ``α`` left the range."""
    a = 0.0
    for t in range(eps.size):
        if a > LOG_BRANCH_ALPHA:  # the loss function's branch in logs: the Python loop goes on
            return t
        x = math.expm1(a)
        k = _vertex(thr, 0, thr.size, x)
        D = wD[k]
        a = math.log1p((wQ[k] - D) * x / (1.0 + D * x)) + eps[t]
        out[t] = a
        if restart[t]:
            a = 0.0
    return eps.size


def _run_chains(eps, restart, start, length, reverse, out_start, thr, t_start, t_len, wQ,
                wD, v_start, out, done):  # pragma: no cover - compiled by numba
    """Many recursions of :func:`_run_steps` at once, interleaved.

    Chain c runs over ``eps[start_c : start_c + length_c]`` (backwards when
    ``reverse_c``: the recursion of the reversed budget, as FPL runs), restarts after
    every ``restart`` index, uses the loss function whose crossings are
    ``thr[t_start_c : t_start_c + t_len_c]`` and vertices ``wQ, wD[v_start_c:]``, and
    writes ``out[out_start_c + i]`` for the budget's index i (a reversed chain's output
    comes back in the budget's order). Each step does the operations of
    :func:`_run_steps` in the same order (the hull vertex by the same binary search as
    ``searchsorted(side="right")``, :func:`_vertex`); chains are independent, so a group
    of 8 chains advances together one timestamp at a time, each step in three passes
    over the group (every ``expm1``, then every vertex and ratio, then every ``log1p``:
    the calls of a pass do not wait for one another, so the processor overlaps them;
    ~40% fewer seconds per step than one pass per chain). A step where a chain of the
    group has ended or is at the log branch runs chain by chain, with the checks.
    ``done_c`` is the number of steps done (fewer than ``length_c`` where α left the
    range, as in :func:`_run_steps`)."""
    n = start.size
    lanes = 8
    a = np.zeros(lanes)
    x = np.zeros(lanes)
    y = np.zeros(lanes)
    base = np.zeros(lanes, dtype=np.intp)  # the budget's index of the lane's step 0
    obase = np.zeros(lanes, dtype=np.intp)
    stride = np.zeros(lanes, dtype=np.intp)  # +1, or −1 for a reversed chain
    for g0 in range(0, n, lanes):
        g1 = min(n, g0 + lanes)
        w = g1 - g0
        longest = 0
        shortest = length[g0]
        for c in range(g0, g1):
            j = c - g0
            a[j] = 0.0
            done[c] = length[c]
            longest = max(longest, length[c])
            shortest = min(shortest, length[c])
            if reverse[c]:
                base[j] = start[c] + length[c] - 1
                obase[j] = out_start[c] + length[c] - 1
                stride[j] = -1
            else:
                base[j] = start[c]
                obase[j] = out_start[c]
                stride[j] = 1
        for t in range(longest):
            careful = t >= shortest
            for j in range(w):
                if a[j] > LOG_BRANCH_ALPHA:
                    careful = True
            if careful:  # chains ended or at the log branch: one by one, checked
                for c in range(g0, g1):
                    j = c - g0
                    if t >= done[c]:
                        continue
                    if a[j] > LOG_BRANCH_ALPHA:
                        done[c] = t
                        continue
                    xc = math.expm1(a[j])
                    k = v_start[c] + _vertex(thr, t_start[c], t_len[c], xc)
                    D = wD[k]
                    i = base[j] + stride[j] * t
                    v = math.log1p((wQ[k] - D) * xc / (1.0 + D * xc)) + eps[i]
                    out[obase[j] + stride[j] * t] = v
                    a[j] = 0.0 if restart[i] else v
                continue
            for j in range(w):
                x[j] = math.expm1(a[j])
            for j in range(w):
                c = g0 + j
                xc = x[j]
                k = v_start[c] + _vertex(thr, t_start[c], t_len[c], xc)
                D = wD[k]
                y[j] = (wQ[k] - D) * xc / (1.0 + D * xc)
            for j in range(w):
                i = base[j] + stride[j] * t
                v = math.log1p(y[j]) + eps[i]
                out[obase[j] + stride[j] * t] = v
                a[j] = 0.0 if restart[i] else v
    return n


@functools.cache
def _compiled(kernel: Callable) -> Callable | None:
    """``kernel`` compiled by numba (``njit(cache=True, nogil=True)``, loaded from numba's
    on-disk cache when there), :func:`_vertex` compiled into it; None without numba.
    numba is imported on the first call."""
    return compile_with_helpers(lambda _stamp: kernel, [_vertex], nogil=True)


def chains_kernel() -> Callable | None:
    """:func:`_run_chains` compiled (None without numba); numba imported on first use."""
    return _compiled(_run_chains)


def steps_kernel() -> Callable | None:
    """:func:`_run_steps` compiled (None without numba). numba is imported here, on the
    first recursion long enough to use it: short inputs never load it."""
    return _compiled(_run_steps)


def recurse(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None = None) -> np.ndarray:
    """``out[t] = L(out[t-1]) + eps[t]`` from ``out[-1] = 0``; restart (state 0) after
    every t with ``restart[t]``.

    Long recursions run in a numba-compiled loop (:func:`_run_steps`: the operations of
    :meth:`LossFunction.scalar`, which calls the same C library functions; tested equal
    bit for bit); the Python loop below is the reference and takes over wherever α
    exceeds 700."""
    out = np.empty(eps.size)
    if loss.is_zero:
        out[:] = eps
        return out
    kernel = steps_kernel() if eps.size >= COMPILED_MIN_LENGTH else None
    if kernel is not None:
        mark = np.zeros(eps.size, dtype=np.bool_) if restart is None else \
            np.ascontiguousarray(restart, dtype=np.bool_)
        done = kernel(np.ascontiguousarray(eps, dtype=np.float64), mark,
                      loss._x_thr, loss._wQ, loss._wD, out)
        if done == eps.size:
            return out
        # α > 700 from step ``done``: hand over with the state the loop had there
        return run_python(eps, loss, restart, out, done)
    return run_python(eps, loss, restart, out, 0)


def run_python(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None,
                out: np.ndarray, start: int) -> np.ndarray:
    """The reference loop of :func:`recurse` from step ``start`` (``out[:start]`` done)."""
    if start and not (restart is not None and restart[start - 1]):
        a_start = float(out[start - 1])
    else:
        a_start = 0.0
    a = a_start
    e = eps.tolist()
    r = restart.tolist() if restart is not None else [False] * len(e)
    if loss.is_zero:
        for t in range(start, len(e)):
            a = 0.0 + e[t]  # L = 0: scalar returns 0.0
            out[t] = a
        return out
    # LossFunction.scalar's operations inline (its tables bound once):
    # log1p((Q_k − D_k)·x / (1 + D_k·x)), x = expm1(a), k by bisect_right on the crossings;
    # the method itself above α = 700 (its log branch)
    scalar, thr, wQ, wD = loss.scalar, loss._thr_list, loss._wQ_list, loss._wD_list
    expm1, log1p, bisect = math.expm1, math.log1p, bisect_right
    for t in range(start, len(e)):
        if a > LOG_BRANCH_ALPHA:
            a = scalar(a) + e[t]
        else:
            x = expm1(a)
            k = bisect(thr, x)
            D = wD[k]
            a = log1p((wQ[k] - D) * x / (1.0 + D * x)) + e[t]
        out[t] = a
        if r[t]:
            a = 0.0
    return out
