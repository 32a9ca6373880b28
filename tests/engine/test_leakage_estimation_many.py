"""The binned transition matrices of many series at once
(:func:`lmdk_core.leakage.estimation.quantile_transitions_many`, the population audit's
estimated correlation models, Cao et al. ICDE'17) against the one-series functions
(``discretize_series`` then ``transition_matrices``): the same matrices bit for bit, or
None exactly where the one-series path must run (its errors included)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import estimation
from lmdk_core.leakage.estimation import (
    discretize_series,
    quantile_transitions_many,
    transition_matrices,
)


def _series(rng: np.random.Generator, T: int) -> np.ndarray:
    kind = int(rng.integers(0, 7))
    if kind == 0:
        return np.round(rng.normal(0, 1, T), int(rng.integers(0, 3)))  # ties
    if kind == 1:
        return np.full(T, float(rng.normal()))  # constant
    if kind == 2:  # -0.0 beside 0.0
        v = rng.choice([-0.0, 0.0, 1.0, -2.5], T)
        return v
    if kind == 3:
        return rng.integers(0, 4, T)  # integers, read as floats
    if kind == 4:
        v = rng.normal(0, 1, T)
        v[int(rng.integers(0, T))] = rng.choice([np.nan, np.inf])
        return v
    if kind == 5:
        return rng.exponential(1.0, T) * (rng.random(T) < 0.5)  # many zeros
    return 10 + np.cumsum(rng.normal(0, 1, T))


def _one(v, n_bins: int, smoothing: float):
    d = discretize_series(v, n_bins, "quantile")
    return transition_matrices(d.states, d.n_states, smoothing)


@pytest.fixture(params=["numpy", "compiled"])
def _codes_path(request):
    """The states and transition codes per series with numpy, then of all series in one
    compiled call (:mod:`lmdk_core.leakage.transition_kernel`, where numba is loaded)."""
    if request.param == "compiled":
        pytest.importorskip("numba")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(estimation, "_numba_loaded", lambda: request.param == "compiled")
        yield


@pytest.mark.usefixtures("_codes_path")
@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 15),
       st.sampled_from([0.0, 1.0, 0.25]))
def test_many_series_equal_one_series_at_a_time(seed, count, n_bins, smoothing):
    rng = np.random.default_rng(seed)
    lengths = rng.choice([1, 2, 3, 50, 400], count)  # some share a length
    series = [_series(rng, int(T)) for T in lengths]
    got = quantile_transitions_many(series, n_bins, smoothing)
    for v, g in zip(series, got, strict=True):
        a = np.asarray(v, dtype=float)
        handled = (a.size >= 2 and bool(np.isfinite(a).all()) and a.min() != a.max()
                   and not (np.signbit(a) & (a == 0.0)).any())
        assert (g is not None) == handled
        if g is None:
            continue
        want = _one(v, n_bins, smoothing)
        assert g.forward.tobytes() == want.forward.tobytes()
        assert g.backward.tobytes() == want.backward.tobytes()
        assert g.forward.shape == want.forward.shape


def test_bad_arguments_are_the_one_series_errors():
    with pytest.raises(InputError, match="bins"):
        quantile_transitions_many([np.arange(5.0)], 0)
    with pytest.raises(InputError, match="smoothing"):
        quantile_transitions_many([np.arange(5.0)], 3, -1.0)
    assert quantile_transitions_many([], 3) == []
