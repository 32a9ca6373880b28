"""The compiled restarted runs of the population audit's landmark TPL
(:func:`lmdk_core.leakage.restarted_kernel.restarted_kernel`; Katsomallos et al.,
CODASPY'22, on Cao et al.'s BPL/FPL, ICDE'17) against the numpy loop they replace
(``_run_all`` of :mod:`lmdk_core.leakage.tpl_many`), run by run, bit for bit: runs
down and up, several loss functions (shared and not), runs that meet their segment
run and runs that reach their landmark, more runs than lanes and fewer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction
from lmdk_core.leakage.recursion import recurse
from lmdk_core.leakage.restarted_kernel import run_restarted
from lmdk_core.leakage.restarts import MERGE_RTOL, SAFE_SEGMENT_ALPHA
from lmdk_core.leakage.tpl_many import _run_all
from lmdk_core.leakage.vector_chains import VertexTables, numpy_is_libm

pytestmark = pytest.mark.skipif(not numpy_is_libm(),
                                reason="numpy's expm1/log1p are not the C library's here")


def _loss(rng: np.random.Generator) -> LossFunction:
    n = int(rng.integers(2, 9))
    if rng.random() < 0.2:  # near-deterministic: slow to meet the segment run
        P = 0.999 * np.eye(n) + 0.001 / n
        return LossFunction(P / P.sum(axis=1, keepdims=True))
    return LossFunction(rng.dirichlet(np.full(n, float(rng.choice([0.05, 0.5, 5.0]))), n))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 60),
       st.sampled_from([20, 300, 2000]))
def test_compiled_runs_equal_the_numpy_runs_bit_for_bit(seed, users, runs_per_user, max_T):
    rng = np.random.default_rng(seed)
    losses = [_loss(rng) for _ in range(int(rng.integers(1, 4)))]
    tables = VertexTables()
    ids = [tables.add(L) for L in losses]
    tables.freeze()
    sizes = rng.integers(2, max_T, users)
    e_off = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
    eps_all = rng.exponential(float(rng.choice([1e-3, 0.1, 1.0])), int(sizes.sum()))
    eps_all *= rng.random(eps_all.size) < 0.7  # Adaptive-like: skipped timestamps
    which = rng.integers(0, len(losses), (users, 2))
    # every user's segment runs sf then sb, as max_landmark_tpls lays them out
    parts, pos0, step, anchor, off, loss = [], [], [], [], [], []
    for u in range(users):
        n, e = int(sizes[u]), int(e_off[u])
        eps = eps_all[e:e + n]
        lm = np.sort(rng.choice(n, min(n, int(rng.integers(1, 5))), replace=False))
        mark = np.zeros(n, dtype=bool)
        mark[lm] = True
        lf, lb = losses[which[u, 0]], losses[which[u, 1]]
        sf = recurse(eps[::-1].copy(), lf, mark[::-1].copy())[::-1]
        sb = recurse(eps, lb, mark)
        parts += [sf, sb]
        if max(sf.max(), sb.max()) > SAFE_SEGMENT_ALPHA:
            continue  # the one-user path's (the log branch in reach): no runs here
        for _ in range(runs_per_user):
            t = int(rng.integers(0, n))
            below, above = lm[lm < t], lm[lm > t]
            if below.size and not mark[t]:  # FPL restarted at t−1 down to the landmark
                pos0.append(e + t), step.append(-1), anchor.append(e + int(below[-1]))
                off.append(e), loss.append(ids[which[u, 0]])
            if above.size and not mark[t]:  # BPL restarted at t+1 up to the landmark
                pos0.append(e + t), step.append(1), anchor.append(e + int(above[0]))
                off.append(e + n), loss.append(ids[which[u, 1]])
    segment = np.concatenate(parts)
    args = [np.array(a, dtype=np.intp) for a in (pos0, step, anchor, off, loss)]
    want = _run_all(eps_all, segment, tables, *args)
    got = run_restarted(tables, eps_all, segment, *args, MERGE_RTOL)
    assert got.tobytes() == want.tobytes()


def test_some_runs_meet_their_segment_run_and_some_reach_their_landmark():
    """The two ways a run ends, both taken (the example of the test above, fixed)."""
    L = LossFunction(np.array([[0.9, 0.1], [0.2, 0.8]]))
    tables = VertexTables()
    tables.add(L)
    tables.freeze()
    eps = np.full(400, 0.3)
    mark = np.zeros(400, dtype=bool)
    mark[[50, 350]] = True
    sf = recurse(eps[::-1].copy(), L, mark[::-1].copy())[::-1]
    sb = recurse(eps, L, mark)
    segment = np.r_[sf, sb]
    t = np.array([52, 200, 348, 349])  # near 50 or 350: reach it; far: meet first
    pos0 = np.r_[t, t]
    step = np.r_[np.full(4, -1), np.full(4, 1)]
    anchor = np.r_[np.full(4, 50), np.full(4, 350)]
    off = np.r_[np.zeros(4), np.full(4, 400)].astype(np.intp)
    args = [np.asarray(a, dtype=np.intp) for a in (pos0, step, anchor, off, np.zeros(8))]
    want = _run_all(eps, segment, tables, *args)
    got = run_restarted(tables, eps, segment, *args, MERGE_RTOL)
    assert got.tobytes() == want.tobytes()
    met = got == segment[anchor + off]
    assert met.any() and not met.all()
