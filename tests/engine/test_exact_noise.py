"""The exact Laplace / Geometric releases (lmdk_core.mechanisms.exact_noise).

The exact sampler draws from OS entropy, so its samples are not seeded here (the seeded
law tests of the sampler itself are in test_discrete_laplace.py). Each distribution test
compares them with the exact law (one-sample KS or χ², mean|z| against its exact Gamma
law: tests/statistical_checks.py) and with numpy draws from a stated seed (two-sample
KS or χ²). Each test fails a correct sampler with probability at most ``ALPHA = 1e-6``,
split evenly over its checks (union bound; each docstring counts them).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms.exact_noise import (
    SAMPLER_NAME,
    exact_geometric,
    exact_laplace,
    sampler_description,
)
from lmdk_core.mechanisms.geometric import Geometric
from tests.statistical_checks import assert_standard_laplace

#: the largest false-failure probability of one test (split over its checks)
ALPHA = 1e-6
N = 20_000


def test_laplace_matches_the_exact_law_and_seeded_numpy_draws():
    """Three checks at ALPHA/3 each (KS and mean|z| against Lap(b), two-sample KS against
    seeded numpy draws): false failure ≤ 1e-6. A scale 1.15·b is caught by mean|z|
    except with probability < 1e-12."""
    b = 2.5
    z = exact_laplace(np.zeros(N), b, 1.0)
    assert_standard_laplace(z / b, 2 * ALPHA / 3)
    # comparison seed 20240515; 10·N reference draws keep the reference's own sampling
    # noise small next to that of the N exact draws
    reference = np.random.default_rng(20240515).laplace(0.0, b, 10 * N)
    assert stats.ks_2samp(z, reference).pvalue > ALPHA / 3


def test_laplace_is_applied_to_the_values_with_per_element_scales():
    rng = np.random.default_rng(7)  # the values and the scale pattern, not the noise
    x = rng.uniform(-1e6, 1e6, N)
    scales = rng.choice([0.3, 1.0, 4.0, 17.0], N)
    out = exact_laplace(x, scales, 1.0)  # three KS tests at ALPHA/3: false failure ≤ 1e-6
    assert out.shape == x.shape
    standardized = (out - x) / scales
    assert stats.kstest(standardized, stats.laplace().cdf).pvalue > ALPHA / 3
    for s in (0.3, 17.0):  # each group has its own scale
        sel = scales == s
        assert stats.kstest((out - x)[sel], stats.laplace(scale=s).cdf).pvalue > ALPHA / 3


def test_laplace_keeps_shape_of_2d_input():
    out = exact_laplace(np.zeros((50, 4)), np.full((50, 4), 1.0), 1.0)
    assert out.shape == (50, 4) and np.all(np.isfinite(out))


def test_geometric_matches_the_exact_pmf_chi_square():
    """χ² against the exact pmf and a contingency test against seeded numpy draws, each
    at p > ALPHA/2 (false failure ≤ 1e-6); the χ² test also rejects the law at ε = 1
    instead of 0.7 (20,000 draws: a noncentral χ² far past the critical value, missed
    with probability far below 1e-12)."""
    eps, sens = 0.7, 1
    b = sens / eps
    x = np.full(N, 40.0)
    out = exact_geometric(x, b)
    z = out - x
    assert np.all(z == np.round(z))
    mech = Geometric(sens)
    edges = np.arange(-8, 9)  # cells (-inf,-8], (-8,-7], …, (7,8], (8, inf)
    cdf = mech.noise_cdf(edges, eps)
    probs = np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    counts = np.histogram(z, bins=np.concatenate([[-np.inf], edges + 0.5, [np.inf]]))[0]
    assert stats.chisquare(counts, probs * N).pvalue > ALPHA / 2
    # comparison seed 99: numpy's two-sided geometric, 10·N draws so that the reference's
    # own sampling noise is small next to that of the N exact draws (with only N, this
    # particular reference is itself off the pmf at p ≈ 0.0008, which made the
    # comparison fail about once in 30 runs)
    reference = np.random.default_rng(99).geometric(1 - np.exp(-eps), (2, 10 * N))
    ref = reference[0] - reference[1]
    ref_counts = np.histogram(ref, bins=np.concatenate([[-np.inf], edges + 0.5, [np.inf]]))[0]
    table = np.vstack([counts, ref_counts])
    assert stats.chi2_contingency(table).pvalue > ALPHA / 2
    # the test can fail: a geometric of another ε is rejected
    wrong = mech.noise_cdf(edges, 1.0)
    wprobs = np.diff(np.concatenate([[0.0], wrong, [1.0]]))
    assert stats.chisquare(counts, wprobs * N).pvalue < ALPHA / 2


def test_geometric_per_element_scales_and_big_counts():
    """Mean |Z| per scale within 6 standard errors (2,000 draws each; two-sided normal
    tail 2e-9 per group, 6e-9 for the three): false failure ≤ 1e-6."""
    x = np.array([0, 10**15, -(10**15), 3] * 2000, dtype=float)
    b = np.array([0.5, 2.0, 2.0, 8.0] * 2000)
    z = exact_geometric(x, b) - x
    assert np.all(z == np.round(z))
    # mean |Z| = 2a/(1−a²), a = exp(−1/b): within 6 standard errors per group
    for s in (0.5, 2.0, 8.0):
        sel = b == s
        a = np.exp(-1 / s)
        mae = 2 * a / (1 - a * a)
        se = np.std(np.abs(z[sel])) / np.sqrt(sel.sum())
        assert abs(np.abs(z[sel]).mean() - mae) < 6 * se + 1e-12


@pytest.mark.parametrize("values, scales, fragment", [
    ([1.0, np.nan], 1.0, "finite"),
    ([1.0, 2.0], [1.0, 0.0], "positive"),
    ([1.0, 2.0], [1.0, np.inf], "positive"),
    ([1.0, 2.0, 3.0], [1.0, 2.0], "one noise scale per value"),
    (["a"], 1.0, "numbers"),
])
def test_laplace_bad_input_is_refused(values, scales, fragment):
    with pytest.raises(InputError, match=fragment):
        exact_laplace(values, scales, 1.0)


def test_geometric_refuses_fractions_and_huge_counts():
    with pytest.raises(InputError, match="whole numbers"):
        exact_geometric([1.5], 1.0)
    with pytest.raises(InputError, match="2\\^62"):
        exact_geometric([2.0**63], 1.0)


def test_the_sampler_names_itself():
    assert "exact discrete Laplace" in SAMPLER_NAME and "Mironov-safe" in SAMPLER_NAME
    assert sampler_description() == SAMPLER_NAME


def test_empty_input():
    assert exact_laplace(np.zeros(0), 1.0, 1.0).shape == (0,)
