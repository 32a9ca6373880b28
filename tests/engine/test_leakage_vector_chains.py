"""The segment recursions advanced as numpy vectors
(:func:`lmdk_core.leakage.vector_chains.run_chains`, the population audit's BPL/FPL,
Cao et al. ICDE'17) against the one-recursion loops they replace, chain by chain, bit
for bit: the compiled loop and the Python reference, forwards and backwards, restarts,
several loss functions, different lengths, and the stop at the log branch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, recursion, vector_chains
from lmdk_core.leakage.vector_chains import VertexTables, run_chains

pytestmark = pytest.mark.skipif(
    not vector_chains.numpy_is_libm(),
    reason="numpy's expm1/log1p are not the C library's here: the audit keeps the "
           "compiled loop (tested in test_leakage_chains.py)")


def _loss(rng: np.random.Generator) -> LossFunction:
    n = int(rng.integers(1, 12))
    if rng.random() < 0.2:  # near-deterministic: L(α) ≈ α, reaches the log branch
        P = 0.999 * np.eye(n) + 0.001 / n
        return LossFunction(P / P.sum(axis=1, keepdims=True))
    return LossFunction(rng.dirichlet(np.full(n, float(rng.choice([0.05, 0.5, 5.0]))), n))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([5, 300, 3000]),
       st.sampled_from([1e-3, 0.1, 3.0]))
def test_vector_chains_equal_one_recursion_at_a_time(seed, chains, max_T, scale):
    rng = np.random.default_rng(seed)
    losses = [_loss(rng) for _ in range(int(rng.integers(1, 5)))]
    tables = VertexTables()
    ids = np.array([tables.add(L) for L in losses], dtype=np.intp)
    tables.freeze()
    which = rng.integers(0, len(losses), chains)
    eps, marks = [], []
    for _ in range(chains):
        T = int(rng.integers(1, max_T))
        e = rng.exponential(scale, T) * (rng.random(T) < 0.8)  # some ε_t = 0
        eps.append(e)
        marks.append(rng.random(T) < float(rng.choice([0.0, 0.01, 0.2])))
    res = run_chains(eps, marks, ids[which], tables)
    for c in range(chains):
        L, e, m = losses[which[c]], eps[c], marks[c]
        want = np.full(e.size, np.nan)
        n_done = recursion.steps_kernel()(e, m, L._x_thr, L._wQ, L._wD, want)
        assert res.done[c] == n_done
        got = res.chain(c, e.size)
        assert got[:n_done].tobytes() == want[:n_done].tobytes()
        if n_done == e.size:  # the Python reference too (the path of short recursions)
            ref = recursion.run_python(e, L, m, np.empty(e.size), 0)
            assert got.tobytes() == ref.tobytes()


def test_the_log_branch_stops_a_chain_where_the_compiled_loop_stops():
    """Perfect correlation (``L(α) ≈ α``) adds the budgets up: with ε = 1.5 the state
    is about 1.5·t before step t, so the chain passes α = 700 before step 467 (699 before
    step 466) and stops there; a chain beside it goes on to its end."""
    E = LossFunction(np.eye(3))
    S = LossFunction(np.full((3, 3), 0.2) + 0.4 * np.eye(3))
    tables = VertexTables()
    ids = np.array([tables.add(E), tables.add(S)], dtype=np.intp)
    tables.freeze()
    eps = [np.full(1_000, 1.5), np.full(1_500, 1.5)]
    res = run_chains(eps, [np.zeros(1_000, bool), np.zeros(1_500, bool)], ids, tables)
    assert res.done.tolist() == [467, 1_500]
    want = np.empty(1_000)
    assert recursion.steps_kernel()(eps[0], np.zeros(1_000, bool), E._x_thr, E._wQ, E._wD,
                                    want) == 467
    assert res.chain(0, 467).tobytes() == want[:467].tobytes()


def test_vertex_count_is_searchsorted_right():
    rng = np.random.default_rng(3)
    losses = [LossFunction(rng.dirichlet(np.ones(n), n)) for n in (2, 5, 9, 12)]
    tables = VertexTables()
    ids = np.array([tables.add(L) for L in losses] * 50, dtype=np.intp)
    tables.freeze()
    # random points, the crossings themselves and their neighbours below
    x = np.abs(rng.standard_cauchy(ids.size))
    for j, L in enumerate(losses):
        n = L._x_thr.size
        x[j:j + 8 * n:4][:n] = L._x_thr
        x[j + 8 * n:j + 16 * n:4][:n] = np.nextafter(L._x_thr, 0)
    k = np.empty(ids.size, dtype=np.intp)
    cmp = np.empty((tables.thr.shape[0], ids.size), dtype=bool)
    vector_chains.vertex_index(tables.thr[:, ids], x, tables.v_start[ids], cmp, k)
    want = [tables.v_start[i] + np.searchsorted(tables.losses[i]._x_thr, v, side="right")
            for i, v in zip(ids, x, strict=True)]
    assert k.tolist() == [int(w) for w in want]
