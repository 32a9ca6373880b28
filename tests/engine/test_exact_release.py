"""Releases through the exact samplers (ExactLaplace and ExactGeometric, noise="exact").

OpenDP draws from OS entropy and cannot be seeded. The distribution checks therefore use
bounds whose false-failure rate is negligible: with 20,000 draws the mean of |Z|/b (Z
Laplace of scale b, |Z|/b exponential with mean 1 and s.d. 1) has a standard error of
1/√20000 ≈ 0.0071; the tests accept 6 standard errors (false failure ≈ 2e-9). The KS
tests use p > 4e-7 each, so a test holding two of them and a mean check fails a correct
sampler with probability below 1e-6 (each docstring states its own).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import numeric_mechanism, release_series
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import Geometric, Laplace
from lmdk_core.mechanisms.geometric import ExactGeometric
from lmdk_core.mechanisms.laplace import ExactLaplace

N = 20_000
SE6 = 6.0 / np.sqrt(N)  # 6 standard errors of the mean of N unit exponentials
P_KS = 4e-7


def test_numeric_mechanism_chooses_the_sampler():
    assert type(numeric_mechanism("laplace", sensitivity=0.5)) is Laplace
    assert type(numeric_mechanism("laplace", sensitivity=0.5, noise="exact")) is ExactLaplace
    assert type(numeric_mechanism("Geometric", sensitivity=2, noise="exact")) is ExactGeometric
    assert numeric_mechanism("laplace", sensitivity=0.5, noise="exact").sensitivity == 0.5
    with pytest.raises(InputError, match="exact or fast"):
        numeric_mechanism("laplace", sensitivity=1.0, noise="secure")


def test_exact_laplace_release_minus_original_has_the_laplace_law():
    """Mean |Z| within 6 standard errors (2e-9), KS against the law and two-sample KS
    against seeded numpy draws (4e-7 each): false failure < 1e-6. A law of twice the
    scale is rejected far below p = 4e-7 (so the test can fail)."""
    rng = np.random.default_rng(11)  # the data only; OpenDP's noise is unseeded
    x = rng.uniform(-50, 50, N)
    sens, eps = 2.0, 0.8
    rel = release_series(x, [], epsilon=eps, scheme="uniform", mechanism="laplace",
                         sensitivity=sens, noise="exact")
    assert rel.noise == "exact" and rel.verdict.private
    z = rel.released - x
    b = sens / eps  # Δf/ε
    # mean |Z| is Δf/ε within 6 standard errors
    assert abs(np.mean(np.abs(z)) / b - 1.0) < SE6
    # the whole law: KS against Lap(Δf/ε) and against numpy's Laplace (reference seed 5)
    assert stats.kstest(z, stats.laplace(scale=b).cdf).pvalue > P_KS
    assert stats.ks_2samp(z, np.random.default_rng(5).laplace(0.0, b, N)).pvalue > P_KS
    # the test can fail: the same draws are far from a law of twice the scale
    assert stats.kstest(z, stats.laplace(scale=2 * b).cdf).pvalue < P_KS


def test_exact_release_uses_the_verified_per_timestamp_budgets():
    """Skip under landmarks: landmarks withheld/repeated, the rest at their ε_t; the noise
    at each published timestamp has scale Δf/ε_t of the verified allocation (mean within
    6 standard errors of 3,600 unit exponentials: false failure ≈ 2e-9)."""
    T, lm = 4_000, list(range(0, 4_000, 10))
    rel = release_series(np.zeros(T), lm, epsilon=1.0, scheme="skip", mechanism="laplace",
                         sensitivity=1.0, noise="exact")
    planned = allocate("skip", T, np.array(lm), 1.0)
    np.testing.assert_array_equal(rel.epsilon_t, np.where(rel.published, planned, 0.0))
    assert verify(rel.epsilon_t, np.array(lm), 1.0).private
    pub = rel.published
    scaled = np.abs(rel.released[pub]) * rel.epsilon_t[pub]  # |Z|/b, unit exponential
    assert abs(scaled.mean() - 1.0) < 6.0 / np.sqrt(scaled.size)


def test_exact_adaptive_release_is_verified():
    x = np.sin(np.arange(300) / 10) * 5
    rel = release_series(x, [5, 50, 120], epsilon=1.0, scheme="adaptive", mechanism="laplace",
                         sensitivity=1.0, seed=3, noise="exact")
    assert rel.noise == "exact" and rel.verdict.private
    assert rel.published[0] and np.all(np.isfinite(rel.released))


def test_exact_geometric_release_of_counts():
    """Mean |Z| within 6 conservative standard errors: false failure < 2e-9."""
    x = np.random.default_rng(4).integers(0, 1000, N).astype(float)
    rel = release_series(x, [], epsilon=0.5, scheme="uniform", mechanism="geometric", sensitivity=1,
                         noise="exact")
    z = rel.released - x
    assert np.all(z == np.round(z))
    mech = Geometric(1)
    expected = float(mech.expected_error(0.5))
    sd = float(mech.expected_rmse(0.5))  # E Z² ≥ Var|Z|: a conservative standard error
    assert abs(np.mean(np.abs(z)) - expected) < 6 * sd / np.sqrt(N)
    with pytest.raises(InputError, match="whole numbers"):
        release_series([0.5, 1.0], [], epsilon=1.0, scheme="uniform", mechanism="geometric",
                       sensitivity=1, noise="exact")


def test_fast_release_stays_seeded_and_exact_is_not_the_seeded_draw():
    x = np.arange(50, dtype=float)
    a = release_series(x, [3], epsilon=1.0, scheme="uniform", mechanism="laplace", sensitivity=1.0,
                       seed=9)
    b = release_series(x, [3], epsilon=1.0, scheme="uniform", mechanism="laplace", sensitivity=1.0,
                       seed=9)
    assert a.noise == "fast"
    np.testing.assert_array_equal(a.released, b.released)
    c = release_series(x, [3], epsilon=1.0, scheme="uniform", mechanism="laplace", sensitivity=1.0,
                       seed=9, noise="exact")
    assert not np.array_equal(a.released, c.released)  # equal with probability 0


def test_exact_mechanisms_keep_the_usable_range():
    with pytest.raises(InputError, match="too small for the Laplace"):
        ExactLaplace(1.0).perturb([0.0], 1e-305)
    with pytest.raises(InputError, match="too small for the geometric"):
        ExactGeometric(1).perturb([0.0], 1e-13)
