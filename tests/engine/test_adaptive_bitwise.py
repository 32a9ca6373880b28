"""Every fast variant of Adaptive is bit for bit the reference definition.

The reference is :func:`lmdk_core.adaptive.reference.adaptive_reference` (Katsomallos et
al., CODASPY 2022, as read in docs/definitions.md; readable, O(T) bookkeeping). Hypothesis
compares with it, on random series, tracks, landmark sets, mechanisms and sampling
settings, every variant the engine runs: released values, budgets, published flags and
the generator's state afterwards (the same draws were consumed) must be identical, not
merely close:

* the engine's loop with O(1) bookkeeping (:mod:`lmdk_core.adaptive.loop`), for every
  mechanism;
* the compiled Laplace series kernel (:mod:`lmdk_core.adaptive.series_kernel`), with
  every numpy bit generator;
* the compiled trajectory kernel (:mod:`lmdk_core.adaptive.planar_kernel`), on tracks
  anywhere on Earth and with every numpy bit generator (whole releases: errors too);
* the population's lockstep release over many users
  (:func:`lmdk_core.population.lockstep.lockstep_release`), each user against the
  reference fed with that user's pre-drawn coins and variates;
* the batched exact (OpenDP) draws (:mod:`lmdk_core.adaptive.exact_draws`), with a
  deterministic stand-in for OpenDP's sampler so that both sides can be compared.

``tests/data/adaptive_cases.npz`` stores the public ``release_series`` /
``release_trajectory`` outputs of a handful of seeded cases computed by the original code;
the reference and the engine must both reproduce them (regenerate only deliberately:
``python tests/engine/test_adaptive_bitwise.py``).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.adaptive import exact_draws
from lmdk_core.adaptive import planar_kernel as adaptive_planar_module
from lmdk_core.adaptive import series_kernel as adaptive_laplace_module
from lmdk_core.adaptive.loop import adaptive_publications
from lmdk_core.adaptive.reference import GeneratorDraws, PresampledDraws, adaptive_reference
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.release import (
    AdaptiveSettings,
    _adaptive,
    _assemble_parts,
    release_series,
    release_trajectory,
)
from lmdk_core.foundation.geodesy import WGS84, compiled_geodesic
from lmdk_core.mechanisms import Geometric, Laplace, PlanarLaplace
from lmdk_core.mechanisms.geometric import ExactGeometric
from lmdk_core.mechanisms.laplace import ExactLaplace
from lmdk_core.population.lockstep import lockstep_release

CASES = Path(__file__).parents[1] / "data" / "adaptive_cases.npz"


def _adaptive_reference(values, landmarks, planned, mech, gen, settings):
    """The reference with the engine's single-series draws (one generator, in order)."""
    return adaptive_reference(values, landmarks, planned=planned, mech=mech,
                              draws=GeneratorDraws(mech, gen), settings=settings)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Identical arrays, NaN where NaN (bitwise on the float64 values)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _held(rel) -> np.ndarray:
    """The scheme's own output before the fresh post-processing noise on approximations
    (lmdk_core/engine/repeat_noise.py): the last publication at every timestamp — what
    the stored outputs of the original code hold. Publications carry no extra noise."""
    idx = np.where(rel.published, np.arange(rel.published.size), -1)
    np.maximum.accumulate(idx, out=idx)
    out = rel.released[np.maximum(idx, 0)].copy()
    out[idx < 0] = np.nan
    return out


def _assert_same_release(ref, new) -> None:
    """The released values, budgets and publication flags of ``new`` are the
    reference's, bit for bit."""
    for name, r, n in zip(("released", "epsilon", "published"), ref, new, strict=True):
        assert _same(r, n), f"{name} differs from the reference"


def _compare(values, lm, epsilon, mech, seed, adaptive):
    lm = np.asarray(sorted(set(lm)), dtype=np.int64)
    planned = allocate("adaptive", values.shape[0], lm, epsilon)
    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    ref = _adaptive_reference(values, lm, planned, mech, g1, adaptive)
    new = _adaptive(values, lm, planned, mech, g2, adaptive)
    _assert_same_release(ref, new)
    assert g1.bit_generator.state == g2.bit_generator.state, "different draws consumed"


@contextmanager
def _forced(module, compiled: bool | None):
    """Run a kernel module compiled at every length (True), never (False), or by its
    cost model (None)."""
    old = module.FORCE_COMPILED
    module.FORCE_COMPILED = compiled
    try:
        yield
    finally:
        module.FORCE_COMPILED = old


@st.composite
def adaptive_settings(draw):
    initial = draw(st.sampled_from([1.0, 0.9, 0.5, 0.3]))
    min_rate = draw(st.floats(0.05, initial))
    step = draw(st.sampled_from([0.2, 0.1, 0.3, 0.05, 1.0, 0.37]))
    return AdaptiveSettings(initial_rate=initial, min_rate=min_rate, step=step)


@st.composite
def series_case(draw):
    T = draw(st.integers(1, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["flat", "walk", "steps", "counts"]))
    gen = np.random.default_rng(seed)
    if kind == "flat":
        x = np.full(T, 3.0)
    elif kind == "walk":
        x = np.cumsum(gen.normal(0, draw(st.sampled_from([0.1, 1.0, 20.0])), T))
    elif kind == "steps":
        x = np.repeat(gen.normal(0, 30, T // 10 + 1), 10)[:T]
    else:
        x = gen.poisson(20, T).astype(float)
    n_lm = draw(st.sampled_from([0, 1, 3, T // 10, T // 2, T]))
    lm = gen.choice(T, min(n_lm, T), replace=False)
    eps = draw(st.sampled_from([0.05, 0.5, 1.0, 5.0]))
    mech = draw(st.sampled_from(["laplace", "geometric"]))
    sens = draw(st.sampled_from([1.0, 2.0]))
    return x, lm, eps, mech, sens, seed, draw(adaptive_settings())


@settings(max_examples=300, deadline=None)
@given(series_case())
def test_series_adaptive_matches_the_reference(case):
    x, lm, eps, mech, sens, seed, adaptive = case
    m = Laplace(sens) if mech == "laplace" else Geometric(sens)
    if mech == "geometric":
        x = np.round(x)
    _compare(x, lm, eps, m, seed, adaptive)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 5, 30]),
       adaptive_settings(), st.sampled_from([0.3, 1.0, 4.0]))
def test_trajectory_adaptive_matches_the_reference(T, seed, n_lm, adaptive, eps):
    gen = np.random.default_rng(seed)
    pts = np.column_stack([48.85 + np.cumsum(gen.normal(0, 1e-4, T)),
                           2.35 + np.cumsum(gen.normal(0, 1e-4, T))])
    lm = gen.choice(T, min(n_lm, T), replace=False)
    _compare(pts, lm, eps, PlanarLaplace(100.0), seed, adaptive)


def test_long_series_with_many_landmarks_matches_the_reference():
    """20,000 steps and 207 landmarks: many rate changes and skipped landmarks."""
    x = np.random.default_rng(3).normal(0, 1, 20_000)
    _compare(x, np.arange(0, 20_000, 97), 1.0, Laplace(1.0), 11, AdaptiveSettings())


@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
def test_compiled_series_kernel_with_every_bit_generator(bit_generator):
    """The compiled kernel draws from the caller's bit generator, whichever it is."""
    x = np.random.default_rng(8).normal(0, 3, 3000)
    for seed, lm in ((1, []), (2, np.arange(0, 3000, 7)), (3, np.arange(3000))):
        lm = np.asarray(lm, dtype=np.int64)
        planned = allocate("adaptive", x.size, lm, 0.7)
        make = getattr(np.random, bit_generator)
        g1, g2 = np.random.Generator(make(seed)), np.random.Generator(make(seed))
        ref = _adaptive_reference(x, lm, planned, Laplace(1.0), g1,
                                  AdaptiveSettings(0.9, 0.1, 0.3))
        with _forced(adaptive_laplace_module, True):
            new = _adaptive(x, lm, planned, Laplace(1.0), g2, AdaptiveSettings(0.9, 0.1, 0.3))
        for r, n in zip(ref, new, strict=True):
            assert _same(r, n)
        assert _same_state(g1.bit_generator.state, g2.bit_generator.state)


@settings(max_examples=40, deadline=None)
@given(series_case())
def test_compiled_laplace_loop_matches_the_reference(case):
    """The numba-compiled series kernel on short random cases: the same draws and
    decisions as the reference."""
    x, lm, eps, _, sens, seed, adaptive = case
    with _forced(adaptive_laplace_module, True):
        _compare(x, lm, eps, Laplace(sens), seed, adaptive)


def test_the_cost_model_picks_the_kernel_where_the_curves_cross():
    """Loaded: the kernel at every length where it beats the Python loop. Not loaded:
    only where T·(python − compiled), plus the Python loop's cost so far in the process,
    exceeds the load — so the chosen cost, T·python or load + T·compiled, grows with T."""
    import sys

    from lmdk_core.foundation.compiled_paths import NUMBA_IMPORT_S, KernelCost, worth_compiling

    cost = KernelCost(python_s=2e-6, compiled_s=1e-7, load_s=0.5, overhead_s=5e-5)
    load = cost.load_s + (0.0 if "numba" in sys.modules else NUMBA_IMPORT_S)
    cross = load / (cost.python_s - cost.compiled_s)
    assert worth_compiling(1000, cost, loaded=True)
    assert not worth_compiling(10, cost, loaded=True)
    assert not worth_compiling(int(cross * 0.9), cost, loaded=False)
    assert worth_compiling(int(cross * 1.1), cost, loaded=False)
    assert worth_compiling(1000, cost, loaded=False, spent=load)  # ski rental
    Ts = np.unique(np.geomspace(1, 100 * cross, 400).astype(int))
    chosen = np.array([load + T * cost.compiled_s if worth_compiling(T, cost, False)
                       else T * cost.python_s for T in Ts])
    assert np.all(np.diff(chosen) >= -1e-9)


def _engine_loop(values, lm, planned, mech, gen, adaptive):
    """The engine's O(1) loop with the generator's draws, whatever kernels exist."""
    is_lm = np.zeros(planned.size, dtype=bool)
    is_lm[lm] = True
    parts = adaptive_publications(values, is_lm, start=planned[0], mech=mech,
                                  draws=GeneratorDraws(mech, gen), settings=adaptive)
    return _assemble_parts(values.shape, planned.size, *parts)[:3]


@settings(max_examples=150, deadline=None)
@given(series_case(), st.booleans())
def test_the_engine_loop_matches_the_reference_for_every_mechanism(case, track):
    """The O(1)-bookkeeping loop itself (also for Laplace and Planar Laplace, which
    the engine usually sends to their kernels)."""
    x, lm, eps, mech, sens, seed, adaptive = case
    if track:
        m = PlanarLaplace(50.0 * sens)
        x = np.column_stack([48.85 + x / 1e4, 2.35 - x / 2e4])
    elif mech == "laplace":
        m = Laplace(sens)
    else:
        m, x = Geometric(sens), np.round(x)
    lm = np.asarray(sorted(set(lm)), dtype=np.int64)
    planned = allocate("adaptive", x.shape[0], lm, eps)
    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    ref = _adaptive_reference(x, lm, planned, m, g1, adaptive)
    new = _engine_loop(x, lm, planned, m, g2, adaptive)
    _assert_same_release(ref, new)
    assert g1.bit_generator.state == g2.bit_generator.state


def _planar_path(compiled: bool):
    """Run trajectory releases on the compiled kernel (``compiled=True``, at any length)
    or on the engine's Python loop (``compiled=False``)."""
    return _forced(adaptive_planar_module, compiled)


def test_the_compiled_trajectory_loop_is_available_here():
    """On Linux wheels of pyproj the geodesic routines are reachable, so long trajectories
    do run the compiled loop (it would otherwise fall back silently)."""
    assert compiled_geodesic() is not None
    pts = np.column_stack([np.linspace(10, 11, 50), np.linspace(20, 21, 50)])
    with _planar_path(compiled=True):
        out = adaptive_planar_module.adaptive_planar(
            pts, np.zeros(50, dtype=bool), V=0.02, radius=100.0, gen=np.random.default_rng(0),
            settings=AdaptiveSettings())
    assert out is not None and out[3][0] == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 5, 30]),
       adaptive_settings(), st.sampled_from([0.3, 1.0, 4.0]))
def test_compiled_trajectory_loop_matches_the_reference(T, seed, n_lm, adaptive, eps):
    gen = np.random.default_rng(seed)
    pts = np.column_stack([48.85 + np.cumsum(gen.normal(0, 1e-4, T)),
                           2.35 + np.cumsum(gen.normal(0, 1e-4, T))])
    lm = gen.choice(T, min(n_lm, T), replace=False)
    with _planar_path(compiled=True):
        _compare(pts, lm, eps, PlanarLaplace(100.0), seed, adaptive)


_BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937,
                   np.random.Philox, np.random.SFC64)


@st.composite
def track_case(draw):
    """A track anywhere on Earth (city walks, the antimeridian, the poles, points spread
    over the globe), landmarks, ε, radius, sampling settings and a generator."""
    T = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    gen = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["walk", "antimeridian", "pole", "globe", "still"]))
    if kind == "walk":
        lat = 48.85 + np.cumsum(gen.normal(0, draw(st.sampled_from([1e-6, 1e-4, 1e-2])), T))
        lon = 2.35 + np.cumsum(gen.normal(0, 1e-4, T))
    elif kind == "antimeridian":
        lat = -16.5 + np.cumsum(gen.normal(0, 1e-3, T))
        lon = (179.99 + np.cumsum(gen.normal(0, 1e-2, T)) + 180.0) % 360.0 - 180.0
    elif kind == "pole":
        lat = np.clip(89.99 + np.cumsum(gen.normal(0, 1e-3, T)), -90.0, 90.0)
        lon = gen.uniform(-180, 180, T)
    elif kind == "globe":
        lat = gen.uniform(-90, 90, T)
        lon = gen.uniform(-180, 180, T)
    else:
        lat, lon = np.full(T, -33.86), np.full(T, 151.2)
    lat, lon = np.clip(lat, -90.0, 90.0), np.clip(lon, -180.0, 180.0)
    n_lm = draw(st.sampled_from([0, 1, 3, T // 10, T // 2, T]))
    lm = gen.choice(T, min(n_lm, T), replace=False)
    # small ε and large radii move points by up to thousands of kilometres (whole-Earth
    # and near-antipodal geodesics); large ε by centimetres
    eps = draw(st.sampled_from([1e-4, 0.01, 0.3, 1.0, 4.0, 50.0]))
    radius = draw(st.sampled_from([1.0, 100.0, 5000.0]))
    bit_generator = draw(st.sampled_from(_BIT_GENERATORS))
    return lat, lon, lm, eps, radius, seed, bit_generator, draw(adaptive_settings())


def _same_state(a, b) -> bool:
    """Equal bit-generator states (dicts that may hold arrays, as MT19937's does)."""
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(_same_state(a[k], b[k]) for k in a))
    if isinstance(a, np.ndarray):
        return _same(a, b)
    return a == b


def _release_on(compiled: bool, case):
    lat, lon, lm, eps, radius, seed, bit_generator, adaptive = case
    gen = np.random.Generator(bit_generator(seed))
    with _planar_path(compiled):
        rel = release_trajectory(lat, lon, lm, epsilon=eps, radius=radius, scheme="adaptive",
                                 seed=gen, adaptive=adaptive)
    return rel, gen.bit_generator.state


@settings(max_examples=150, deadline=None)
@given(track_case())
def test_compiled_trajectory_release_matches_the_python_loop(case):
    """The whole public release of the compiled loop is the plain-Python loop's, bit for
    bit: points, budgets, flags, errors, expected errors, verdict, draws consumed."""
    fast, fast_state = _release_on(True, case)
    slow, slow_state = _release_on(False, case)
    for name in ("released", "epsilon_t", "published", "errors", "expected_errors",
                 "planned_epsilon_t"):
        assert _same(getattr(fast, name), getattr(slow, name)), name
    assert fast.verdict.private and slow.verdict.private
    assert fast.metrics() == pytest.approx(slow.metrics(), nan_ok=True)
    assert _same_state(fast_state, slow_state), "different draws consumed"


def test_a_long_track_matches_the_python_loop():
    """A track long enough for the compiled loop by the cost model: the same release as
    the Python loop, bit for bit."""
    T = 50_000
    gen = np.random.default_rng(31)
    lat = 60.17 + np.cumsum(gen.normal(0, 1e-5, T))
    lon = 24.94 + np.cumsum(gen.normal(0, 1e-5, T))
    lm = np.sort(gen.choice(T, T // 500, replace=False))
    case = (lat, lon, lm, 1.0, 100.0, 5, np.random.PCG64, AdaptiveSettings())
    fast, fast_state = _release_on(True, case)
    slow, slow_state = _release_on(False, case)
    for name in ("released", "epsilon_t", "published", "errors", "expected_errors"):
        assert _same(getattr(fast, name), getattr(slow, name)), name
    assert _same_state(fast_state, slow_state)
    gen = np.random.default_rng(5)
    default = release_trajectory(lat, lon, lm, epsilon=1.0, radius=100.0, scheme="adaptive",
                                 seed=gen)
    assert _same(default.released, fast.released) and _same(default.errors, fast.errors)


def test_the_distance_bounds_of_the_compiled_loop_hold():
    """The compiled loop solves the inverse geodesic problem only when the noise scale is
    within [(1−f)·σ, σ] (σ the great-circle distance on the stretched sphere) widened by
    1 mm + 1e-9·σ. pyproj's distances lie inside that interval widened by 1e-7 m only,
    for random, near, nearly coincident, near-antipodal and polar pairs."""
    gen = np.random.default_rng(7)
    n = 20_000
    lat1, lon1 = gen.uniform(-90, 90, n), gen.uniform(-180, 180, n)
    near = gen.normal(0, 1e-2, (2, n))
    tiny = gen.normal(0, 1e-9, (2, n))
    cases = [
        (gen.uniform(-90, 90, n), gen.uniform(-180, 180, n)),
        (lat1 + near[0], lon1 + near[1]),
        (lat1 + tiny[0], lon1 + tiny[1]),
        (-lat1 + gen.normal(0, 0.3, n), lon1 + 180.0 + gen.normal(0, 0.5, n)),
    ]
    a, one_minus_f = WGS84.a, 1.0 - WGS84.f
    direction = adaptive_planar_module._sphere_direction
    angle = adaptive_planar_module._sphere_angle
    for lat2, lon2 in cases:
        lat2 = np.clip(lat2, -90, 90)
        lon2 = (lon2 + 180.0) % 360.0 - 180.0
        s = WGS84.inv(lon1, lat1, lon2, lat2)[2]
        sigma = np.array([a * angle(*direction(p, q, one_minus_f),
                                    *direction(r, t, one_minus_f))
                          for p, q, r, t in zip(lat1[:2000], lon1[:2000], lat2[:2000],
                                                lon2[:2000], strict=True)])
        s = s[:2000]
        assert np.all(s <= sigma + 1e-7)
        assert np.all(one_minus_f * sigma - 1e-7 <= s)


def _stored_cases():
    """(name, kwargs) of the stored cases: series (Laplace, Geometric) and tracks."""
    gen = np.random.default_rng(2024)
    walk = np.cumsum(gen.normal(0, 1, 3000))
    flat = np.full(2000, 5.0)
    counts = gen.poisson(30, 2500).astype(float)
    lat = 48.85 + np.cumsum(gen.normal(0, 1e-4, 1500))
    lon = 2.35 + np.cumsum(gen.normal(0, 1e-4, 1500))
    return [
        ("walk_nolm", dict(kind="series", values=walk, landmarks=[], epsilon=1.0, seed=0,
                           mechanism="laplace", adaptive=AdaptiveSettings())),
        ("walk_lm30", dict(kind="series", values=walk, landmarks=gen.choice(3000, 30, False),
                           epsilon=0.5, seed=1, mechanism="laplace",
                           adaptive=AdaptiveSettings(0.8, 0.1, 0.1))),
        ("flat_lm_every20", dict(kind="series", values=flat, landmarks=np.arange(0, 2000, 20),
                                 epsilon=1.0, seed=5, mechanism="laplace",
                                 adaptive=AdaptiveSettings())),
        ("flat_all_lm", dict(kind="series", values=flat[:300], landmarks=np.arange(300),
                             epsilon=2.0, seed=7, mechanism="laplace",
                             adaptive=AdaptiveSettings(1.0, 0.3, 0.35))),
        ("counts_geometric", dict(kind="series", values=counts,
                                  landmarks=gen.choice(2500, 200, False), epsilon=1.0, seed=9,
                                  mechanism="geometric", adaptive=AdaptiveSettings(0.5, 0.2, 0.2))),
        ("track_lm10", dict(kind="track", lat=lat, lon=lon, landmarks=gen.choice(1500, 10, False),
                            epsilon=1.0, seed=3, adaptive=AdaptiveSettings())),
        ("track_lm300", dict(kind="track", lat=lat, lon=lon,
                             landmarks=gen.choice(1500, 300, False), epsilon=2.0, seed=4,
                             adaptive=AdaptiveSettings(1.0, 0.1, 0.25))),
    ]


def _run_case(case: dict):
    c = dict(case)
    if c.pop("kind") == "series":
        return release_series(c["values"], c["landmarks"], epsilon=c["epsilon"], scheme="adaptive",
                              mechanism=c["mechanism"], seed=c["seed"], adaptive=c["adaptive"])
    return release_trajectory(c["lat"], c["lon"], c["landmarks"], epsilon=c["epsilon"],
                              radius=100.0, scheme="adaptive", seed=c["seed"],
                              adaptive=c["adaptive"])


@pytest.mark.parametrize("name,case", _stored_cases(), ids=[n for n, _ in _stored_cases()])
def test_stored_outputs_of_the_original_code(name, case):
    stored = np.load(CASES)
    rel = _run_case(case)
    assert _same(_held(rel), stored[f"{name}_released"])
    assert _same(rel.epsilon_t, stored[f"{name}_epsilon"])
    assert _same(rel.published, stored[f"{name}_published"])


_TRACK_CASES = [(n, c) for n, c in _stored_cases() if c["kind"] == "track"]


@pytest.mark.parametrize("name,case", _TRACK_CASES, ids=[n for n, _ in _TRACK_CASES])
def test_stored_track_outputs_on_the_compiled_loop(name, case):
    """The stored tracks are shorter than the compiled loop's threshold; forced onto it
    they give the stored outputs too."""
    stored = np.load(CASES)
    with _planar_path(compiled=True):
        rel = _run_case(case)
    assert _same(_held(rel), stored[f"{name}_released"])
    assert _same(rel.epsilon_t, stored[f"{name}_epsilon"])
    assert _same(rel.published, stored[f"{name}_published"])


@pytest.mark.parametrize("name,case", _stored_cases(), ids=[n for n, _ in _stored_cases()])
def test_the_reference_reproduces_the_stored_outputs(name, case):
    """The reference itself gives the stored outputs of the original code."""
    stored = np.load(CASES)
    c = dict(case)
    if c["kind"] == "series":
        x = np.asarray(c["values"], dtype=float)
        mech = Laplace(1.0) if c["mechanism"] == "laplace" else Geometric(1)
    else:
        x = np.column_stack([c["lat"], c["lon"]])
        mech = PlanarLaplace(100.0)
    lm = np.unique(np.asarray(c["landmarks"], dtype=np.int64))
    planned = allocate("adaptive", x.shape[0], lm, c["epsilon"])
    released, spent, published = _adaptive_reference(
        x, lm, planned, mech, np.random.default_rng(c["seed"]), c["adaptive"])
    assert _same(released, stored[f"{name}_released"])
    assert _same(spent, stored[f"{name}_epsilon"])
    assert _same(published, stored[f"{name}_published"])


# -- the population's lockstep release -------------------------------------------------

@st.composite
def population_case(draw):
    """A few users of different lengths, landmarks, a mechanism, ε and settings."""
    seed = draw(st.integers(0, 2**32 - 1))
    gen = np.random.default_rng(seed)
    U = draw(st.integers(1, 6))
    T = draw(st.integers(1, 120))
    kind = draw(st.sampled_from(["laplace", "geometric", "planar"]))
    lengths = gen.integers(1, T + 1, U)
    density = draw(st.sampled_from([0.0, 0.05, 0.3, 1.0]))
    lm = np.zeros((U, T), dtype=bool)
    if kind == "planar":
        x = np.full((U, T, 2), np.nan)
    else:
        x = np.full((U, T), np.nan)
    for u in range(U):
        n = int(lengths[u])
        walk = np.cumsum(gen.normal(0, draw(st.sampled_from([0.1, 3.0])), n))
        if kind == "planar":
            x[u, :n] = np.column_stack([-33.86 + walk / 1e3, 151.2 + walk / 2e3])
        else:
            x[u, :n] = np.round(walk * 5) if kind == "geometric" else walk
        lm[u, :n] = gen.random(n) < density
    mech = {"laplace": Laplace(draw(st.sampled_from([1.0, 2.5]))), "geometric": Geometric(2),
            "planar": PlanarLaplace(draw(st.sampled_from([20.0, 300.0])))}[kind]
    eps = draw(st.sampled_from([0.1, 1.0, 6.0]))
    return x, lengths, lm, mech, eps, seed, draw(adaptive_settings())


def _user_generators(seed: int, U: int) -> list[np.random.Generator]:
    return [np.random.default_rng([seed, u]) for u in range(U)]


@settings(max_examples=80, deadline=None)
@given(population_case())
def test_lockstep_release_matches_the_reference_for_every_user(case):
    """Each user of the lockstep release (all users in vector steps) is the reference
    fed with that user's pre-drawn coins and standard variates, bit for bit."""
    x, lengths, lm, mech, eps, seed, adaptive = case
    U = lengths.size
    rel = lockstep_release(x, lengths, lm, scheme="adaptive", epsilon=eps, mech=mech,
                           gens=_user_generators(seed, U), noise="fast", adaptive=adaptive)
    for u, gen in enumerate(_user_generators(seed, U)):
        n = int(lengths[u])
        coins = gen.random(n)
        variates = mech.presample(gen, n)
        L = np.flatnonzero(lm[u, :n])
        planned = allocate("adaptive", n, L, eps)
        released, spent, published = adaptive_reference(
            x[u, :n], L, planned=planned, mech=mech, draws=PresampledDraws(mech, coins, variates),
            settings=adaptive)
        assert _same(rel.released[u, :n], released), u
        assert _same(rel.epsilon_t[u, :n], spent), u
        assert _same(rel.published[u, :n], published), u


# -- the batched exact (OpenDP) draws ---------------------------------------------------

def _stand_in(values, scales):
    """A deterministic stand-in for OpenDP's sampler (same signature): the value plus
    its scale times a fixed function of the value, so a value drawn at a wrong scale
    or for another timestamp shows."""
    v = np.asarray(values, dtype=float)
    return v + np.asarray(scales, dtype=float) * np.sin(v * 12.9898 + 78.233)


class _StandInLaplace(ExactLaplace):
    exact_sampler = staticmethod(_stand_in)


class _StandInGeometric(ExactGeometric):
    exact_sampler = staticmethod(lambda v, b: np.round(_stand_in(v, b)))


def _stand_in_case(case):
    """A series case with the stand-in exact sampler: (values, sorted landmarks, planned
    allocation, mechanism, landmark mask, seed, Adaptive settings); whole values for
    Geometric."""
    x, lm, eps, mech, sens, seed, adaptive = case
    m = _StandInLaplace(sens) if mech == "laplace" else _StandInGeometric(sens)
    if mech == "geometric":
        x = np.round(x)
    lm = np.asarray(sorted(set(lm)), dtype=np.int64)
    planned = allocate("adaptive", x.size, lm, eps)
    is_lm = np.zeros(x.size, dtype=bool)
    is_lm[lm] = True
    return x, lm, planned, m, is_lm, seed, adaptive


@settings(max_examples=200, deadline=None)
@given(series_case(), st.sampled_from([1, 2, 16, 1000]))
def test_batched_exact_draws_match_the_reference(case, min_batch):
    """Adaptive with batched exact draws releases at every published t the sampler's
    value of x_t at that t's scale Δf/ε_t — the reference with one call per publication
    — with the same decisions and coins; calls ≤ 1 + |L| + T/MAX_BATCH."""
    x, lm, planned, m, is_lm, seed, adaptive = _stand_in_case(case)
    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    ref = _adaptive_reference(x, lm, planned, m, g1, adaptive)
    old = exact_draws.MIN_BATCH
    exact_draws.MIN_BATCH = min_batch
    try:
        draws = exact_draws.BatchedExactDraws(m, x, is_lm, g2)
        parts = adaptive_publications(x, is_lm, start=planned[0], mech=m, draws=draws,
                                      settings=adaptive)
    finally:
        exact_draws.MIN_BATCH = old
    new = _assemble_parts(x.shape, x.size, *parts)[:3]
    _assert_same_release(ref, new)
    assert g1.bit_generator.state == g2.bit_generator.state
    assert draws.calls <= 1 + lm.size + x.size // exact_draws.MAX_BATCH + 1


class _CoinsAndSampler:
    """Draws of the lockstep's exact path: pre-drawn coins, values from the sampler."""

    def __init__(self, mech, coins):
        self.mech, self.coins = mech, coins

    def coin(self, t):
        return float(self.coins[t])

    def release(self, t, value, epsilon):
        return self.mech.perturb_one(value, epsilon, None)


@settings(max_examples=80, deadline=None)
@given(population_case(), st.sampled_from([1, 16]))
def test_lockstep_exact_batches_match_the_reference_for_every_user(case, min_batch):
    """The lockstep's batched exact draws (stand-in sampler): each user is the reference
    with that user's coins and one sampler call per publication."""
    x, lengths, lm, mech, eps, seed, adaptive = case
    if mech.exact_sampler is None:  # Planar Laplace: no exact sampler, always numpy
        return
    m = _StandInLaplace(mech.sensitivity) if mech.name == "laplace" else _StandInGeometric(2)
    U = lengths.size
    old = exact_draws.MIN_BATCH
    exact_draws.MIN_BATCH = min_batch
    try:
        rel = lockstep_release(x, lengths, lm, scheme="adaptive", epsilon=eps, mech=m,
                               gens=_user_generators(seed, U), noise="exact", adaptive=adaptive)
    finally:
        exact_draws.MIN_BATCH = old
    for u, gen in enumerate(_user_generators(seed, U)):
        n = int(lengths[u])
        L = np.flatnonzero(lm[u, :n])
        planned = allocate("adaptive", n, L, eps)
        released, spent, published = adaptive_reference(
            x[u, :n], L, planned=planned, mech=m, draws=_CoinsAndSampler(m, gen.random(n)),
            settings=adaptive)
        assert _same(rel.released[u, :n], released), u
        assert _same(rel.epsilon_t[u, :n], spent), u
        assert _same(rel.published[u, :n], published), u


@settings(max_examples=200, deadline=None)
@given(series_case())
def test_exact_publications_match_the_reference(case):
    """One user's exact_publications (coins drawn ahead, batches planned by batch_plan,
    stand-in sampler) is the reference with one sampler call per publication, bit for
    bit; at most one batch per landmark plus one."""
    x, lm, planned, m, is_lm, seed, adaptive = _stand_in_case(case)
    coins = np.random.default_rng(seed).random(x.size)
    ref = adaptive_reference(x, lm, planned=planned, mech=m, draws=_CoinsAndSampler(m, coins),
                             settings=adaptive)
    batches = 0
    run = exact_draws.exact_publications(x, is_lm, start=planned[0], mech=m, coins=coins,
                                         settings=adaptive)
    answer = None
    while True:
        try:
            vals, budget = run.send(answer)
        except StopIteration as stop:
            parts = stop.value
            break
        batches += 1
        answer = m.exact_sampler(vals, m.scale(np.full(len(vals), budget)))
    new = _assemble_parts(x.shape, x.size, *parts)[:3]
    _assert_same_release(ref, new)
    assert batches <= 1 + lm.size + x.size // exact_draws.MIN_BATCH


def _publishable(coins, lms, t, end, rate, adaptive):
    """Brute force over every way the rate can move (each publication lowers or raises
    it): the timestamps in (t, end) that can publish before the budget changes (a
    landmark approximated), and the landmarks that publish on every path reaching
    them."""
    can, maybe_skipped = set(), set()
    seen = set()
    stack = [(t + 1, adaptive.lowered(rate)), (t + 1, adaptive.raised(rate))]
    while stack:
        j, r = stack.pop()
        if j >= end or (j, r) in seen:
            continue
        seen.add((j, r))
        if coins[j] < r:
            can.add(j)
            stack += [(j + 1, adaptive.lowered(r)), (j + 1, adaptive.raised(r))]
        elif lms[j]:
            maybe_skipped.add(j)  # the budget changes here: this path ends
        else:
            stack.append((j + 1, r))
    return can, maybe_skipped


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.1, 0.3, 1.0]),
       adaptive_settings(), st.floats(0.0, 1.0))
def test_batch_plan_holds_every_timestamp_that_can_publish(T, seed, density, adaptive, pick):
    """batch_plan against a brute force over every path of the rate: every timestamp
    that can publish at the batch's budget is drawn, and the batch runs past a landmark
    only when that landmark publishes on every path."""
    gen = np.random.default_rng(seed)
    coins = gen.random(T).tolist()
    lms = (gen.random(T) < density).tolist()
    nxt = exact_draws.next_landmarks(np.array(lms)).tolist()
    t = int(gen.integers(0, T))
    rate = adaptive.min_rate + pick * (1.0 - adaptive.min_rate)
    idx, end = exact_draws.batch_plan(coins, lms, nxt, t, rate, adaptive)
    assert idx[0] == t and idx == sorted(set(idx)) and idx[-1] < end <= T
    can, maybe_skipped = _publishable(coins, lms, t, end, rate, adaptive)
    assert can <= set(idx)
    if end > exact_draws.batch_end(t, nxt[t], T):
        # extended from a landmark j with batch_end(j) = end, every landmark after t up
        # to j publishing on every path; the first candidate j bounds them from below
        j = min(k for k in range(t + 1, end) if lms[k]
                and min(T, t + exact_draws.MAX_BATCH, exact_draws.batch_end(k, nxt[k], T)) == end)
        assert not any(lms[k] and k in maybe_skipped for k in range(t + 1, j + 1))


def test_dense_landmark_exact_release_is_the_per_timestamp_definition():
    """The dense case of the exact-noise benchmark (about 50 landmarks per 2,000
    timestamps, 20 users, lockstep release with exact noise): with a deterministic
    stand-in for OpenDP's sampler (same seed → same values), every user's release is the
    reference Adaptive with one sampler draw per publication at its own ε_t, bit for bit;
    fewer values are drawn than there are timestamps, in fewer rounds than landmarks."""
    U, T = 20, 2_000
    gen = np.random.default_rng(5)
    x = np.cumsum(gen.normal(0, 1, (U, T)), axis=1)
    lm = gen.random((U, T)) < 50 / T
    drawn = []

    class Counting(_StandInLaplace):
        exact_sampler = staticmethod(lambda v, b: (drawn.append(np.size(v)),
                                                   _stand_in(v, b))[1])

    m = Counting(1.0)
    rel = lockstep_release(x, np.full(U, T), lm, scheme="adaptive", epsilon=1.0, mech=m,
                           gens=_user_generators(7, U), noise="exact")
    values_drawn, calls = sum(drawn), len(drawn)
    for u, g in enumerate(_user_generators(7, U)):
        L = np.flatnonzero(lm[u])
        planned = allocate("adaptive", T, L, 1.0)
        released, spent, published = adaptive_reference(
            x[u], L, planned=planned, mech=m, draws=_CoinsAndSampler(m, g.random(T)),
            settings=AdaptiveSettings())
        assert _same(rel.released[u], released), u
        assert _same(rel.epsilon_t[u], spent), u
        assert _same(rel.published[u], published), u
    assert int(lm.sum()) > 800
    assert values_drawn < U * T and calls < int(lm.sum())


def test_the_engine_batches_exact_draws():
    """release_series with exact noise runs the batched draws: with 3 landmarks in
    20,000 timestamps the release takes a handful of OpenDP calls, not one per
    publication."""
    from lmdk_core.adaptive import engine_draws

    x = np.zeros(20_000)
    is_lm = np.zeros(x.size, dtype=bool)
    is_lm[[5, 7000, 15000]] = True
    draws = engine_draws(_StandInLaplace(1.0), x, is_lm, np.random.default_rng(0))
    assert isinstance(draws, exact_draws.BatchedExactDraws)
    parts = adaptive_publications(x, is_lm, start=0.25, mech=_StandInLaplace(1.0), draws=draws,
                                  settings=AdaptiveSettings())
    assert len(parts[0]) > 1000 and draws.calls <= 5


if __name__ == "__main__":  # regenerate the stored outputs (only on purpose)
    arrays = {}
    for name, case in _stored_cases():
        rel = _run_case(case)
        arrays[f"{name}_released"] = _held(rel)
        arrays[f"{name}_epsilon"] = rel.epsilon_t
        arrays[f"{name}_published"] = rel.published
    CASES.parent.mkdir(exist_ok=True)
    np.savez_compressed(CASES, **arrays)
    print(f"wrote {CASES}")
