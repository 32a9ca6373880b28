"""When a compiled (numba) kernel runs: numba loaded only when a kernel pays.

Adaptive's kernels (:mod:`~lmdk_core.adaptive.series_kernel`,
:mod:`~lmdk_core.adaptive.planar_kernel`), the exact discrete Laplace sampler
(:mod:`~lmdk_core.mechanisms.discrete_laplace`) and the loss function
(:mod:`~lmdk_core.leakage.loss`) choose their path with these rules. A compiled kernel
gives the same result as the Python loop, bit for bit, at a small fraction of its cost
per step, but its first use in a process pays a one-off load: importing numba and
loading the kernel from numba's on-disk cache (compiling it when the cache is missing).
So the choice is a comparison of two cost curves, not a fixed length:

* once a kernel is loaded, it runs at every length where it beats the Python loop,
  ``T·(python − compiled) > overhead`` (a few dozen steps);
* before that, it is loaded when ``T·(python − compiled)`` plus what the Python loop
  has already cost this process exceeds the load — for one release, the length where
  the curves cross; in a long-running process (the app), once the Python loop has cost
  as much as loading would (ski rental: never more than twice the best choice made
  with hindsight). The load is counted without numba's import when numba is already
  imported.

Then a release's cost grows with T: below the crossing the Python loop's
``T·python``, above it ``load + T·compiled``, equal at the crossing; the benchmark
(benchmarks/bench_adaptive.py) prints the curve. The per-step costs are measured on
this project's 2-core machine (they vary with the machine, their ratios much less).
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["KernelCost", "PathChooser", "compile_with_helpers", "helpers_stamp",
           "import_numba", "lazy_njit", "worth_compiling"]

#: seconds to import numba (measured 0.3–0.35 s)
NUMBA_IMPORT_S = 0.33


@dataclass(frozen=True)
class KernelCost:
    """Measured costs of one Adaptive path: seconds per step of the Python loop and of
    the compiled kernel, the kernel's one-off load (from numba's cache, numba already
    imported) and its fixed overhead per call once loaded."""

    python_s: float
    compiled_s: float
    load_s: float
    overhead_s: float = 5e-5


def worth_compiling(T: int, cost: KernelCost, loaded: bool, spent: float = 0.0) -> bool:
    """Whether the compiled kernel is cheaper than the Python loop for T steps, counting
    its load when it is not ``loaded`` yet, less the ``spent`` seconds the Python loop
    has already cost this process (see the module docstring)."""
    saving = T * (cost.python_s - cost.compiled_s)
    if loaded:
        return saving > cost.overhead_s
    load = cost.load_s + (0.0 if "numba" in sys.modules else NUMBA_IMPORT_S)
    return saving + spent > load


class PathChooser:
    """One kernel's choice between the compiled kernel and the Python loop in this
    process (:func:`worth_compiling`), remembering the seconds the Python loop has run
    instead so far (``python_spent``), so a long-running process loads the kernel once
    the loop has cost as much as loading it would."""

    def __init__(self, cost: KernelCost) -> None:
        self.cost = cost
        self.python_spent = 0.0

    def would_compile(self, T: int, loaded: bool) -> bool:
        """Whether a release of T steps would take the compiled kernel now."""
        return worth_compiling(T, self.cost, loaded, self.python_spent)

    def use_compiled(self, T: int, loaded: bool, force: bool | None = None) -> bool:
        """Choose for a release of T steps (``force``: the tests' and benchmarks'
        override); a choice of the Python loop adds its estimated cost to
        ``python_spent``."""
        use = self.would_compile(T, loaded) if force is None else force
        if not use:
            self.python_spent += T * self.cost.python_s
        return use


def lazy_njit() -> Callable | None:
    """numba's ``njit`` (importing numba now, :func:`import_numba`), or None when numba
    is not installed."""
    try:
        return import_numba().njit
    except ImportError:  # pragma: no cover - numba is a dependency
        return None


def import_numba():
    """numba, imported, with its probe for a BLAS skipped: the only import of numba in
    this package (raises ImportError without numba).

    When numba loads its first compiled function (from its cache too), it imports
    ``numba.np.arraymath``, which asks whether ``np.dot`` may call BLAS by importing
    ``scipy.linalg.cython_blas`` — all of ``scipy.linalg``: 0.3–0.4 s of CPU in a
    fresh process on this project's machine, half of a batch worker's kernel load. None
    of this package's kernels calls BLAS (no ``np.dot``, ``@`` or ``np.linalg`` in
    compiled code), so this loads ``numba.np.arraymath`` first, under numba's compiler
    lock, with numba's ``ensure_blas`` answering "no BLAS" for that one probe, then puts
    ``ensure_blas`` back: numba then runs the inner products of ``np.correlate`` /
    ``np.convolve`` with its own loop, and a later ``np.dot`` in compiled code imports
    SciPy's BLAS as usual (tests/engine/test_numba_import.py). Nothing changes when
    ``numba.np.arraymath`` or ``scipy.linalg`` is imported already."""
    import numba

    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return numba
    import numba.np.linalg as numba_linalg
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:
        if "numba.np.arraymath" in sys.modules:  # pragma: no cover - another thread
            return numba
        ensure_blas = numba_linalg.ensure_blas

        def no_blas() -> None:
            raise ImportError("numba's BLAS probe skipped (no kernel here calls BLAS)")

        numba_linalg.ensure_blas = no_blas
        try:
            import numba.np.arraymath as arraymath
        finally:
            numba_linalg.ensure_blas = ensure_blas
        arraymath.ensure_blas = ensure_blas
    return numba


#: the plain-Python helpers made callable from compiled code so far (numba registers a
#: function once)
_JITABLE: set[Callable] = set()


def helpers_stamp(helpers: Sequence[Callable]) -> str:
    """A digest of the helpers' source code (their bytecode where the source is not
    available): it changes whenever one of them is edited."""
    digest = hashlib.sha256()
    for fn in helpers:
        try:
            digest.update(inspect.getsource(fn).encode())
        except (OSError, TypeError):  # pragma: no cover - installed without sources
            digest.update(fn.__code__.co_code)
    return digest.hexdigest()


def compile_with_helpers(build: Callable[[str], Callable], helpers: Sequence[Callable],
                         **options) -> Callable | None:
    """A compiled kernel that calls plain-Python ``helpers`` (Adaptive's rules,
    :mod:`lmdk_core.adaptive.rules`): the helpers are made callable from compiled code
    (numba's ``register_jitable``: compiled into the kernel, still plain Python
    elsewhere), then ``njit(cache=True, **options)`` compiles ``build(stamp)``, or loads
    it from numba's on-disk cache. None without numba.

    numba's cache notices edits of the kernel's own file only, not of the functions it
    calls in other modules; so ``build`` returns the kernel as a closure over ``stamp``
    (:func:`helpers_stamp`), which the kernel mentions: numba keys its cache on a
    closure's values, and an edited rule compiles anew instead of loading a kernel built
    on the old one."""
    njit = lazy_njit()
    if njit is None:  # pragma: no cover - numba is a dependency
        return None
    from numba.extending import register_jitable

    for fn in helpers:
        if fn not in _JITABLE:
            register_jitable(fn)
            _JITABLE.add(fn)
    return njit(cache=True, **options)(build(helpers_stamp(helpers)))
