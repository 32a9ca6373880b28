r"""The restarted recursions of the population audit's landmark TPL in one compiled loop.

Landmark TPL (Katsomallos et al., CODASPY'22, on Cao, Yoshikawa, Xiao, Xiong's BPL/FPL,
ICDE'17 / TKDE'18) of a regular timestamp t needs two recursions restarted next to t
and run to the landmarks around it, each stopping as soon as it meets the shared
segment recursion (:mod:`~lmdk_core.leakage.restarts`).
:func:`~lmdk_core.leakage.tpl_many.max_landmark_tpls` runs the runs of all the users of
a block together: as numpy vectors (a dozen numpy calls per step, hundreds of steps for
the slowest runs while most runs stopped after a few dozen), or, where numba is loaded
anyway, in :func:`restarted_kernel`: each run a scalar loop of the same operations in
the same order, eight runs interleaved so that the processor overlaps their ``expm1`` /
``log1p`` latencies, a finished run's lane taking the next run.

The compiled loop calls the C library's ``expm1`` and ``log1p``; the numpy loop calls
numpy's, which are the C library's where
:func:`~lmdk_core.leakage.vector_chains.numpy_is_libm` says so: only there is this
kernel used (tests/engine/test_leakage_restarted_kernel.py: equal bit for bit).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from lmdk_core.foundation.compiled_paths import compile_with_helpers
from lmdk_core.leakage.vector_chains import VertexTables

__all__ = ["LANES", "restarted_kernel", "run_restarted"]

#: runs advanced together (their ``expm1`` / ``log1p`` latencies overlap)
LANES = 8


def _vertex_count(thr, lo, length, pad, x):  # pragma: no cover - compiled into the kernel
    """The hull vertex of ``x`` in one loss function's crossing table: the number of its
    crossings ``thr[lo : lo + length]`` (ascending, contiguous in the flat table of
    :class:`~lmdk_core.leakage.vector_chains.VertexTables`) that are ``<= x``, plus its
    ``pad`` +inf cells of the padded table when x is +inf: the count
    :func:`~lmdk_core.leakage.vector_chains.vertex_index` makes over the padded column,
    read from contiguous memory (a padded column is strided by the number of loss
    functions: one cache line per cell)."""
    k = 0
    for m in range(lo, lo + length):
        if thr[m] <= x:
            k += 1
    if x == math.inf:
        k += pad
    return k


def _restarted_runs(eps, segment, thr, t_start, t_len, width, v_start, qmd, d, pos0, step,
                    anchor, off, loss, rtol, out):  # pragma: no cover - compiled by numba
    """The final value of every restarted run, in ``out`` (the numpy loop ``_run_all``
    of :mod:`~lmdk_core.leakage.tpl_many`, run by run; ``rtol`` is
    :data:`~lmdk_core.leakage.restarts.MERGE_RTOL`).

    Run i starts at ``pos0_i + step_i`` in ``eps`` with the value ``eps[pos]`` (``L(0) +
    ε = ε``), compares with ``ref = segment[pos + off_i]``: it ends at ``anchor_i`` with
    its own value, or as soon as ``|v − ref| <= rtol·ref`` with
    ``segment[anchor_i + off_i]``; otherwise it moves by ``step_i`` and applies
    ``v = log1p(qmd_k·x / (1 + d_k·x)) + ε`` with ``x = expm1(v)`` and ``k`` the hull
    vertex of x in loss function ``loss_i``'s crossings (``thr[t_start : t_start +
    t_len]``, the padded table ``width`` long; ``v_start``: where its vertices start).

    :data:`LANES` runs advance together, a lane whose run ends taking the next run, and
    each step goes over the lanes in three passes (every ``expm1``, then every vertex
    and ratio, then every ``log1p``), so the processor overlaps the calls of a pass as
    in :func:`~lmdk_core.leakage.recursion.chains_kernel`. Each run does its own checks
    and steps in its own order, so its value does not depend on the lanes."""
    n = pos0.size
    lanes = LANES
    run = np.full(lanes, -1, dtype=np.intp)
    pos = np.zeros(lanes, dtype=np.intp)
    v = np.zeros(lanes)
    x = np.zeros(lanes)
    y = np.zeros(lanes)
    nxt = 0
    live = 0
    for j in range(lanes):  # the first runs
        if nxt < n:
            run[j] = nxt
            pos[j] = pos0[nxt] + step[nxt]
            v[j] = eps[pos[j]]
            nxt += 1
            live += 1
    while live > 0:
        for j in range(lanes):  # runs that end here give their value; the lane refills
            i = run[j]
            while i >= 0:
                p = pos[j]
                a = v[j]
                ref = segment[p + off[i]]
                at_end = p == anchor[i]
                if not (at_end or abs(a - ref) <= rtol * ref):
                    break
                out[i] = a if at_end else segment[anchor[i] + off[i]]
                if nxt < n:  # the lane takes the next run (checked at once)
                    run[j] = nxt
                    pos[j] = pos0[nxt] + step[nxt]
                    v[j] = eps[pos[j]]
                    nxt += 1
                    i = run[j]
                else:
                    run[j] = -1
                    live -= 1
                    i = -1
        for j in range(lanes):
            if run[j] >= 0:
                x[j] = math.expm1(v[j])
        for j in range(lanes):
            i = run[j]
            if i >= 0:
                c = loss[i]
                k = v_start[c] + _vertex_count(thr, t_start[c], t_len[c], width - t_len[c],
                                               x[j])
                y[j] = qmd[k] * x[j] / (1.0 + d[k] * x[j])
        for j in range(lanes):
            i = run[j]
            if i >= 0:
                p = pos[j] + step[i]
                v[j] = math.log1p(y[j]) + eps[p]
                pos[j] = p
    return n


@functools.cache
def restarted_kernel() -> Callable | None:
    """:func:`_restarted_runs` compiled (``njit(cache=True, nogil=True)``, loaded from
    numba's on-disk cache when there; :func:`_vertex_count` compiled into it); None
    without numba. numba is imported on the first call."""
    return compile_with_helpers(lambda _stamp: _restarted_runs, [_vertex_count], nogil=True)


def run_restarted(tables: VertexTables, eps: np.ndarray, segment: np.ndarray,
                  pos0: np.ndarray, step: np.ndarray, anchor: np.ndarray, off: np.ndarray,
                  loss: np.ndarray, rtol: float) -> np.ndarray | None:
    """The final value of every restarted run (:func:`_restarted_runs`) with the loss
    functions of ``tables`` (frozen); None without numba."""
    kernel = restarted_kernel()
    if kernel is None:  # pragma: no cover - numba is a dependency
        return None
    out = np.empty(pos0.size)
    kernel(eps, segment, tables.thr_all, tables.thr_start, tables.thr_len,
           tables.thr.shape[0], tables.v_start, tables.qmd, tables.d, pos0, step, anchor,
           off, loss, rtol, out)
    return out
