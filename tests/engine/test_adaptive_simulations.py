"""Adaptive's Monte Carlo releases with their inputs checked once
(:func:`lmdk_core.engine.release.adaptive_release_errors`, used by
:func:`lmdk_core.decision.adaptive_accuracy.adaptive_errors`) give the same floats as the
checked path, ``release(...)`` once per generator: errors, NaNs where withheld, and the
verifier's verdict — on random series (Laplace, Geometric) and tracks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.adaptive_accuracy import adaptive_errors
from lmdk_core.engine.release import (
    adaptive_release_errors,
    numeric_mechanism,
    release,
    release_series,
)
from lmdk_core.mechanisms import PlanarLaplace


def _case(seed: int, T: int, n_lm: int, kind: str):
    rng = np.random.default_rng(seed)
    lm = sorted(set(rng.integers(0, T, n_lm).tolist()))
    if kind == "track":
        x = np.column_stack([40 + np.cumsum(rng.normal(0, 1e-3, T)),
                             116 + np.cumsum(rng.normal(0, 1e-3, T))])
        return x, lm, PlanarLaplace(100.0)
    if kind == "geometric":
        return np.round(np.cumsum(rng.normal(0, 2, T))), lm, numeric_mechanism(kind,
                                                                               sensitivity=2.0)
    return np.cumsum(rng.normal(size=T)), lm, numeric_mechanism(kind, sensitivity=1.3)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.integers(0, 4),
       st.sampled_from(["laplace", "geometric", "track"]), st.floats(0.2, 30.0))
def test_checked_once_equals_the_checked_path(seed, T, n_lm, kind, eps):
    x, lm, mech = _case(seed, T, n_lm, kind)
    children = np.random.SeedSequence(seed).spawn(6)
    fast = list(adaptive_release_errors(x, lm, epsilon=eps, mechanism=mech,
                                        generators=(np.random.default_rng(c) for c in children)))
    for (errors, private), child in zip(fast, children, strict=True):
        rel = release(x, lm, epsilon=eps, scheme="adaptive", mechanism=mech,
                      seed=np.random.default_rng(child))
        np.testing.assert_array_equal(errors, rel.errors)  # NaN where NaN
        assert private == bool(rel.verdict.private)


def test_adaptive_errors_equal_a_loop_of_checked_releases():
    x = np.array([0.31, 0.33, 0.48, 0.44, 0.52, 0.50])
    errors, private = adaptive_errors(x, [1, 4], 3.0, sensitivity=2.9, runs=40, seed=9)
    gens = [np.random.default_rng(c) for c in np.random.SeedSequence(9).spawn(40)]
    want = np.array([release_series(x, [1, 4], epsilon=3.0, scheme="adaptive", mechanism="laplace",
                                    sensitivity=2.9, seed=g).errors
                     for g in gens])
    np.testing.assert_array_equal(errors, want)
    assert private


def test_bad_values_are_still_refused_in_one_line():
    import pytest

    from lmdk_core.foundation.errors import InputError

    with pytest.raises(InputError, match="missing or infinite"):
        adaptive_errors(np.array([1.0, np.nan, 2.0]), [1], 1.0, runs=5, seed=1)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(0, 12),
       st.floats(0.05, 60.0), st.integers(2, 30))
def test_releases_simulated_together_equal_one_release_per_generator(seed, T, n_lm, eps,
                                                                      runs):
    """lmdk_core.adaptive.simulations (Laplace on a series, the releases as rows) gives
    the errors and verdicts of a checked release per generator, bit for bit."""
    x, lm, _ = _case(seed, T, n_lm, "laplace")
    errors, private = adaptive_errors(x, lm, eps, sensitivity=1.3, runs=runs, seed=seed)
    gens = [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(runs)]
    rels = [release_series(x, lm, epsilon=eps, scheme="adaptive", mechanism="laplace",
                           sensitivity=1.3, seed=g) for g in gens]
    np.testing.assert_array_equal(errors, np.array([r.errors for r in rels]))
    assert private == all(bool(r.verdict.private) for r in rels)


def test_numpy_laplace_is_replayed_from_its_uniforms():
    """The replay of numpy's Laplace sampler (``loc ∓ b·log(…)`` with the C library's
    log) gives numpy's floats on 200,000 doubles, at several scales."""
    from lmdk_core.adaptive.simulations import leading_uniforms

    child = np.random.SeedSequence(2024).spawn(1)
    draws = leading_uniforms(child, 200_000)
    rows, cursor = np.zeros(200_000, dtype=np.intp), np.arange(200_000)
    for scale in (1e-3, 0.77, 2.9 / 0.37, 1e6):
        want = np.random.default_rng(child[0]).laplace(0.0, scale, 200_000)
        np.testing.assert_array_equal(draws.noise(rows, cursor, scale), want)


def test_a_row_numpy_would_redraw_goes_through_the_generator(monkeypatch):
    """A row with a double of exactly 0 (numpy's Laplace sampler rejects it and draws
    again) is replayed from its generator: the errors stay the checked path's."""
    from lmdk_core.adaptive import simulations
    from lmdk_core.decision import adaptive_accuracy

    real = simulations.LaplaceUniforms.__init__
    adaptive_accuracy._seeded_uniforms.cache_clear()  # no draws kept from another test

    def with_unusable_rows(self, uniforms):
        real(self, uniforms)
        self.usable = self.usable.copy()
        self.usable[::2] = False

    monkeypatch.setattr(simulations.LaplaceUniforms, "__init__", with_unusable_rows)
    x = np.array([0.31, 0.33, 0.48, 0.44, 0.52, 0.50])
    errors, private = adaptive_errors(x, [1, 4], 3.0, sensitivity=2.9, runs=9, seed=None)
    assert errors.shape == (9, 6) and private
    errors, _ = adaptive_errors(x, [1, 4], 3.0, sensitivity=2.9, runs=9, seed=77)
    gens = [np.random.default_rng(c) for c in np.random.SeedSequence(77).spawn(9)]
    want = [release_series(x, [1, 4], epsilon=3.0, scheme="adaptive", mechanism="laplace",
                           sensitivity=2.9, seed=g).errors for g in gens]
    np.testing.assert_array_equal(errors, np.array(want))
    adaptive_accuracy._seeded_uniforms.cache_clear()  # none with unusable rows kept


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(0, 12),
       st.floats(0.05, 60.0), st.integers(2, 40), st.sampled_from(["laplace", "geometric"]))
def test_unverified_simulations_give_the_same_errors(seed, T, n_lm, eps, runs, mechanism):
    """checked=False (the utility line's expected error, which reads only the errors)
    skips the verifier on the simulated releases after the first: the errors are the
    same floats, bit for bit, as with every release verified."""
    x, lm, _ = _case(seed, T, n_lm, "laplace")
    if mechanism == "geometric":
        x = np.round(x)
    kw = {"mechanism": mechanism, "sensitivity": 2.0, "runs": runs, "seed": seed}
    want = adaptive_errors(x, lm, eps, **kw)
    got = adaptive_errors(x, lm, eps, checked=False, **kw)
    assert got.errors.tobytes() == want.errors.tobytes()
    assert want.private  # Adaptive is landmark-private: nothing is lost by not looking
