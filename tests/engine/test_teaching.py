"""The Learn page's engine (lmdk_core.teaching): formulas against closed forms.

Statistical checks use fixed seeds and tolerances of ~5 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import trapezoid

from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.errors import InputError
from lmdk_core.teaching.adversary import posterior_bound, posterior_lower_bound
from lmdk_core.teaching.anonymity import (
    AGE_LEVELS,
    LOCATION_LEVELS,
    anonymity_report,
    generalize,
    intersection_attack,
    toy_microdata,
)
from lmdk_core.teaching.composition import (
    correlated_composition,
    discount_weights,
    discounted_composition,
    parallel_composition,
    post_processing_demo,
    sequential_composition,
)
from lmdk_core.teaching.definition import neighbouring_densities
from lmdk_core.teaching.levels import LEVEL_KEYS, protection_levels, protection_levels_frame
from lmdk_core.teaching.mechanisms import (
    EXPONENTIAL_EXAMPLE,
    exponential_probabilities,
    geometric_pmf,
    laplace_samples,
    noise_cloud,
    randomized_response_survey,
)


# ---------------------------------------------------------------- definition
@given(eps=st.floats(0.01, 10), lo=st.floats(-50, 60), width=st.floats(0, 40))
@settings(max_examples=200, deadline=None)
def test_every_interval_probability_ratio_is_within_e_eps(eps, lo, width):
    nd = neighbouring_densities(eps, 1.0, 10.0)
    p1, p2 = nd.interval_probabilities(lo, lo + width)
    bound = math.exp(eps) * (1 + 1e-9)
    assert p1 <= bound * p2 + 1e-15 and p2 <= bound * p1 + 1e-15


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_privacy_loss_reaches_but_never_exceeds_epsilon(eps):
    nd = neighbouring_densities(eps, 2.0, 10.0)
    assert nd.scale == pytest.approx(2.0 / eps)
    assert nd.max_abs_loss == pytest.approx(eps, rel=1e-9)
    np.testing.assert_allclose(nd.log_ratio, np.log(nd.density_d / nd.density_d2), atol=1e-9)
    # both densities integrate to ~1 over ±6 scales (mass outside: e^-6)
    for d in (nd.density_d, nd.density_d2):
        assert trapezoid(d, nd.x) == pytest.approx(1.0, abs=5e-3)
    # the upper tail beyond f(D') attains the ratio e^ε exactly
    p1, p2 = nd.interval_probabilities(nd.count_d2, 1e12)
    assert p2 / p1 == pytest.approx(math.exp(eps))


def test_bad_interval_is_input_error():
    with pytest.raises(InputError):
        neighbouring_densities(1.0).interval_probabilities(3, 1)
    with pytest.raises(InputError):
        neighbouring_densities(0)


# ---------------------------------------------------------------- adversary
def test_posterior_bound_closed_forms():
    assert float(posterior_bound(0.5, math.log(3))) == pytest.approx(0.75)
    assert float(posterior_bound(0.3, 0.0)) == pytest.approx(0.3)
    p = np.linspace(0, 1, 11)
    np.testing.assert_allclose(posterior_lower_bound(p, 1.0),
                               1 - posterior_bound(1 - p, 1.0))
    hi = posterior_bound(p, 2.0)
    assert np.all(hi >= p - 1e-12) and np.all(hi <= 1)
    assert np.all(np.diff(posterior_bound(0.2, [0.1, 0.5, 1, 2, 5])) > 0)
    # the likelihood ratio of the bound is exactly e^ε
    post = posterior_bound(0.2, 1.3)
    assert (post / (1 - post)) / (0.2 / 0.8) == pytest.approx(math.exp(1.3))


@pytest.mark.parametrize("prior", [-0.1, 1.5, float("nan"), "x"])
def test_posterior_rejects_bad_prior(prior):
    with pytest.raises(InputError):
        posterior_bound(prior, 1.0)


# ---------------------------------------------------------------- protection levels
def test_protection_levels_budgets_sets_and_verdicts():
    lm = [2, 5, 9]
    levels = {lv.key: lv for lv in protection_levels(12, lm, 1.0, 3, 7)}
    assert list(levels) == list(LEVEL_KEYS)
    np.testing.assert_allclose(levels["event"].epsilon_t, allocate("event", 12, lm, 1.0))
    np.testing.assert_allclose(levels["user"].epsilon_t, 1 / 12)
    np.testing.assert_allclose(levels["w-event"].epsilon_t, 1 / 3)
    np.testing.assert_allclose(levels["landmark"].epsilon_t, 1 / 4)
    assert np.flatnonzero(levels["event"].protected).tolist() == [7]
    assert levels["user"].protected.all()
    assert np.flatnonzero(levels["w-event"].protected).tolist() == [5, 6, 7]
    assert np.flatnonzero(levels["landmark"].protected).tolist() == [2, 5, 7, 9]
    for lv in levels.values():  # each level protects its set within ε
        assert lv.protected_total <= 1.0 + 1e-9
    assert not levels["event"].landmark_private
    assert levels["event"].landmark_total == pytest.approx(4.0)
    assert levels["user"].landmark_private and levels["landmark"].landmark_private
    assert not levels["w-event"].landmark_private  # w = 3 < |L| + 1
    frame = protection_levels_frame(list(levels.values()), lm)
    assert frame["landmark-private"].tolist() == ["no", "yes", "no", "yes"]


@given(T=st.integers(1, 30), data=st.data(), eps=st.floats(0.05, 5))
@settings(max_examples=100, deadline=None)
def test_w_event_is_landmark_private_iff_window_covers_landmarks(T, data, eps):
    lm = data.draw(st.lists(st.integers(0, T - 1), unique=True, max_size=T))
    w = data.draw(st.integers(1, T + 2))
    focus = data.draw(st.integers(0, T - 1))
    lv = {x.key: x for x in protection_levels(T, lm, eps, w, focus)}
    need = len(lm) if len(lm) == T else len(lm) + 1
    assert lv["w-event"].landmark_private == (w >= need)
    assert lv["landmark"].landmark_private and lv["user"].landmark_private
    assert lv["event"].landmark_private == (len(lm) == 0 or (T == 1))


def test_protection_levels_bad_input():
    # a window or timestamp that is not a number at all (None, text) is an InputError too,
    # not a TypeError from int() (found by mypy, issue 40)
    for args in [(0, [], 1, 1, 0), (5, [7], 1, 1, 0), (5, [], 1, 0, 0), (5, [], 1, 1, 5),
                 (5, [], 1, None, 0), (5, [], 1, 2, None), (5, [], 1, "2", 0),
                 (5, [], 1, 2.5, 0)]:
        with pytest.raises(InputError):
            protection_levels(*args)


# ---------------------------------------------------------------- mechanisms
@pytest.mark.parametrize("eps,sens", [(0.5, 1), (1.0, 1), (2.0, 3)])
def test_geometric_pmf_is_a_distribution_with_the_stated_mae(eps, sens):
    k, pmf = geometric_pmf(eps, sens, k_max=2000)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(pmf, pmf[::-1])
    a = math.exp(-eps / sens)
    assert float(np.sum(np.abs(k) * pmf)) == pytest.approx(2 * a / (1 - a * a), rel=1e-9)
    k, pmf = geometric_pmf(eps, sens)  # default range: >= 99.9 % of the mass
    assert pmf.sum() >= 0.999 or k.max() == 500


def test_laplace_samples_mean_error():
    # seed 0, n = 20000: the MAE's standard error is b/sqrt(n) ≈ 0.007·b
    s = laplace_samples(5.0, 0.5, 1.0, 20_000, seed=0)
    assert float(np.mean(np.abs(s - 5.0))) == pytest.approx(2.0, rel=0.04)


def test_noise_cloud_matches_planar_laplace():
    c = noise_cloud(0.5, 200.0, 20_000, seed=4)
    assert c.expected_mean == pytest.approx(800.0)
    assert c.within_radius == pytest.approx(1 - 1.5 * math.exp(-0.5))
    # mean of Gamma(2, 400): sd 400·√2, standard error ≈ 4 m; tolerance 5 SE
    assert abs(c.measured_mean - 800.0) < 5 * 400 * math.sqrt(2) / math.sqrt(20_000)
    frac = float(np.mean(c.distance <= 200.0))
    assert abs(frac - c.within_radius) < 5 * math.sqrt(0.1 * 0.9 / 20_000)
    np.testing.assert_allclose(np.hypot(c.x, c.y), c.distance)
    assert c.median < c.expected_mean < c.p95


def test_exponential_probabilities_ratio():
    u = [u for _, u in EXPONENTIAL_EXAMPLE]
    p = exponential_probabilities(u, 0.5)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] / p[1] == pytest.approx(math.exp(0.5 * (u[0] - u[1]) / 2))
    assert np.all(np.diff(p) < 0)


def test_randomized_response_estimate_is_unbiased():
    s = randomized_response_survey(0.3, 1000, 1.0, seed=0)
    assert s.true_yes == 300 and s.p_truth == pytest.approx(math.e / (1 + math.e))
    assert s.estimate == pytest.approx((s.observed - (1 - s.p_truth)) / (2 * s.p_truth - 1))
    # mean over 200 seeds within 5 standard errors of the truth
    est = [randomized_response_survey(0.3, 1000, 1.0, seed=i).estimate for i in range(200)]
    assert abs(np.mean(est) - 0.3) < 5 * s.std_error / math.sqrt(200)
    big = randomized_response_survey(0.3, 1000, 20.0, seed=1)
    assert big.estimate == pytest.approx(0.3, abs=1e-6)


@pytest.mark.parametrize("args", [(1.2, 100, 1.0), (0.3, 0, 1.0), (0.3, 100, 0.0),
                                  (0.3, 2.5, 1.0)])
def test_randomized_response_bad_input(args):
    with pytest.raises(InputError):
        randomized_response_survey(*args)


# ---------------------------------------------------------------- composition
def test_sequential_parallel_discounted():
    e = [0.5, 0.3, 0.2, 0.4]
    assert sequential_composition(e) == pytest.approx(1.4)
    assert parallel_composition(e) == pytest.approx(0.5)
    w = discount_weights(4, "exponential", 0.5)
    np.testing.assert_allclose(w, np.exp(-0.5 * np.array([3, 2, 1, 0])))
    np.testing.assert_allclose(discount_weights(3, "hyperbolic", 1.0), [1 / 3, 1 / 2, 1])
    assert discounted_composition(e, "exponential", 0.0) == pytest.approx(1.4)
    assert discounted_composition(e, "hyperbolic", 2.0) < 1.4
    with pytest.raises(InputError):
        sequential_composition([])
    with pytest.raises(InputError):
        discount_weights(3, "linear", 1.0)
    with pytest.raises(InputError):
        parallel_composition([0.1, -1])


def test_correlated_composition_limits():
    eps = [0.1] * 10
    ind = correlated_composition(eps, 3, 5, 1e6)
    assert ind.independent == pytest.approx(0.3)
    assert ind.leakage == pytest.approx(0.3, rel=1e-4)  # ~no correlation
    det = correlated_composition(eps, 3, 5, 0.0)
    assert det.leakage == pytest.approx(1.0)  # deterministic: every release counts
    one = correlated_composition(eps, 4, 4, 0.1)
    assert one.leakage == pytest.approx(one.bpl[4] + one.fpl[4] - 0.1)
    vals = [correlated_composition(eps, 2, 6, s).leakage for s in (0.0, 0.01, 0.1, 1, 10)]
    assert all(a >= b - 1e-12 for a, b in zip(vals, vals[1:], strict=False))
    with pytest.raises(InputError):
        correlated_composition(eps, 5, 3, 0.1)


def test_post_processing_keeps_epsilon_and_clipping_helps():
    counts = [0, 0, 1, 0, 0, 2, 6, 9, 7, 4, 3, 3]
    pp = post_processing_demo(counts, 0.5, seed=3)
    assert pp.epsilon == 0.5
    assert np.all(pp.clipped >= 0)
    assert pp.mae["clipped"] <= pp.mae["released"]
    with pytest.raises(InputError):
        post_processing_demo([], 1.0)


# ---------------------------------------------------------------- k-anonymity
def test_toy_table_follows_the_seed():
    df = toy_microdata()
    assert list(df.columns) == ["Name", "Age", "Location", "Status"]
    q = df.iloc[5]
    assert (q["Name"], q["Age"], q["Location"], q["Status"]) == ("Quackmore", 62, "Opéra",
                                                                 "dining")
    dewey = df[df["Name"] == "Dewey"].iloc[0]
    assert (dewey["Location"], dewey["Status"]) == ("Montmartre", "at home")


def test_generalization_measures():
    raw = anonymity_report(0, 0)
    assert raw.k == 1 and raw.released["Name"].eq("*").all()
    survey = anonymity_report(2, 1)  # the survey's ≤ 20 / > 20 and Paris: 3-anonymous
    assert (survey.k, survey.l_distinct) == (3, 3)
    assert survey.l_entropy == pytest.approx(3.0)
    assert survey.t == pytest.approx(0.5)
    assert sorted(survey.classes["people"]) == [3, 3]
    hom = anonymity_report(2, 1, "homogeneous")
    assert hom.k == 3 and hom.l_distinct == 1 and hom.l_entropy == pytest.approx(1.0)
    everything = anonymity_report(3, 2)
    assert everything.k == 6 and everything.t == pytest.approx(0.0)
    for a in AGE_LEVELS:
        for b in LOCATION_LEVELS:
            r = anonymity_report(a, b)
            assert 1 <= r.l_distinct <= r.k and r.l_entropy <= r.l_distinct + 1e-9
            assert 0 <= r.t <= 1


def test_intersection_of_two_k_anonymous_releases_discloses_donald():
    att = intersection_attack((2, 1), (3, 0), "Donald")
    assert att.k_a == 3 and att.k_b == 3
    assert att.disclosed and att.intersection == ["at work"] == [att.truth]
    same = intersection_attack((2, 1), (2, 1), "Donald")
    assert not same.disclosed and len(same.intersection) == 3
    with pytest.raises(InputError):
        intersection_attack((2, 1), (3, 0), "Scrooge")
    with pytest.raises(InputError):
        generalize(toy_microdata(), 9, 0)


def test_parse_budgets_reads_the_learn_pages_list_and_says_what_is_wrong():
    import doctest

    from lmdk_core.teaching import composition

    assert doctest.testmod(composition).failed == 0
    assert composition.parse_budgets(" 0.5 ,0.3;; 0 ") == [0.5, 0.3, 0.0]
    for text, message in [("", "at least one"), ("0.5, abc", "not a number"),
                          ("0.5, -1", ">= 0"), ("inf", ">= 0"), ("nan", ">= 0"),
                          (",".join(["1"] * (composition.MAX_BUDGETS + 1)), "at most")]:
        with pytest.raises(InputError, match=message):
            composition.parse_budgets(text)
    # what it accepts, the composition theorems accept
    assert composition.sequential_composition(
        composition.parse_budgets("0.5, 0.3")) == pytest.approx(0.8)
