"""lmdk_core.landmarks.robust_medians gives the floats of the pandas calls it replaces
in the landmark baseline, bit for bit: the centred rolling median
(``rolling(w, center=True, min_periods=w).median()``) and the per-group median
(``groupby(g).transform("median")``), on random series — normal draws, rounded
readings, ties, tiny and subnormal values, ±0.0 — and random windows and groups; and
deviation_scores with them equals the pandas construction."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.landmarks.deviations import MAD_TO_SD, MEANAD_TO_SD, deviation_scores
from lmdk_core.landmarks.robust_medians import (
    centred_rolling_median,
    group_median,
    has_negative_zero,
)

VALUES = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, 5e-324, -5e-324, 1e-300, 0.1, 0.2, 0.3]),
)


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same NaN positions and the same bits elsewhere (±0.0 told apart)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b))
                and np.array_equal(a[~nan].view(np.int64), b[~nan].view(np.int64)))


@settings(max_examples=400, deadline=None)
@given(st.lists(VALUES, min_size=0, max_size=90), st.integers(1, 40))
def test_rolling_median_is_pandas(values, w):
    x = np.asarray(values, dtype=float)
    ref = pd.Series(x, dtype=float).rolling(w, center=True, min_periods=w).median()
    assert _bits_equal(centred_rolling_median(x, w), ref.to_numpy())


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_group_median_is_pandas(data):
    values = data.draw(st.lists(VALUES, min_size=0, max_size=90))
    x = np.asarray(values, dtype=float)
    groups = np.asarray(data.draw(st.lists(st.integers(-3, 12), min_size=x.size,
                                           max_size=x.size)), dtype=np.int64)
    ref = pd.Series(x, dtype=float).groupby(groups).transform("median").to_numpy(dtype=float)
    assert _bits_equal(group_median(x, groups), ref)


def test_labels_that_are_not_whole_numbers_go_through_pandas():
    x = np.array([3.0, 1.0, 2.0, 5.0])
    g = np.array(["a", "b", "a", "b"])
    assert np.array_equal(group_median(x, g), [2.5, 3.0, 2.5, 3.0])
    assert has_negative_zero(np.array([1.0, -0.0])) and not has_negative_zero(np.zeros(2))


def _pandas_scores(x: np.ndarray, w: int, ph: np.ndarray | None):
    """deviation_scores as it was computed with pandas (before 2026-12)."""
    from lmdk_core.landmarks.deviations import _baseline

    profile = np.zeros_like(x)
    if ph is not None:
        profile = pd.Series(x).groupby(ph).transform("median").to_numpy(dtype=float)
    base = profile + _pandas_baseline(x - profile, w, _baseline)
    r = x - base
    sigma = MAD_TO_SD * float(np.median(np.abs(r - np.median(r))))
    if sigma == 0:
        sigma = MEANAD_TO_SD * float(np.mean(np.abs(r - r.mean())))
    if sigma == 0:
        return base, np.zeros_like(x)
    if ph is None:
        return base, np.abs(r) / sigma
    ser = pd.Series(r)
    med = ser.groupby(ph).transform("median")
    per_phase = MAD_TO_SD * (ser - med).abs().groupby(ph).transform("median").to_numpy()
    return base, np.abs(r) / np.maximum(per_phase, sigma)


def _pandas_baseline(x: np.ndarray, w: int, numpy_baseline) -> np.ndarray:
    """The baseline with pandas' rolling median: numpy's baseline with its rolling
    median swapped for pandas' (the Theil–Sen ends are the same code)."""
    import lmdk_core.landmarks.deviations as dev

    def pandas_rolling(v, win):
        return pd.Series(v).rolling(win, center=True, min_periods=win).median().to_numpy().copy()

    saved = dev.centred_rolling_median
    dev.centred_rolling_median = pandas_rolling
    try:
        return numpy_baseline(x, w)
    finally:
        dev.centred_rolling_median = saved


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_deviation_scores_are_the_pandas_ones(data):
    T = data.draw(st.integers(1, 120))
    x = np.asarray(data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.25, 1.0, 3.5, 0.0])
                                      | st.floats(0, 10), min_size=T, max_size=T)))
    w = data.draw(st.integers(3, 30))  # check_window: at least 3
    ph = (np.arange(T) % data.draw(st.integers(1, 24))) if data.draw(st.booleans()) else None
    base, score = deviation_scores(x, w, ph)
    ref_base, ref_score = _pandas_scores(x, w, ph)
    assert _bits_equal(base, ref_base) and _bits_equal(score, ref_score)
