"""Adaptive's update rules live in one place, lmdk_core/adaptive/rules.py.

Katsomallos et al., CODASPY 2022, the Adaptive scheme: the sampling decision
(``publishes``), the feedback on the sampling rate (``within_noise``,
``rate_after_publication`` and its many-user form ``rates_after_publication``) and the
budget hand-over of an approximated landmark (``handed_on_budget``).

* The rules give the same floats in plain Python, compiled by numba, and element-wise
  on numpy arrays (hypothesis, bit for bit).
* Every variant of Adaptive *calls* them: each rule in turn is replaced, everywhere it
  was imported, by a variant that changes the release, and every variant — the engine's
  loop, the compiled kernels (compiled anew for the variant rule), the exact-noise loop,
  the population's lockstep release with numpy noise (its numpy path and its compiled
  block kernel) and with exact noise — must still be the
  reference bit for bit. A variant that kept its own copy of a rule would follow the
  original rule and fail here.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.adaptive import block_kernel, planar_kernel, rules, series_kernel
from lmdk_core.adaptive.exact_draws import exact_publications
from lmdk_core.adaptive.loop import adaptive_publications
from lmdk_core.adaptive.reference import GeneratorDraws, PresampledDraws, adaptive_reference
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    rates_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.compiled_paths import compile_with_helpers
from lmdk_core.mechanisms import Laplace, PlanarLaplace
from lmdk_core.population.lockstep import lockstep_release
from tests.engine.test_adaptive_bitwise import _CoinsAndSampler as CoinsAndSampler
from tests.engine.test_adaptive_bitwise import _StandInLaplace as StandInLaplace

SCALAR_RULES = (publishes, within_noise, rate_after_publication, handed_on_budget)


def same_float(a, b) -> bool:
    """The same float64, bit for bit (also the sign of zero)."""
    return np.float64(a).tobytes() == np.float64(b).tobytes()


def rules_kernel_for(stamp: str):
    """Every scalar rule called from one compiled function (see compile_with_helpers)."""

    def all_rules(coin, rate, noise_scale, change, within, min_rate, step, budget, skipped,
                  later):
        _ = stamp
        return (publishes(coin, rate), within_noise(noise_scale, change),
                rate_after_publication(rate, within, min_rate, step),
                handed_on_budget(budget, skipped, later))

    return all_rules


def redirect_numba_cache(monkeypatch, folder) -> None:
    """numba's on-disk cache in ``folder`` for the kernels compiled from now on (nothing
    compiled for a test is left beside the sources)."""
    numba_config = pytest.importorskip("numba.core.config")
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(folder))


@pytest.fixture(scope="module")
def compiled_rules(tmp_path_factory):
    """Every scalar rule called from one compiled function."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        redirect_numba_cache(monkeypatch, tmp_path_factory.mktemp("numba"))
        return compile_with_helpers(rules_kernel_for, SCALAR_RULES)


unit = st.floats(0.0, 1.0)
positive = st.floats(1e-300, 1e6)
distance = st.floats(0.0, 1e7)


@settings(max_examples=300, deadline=None)
@given(coin=unit, rate=unit, noise_scale=distance, change=distance, within=st.booleans(),
       min_rate=st.floats(1e-6, 1.0), step=st.floats(1e-6, 1.0), budget=positive,
       skipped=positive, later=st.integers(0, 10**6))
def test_compiled_rules_are_the_python_rules(compiled_rules, coin, rate, noise_scale, change,
                                             within, min_rate, step, budget, skipped, later):
    """The rules compiled into a numba function give the plain-Python floats."""
    got = compiled_rules(coin, rate, noise_scale, change, within, min_rate, step, budget, skipped,
                   later)
    assert got[0] == publishes(coin, rate)
    assert got[1] == within_noise(noise_scale, change)
    assert same_float(got[2], rate_after_publication(rate, within, min_rate, step))
    assert same_float(got[3], handed_on_budget(budget, skipped, later))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(unit, unit, distance, distance, st.booleans(), positive, positive,
                          st.integers(0, 10**6)), min_size=1, max_size=40),
       st.floats(1e-6, 1.0), st.floats(1e-6, 1.0))
def test_the_rules_on_arrays_are_the_scalar_rules(rows, min_rate, step):
    """On numpy arrays (the population's lockstep release) every rule gives, element by
    element, the floats of the scalar rule."""
    coin, rate, noise, change, within, budget, skipped, later = (np.array(c) for c in
                                                                 zip(*rows, strict=True))
    n = len(rows)
    assert list(publishes(coin, rate)) == [publishes(coin[i], rate[i]) for i in range(n)]
    assert list(within_noise(noise, change)) == [within_noise(noise[i], change[i])
                                                 for i in range(n)]
    many = rates_after_publication(rate, within, min_rate, step)
    one = [rate_after_publication(float(rate[i]), bool(within[i]), min_rate, step)
           for i in range(n)]
    assert all(same_float(a, b) for a, b in zip(many, one, strict=True))
    handed = handed_on_budget(budget, skipped, later)
    assert all(same_float(handed[i], handed_on_budget(float(budget[i]), float(skipped[i]),
                                                      int(later[i])))
               for i in range(n))


# -- one source: every variant follows a changed rule -----------------------------------

def slower_sampling(coin, rate):
    """A variant of the sampling rule: half the rate."""
    return coin < 0.5 * rate


def stricter_noise(noise_scale, change):
    """A variant of the feedback's comparison: a third of the noise scale."""
    return noise_scale > 3.0 * change


def uneven_rate(rate, within, min_rate, step):
    """A variant of the rate update: down by two steps, up by half a step."""
    return max(min_rate, rate - 2.0 * step) if within else min(1.0, rate + 0.5 * step)


def uneven_rates(rates, within, min_rate, step):
    """uneven_rate on arrays."""
    return np.where(within, np.maximum(min_rate, rates - 2.0 * step),
                    np.minimum(1.0, rates + 0.5 * step))


def smaller_share(budget, skipped, later_landmarks):
    """A variant of the budget hand-over: one more share than there are takers."""
    return budget + skipped / (later_landmarks + 2)


VARIANTS = {
    "publishes": {"publishes": slower_sampling},
    "within_noise": {"within_noise": stricter_noise},
    "rate_after_publication": {"rate_after_publication": uneven_rate,
                               "rates_after_publication": uneven_rates},
    "handed_on_budget": {"handed_on_budget": smaller_share},
}


def replace_everywhere(monkeypatch, replacements: dict) -> int:
    """Replace each named rule of lmdk_core.adaptive.rules by its variant in the rules
    module and in every lmdk_core module that imported it; the number of bindings
    replaced."""
    count = 0
    for name, variant in replacements.items():
        original = getattr(rules, name)
        for module in list(sys.modules.values()):
            if not getattr(module, "__name__", "").startswith("lmdk_core"):
                continue
            for attr, value in list(vars(module).items()):
                if value is original:
                    monkeypatch.setattr(module, attr, variant)
                    count += 1
    return count


SETTINGS = AdaptiveSettings(initial_rate=0.9, min_rate=0.2, step=0.15)


def series(T: int = 400):
    gen = np.random.default_rng(40)
    x = np.cumsum(gen.normal(0, 1.5, T))
    is_lm = np.zeros(T, dtype=bool)
    is_lm[gen.choice(T, T // 8, replace=False)] = True
    return x, is_lm


def track(T: int = 250):
    gen = np.random.default_rng(41)
    pts = np.column_stack([60.17 + np.cumsum(gen.normal(0, 2e-4, T)),
                           24.94 + np.cumsum(gen.normal(0, 2e-4, T))])
    is_lm = np.zeros(T, dtype=bool)
    is_lm[gen.choice(T, T // 8, replace=False)] = True
    return pts, is_lm


def reference(values, is_lm, mech, draws):
    """(pub_t, published values, their budgets, budgets spent) of the reference."""
    L = np.flatnonzero(is_lm)
    planned = allocate("adaptive", is_lm.size, L, 1.0)
    released, spent, published = adaptive_reference(values, L, planned=planned, mech=mech,
                                                    draws=draws, settings=SETTINGS)
    return np.flatnonzero(published), released[published], spent[published], spent


def start(is_lm):
    return float(allocate("adaptive", is_lm.size, np.flatnonzero(is_lm), 1.0)[0])


def assert_same(ref, pub_t, pub_out, pub_eps, what):
    assert np.array_equal(ref[0], np.asarray(pub_t)), f"{what}: other timestamps published"
    assert np.asarray(pub_out, float).tobytes() == ref[1].tobytes(), f"{what}: values"
    assert np.asarray(pub_eps, float).tobytes() == ref[2].tobytes(), f"{what}: budgets"


def every_variant(values, is_lm, pts, is_lm_track):
    """Each variant of Adaptive checked against the reference on a series and a track;
    returns the references (to compare with the original rules')."""
    mech, planar = Laplace(1.0), PlanarLaplace(80.0)
    ref = reference(values, is_lm, mech, GeneratorDraws(mech, np.random.default_rng(1)))
    loop = adaptive_publications(values, is_lm, start=start(is_lm), mech=mech,
                                 draws=GeneratorDraws(mech, np.random.default_rng(1)),
                                 settings=SETTINGS)
    assert_same(ref, *loop, "engine loop")
    kernel = series_kernel.adaptive_laplace(values, is_lm, V=start(is_lm), sensitivity=1.0,
                                            gen=np.random.default_rng(1),
                                            settings=SETTINGS)
    assert_same(ref, *kernel, "compiled series kernel")

    ref_track = reference(pts, is_lm_track, planar,
                          GeneratorDraws(planar, np.random.default_rng(2)))
    loop = adaptive_publications(pts, is_lm_track, start=start(is_lm_track), mech=planar,
                                 draws=GeneratorDraws(planar, np.random.default_rng(2)),
                                 settings=SETTINGS)
    assert_same(ref_track, *loop, "engine loop on a track")
    released, spent, published, pub_t, pub_eps, _ = planar_kernel.adaptive_planar(
        pts, is_lm_track, V=start(is_lm_track), radius=80.0, gen=np.random.default_rng(2),
        settings=SETTINGS)
    assert_same(ref_track, pub_t, released[published], pub_eps, "compiled trajectory kernel")
    assert spent.tobytes() == ref_track[3].tobytes()

    exact = StandInLaplace(1.0)
    coins = np.random.default_rng(3).random(values.size)
    ref_exact = reference(values, is_lm, exact, CoinsAndSampler(exact, coins))
    run = exact_publications(values, is_lm, start=start(is_lm), mech=exact, coins=coins,
                             settings=SETTINGS)
    answer = None
    while True:
        try:
            vals, budget = run.send(answer)
        except StopIteration as stop:
            assert_same(ref_exact, *stop.value, "exact-noise loop")
            break
        answer = exact.exact_sampler(vals, exact.scale(np.full(len(vals), budget)))

    x2 = np.stack([values, values[::-1]])
    lm2 = np.stack([is_lm, is_lm[::-1]])
    for noise, m, compiled in (("fast", mech, False), ("fast", mech, True),
                               ("exact", exact, None)):
        gens = [np.random.default_rng([4, u]) for u in range(2)]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(block_kernel, "FORCE_COMPILED", compiled)  # numpy path or kernel
            rel = lockstep_release(x2, np.array([values.size] * 2), lm2, scheme="adaptive",
                                   epsilon=1.0, mech=m, gens=gens, noise=noise,
                                   adaptive=SETTINGS)
        for u in range(2):
            gen = np.random.default_rng([4, u])
            coins = gen.random(values.size)
            draws = (PresampledDraws(m, coins, m.presample(gen, values.size))
                     if noise == "fast" else CoinsAndSampler(m, coins))
            ref_u = reference(x2[u], lm2[u], m, draws)
            got = rel.published[u]
            assert_same(ref_u, np.flatnonzero(got), rel.released[u][got], rel.epsilon_t[u][got],
                        f"lockstep ({noise} noise, compiled {compiled}), user {u}")
    return ref, ref_track


@pytest.mark.parametrize("rule", sorted(VARIANTS))
def test_every_variant_follows_a_changed_rule(rule, tmp_path, monkeypatch):
    """With one rule replaced wherever it was imported, the reference changes and every
    variant still equals it: none has a copy of its own (the compiled kernels are
    compiled anew: they take the rules in force when they are built)."""
    values, is_lm = series()
    pts, is_lm_track = track()
    monkeypatch.setattr(series_kernel, "FORCE_COMPILED", True)
    monkeypatch.setattr(planar_kernel, "FORCE_COMPILED", True)
    original = every_variant(values, is_lm, pts, is_lm_track)

    redirect_numba_cache(monkeypatch, tmp_path)
    assert replace_everywhere(monkeypatch, VARIANTS[rule]) >= 2
    monkeypatch.setattr(series_kernel, "_kernel", None)
    monkeypatch.setattr(planar_kernel, "_kernel", None)
    monkeypatch.setattr(block_kernel, "_kernel", None)
    changed = every_variant(values, is_lm, pts, is_lm_track)
    for before, after in zip(original, changed, strict=True):
        assert (not np.array_equal(before[0], after[0])
                or before[2].tobytes() != after[2].tobytes()), f"{rule}'s variant changes nothing"


# -- numba's cache follows an edited rule -----------------------------------------------

RULE_MODULE = '''
def bump(x):
    return x + {increment}
'''

KERNEL_MODULE = '''
from lmdk_core.foundation.compiled_paths import compile_with_helpers
from edited_rule import bump


def build(stamp):
    def kernel(x):
        _ = stamp
        return bump(x)
    return kernel


print(compile_with_helpers(build, (bump,))(1.0))
'''


def test_a_kernel_built_on_an_edited_rule_is_not_loaded_from_the_cache(tmp_path):
    """numba's on-disk cache watches the kernel's own file only; after an edit of a rule
    in another file, the next process compiles the kernel anew instead of loading the one
    built on the old rule (compile_with_helpers keys the cache on the rules' source)."""
    pytest.importorskip("numba")
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "kernel_module.py").write_text(KERNEL_MODULE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    printed = []
    for increment in (1, 2, 2):
        (tmp_path / "edited_rule.py").write_text(RULE_MODULE.format(increment=increment),
                                                 encoding="utf-8")
        out = subprocess.run([sys.executable, str(tmp_path / "kernel_module.py")], env=env,
                             capture_output=True, text=True, check=True)
        printed.append(out.stdout.strip())
    assert printed == ["2.0", "3.0", "3.0"]
    assert len(list((tmp_path / "cache").rglob("*.nbc"))) == 2  # one kernel per rule
