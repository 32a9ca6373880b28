"""The Adaptive release loop for the Laplace mechanism on a series, compiled with numba.

Katsomallos et al., "Landmark privacy: configurable differential privacy protection for
time series" (CODASPY 2022), Adaptive scheme as defined in
:mod:`lmdk_core.adaptive.reference`, with the Laplace mechanism (Dwork et al., TCC 2006):
at each timestamp a sampling decision (one uniform double ``u < rate``; none at the
first timestamp), a Laplace draw ``x_t + Lap(Δf/ε_t)`` when it publishes, a rate update
after each publication (``Δf/ε_t > |o_t − o_prev|`` lowers it by ``step`` down to
``min_rate``, otherwise it rises by ``step`` up to 1), and a skipped landmark's share
handed to the future (``V ← V + V/(k+1)``, k = landmarks after it; all unspent budgets
are equal, so one number ``V`` is the whole allocation still to come). Those rules are
the functions of :mod:`lmdk_core.adaptive.rules`, compiled into the loop.

It is the engine's loop (:mod:`lmdk_core.adaptive.loop`) with the same draws in the same
order: numba's ``Generator.random`` and ``Generator.laplace`` are line-for-line ports of
numpy's samplers and draw from the caller's bit generator (advancing it), so the release,
the decisions and the generator's state afterwards are bit for bit the reference's
(tested). Where compiling does not pay (:mod:`lmdk_core.foundation.compiled_paths`) the engine's
loop runs instead on the generator's doubles drawn in bulk
(:mod:`lmdk_core.adaptive.replay_loop`) and gives the same release.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.adaptive.publications import Publications
from lmdk_core.adaptive.rules import (
    handed_on_budget,
    publishes,
    rate_after_publication,
    within_noise,
)
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.foundation.compiled_paths import KernelCost, PathChooser, compile_with_helpers

__all__ = ["COST", "adaptive_laplace"]

#: measured seconds per step: the loop that runs instead (the engine's loop on doubles
#: drawn in bulk, :mod:`lmdk_core.adaptive.replay_loop`) ~0.6 µs (0.94 at load 3.7; the
#: engine's loop with a numpy call per draw was ~1.8), compiled ~0.05 µs; loading the
#: compiled loop from numba's cache ~0.45 s (numba imported): they cross near 800,000
#: points in a process that has not loaded it
COST = KernelCost(python_s=0.6e-6, compiled_s=0.05e-6, load_s=0.45)
#: force a path in tests: True (compiled at every length), False (never), None (COST)
FORCE_COMPILED: bool | None = None


def _laplace_steps_for(rules_stamp: str):
    """The release loop, a closure over the stamp of the rules it calls
    (:func:`~lmdk_core.foundation.compiled_paths.compile_with_helpers`)."""

    def laplace_steps(xs, is_lm, n_after, gen, V, sens, rate, lo, step, pub_t, pub_out,
                      pub_eps):
        """Run the whole release; returns the number of publications (``pub_t``,
        ``pub_out`` and ``pub_eps`` hold them). ``n_after`` counts the landmarks from t
        on."""
        _ = rules_stamp  # numba's cache key: a kernel built on other rules is not loaded
        T = xs.size
        b = sens / V  # the noise scale Δf/ε_t, also Laplace's expected error
        n_pub = 0
        last = 0.0
        for t in range(T):
            if is_lm[t]:
                n_after -= 1  # landmarks after t
            if n_pub == 0 or publishes(gen.random(), rate):
                out = xs[t] + gen.laplace(0.0, b)
                if n_pub > 0:
                    rate = rate_after_publication(rate, within_noise(b, abs(out - last)),
                                                  lo, step)
                pub_t[n_pub] = t
                pub_out[n_pub] = out
                pub_eps[n_pub] = V
                n_pub += 1
                last = out
            elif is_lm[t]:
                V = handed_on_budget(V, V, n_after)  # + b/(k+1), k = landmarks after t
                b = sens / V
        return n_pub

    return laplace_steps


_kernel = None
#: the choice between this kernel and the Python loop in this process
_CHOOSER = PathChooser(COST)


def _compiled_kernel():
    """The compiled loop, compiled (or loaded from numba's cache) on first use; None
    without numba."""
    global _kernel
    if _kernel is None:
        _kernel = compile_with_helpers(
            _laplace_steps_for,
            (publishes, within_noise, rate_after_publication, handed_on_budget), nogil=True)
    return _kernel


def adaptive_laplace(x: np.ndarray, is_lm: np.ndarray, *, V: float, sensitivity: float,
                     gen: np.random.Generator, settings: AdaptiveSettings
                     ) -> Publications | None:
    """Run Adaptive with Laplace noise of scale ``sensitivity/ε_t`` on the series ``x``.

    ``V`` is the (constant) starting budget per timestamp; ``settings`` the sampling
    rate's start, floor and step. Returns the published
    timestamps, their released values and their budgets, or None where the compiled loop
    does not apply (it does not pay for this length, no numba, or ``gen`` not a numpy
    Generator); the caller then runs the engine's Python loop, which gives the same
    release.
    """
    T = x.size
    use = _CHOOSER.use_compiled(T, _kernel is not None, FORCE_COMPILED)
    if not use or type(gen) is not np.random.Generator:
        return None
    kernel = _compiled_kernel()
    if kernel is None:  # pragma: no cover - numba is a dependency
        return None
    pub_t = np.empty(T, dtype=np.int64)
    pub_out = np.empty(T)
    pub_eps = np.empty(T)
    n_pub = kernel(np.ascontiguousarray(x, dtype=np.float64),
                   np.ascontiguousarray(is_lm, dtype=np.bool_), int(np.count_nonzero(is_lm)),
                   gen, float(V), float(sensitivity), float(settings.initial_rate),
                   float(settings.min_rate), float(settings.step), pub_t, pub_out, pub_eps)
    return Publications(pub_t[:n_pub], pub_out[:n_pub], pub_eps[:n_pub])
