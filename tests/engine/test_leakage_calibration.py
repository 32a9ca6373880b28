"""Calibration: results re-checked by the engine (feasible, and maximal)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage import (
    LossFunction,
    calibrate_epsilon,
    calibrate_scale,
    landmark_tpl,
    max_tpl_constant,
    smoothed_matrix,
    tpl_supremum,
)


@settings(max_examples=30, deadline=None)
@given(st.floats(1e-3, 2.0), st.floats(0.05, 3.0), st.integers(1, 60), st.integers(2, 6))
def test_constant_epsilon_finite_horizon(strength, target, T, n):
    L = LossFunction(smoothed_matrix(n, strength, "shift"))
    r = calibrate_epsilon(target, L, length=T)
    assert r.kind == "constant" and r.horizon == T
    assert r.achieved <= target
    assert abs(max_tpl_constant(r.value, T, L) - r.achieved) < 1e-12
    assert np.all(r.epsilon_t == r.value)
    # maximal: a slightly larger ε breaks the target
    assert max_tpl_constant(r.value * (1 + 1e-7), T, L) > target


@settings(max_examples=30, deadline=None)
@given(st.floats(1e-3, 2.0), st.floats(0.05, 3.0), st.integers(2, 6))
def test_constant_epsilon_infinite_horizon(strength, target, n):
    L = LossFunction(smoothed_matrix(n, strength, "random", seed=n))
    r = calibrate_epsilon(target, L)
    assert r.horizon is None and r.epsilon_t is None
    assert tpl_supremum(r.value, L) <= target
    assert abs(tpl_supremum(r.value, L) - r.achieved) < 1e-12
    assert tpl_supremum(r.value * (1 + 1e-7), L) > target
    # the infinite horizon is the most demanding one (up to the search's rtol 1e-10)
    assert r.value <= calibrate_epsilon(target, L, length=50).value * (1 + 1e-9)


def test_scale_of_uniform_with_landmarks():
    lm = [4, 10, 25]
    base = allocate("uniform", 40, lm, 1.0)
    PB = smoothed_matrix(5, 0.05, "random", seed=2)
    PF = smoothed_matrix(5, 0.1, "shift")
    r = calibrate_scale(base, 1.0, PB, PF, landmarks=lm)
    assert r.kind == "scale" and 0 < r.value < 1
    got = landmark_tpl(r.epsilon_t, lm, PB, PF)
    assert got.max() <= 1.0 and abs(got.max() - r.achieved) < 1e-12
    assert landmark_tpl(base * r.value * (1 + 1e-6), lm, PB, PF).max() > 1.0
    np.testing.assert_allclose(r.epsilon_t, r.value * base)


def test_no_correlation_needs_no_scaling():
    lm = [2, 5]
    base = allocate("uniform", 10, lm, 1.0)
    r = calibrate_scale(base, 1.0, np.full((3, 3), 1 / 3), landmarks=lm)
    assert r.value == pytest.approx(1.0, abs=1e-12)
    assert r.achieved == pytest.approx(1.0, abs=1e-12)
    r = calibrate_epsilon(0.8, np.full((3, 3), 1 / 3), length=7)
    assert r.value == pytest.approx(0.8, abs=1e-12)


def test_bad_inputs():
    eye = np.eye(2)
    with pytest.raises(InputError, match="target"):
        calibrate_epsilon(0.0, eye, length=3)
    with pytest.raises(InputError, match="length"):
        calibrate_epsilon(1.0, eye, length=0)
    with pytest.raises(InputError, match="nothing to scale"):
        calibrate_scale([0.0, 0.0], 1.0, eye)
    with pytest.raises(InputError, match="grows without limit"):
        calibrate_epsilon(1.0, eye)
    r = calibrate_epsilon(1.0, eye, length=4)  # L(α) = α: TPL = T·ε
    assert r.value == pytest.approx(0.25, rel=1e-9) and r.achieved <= 1.0
    with pytest.raises(InputError, match="rtol"):
        calibrate_epsilon(1.0, eye, length=3, rtol=0.9)


def test_calibration_reports_progress_up_to_one():
    """The progress callback sees non-decreasing fractions in [0, 1], one call per
    leakage evaluation (plus the final one), ending at 1."""
    from lmdk_core.leakage import calibrate_scale, smoothed_matrix

    calls: list[tuple[float, str]] = []
    eps = np.full(200, 0.05)
    res = calibrate_scale(eps, 1.0, smoothed_matrix(4, 0.1), landmarks=[20, 90],
                          progress=lambda f, m: calls.append((f, m)))
    fractions = [f for f, _ in calls]
    assert len(calls) == res.evaluations + 1
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "evaluation" in calls[0][1]


def _models(rng: np.random.Generator, n_models: int) -> list[tuple[LossFunction, LossFunction]]:
    """Random correlation models (an estimated model's smoothing variants stand-in):
    backward and forward loss functions of random row-stochastic matrices."""
    out = []
    n = int(rng.integers(2, 7))
    for _ in range(n_models):
        P = rng.random((n, n)) ** 3
        P /= P.sum(axis=1, keepdims=True)
        lb = LossFunction(P)
        out.append((lb, lb if rng.random() < 0.3 else LossFunction(P[rng.permutation(n)])))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.sampled_from([20, 168, 700]))
def test_scale_under_several_models_is_the_search_of_their_largest_peak_bit_for_bit(
        seed, n_models, max_T):
    """calibrate_scale with ``also`` (the conservative model: every smoothing at once,
    the models' pruning rounds run as one vector) returns the same floats, after the same
    evaluations, as the search over ``max_m max_landmark_tpl(c·ε_t; m)`` one model at a
    time: the value Compare's calibration advice shows did not move."""
    from lmdk_core.leakage.calibration import _search
    from lmdk_core.leakage.tpl import max_landmark_tpl

    rng = np.random.default_rng(seed)
    T = int(rng.integers(2, max_T))
    lm = np.sort(rng.choice(T, min(T - 1, int(rng.integers(0, 8))), replace=False))
    eps = allocate(str(rng.choice(["uniform", "skip", "event"])), T, lm.tolist(), 1.0)
    if not np.any(eps > 0):
        return
    models = _models(rng, n_models)
    target = float(rng.choice([0.05, 0.5, 1.0, 3.0]))
    got = calibrate_scale(eps, target, *models[0], lm, rtol=1e-6, also=models[1:])

    def one_at_a_time(c: float) -> float:
        return 0.0 if c <= 0 else max(max_landmark_tpl(c * eps, lm, b, f) for b, f in models)

    value, achieved, evals = _search(one_at_a_time, target, target / float(np.max(eps)), 1e-6)
    assert (got.value, got.achieved, got.evaluations) == (value, achieved, evals)
    # the models' maxima at the result, kept from the search (the calibration advice's
    # worst curve does not compute them again): worst_curve's, bit for bit
    from lmdk_core.leakage.conservative import worst_curve

    if got.value > 0:
        assert got.model_peaks == worst_curve(got.epsilon_t, lm.tolist(), models).peaks
        curve, peaks = worst_curve(got.epsilon_t, lm.tolist(), models, peaks=got.model_peaks)
        want = worst_curve(got.epsilon_t, lm.tolist(), models)
        assert peaks == want.peaks and curve.tobytes() == want.curve.tobytes()
    else:
        assert got.model_peaks is None


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_worst_curve_peaks_are_each_models_own_maximum_bit_for_bit(seed, n_models):
    from lmdk_core.leakage.conservative import worst_curve
    from lmdk_core.leakage.tpl import landmark_tpl, max_landmark_tpl

    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 400))
    lm = np.sort(rng.choice(T, min(T, int(rng.integers(0, 8))), replace=False)).tolist()
    eps = rng.random(T) * float(rng.choice([0.01, 0.3, 2.0]))
    models = _models(rng, n_models)
    curve, peaks = worst_curve(eps, lm, models)
    assert peaks == tuple(float(max_landmark_tpl(eps, lm, b, f)) for b, f in models)
    b, f = models[int(np.argmax(peaks))]
    assert curve.tobytes() == landmark_tpl(eps, lm, b, f).tobytes()
