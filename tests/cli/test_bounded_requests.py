"""Every count, range and probability the command line takes has a stated range (the
app's setting table, lmdk_core/foundation/setting_limits.py; listed in docs/bad-input.md) and is
refused at once with it; overflows are refused, never answered with null or inf; the
verifier refuses a total ε below the smallest one a release accepts; the inverse of
advanced composition is within a few ulps of the exact root and never above the target
(60-digit decimal arithmetic as the oracle)."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.decision.attacker import certainty_sentence, posterior_bound
from lmdk_core.decision.composition import (
    advanced_composition,
    per_release_epsilon,
    schedule_summary,
)
from lmdk_core.engine.verifier import EPSILON_MIN, tolerance, verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.setting_limits import LIMITS, check_setting
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def series(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("b") / "s.csv"
    p.write_text("time,value\n" + "".join(f"{t},{t % 5}\n" for t in range(20)))
    return str(p)


@pytest.fixture(scope="module")
def track(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("t") / "t.csv"
    p.write_text("time,lat,lon\n" + "".join(f"{t},{48 + t * 1e-4},{2 + t * 1e-4}\n"
                                            for t in range(30)))
    return str(p)


# option, value, table entry (its range must be in the message)
BAD = [
    ("solve-epsilon", "--runs", "10000000", "runs"),
    ("solve-epsilon", "--runs", "1", "runs"),
    ("solve-epsilon", "--within", "1e308", "accuracy_bound"),
    ("solve-epsilon", "--within", "nan", "accuracy_bound"),
    ("solve-epsilon", "--sensitivity", "1e308", "sensitivity"),
    ("solve-epsilon", "--probability", "1", "probability"),
    ("solve-epsilon", "--probability", "nan", "probability"),
    ("solve-epsilon", "--window", "0", "window"),
    ("solve-epsilon", "--seed", "-1", "seed"),
    ("attack", "--runs", "100000000", "runs"),
    ("attack", "--prior", "nan", "prior"),
    ("attack", "--prior", "1.5", "prior"),
    ("attack", "--leakage", "inf", "privacy_loss"),
    ("attack", "--leakage", "800", "privacy_loss"),
    ("attack", "--epsilon", "1e308", "epsilon"),
    ("compose", "--epsilon", "1e308", "epsilon"),
    ("compose", "--target", "1e308", "total_epsilon"),
    ("compose", "--releases", "100000000", "releases"),
    ("compose", "--delta", "0", "delta"),
]


@pytest.mark.parametrize("command,option,value,name", BAD)
def test_every_bound_is_refused_at_once_with_its_range(series, command, option, value, name):
    base = {"solve-epsilon": ["--input", series, "--within", "1"],
            "attack": ["--input", series, "--epsilon", "1"],
            "compose": ["--releases", "3", "--epsilon", "1"]}[command]
    args = [command, *base]
    if option in args:  # replace the base's value
        i = args.index(option)
        args[i + 1] = value
    else:
        args += [option, value]
    if command == "compose" and option == "--target":
        args.remove("--epsilon")
        args.remove("1")
    p = run_cli(*args)
    assert p.returncode == 2, (args, p.stdout)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert option in lines[0] and LIMITS[name].describe() in lines[0], lines[0]


@pytest.mark.parametrize("args,option,name", [
    (["leakage", "--backward", "{pb}", "--epsilon", "1e308", "--length", "5"], "--epsilon",
     "privacy_loss"),
    (["leakage", "--backward", "{pb}", "--epsilon", "1", "--length", "5", "--landmarks", "1",
      "--total-epsilon", "1e308"], "--total-epsilon", "total_epsilon"),
    (["calibrate", "--matrix", "{pb}", "--target", "1e308", "--length", "5"], "--target",
     "privacy_loss"),
    (["supremum", "--matrix", "{pb}", "--epsilon", "1e308"], "--epsilon", "privacy_loss"),
    (["loss", "--matrix", "{pb}", "--alpha", "1,1e308"], "--alpha", "privacy_loss"),
])
def test_leakage_tools_refuse_losses_that_would_overflow(args, option, name):
    # before: 'tpl' came back as null (1e308 + 1e308 overflows)
    pb = str(ROOT / "examples" / "PB.csv")
    p = run_cli(*[a.replace("{pb}", pb) for a in args], "--json")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert option in p.stderr and LIMITS[name].describe() in p.stderr, p.stderr


def test_leakage_allocation_budgets_are_bounded(tmp_path):
    alloc = tmp_path / "a.csv"
    alloc.write_text("epsilon_t\n1\n1e308\n1\n")
    p = run_cli("leakage", "--backward", str(ROOT / "examples" / "PB.csv"), "--allocation",
                str(alloc), "--json")
    assert p.returncode == 2 and "at most 700" in p.stderr, p.stdout + p.stderr


def test_ranges_beyond_the_data_are_refused_before_they_are_expanded(series, track):
    for args, words in [
        (["solve-epsilon", "--input", series, "--within", "1", "--landmarks", "0-10000000"],
         "timestamps run from 0 to 19"),
        (["solve-epsilon", "--input", series, "--within", "1", "--landmarks", "3,20"],
         "timestamp 20 is outside"),
        (["attack", "--input", track, "--epsilon", "1", "--radius", "100",
          "--stay", "0-10000000"], "timestamps run from 0 to 29"),
        (["attack", "--input", track, "--epsilon", "1", "--radius", "100", "--stay", "5-9",
          "--days", "1,10000000000"], LIMITS["days"].describe()),
        (["attack", "--input", track, "--epsilon", "1", "--radius", "100", "--stay", "5-9",
          "--days", "1,x"], "not a whole number"),
    ]:
        p = run_cli(*args)
        assert p.returncode == 2, args
        assert len(p.stderr.strip().splitlines()) == 1 and words in p.stderr, p.stderr


def test_the_limits_inside_the_ranges_are_answered(series, track):
    p = run_cli("attack", "--input", track, "--epsilon", "1", "--radius", "100",
                "--stay", "0-29", "--days", "1,100000", "--runs", "2", "--seed", "3",
                "--prior", "1", "--leakage", "700", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["certainty_factor"] == pytest.approx(math.exp(700.0), rel=1e-15)
    assert out["posterior_bound"] == 1.0
    assert all(np.isfinite(out["averaging"]["mean_error_m"]))
    p = run_cli("compose", "--releases", "10000000", "--epsilon", "100", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert None not in d.values() and d["recurring_basic"] == 1e9


def test_overflow_in_the_engine_is_refused_not_answered_as_inf():
    with pytest.raises(InputError, match="overflows"):
        advanced_composition(1e308, 3)
    with pytest.raises(InputError, match="overflows"):
        schedule_summary(800.0, 2)
    with pytest.raises(InputError, match="prior"):
        posterior_bound(float("nan"), 1.0)
    with pytest.raises(InputError, match="privacy loss"):
        posterior_bound(0.1, float("nan"))
    with pytest.raises(InputError):
        certainty_sentence(float("nan"), 0.1)


def test_check_setting_names_the_option_it_was_given_as():
    with pytest.raises(InputError, match=r"^--runs must be a whole number from 2 to 10,000; "):
        check_setting("runs", 10**7, label="--runs")


# ------------------------------------------------------------------ verifier at tiny ε
@pytest.mark.parametrize("eps", [5e-324, 1e-310, 2.2e-308, 9.9e-301])
def test_allocate_and_check_refuse_below_the_smallest_budget(tmp_path, eps):
    # the command line takes the app's ε range (0.001 to 100), the same as every release
    rng = LIMITS["epsilon"].describe()
    p = run_cli("allocate", "--length", "5", "--landmarks", "1,2,3", "--epsilon", repr(eps),
                "--scheme", "event")
    assert p.returncode == 2 and f"--epsilon must be {rng}" in p.stderr, p.stdout + p.stderr
    alloc = tmp_path / "a.csv"
    alloc.write_text("epsilon_t\n" + f"{eps}\n" * 5)
    p = run_cli("check", "--allocation", str(alloc), "--landmarks", "1,2,3", "--epsilon",
                repr(eps))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert f"--epsilon must be {rng}" in p.stderr
    # the engine's verifier (used by the app and the batch) refuses below EPSILON_MIN
    with pytest.raises(InputError, match="smallest total budget"):
        verify([eps] * 5, [1, 2, 3], eps)


def test_event_level_with_landmarks_is_never_certified_at_any_accepted_epsilon():
    # at ε = 5e-324 an allowance of 4 ulps per term would be 4·ε, and ε·4 ≤ ε + tol
    for eps in [EPSILON_MIN, 1e-299, 1e-200, 1.0, 1e300]:
        v = verify([eps] * 5, [1, 2, 3], eps)
        assert not v.private, eps
        # the allowance is a tiny fraction of ε wherever ε is accepted
        assert v.tolerance <= 4 * 4 * 2.0**-52 * eps


@pytest.mark.parametrize("n", [1, 2, 10, 1000, 1_000_001])
def test_the_rounding_allowance_is_a_small_fraction_of_every_accepted_epsilon(n):
    for eps in [EPSILON_MIN, np.nextafter(EPSILON_MIN, 1), 1e-150, 1.0, 1e300]:
        assert tolerance(eps, n) <= n * 2.0**-49 * eps


# ------------------------------------------------------------------ inverse composition
def _advanced_exact(e: float, k: int, d: float) -> Decimal:
    """√(2k·ln(1/δ'))·ε + k·ε·(e^ε − 1) in 60-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 60
        E = Decimal(e)
        if e < 1e-12:  # e^ε − 1 by its series (cancellation-free)
            em1 = E + E * E / 2 + E**3 / 6 + E**4 / 24
        else:
            em1 = E.exp() - 1
        return (2 * k * (1 / Decimal(d)).ln()).sqrt() * E + k * E * em1


@settings(max_examples=150, deadline=None)
@given(total=st.floats(1e-3, 1e9), k=st.integers(1, 10**7),
       d=st.sampled_from([1e-100, 1e-12, 1e-6, 0.01, 0.5]))
def test_inverse_advanced_composition_is_exact_to_a_few_ulps_and_never_above(total, k, d):
    adv = per_release_epsilon(total, k, d)["advanced"]
    assert _advanced_exact(adv, k, d) <= Decimal(total)
    # a few ulps further is above the target: the answer is the root to the last ulps
    up = adv
    for _ in range(24):
        up = float(np.nextafter(up, math.inf))
    assert _advanced_exact(up, k, d) > Decimal(total), (total, k, d, adv)


def test_inverse_advanced_composition_regression_cases():
    # cases where a root finder overshoots easily (rel. 1.7e-8 over the target)
    for total, k, d in [(10.0, 365, 1e-6), (5.0, 52, 1e-6), (1e-3, 10**7, 1e-100),
                        (1e9, 1, 0.5), (0.5, 2, 0.01), (3.0, 1000, 1e-12)]:
        adv = per_release_epsilon(total, k, d)["advanced"]
        assert _advanced_exact(adv, k, d) <= Decimal(total)
        assert _advanced_exact(adv * (1 + 2.0**-48), k, d) > Decimal(total)


@settings(max_examples=100, deadline=None)
@given(total=st.floats(1e-3, 1e9), k=st.integers(1, 10**7))
def test_inverse_basic_composition_never_exceeds_the_target(total, k):
    from fractions import Fraction

    basic = per_release_epsilon(total, k)["basic"]
    assert Fraction(basic) * k <= Fraction(total)
    assert Fraction(float(np.nextafter(basic, math.inf))) * k > Fraction(total)


def test_words_say_sufficient_not_if_and_only_if():
    for path in ["docs/definitions.md", "docs/privacy-model.md", "docs/stays.md",
                 "lmdk_core/engine/verifier.py", "README.md",
                 "lmdk_core/decision/verdict.py", "lmdk_core/report/__init__.py",
                 "lmdk_core/report/release_note.py",
                 "lmdk_core/report/templates/report.html.j2"]:
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(r"(private|privacy)\*{0,2}\s+(iff|if and only if)", text), path
    assert "sufficient" in (ROOT / "docs/definitions.md").read_text(encoding="utf-8")
    assert "sufficient" in (ROOT / "lmdk_core/engine/verifier.py").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the Map's landmark table
@pytest.mark.parametrize("edits,field,range_words", [
    ({"edited_rows": {"x": {"t": 4}}}, "row `x`", "rows 0 to 2"),
    ({"edited_rows": {"0": {"t": 1e9}}}, "field 't'", "from 0 to 19"),
    ({"edited_rows": {"0": {"t": float("nan")}}}, "field 't'", "from 0 to 19"),
    ({"edited_rows": {"0": {"t": True}}}, "field 't'", "from 0 to 19"),
    ({"edited_rows": {"0": {"t": "1e400"}}}, "field 't'", "from 0 to 19"),
    ({"added_rows": [{"t": True}]}, "field 't'", "from 0 to 19"),
    ({"added_rows": [{"t": 1e9}]}, "field 't'", "from 0 to 19"),
    ({"edited_rows": {"1": {"keep": "no"}}}, "field 'keep'", "true or false"),
    ({"edited_rows": {"1": {"keep": 0}}}, "field 'keep'", "true or false"),
    ({"edited_rows": {"1": {"lat": 5.0}}}, "field `lat`", "edit 't' or 'keep'"),
    ({"edited_rows": {"7": {"t": 4}}}, "row `7`", "rows 0 to 2"),
    ({"deleted_rows": ["x"]}, "row `x`", "rows 0 to 2"),
    ({"added_rows": ["x"]}, "new row 1", "field values"),
    ("junk", "edits", "nothing changed"),
])
def test_forged_table_messages_are_refused_with_field_and_range(edits, field, range_words):
    from app_support.track_session import apply_table_edits

    new, notes = apply_table_edits([3, 7, 9], edits, 20)
    assert new == [3, 7, 9]  # nothing taken, nothing lost (True is not landmark 1)
    assert len(notes) == 1 and field in notes[0] and range_words in notes[0], notes


def test_the_bad_input_page_lists_every_bound_of_the_table():
    text = (ROOT / "docs/bad-input.md").read_text(encoding="utf-8")
    for lim in LIMITS.values():
        assert f"| `{lim.name}` | {lim.describe()} |" in text, lim.name
    assert f"at least {EPSILON_MIN:g}" in text


def test_the_map_shows_a_refused_table_edit_as_an_error():
    from tests.conftest import open_page

    at = open_page("map")
    at.session_state["track_table_notes"] = [
        "row 0, field 't' must be a whole number from 0 to 295 (a timestamp of this "
        "track); got t=1e+09"]
    at.run()
    assert not at.exception
    assert any("Not applied" in e.value and "from 0 to 295" in e.value for e in at.error), \
        [e.value for e in at.error]


# ------------------------------------------------------------------ every numeric option
def _numeric_options() -> list[tuple[str, str, str]]:
    """(command, option, setting) of every option of every sub-command with a type."""
    import argparse

    from lmdk_core.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for command, sp in sub.choices.items():
        for action in sp._actions:
            if action.type is not None:
                out.append((command, action.option_strings[-1],
                            getattr(action.type, "setting", None)))
    return out


NUMERIC = _numeric_options()


def test_every_numeric_option_of_every_command_is_on_the_table():
    assert len(NUMERIC) >= 50  # allocate … explore: the walk really found the options
    unbounded = [(c, o) for c, o, s in NUMERIC if s not in LIMITS]
    assert not unbounded, unbounded
    # the ones the issue named, by name
    have = {(c, o) for c, o, _ in NUMERIC}
    for c, o in [("release", "--sensitivity"), ("geo-release", "--radius"),
                 ("geo-release", "--window"), ("dummies", "--max-options"),
                 ("suggest", "--k"), ("batch", "--workers"), ("allocate", "--window"),
                 ("allocate", "--length"), ("explore", "--port")]:
        assert (c, o) in have, (c, o)


def _outside(name: str) -> list[str]:
    """Texts just outside each bound of LIMITS[name], and the overflows."""
    lim = LIMITS[name]
    if lim.whole:
        edges = [str(int(lim.low) - 1), str(int(lim.high) + 1)]
    else:
        edges = [repr(float(np.nextafter(lim.low, -math.inf))),
                 repr(float(np.nextafter(lim.high, math.inf)))]
    return [*edges, "1e308", "-1e308", "inf", "-inf", "nan", "1e400"]


@pytest.mark.parametrize("command,option,name", NUMERIC)
def test_every_numeric_option_refuses_values_outside_its_range(capsys, command, option, name):
    from lmdk_core.cli import main

    for text in _outside(name):
        # the value is refused while the command line is parsed, before anything else
        # (the required options are missing on purpose: the range comes first)
        assert main([command, f"{option}={text}"]) == 2, (command, option, text)
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert err[0].startswith(f"lmdk: error: {option} must be {LIMITS[name].describe()}"), \
            (text, err[0])


@pytest.mark.parametrize("command,option,name", NUMERIC)
def test_every_numeric_option_takes_its_bounds_and_its_default(command, option, name):
    import argparse

    from lmdk_core.cli import build_parser

    lim = LIMITS[name]
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    action = next(a for a in sub.choices[command]._actions
                  if a.option_strings and a.option_strings[-1] == option)
    for bound in (lim.low, lim.high):
        text = str(int(bound)) if lim.whole else repr(float(bound))
        assert action.type(text) == bound
    if action.default is not None:
        assert lim.low <= action.default <= lim.high, (command, option, action.default)
    # `lmdk COMMAND --help` states the range after the option's help
    help_text = " ".join(sub.choices[command].format_help().split())
    assert lim.describe() in help_text, (command, option)


def test_the_bounds_themselves_are_answered_end_to_end(series, tmp_path):
    for args in [
        ["allocate", "--length", "1", "--epsilon", "0.001", "--json"],
        ["allocate", "--length", "4", "--epsilon", "100", "--scheme", "w-event",
         "--window", "100000", "--json"],
        ["release", "--input", series, "--epsilon", "100", "--sensitivity", "1e9",
         "--seed", str(2**128 - 1), "--noise", "fast", "--output", str(tmp_path / "o.csv")],
        ["release", "--input", series, "--epsilon", "0.001", "--sensitivity", "0.001",
         "--seed", "0", "--noise", "fast", "--output", str(tmp_path / "o.csv")],
        ["dummies", "--length", "6", "--landmarks", "2", "--epsilon", "0.01",
         "--sensitivity", "0.001", "--max-options", "1", "--seed", "0", "--json"],
        ["dummies", "--length", "6", "--landmarks", "2", "--epsilon", "1000",
         "--sensitivity", "1e9", "--max-options", "1000000", "--seed", "0", "--json"],
        ["suggest", "--input", series, "--window", "3", "--k", "0.5", "--json"],
        ["suggest", "--input", series, "--window", "10000", "--k", "50", "--json"],
    ]:
        p = run_cli(*args)
        assert p.returncode == 0, (args, p.stderr)
        assert "null" not in p.stdout and "Infinity" not in p.stdout and "NaN" not in p.stdout


def test_the_table_length_is_the_engine_length():
    from lmdk_core.foundation.validation import MAX_LENGTH

    assert LIMITS["length"].high == MAX_LENGTH


@pytest.mark.parametrize("page,key,name", [
    ("timeline", "dev_window", "spike_window"),
    ("timeline", "dev_k", "spike_k"),
    ("dummies", "dl_eps_sel", "selection_epsilon"),
])
def test_the_app_widgets_take_the_command_lines_ranges(page, key, name):
    from tests.conftest import open_page

    at = open_page(page)
    assert not at.exception
    widget = at.number_input(key=key)
    assert (widget.min, widget.max) == (LIMITS[name].low, LIMITS[name].high)


@pytest.mark.parametrize("key,value,name", [
    ("window", 2, "spike_window"), ("window", 10**9, "spike_window"),
    ("k", 1e308, "spike_k"), ("k", float("nan"), "spike_k"),
    ("distance_m", 10_001, "stay_distance"), ("distance_m", float("inf"), "stay_distance"),
    ("duration_min", 0.5, "stay_minutes"), ("duration_min", True, "stay_minutes"),
])
def test_a_batch_configurations_discovery_takes_the_same_ranges(key, value, name):
    # before: any positive number was taken (a window of 10⁹, k = 1e308)
    from lmdk_core.population.landmarks import DiscoverySettings

    with pytest.raises(InputError, match=re.escape(
            f"config: extra.discovery.{key} must be {LIMITS[name].describe()}")):
        DiscoverySettings.from_extra({"discovery": {key: value}})
    top = {"window": 10_000, "k": 50.0, "distance_m": 10_000.0, "duration_min": 1440.0}
    assert DiscoverySettings.from_extra({"discovery": top}).window == 10_000
