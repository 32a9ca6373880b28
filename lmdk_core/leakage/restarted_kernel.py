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

__all__ = ["LANES", "restarted_kernel"]

#: runs advanced together (their ``expm1`` / ``log1p`` latencies overlap)
LANES = 8


def _vertex_count(thr, col, x):  # pragma: no cover - compiled into the kernel by numba
    """The number of ``thr[:, col]`` that are ``<= x``: the hull vertex of ``x`` in the
    padded crossing table of :class:`~lmdk_core.leakage.vector_chains.VertexTables`
    (the count :func:`~lmdk_core.leakage.vector_chains.vertex_index` makes)."""
    k = 0
    for m in range(thr.shape[0]):
        if thr[m, col] <= x:
            k += 1
    return k


def _restarted_runs(eps, segment, thr, v_start, qmd, d, pos0, step, anchor, off, loss,
                    rtol, out):  # pragma: no cover - compiled by numba
    """The final value of every restarted run, in ``out`` (the numpy loop ``_run_all``
    of :mod:`~lmdk_core.leakage.tpl_many`, run by run; ``rtol`` is
    :data:`~lmdk_core.leakage.restarts.MERGE_RTOL`).

    Run i starts at ``pos0_i + step_i`` in ``eps`` with the value ``eps[pos]`` (``L(0) +
    ε = ε``), compares with ``ref = segment[pos + off_i]``: it ends at ``anchor_i`` with
    its own value, or as soon as ``|v − ref| <= rtol·ref`` with
    ``segment[anchor_i + off_i]``; otherwise it moves by ``step_i`` and applies
    ``v = log1p(qmd_k·x / (1 + d_k·x)) + ε`` with ``x = expm1(v)`` and ``k`` the hull
    vertex of x in loss function ``loss_i``'s table (``v_start``: where its vertices
    start). :data:`LANES` runs advance together; a lane whose run ends takes the next
    run."""
    n = pos0.size
    lanes = LANES
    run = np.full(lanes, -1, dtype=np.intp)
    pos = np.zeros(lanes, dtype=np.intp)
    v = np.zeros(lanes)
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
        for j in range(lanes):
            i = run[j]
            if i < 0:
                continue
            p = pos[j]
            a = v[j]
            ref = segment[p + off[i]]
            at_end = p == anchor[i]
            if at_end or abs(a - ref) <= rtol * ref:
                out[i] = a if at_end else segment[anchor[i] + off[i]]
                if nxt < n:  # the lane takes the next run
                    run[j] = nxt
                    pos[j] = pos0[nxt] + step[nxt]
                    v[j] = eps[pos[j]]
                    nxt += 1
                else:
                    run[j] = -1
                    live -= 1
                continue
            p += step[i]
            x = math.expm1(a)
            k = v_start[loss[i]] + _vertex_count(thr, loss[i], x)
            v[j] = math.log1p(qmd[k] * x / (1.0 + d[k] * x)) + eps[p]
            pos[j] = p
    return n


@functools.cache
def restarted_kernel() -> Callable | None:
    """:func:`_restarted_runs` compiled (``njit(cache=True, nogil=True)``, loaded from
    numba's on-disk cache when there; :func:`_vertex_count` compiled into it); None
    without numba. numba is imported on the first call."""
    return compile_with_helpers(lambda _stamp: _restarted_runs, [_vertex_count], nogil=True)
