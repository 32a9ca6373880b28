"""The ε slider's preview (lmdk_core.figures.epsilon_preview): its rules applied to the
Timeline figure (and to each static column of Compare's side-by-side figure) at ε give
the figure of the release at ε' drawn with the same seed —
the preview of a static scheme *is* that release, the same draws scaled — and its
leakage grid is the leakage of the scaled allocation (lmdk_core.leakage.epsilon_grid).

The rules are applied here as the browser applies them (app_support/live_chart.js:
scrubFigure); tests/browser/test_browser_live_chart.py checks the browser's own
result against the server's release. Seeded: hypothesis draws the inputs, every
release its noise from seed 11.
"""

from __future__ import annotations

import base64

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.release import release_series
from lmdk_core.figures.compare import side_by_side_figure
from lmdk_core.figures.epsilon_preview import (
    LINEAR_SCHEMES,
    compare_preview,
    noise_bases,
    slider_range,
    timeline_preview,
)
from lmdk_core.figures.timeline import timeline_figure
from lmdk_core.leakage import smoothed_matrix
from lmdk_core.leakage.epsilon_grid import GridLeakage, epsilon_grid, leakage_on_grid
from lmdk_core.leakage.tpl import max_landmark_tpl, temporal_leakage


def _f32(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(float)


def _apply(spec: dict, fig, eps: float) -> dict[int, np.ndarray]:
    """The y of every trace the preview moves, at ``eps`` (scrubFigure's rules)."""
    e0, out = spec["epsilon"], {}
    grid = _f32(spec["grid"]) if spec.get("grid") else None
    for tr in spec["traces"]:
        y0 = _f32(tr["y0"])
        if tr["rule"] == "scale":
            out[tr["i"]] = y0 * eps / e0
        elif tr["rule"] == "noise":
            b = _f32(tr["base"])
            out[tr["i"]] = b + (y0 - b) * e0 / eps
        else:
            rows = _f32(tr["grid"]).reshape(grid.size, -1)
            g = int(np.argmin(np.abs(np.log(grid) - np.log(eps))))
            out[tr["i"]] = rows[g]
    return out


def _release(values, landmarks, eps, scheme):
    return release_series(values, landmarks, epsilon=eps, scheme=scheme, mechanism="laplace",
                          sensitivity=0.7, seed=11, window=4)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(3, 60), data=st.data(), scheme=st.sampled_from(sorted(LINEAR_SCHEMES)),
       e0=st.floats(0.05, 5), e1=st.floats(0.05, 5))
def test_the_preview_at_a_new_epsilon_is_the_release_at_that_epsilon(T, data, scheme, e0, e1):
    values = np.random.default_rng(T).normal(3.0, 1.0, T)
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T // 2)))
    rel0, rel1 = _release(values, lm, e0, scheme), _release(values, lm, e1, scheme)
    fig0, fig1 = timeline_figure(np.arange(T), "index", rel0), timeline_figure(
        np.arange(T), "index", rel1)
    spec = timeline_preview(fig0, rel0)
    assert spec["live"] and spec["epsilon"] == e0
    moved = _apply(spec, fig0, e1)
    names = {fig0.data[i].name for i in moved}
    assert "released" in names and any(n.startswith("ε_t") for n in names)
    for i, y in moved.items():
        want = np.asarray(fig1.data[i].y, dtype=float)
        assert fig1.data[i].name == fig0.data[i].name
        np.testing.assert_allclose(y, want, rtol=2e-5, atol=2e-5 * (1 + np.nanmax(
            np.abs(want))), equal_nan=True)
    # the ε lines move, and the theorem's ratio does not depend on ε
    assert spec["shapes"] and spec["annotations"]
    ratio1 = float(np.max(rel1.verdict.totals)) / e1
    assert abs(spec["verdict"]["ratio"] - ratio1) <= 1e-9 * max(1.0, ratio1)
    assert spec["verdict"]["private"] == rel1.verdict.private


def test_the_bases_are_the_true_values_the_released_values_repeat():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    rel = _release(values, [2, 3], 1.0, "skip")  # Skip: 2 and 3 repeat t=1
    assert noise_bases(rel).tolist() == [1.0, 2.0, 2.0, 2.0, 5.0]


def test_adaptive_sends_the_slider_alone():
    rel = _release(np.linspace(0, 5, 30), [4, 9], 1.0, "adaptive")
    spec = timeline_preview(timeline_figure(np.arange(30), "index", rel), rel)
    assert not spec["live"] and spec["traces"] == []


def test_the_leakage_grid_is_the_leakage_of_each_scaled_allocation():
    share = np.array([0.2, 0.5, 0.2, 0.2, 0.5, 0.2])
    P = smoothed_matrix(3, 0.05)
    grid = epsilon_grid(0.1, 4.0, 5)
    full = leakage_on_grid(share, [1, 4], P, None, grid, curves=True)
    peaks = leakage_on_grid(share, [1, 4], P, None, grid)
    for g, e in enumerate(grid):
        res = temporal_leakage(e * share, P, None, [1, 4])
        np.testing.assert_array_equal(full.tpl[g], res.tpl)
        np.testing.assert_array_equal(full.landmark_tpl[g], res.landmark_tpl)
        assert peaks.max_landmark_tpl[g] == max_landmark_tpl(e * share, [1, 4], P, None)
    assert peaks.tpl is None and np.array_equal(full.max_landmark_tpl, peaks.max_landmark_tpl)


def test_the_leakage_curves_move_on_the_grid():
    T, lm = 40, [5, 20]
    values = np.random.default_rng(2).normal(3.0, 1.0, T)
    rel = _release(values, lm, 1.0, "uniform")
    P = smoothed_matrix(4, 0.1)
    low, high = slider_range(1.0)
    grid = leakage_on_grid(rel.epsilon_t / 1.0, lm, P, None, epsilon_grid(low, high),
                           curves=True)
    res = temporal_leakage(rel.epsilon_t, P, None, lm)
    leak = {"TPL": res.tpl, "landmark TPL": res.landmark_tpl}
    fig = timeline_figure(np.arange(T), "index", rel, leakage=leak)
    spec = timeline_preview(fig, rel, leakage=leak, grid=grid)
    g = 40  # a grid point: the preview there is the leakage of that allocation
    eps = float(grid.grid[g])
    moved = _apply(spec, fig, eps)
    at = temporal_leakage(rel.epsilon_t * eps, P, None, lm)
    by_name = {fig.data[i].name: y for i, y in moved.items()}
    np.testing.assert_allclose(by_name["TPL"], at.tpl, rtol=1e-6)
    np.testing.assert_allclose(by_name["landmark TPL"], at.landmark_tpl, rtol=1e-6)
    assert isinstance(grid, GridLeakage)
    np.testing.assert_allclose(_f32(spec["verdict"]["peak"])[g], at.landmark_tpl.max(),
                               rtol=1e-6)


def _side_by_side(T, lm, eps, schemes, leak_of=None):
    releases = {s: _release(np.random.default_rng(T).normal(3.0, 1.0, T), lm, eps, s)
                for s in schemes}
    leakage = {s: leak_of(r) for s, r in releases.items()} if leak_of else None
    return releases, leakage, side_by_side_figure(np.arange(T), "index", releases,
                                                   leakage=leakage)


def _by_panel(fig, i=None):
    """Traces by (y axis, name, how many of that name came before on that axis); with
    ``i``, the key of trace i."""
    keys, seen = {}, {}
    for j, tr in enumerate(fig.data):
        k = (tr.yaxis, tr.name)
        seen[k] = seen.get(k, -1) + 1
        keys[j] = (*k, seen[k])
    return keys[i] if i is not None else {keys[j]: fig.data[j] for j in keys}


@settings(max_examples=25, deadline=None)
@given(T=st.integers(3, 60), data=st.data(), e0=st.floats(0.05, 5), e1=st.floats(0.05, 5),
       schemes=st.lists(st.sampled_from(sorted(LINEAR_SCHEMES | {"adaptive"})), min_size=2,
                        max_size=4, unique=True))
def test_compares_preview_at_a_new_epsilon_is_each_columns_release_there(T, data, e0, e1,
                                                                         schemes):
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T // 2)))
    rel0, _, fig0 = _side_by_side(T, lm, e0, schemes)
    rel1, _, fig1 = _side_by_side(T, lm, e1, schemes)
    spec = compare_preview(fig0, rel0)
    moved = _apply(spec, fig0, e1)
    live = [s for s in schemes if s in LINEAR_SCHEMES]
    assert spec["live"] == bool(live)
    # every trace of a static column moves to that column's release at e1 (the same
    # draws), Adaptive's traces are frozen, the rest (originals, landmarks) stay put
    at1 = _by_panel(fig1)  # Adaptive's traces at e1 may differ in number: by panel
    for i, y in moved.items():
        want = np.asarray(at1[_by_panel(fig0, i)].y, dtype=float)
        np.testing.assert_allclose(y, want, rtol=2e-5, atol=2e-5 * (1 + np.nanmax(
            np.abs(want))), equal_nan=True)
    released = [i for i, tr in enumerate(fig0.data) if tr.name == "released"]
    k = len(schemes)
    col = {i: int((fig0.data[i].xaxis or "x")[1:] or 1) for i in released}
    for i in released:
        assert (i in moved) == (schemes[col[i] - 1] in live)
    assert len(spec["frozen"]) == sum(
        1 for tr in fig0.data if schemes[(int((tr.xaxis or "x")[1:] or 1) - 1) % k]
        == "adaptive")
    for v, s in zip(spec["verdicts"], schemes, strict=True):
        assert v["live"] == (s in live)
        if s not in live:  # Adaptive's allocation at e1 is its own (from its noise)
            continue
        assert v["private"] == rel1[s].verdict.private
        ratio1 = float(np.max(rel1[s].verdict.totals)) / e1
        assert abs(v["ratio"] - ratio1) <= 1e-9 * max(1.0, ratio1)
    # the budget row's range at e1 is what the figure at e1 makes of it (from 0 to 1.08
    # times the largest total or ε) when every column is static
    if len(live) == k:
        fit = next(a for a in spec["axes"] if a["row"] == 2)
        top = max([e1, fit["top"], *(float(np.nanmax(y)) for i, y in moved.items()
                                     if fig0.data[i].yaxis in {f"y{n[5:]}" for n in
                                                               fit["axes"]})])
        want = fig1.layout[fit["axes"][0]].range
        np.testing.assert_allclose([0, 1.08 * top], want, rtol=1e-5)


def test_compares_leakage_row_moves_on_each_schemes_grid():
    T, lm = 40, [5, 20]
    P = smoothed_matrix(4, 0.1)
    low, high = slider_range(1.0)

    def leak_of(rel):
        res = temporal_leakage(rel.epsilon_t, P, None, lm)
        return {"TPL": res.tpl, "landmark TPL": res.landmark_tpl}

    releases, leakage, fig = _side_by_side(T, lm, 1.0, ["uniform", "skip"], leak_of)
    grids = {s: leakage_on_grid(r.epsilon_t, lm, P, None, epsilon_grid(low, high),
                                curves=True) for s, r in releases.items()}
    spec = compare_preview(fig, releases, leakage=leakage, grids=grids)
    g = 20
    eps = float(grids["skip"].grid[g])
    moved = _apply(spec, fig, eps)
    for c, rel in enumerate(releases.values(), start=1):
        at = temporal_leakage(rel.epsilon_t * eps, P, None, lm)
        axis = f"y{2 * 2 + c}"  # row 3 of 2 columns
        got = {fig.data[i].name: y for i, y in moved.items() if fig.data[i].yaxis == axis}
        np.testing.assert_allclose(got["TPL"], at.tpl, rtol=1e-6)
        np.testing.assert_allclose(got["landmark TPL"], at.landmark_tpl, rtol=1e-6)
        v = spec["verdicts"][c - 1]
        np.testing.assert_allclose(_f32(v["peak"])[g], at.landmark_tpl.max(), rtol=1e-6)
