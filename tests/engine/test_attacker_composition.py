"""What an attacker learns, and the budget over repeated releases."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.attacker import (
    averaging_attack,
    certainty_sentence,
    posterior_bound,
    repeat_inference,
    risk_statements,
    simulate_repeat_inference,
)
from lmdk_core.decision.composition import (
    advanced_composition,
    basic_composition,
    per_release_epsilon,
    schedule_summary,
)
from lmdk_core.foundation.errors import InputError
from tests.conftest import run_cli


@settings(max_examples=100, deadline=None)
@given(p=st.floats(0, 1), x=st.floats(0, 50))
def test_posterior_bound_is_bayes_with_likelihood_ratio_e_x(p, x):
    post = float(posterior_bound(p, x))
    direct = p * math.exp(x) / (1 - p + p * math.exp(x))
    assert post == pytest.approx(direct, rel=1e-12, abs=1e-300)
    assert p - 1e-15 <= post <= 1


def test_posterior_bound_extremes_and_errors():
    assert float(posterior_bound(0.3, 0.0)) == pytest.approx(0.3)
    assert float(posterior_bound(0.1, 1e6)) == 1.0
    with pytest.raises(InputError):
        posterior_bound(1.5, 1)
    with pytest.raises(InputError):
        posterior_bound(0.5, -1)
    s = certainty_sentence(2.0, 0.1, epsilon=1.0, correlated=True)
    assert "7.39× more certain" in s and "landmark TPL" in s


def test_repeat_attack_finds_skip_landmarks_but_not_uniform():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, 100)
    lm = [0, 10, 11, 50]
    skip = simulate_repeat_inference(x, lm, "skip", 1.0, runs=20, seed=1)
    # t=0 is withheld (flagged as missing); 10, 11 and 50 show the last release plus
    # fresh noise (lmdk_core/engine/repeat_noise.py), so they no longer repeat: only the
    # withheld landmark is found, and continuous Laplace never repeats a fresh value
    assert skip.precision == 1.0 and skip.recall == 0.25 and skip.flagged_per_run == 1
    uni = simulate_repeat_inference(x, lm, "uniform", 1.0, runs=20, seed=1)
    assert uni.flagged_per_run == 0 and math.isnan(uni.precision) and uni.recall == 0
    assert "no trace" in uni.sentence()


def test_repeat_inference_counts_rows_of_a_track():
    r = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 3.0], [np.nan, np.nan]])
    assert repeat_inference(r, [1, 2]) == (2, 1, 2)


def test_averaging_attack_matches_the_rice_limit_and_skip_offset():
    """Uniform: the simulated mean error (400 runs, seed 7) is within 10 % of the Rice
    mean once many points are averaged; Skip converges to the offset of the repeated
    point instead of the true place."""
    lat = 48.85 + np.r_[np.zeros(20), np.linspace(0.001, 0.01, 10)]
    lon = 2.35 + np.r_[np.zeros(20), np.linspace(0.001, 0.01, 10)]
    lat[:20] += np.linspace(0, 1e-4, 20)
    lat[4] += 0.002  # the last point before the stay is about 220 m away
    stay = list(range(5, 20))
    res = averaging_attack(lat, lon, stay, stay, scheme="uniform", epsilon=1.0, radius=50.0,
                           days=(30, 365), runs=400, seed=7)
    assert np.allclose(res.simulated_mean, res.rice_mean, rtol=0.1)
    assert res.simulated_mean[1] < res.simulated_mean[0]
    skip = averaging_attack(lat, lon, stay, stay, scheme="skip", epsilon=1.0, radius=50.0,
                            days=(365,), runs=200, seed=7)
    # every stay point repeats the point at t=4, ~220 m from the centroid; one day's
    # noise (σ₁ = √3·50 m) averaged over 365 days is ~5 m
    assert skip.offset_m > 200
    assert skip.simulated_mean[0] == pytest.approx(skip.offset_m, rel=0.05)
    withheld = averaging_attack(lat, lon, list(range(20)), list(range(20)), scheme="skip",
                                epsilon=1.0, radius=50.0)
    assert withheld.withheld and "Nothing" in withheld.sentence()


@settings(max_examples=60, deadline=None)
@given(e=st.floats(1e-4, 3), k=st.integers(1, 10_000), d=st.floats(1e-12, 0.5))
def test_advanced_composition_formula_and_inverse(e, k, d):
    adv = advanced_composition(e, k, d)
    assert adv == pytest.approx(math.sqrt(2 * k * math.log(1 / d)) * e + k * e * math.expm1(e))
    assert basic_composition(e, k) == pytest.approx(k * e)
    total = basic_composition(e, k)
    res = per_release_epsilon(total, k, d)
    assert res["basic"] == pytest.approx(e)
    assert advanced_composition(res["advanced"], k, d) == pytest.approx(total, rel=1e-9)
    assert res["epsilon"] == max(res["basic"], res["advanced"])


def test_schedule_words():
    s = schedule_summary(0.1, 52)
    d = s.to_dict()
    assert d["recurring_basic"] == pytest.approx(5.2)
    assert d["recurring_best"] == min(d["recurring_basic"], d["recurring_advanced"])
    assert any("recurs" in t for t in s.sentences())
    with pytest.raises(InputError):
        schedule_summary(0.1, 0)
    with pytest.raises(InputError):
        per_release_epsilon(1.0, 10, delta=1.0)


def test_cli_solve_attack_compose(tmp_path):
    series = tmp_path / "s.csv"
    series.write_text("time,value\n" + "".join(f"{t},{t % 5}\n" for t in range(40)))
    p = run_cli("solve-epsilon", "--input", str(series), "--landmarks", "3,7", "--within", "1",
                "--probability", "0.9", "--schemes", "uniform,user", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    uni = out["solutions"][0]
    assert uni["scheme"] == "uniform"
    assert uni["epsilon"] == pytest.approx(3 * math.log(10), rel=1e-8)
    p = run_cli("attack", "--input", str(series), "--landmarks", "3,7", "--epsilon", "1",
                "--scheme", "skip", "--runs", "5", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    # Skip's approximations carry fresh noise: nothing repeats, nothing is flagged
    assert out["repeat_inference"]["recall"] == 0.0
    assert out["posterior_bound"] == pytest.approx(0.1 * math.e / (0.9 + 0.1 * math.e))
    p = run_cli("compose", "--releases", "52", "--target", "5", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["best"] == "advanced"
    for bad in (["solve-epsilon", "--input", str(series), "--within", "1", "--mean-error", "1"],
                ["compose", "--releases", "0", "--epsilon", "1"],
                ["attack", "--input", str(series), "--epsilon", "1", "--stay", "0-3"]):
        p = run_cli(*bad)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_report_and_release_note_say_what_an_attacker_learns():
    from lmdk_core.files.config import ViewConfig
    from lmdk_core.report import build_report
    from lmdk_core.report.release_note import build_release_note

    cfg = ViewConfig(scheme="skip", seed=3, landmarks=[27, 28, 85, 86, 139])
    html = build_report(cfg)
    assert "What an attacker learns" in html
    # Skip's approximations carry fresh noise: no repeated value points at a landmark
    assert "No released value repeats the previous one" in html
    note = build_release_note(ViewConfig(scheme="skip", seed=3, landmarks=[27, 28, 85, 86, 139]))
    assert "What an attacker can learn" in note and "more certain" in note
    assert "of them are landmarks" not in note  # the public note never points at L
    rows = dict(risk_statements(1.0))
    assert "prior 10% → at most 23.2%" in rows["Posterior bounds"]
