"""Samplers against their exact distributions (fixed seeds, stated tolerances) and
empirical privacy checks on neighbouring inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import Exponential, Geometric, Laplace, PlanarLaplace, RandomizedResponse

# KS tests: reject only if p < 1e-3 (a correct sampler fails 1 in 1000 seeds; the
# seeds are fixed so the outcome is deterministic).
P_MIN = 1e-3


def dkw_bound(n: int, delta: float = 1e-3) -> float:
    """Dvoretzky–Kiefer–Wolfowitz: P(sup|ECDF - CDF| > b) <= delta (valid for discrete laws)."""
    return float(np.sqrt(np.log(2 / delta) / (2 * n)))


def test_laplace_ks_against_exact_cdf():
    mech = Laplace(sensitivity=2.0)
    noise = mech.perturb(np.zeros(20_000), 0.7, rng=1)
    assert stats.kstest(noise, lambda z: mech.noise_cdf(z, 0.7)).pvalue > P_MIN
    # a wrong scale must be rejected: the test can fail
    assert stats.kstest(noise, lambda z: mech.noise_cdf(z, 1.0)).pvalue < P_MIN


def test_laplace_per_element_epsilon():
    eps = np.repeat([0.2, 1.0, 5.0], 10_000)
    noise = Laplace(1.0).perturb(np.zeros(eps.size), eps, rng=2)
    standardized = noise * eps  # ~ Lap(1)
    assert stats.kstest(standardized, stats.laplace.cdf).pvalue > P_MIN
    mae = [np.abs(noise[eps == e]).mean() for e in (0.2, 1.0, 5.0)]
    # MAE = Δf/ε; SE of the mean of |Z| is b/√n -> 5 SE tolerance
    for m, e in zip(mae, (0.2, 1.0, 5.0), strict=True):
        assert abs(m - 1 / e) < 5 * (1 / e) / np.sqrt(10_000)


def test_geometric_dkw_against_exact_cdf():
    mech = Geometric(sensitivity=1)
    n = 40_000
    noise = mech.perturb(np.zeros(n), 0.5, rng=3)
    assert np.all(noise == np.round(noise))
    ks = np.arange(-40, 41)
    ecdf = np.searchsorted(np.sort(noise), ks, side="right") / n
    assert np.max(np.abs(ecdf - mech.noise_cdf(ks, 0.5))) < dkw_bound(n)
    # expected MAE 2a/(1-a²)
    assert abs(np.abs(noise).mean() - mech.expected_error(0.5)) < 0.05 * mech.expected_error(0.5)
    # discriminative: the CDF at another ε is rejected
    assert np.max(np.abs(ecdf - mech.noise_cdf(ks, 0.7))) > dkw_bound(n)


def test_planar_laplace_radius_is_gamma_and_angle_uniform():
    mech = PlanarLaplace(radius=100.0)
    n = 5_000
    origin = np.tile([[48.8566, 2.3522]], (n, 1))
    out = mech.perturb(origin, 1.0, rng=4)
    d = mech.distance(out, origin)
    # displacement is applied along the geodesic: distances are Gamma(2, r/ε) exactly
    assert stats.kstest(d, lambda x: mech.displacement_cdf(x, 1.0)).pvalue > P_MIN
    assert stats.kstest(d, stats.gamma(2, scale=100.0).cdf).pvalue > P_MIN
    assert abs(d.mean() - 200.0) < 5 * np.sqrt(2) * 100 / np.sqrt(n)
    from lmdk_core.foundation.geodesy import WGS84

    az, _, _ = WGS84.inv(origin[:, 1], origin[:, 0], out[:, 1], out[:, 0])
    assert stats.kstest(np.mod(az, 360), stats.uniform(0, 360).cdf).pvalue > P_MIN
    assert stats.kstest(d, stats.gamma(2, scale=150.0).cdf).pvalue < P_MIN


def test_planar_laplace_quantiles_and_validation():
    mech = PlanarLaplace(radius=50)
    assert mech.expected_error(0.5) == pytest.approx(200.0)
    assert mech.displacement_quantile(0.5, 1.0) == pytest.approx(1.678 * 50, rel=1e-3)
    with pytest.raises(InputError, match="latitude"):
        mech.perturb([[91.0, 0.0]], 1.0, 0)
    with pytest.raises(InputError, match="longitude"):
        mech.perturb([[0.0, -181.0]], 1.0, 0)
    with pytest.raises(InputError, match="radius"):
        PlanarLaplace(0)


def test_randomized_response_keep_rate_and_unbiased_estimate():
    rr = RandomizedResponse(2)
    n = 100_000
    truth = (np.arange(n) < 0.3 * n).astype(int)
    reports = rr.perturb(truth, 1.0, rng=5)
    p = float(rr.truth_probability(1.0))
    kept = (reports == truth).mean()
    assert abs(kept - p) < 4 * np.sqrt(p * (1 - p) / n)
    est = rr.estimate_proportions(reports, 1.0)
    # SE of the estimate: sqrt(λ(1-λ)/n)/(p-q)
    assert abs(est[1] - 0.3) < 4 * np.sqrt(0.25 / n) / (2 * p - 1)
    assert est.sum() == pytest.approx(1.0)


def test_randomized_response_k_ary_distribution():
    rr = RandomizedResponse(4)
    n = 40_000
    reports = rr.perturb(np.full(n, 2), 0.8, rng=6)
    freq = np.bincount(reports, minlength=4) / n
    p = float(rr.truth_probability(0.8))
    expected = np.array([(1 - p) / 3] * 4)
    expected[2] = p
    assert np.max(np.abs(np.cumsum(freq) - np.cumsum(expected))) < dkw_bound(n)


def test_exponential_probabilities_and_sampling():
    mech = Exponential(sensitivity=2.0)
    u = np.array([0.0, -1.0, -3.0, -0.5])
    p = mech.probabilities(u, 1.5)
    w = np.exp(1.5 * u / (2 * 2.0))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-12)
    gen = np.random.default_rng(7)
    draws = np.array([mech.select(u, 1.5, gen) for _ in range(20_000)])
    freq = np.bincount(draws, minlength=4) / draws.size
    assert np.max(np.abs(np.cumsum(freq) - np.cumsum(p))) < dkw_bound(draws.size)
    with pytest.raises(InputError):
        mech.probabilities([], 1.0)


def _max_log_ratio(a: np.ndarray, b: np.ndarray, bins: np.ndarray, min_count: int = 2000):
    """Largest |log(P_a(bin)/P_b(bin))| over bins where both counts are large, and its
    standard error (delta method: sqrt(1/n_a + 1/n_b))."""
    ca, _ = np.histogram(a, bins)
    cb, _ = np.histogram(b, bins)
    ok = (ca >= min_count) & (cb >= min_count)
    lr = np.abs(np.log(ca[ok] / cb[ok]))
    se = np.sqrt(1 / ca[ok] + 1 / cb[ok])
    return lr, se


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_laplace_empirical_privacy_on_neighbouring_inputs(eps):
    """Outputs on x=0 and x'=Δf: every bin's probability ratio stays within e^ε
    (tolerance: 4 standard errors of the log-ratio), seed 8."""
    mech = Laplace(1.0)
    gen = np.random.default_rng(8)
    n = 400_000
    a = mech.perturb(np.zeros(n), eps, gen)
    b = mech.perturb(np.ones(n), eps, gen)
    bins = np.linspace(-4, 5, 37)
    lr, se = _max_log_ratio(a, b, bins)
    assert lr.size > 10
    assert np.all(lr <= eps + 4 * se)
    # the bound is tight in the tails: some bin gets close to ε
    assert lr.max() > 0.8 * eps
    # discriminative: a mechanism spending 2ε's worth of noise-less signal breaks it
    a2 = mech.perturb(np.zeros(n), 2 * eps, gen)
    b2 = mech.perturb(np.ones(n), 2 * eps, gen)
    lr2, se2 = _max_log_ratio(a2, b2, bins)
    assert np.any(lr2 > eps + 4 * se2)


def test_randomized_response_empirical_privacy():
    eps = 1.0
    rr = RandomizedResponse(2)
    n = 400_000
    gen = np.random.default_rng(9)
    out0 = rr.perturb(np.zeros(n, int), eps, gen)
    out1 = rr.perturb(np.ones(n, int), eps, gen)
    for v in (0, 1):
        c0, c1 = (out0 == v).sum(), (out1 == v).sum()
        lr = abs(np.log(c0 / c1))
        assert lr <= eps + 4 * np.sqrt(1 / c0 + 1 / c1)
        assert lr > eps - 4 * np.sqrt(1 / c0 + 1 / c1)  # RR meets the bound exactly


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "x"])
def test_bad_epsilon_is_rejected(bad):
    with pytest.raises(InputError, match="epsilon"):
        Laplace().perturb([0.0], bad, 0)


def test_bad_parameters_are_rejected():
    with pytest.raises(InputError, match="sensitivity"):
        Laplace(-1)
    with pytest.raises(InputError, match="whole-number"):
        Geometric(0.5)
    with pytest.raises(InputError, match="whole numbers"):
        Geometric().perturb([0.5], 1.0, 0)
    with pytest.raises(InputError, match="categories"):
        RandomizedResponse(3).perturb([3], 1.0, 0)
    with pytest.raises(InputError, match="one value per element"):
        Laplace().perturb([0.0, 1.0], [1.0, 1.0, 1.0], 0)
    with pytest.raises(InputError, match="seed"):
        Laplace().perturb([0.0], 1.0, -3)


def test_seed_reproducibility():
    a = Laplace().perturb(np.zeros(10), 1.0, rng=42)
    b = Laplace().perturb(np.zeros(10), 1.0, rng=42)
    np.testing.assert_array_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(0.01, 20),
       value=st.integers(-1000, 1000))
def test_single_step_methods_draw_exactly_what_perturb_draws(seed, eps, value):
    """Adaptive's loop uses perturb_one / distance_one: same numbers as the checked,
    vectorised perturb / distance from the same generator state."""
    cases = [(Laplace(0.7), np.array([float(value)])),
             (Geometric(2.0), np.array([float(value)])),
             (PlanarLaplace(150.0), np.array([[48.85 + value / 1e4, 2.35 - value / 1e4]]))]
    for mech, x in cases:
        a = mech.perturb(x, np.array([eps]), np.random.default_rng(seed))[0]
        b = mech.perturb_one(x[0], eps, np.random.default_rng(seed))
        np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
        want = float(np.ravel(mech.distance(a, x[0]))[0])
        assert mech.distance_one(a, x[0]) == pytest.approx(want, rel=1e-12, abs=1e-9)
