"""The compiled Adaptive block (lmdk_core.adaptive.block_kernel) is the numpy lockstep
path of lmdk_core.population.lockstep, bit for bit.

Katsomallos et al., CODASPY 2022, the Adaptive scheme with numpy's Laplace noise over a
block of users: on random populations (sizes and lengths, landmarks none / sparse /
dense / everywhere, also flagged in the padding, ε, a declared bound k or none, Δf,
the sampling-rate settings, seeds) the kernel and the numpy path give the same released
floats, the same spent budgets, the same publications and leave every user's generator
in the same state (the partition's fresh post-processing noise draws from it next); a
whole partition gives the same publishable rows and the same audit rows (the verifier's
verdicts, the landmark TPL column). A generator whose Laplace part holds a double of
exactly 0 — numpy's sampler rejects it and draws again — is built from PCG64's step
and released on both paths. Every random input is drawn from the seed hypothesis
gives; nothing here is statistical.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.adaptive import block_kernel
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.files.config import ViewConfig
from lmdk_core.mechanisms import Geometric, Laplace, PlanarLaplace
from lmdk_core.population.lockstep import lockstep_release_many, planned_budgets
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.table import PopulationColumns
from tests.engine.test_adaptive_bitwise import adaptive_settings


def _gens(seed: int, U: int) -> list[np.random.Generator]:
    return [np.random.default_rng([seed, u]) for u in range(U)]


def _release(blocks_in, *, force: bool, **kw):
    """The lockstep release of ``blocks_in`` ((x, lengths, landmarks, gens) each) with the
    kernel forced on or off."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(block_kernel, "FORCE_COMPILED", force)
        return lockstep_release_many(blocks_in, scheme="adaptive", noise="fast", **kw)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@st.composite
def block_case(draw):
    """One or two blocks of users: lengths, landmarks (density from none to every
    timestamp; sometimes also flagged in the padding), values, ε, Δf, k, settings."""
    seed = draw(st.integers(0, 2**32 - 1))
    gen = np.random.default_rng(seed)  # the data, not the noise
    density = draw(st.sampled_from([0.0, 0.01, 0.05, 0.3, 1.0]))
    pad_landmarks = draw(st.booleans())
    blocks = []
    most = 0
    for _ in range(draw(st.integers(1, 2))):
        U = draw(st.integers(1, 8))
        T = draw(st.integers(1, 160))
        lengths = gen.integers(1, T + 1, U)
        x = np.full((U, T), np.nan)
        lm = gen.random((U, T)) < density
        for u in range(U):
            n = int(lengths[u])
            x[u, :n] = 10 + np.cumsum(gen.normal(0, draw(st.sampled_from([0.05, 1.0, 20.0])), n))
            if not pad_landmarks:
                lm[u, n:] = False
            most = max(most, int(lm[u].sum()))
        blocks.append((x, lengths, lm))
    k = draw(st.one_of(st.none(), st.integers(0, 3).map(lambda extra: most + extra)))
    return dict(blocks=blocks, seed=seed, k=k,
                epsilon=draw(st.sampled_from([1e-3, 0.1, 1.0, 6.0, 1e3])),
                sensitivity=draw(st.sampled_from([0.5, 1.0, 2.5])),
                adaptive=draw(adaptive_settings()))


@settings(max_examples=150, deadline=None)
@given(block_case())
def test_the_compiled_block_is_the_numpy_path(case):
    """Released floats, spent budgets, publications and the generators' states after
    the release: the same on both paths, for every block of every case."""
    runs = {}
    for force in (False, True):
        blocks_in = [(x, lengths, lm, _gens(case["seed"] + i, lengths.size))
                     for i, (x, lengths, lm) in enumerate(case["blocks"])]
        rels = _release(blocks_in, force=force,
                        epsilon=case["epsilon"], mech=Laplace(case["sensitivity"]),
                        adaptive=case["adaptive"], max_landmarks=case["k"])
        states = [[g.bit_generator.state for g in b[3]] for b in blocks_in]
        runs[force] = (rels, states)
    (numpy_rels, numpy_states), (compiled_rels, compiled_states) = runs[False], runs[True]
    for a, b in zip(numpy_rels, compiled_rels, strict=True):
        assert _same(a.released, b.released)
        assert _same(a.epsilon_t, b.epsilon_t)
        assert _same(a.published, b.published)
    assert numpy_states == compiled_states


def test_a_year_of_hours_is_the_numpy_path():
    """One block of the batch's size class (40 users × 8,760 hours, ~5 landmarks each,
    the benchmark's data) on both paths."""
    gen = np.random.default_rng(8)
    U, T = 40, 8_760
    x = 0.5 + np.abs(gen.normal(0, 0.3, (U, T))) + np.sin(np.arange(T) * 2 * np.pi / 24)
    lm = gen.random((U, T)) < 5 / T
    lengths = np.full(U, T)
    lengths[::7] = gen.integers(1, T, lengths[::7].size)
    rels = [_release([(x, lengths, lm, _gens(3, U))], force=force,
                     epsilon=1.0, mech=Laplace(1.0))[0] for force in (False, True)]
    assert _same(rels[0].released, rels[1].released)
    assert _same(rels[0].epsilon_t, rels[1].epsilon_t)
    assert _same(rels[0].published, rels[1].published)
    assert 0.2 < rels[1].published.mean() < 0.9  # both decisions are taken often


# -- a double of exactly 0 in the Laplace draws -----------------------------------------

#: PCG64's multiplier (O'Neill, "PCG: A Family of Simple Fast Space-Efficient
#: Statistically Good Algorithms for Random Number Generation", 2014; numpy's PCG64)
PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
MASK128 = (1 << 128) - 1


def generator_with_zero_at(index: int, inc: int = 0x5851F42D4C957F2D_14057B7EF767814F | 1
                           ) -> np.random.Generator:
    """A PCG64 generator whose ``index``-th double (0-based) is exactly 0.0: PCG64 steps
    its 128-bit state s ← s·M + inc, then outputs ``rotr(hi ^ lo, s >> 122)``, so a
    state whose halves are equal outputs 0; the start is that state stepped back
    ``index + 1`` times."""
    target = (0x0123456789ABCDEF << 64) | 0x0123456789ABCDEF
    inverse = pow(PCG_MULTIPLIER, -1, 1 << 128)
    state = target
    for _ in range(index + 1):
        state = ((state - inc) * inverse) & MASK128
    bit_generator = np.random.PCG64()
    bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                           "has_uint32": 0, "uinteger": 0}
    return np.random.Generator(bit_generator)


def test_the_zero_generator_draws_a_zero_where_asked():
    gen = generator_with_zero_at(5)
    drawn = gen.random(8)
    assert drawn[5] == 0.0 and (np.delete(drawn, 5) > 0).all()


@pytest.mark.parametrize("at", [0, 3, 29])
def test_a_zero_double_is_drawn_again_as_numpy_does(at):
    """User 1's Laplace part (its doubles after its 30 coins) holds a 0 at ``at``: its
    row is drawn by numpy's sampler from the same state (``replay`` False) and the
    release is the numpy path's, generator state included."""
    U, T = 3, 30
    gen = np.random.default_rng(4)
    x = np.cumsum(gen.normal(0, 1, (U, T)), axis=1)
    lm = gen.random((U, T)) < 0.2
    lengths = np.full(U, T)

    def gens():
        out = _gens(9, U)
        out[1] = generator_with_zero_at(T + at)
        return out

    noise_gens = gens()
    _, noise = block_kernel.laplace_uniforms(noise_gens, lengths, T,
                                             lambda g, n: g.laplace(0.0, 1.0, n))
    assert noise.replay.tolist() == [True, False, True]
    expect = gens()[1]
    expect.random(T)
    assert noise.values[1].tobytes() == expect.laplace(0.0, 1.0, T).tobytes()
    assert noise_gens[1].bit_generator.state == expect.bit_generator.state

    runs = []
    for force in (False, True):
        g = gens()
        rel = _release([(x, lengths, lm, g)], force=force,
                       epsilon=1.0, mech=Laplace(1.0),
                       adaptive=AdaptiveSettings(initial_rate=0.7, min_rate=0.2, step=0.2))[0]
        runs.append((rel, [gg.bit_generator.state for gg in g]))
    (a, sa), (b, sb) = runs
    assert _same(a.released, b.released) and _same(a.epsilon_t, b.epsilon_t)
    assert _same(a.published, b.published) and sa == sb


# -- where the kernel does not apply, the numpy path runs --------------------------------

def test_other_mechanisms_and_tracks_take_the_numpy_path(monkeypatch):
    """Geometric and Planar Laplace (and a start outside the kernel's range) never reach
    the kernel, even forced."""
    called = []
    original = block_kernel.adaptive_laplace_block
    monkeypatch.setattr(block_kernel, "adaptive_laplace_block",
                        lambda *a, **k: called.append(1) or original(*a, **k))
    U, T = 2, 20
    gen = np.random.default_rng(1)
    x = np.round(np.cumsum(gen.normal(0, 3, (U, T)), axis=1))
    pts = np.stack([48.85 + x / 1e4, 2.35 + x / 1e4], axis=2)
    lm = np.zeros((U, T), dtype=bool)
    for mech, values in ((Geometric(2), x), (PlanarLaplace(100.0), pts)):
        _release([(values, np.full(U, T), lm, _gens(1, U))], force=True, epsilon=1.0, mech=mech)
    assert not called
    _release([(x, np.full(U, T), lm, _gens(1, U))], force=True,
             epsilon=1e260, mech=Laplace(1.0))
    assert not called
    _release([(x, np.full(U, T), lm, _gens(1, U))], force=True,
             epsilon=1.0, mech=Laplace(1.0))
    assert called


def test_the_kernel_takes_only_constant_starts_within_range():
    lengths = np.array([3, 1, 4])
    lm = np.zeros((3, 4), dtype=bool)
    planned = planned_budgets("adaptive", lengths, lm, 1.0, window=None)
    start = block_kernel.constant_start(planned, lengths)
    assert start is not None and start.tolist() == [1.0, 1.0, 1.0]
    uneven = planned.copy()
    uneven[0, 2] = 0.5
    assert block_kernel.constant_start(uneven, lengths) is None
    padded = planned.copy()
    padded[1, 3] = 1.0
    assert block_kernel.constant_start(padded, lengths) is None
    assert block_kernel.constant_start(planned * 1e251, lengths) is None
    assert block_kernel.constant_start(planned * 1e-251, lengths) is None


# -- the cost model ----------------------------------------------------------------------

def test_small_blocks_take_the_numpy_path_until_it_has_cost_the_load(monkeypatch):
    """Not loaded: a small block runs on numpy, and the kernel is chosen once the numpy
    path's estimated cost in this process plus the block's saving exceeds the load
    (ski rental); loaded: every block that saves more than a call's overhead."""
    monkeypatch.setattr(block_kernel, "_kernel", None)
    monkeypatch.setattr(block_kernel, "_numpy_spent", 0.0)
    U, T = 5, 500
    assert not block_kernel.use_compiled(1, 1)
    chosen = 0
    while not block_kernel.use_compiled(U, T):
        chosen += 1
    saving = block_kernel.numpy_seconds(U, T) - U * T * block_kernel.COMPILED_CELL_S
    assert block_kernel._numpy_spent + saving > block_kernel.LOAD_S
    assert chosen >= 1
    monkeypatch.setattr(block_kernel, "_kernel", object())
    assert block_kernel.use_compiled(U, T)
    assert not block_kernel.use_compiled(1, 1)


def test_known_work_loads_the_kernel_at_the_first_block(monkeypatch):
    """With the work ahead declared (a batch's rows on its own threads), a block that
    alone would not pay for the load takes the kernel when the declared cells' numpy
    cost does; the declared cells are used up by the blocks run, and dropped on leaving,
    so a later small block is back on the ski-rental rule."""
    monkeypatch.setattr(block_kernel, "_kernel", None)
    monkeypatch.setattr(block_kernel, "_numpy_spent", 0.0)
    U, T = 5, 500
    assert not block_kernel.use_compiled(U, T)
    monkeypatch.setattr(block_kernel, "_numpy_spent", 0.0)
    cells = int(2 * block_kernel.LOAD_S / block_kernel.NUMPY_CELL_S)
    with block_kernel.expected_cells(cells):
        assert block_kernel.use_compiled(U, T)
    assert block_kernel._numpy_ahead == 0.0
    assert not block_kernel.use_compiled(U, T)
    # too little work declared: numpy, and each block takes its own cells off the count
    monkeypatch.setattr(block_kernel, "_numpy_spent", 0.0)
    with block_kernel.expected_cells(U * T):
        assert not block_kernel.use_compiled(U, T)
        assert block_kernel._numpy_ahead == 0.0


def test_batch_on_threads_declares_its_rows(tmp_path, monkeypatch):
    """``lmdk batch`` on its own threads declares the input's rows while its tasks run
    (and a cluster's driver does not: its workers are other processes)."""
    from lmdk_core.population import dask_driver

    seen: list[float] = []
    real = block_kernel.use_compiled

    def spy(users, steps, force=None):
        seen.append(block_kernel._numpy_ahead)
        return real(users, steps, force)

    monkeypatch.setattr(block_kernel, "use_compiled", spy)
    rng = np.random.default_rng(5)  # data, not noise
    n_users, hours = 3, 40
    df = pd.DataFrame({"user": np.repeat(np.arange(n_users), hours),
                       "time": np.tile(np.arange(hours), n_users),
                       "value": rng.normal(size=n_users * hours),
                       "landmark": rng.random(n_users * hours) < 0.1})
    src = tmp_path / "pop.parquet"
    df.to_parquet(src)
    cols = PopulationColumns(user="user", time="time", value="value", landmark="landmark")
    dask_driver.run_batch(ViewConfig(scheme="adaptive"), src, cols, tmp_path / "r.parquet",
                          tmp_path / "a.parquet", seed=1, noise="fast", workers=1,
                          leakage=False)
    assert seen and seen[0] == pytest.approx(n_users * hours * block_kernel.NUMPY_CELL_S)
    assert block_kernel._numpy_ahead == 0.0


# -- a whole partition: publishable rows and audit ----------------------------------------

@st.composite
def partition_case(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    gen = np.random.default_rng(seed)  # the data, not the noise
    users = draw(st.integers(1, 5))
    density = draw(st.sampled_from([0.0, 0.02, 0.2]))
    rows = []
    for u in range(users):
        n = int(gen.integers(2, 90))
        rows.append(pd.DataFrame({"user": u * 11 + 2, "time": np.arange(n) * 3600,
                                  "value": 20 + np.cumsum(gen.normal(0, 2, n)),
                                  "landmark": gen.random(n) < density}))
    df = pd.concat(rows, ignore_index=True)
    most = int(df.groupby("user")["landmark"].sum().max())
    extra = draw(st.sampled_from([{}, {"max_landmarks": most + 2}]))
    cfg = ViewConfig(scheme="adaptive", epsilon=draw(st.sampled_from([0.1, 1.0, 5.0])),
                     sensitivity=draw(st.sampled_from([1.0, 2.0])), extra=extra)
    s = BatchSettings.from_config(cfg, "series", "fast", seed, draw(st.booleans()))
    return df, replace(s, adaptive=draw(adaptive_settings()))


@settings(max_examples=25, deadline=None)
@given(partition_case())
def test_a_partition_releases_and_audits_the_same_on_both_paths(case):
    """``release_partition``: the same publishable rows (rounded, with the fresh noise of
    the repeated values drawn after the release) and the same audit rows (the verifier's
    verdicts and ε totals, the utility and TPL columns) with and without the kernel."""
    df, s = case
    cols = PopulationColumns(user="user", time="time", value="value", landmark="landmark")
    out = []
    for force in (False, True):
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(block_kernel, "FORCE_COMPILED", force)
            out.append(release_partition(df, cols, s))
    pd.testing.assert_frame_equal(out[0].released, out[1].released, check_exact=True)
    pd.testing.assert_frame_equal(out[0].audit, out[1].audit, check_exact=True)
