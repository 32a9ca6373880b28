"""Laplace and Geometric mechanisms drawn with the exact discrete Laplace sampler.

:class:`ExactLaplace` and :class:`ExactGeometric` are :class:`Laplace` and
:class:`Geometric` with the same parameters, usable ranges (``check_budget``), expected
errors and distances, but their noise is exact discrete Laplace noise added **to the
values themselves** on a public grid (:mod:`lmdk_core.mechanisms.exact_noise`): textbook
floating-point Laplace noise is not differentially private (Mironov, "On significance of
the least significant bits for differential privacy", CCS 2012); this sampler is.

The sampler draws from OS entropy, so the ``rng`` argument of :meth:`perturb` and
:meth:`perturb_one` is accepted (the release engine passes its generator) but does not
affect the noise; such a release cannot be reproduced from a seed. These are the
mechanisms of every publishable output; the exploration views keep numpy's samplers
for speed and reproducibility. Planar Laplace's exact counterpart is
:class:`lmdk_core.mechanisms.exact_planar.ExactPlanarLaplace` (a grid and a declared
region, Andrés et al., CCS 2013, §5).
"""

from __future__ import annotations

import numpy as np

from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME
from lmdk_core.mechanisms.geometric import Geometric
from lmdk_core.mechanisms.laplace import Laplace

__all__ = ["ExactGeometric", "ExactLaplace"]


class ExactLaplace(Laplace):
    """The Laplace mechanism with the exact sampler (``values + Lap(Δf/ε)`` on a grid)."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME
    numpy_draws = None

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Lap(Δf/ε)`` drawn exactly; ``rng`` is ignored (OS entropy)."""
        return self.exact_sampler(x, self.sensitivity / epsilon)

    def exact(self) -> ExactLaplace:
        """Itself: it already draws exactly."""
        return self

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One value released exactly at budget ``epsilon`` (``gen`` is not used)."""
        return float(self.exact_sampler(np.array([float(value)]), self.sensitivity / epsilon)[0])


class ExactGeometric(Geometric):
    """The two-sided geometric mechanism with the exact sampler."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME
    numpy_draws = None

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Z``, Z two-sided geometric of scale Δf/ε drawn exactly (values are
        whole numbers, checked); ``rng`` is ignored (OS entropy)."""
        return self.exact_sampler(x, self.sensitivity / epsilon)

    def exact(self) -> ExactGeometric:
        """Itself: it already draws exactly."""
        return self

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One count released exactly at budget ``epsilon`` (``gen`` is not used)."""
        return float(self.exact_sampler(np.array([float(value)]), self.sensitivity / epsilon)[0])
