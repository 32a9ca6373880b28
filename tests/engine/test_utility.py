"""The utility line (lmdk_core.decision.utility): expected errors against seeded Monte Carlo
releases, the data's scale, the verdict's levels and its edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.expected_error import expected_errors
from lmdk_core.decision.noise_laws import planar_offset_mean
from lmdk_core.decision.utility import (
    MARGINAL,
    NOISE_RATIO,
    NOT_USEFUL,
    USEFUL,
    USEFUL_RATIO,
    data_scale,
    release_utility,
    utility_verdict,
)
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.foundation.errors import InputError

RUNS = 3000
#: a per-timestamp Monte Carlo mean is within Z_TOL standard errors of the exact mean
#: (the standard error estimated from the runs); with ~40 timestamps per test a false
#: alarm at 5 standard errors has probability < 1e-5 — and the seeds are fixed
Z_TOL = 5.0


def _check_mc(samples: np.ndarray, expected: np.ndarray) -> None:
    """samples: (runs, T) absolute errors; expected: (T,) (NaN = withheld)."""
    ok = np.isfinite(expected)
    assert np.array_equal(ok, np.isfinite(samples).all(axis=0))
    mc = samples[:, ok].mean(axis=0)
    se = samples[:, ok].std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
    z = np.abs(mc - expected[ok]) / np.maximum(se, 1e-12)
    assert z.max() < Z_TOL, (z.max(), mc, expected[ok])


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_laplace_expected_error_matches_simulation(scheme):
    rng = np.random.default_rng(11)
    x = np.cumsum(rng.normal(0, 0.6, 40)) + 5
    lm = [3, 4, 17, 30]
    # static schemes: the pattern is fixed; Adaptive: the expectation is conditional on
    # the pattern, so a run is compared with the expectation at its own pattern
    samples, expected, published = [], [], []
    seeds = np.random.SeedSequence(2024).spawn(RUNS)
    for child in seeds:
        rel = release_series(x, lm, epsilon=1.0, scheme=scheme, mechanism="laplace",
                             sensitivity=0.5, seed=np.random.default_rng(child))
        samples.append(rel.errors)
        published.append(rel.published)
        expected.append(expected_errors(x, rel.epsilon_t, rel.published, mechanism="laplace",
                                        sensitivity=0.5, fresh=_fresh(rel)))
    samples, expected = np.array(samples), np.array(expected)
    if scheme != "adaptive":
        assert np.allclose(np.nan_to_num(expected - expected[0]), 0)
        _check_mc(samples, expected[0])
    else:
        # Adaptive draws its pattern from its own outputs. At a published t the noise is
        # drawn after the decision, so |err| − E|Z| has mean 0 over the runs. At a skipped
        # t the skip depended on the noise being repeated, so the formula is not the
        # conditional mean: it over-states the error there (documented in docs/utility.md);
        # the stated tolerance: the formula's mean over repeated readings is within +40 %
        # of the simulated mean and never below it.
        pub = np.array(published)
        diff = np.where(pub, samples - expected, np.nan)
        n = pub.sum(axis=0)
        se = np.nanstd(diff, axis=0, ddof=1) / np.sqrt(n)
        z = np.abs(np.nanmean(diff, axis=0)) / se
        assert np.nanmax(z[n > 50]) < Z_TOL
        sim, formula = samples[~pub].mean(), expected[~pub].mean()
        assert sim <= formula <= 1.4 * sim, (sim, formula)


def _fresh(rel):
    """The budget of the fresh post-processing noise on each of ``rel``'s values."""
    if rel.renoised is None:
        return np.zeros(rel.epsilon_t.size)
    return np.where(rel.renoised, rel.renoise_epsilon, 0.0)


def test_laplace_published_is_sensitivity_over_epsilon():
    x = np.arange(10.0)
    eps = allocate("uniform", 10, [2, 5], 1.5)
    e = expected_errors(x, eps, mechanism="laplace", sensitivity=0.3)
    assert np.allclose(e, 0.3 / (1.5 / 3))


def test_geometric_expected_error_matches_simulation():
    rng = np.random.default_rng(5)
    x = np.cumsum(rng.integers(-3, 4, 40)).astype(float) + 20
    lm = [0, 1, 9, 10, 25]
    eps_plan = allocate("skip", 40, lm, 0.8)
    samples = []
    for child in np.random.SeedSequence(77).spawn(RUNS):
        rel = release_series(x, lm, epsilon=0.8, scheme="skip", mechanism="geometric",
                             sensitivity=2, seed=np.random.default_rng(child))
        samples.append(rel.errors)
    expected = expected_errors(x, eps_plan, mechanism="geometric", sensitivity=2)
    assert np.isnan(expected[[0, 1]]).all()  # withheld: nothing published before them
    _check_mc(np.array(samples), expected)
    # published: the exact MAE 2α/(1 − α²), α = e^{−ε/Δf}
    a = np.exp(-0.8 / 2)
    assert expected[2] == pytest.approx(2 * a / (1 - a * a), rel=1e-12)


def test_planar_expected_displacement_matches_simulation():
    rng = np.random.default_rng(3)
    lat = 48.85 + np.cumsum(rng.normal(0, 0.002, 30))
    lon = 2.35 + np.cumsum(rng.normal(0, 0.002, 30))
    lm = [4, 5, 6, 18]
    eps_plan = allocate("skip", 30, lm, 0.5)
    samples = []
    for child in np.random.SeedSequence(9).spawn(2000):
        rel = release_trajectory(lat, lon, lm, epsilon=0.5, radius=120.0, scheme="skip",
                                 seed=np.random.default_rng(child))
        samples.append(rel.errors)
    expected = expected_errors(np.c_[lat, lon], eps_plan, radius=120.0)
    assert expected[0] == pytest.approx(2 * 120 / 0.5)  # Andrés et al.: E R = 2r/ε
    assert expected[6] > expected[4] > 2 * 120 / 0.5  # repeated points drift further
    _check_mc(np.array(samples), expected)


@given(st.floats(0, 1e5), st.floats(1e-3, 1e4))
@settings(max_examples=60, deadline=None)
def test_planar_offset_mean_agrees_with_quadrature_on_the_circle(delta, s):
    """Bounds that hold for every δ and s: Jensen (≥ |δ| and ≥ E R = 2s) and the triangle
    inequality (≤ |δ| + 2s)."""
    got = planar_offset_mean([delta], [s])[0]
    assert got >= max(delta, 2 * s) * (1 - 1e-12)  # Jensen: ≥ |δ| and ≥ E R
    assert got <= delta + 2 * s  # triangle inequality


@pytest.mark.parametrize("delta, s", [(1.0, 1.0), (100.0, 50.0), (1.0, 10.0), (5.0, 3.0),
                                      (300.0, 1.0), (0.01, 10.0), (2.0, 1.0), (7.5, 1.0)])
def test_planar_offset_mean_against_adaptive_quadrature(delta, s):
    """scipy's adaptive quadrature over R (split at the kink R = δ) of the exact mean
    over the angle; agreement to 1e-10 relative, the reference's own accuracy (at
    δ = 0.01, s = 10 quad is 7e-12 off the 60-digit value; the 60-digit check of the same
    function, to a few ulps, is in tests/engine/test_accuracy_edges.py); the utility reads it
    from a table within 2e-9."""
    from scipy.integrate import quad
    from scipy.special import ellipe

    def f(r):
        return (2 / np.pi) * (delta + r) * ellipe(4 * delta * r / (delta + r) ** 2) \
            * r * np.exp(-r / s) / s**2
    ref = (quad(f, 0, delta, epsabs=0, epsrel=1e-13, limit=400)[0]
           + quad(f, delta, delta + 80 * s, epsabs=0, epsrel=1e-13, limit=400)[0])
    assert planar_offset_mean([delta], [s])[0] == pytest.approx(ref, rel=2e-9)


def test_planar_offset_mean_table_equals_the_exact_mean():
    """The spline table against the engine's exact mean (lmdk_core.decision.noise_laws) at 3,000
    random β = δ/s over 14 decades, the table's ends and beyond them: 2e-9 relative."""
    from lmdk_core.decision.noise_laws import planar_mean

    rng = np.random.default_rng(12)
    beta = np.r_[10 ** rng.uniform(-7, 7, 3000), 0.0, 1e-6, 1e6, 3e7]
    s = 10 ** rng.uniform(-2, 4, beta.size)
    np.testing.assert_allclose(planar_offset_mean(beta * s, s), planar_mean(beta * s, s),
                               rtol=2e-9)


def test_data_scale_series_and_fallbacks():
    x = np.array([0.0, 1, 2, 3, 4, 5, 6, 7, 100])
    sc = data_scale(x, "kWh")
    assert sc.name == "interquartile range" and sc.value == pytest.approx(4.0)
    assert "interquartile range 4 kWh" in sc.description
    # most readings equal: IQR 0 → standard deviation
    y = np.r_[np.zeros(20), 5.0]
    sc = data_scale(y)
    assert sc.name == "standard deviation" and sc.value == pytest.approx(np.std(y))
    # constant: its level; constant 0: no scale
    assert data_scale(np.full(9, -3.0)).value == 3.0
    assert data_scale(np.full(9, -3.0)).name == "level"
    assert data_scale(np.zeros(5)).value == 0.0


def test_data_scale_track_is_robust_to_a_spike():
    lat = np.linspace(45.0, 45.01, 200)  # ~1.11 km north–south
    lon = np.full(200, 7.0)
    base = data_scale(np.c_[lat, lon]).value
    assert 1000 < base < 1120
    lat2, lon2 = lat.copy(), lon.copy()
    lat2[100], lon2[100] = 0.0, 0.0  # one GPS spike 5,000 km away
    assert data_scale(np.c_[lat2, lon2]).value == pytest.approx(base, rel=0.05)
    # across the antimeridian: the extent is the short way round
    across = np.c_[np.zeros(50), np.r_[np.full(25, 179.999), np.full(25, -179.999)]]
    assert data_scale(across).value < 1000


def test_levels_follow_the_ratio():
    x = np.tile([0.0, 10.0], 50)  # IQR 10
    for eps_t, level in [(1.0, USEFUL), (0.5, USEFUL), (0.3, MARGINAL), (0.05, NOT_USEFUL)]:
        uv = utility_verdict(x, np.full(100, eps_t), sensitivity=0.5, epsilon=eps_t)
        assert uv.level == level, (eps_t, uv)
        assert uv.typical == pytest.approx(0.5 / eps_t)
        assert uv.ratio == pytest.approx(0.5 / eps_t / 10)
    assert USEFUL_RATIO < NOISE_RATIO


def test_not_useful_names_the_cause_and_what_works():
    x = np.tile([0.0, 1.0], 50)
    uv = utility_verdict(x, np.full(100, 0.01), sensitivity=1.0, epsilon=0.06, n_landmarks=5,
                         scheme="uniform", unit="kWh")
    assert uv.level == NOT_USEFUL
    assert uv.sentence.startswith("This release is not useful:")
    assert "100 kWh" in uv.sentence and "interquartile range 1 kWh" in uv.sentence
    assert "raise ε to about 60" in uv.sentence  # 10× the budget gives error 0.1 = 10 % IQR
    assert "fewer landmarks" in uv.sentence and "smaller Δf is not a fix" in uv.sentence
    d = uv.to_dict()
    assert d["utility"] == "not useful" and d["expected_error_typical"] == pytest.approx(100)
    assert d["data_scale_name"] == "interquartile range"


def test_track_advice_says_a_larger_radius_is_not_a_fix():
    lat = np.linspace(45, 45.02, 100)
    lon = np.full(100, 7.0)
    lm = list(range(0, 100, 2))
    eps = allocate("uniform", 100, lm, 1.0)
    uv = utility_verdict(np.c_[lat, lon], eps, radius=100.0, epsilon=1.0, n_landmarks=50,
                         scheme="uniform")
    assert uv.level == NOT_USEFUL and uv.unit == "m"
    assert uv.typical == pytest.approx(2 * 100 * 51)  # 2r/ε_t, ε_t = 1/51
    assert "10.2 km" in uv.sentence
    assert "larger r is not a fix" in uv.sentence
    assert "protect each stay as one event" in uv.sentence


def test_edge_no_budget_anywhere():
    uv = utility_verdict(np.arange(5.0), np.zeros(5), sensitivity=1.0, epsilon=1.0)
    assert uv.level == NOT_USEFUL and uv.n_released == 0 and uv.n_withheld == 5
    assert "nothing is released" in uv.sentence and "raise ε" in uv.sentence
    assert uv.to_dict()["expected_error_typical"] is None


def test_edge_constant_series():
    # constant, non-zero: compared with its level
    uv = utility_verdict(np.full(20, 4.0), np.full(20, 1.0), sensitivity=1.0)
    assert uv.scale.name == "level" and uv.ratio == pytest.approx(0.25)
    assert uv.level == MARGINAL and "constant" in uv.sentence
    # constant 0: nothing to compare with, said in words
    uv = utility_verdict(np.zeros(20), np.full(20, 1.0), sensitivity=1.0)
    assert uv.level == MARGINAL and uv.headline == "Utility not judged"
    assert "no scale" in uv.sentence and np.isinf(uv.ratio)


def test_edge_single_point_track():
    uv = utility_verdict(np.array([[45.0, 7.0]]), np.array([1.0]), radius=50.0)
    assert uv.typical == pytest.approx(100.0) and uv.worst == pytest.approx(100.0)
    assert uv.headline == "Utility not judged" and "one place" in uv.sentence


def test_release_utility_uses_the_release_pattern():
    """A static scheme's line is the closed form at the release's pattern; Adaptive's
    counts come from the pattern drawn, its errors from whole simulated releases (the
    closed form at the pattern drawn over-states them: the test below)."""
    from lmdk_core.decision.adaptive_accuracy import adaptive_expected_errors

    rng = np.random.default_rng(0)
    x = rng.normal(10, 2, 60)
    rel = release_series(x, [5, 6], epsilon=1.0, scheme="skip", mechanism="laplace",
                         sensitivity=1.0, seed=4)
    uv = release_utility(rel, sensitivity=1.0, unit="°C")
    e = expected_errors(x, rel.epsilon_t, rel.published, sensitivity=1.0, fresh=_fresh(rel))
    assert uv.typical == pytest.approx(np.nanmedian(e))
    rel = release_series(x, [5, 6], epsilon=1.0, scheme="adaptive", mechanism="laplace",
                         sensitivity=1.0, seed=4)
    uv = release_utility(rel, sensitivity=1.0, unit="°C")
    e = adaptive_expected_errors(x, [5, 6], 1.0, sensitivity=1.0)
    assert uv.typical == pytest.approx(np.nanmedian(e))
    assert uv.n_approximated == int((~rel.published).sum())


def test_bad_input_is_refused():
    with pytest.raises(InputError):
        expected_errors(np.arange(3.0), np.ones(4), sensitivity=1.0)
    with pytest.raises(InputError):
        expected_errors(np.arange(3.0), np.ones(3), sensitivity=0.0)
    with pytest.raises(InputError):
        expected_errors(np.arange(3.0), np.array([1.0, -1.0, 1.0]), sensitivity=1.0)
    with pytest.raises(InputError):
        expected_errors(np.zeros((3, 2)), np.ones(3))  # a track needs r


def test_stays_as_events_count_from_the_released_centroid():
    """A stay released as one event (docs/stays.md) publishes its centroid once; every fix
    of the stay shows it. The expected error of a fix is E|c − x_t + Z| — checked against
    seeded releases (Z_TOL standard errors per fix)."""
    from lmdk_core.engine.stay_events import condense, condensed_points

    rng = np.random.default_rng(8)
    walk = np.c_[45.0 + np.cumsum(rng.normal(0, 0.003, 12)), 7.0 + np.cumsum(
        rng.normal(0, 0.003, 12))]
    stay = walk[5] + rng.normal(0, 0.002, (15, 2))  # 15 fixes within ~200 m
    x = np.r_[walk[:6], stay, walk[6:]]
    stays = [(6, 20)]
    samples = []
    for child in np.random.SeedSequence(31).spawn(2000):
        rel = release_trajectory(x[:, 0], x[:, 1], [2], epsilon=1.0, radius=50.0, scheme="uniform",
                                 seed=np.random.default_rng(child), stays=stays)
        samples.append(rel.errors)
    cond = condense(len(x), stays)
    sources = condensed_points(x, cond)[cond.index]
    expected = expected_errors(x, rel.epsilon_t, rel.published, radius=50.0, sources=sources)
    _check_mc(np.array(samples), expected)
    uv = release_utility(rel, radius=50.0)
    assert uv.typical == pytest.approx(np.median(expected))
    # without the sources the stay's fixes would be counted from its first fix
    naive = expected_errors(x, rel.epsilon_t, rel.published, radius=50.0)
    assert not np.allclose(naive[6:21], expected[6:21])


def _one_noise_mean(d, e, mech, scale):
    """E|d + Z| in closed form (Laplace: |d| + b·e^{−|d|/b}; Geometric:
    |d| + 2a^{|d|+1}/(1 − a²))."""
    d = abs(d)
    if mech == "laplace":
        b = scale / e
        return d + b * np.exp(-d / b)
    a = np.exp(-e / scale)
    return d + 2 * a ** (d + 1) / (1 - a * a)


def _fresh_integrand(w, d, e, mech, scale, bw):
    """E|d + w + Z| times the Laplace(bw) density of W at w."""
    return _one_noise_mean(d + w, e, mech, scale) * np.exp(-abs(w) / bw) / (2 * bw)


def _oracle(x, eps, pub, mech, scale, fresh=0.0):
    """Slow per-timestamp reference: walk back to the last publication, then the closed
    form of E|δ + Z|; with fresh noise W (budget ``fresh``) on every approximated
    reading, E|δ + Z + W| = E_W[E|δ + W + Z|] by numerical integration over W's density
    (Laplace: scipy's quad; Geometric: the sum over W's whole numbers to a tail of
    1e-15)."""
    from scipy.integrate import quad

    out = []
    for t in range(len(x)):
        s = next((k for k in range(t, -1, -1) if pub[k]), None)
        if s is None:
            out.append(np.nan)
            continue
        d = x[s] - x[t]
        if s == t or fresh == 0:
            out.append(_one_noise_mean(d, eps[s], mech, scale))
        elif mech == "laplace":
            bw = scale / fresh
            args = (d, eps[s], mech, scale, bw)
            # split at the kinks: |d + w| at w = −d, W's density at w = 0
            cuts = sorted({-np.inf, -d, 0.0, np.inf})
            out.append(sum(quad(_fresh_integrand, a, b, args, limit=200)[0]
                           for a, b in zip(cuts, cuts[1:], strict=False)))
        else:
            a = np.exp(-fresh / scale)
            k = int(np.ceil(np.log(1e-15) / np.log(a))) + 1
            w = np.arange(-k, k + 1)
            pw = (1 - a) / (1 + a) * a ** np.abs(w)
            out.append(float(sum(p * _one_noise_mean(d + wi, eps[s], mech, scale)
                                 for wi, p in zip(w, pw, strict=True))))
    return np.array(out)


@given(st.lists(st.tuples(st.integers(-20, 20), st.floats(0.05, 3.0), st.booleans()),
                min_size=1, max_size=40), st.sampled_from(["laplace", "geometric"]),
       st.integers(1, 4))
@settings(max_examples=150, deadline=None)
def test_expected_errors_equal_a_slow_oracle(rows, mech, scale):
    x = np.array([float(v) for v, _, _ in rows])
    pub = np.array([p for _, _, p in rows])
    eps = np.where(pub, [e for _, e, _ in rows], 0.0)
    got = expected_errors(x, eps, pub, mechanism=mech, sensitivity=scale,
                          fresh=np.zeros(x.size))
    want = _oracle(x, eps, pub, mech, scale)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@given(st.lists(st.tuples(st.integers(-20, 20), st.floats(0.05, 3.0), st.booleans()),
                min_size=1, max_size=12), st.sampled_from(["laplace", "geometric"]),
       st.integers(1, 4), st.floats(0.05, 3.0))
@settings(max_examples=60, deadline=None)
def test_expected_errors_with_fresh_noise_equal_a_slow_oracle(rows, mech, scale, fresh):
    """An approximated reading shows its publication plus fresh noise W (budget
    ``fresh``): the signed-mixture / closed forms against numerical integration over W
    (rtol 1e-6: the Geometric equal-scale limit moves the law by about 1e-6)."""
    x = np.array([float(v) for v, _, _ in rows])
    pub = np.array([p for _, _, p in rows])
    eps = np.where(pub, [e for _, e, _ in rows], 0.0)
    got = expected_errors(x, eps, pub, mechanism=mech, sensitivity=scale,
                          fresh=np.where(pub, 0.0, fresh))
    want = _oracle(x, eps, pub, mech, scale, fresh)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_geometric_tiny_budget_is_finite():
    e = expected_errors(np.zeros(3), np.full(3, 1e-12), mechanism="geometric", sensitivity=1)
    assert np.allclose(e, 1e12, rtol=1e-6)


@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20),
                          st.sampled_from([0.0, 0.01, 0.2, 1.0, 5.0, 50.0]), st.booleans()),
                min_size=1, max_size=40),
       st.sampled_from(["laplace", "geometric", "planar_laplace"]),
       st.sampled_from([0.5, 1.0, 4.0, 100.0]), st.booleans(), st.booleans())
@settings(max_examples=300, deadline=None)
def test_expected_utility_is_the_verdicts_typical_error_and_badge(rows, mech, scale,
                                                                   flat, given_scale):
    """The Population preview's shortcut against the full verdict it skips (sentences and
    advice): the same typical error (NaN when nothing is released) and the same badge
    (useful, marginal, not useful, not judged) on random series and tracks, with the
    publication pattern given or read from ε_t, constant data (no scale: not judged)
    and the data's scale passed in or computed."""
    from lmdk_core.decision.utility import expected_utility

    planar = mech == "planar_laplace"
    a = np.array([float(u) for u, _, _, _ in rows])
    x = (np.column_stack([48.85 + a * 1e-4, 2.35 + np.array([float(v) for _, v, _, _ in rows])
                          * 1e-4]) if planar else a)
    if flat:
        x = np.zeros_like(x) + 3.0
    eps = np.array([e for _, _, e, _ in rows])
    pub = np.array([p for _, _, _, p in rows]) & (eps > 0)
    kw = dict(mechanism=mech, sensitivity=None if planar else scale,
              radius=scale if planar else None)
    sc = data_scale(x, "m" if planar else "") if given_scale else None
    for published in (pub, None):
        full = utility_verdict(x, eps, published, epsilon=2.0, n_landmarks=1,
                               scheme="uniform", scale=sc, **kw)
        typical, label = expected_utility(x, eps, published, scale=sc, **kw)
        assert label == full.label
        np.testing.assert_equal(typical, full.typical)  # NaN equals NaN here


def test_adaptive_utility_line_is_the_expected_error_of_whole_releases():
    """Issue 35 item 8: Adaptive's utility line states E|o_t − x_t| over whole releases
    (coins and noise), simulated from a public seed. Against an independent Monte Carlo
    (4,000 whole releases, seed 2024) its mean over readings is within 5 combined
    standard errors and each reading's value within 5 (seeds fixed: the outcome is
    deterministic; the tolerance is what a fresh seed would meet but with probability
    < 1e-5 over 40 readings). The closed forms at the pattern each release drew —
    the line before — differ from the simulation over 300 seeded releases by more than
    5 standard errors (8.7 % above it before repeated values carried fresh noise, about
    6 % below since): this test fails on them."""
    from lmdk_core.decision.adaptive_accuracy import adaptive_errors, adaptive_expected_errors

    rng = np.random.default_rng(11)
    x = np.cumsum(rng.normal(0, 0.6, 40)) + 5
    lm = [3, 4, 17, 30]
    sims, _ = adaptive_errors(x, lm, 1.0, sensitivity=0.5, runs=4000, seed=2024)
    per_run = sims.mean(axis=1)  # Adaptive publishes its first reading: none withheld
    mc, se_mc = per_run.mean(), per_run.std(ddof=1) / np.sqrt(per_run.size)
    rel = release_series(x, lm, epsilon=1.0, scheme="adaptive", mechanism="laplace",
                         sensitivity=0.5, seed=np.random.default_rng(1))
    line = release_utility(rel, sensitivity=0.5)
    runs = 256  # utility_runs(40)
    se_line = per_run.std(ddof=1) / np.sqrt(runs)
    assert abs(line.mean - mc) < Z_TOL * np.hypot(se_mc, se_line), (line.mean, mc)
    each = adaptive_expected_errors(x, lm, 1.0, sensitivity=0.5)
    sd_t = sims.std(axis=0, ddof=1)
    z = np.abs(each - sims.mean(axis=0)) / np.hypot(sd_t / np.sqrt(4000), sd_t / np.sqrt(runs))
    assert z.max() < Z_TOL
    assert line.typical == pytest.approx(float(np.median(each)))
    closed = [utility_verdict(x, r.epsilon_t, r.published, sensitivity=0.5).mean
              for r in (release_series(x, lm, epsilon=1.0, scheme="adaptive", mechanism="laplace",
                                       sensitivity=0.5, seed=np.random.default_rng(c))
                        for c in np.random.SeedSequence(5).spawn(300))]
    # (with the fresh noise on approximations the closed forms at the drawn pattern now
    # under-state it: wrong either way)
    assert abs(np.mean(closed) - mc) > Z_TOL * np.hypot(se_mc, np.std(closed) / np.sqrt(300))


def test_measured_errors_without_the_declared_scale_is_an_input_error():
    """With measured ``errors`` the verdict still needs Δf (series) for its advice: a
    missing one is an InputError naming it, not a TypeError (found by mypy, issue 40)."""
    x = np.linspace(0, 100, 50)
    with pytest.raises(InputError, match="sensitivity"):
        utility_verdict(x, np.full(50, 0.001), errors=np.full(50, 500.0))
