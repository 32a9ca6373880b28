"""The interleaved recursions of :func:`lmdk_core.leakage.recursion.chains_kernel` (the
population audit's segment recursions, Cao et al. ICDE'17) against the one-recursion
compiled loop they interleave, chain by chain, bit for bit: forwards and backwards,
restarts, several loss functions, different lengths, and the stop at the log branch."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, recursion


def _loss(rng: np.random.Generator) -> LossFunction:
    n = int(rng.integers(2, 9))
    if rng.random() < 0.2:  # near-deterministic: L(α) ≈ α, reaches the log branch
        P = 0.999 * np.eye(n) + 0.001 / n
        return LossFunction(P / P.sum(axis=1, keepdims=True))
    return LossFunction(rng.dirichlet(np.full(n, float(rng.choice([0.05, 0.5, 5.0]))), n))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 21), st.sampled_from([5, 300, 3000]))
def test_interleaved_chains_equal_one_recursion_at_a_time(seed, chains, max_T):
    rng = np.random.default_rng(seed)
    losses = [_loss(rng) for _ in range(int(rng.integers(1, 4)))]
    length = rng.integers(1, max_T, chains)
    start = np.r_[0, np.cumsum(length)[:-1]]
    eps = rng.exponential(float(rng.choice([1e-3, 0.1, 3.0])), int(length.sum()))
    eps *= rng.random(eps.size) < 0.8
    mark = rng.random(eps.size) < float(rng.choice([0.0, 0.01, 0.2]))
    reverse = rng.random(chains) < 0.5
    which = rng.integers(0, len(losses), chains)
    thr = np.concatenate([L._x_thr for L in losses])
    t_len = np.array([L._x_thr.size for L in losses])
    t_start = np.r_[0, np.cumsum(t_len)[:-1]]
    v_len = np.array([L._wD.size for L in losses])
    v_start = np.r_[0, np.cumsum(v_len)[:-1]]
    out = np.full(eps.size, np.nan)
    done = np.empty(chains, dtype=np.intp)
    recursion.chains_kernel()(
        eps, mark, start, length, reverse, start, thr, t_start[which], t_len[which],
        np.concatenate([L._wQ for L in losses]), np.concatenate([L._wD for L in losses]),
        v_start[which], out, done)
    one = recursion.steps_kernel()
    for c in range(chains):
        L = losses[which[c]]
        e = eps[start[c]:start[c] + length[c]]
        m = mark[start[c]:start[c] + length[c]]
        if reverse[c]:
            e, m = e[::-1].copy(), m[::-1].copy()
        want = np.full(e.size, np.nan)
        n_done = one(e, m, L._x_thr, L._wQ, L._wD, want)
        got = out[start[c]:start[c] + length[c]]
        if reverse[c]:
            got = got[::-1]
        assert done[c] == n_done
        assert got[:n_done].tobytes() == want[:n_done].tobytes()
