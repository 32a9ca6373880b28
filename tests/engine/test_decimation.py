"""Display decimation (lmdk_core.figures.decimation): what a long chart draws keeps every
bucket's extremes, the landmarks and the ends; short series are drawn whole."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.figures.decimation import display_indices


@st.composite
def cases(draw):
    T = draw(st.integers(1, 3000))
    buckets = draw(st.integers(1, 400))
    max_points = draw(st.integers(0, 200))
    n_curves = draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    curves = []
    for _ in range(n_curves):
        y = rng.normal(size=T)
        kind = draw(st.sampled_from(["plain", "spikes", "nan", "ties", "inf"]))
        if kind == "spikes":
            y[rng.choice(T, size=max(1, T // 200), replace=False)] += 1e3
        elif kind == "nan":
            y[rng.random(T) < 0.3] = np.nan
        elif kind == "ties":
            y = np.round(y)
        elif kind == "inf":
            y[rng.choice(T)] = np.inf
        curves.append(y)
    keep = draw(st.lists(st.integers(-5, T + 5), max_size=30))
    return T, curves, keep, buckets, max_points


@settings(max_examples=300, deadline=None)
@given(cases())
def test_decimation_keeps_extremes_landmarks_and_ends(case):
    T, curves, keep, buckets, max_points = case
    idx = display_indices(T, curves, keep, buckets=buckets, max_points=max_points)
    assert idx.dtype.kind == "i"
    assert np.all(np.diff(idx) > 0)  # sorted, distinct
    assert idx.size == 0 or (idx[0] >= 0 and idx[-1] < T)
    if T <= max_points:
        assert idx.tolist() == list(range(T))
        return
    chosen = set(idx.tolist())
    assert {0, T - 1} <= chosen
    assert {t for t in keep if 0 <= t < T} <= chosen  # every landmark is drawn
    b = max(1, min(buckets, T))
    assert idx.size <= 2 * b * len(curves) + len(keep) + 2
    edges = np.linspace(0, T, b + 1).round().astype(int)
    for y in curves:
        shown = y[idx]
        # the drawn curve reaches the full curve's overall extremes ...
        if np.any(~np.isnan(y)):
            assert np.nanmax(shown) == np.nanmax(y)
            assert np.nanmin(shown) == np.nanmin(y)
        # ... and each bucket's extremes, at their own timestamps
        for a, z in zip(edges[:-1], edges[1:], strict=True):
            seg = y[a:z]
            if z <= a or np.all(np.isnan(seg)):
                continue
            in_bucket = idx[(idx >= a) & (idx < z)]
            assert np.nanmax(y[in_bucket]) == np.nanmax(seg)
            assert np.nanmin(y[in_bucket]) == np.nanmin(seg)


def test_a_single_spike_survives_heavy_decimation():
    T = 200_000
    y = np.zeros(T)
    y[123_457] = 50.0
    y[7] = -3.0
    idx = display_indices(T, [y], keep=[99_999], buckets=1000)
    assert idx.size <= 1000 * 2 + 3
    assert {123_457, 7, 99_999, 0, T - 1} <= set(idx.tolist())


def test_short_series_are_drawn_whole():
    assert display_indices(168, [np.arange(168.0)]).tolist() == list(range(168))
    assert display_indices(0).size == 0


def test_compare_figure_of_a_long_series_is_decimated_before_drawing():
    """Compare at 20,000 points: every trace is short, the spike and every landmark are
    drawn at their true values, hover labels name the drawn timestamps (seed 5)."""
    from lmdk_core.engine.release import release_series
    from lmdk_core.figures.common import hover_labels
    from lmdk_core.figures.compare import side_by_side_figure

    T = 20_000
    rng = np.random.default_rng(5)
    x = np.cumsum(rng.normal(0, 1, T))
    x[12_345] += 500.0
    lm = np.sort(rng.choice(T, 30, replace=False))
    rels = {s: release_series(x, lm, epsilon=1.0, scheme=s, seed=1)
            for s in ("uniform", "adaptive")}
    time = np.datetime64("2024-01-01T00:00") + np.arange(T) * np.timedelta64(1, "h")
    fig = side_by_side_figure(time, "datetime", rels)
    limit = 2 * 1000 + lm.size + 2
    for tr in fig.data:
        assert len(tr.x) <= limit, tr.name
    orig = next(tr for tr in fig.data if tr.name == "original")
    assert np.isclose(float(np.max(orig.y)), x.max(), rtol=1e-6)
    stars = [tr for tr in fig.data if tr.name == "landmark"]
    assert stars and all(len(tr.x) == lm.size for tr in stars)
    released = next(tr for tr in fig.data if tr.name == "released")
    idx = ((np.asarray(released.x) - time[0]) // np.timedelta64(1, "h")).astype(int)
    assert set(lm) <= set(idx.tolist())
    assert list(released.customdata) == hover_labels(time[idx], "datetime")
    bars = next(tr for tr in fig.data if tr.name == "ε_t (landmark)")
    assert len(bars.x) == lm.size
