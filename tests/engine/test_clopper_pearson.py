"""The scipy-free Clopper–Pearson comparison (lmdk_core.decision.clopper_pearson) says
what ``min(scipy.special.betaincinv(k, n − k + 1, 1 − confidence)) >= p`` says whenever
it answers, near ties included (p placed within a few ulps of scipy's bound), and
answers for all but a thin margin; the Adaptive estimate built on it
(``estimate_meets_target``) equals ``estimate_from_errors`` + ``meets_target``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betaincinv

from lmdk_core.decision.accuracy import AccuracyTarget, meets_target
from lmdk_core.decision.adaptive_accuracy import estimate_from_errors, estimate_meets_target
from lmdk_core.decision.clopper_pearson import lower_bound_at_least


def _scipy_bound(k: np.ndarray, n: np.ndarray, confidence: float) -> float:
    """The smallest lower bound as adaptive_accuracy computes it (0 at k = 0)."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    with np.errstate(invalid="ignore"):
        lo = betaincinv(np.maximum(k, 1e-300), n - k + 1, 1.0 - confidence)
    return float(np.min(np.where(k > 0, lo, 0.0)))


@st.composite
def proportions(draw):
    """1–6 proportions k/n (n up to the 10,000 runs allowed), a confidence, and a p that
    is random, or placed on / a few ulps / a little away from scipy's bound."""
    m = draw(st.integers(1, 6))
    n = np.array([draw(st.integers(1, 10_000)) for _ in range(m)])
    k = np.array([draw(st.integers(max(0, int(x) - draw(st.integers(0, 60))), int(x)))
                  for x in n])
    conf = draw(st.sampled_from([0.95, 0.9, 0.99, 0.5]) | st.floats(0.5, 0.999))
    bound = _scipy_bound(k, n, conf)
    how = draw(st.sampled_from(["random", "on", "ulps", "near"]))
    if how == "random" or not 0 < bound < 1:
        p = draw(st.floats(1e-6, 1 - 1e-6))
    elif how == "on":
        p = bound
    elif how == "ulps":
        p = bound + draw(st.integers(-4, 4)) * np.spacing(bound)
    else:
        p = bound * (1 + draw(st.sampled_from([-1, 1])) * 10.0 ** draw(st.integers(-12, -2)))
    return k, n, conf, float(min(max(p, 1e-12), 1 - 1e-12))


@settings(max_examples=1500, deadline=None)
@given(proportions())
def test_the_decision_is_scipys_whenever_it_is_made(case):
    k, n, conf, p = case
    got = lower_bound_at_least(k, n, conf, p)
    if got is not None:
        assert got == (_scipy_bound(k, n, conf) >= p), case


def test_it_decides_all_but_near_ties():
    """On random proportions and targets it answers (almost) always: the point of it."""
    rng = np.random.default_rng(7)
    answered = 0
    for _ in range(400):
        n = rng.integers(1, 3000, size=rng.integers(1, 5))
        k = n - rng.integers(0, 80, size=n.size).clip(max=n)
        answered += lower_bound_at_least(k, n, 0.95, float(rng.uniform(0.5, 0.999))) is not None
    assert answered >= 396


def test_edges():
    assert lower_bound_at_least(np.array([0, 5]), np.array([5, 5]), 0.95, 0.1) is False
    # 1000 of 1000 within: the bound is 0.05^(1/1000) = 0.997009...
    assert lower_bound_at_least(np.array([1000]), np.array([1000]), 0.95, 0.997) is True
    assert lower_bound_at_least(np.array([1000]), np.array([1000]), 0.95, 0.9971) is False
    assert lower_bound_at_least(np.array([3]), np.array([20_000]), 0.95, 0.1) is None
    assert lower_bound_at_least(np.array([], int), np.array([], int), 0.95, 0.1) is None


@st.composite
def error_tables(draw):
    """Simulated errors (runs × T), NaN = withheld, and a probability target."""
    runs, T = draw(st.integers(2, 300)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    err = rng.exponential(draw(st.floats(0.05, 3)), size=(runs, T))
    err[rng.random((runs, T)) < draw(st.sampled_from([0, 0.1, 0.6, 1]))] = np.nan
    target = AccuracyTarget("within", draw(st.sampled_from([0.5, 1.0, 2.0])),
                            draw(st.sampled_from([0.5, 0.8, 0.9, 0.95])),
                            draw(st.sampled_from(["each", "all", "typical"])))
    return err, target, draw(st.sampled_from([0.95, 0.9, 0.99]))


@settings(max_examples=400, deadline=None)
@given(error_tables())
def test_estimate_meets_target_is_estimate_then_meets(case):
    err, target, conf = case
    est, bound = estimate_from_errors(err, target, conf)
    got_est, got_met = estimate_meets_target(err, target, conf)
    assert (got_est == est) or (np.isnan(got_est) and np.isnan(est))
    assert got_met == meets_target(bound, target)
