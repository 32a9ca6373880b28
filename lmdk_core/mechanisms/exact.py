"""Laplace and Geometric mechanisms drawn with OpenDP's exact samplers.

:class:`ExactLaplace` and :class:`ExactGeometric` are :class:`Laplace` and
:class:`Geometric` with the same parameters, usable ranges (``check_budget``), expected
errors and distances, but their noise comes from OpenDP's measurements applied **to the
values themselves** (:mod:`lmdk_core.mechanisms.exact_noise`): textbook floating-point
Laplace noise is not differentially private (Mironov, "On significance of the least
significant bits for differential privacy", CCS 2012); OpenDP's samplers are.

OpenDP draws from OS entropy, so the ``rng`` argument of :meth:`perturb` and
:meth:`perturb_one` is accepted (the release engine passes its generator) but does not
affect the noise; such a release cannot be reproduced from a seed. These are the
mechanisms of every publishable output; the exploration views keep numpy's samplers
for speed and reproducibility. There is no exact sampler for Planar Laplace here (the
discretisation of Andrés et al., CCS 2013, is not implemented).
"""

from __future__ import annotations

import numpy as np

from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME
from lmdk_core.mechanisms.geometric import Geometric
from lmdk_core.mechanisms.laplace import Laplace

__all__ = ["ExactGeometric", "ExactLaplace"]


class ExactLaplace(Laplace):
    """The Laplace mechanism with OpenDP's exact sampler (``values + Lap(Δf/ε)``)."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME
    numpy_draws = None

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Lap(Δf/ε)`` drawn by OpenDP; ``rng`` is ignored (OS entropy)."""
        return self.exact_sampler(x, self.sensitivity / epsilon)

    def exact(self) -> ExactLaplace:
        """Itself: it already draws with OpenDP."""
        return self

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One value released by OpenDP at budget ``epsilon`` (``gen`` is not used)."""
        return float(self.exact_sampler(np.array([float(value)]), self.sensitivity / epsilon)[0])


class ExactGeometric(Geometric):
    """The two-sided geometric mechanism with OpenDP's exact sampler."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME
    numpy_draws = None

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Z``, Z two-sided geometric of scale Δf/ε drawn by OpenDP (values are
        whole numbers, checked); ``rng`` is ignored (OS entropy)."""
        return self.exact_sampler(x, self.sensitivity / epsilon)

    def exact(self) -> ExactGeometric:
        """Itself: it already draws with OpenDP."""
        return self

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One count released by OpenDP at budget ``epsilon`` (``gen`` is not used)."""
        return float(self.exact_sampler(np.array([float(value)]), self.sensitivity / epsilon)[0])
