"""The series engine's buffer-saving paths against the plain numpy they replace, bit for
bit on random inputs (docs/performance.md, "Large inputs"): the same draws and the same
outputs, fewer temporaries."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.release import _fill_holes, _hold, release_series
from lmdk_core.engine.repeat_noise import regular_share, renoise
from lmdk_core.mechanisms import Laplace

masks = st.lists(st.booleans(), min_size=1, max_size=60).map(lambda b: np.array(b, dtype=bool))


def held_by_count(outs: np.ndarray, published: np.ndarray) -> np.ndarray:
    """The reference: a running count of publications indexing a leading NaN row."""
    lead = np.full((1,) + outs.shape[1:], np.nan)
    return np.concatenate([lead, outs]).take(np.cumsum(published), axis=0)


@settings(max_examples=200, deadline=None)
@given(published=masks, cols=st.sampled_from([0, 2]), seed=st.integers(0, 2**32 - 1))
def test_filling_the_holes_is_the_running_count(published, cols, seed):
    idx = np.flatnonzero(published)
    shape = (idx.size,) + ((cols,) if cols else ())
    outs = np.random.default_rng(seed).normal(size=shape)
    want = held_by_count(outs, published)
    if idx.size:
        np.testing.assert_array_equal(_fill_holes(outs, published, idx), want)
    np.testing.assert_array_equal(_hold(outs, published, idx), want)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 40), eps=st.floats(1e-3, 10.0), sens=st.floats(0.1, 10.0),
       seed=st.integers(0, 2**32 - 1))
def test_one_scale_draws_what_the_per_value_scales_draw(n, eps, sens, seed):
    x = np.random.default_rng(seed + 1).normal(size=n)
    got = Laplace(sens).perturb(x, np.full(n, eps), np.random.default_rng(seed))
    want = x + np.random.default_rng(seed).laplace(0.0, sens / np.full(n, eps), size=n)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(planned=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=30),
       data=st.data())
def test_regular_share_is_the_first_planned_share_off_the_landmarks(planned, data):
    p = np.array(planned)
    lm = np.array(sorted(data.draw(st.sets(st.integers(0, p.size - 1)))), dtype=np.intp)
    regular = np.ones(p.size, dtype=bool)
    regular[lm] = False
    want = float(p.max())
    if regular.any() and p[np.argmax(regular)] > 0:
        want = float(p[np.argmax(regular)])
    assert regular_share(p, lm) == want


@settings(max_examples=200, deadline=None)
@given(repeated=masks, seed=st.integers(0, 2**32 - 1), in_place=st.booleans())
def test_renoise_by_index_is_renoise_by_mask(repeated, seed, in_place):
    gen = np.random.default_rng(seed)
    released = gen.normal(size=repeated.size)
    released[gen.random(repeated.size) < 0.2] = np.nan
    mask = repeated & ~np.isnan(released)
    want = released.copy()
    if mask.any():
        want[mask] = Laplace(1.0).perturb(want[mask], 0.5, np.random.default_rng(seed))
    given_in = released.copy()
    got = renoise(given_in, repeated, Laplace(1.0), 0.5, np.random.default_rng(seed),
                  in_place=in_place)
    np.testing.assert_array_equal(got, want)
    assert (got is given_in) == in_place


def test_a_skip_release_repeats_and_renoises_as_before():
    """Skip with few landmarks (the hole-filling path): every landmark shows the last
    publication plus fresh noise, the first timestamp a landmark shows nothing."""
    x = np.arange(100.0)
    rel = release_series(x, [0, 40, 41], epsilon=1.0, scheme="skip", seed=3)
    assert np.isnan(rel.released[0]) and not rel.renoised[0]
    assert rel.renoised[[40, 41]].all() and rel.renoised.sum() == 2
    assert rel.released[40] != rel.released[39] != rel.released[41]
    np.testing.assert_array_equal(rel.errors[1:], np.abs(rel.released[1:] - x[1:]))
