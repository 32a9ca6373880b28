"""Edges of the engine found by an independent audit: the verifier's rounding tolerance,
mechanisms at extreme ε, CLI limits and hostile configurations, exact timestamps.

Each test reproduces the reported problem and checks the fix.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import release_series, release_trajectory
from lmdk_core.engine.verifier import TOLERANCE_ULPS, tolerance, verify
from lmdk_core.files.config import config_from_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import MAX_LENGTH
from lmdk_core.mechanisms import Geometric, Laplace, PlanarLaplace, RandomizedResponse
from tests.conftest import ASSETS, assert_clean_error, run_cli

ULP1 = float(np.spacing(1.0))


# ---------------------------------------------------------------- 1. verifier tolerance


def test_real_overshoot_of_9e_10_is_not_private():
    v = verify([0.5, 0.5000000009], [0], 1.0)
    assert not v.private
    assert list(v.violations) == [1]
    assert "NOT landmark-private" in v.summary()


@pytest.mark.parametrize("n_landmarks", [1, 2, 7])
def test_tolerance_boundary_is_exactly_k_times_terms_ulps(n_landmarks):
    # totals exactly 1 + j·ulp(1): private up to j = TOLERANCE_ULPS·(|L|+1), not one more
    allowed = TOLERANCE_ULPS * (n_landmarks + 1)
    assert tolerance(1.0, n_landmarks + 1) == allowed * ULP1
    lm = list(range(n_landmarks))
    for j, private in [(allowed, True), (allowed + 1, False)]:
        eps_t = np.zeros(n_landmarks + 1)
        eps_t[-1] = 1.0 + j * ULP1  # the regular timestamp alone reaches the total
        v = verify(eps_t, lm, 1.0)
        assert v.worst_total == 1.0 + j * ULP1
        assert v.private is private, (j, v.summary())
        assert (v.violations.size == 0) is private


def test_thirds_are_private_at_many_epsilons():
    for eps in np.geomspace(1e-300, 1e300, 601):
        assert verify([eps / 3] * 3, [0, 1], eps).private, eps
        assert verify([eps / 3] * 5, [0, 2], eps).private, eps


@settings(max_examples=300, deadline=None)
@given(T=st.integers(1, 400), data=st.data(),
       log_eps=st.floats(-300, 300, allow_nan=False, allow_infinity=False))
def test_uniform_and_skip_are_private_at_any_epsilon_and_size(T, data, log_eps):
    eps = float(10.0**log_eps)
    k = data.draw(st.integers(0, T))
    lm = sorted(data.draw(st.permutations(range(T)))[:k])
    for scheme in ("uniform", "skip"):
        v = verify(allocate(scheme, T, lm, eps), lm, eps)
        assert v.private, (scheme, T, len(lm), eps, v.summary())


@settings(max_examples=120, deadline=None)
@given(T=st.integers(1, 150), data=st.data(),
       log_eps=st.floats(-3, 4, allow_nan=False), seed=st.integers(0, 2**32 - 1))
def test_adaptive_allocations_are_private_at_many_epsilons(T, data, log_eps, seed):
    eps = float(10.0**log_eps)
    k = data.draw(st.integers(0, T))
    lm = sorted(data.draw(st.permutations(range(T)))[:k])
    x = np.random.default_rng(seed).normal(0, 1, T).cumsum()
    rel = release_series(x, lm, epsilon=eps, scheme="adaptive", seed=seed)
    assert rel.verdict.private, (T, len(lm), eps, rel.verdict.summary())
    # and the exact (rational) total of what Adaptive spent is within ε + the tolerance
    exact = _exact_totals(rel.epsilon_t, lm)
    assert max(exact) <= Fraction(eps) + Fraction(rel.verdict.tolerance)


def _exact_totals(eps_t, lm):
    terms = [Fraction(float(e)) for e in eps_t]
    lsum = sum((terms[i] for i in lm), Fraction(0))
    return [lsum + (0 if t in set(lm) else terms[t]) for t in range(len(terms))]


@settings(max_examples=300, deadline=None)
@given(T=st.integers(1, 30), data=st.data(), eps=st.floats(1e-6, 1e6))
def test_verdict_agrees_with_exact_rational_arithmetic(T, data, eps):
    # oracle: the exact sum of the float budgets. Within ε → private (no false alarm);
    # beyond ε + twice the allowance → not private (no real overshoot accepted)
    lm = sorted(data.draw(st.sets(st.integers(0, T - 1))))
    n = len(lm) + (1 if len(lm) < T else 0)
    share = eps / max(n, 1)
    bump = data.draw(st.sampled_from([-1e-9, -64, -8, -1, 0, 1, 8, 64, 1e-9]))
    eps_t = np.full(T, share)
    if abs(bump) >= 1:
        eps_t[0] = share + bump * float(np.spacing(share))
    else:
        eps_t[0] = share * (1 + bump)
    exact = max(_exact_totals(eps_t, lm))
    v = verify(eps_t, lm, eps)
    if exact <= Fraction(eps):
        assert v.private
    if exact > Fraction(eps) + 2 * Fraction(tolerance(eps, len(lm) + 1)):
        assert not v.private


# ---------------------------------------------------------------- 2. mechanisms at extreme ε


@pytest.mark.parametrize("eps", [709.0, 710.0, 800.0, 1e5, 1e308])
def test_randomized_response_at_huge_epsilon_always_tells_the_truth(eps):
    rr = RandomizedResponse(3)
    truth = np.array([0, 1, 2, 2, 1, 0] * 50)
    assert float(rr.truth_probability(eps)) == 1.0
    assert float(rr.expected_error(eps)) == pytest.approx(0.0, abs=1e-300)
    reports = rr.perturb(truth, eps, 0)
    np.testing.assert_array_equal(reports, truth)
    np.testing.assert_allclose(rr.estimate_proportions(reports, eps), [1 / 3, 1 / 3, 1 / 3])


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("eps", [1e-12, 0.1, 1.0, 5.0, 30.0])
def test_randomized_response_matches_the_textbook_formulas(k, eps):
    rr = RandomizedResponse(k)
    e = np.exp(eps)
    assert float(rr.truth_probability(eps)) == pytest.approx(e / (e + k - 1), rel=1e-12)
    assert float(rr.expected_error(eps)) == pytest.approx((k - 1) / (e + k - 1), rel=1e-9)


def test_randomized_response_estimate_is_unbiased_at_moderate_epsilon():
    # data seed 7, noise seed 8, 200,000 reports: tolerance 0.01 is > 5 standard errors
    rr = RandomizedResponse(3)
    truth = np.random.default_rng(7).choice(3, size=200_000, p=[0.5, 0.3, 0.2])
    est = rr.estimate_proportions(rr.perturb(truth, 1.0, 8), 1.0)
    np.testing.assert_allclose(est, [0.5, 0.3, 0.2], atol=0.01)


@pytest.mark.parametrize("eps", [1e-16, 1e-17, 1e-300, 5e-324])
def test_geometric_below_its_range_is_a_clear_error(eps):
    with pytest.raises(InputError, match="usable range is ε_t ≥ Δf·1e-12"):
        Geometric(1).perturb(np.zeros(3), eps, 0)
    with pytest.raises(InputError, match="usable range"):
        release_series([1.0, 2.0, 3.0], [1], epsilon=eps, scheme="uniform", mechanism="geometric",
                       seed=0)


def test_geometric_at_the_edge_of_its_range_releases_whole_numbers():
    z = Geometric(1).perturb(np.zeros(2000), 1e-12, 3)
    assert np.all(np.isfinite(z)) and np.all(z == np.round(z))
    assert np.all(np.abs(z) < 2.0**53)
    assert np.any(z != 0)  # 1 - exp(-1e-12) is 1.000088900582341e-12, not 0: real noise
    # expected error without cancellation: 2a/(1-a²) -> Δf/ε for small ε
    assert float(Geometric(1).expected_error(1e-12)) == pytest.approx(1e12, rel=1e-6)
    assert float(Geometric(2).expected_error(1e-9)) == pytest.approx(2e9, rel=1e-6)


def test_geometric_noise_scale_at_small_epsilon_matches_its_expected_error():
    # seed 11, 40,000 draws at ε = 1e-6: the mean |Z| (≈ 1e6) within 3 % (> 6 std errors)
    g = Geometric(1)
    z = g.perturb(np.zeros(40_000), 1e-6, 11)
    assert np.mean(np.abs(z)) == pytest.approx(float(g.expected_error(1e-6)), rel=0.03)


@pytest.mark.parametrize("eps", [5e-324, 1e-310, 1e-301])
def test_laplace_never_releases_infinity(eps):
    with pytest.raises(InputError, match=r"usable range is ε_t ≥ Δf·1e-300"):
        Laplace(1).perturb(np.zeros(3), eps, 0)
    for scheme in ("uniform", "skip", "event", "adaptive"):
        with pytest.raises(InputError, match="usable range"):
            release_series([1.0, 2.0, 3.0, 4.0], [1], epsilon=eps, scheme=scheme, seed=0)


def test_laplace_at_the_edge_of_its_range_is_finite_and_overflow_is_refused():
    out = Laplace(1).perturb(np.zeros(1000), 1e-300, 0)
    assert np.all(np.isfinite(out))
    with pytest.raises(InputError, match="overflows"):
        Laplace(1).perturb(np.full(1000, np.finfo(float).max), 1e-300, 0)


def test_a_share_that_underflows_to_zero_is_refused_not_withheld():
    # ε = 5e-324 split three ways is 0: refuse instead of "withholding" everything
    with pytest.raises(InputError, match="below the smallest float"):
        release_series([1.0, 2.0, 3.0], [0, 1], epsilon=5e-324, scheme="uniform", seed=0)


def test_planar_laplace_range_and_tiny_epsilon_trajectories():
    with pytest.raises(InputError, match="usable range is ε_t ≥ r·1e-12"):
        PlanarLaplace(100).perturb([[48.0, 2.0]], 5e-324, 0)
    out = PlanarLaplace(100).perturb([[48.0, 2.0]] * 50, 1e-10, 0)  # r/ε = 1e12 m
    assert np.all(np.isfinite(out))
    for scheme in ("uniform", "skip", "adaptive"):
        with pytest.raises(InputError, match="usable range"):
            release_trajectory([48.0, 48.1, 48.2], [2.0, 2.1, 2.2], [1], epsilon=5e-324, radius=100,
                               scheme=scheme, seed=0)


def test_geo_release_at_5e_324_is_a_clear_error_and_writes_nothing(tmp_path):
    gpx = sorted((ASSETS / "sample_tracks").glob("*.gpx"))[0]
    for scheme in ("skip", "uniform", "adaptive"):
        out = tmp_path / f"{scheme}.csv"
        p = run_cli("geo-release", "--noise", "fast",
                    "--input", str(gpx), "--landmarks", "1", "--epsilon",
                    "5e-324", "--scheme", scheme, "--output", str(out), "--json")
        # the command line takes the app's ε range; the engine's own floor is below it
        assert_clean_error(p, "--epsilon must be a number from 0.001 to 100")
        assert not out.exists()
        with pytest.raises(InputError, match="usable range"):
            release_trajectory([48.0, 48.1, 48.2], [2.0, 2.1, 2.2], [1], epsilon=5e-324, radius=100,
                               scheme=scheme, seed=0)


def test_small_but_usable_epsilon_releases_are_consistent():
    rel = release_trajectory([48.0, 48.1, 48.2, 48.3], [2.0, 2.1, 2.2, 2.3], [1], epsilon=1e-6,
                             radius=100, scheme="skip", seed=0)
    assert not np.any(rel.published & rel.withheld)
    assert np.all(np.isfinite(rel.released[~rel.withheld]))


def test_exponential_mechanism_at_huge_epsilon_picks_the_best():
    from lmdk_core.mechanisms import Exponential

    p = Exponential(1.0).probabilities([0.0, 5.0, 10.0], 1e308)
    np.testing.assert_array_equal(p, [0.0, 0.0, 1.0])


# ---------------------------------------------------------------- 3. allocate vs check


def test_allocate_says_on_stderr_when_not_private_but_exits_0(tmp_path):
    p = run_cli("allocate", "--length", "5", "--landmarks", "1,2", "--epsilon", "1",
                "--scheme", "event", "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["landmark_private"] is False
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("lmdk: note:")
    assert "NOT landmark-private" in lines[0] and "lmdk check" in lines[0]
    # the same allocation through check: exit 1
    alloc = tmp_path / "eps.csv"
    alloc.write_text("epsilon\n" + "\n".join(["1"] * 5) + "\n")
    assert run_cli("check", "--allocation", str(alloc), "--landmarks", "1,2",
                   "--epsilon", "1").returncode == 1
    # a private allocation: nothing on stderr
    ok = run_cli("allocate", "--length", "5", "--landmarks", "1,2", "--epsilon", "1",
                 "--scheme", "uniform")
    assert ok.returncode == 0 and ok.stderr == ""


# ---------------------------------------------------------------- 4. crashes and hangs


def _deep(levels: int) -> str:
    return ('{"format": "lmdk-view/1", "extra": {"x": ' + "[" * levels + "]" * levels + "}}")


@pytest.mark.parametrize("text", [_deep(5000), "[" * 5000 + "]" * 5000, _deep(40)])
def test_deeply_nested_configuration_is_a_clear_error(text):
    with pytest.raises(InputError, match="nested too deeply"):
        config_from_json(text)


def test_report_on_a_deeply_nested_configuration(tmp_path):
    cfg = tmp_path / "deep.json"
    cfg.write_text(_deep(5000))
    assert_clean_error(run_cli("report", "--config", str(cfg), "--output",
                               str(tmp_path / "r.html")), "nested too deeply")


@pytest.mark.parametrize("data, fragment", [
    ({"time": 1, "value": 2}, "must be a list"),
    (5, "data must be an object"),
    ("text", "data must be an object"),
    ({"time": [1, 2], "value": [2]}, "same number of values"),
    ({"time": [[1]], "value": [2]}, "not lists or objects"),
])
def test_data_of_the_wrong_shape_is_a_clear_error(tmp_path, data, fragment):
    body = {"format": "lmdk-view/1", "dataset": "embedded", "data": data}
    with pytest.raises(InputError, match=fragment):
        config_from_json(json.dumps(body))
    cfg = tmp_path / "bad.json"
    cfg.write_text(json.dumps(body))
    assert_clean_error(run_cli("report", "--config", str(cfg), "--output",
                               str(tmp_path / "r.html")), fragment)


@pytest.mark.parametrize("args", [
    ["allocate", "--epsilon", "1"],
    ["dummies", "--landmarks", "3", "--method", "heuristic", "--epsilon", "1", "--seed", "0"],
])
def test_huge_lengths_are_refused_with_the_limit(args):
    p = run_cli(*args, "--length", "1000000000", "--json")
    assert_clean_error(p, f"--length must be a whole number from 1 to {MAX_LENGTH:,}")


def test_huge_lengths_in_leakage_and_calibrate(tmp_path):
    m = tmp_path / "P.csv"
    m.write_text("0.9,0.1\n0.2,0.8\n")
    assert_clean_error(run_cli("leakage", "--backward", str(m), "--epsilon", "1",
                               "--length", "1000000000", "--json"), f"{MAX_LENGTH:,}")
    assert_clean_error(run_cli("calibrate", "--matrix", str(m), "--target", "1",
                               "--length", "1000000000", "--json"), f"{MAX_LENGTH:,}")
    with pytest.raises(InputError, match="limit"):
        allocate("uniform", MAX_LENGTH + 1, [], 1.0)
    assert allocate("uniform", MAX_LENGTH, [], 1.0).size == MAX_LENGTH


# ---------------------------------------------------------------- 5. timestamps


def test_series_whole_number_times_are_exact():
    from lmdk_core.data.series import load_series_csv

    s = load_series_csv(b"time,value\n9007199254740992,1\n9007199254740993,2\n")
    assert s.time.tolist() == [2**53, 2**53 + 1]
    # a repeated time is kept, each row its own timestamp (docs/data-formats.md)
    s = load_series_csv(b"time,value\n9007199254740993,1\n9007199254740993,2\n")
    assert len(s) == 2 and "same time" in s.notes[0]
    with pytest.raises(InputError, match="comes before"):
        load_series_csv(b"time,value\n9007199254740993,1\n9007199254740992,2\n")
    with pytest.raises(InputError, match="must lie within"):
        load_series_csv(b"time,value\n99999999999999999999,1\n")


def test_track_whole_number_times_are_exact():
    from lmdk_core.data.track_loading import load_track

    t = load_track(b"time,lat,lon\n9007199254740992,48,2\n9007199254740993,48.1,2\n", "t.csv")
    assert t.time.tolist() == [2**53, 2**53 + 1]
    assert not any("same time" in n for n in t.notes)


def _gpx(times: list[str]) -> bytes:
    pts = "".join(f'<trkpt lat="48.{i}" lon="2.{i}"><time>{t}</time></trkpt>'
                  for i, t in enumerate(times))
    return ('<?xml version="1.0"?><gpx version="1.1" creator="t" '
            'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>' + pts +
            "</trkseg></trk></gpx>").encode()


def _csv(times: list[str]) -> bytes:
    return ("time,lat,lon\n" + "".join(f"{t},48.{i},2.{i}\n" for i, t in enumerate(times))
            ).encode()


@pytest.mark.parametrize("times, expect", [
    (["2024-03-01T08:00:00Z", "2024-03-01T08:00:00Z", "2024-03-01T08:01:00Z"], "same time"),
    (["2024-03-01T08:00:00Z", "2024-03-01T07:59:00Z", "2024-03-01T08:01:00Z"], "backwards"),
])
def test_gpx_and_csv_treat_repeated_and_backward_times_alike(times, expect):
    from lmdk_core.data.track_loading import load_track

    a, b = load_track(_gpx(times), "a.gpx"), load_track(_csv(times), "b.csv")
    assert (a.time_kind, a.notes, a.warnings) == (b.time_kind, b.notes, b.warnings)
    assert any(expect in m for m in a.notes + a.warnings)


@pytest.mark.parametrize("content, fragment", [
    (_deep(5000).encode(), "nested too deeply"),
    (b'{"format": "lmdk-view/1", "dataset": "embedded", "data": {"time": 1, "value": 2}}',
     "must be a list"),
    (b'{"format": "lmdk-view/1", "dataset": "embedded", "data": 7}', "data must be an object"),
])
def test_hostile_configuration_upload_in_the_app_keeps_the_view(content, fragment):
    from tests.conftest import open_page

    at = open_page("timeline", 120)
    before = at.multiselect(key="w_lm_select").value
    at.file_uploader(key="config_upload").set_value(("view.json", content, "application/json"))
    at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert fragment in errors, errors
    assert at.multiselect(key="w_lm_select").value == before
