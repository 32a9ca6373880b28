"""The series engine's buffer-saving paths against the plain numpy they replace, bit for
bit on random inputs (docs/performance.md, "Large inputs"): the same draws and the same
outputs, fewer temporaries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import (
    _fill_holes,
    _hold,
    numeric_mechanism,
    release_series,
    release_trajectory,
)
from lmdk_core.engine.repeat_noise import regular_share, renoise
from lmdk_core.engine.share_allocation import ShareAllocation
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks
from lmdk_core.mechanisms import Laplace, PlanarLaplace

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


def plain_release(x, lm, *, epsilon, scheme, mech, seed, k=None, window=3):
    """The reference a static scheme's release replaces: every budget, flag and expected
    error as an array of the series, publish by mask, hold by running count, renoise by
    mask, measure everything, verify the array (the engine before its compact form)."""
    T = x.shape[0]
    planned = allocate(scheme, T, lm, epsilon, window=window, max_landmarks=k)
    gen = np.random.default_rng(seed)
    published = planned > 0
    spent = np.where(published, planned, 0.0)
    idx = np.flatnonzero(published)
    outs = mech.perturb(x[idx], spent[idx], gen) if idx.size else x[idx]
    released = held_by_count(np.asarray(outs, dtype=float).reshape((idx.size,) + x.shape[1:]),
                             published)
    expected = np.full(T, np.nan)
    if published.all():
        expected = np.asarray(mech.expected_error(spent), dtype=float)
    elif idx.size:
        expected[idx] = mech.expected_error(spent[idx])
    withheld = np.isnan(released) if x.ndim == 1 else np.isnan(released).any(axis=1)
    shown = ~published & ~withheld
    share = regular_share(planned, np.asarray(lm, dtype=np.intp))
    if shown.any() and share > 0:
        released[shown] = mech.perturb(released[shown], share, gen)
    if x.ndim == 1:
        errors = np.abs(released - x)
    else:
        errors = np.full(T, np.nan)
        errors[~withheld] = mech.distance(released[~withheld], x[~withheld])
    return {"released": released, "epsilon_t": spent, "planned_epsilon_t": planned,
            "published": published, "errors": errors, "expected_errors": expected,
            "renoised": shown, "renoise_epsilon": share,
            "verdict": verify(spent, lm, epsilon, max_landmarks=k)}


def _same_release(rel, want):
    for name, value in want.items():
        got = getattr(rel, name)
        if name == "verdict":
            for f in ("private", "worst_timestamp", "worst_total", "tolerance",
                      "landmark_events", "max_landmarks"):
                assert getattr(got, f) == getattr(value, f), f
            np.testing.assert_array_equal(got.totals, value.totals)
        elif name == "renoise_epsilon":
            assert got == value
        else:
            assert got.dtype == value.dtype, name
            np.testing.assert_array_equal(got, value, err_msg=name)


@st.composite
def static_releases(draw):
    """A series (or track) and landmarks: short ones, and long ones with a few landmarks
    (Skip's in-place spreading of the draws, :func:`release._spread`), landmarks at 0
    and in runs included."""
    T = draw(st.one_of(st.integers(1, 60), st.integers(600, 2500)))
    few = T >= 600
    lm = sorted(draw(st.sets(st.integers(0, T - 1), max_size=4 if few else T)))
    if draw(st.booleans()) and T > 3:
        lm = sorted(set(lm) | {0, 1} if draw(st.booleans()) else set(lm) | {T - 2, T - 1})
    return T, lm


@settings(max_examples=150, deadline=None)
@given(case=static_releases(), scheme=st.sampled_from(["uniform", "skip", "event", "user",
                                                       "w-event"]),
       law=st.sampled_from(["laplace", "geometric"]), eps=st.floats(0.05, 5.0),
       declared=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_a_static_series_release_is_the_plain_release(case, scheme, law, eps, declared, seed):
    T, lm = case
    x = np.round(np.cumsum(np.random.default_rng(seed).normal(0, 3, T)))
    k = len(lm) + 2 if declared else None
    mech = numeric_mechanism(law)
    want = plain_release(x, lm, epsilon=eps, scheme=scheme, mech=mech, seed=seed, k=k)
    rel = release_series(x, lm, epsilon=eps, scheme=scheme, mechanism=law, seed=seed,
                         max_landmarks=k, window=3)
    _same_release(rel, want)
    assert rel.metrics().keys() == {"mae", "rmse", "median_error", "p95_error", "max_error",
                                    "mae_published", "expected_mae_published", "n_published",
                                    "n_approximated", "n_withheld"}


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 30), data=st.data(), scheme=st.sampled_from(["uniform", "skip"]),
       seed=st.integers(0, 2**32 - 1))
def test_a_static_track_release_is_the_plain_release(T, data, scheme, seed):
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1))))
    g = np.random.default_rng(seed)
    lat, lon = 48.85 + g.normal(0, 1e-3, T), 2.35 + g.normal(0, 1e-3, T)
    want = plain_release(np.column_stack([lat, lon]), lm, epsilon=1.0, scheme=scheme,
                         mech=PlanarLaplace(100.0), seed=seed)
    rel = release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme=scheme,
                             seed=seed)
    _same_release(rel, want)


@settings(max_examples=200, deadline=None)
@given(T=st.integers(1, 40), data=st.data(), share=st.sampled_from([0.0, 0.3, 1.0]))
def test_the_regular_share_of_a_compact_plan_is_that_of_its_array(T, data, share):
    z = np.array(sorted(data.draw(st.sets(st.integers(0, T - 1)))), dtype=np.intp)
    lm = np.array(sorted(data.draw(st.sets(st.integers(0, T - 1)))), dtype=np.intp)
    plan = ShareAllocation(T, share, z)
    assert regular_share(plan, lm) == regular_share(plan.array(), lm)


@settings(max_examples=100, deadline=None)
@given(a=st.integers(0, 50), b=st.integers(0, 50), eps=st.floats(1e-3, 1e3),
       sens=st.floats(0.1, 10.0), seed=st.integers(0, 2**32 - 1))
def test_one_draw_is_two_draws_in_a_row(a, b, eps, sens, seed):
    """What the one-buffer release relies on: numpy's Laplace draws one value after the
    other, so a call of a + b values is a call of a then a call of b."""
    one = Laplace(sens).noise_draws(eps, a + b, np.random.default_rng(seed))
    g = np.random.default_rng(seed)
    two = np.concatenate([g.laplace(0.0, sens / eps, a), g.laplace(0.0, sens / eps, b)])
    np.testing.assert_array_equal(one, two)


@settings(max_examples=60, deadline=None)
@given(T=st.integers(1024, 6000), data=st.data(), eps=st.floats(0.05, 5.0),
       seed=st.integers(0, 2**32 - 1))
def test_skip_spreading_its_draws_in_place_is_the_plain_release(T, data, eps, seed):
    """Skip with at most T/512 landmarks, none at 0: the publications' draws move to their
    timestamps inside the draws' buffer (runs of landmarks and one at the end included)."""
    lm = sorted(data.draw(st.sets(st.integers(1, T - 1), min_size=1, max_size=T // 512)))
    x = np.cumsum(np.random.default_rng(seed).normal(0, 3, T))
    want = plain_release(x, lm, epsilon=eps, scheme="skip", mech=Laplace(1.0), seed=seed)
    _same_release(release_series(x, lm, epsilon=eps, scheme="skip", seed=seed), want)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.integers(-3, 70), max_size=30),
       dtype=st.sampled_from([np.int64, np.int32, np.uint16, np.intp]),
       length=st.integers(1, 64), as_list=st.booleans())
def test_checked_landmarks_skip_the_list_only_when_already_checked(values, dtype, length,
                                                                   as_list):
    """check_landmarks on a sorted, unique, in-range integer array (what the engine passes
    on) copies it; anything else goes through the list: the same array or refusal."""
    vals = [v for v in values if v >= 0] if np.dtype(dtype).kind == "u" else values
    arr = np.array(vals, dtype=dtype)
    given_in = arr.tolist() if as_list else arr
    try:
        want = np.unique(np.array(list(arr), dtype=dtype)) if arr.size else np.zeros(0, int)
        if arr.size and (arr.min() < 0 or arr.max() >= length):
            want = None
    except ValueError:
        want = None
    if want is None:
        with pytest.raises(InputError):
            check_landmarks(given_in, length)
        return
    got = check_landmarks(given_in, length)
    np.testing.assert_array_equal(got, want)
    if not as_list:
        assert got.dtype == want.dtype and got is not arr
