"""Repeated values carry fresh post-processing noise (lmdk_core/engine/repeat_noise.py;
docs/privacy-model.md, "Why this costs no budget"): no run of identical released values
remains, and released stay fixes / Skip's approximations cannot be told from released
stationary regular values by their consecutive differences better than chance."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.foundation.geodesy import destination, distance_m

#: a KS p-value below this fails: under the null hypothesis (the same law) the test
#: fails with probability at most 1e-6, whatever the seed
P_FAIL = 1e-6


def _pairs(points: np.ndarray) -> np.ndarray:
    """Distances between the points of disjoint consecutive pairs (0-1, 2-3, …): the
    differences of disjoint pairs are independent, as the KS test assumes."""
    a, b = points[0:-1:2], points[1::2]
    n = min(len(a), len(b))
    return np.asarray(distance_m(a[:n, 0], a[:n, 1], b[:n, 0], b[:n, 1]))


def _track_with_home_and_stay(seed: int = 7):
    """300 fixes standing still at home (regular, no landmark), 40 fixes walking 80 m
    each, then 300 fixes of a stay elsewhere (jittered 30 m, declared as one stay)."""
    rng = np.random.default_rng(seed)
    home = (np.full(300, 48.85), np.full(300, 2.35))
    walk_la, walk_lo = destination(np.full(40, 48.85), np.full(40, 2.35), 45.0,
                                   80.0 * np.arange(1, 41))
    sla, slo = destination(np.full(300, walk_la[-1]), np.full(300, walk_lo[-1]),
                           rng.uniform(0, 360, 300), 30 * np.sqrt(rng.random(300)))
    lat = np.concatenate([home[0], walk_la, sla])
    lon = np.concatenate([home[1], walk_lo, slo])
    return lat, lon, (340, 639)


def test_stay_fixes_cannot_be_told_from_stationary_regular_fixes():
    """Seed 2026, 30 Uniform releases (ε = 1, r = 100 m, the stay the one landmark event:
    every fix at ε/2, the fresh noise too): 4,500 independent consecutive-pair distances
    inside the stay against 4,500 at home; two-sample KS, p ≥ 1e-6 required (false
    failure ≤ 1e-6). The same test tells a stay published without fresh noise (every
    distance 0) or with fresh noise of twice the scale from the regular fixes (p < 1e-6),
    so it has the power to see a difference."""
    lat, lon, (a, b) = _track_with_home_and_stay()
    gen = np.random.default_rng(2026)
    stay_d, home_d = [], []
    for _ in range(30):
        rel = release_trajectory(lat, lon, [], epsilon=1.0, radius=100.0, scheme="uniform",
                                 seed=gen, stays=[(a, b)])
        assert rel.renoise_epsilon == 0.5 and rel.epsilon_t[0] == 0.5
        stay_d.append(_pairs(rel.released[a:b + 1]))
        home_d.append(_pairs(rel.released[0:300]))
    stay_d, home_d = np.concatenate(stay_d), np.concatenate(home_d)
    assert ks_2samp(stay_d, home_d).pvalue >= P_FAIL
    assert ks_2samp(np.zeros_like(home_d), home_d).pvalue < P_FAIL
    doubled = []
    for _ in range(30):  # regular fixes at half the budget (0.25): twice the scale
        rel = release_trajectory(lat[:300], lon[:300], [], epsilon=0.25, radius=100.0,
                                 scheme="event", seed=gen)
        doubled.append(_pairs(rel.released))
    assert ks_2samp(stay_d, np.concatenate(doubled)).pvalue < P_FAIL


def test_skip_approximations_inside_a_run_look_like_stationary_regular_readings():
    """Seed 2027, Skip on a flat series (ε = 1, Δf = 1): landmarks in blocks of 11; inside
    a block the approximations differ by W_t − W_{t−1}, as regular readings of a flat
    series differ by Z_t − Z_{t−1}. 40 releases, disjoint pairs (the first approximation
    of a block left out: it differs from the publication by one draw, docs/privacy-model.md);
    KS p ≥ 1e-6 (false failure ≤ 1e-6)."""
    T = 2200
    x = np.full(T, 4.0)
    lm = [t for t in range(T) if (t // 11) % 2 == 1]  # blocks 11-21, 33-43, …
    gen = np.random.default_rng(2027)
    inside, regular = [], []
    for _ in range(40):
        rel = release_series(x, lm, epsilon=1.0, scheme="skip", seed=gen)
        r = rel.released
        for s in range(11, T, 22):  # a block s … s+10: pairs (s+1, s+2) … (s+9, s+10)
            inside.extend(r[s + 2:s + 11:2] - r[s + 1:s + 10:2])
        for s in range(0, T, 22):  # a regular block s … s+10: pairs (s, s+1) … (s+8, s+9)
            regular.extend(r[s + 1:s + 10:2] - r[s:s + 9:2])
    assert ks_2samp(np.abs(inside), np.abs(regular)).pvalue >= P_FAIL


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 120), st.sampled_from(["uniform", "skip", "adaptive"]),
       st.floats(0.1, 5.0), st.integers(0, 2**31), st.data())
def test_no_run_of_identical_released_values(T, scheme, eps, seed, data):
    """Whatever the landmarks, stays and scheme, no two consecutive released values (or
    points) are equal — Laplace and Planar Laplace are continuous, so a repeat would be
    the engine's, not chance."""
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1), max_size=T)))
    rel = release_series(np.full(T, 2.0), lm, epsilon=eps, scheme=scheme, seed=seed)
    v = rel.released[~rel.withheld]
    assert not np.any(v[1:] == v[:-1])
    cut = sorted(data.draw(st.sets(st.integers(0, T), min_size=2, max_size=2)))
    stays = [(cut[0], cut[1] - 1)] if cut[1] - 1 > cut[0] else []
    rng = np.random.default_rng(seed)
    lat = 45.0 + rng.normal(0, 1e-5, T)
    lon = 7.0 + rng.normal(0, 1e-5, T)
    singles = [t for t in lm if not any(a <= t <= b for a, b in stays)]
    tr = release_trajectory(lat, lon, singles, epsilon=eps, radius=100.0, scheme=scheme, seed=seed,
                            stays=stays)
    p = tr.released[~tr.withheld]
    assert not np.any(np.all(p[1:] == p[:-1], axis=1))
