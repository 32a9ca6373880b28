"""The noisy release of a population statistic under a per-window allocation ε_t.

At every window with ε_t > 0 the statistic (all cells of the window at once) is
released with noise of scale Δ/ε_t (:mod:`lmdk_core.aggregate.statistics`): the two-sided
geometric for counts, Laplace for sums; the mean as noisy sum / noisy count at ε_t/2
each. A window with ε_t = 0 (Skip's public landmarks) repeats the last release
(post-processing; the landmark windows are public there, so the repetition reveals
nothing) and has no noise-law interval. Noise is the exact sampler by default
(``noise="exact"``; Mironov, CCS 2012) or numpy's (``"fast"``, seeded, for exploring).

Adaptive (public landmarks, sum or count only) runs the engine's own Adaptive release
(:func:`lmdk_core.engine.release.release`) on the window series.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.aggregate.intervals import (
    geometric_half_width,
    laplace_half_width,
    ratio_interval,
)
from lmdk_core.aggregate.statistics import Statistic, Totals
from lmdk_core.engine.verifier import Verdict
from lmdk_core.foundation.errors import InputError
from lmdk_core.mechanisms import Geometric, Laplace

__all__ = ["StatisticRelease", "release_adaptive", "release_statistic"]


@dataclass
class StatisticRelease:
    """Released values, 95 % intervals (NaN where a release is repeated), the budget
    spent per window, which windows are fresh releases, and the expected absolute
    error of one released value per window (from the noise law; NaN where repeated or
    for the mean)."""

    released: np.ndarray
    low: np.ndarray
    high: np.ndarray
    allocation: np.ndarray
    published: np.ndarray
    expected_error: np.ndarray


def _mechanism(integer: bool, sensitivity: float, noise: str):
    if noise not in ("exact", "fast"):
        raise InputError(f"unknown noise {noise!r}; choose exact or fast")
    mech = Geometric(int(sensitivity)) if integer else Laplace(sensitivity)
    return mech.exact() if noise == "exact" else mech


def _noisy(values: np.ndarray, eps: np.ndarray, integer: bool, sensitivity: float,
           noise: str, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(released, half_width, expected_error)`` of ``values`` (P, C) at ``eps`` (P,)."""
    mech = _mechanism(integer, sensitivity, noise)
    per_value = np.repeat(eps, values.shape[1])
    out = mech.perturb(values.ravel(), per_value, rng).reshape(values.shape)
    scale = sensitivity / eps
    q = geometric_half_width(scale) if integer else laplace_half_width(scale)
    return out, q, np.asarray(mech.expected_error(eps), dtype=float)


def release_statistic(kept: Totals, stat: Statistic, allocation: np.ndarray,
                      noise: str = "exact", rng=None) -> StatisticRelease:
    """Release ``stat`` of the totals ``kept`` at ε_t = ``allocation`` (module
    docstring)."""
    eps = np.asarray(allocation, dtype=float)
    T, C = kept.count.shape
    pub = eps > 0
    idx = np.flatnonzero(pub)
    fresh = np.full((idx.size, C), np.nan)
    lo_f, hi_f = fresh.copy(), fresh.copy()
    expected = np.full(T, np.nan)
    if idx.size:
        e = eps[idx]
        if stat.kind == "mean":
            fresh, lo_f, hi_f = _noisy_mean(kept, idx, e, stat, noise, rng)
        else:
            truth = kept.values(stat)[idx]
            fresh, q, exp_err = _noisy(truth, e, stat.integer, stat.sensitivity, noise, rng)
            lo_f, hi_f = fresh - q[:, None], fresh + q[:, None]
            expected[idx] = exp_err
    return StatisticRelease(released=_hold(fresh, pub), low=_place(lo_f, pub),
                            high=_place(hi_f, pub), allocation=np.where(pub, eps, 0.0),
                            published=pub, expected_error=expected)


def _noisy_mean(kept: Totals, idx: np.ndarray, e: np.ndarray, stat: Statistic, noise: str,
                rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Noisy sum (Laplace, ε_t/2) / noisy count (geometric, ε_t/2), clamped to the bounds;
    the midpoint of the bounds where the noisy count is not positive."""
    lo, hi = stat.declared_bounds()
    half = e / 2
    s, qs, _ = _noisy(kept.total[idx], half, False, stat.sensitivity, noise, rng)
    n, qn, _ = _noisy(kept.count[idx].astype(float), half, True, 1.0, noise, rng)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.clip(s / np.where(n > 0, n, 1), lo, hi), (lo + hi) / 2)
    # each interval at 97.5 % (Bonferroni): the ratio's range holds the mean at ≥ 95 %
    qs2 = laplace_half_width(stat.sensitivity / half, 0.025)[:, None]
    qn2 = geometric_half_width(1.0 / half, 0.025)[:, None]
    low, high = ratio_interval(s - qs2, s + qs2, n - qn2, n + qn2, lo=lo, hi=hi)
    return mean, low, high


def _place(fresh: np.ndarray, pub: np.ndarray) -> np.ndarray:
    out = np.full((pub.size, fresh.shape[1]), np.nan)
    out[pub] = fresh
    return out


def _hold(fresh: np.ndarray, pub: np.ndarray) -> np.ndarray:
    """The fresh releases at the published windows, the last one repeated elsewhere
    (NaN before the first)."""
    which = np.cumsum(pub) - 1
    lead = np.vstack([fresh, np.full((1, fresh.shape[1]), np.nan)])
    return lead[np.where(which >= 0, which, fresh.shape[0])]


def release_adaptive(kept: Totals, stat: Statistic, landmarks: np.ndarray, *, epsilon: float,
                     noise: str = "exact", rng=None) -> tuple[StatisticRelease, Verdict]:
    """Adaptive on the window series of a sum or a count with public landmark windows:
    the engine's release (its verifier included); returns the release and its verdict."""
    from lmdk_core.engine.release import release

    if stat.kind not in ("sum", "count"):
        raise InputError("Adaptive releases one number per window: use it with --statistic "
                         "sum or count (cell counts and the mean: uniform or skip)")
    mech = _mechanism(stat.integer, stat.sensitivity, noise)
    rel = release(kept.values(stat)[:, 0], landmarks, epsilon=epsilon, scheme="adaptive",
                  mechanism=mech, seed=rng)
    pub = rel.published
    spent = rel.epsilon_t
    scale = np.where(pub, stat.sensitivity / np.where(pub, spent, 1.0), np.nan)
    q = geometric_half_width(scale) if stat.integer else laplace_half_width(scale)
    out = rel.released[:, None]
    low = np.where(pub[:, None], out - q[:, None], np.nan)
    high = np.where(pub[:, None], out + q[:, None], np.nan)
    return StatisticRelease(released=out, low=low, high=high, allocation=spent, published=pub,
                            expected_error=rel.expected_errors), rel.verdict
