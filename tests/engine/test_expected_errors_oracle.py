"""``expected_errors`` against its plain formulation, bit for bit.

The plain formulation (as the module docstring states it, and as the function computed
it before 2026-12-07): every released reading gets its publication's noise mean; every
reading with an offset (repeated, or noised from another value) gets ``E|δ + Z|``; then
every reading carrying fresh noise gets ``E|δ + Z + W|`` written over it. The function
now skips the offsets that the fresh noise's law overwrites; the errors must be the same
floats for Laplace, Geometric and Planar Laplace, with and without stays' sources and
explicit fresh budgets."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision import expected_error as ee


def plain_expected_errors(x, eps, pub, mech, scale, sources=None, fresh=None):
    y = x if sources is None else sources
    fr = ee._fresh_budgets(x, y, eps, pub, sources is not None, fresh)
    T = eps.size
    idx = np.where(pub, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    r = np.flatnonzero(idx >= 0)
    src = idx[r]
    e = eps[src]
    vals = ee._noise_mean(mech, scale, e)
    cand = np.flatnonzero(src != r) if sources is None else np.arange(r.size)
    if cand.size:
        d = ee._offset_lengths(x, y, r[cand], src[cand])
        nz = d != 0
        vals[cand[nz]] = ee._offset_mean(mech, scale, d[nz], e[cand[nz]])
    wf = np.flatnonzero(fr[r] > 0)
    if wf.size:
        d = ee._offset_lengths(x, y, r[wf], src[wf])
        vals[wf] = ee._fresh_mean(mech, scale, d, e[wf], fr[r][wf])
    out = np.full(T, np.nan)
    out[r] = vals
    return out


@st.composite
def case(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    T = draw(st.integers(1, 60))
    mech = draw(st.sampled_from(["laplace", "geometric", "planar_laplace"]))
    rng = np.random.default_rng(seed)  # inputs, not noise
    track = mech == "planar_laplace"
    x = (np.c_[rng.uniform(-60, 60, T), rng.uniform(-170, 170, T)] if track
         else rng.normal(0, draw(st.sampled_from([1e-3, 1.0, 50.0])), T))
    if not track and draw(st.booleans()):
        x = np.round(x)  # repeated values: zero offsets
    pub = rng.random(T) < draw(st.sampled_from([0.0, 0.3, 0.8, 1.0]))
    eps = np.where(pub, rng.uniform(0.01, 3.0, T), 0.0)
    if draw(st.booleans()):  # a static scheme: every timestamp a budget
        eps = np.where(eps > 0, eps, rng.uniform(0.01, 3.0, T))
    sources = None
    if draw(st.booleans()):  # a stay's centroid published for some readings
        sources = x.copy()
        moved = rng.random(T) < 0.4
        sources[moved] = sources[moved] + (0.001 if track else 0.5)
    fresh = None
    if draw(st.booleans()):
        fresh = np.where(rng.random(T) < 0.5, rng.uniform(0.01, 3.0, T), 0.0)
    return x, eps, pub, mech, draw(st.sampled_from([0.5, 1.0, 7.0])), sources, fresh


@settings(max_examples=300, deadline=None)
@given(case())
def test_expected_errors_are_the_plain_formulations_floats(c):
    x, eps, pub, mech, scale, sources, fresh = c
    kw = {"radius": scale} if mech == "planar_laplace" else {"sensitivity": scale}
    got = ee.expected_errors(x, eps, pub, mechanism=mech, sources=sources, fresh=fresh, **kw)
    want = plain_expected_errors(x, eps, pub, mech, scale, sources, fresh)
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
