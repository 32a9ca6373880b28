"""Adaptive's Python loop on doubles drawn in bulk (lmdk_core.adaptive.replay_loop)
against the engine's loop with the generator's own draws: the same publications, the
same floats, the generator left in the same state — on random series, with every
numpy bit generator, and with a double of exactly 0 (numpy's Laplace sampler draws
again: the replay gives up, untouched, and the engine's loop runs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from lmdk_core.adaptive import adaptive_run
from lmdk_core.adaptive import series_kernel as series_kernel_module
from lmdk_core.adaptive.loop import adaptive_publications
from lmdk_core.adaptive.reference import GeneratorDraws
from lmdk_core.adaptive.replay_loop import adaptive_laplace_replayed
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.engine.allocation import allocate
from lmdk_core.mechanisms import Laplace
from tests.engine.test_adaptive_bitwise import series_case
from tests.engine.test_population_block_kernel import generator_with_zero_at


def _both(x, lm, eps, sens, gen_a, gen_b, adaptive):
    lm = np.asarray(sorted(set(np.asarray(lm, dtype=np.int64).tolist())), dtype=np.int64)
    planned = allocate("adaptive", x.size, lm, eps)
    is_lm = np.zeros(x.size, dtype=bool)
    is_lm[lm] = True
    mech = Laplace(sens)
    ref = adaptive_publications(x, is_lm, start=planned[0], mech=mech,
                                draws=GeneratorDraws(mech, gen_a), settings=adaptive)
    new = adaptive_laplace_replayed(x, is_lm, V=float(planned[0]),
                                    sensitivity=float(mech.scale(1.0)), gen=gen_b,
                                    settings=adaptive)
    return ref, new


def _assert_same(ref, new):
    assert new is not None
    for r, n in zip(ref, new, strict=True):
        r, n = np.asarray(r), np.asarray(n)
        assert r.shape == n.shape and r.tobytes() == n.astype(r.dtype).tobytes()


@settings(max_examples=300, deadline=None)
@given(series_case())
def test_the_replayed_loop_is_the_engine_loop(case):
    x, lm, eps, _, sens, seed, adaptive = case
    ga, gb = np.random.default_rng(seed), np.random.default_rng(seed)
    ref, new = _both(np.asarray(x, dtype=float), lm, eps, sens, ga, gb, adaptive)
    _assert_same(ref, new)
    assert ga.bit_generator.state == gb.bit_generator.state
    assert ga.random() == gb.random()  # and the next draw after it


@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
def test_every_bit_generator(bit_generator):
    x = np.random.default_rng(8).normal(0, 3, 3000)
    make = getattr(np.random, bit_generator)
    for seed, lm in ((1, []), (2, np.arange(0, 3000, 7)), (3, np.arange(3000))):
        ga, gb = np.random.Generator(make(seed)), np.random.Generator(make(seed))
        ref, new = _both(x, lm, 0.7, 1.0, ga, gb, AdaptiveSettings(0.9, 0.1, 0.3))
        _assert_same(ref, new)
        assert ga.random(5).tobytes() == gb.random(5).tobytes()


@pytest.mark.parametrize("at", [0, 1, 2, 7, 40])
def test_a_zero_double_leaves_the_release_to_the_engine_loop(at):
    """A double of exactly 0 among those the release reads: read as a Laplace variate
    (numpy's sampler draws again), None and the generator as it was (the first double
    is the first publication's variate); read as a coin (it publishes), the engine
    loop's release. Either way adaptive_run gives the engine loop's release."""
    x = np.random.default_rng(2).normal(0, 1, 60)
    lm = np.array([5, 6, 30])
    is_lm = np.zeros(x.size, dtype=bool)
    is_lm[lm] = True
    adaptive = AdaptiveSettings(0.8, 0.2, 0.2)
    planned = allocate("adaptive", x.size, lm, 1.0)
    gen = generator_with_zero_at(at)
    before = gen.bit_generator.state
    got = adaptive_laplace_replayed(x, is_lm, V=float(planned[0]), sensitivity=1.0,
                                    gen=gen, settings=adaptive)
    ref_gen, run_gen = generator_with_zero_at(at), generator_with_zero_at(at)
    mech = Laplace(1.0)
    ref = adaptive_publications(x, is_lm, start=planned[0], mech=mech,
                                draws=GeneratorDraws(mech, ref_gen), settings=adaptive)
    if got is None:
        assert gen.bit_generator.state == before
    else:
        _assert_same(ref, got)
        assert gen.bit_generator.state == ref_gen.bit_generator.state
    if at == 0:
        assert got is None
    old = series_kernel_module.FORCE_COMPILED
    series_kernel_module.FORCE_COMPILED = False
    try:
        kind, run = adaptive_run(x, is_lm, start=float(planned[0]), mech=mech, gen=run_gen,
                                 settings=adaptive)
    finally:
        series_kernel_module.FORCE_COMPILED = old
    assert kind == "publications"
    _assert_same(ref, run)
    assert ref_gen.bit_generator.state == run_gen.bit_generator.state


def test_not_a_numpy_generator_is_left_to_the_engine_loop():
    class Other:
        pass
    x = np.zeros(5)
    assert adaptive_laplace_replayed(x, np.zeros(5, bool), V=0.2, sensitivity=1.0,
                                     gen=Other(), settings=AdaptiveSettings()) is None
