"""Adaptive over a block of users with numpy's Laplace noise, compiled with numba.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), the Adaptive scheme as defined in
:mod:`lmdk_core.adaptive.reference`, with the Laplace mechanism (Dwork et al., TCC 2006),
over the (U, T_max) block of the population's lockstep release
(:func:`lmdk_core.population.lockstep.lockstep_release`). The numpy path there runs one
vector step per timestamp over the users, ~30 numpy calls each; this kernel runs the
same steps one user after the other, each a few scalar operations, with the rules of
:mod:`lmdk_core.adaptive.rules` compiled into the loop.

**The same floats.** Each user's randomness is drawn ahead from its own stream, in the
order of the numpy path: its ``T_u`` coins (``random()``), then ``T_u`` standard Laplace
variates. numpy's Laplace sampler draws one uniform double U per variate and returns
``0.0 − 1.0·log(2 − U − U)`` (U ≥ ½) or ``0.0 + 1.0·log(U + U)`` (0 < U < ½) with the C
library's ``log`` (:mod:`lmdk_core.adaptive.simulations` replays it the same way), so
:func:`laplace_uniforms` draws the ``T_u`` doubles instead (``random(T_u)``: the same
doubles, the generator left in the same state) and the kernel takes the logarithm only
where the user publishes. A row with a double of exactly 0 (probability 2⁻⁵³ per
double), which numpy's sampler rejects and draws again, is drawn again with numpy's
sampler from the same state and handed to the kernel as variates. Every other
operation is the numpy path's, in its order, on the same IEEE doubles:

* a publication at t releases ``x_t + (Δf/ε_t)·L_t`` (the mechanism's
  ``release_presampled``); after the first, the rate moves by
  :func:`~lmdk_core.adaptive.rules.rate_after_publication` on
  :func:`~lmdk_core.adaptive.rules.within_noise` of the noise scale ``Δf/ε_t`` (the
  expected error) and ``|o_t − o_prev|``;
* an approximation repeats the last publication; at a landmark with k later landmarks
  of the block's row (and t + 1 < T_max) the unspent budget becomes
  :func:`~lmdk_core.adaptive.rules.handed_on_budget` ``(V, V, k)``. The numpy path adds
  the share to every later element of the user's budget row; those elements all hold
  one value V (the start is constant along the row, every share is added to all of
  them alike), so the kernel keeps V alone, as the engine's loop does
  (:mod:`lmdk_core.adaptive.loop`), and the noise scale ``Δf/V`` computed when V
  changes.

The caller checks what this relies on (a constant start per user, zero padding, a
start within [1e-250, 1e250], where no hand-over can reach 0 or overflow, so the numpy
path's budget checks cannot refuse it) and runs the numpy path otherwise.
tests/engine/test_population_block_kernel.py compares the two paths bit for bit.

**When it runs.** numba's import and the first kernel's load from its on-disk cache cost
~0.8 s of CPU in a process that has not loaded numba (the batch's audit loads numba by
default, ``--no-leakage`` does not); the numpy path costs per timestamp a fixed ~15 µs
plus ~0.17 µs per user, the compiled path ~0.03 µs per (user, timestamp), its draws
included. :func:`use_compiled` applies the project's rule
(:func:`lmdk_core.foundation.compiled_paths.worth_compiling`, the block as one step):
once loaded, the kernel runs whenever it saves more than its call; before, when the
block's saving plus what the numpy path has already cost this process exceeds the load
(ski rental: a worker of the batch loads it at its second partition of 228 users ×
8,760 hours, and never pays more than twice what the best choice in hindsight costs).
When the process knows the work ahead — ``lmdk batch`` on its own threads knows the
input's rows before the first block — :func:`expected_cells` counts the numpy path's
estimated cost of those cells as if already spent (the ski rental's length known: buy at
once when renting all of it would cost more than buying), so a batch of 1,000 users ×
8,760 hours loads the kernel at its first block instead of releasing two blocks on
numpy first (one per thread).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.foundation.compiled_paths import KernelCost, compile_with_helpers, worth_compiling

__all__ = ["COMPILED_CELL_S", "LOAD_S", "NUMPY_CELL_S", "NUMPY_STEP_S", "PATH_COUNTS",
           "START_RANGE",
           "BlockNoise", "adaptive_laplace_block", "constant_start", "expected_cells",
           "laplace_uniforms", "numpy_seconds", "use_compiled"]

#: measured seconds of the numpy path (its draws and its loop) per timestamp (~30 numpy
#: calls) and per (user, timestamp) cell, and of the compiled path (its draws and the
#: kernel) per cell: 15 µs + 0.17 µs per user a timestamp against 0.03 µs per cell, a
#: block of 228 users × 8,760 hours 0.47 s against 0.06 s (halved from a run at load
#: 12, where both doubled; docs/performance.md)
NUMPY_STEP_S = 15e-6
NUMPY_CELL_S = 0.17e-6
COMPILED_CELL_S = 0.03e-6
#: the first kernel of a process loaded from numba's on-disk cache, numba imported
#: (numba's compiler set up, then the kernel; ~0.01 s once another kernel is loaded)
LOAD_S = 0.45
#: force a path in tests and benchmarks: True (compiled for every block), False (never),
#: None (the cost model)
FORCE_COMPILED: bool | None = None

#: the seconds the numpy path has run in this process instead of the kernel
_numpy_spent = 0.0
#: the numpy path's estimated seconds of the blocks this process is known to run yet
#: (:func:`expected_cells`)
_numpy_ahead = 0.0
#: one thread loads the kernel while the others wait (threads of one batch)
_load_lock = threading.Lock()
#: blocks released by each path in this process (for the benchmarks)
PATH_COUNTS = {"compiled": 0, "numpy": 0}
_kernel = None


def numpy_seconds(users: int, steps: int) -> float:
    """The numpy path's estimated seconds for a block of ``users`` × ``steps``."""
    return steps * (NUMPY_STEP_S + users * NUMPY_CELL_S)


def use_compiled(users: int, steps: int, force: bool | None = None) -> bool:
    """Whether a block of ``users`` × ``steps`` takes the kernel (``force``: the tests'
    and benchmarks' override); a choice of the numpy path adds its estimated cost to the
    process's total (see the module docstring)."""
    global _numpy_spent
    if force is not None:
        use = force
    else:
        numpy_s = numpy_seconds(users, steps)
        # one "step" of worth_compiling: the whole block, its saving in seconds
        cost = KernelCost(python_s=numpy_s - users * steps * COMPILED_CELL_S,
                          compiled_s=0.0, load_s=LOAD_S)
        use = worth_compiling(1, cost, _kernel is not None,
                              _numpy_spent + _ahead(users, steps))
    if not use:
        _numpy_spent += numpy_seconds(users, steps)
    PATH_COUNTS["compiled" if use else "numpy"] += 1
    return use


def _ahead(users: int, steps: int) -> float:
    """The numpy seconds known to come after this block (:func:`expected_cells`), the
    block's own cells taken off them."""
    global _numpy_ahead
    _numpy_ahead = max(0.0, _numpy_ahead - users * steps * NUMPY_CELL_S)
    return _numpy_ahead


@contextmanager
def expected_cells(cells: int) -> Iterator[None]:
    """Within the block, this process is known to release about ``cells`` (user,
    timestamp) cells of Adaptive series blocks (a batch's rows): their numpy cost, at
    :data:`NUMPY_CELL_S` each (the per-timestamp part left out: a lower bound), counts in
    :func:`use_compiled` as already spent. Only the choice of path changes (the two
    paths give the same floats); the count is dropped on leaving."""
    global _numpy_ahead
    _numpy_ahead += max(0, int(cells)) * NUMPY_CELL_S
    try:
        yield
    finally:
        _numpy_ahead = 0.0


#: the starts (ε/(k+1) per user) the kernel takes: within them no hand-over reaches 0 or
#: overflows (V grows at most (K+1)-fold over K landmarks), so the numpy path's budget
#: checks refuse nothing either
START_RANGE = (1e-250, 1e250)


def constant_start(planned: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Each user's start (U,) when the planned budgets (U, T) are what the kernel relies
    on — one value along each user's timestamps, within :data:`START_RANGE`, 0 on the
    padding — else None (the numpy path runs)."""
    U, T = planned.shape
    if not U or not T:
        return None
    start = planned[:, 0]
    active = np.arange(T)[None, :] < lengths[:, None]
    lo, hi = START_RANGE
    ok = (lengths <= 0) | ((start >= lo) & (start <= hi))
    if not ok.all() or not np.array_equal(planned, np.where(active, start[:, None], 0.0)):
        return None
    return start


class BlockNoise(NamedTuple):
    """Each user's Laplace noise drawn ahead (U, T): a row of ``replay`` True holds the
    uniform doubles numpy's sampler would turn into the variates, a row of ``replay``
    False the variates themselves (:func:`laplace_uniforms`)."""

    values: np.ndarray
    replay: np.ndarray


def laplace_uniforms(gens: Sequence[np.random.Generator], lengths: np.ndarray, T: int,
                     presample: Callable[[np.random.Generator, int], np.ndarray]
                     ) -> tuple[np.ndarray, BlockNoise]:
    """Each user's coins (U, T; row u: ``random(T_u)``) and then the doubles of its
    ``T_u`` standard Laplace variates, drawn from its generator ``gens[u]`` in the order
    of the numpy path (coins first), leaving each generator in the state that the
    variates' draw ``presample(gen, T_u)`` (numpy's ``laplace(0, 1, T_u)``) leaves it in;
    a row with a double of 0 is drawn again by ``presample`` from the same state (see
    the module docstring)."""
    U = len(gens)
    coins = np.zeros((U, T))
    values = np.zeros((U, T))
    replay = np.ones(U, dtype=bool)
    for u, gen in enumerate(gens):
        n = int(lengths[u])
        coins[u, :n] = gen.random(n)
        state = gen.bit_generator.state
        row = gen.random(n)
        if n and not row.min() > 0.0:  # numpy's sampler rejects a 0 and draws again
            gen.bit_generator.state = state
            row = presample(gen, n)
            replay[u] = False
        values[u, :n] = row
    return coins, BlockNoise(values, replay)


def _block_steps_for(rules_stamp: str):
    """The block's loop, a closure over the stamp of the rules it calls
    (:func:`~lmdk_core.foundation.compiled_paths.compile_with_helpers`)."""

    def block_steps(x, lengths, is_lm, coins, noise, replay, start, c, rate0, lo, step,
                    released, spent, published):
        """Every user's release into ``released``, ``spent`` and ``published`` (U, T;
        NaN, 0 and False beforehand)."""
        _ = rules_stamp  # numba's cache key: a kernel built on other rules is not loaded
        U, T = x.shape
        for u in range(U):
            n = lengths[u]
            if n <= 0:
                continue
            after = 0  # landmarks of the row after t (counting t until passed)
            for t in range(T):
                if is_lm[u, t]:
                    after += 1
            V = start[u]
            noise_scale = c / V  # the expected error Δf/ε_t, Laplace's scale
            rate = rate0
            last = 0.0
            for t in range(n):
                if is_lm[u, t]:
                    after -= 1
                if t == 0 or publishes(coins[u, t], rate):
                    if replay[u]:
                        w = noise[u, t]
                        if w >= 0.5:
                            z = 0.0 - 1.0 * math.log(2.0 - w - w)
                        else:
                            z = 0.0 + 1.0 * math.log(w + w)
                    else:
                        z = noise[u, t]
                    out = x[u, t] + (c / V) * z
                    if t > 0:
                        rate = rate_after_publication(
                            rate, within_noise(noise_scale, abs(out - last)), lo, step)
                    released[u, t] = out
                    spent[u, t] = V
                    published[u, t] = True
                    last = out
                else:
                    released[u, t] = last
                    if is_lm[u, t] and t + 1 < T:
                        V = handed_on_budget(V, V, after)  # + b/(k+1), k landmarks after t
                        noise_scale = c / V

    return block_steps


def _compiled_kernel():
    """The compiled loop, compiled (or loaded from numba's cache) on first use; None
    without numba."""
    global _kernel
    with _load_lock:
        if _kernel is None:
            _kernel = compile_with_helpers(
                _block_steps_for,
                (publishes, within_noise, rate_after_publication, handed_on_budget),
                nogil=True, error_model="numpy")
    return _kernel


def adaptive_laplace_block(x: np.ndarray, lengths: np.ndarray, is_lm: np.ndarray,
                           start: np.ndarray, gens: Sequence[np.random.Generator], *,
                           scale_unit: float, settings: AdaptiveSettings,
                           presample: Callable[[np.random.Generator, int], np.ndarray]
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(released, spent, published)`` (U, T) of Adaptive with Laplace noise of scale
    ``scale_unit/ε_t`` for the block ``x`` (U, T; padded beyond ``lengths``), its
    landmark flags ``is_lm`` and each user's constant start ``start`` (U,;
    :func:`constant_start`), drawing each user's coins and noise from ``gens[u]``
    (:func:`laplace_uniforms`; ``presample(gen, n)``: the mechanism's standard variates).
    None without numba, before anything is drawn (the caller runs the numpy path)."""
    kernel = _compiled_kernel()
    if kernel is None:  # pragma: no cover - numba is a dependency
        return None
    U, T = x.shape
    coins, noise = laplace_uniforms(gens, lengths, T, presample)
    released = np.full((U, T), np.nan)
    spent = np.zeros((U, T))
    published = np.zeros((U, T), dtype=np.bool_)
    kernel(np.ascontiguousarray(x, dtype=np.float64),
           np.ascontiguousarray(lengths, dtype=np.int64),
           np.ascontiguousarray(is_lm, dtype=np.bool_), coins, noise.values, noise.replay,
           np.ascontiguousarray(start, dtype=np.float64), float(scale_unit),
           float(settings.initial_rate), float(settings.min_rate), float(settings.step),
           released, spent, published)
    return released, spent, published
