"""Accuracy → ε at the edges: Adaptive solved for the documented quantity and checked by
simulating the whole release; feasible windows narrower than the search grid; the
'all readings at once' target; the planar mean error against 60-digit arithmetic.

Every statistical check states its seed and tolerance. Whole releases are simulated
here with ``release_series`` directly (independent of the solver's own simulation):
release r of a check uses child r of ``SeedSequence(seed)``.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.accuracy import AccuracyTarget, accuracy_at
from lmdk_core.decision.adaptive_accuracy import adaptive_accuracy
from lmdk_core.decision.epsilon_search import solve_epsilon
from lmdk_core.decision.noise_laws import planar_mean, planar_mean_unit
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import release_series
from lmdk_core.foundation.errors import InputError

MOD5 = (np.arange(20) % 5).astype(float)  # the audit's example: t mod 5, T = 20
LM = [3, 7, 12]


def _whole_releases(x, lm, eps, scheme, runs, seed, mechanism="laplace"):
    """(runs, T) absolute errors of ``runs`` whole releases (NaN where withheld)."""
    out = np.empty((runs, len(x)))
    for r, child in enumerate(np.random.SeedSequence(seed).spawn(runs)):
        rel = release_series(x, lm, epsilon=eps, scheme=scheme, mechanism=mechanism,
                             sensitivity=1.0, seed=np.random.default_rng(child))
        out[r] = rel.errors
    return out


# ------------------------------------------------------------------ Adaptive, 'each'
def test_adaptive_each_is_the_minimum_over_t_of_each_readings_probability():
    # At ε = 15 every reading is within ±1 in ≥ 95 % of whole releases (2,000 releases,
    # seed 11); averaging each run's worst reading instead would give 0.857 here.
    eps = 15.0
    tgt = AccuracyTarget("within", 1.0, 0.95, "each")
    sim = _whole_releases(MOD5, LM, eps, "adaptive", 2000, 11)
    p_t = np.mean(sim <= 1.0, axis=0)
    est, bound, private = adaptive_accuracy(MOD5, LM, eps, tgt, runs=400, seed=2)
    assert private
    # both estimate min_t p_t; standard error of a proportion near 0.97 with 400 runs
    # is 0.0085; tolerance 4 standard errors of the difference
    se = math.sqrt(0.03 * 0.97 / 400 + 0.03 * 0.97 / 2000)
    assert abs(est - p_t.min()) <= 4 * se, (est, p_t.min())
    assert bound <= est


def test_adaptive_each_solution_holds_for_the_whole_release_and_is_not_inflated():
    # The audit's example: whole releases meet the target from ε ≈ 13.9; 20.83 would be
    # ≈ 50 % too much. With 300 runs (seed 2) the Clopper–Pearson bound is
    # conservative but the answer is below 20; 3,000 whole releases (seed 12) confirm
    # every reading within ±1 at ≥ 95 % (tolerance: none — the margin is > 5 s.e.).
    tgt = AccuracyTarget("within", 1.0, 0.95, "each")
    sol = solve_epsilon(MOD5, LM, "adaptive", tgt, runs=300, seed=2)
    assert sol.epsilon is not None and sol.landmark_private
    assert sol.epsilon < 20.0, sol.epsilon
    sim = _whole_releases(MOD5, LM, sol.epsilon, "adaptive", 3000, 12)
    assert np.mean(sim <= 1.0, axis=0).min() >= 0.95


def test_cli_default_for_adaptive_each_is_close_to_the_whole_release_answer(tmp_path):
    # the audit's example through the CLI (1,000 whole releases per ε by default, seed 1):
    # 15.5, while 20,000 whole releases meet it from ≈ 13.9
    import json

    from tests.conftest import run_cli

    src = tmp_path / "s.csv"
    src.write_text("time,value\n" + "".join(f"{t},{t % 5}\n" for t in range(20)))
    p = run_cli("solve-epsilon", "--input", str(src), "--landmarks", "3,7,12", "--within",
                "1", "--schemes", "adaptive", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    sol = json.loads(p.stdout)["solutions"][0]
    assert 13.9 < sol["epsilon"] < 17.0 and "1000 whole releases" in sol["method"]


def test_adaptive_each_refuses_too_few_runs_to_certify():
    tgt = AccuracyTarget("within", 1.0, 0.99, "each")
    with pytest.raises(InputError, match="at least 299 runs"):
        solve_epsilon(MOD5, LM, "adaptive", tgt, runs=100, seed=1)


# ------------------------------------------------------------------ Adaptive, 'typical'
def test_adaptive_estimate_measures_the_release_not_the_plain_noise_law():
    # Which readings Adaptive publishes depends on the noise, so the error of a repeated
    # reading is not the plain law given the pattern. A step series at ε = 2: whole
    # releases (3,000, seed 21) give a mean error of ≈ 1.31; a per-run closed form
    # would give 1.40. Tolerance: 4 standard errors of the difference.
    x = np.r_[np.zeros(10), np.full(10, 2.0)]
    tgt = AccuracyTarget("mean", 1.0, per="typical")
    sim = _whole_releases(x, [9, 10], 2.0, "adaptive", 3000, 21)
    per_run = sim.mean(axis=1)
    est, bound, _ = adaptive_accuracy(x, [9, 10], 2.0, tgt, runs=1000, seed=22)
    se = per_run.std(ddof=1) * math.sqrt(1 / 3000 + 1 / 1000)
    assert abs(est - per_run.mean()) <= 4 * se, (est, per_run.mean(), se)
    assert bound >= est


@pytest.mark.parametrize("seed", [1, 2])
def test_adaptive_typical_solution_holds_when_the_whole_release_is_simulated(seed):
    # typical ±1 at 95 %, 100 runs per ε: at the answer, 3,000 whole releases (seed
    # 30 + seed) put at least 95 % of the readings within ±1 (standard error 0.001)
    tgt = AccuracyTarget("within", 1.0, 0.95, "typical")
    sol = solve_epsilon(MOD5, LM, "adaptive", tgt, runs=100, seed=seed)
    sim = _whole_releases(MOD5, LM, sol.epsilon, "adaptive", 3000, 30 + seed)
    assert np.mean(sim <= 1.0) >= 0.95, (sol.epsilon, np.mean(sim <= 1.0))


# ------------------------------------------------------------------ narrow windows
def _step_series() -> np.ndarray:
    x = np.zeros(10)
    x[5] = 1.5
    return x


def test_a_feasible_window_narrower_than_the_grid_is_found():
    # zeros(10) with x[5] = 1.5, landmark {5}, Skip (its approximation shown with fresh
    # noise), typical ±1 at p = 0.90401: every ε in [5.743, 5.911] works, although the
    # grid's points (5.62, 6.81) all miss it
    p = 0.90401
    tgt = AccuracyTarget("within", 1.0, p, "typical")
    sol = solve_epsilon(_step_series(), [5], "skip", tgt)
    assert sol.epsilon is not None
    (a, b), = sol.extra["intervals"]
    assert a == pytest.approx(5.7429, abs=1e-3) and b == pytest.approx(5.9109, abs=1e-3)
    assert sol.extra["exact"] is False and "approximate" in sol.method

    def acc(e):
        return accuracy_at(_step_series(), [5], e, "skip", tgt)
    # the ends are crossings to a relative 1e-10
    assert acc(a) >= p and acc(b) >= p
    assert acc(a * (1 - 1e-9)) < p and acc(b * (1 + 1e-9)) < p
    assert all(acc(e) >= p for e in np.linspace(a, b, 50))
    # the closed form is the whole release's: 4,000 Skip releases (40,000 readings) at
    # the window's middle (seed 5); tolerance 5 binomial standard errors
    mid = math.sqrt(a * b)
    sim = _whole_releases(_step_series(), [5], mid, "skip", 4000, 5)
    se = math.sqrt(p * (1 - p) / sim.size)
    assert abs(np.mean(sim <= 1.0) - acc(mid)) <= 5 * se


@settings(max_examples=15, deadline=None)
@given(data=st.data(), T=st.integers(3, 12), a=st.floats(0.2, 3.0),
       p=st.floats(0.3, 0.95), mech=st.sampled_from(["laplace", "geometric"]))
def test_each_target_finds_the_one_feasible_interval_like_a_dense_scan(data, T, a, p, mech):
    # 'each' with Laplace / Geometric is exact: the feasible set is one interval (each
    # reading's probability rises, or rises and falls); a dense scan of 1,500 ε is the
    # oracle: every scanned ε that meets lies in the interval, every one outside misses
    x = np.array(data.draw(st.lists(st.integers(-4, 4), min_size=T, max_size=T)), float)
    lm = sorted(set(data.draw(st.lists(st.integers(1, T - 1), max_size=3))))
    tgt = AccuracyTarget("within", a, p, "each")
    sol = solve_epsilon(x, lm, "skip", tgt, mechanism=mech, eps_range=(1e-2, 1e3))
    ivs = sol.extra["intervals"]
    assert sol.extra["exact"] and len(ivs) <= 1
    dense = np.geomspace(1e-2, 1e3, 1500)
    ok = np.array([accuracy_at(x, lm, e, "skip", tgt, mechanism=mech) >= p for e in dense])
    if not ivs:
        assert not ok.any()
        return
    lo, hi = ivs[0]
    inside = (dense >= lo * (1 - 1e-9)) & (dense <= hi * (1 + 1e-9))
    assert not np.any(ok & ~inside)
    assert np.all(ok[(dense > lo * (1 + 1e-6)) & (dense < hi * (1 - 1e-6))])


# ------------------------------------------------------------------ all readings at once
@pytest.mark.parametrize("scheme,mech", [("skip", "laplace"), ("uniform", "laplace"),
                                         ("skip", "geometric")])
def test_all_at_once_against_whole_releases(scheme, mech):
    # 4,000 whole releases (seed 40); tolerance 5 binomial standard errors. Exact where
    # every reading is published (Uniform); with Skip's approximations (each shown with
    # its own fresh noise) the union bound, below the simulated frequency
    eps = 6.0
    tgt = AccuracyTarget("within", 1.0, 0.5, "all")
    exact = accuracy_at(MOD5, LM, eps, scheme, tgt, mechanism=mech)
    sim = _whole_releases(MOD5, LM, eps, scheme, 4000, 40, mech)
    hit = np.mean(np.all(sim <= 1.0, axis=1))
    tol = 5 * math.sqrt(max(exact * (1 - exact), hit * (1 - hit)) / 4000) + 1e-12
    if scheme == "uniform":
        assert abs(hit - exact) <= tol
    else:
        assert exact <= hit + tol
    # 'all' is below 'each' (at the audit's ε, 20 readings within ±1 together: 36 %)
    each = accuracy_at(MOD5, LM, eps, scheme, AccuracyTarget("within", 1.0, 0.5, "each"),
                       mechanism=mech)
    assert exact <= each


def test_all_at_once_for_twenty_published_readings_is_the_product():
    eps_t = allocate("uniform", 20, [], 3.0)
    p1 = 1 - math.exp(-eps_t[0])  # P(|Lap(1/ε_t)| ≤ 1)
    got = accuracy_at(np.zeros(20), [], 3.0, "uniform", AccuracyTarget("within", 1.0, 0.5, "all"))
    assert got == pytest.approx(p1**20, rel=1e-12)
    sol = solve_epsilon(np.zeros(20), [], "uniform", AccuracyTarget("within", 1.0, 0.95, "all"))
    # all 20 within ±1 at 95 %: (1 − e^{−ε})^20 = 0.95
    assert sol.epsilon == pytest.approx(-math.log(1 - 0.95 ** (1 / 20)), rel=1e-9)


def test_words_of_the_targets():
    each = AccuracyTarget("within", 1.0, 0.95, "each").describe("kWh")
    assert "each released reading, on its own" in each
    assert "all released readings at once" in AccuracyTarget("within", 1.0, 0.95,
                                                              "all").describe()
    with pytest.raises(InputError, match="all"):
        AccuracyTarget("mean", 1.0, per="all")


# ------------------------------------------------------------------ planar mean error
def _decimal_pi() -> Decimal:
    """π by the Gauss–Legendre AGM (current decimal precision)."""
    a, b, t, p = Decimal(1), 1 / Decimal(2).sqrt(), Decimal(1) / 4, Decimal(1)
    for _ in range(8):
        an = (a + b) / 2
        b = (a * b).sqrt()
        t -= p * (a - an) ** 2
        a, p = an, p * 2
    return (a + b) ** 2 / (4 * t)


def _angular_mean_factor(kp2: Decimal, pi: Decimal) -> Decimal:
    """F(m) = (2/π)(2E(m) − (1 − m)K(m)) from k'² = 1 − m, by the AGM (Legendre):
    K = π/(2·AGM(1, k')), E = K·(1 − Σ 2^{n−1} c_n²)."""
    if kp2 <= 0:
        return 4 / pi
    a, b = Decimal(1), kp2.sqrt()
    s, w = (1 - kp2) / 2, Decimal(1) / 2
    while True:
        c = (a - b) / 2
        a, b = (a + b) / 2, (a * b).sqrt()
        w *= 2
        s += w * c * c
        if abs(c) < Decimal(10) ** -58:
            break
    K = pi / (2 * a)
    return (2 / pi) * (2 * K * (1 - s) - kp2 * K)


def _planar_mean_60_digits(beta: float, level: int = 5) -> Decimal:
    """M(β) = ∫₀^∞ max(β, r)·F(min²/max²)·r·e^{−r} dr in 60-digit decimal arithmetic:
    tanh-sinh on [0, β] and exp-sinh on [β, ∞) (both exact at an endpoint singularity),
    step 2^−level, distances to β kept exactly so that 1 − m has no cancellation."""
    with localcontext() as ctx:
        ctx.prec = 60
        pi = _decimal_pi()
        B, h = Decimal(beta), Decimal(1) / 2**level
        hp = pi / 2
        total = Decimal(0)
        n = int(4.6 * 2**level)
        for k in range(-n, n + 1) if B > 0 else ():
            t = k * h
            ch = (t.exp() + (-t).exp()) / 2
            e2u = (2 * hp * (t.exp() - (-t).exp()) / 2).exp()
            w = B / 2 * hp * ch * 4 * e2u / (e2u + 1) ** 2
            if t >= 0:
                d = B / (e2u + 1)  # distance to β
                r, kp2 = B - d, d * (2 * B - d) / (B * B)
            else:
                r = B * e2u / (e2u + 1)  # distance to 0
                kp2 = (B * B - r * r) / (B * B)
            total += w * B * _angular_mean_factor(kp2, pi) * r * (-r).exp()
        for k in range(-int(5.6 * 2**level), int(2.3 * 2**level) + 1):
            t = k * h
            d = (hp * (t.exp() - (-t).exp()) / 2).exp()
            r = B + d
            w = hp * (t.exp() + (-t).exp()) / 2 * d
            total += w * r * _angular_mean_factor(d * (2 * B + d) / (r * r), pi) * r * (-r).exp()
        return total * h


@pytest.mark.parametrize("beta", [0.0, 1e-8, 1e-3, 0.1, 0.7, 1.0, 1.9952623149688808, 3.0,
                                  7.5, 40.0, 64.0, 1e3, 1e6])
def test_planar_mean_error_is_exact_to_a_few_ulps(beta):
    # ≤ 4·2⁻⁵³ relative everywhere, including δ/s ≈ 2, where the angular mean has its
    # kink (a Gauss–Laguerre × equispaced-angle rule is off by up to 8e-5 there)
    # [0, β] is long next to e^{−r}'s scale when β is huge: a finer step there
    exact = _planar_mean_60_digits(beta, 5 if beta < 1e4 else 7)
    got = float(planar_mean_unit(np.array([beta]))[0])
    assert abs(Decimal(got) - exact) / exact <= Decimal(4 * 2.0**-53), (beta, got, exact)


def test_the_60_digit_oracle_has_converged():
    a, b = _planar_mean_60_digits(2.0, 5), _planar_mean_60_digits(2.0, 6)
    assert abs(a - b) < Decimal(10) ** -25
    assert abs(_planar_mean_60_digits(0.0) - 2) < Decimal(10) ** -25  # E R = 2s


def test_planar_mean_scales_with_s_and_feeds_the_mean_target():
    d = np.array([0.5, 20.0, 300.0])
    s = np.array([10.0, 10.0, 100.0])
    got = planar_mean(d, s)
    np.testing.assert_allclose(got, s * planar_mean_unit(d / s), rtol=0, atol=0)
    # a track under Skip: the repeated points' mean error uses the same law
    lat = 48.0 + np.arange(6) * 1e-3
    track = np.column_stack([lat, np.full(6, 2.0)])
    m = accuracy_at(track, [3], 2.0, "skip", AccuracyTarget("mean", 100.0, per="typical"),
                    radius=50.0)
    assert np.isfinite(m) and m > 2 * 50.0 / 2.0 * (5 / 6)


def test_choose_page_offers_all_readings_at_once():
    from tests.conftest import open_page

    at = open_page("choose_epsilon")
    at.radio(key="w_acc_per").set_value("all").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    text = " ".join(m.value for m in at.markdown)
    assert "all released readings at once" in text
    # a mean error has no 'all at once': the choice falls back to 'each'
    at.radio(key="w_acc_kind").set_value("mean").run()
    assert not at.exception and not at.error
    assert at.session_state.w_acc_per == "each"
    assert "all" not in at.radio(key="w_acc_per").options


def test_geometric_fresh_noise_law_at_budgets_where_the_noise_vanishes():
    """Regression (found by the dense-scan test above): at ε/Δf above 745 both α = e^{−ε/Δf}
    underflow to 0 and the signed mixture's weight was 0/0, so Skip's Geometric accuracy
    was NaN and the feasible interval stopped at ε ≈ 738 instead of the range's end."""
    from lmdk_core.decision.fresh_noise_laws import geometric_fresh_mean, geometric_fresh_within

    for e1, e2 in [(800.0, 800.0), (800.0, 50.0), (45.0, 60.0), (2000.0, 900.0)]:
        within = geometric_fresh_within(np.array([0.0, 1.0, 2.0]), e1, e2, 1.0)
        np.testing.assert_allclose(within, [1.0, 1.0, 0.0], atol=1e-15)
        np.testing.assert_allclose(geometric_fresh_mean(np.array([0.0, 3.0]), e1, e2),
                                   [0.0, 3.0], atol=1e-15)
    x = np.zeros(4)
    tgt = AccuracyTarget("within", 1.0, 0.5, "each")
    sol = solve_epsilon(x, [1], "skip", tgt, mechanism="geometric", eps_range=(1e-2, 1e3))
    (lo, hi), = sol.extra["intervals"]
    assert hi == pytest.approx(1e3)
    assert accuracy_at(x, [1], 999.0, "skip", tgt, mechanism="geometric") >= 0.5
