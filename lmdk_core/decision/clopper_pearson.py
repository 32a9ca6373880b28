"""Whether a one-sided Clopper–Pearson lower bound reaches a probability, decided from
the binomial tail without scipy (importing ``scipy.special`` costs a small command
0.17–0.2 s of CPU, docs/performance.md "Fixed costs").

The lower bound at confidence 1 − α of a proportion with k successes in n trials is
``L = betaincinv(k, n − k + 1, α)`` (0 when k = 0; Clopper & Pearson, Biometrika 1934),
the x at which the regularised incomplete beta function I_x(k, n − k + 1) — which is
the binomial tail P(Bin(n, x) ≥ k) — equals α. I_x rises with x, so

    L ≥ p  ⇔  P(Bin(n, p) ≥ k) ≤ α.

The tail is summed here in floating point (log-factorials by ``math.lgamma``: an
absolute error below 1e-10 for n ≤ 10⁴, the most runs ``--runs`` allows). When it lies
more than :data:`TAIL_MARGIN` from α, the answer is certain and equals scipy's
``betaincinv(...) >= p``: the density of Beta(k, n − k + 1) is
n·P(Bin(n − 1, x) = k − 1) ≤ n, so a tail Δ away from α puts the exact L at least
Δ / n from p (≥ 1e-10 for n ≤ 10⁴), far beyond the error of scipy's (Boost's)
inverse (units in the last place: about 1e-16 at L ≤ 1). Inside the margin the function says
it cannot tell (None) and the caller computes L with scipy.
tests/engine/test_clopper_pearson.py checks the decisions against scipy, near ties
included.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TAIL_MARGIN", "lower_bound_at_least"]

#: how far the binomial tail must lie from α for the comparison to be certain
TAIL_MARGIN = 1e-6
#: the most tail terms summed (beyond: None, scipy decides — it is faster there)
MAX_TERMS = 400_000
#: the most trials of one proportion (the error bound above holds up to here)
MAX_TRIALS = 10_000


def _log_factorials(n: int) -> np.ndarray:
    """log(i!) for i = 0..n, each by ``math.lgamma`` (correctly rounded to ~1 ulp)."""
    return np.array([math.lgamma(i + 1.0) for i in range(n + 1)])


def lower_bound_at_least(k: np.ndarray, n: np.ndarray, confidence: float,
                         p: float) -> bool | None:
    """Whether the smallest one-sided Clopper–Pearson lower bound at ``confidence`` of
    the proportions ``k[i]`` successes in ``n[i]`` trials is at least ``p`` — what
    ``min(betaincinv(k, n − k + 1, 1 − confidence)) >= p`` says (a bound of 0 for
    k = 0) — or None when the module's test cannot tell (a tail within
    :data:`TAIL_MARGIN` of α, or inputs outside its proven range)."""
    alpha = 1.0 - confidence
    ks, ns = np.asarray(k).astype(np.int64), np.asarray(n).astype(np.int64)
    if (not 0.0 < p < 1.0 or not 10 * TAIL_MARGIN < alpha < 1.0 or ks.size == 0
            or np.any(ns < 1) or np.any(ks < 0) or np.any(ks > ns)
            or int(ns.max()) > MAX_TRIALS):
        return None
    pairs = sorted(set(zip(ks.tolist(), ns.tolist(), strict=True)),
                   key=lambda kn: kn[0] / kn[1])
    if sum(n_ - k_ + 1 for k_, n_ in pairs) > MAX_TERMS:
        return None
    if pairs[0][0] == 0:
        return False  # a bound of 0 never reaches p > 0
    log_fact = _log_factorials(max(n_ for _, n_ in pairs))
    lp, lq = math.log(p), math.log1p(-p)
    undecided = False
    for k_, n_ in pairs:  # the smallest shares first: a miss ends the search
        j = np.arange(k_, n_ + 1)
        tail = float(np.exp(log_fact[n_] - log_fact[j] - log_fact[n_ - j]
                            + j * lp + (n_ - j) * lq).sum())
        if tail >= alpha + TAIL_MARGIN:
            return False
        if tail > alpha - TAIL_MARGIN:
            undecided = True
    return None if undecided else True
