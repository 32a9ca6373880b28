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
