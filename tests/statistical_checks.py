"""Law checks shared by the tests of unseeded samplers (OpenDP draws from OS entropy),
each with a stated false-failure probability."""

from __future__ import annotations

import numpy as np
from scipy import stats


def assert_standard_laplace(z: np.ndarray, alpha: float) -> None:
    """``z`` are i.i.d. Lap(1), failing with probability at most ``alpha`` when they are:
    a KS test against Lap(1) at p > α/2, and mean|z| — exactly Gamma(n, 1/n) under Lap(1),
    since |z| ~ Exp(1) — inside its central 1 − α/2 interval. A sampler of scale 1.15
    (mean|z| ~ Gamma(n, 1.15/n)) falls inside that interval with probability < 1e-12 for
    n ≥ 7,000 (asserted from the Gamma law: the check can fail)."""
    n = z.size
    assert stats.kstest(z, stats.laplace().cdf).pvalue > alpha / 2
    lo, hi = stats.gamma.ppf([alpha / 4, 1 - alpha / 4], n, scale=1.0 / n)
    assert lo < np.abs(z).mean() < hi
    wrong = stats.gamma(n, scale=1.15 / n)
    assert wrong.cdf(hi) - wrong.cdf(lo) < 1e-12
