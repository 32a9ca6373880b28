"""The Adaptive scheme (Katsomallos et al., CODASPY 2022): one reference, fast variants.

* :mod:`~lmdk_core.adaptive.reference` — the definition, readable, with its randomness
  as a parameter (:class:`Draws`);
* :mod:`~lmdk_core.adaptive.rules` — its update rules (sampling, feedback, budget
  hand-over), each written once and called by every variant below;
* :mod:`~lmdk_core.adaptive.loop` — the engine's loop: the reference with O(1)
  bookkeeping, for every mechanism;
* :mod:`~lmdk_core.adaptive.series_kernel` — Laplace on a series, compiled (where it
  pays);
* :mod:`~lmdk_core.adaptive.replay_loop` — Laplace on a series where the compiled loop
  does not pay: the engine's loop on the generator's doubles drawn in bulk;
* :mod:`~lmdk_core.adaptive.planar_kernel` — Planar Laplace on a trajectory, compiled;
* :mod:`~lmdk_core.adaptive.block_kernel` — Laplace over a block of users (the
  population's lockstep release, numpy noise drawn ahead), compiled (where it pays);
* :mod:`~lmdk_core.adaptive.exact_draws` — exact values drawn in batches;
* :mod:`~lmdk_core.foundation.compiled_paths` — when a compiled kernel pays;
* the population's lockstep release over many users is
  :func:`lmdk_core.population.lockstep.lockstep_release`.

Every variant is tested bit for bit against the reference (tests/engine/test_adaptive_bitwise.py).
:func:`adaptive_run` picks the variant from the mechanism's declared capabilities
(``numpy_draws``, ``noise``, ``exact_sampler``), never from its class.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.adaptive.exact_draws import BatchedExactDraws
from lmdk_core.adaptive.loop import adaptive_publications
from lmdk_core.adaptive.planar_kernel import adaptive_planar
from lmdk_core.adaptive.reference import (
    Draws,
    GeneratorDraws,
    PresampledDraws,
    adaptive_reference,
)
from lmdk_core.adaptive.replay_loop import adaptive_laplace_replayed
from lmdk_core.adaptive.series_kernel import adaptive_laplace
from lmdk_core.adaptive.settings import AdaptiveSettings
from lmdk_core.mechanisms.base import Mechanism

__all__ = ["AdaptiveSettings", "Draws", "GeneratorDraws", "PresampledDraws", "adaptive_reference",
           "adaptive_run", "engine_draws"]


def engine_draws(mech: Mechanism, values: np.ndarray, is_lm: np.ndarray,
                 gen: np.random.Generator) -> Draws:
    """The draws of the engine's loop: batched exact values for an exact mechanism
    (:class:`BatchedExactDraws`), else the mechanism's own draws from ``gen``."""
    if mech.noise == "exact" and mech.exact_sampler is not None:
        return BatchedExactDraws(mech, values, is_lm, gen)
    return GeneratorDraws(mech, gen)


def adaptive_run(values: np.ndarray, is_lm: np.ndarray, *, start: float, mech: Mechanism,
                 gen: np.random.Generator, settings: AdaptiveSettings):
    """Adaptive on ``values`` from the constant budget ``start`` with the fastest
    variant that applies. Returns ``("release", (released, spent, published, pub_t,
    pub_eps, errors))`` when a kernel produced the whole release (the trajectory
    kernel), else ``("publications", (pub_t, pub_out, pub_eps))``."""
    # the kernels' one parameter c of the noise scale c/ε, read through the interface
    if mech.numpy_draws == "planar" and values.ndim == 2:
        full = adaptive_planar(values, is_lm, V=start, radius=float(mech.scale(1.0)), gen=gen,
                               settings=settings)
        if full is not None:
            return "release", full
    if mech.numpy_draws == "laplace" and values.ndim == 1:
        sens = float(mech.scale(1.0))
        fast = adaptive_laplace(values, is_lm, V=start, sensitivity=sens, gen=gen,
                                settings=settings)
        if fast is None:  # not compiled here: the engine's loop on doubles drawn in bulk
            fast = adaptive_laplace_replayed(values, is_lm, V=start, sensitivity=sens, gen=gen,
                                             settings=settings)
        if fast is not None:
            return "publications", fast
    draws = engine_draws(mech, values, is_lm, gen)
    return "publications", adaptive_publications(values, is_lm, start=start, mech=mech, draws=draws,
                                                 settings=settings)
