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
from numpy.typing import ArrayLike

from lmdk_core.mechanisms.exact_noise import SAMPLER_NAME, exact_geometric, exact_laplace
from lmdk_core.mechanisms.geometric import Geometric, check_counts
from lmdk_core.mechanisms.laplace import Laplace
from lmdk_core.validation import check_epsilon_array

__all__ = ["ExactGeometric", "ExactLaplace"]


class ExactLaplace(Laplace):
    """The Laplace mechanism with OpenDP's exact sampler (``values + Lap(Δf/ε)``)."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME

    def perturb(
        self,
        values: ArrayLike,
        epsilon: ArrayLike,
        rng: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """``values + Lap(Δf/ε)`` drawn by OpenDP, one ε per element or one for all;
        ``rng`` is ignored (OpenDP uses OS entropy)."""
        x = np.asarray(values, dtype=float)
        eps = check_epsilon_array(epsilon, x.shape[0] if x.ndim else None)
        self.check_budget(eps)
        return exact_laplace(x, self.sensitivity / eps)

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One value released by OpenDP at budget ``epsilon`` (``gen`` is not used)."""
        return float(exact_laplace(np.array([float(value)]), self.sensitivity / epsilon)[0])


class ExactGeometric(Geometric):
    """The two-sided geometric mechanism with OpenDP's exact sampler."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise = "exact"
    sampler = SAMPLER_NAME

    def perturb(
        self,
        values: ArrayLike,
        epsilon: ArrayLike,
        rng: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """``values + Z``, Z two-sided geometric of scale Δf/ε drawn by OpenDP; values must
        be whole numbers; ``rng`` is ignored (OpenDP uses OS entropy)."""
        x = check_counts(values)
        eps = check_epsilon_array(epsilon, x.shape[0] if x.ndim else None)
        self.check_budget(eps)
        return exact_geometric(x, self.sensitivity / eps)

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One count released by OpenDP at budget ``epsilon`` (``gen`` is not used)."""
        return float(exact_geometric(np.array([float(value)]), self.sensitivity / epsilon)[0])
