"""The population audit's landmark TPL of many users at once
(:func:`lmdk_core.leakage.tpl_many.max_landmark_tpls`) against the one-user function it
batches (:func:`lmdk_core.leakage.tpl.max_landmark_tpl`): the same float, bit for bit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.leakage import LossFunction, smoothed_matrix, tpl_many
from lmdk_core.leakage.tpl import max_landmark_tpl
from lmdk_core.leakage.tpl_many import max_landmark_tpls


@pytest.fixture(params=["vector", "compiled", "compiled_runs", "one-user segments"])
def _chains_for_any_count(request):
    """The batched segment recursions for any number of problems: numpy's vector chains
    (where they are exact, :func:`~lmdk_core.leakage.vector_chains.numpy_is_libm`) and
    the compiled chains, with the restarted runs as numpy vectors, then both compiled
    (:mod:`~lmdk_core.leakage.restarted_kernel`, where numpy's functions are the C
    library's), each in turn; and the path of a few problems in a process without numba,
    for any number: each problem's segment recursions by the one-user recursion, the
    pruning rounds together (that a few problems take it in a fresh process is tested at
    the end)."""
    if request.param in ("vector", "compiled_runs") and not tpl_many.numpy_is_libm():
        pytest.skip("numpy's expm1/log1p are not the C library's here")
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "one-user segments":
            mp.setattr(tpl_many, "KERNEL_MIN_PROBLEMS", 10**9)
            mp.setattr(tpl_many, "_numba_loaded", lambda: False)
            yield
            return
        mp.setattr(tpl_many, "KERNEL_MIN_PROBLEMS", 0)
        if request.param == "compiled":
            mp.setattr(tpl_many, "numpy_is_libm", lambda: False)
            mp.setattr(tpl_many, "_compiled_runs", lambda: False)
        elif request.param == "compiled_runs":
            mp.setattr(tpl_many, "_compile_chains", lambda steps: True)
            mp.setattr(tpl_many, "_compiled_runs", lambda: True)
        else:
            mp.setattr(tpl_many, "_compile_chains", lambda steps: False)
            mp.setattr(tpl_many, "_compiled_runs", lambda: False)
        yield


def _problem(rng: np.random.Generator, max_T: int):
    n = int(rng.integers(2, 8))
    P = rng.random((n, n)) ** 3
    P /= P.sum(axis=1, keepdims=True)
    lb = LossFunction(P)
    lf = lb if rng.random() < 0.5 else LossFunction(P[rng.permutation(n)])
    T = int(rng.integers(1, max_T))
    lm = np.sort(rng.choice(T, min(T, int(rng.integers(0, 9))), replace=False))
    eps = np.full(T, float(rng.choice([0.01, 0.2, 1.0, 5.0])) / (lm.size + 1))
    eps *= rng.integers(0, 3, T)  # Adaptive-like: skipped (0) and doubled budgets
    return eps, lm, lb, lf


@pytest.mark.usefixtures("_chains_for_any_count")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([30, 400, 3000]))
def test_many_users_equal_one_user_at_a_time_bit_for_bit(seed, users, max_T):
    rng = np.random.default_rng(seed)
    problems = [_problem(rng, max_T) for _ in range(users)]
    got = max_landmark_tpls(problems)
    want = np.array([max_landmark_tpl(*p) for p in problems])
    assert got.tobytes() == want.tobytes()


@pytest.mark.usefixtures("_chains_for_any_count")
def test_shared_loss_zero_loss_and_the_log_branch_fall_back_exactly():
    """A loss function shared by users, an independent model (L = 0, the fallback) and
    budgets large enough for the recursion's log branch (α > 650, the fallback)."""
    L = LossFunction(smoothed_matrix(4, 0.1))
    Z = LossFunction(np.full((3, 3), 1 / 3))
    E = LossFunction(np.eye(3))
    rng = np.random.default_rng(7)
    problems = [(rng.random(500), [3, 200], L, L), (rng.random(50), [], L, L),
                (rng.random(80), [10], Z, Z), (np.full(400, 3.0), [5], E, E),
                (rng.random(60), list(range(60)), L, L), (np.zeros(20), [4], L, L)]
    got = max_landmark_tpls(problems)
    want = np.array([max_landmark_tpl(*p) for p in problems])
    assert got.tobytes() == want.tobytes()
    assert max_landmark_tpls([]).size == 0


def test_a_block_of_users_does_not_load_numba():
    """A population block (here 40 users of 3,000 steps, at least
    :data:`~lmdk_core.leakage.tpl_many.KERNEL_MIN_PROBLEMS`) runs its recursions as numpy
    vectors where they are exact: a batch worker that needs numba for nothing else does
    not load it (0.8 s of CPU per process); the values are the one-user function's."""
    code = ("import sys, numpy as np\n"
            "from lmdk_core.leakage import LossFunction, smoothed_matrix\n"
            "from lmdk_core.leakage.tpl_many import max_landmark_tpls\n"
            "from lmdk_core.leakage.vector_chains import numpy_is_libm\n"
            "rng = np.random.default_rng(5)\n"
            "ps = [(rng.choice([0.0, 0.2, 0.4], 3000), np.sort(rng.choice(3000, 4, False)),"
            " LossFunction(smoothed_matrix(10, s)), LossFunction(smoothed_matrix(10, s / 2)))"
            " for s in rng.uniform(0.01, 1, 40)]\n"
            "got = max_landmark_tpls(ps)\n"
            "print(numpy_is_libm(), 'numba' in sys.modules)\n"
            "from lmdk_core.leakage.tpl import max_landmark_tpl\n"
            "print(got.tobytes() == np.array([max_landmark_tpl(*p) for p in ps]).tobytes())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    if out[0] == "False":
        pytest.skip("numpy's expm1/log1p are not the C library's here: compiled chains")
    assert out[1:] == ["False", "True"]


def test_a_few_problems_do_not_load_numba():
    """``lmdk report``'s calibration advice (4 smoothing variants of one 168-step
    release) runs its segment recursions by the one-user recursion in a fresh process,
    its pruning rounds together: numba (0.5–0.9 s of CPU with the kernel) is not loaded
    for it; the values are the one-user function's."""
    code = ("import sys, numpy as np\n"
            "from lmdk_core.leakage import LossFunction, smoothed_matrix\n"
            "from lmdk_core.leakage.tpl import max_landmark_tpl\n"
            "from lmdk_core.leakage.tpl_many import max_landmark_tpls\n"
            "ps = [(np.full(168, 1 / 6), [27, 28, 85, 86, 139],"
            " LossFunction(smoothed_matrix(10, s)), LossFunction(smoothed_matrix(10, s)))"
            " for s in (1, 0.5, 0.1, 0.01)]\n"
            "got = max_landmark_tpls(ps)\n"
            "same = got.tobytes() == np.array([max_landmark_tpl(*p) for p in ps]).tobytes()\n"
            "print('numba' in sys.modules, same)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_a_worker_of_many_blocks_loads_the_compiled_chains_once_they_pay(monkeypatch):
    """Without a compiled kernel run in the process: the vector chains until their extra
    cost so far (steps × the per-step difference) plus a block's would exceed numba's
    load, then the compiled chains (the ski-rental rule of
    :mod:`lmdk_core.foundation.compiled_paths`)."""
    monkeypatch.setattr(tpl_many, "_chooser", None)
    monkeypatch.setattr(tpl_many, "_chains_loaded", False)
    monkeypatch.setattr(tpl_many, "_numba_loaded", lambda: False)
    block = 2 * 228 * 8_760  # one block's steps: ~0.14 s more as vectors
    choices = [tpl_many._compile_chains(block) for _ in range(12)]
    assert choices[0] is False
    # after (0.45 s [+ 0.33 s of numba's import]) / 0.14 s of blocks: 4 or 6
    assert choices.index(True) in (3, 5)
    monkeypatch.setattr(tpl_many, "_chains_loaded", True)
    assert tpl_many._compile_chains(block)


def test_a_worker_that_loaded_numba_takes_the_compiled_chains_from_its_first_block(
        monkeypatch):
    """A batch worker whose Adaptive blocks ran numba's block kernel: the compiled chains
    load in ~0.01 s, so a block of 228 users × 8,760 hours takes them at once, while a
    small block (40 users × 300 hours: ~0.8 ms saved) still runs as vectors."""
    pytest.importorskip("numba")
    monkeypatch.setattr(tpl_many, "_chooser", None)
    monkeypatch.setattr(tpl_many, "_chains_loaded", False)
    monkeypatch.setattr(tpl_many, "_numba_loaded", lambda: True)
    assert tpl_many._compile_chains(2 * 40 * 300) is False
    assert tpl_many._compile_chains(2 * 228 * 8_760) is True


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20), st.sampled_from([30, 400, 3000]))
def test_compiled_gaps_equal_the_one_user_gaps_bit_for_bit(seed, users, max_T):
    """The shared part of every user's landmark TPL from the compiled chains and the
    compiled bounds (:mod:`lmdk_core.leakage.gaps_kernel`): segment recursions, base,
    regular timestamps, the landmarks around them and the bounds, field by field, as
    :func:`~lmdk_core.leakage.tpl.landmark_gaps` gives them for one user."""
    from lmdk_core.leakage.tpl import landmark_gaps

    rng = np.random.default_rng(seed)
    problems = [_problem(rng, max_T) for _ in range(users)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tpl_many, "KERNEL_MIN_PROBLEMS", 0)
        mp.setattr(tpl_many, "_compile_chains", lambda steps: True)
        got = tpl_many._gaps_and_block(problems)[0]
    assert any(g is not None for g in got) or all(p[2].is_zero for p in problems)
    for p, g in zip(problems, got, strict=True):
        if g is None:  # a zero loss function or the log branch: the one-user path
            continue
        want = landmark_gaps(*p)
        assert np.float64(g.base).tobytes() == np.float64(want.base).tobytes()
        for name in ("sb", "sf", "upper"):
            assert getattr(g, name).tobytes() == getattr(want, name).tobytes(), name
        for name in ("lm", "regular", "prev", "nxt"):
            assert np.array_equal(getattr(g, name), getattr(want, name)), name
            assert getattr(g, name).shape == getattr(want, name).shape
