"""What every scalar mechanism drawing with its exact sampler does alike.

Laplace and the two-sided geometric mechanism release ``x + Z`` with noise of scale
``Δf/ε``; their exact variants (``ExactLaplace``, ``ExactGeometric``) draw ``Z`` with
the family's floating-point-safe sampler (:mod:`lmdk_core.mechanisms.exact_noise`:
exact discrete Laplace on a declared grid, Canonne, Kamath and Steinke, NeurIPS 2020,
fed from the operating system's entropy; the answer to Mironov's attack on
floating-point noise, CCS 2012). Only the family's sampler and its name differ, so the
draw, the one-value step of the Adaptive loop and ``exact()`` are written once here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

import numpy as np

from lmdk_core.mechanisms.base import Mechanism

__all__ = ["ExactScaledNoise"]


class ExactScaledNoise(Mechanism):
    """A scalar mechanism ``x + Z``, ``Z`` of scale ``Δf/ε``, drawn by its family's exact
    sampler. Put it first among the bases (``class ExactLaplace(ExactScaledNoise,
    Laplace)``): the family class gives the checks, the laws and the sampler, this
    class the draw."""

    #: which sampler produced the noise (``Release.noise``; the numpy classes: "fast")
    noise: ClassVar[str] = "exact"
    #: no numpy draw sequence to reproduce: the noise is the operating system's
    numpy_draws: ClassVar[str | None] = None
    #: Δf: the family class sets and types it (a float for Laplace, a whole number for
    #: the geometric mechanism)
    sensitivity: Any

    def _exact_draw(self, x: np.ndarray, scales: np.ndarray | float) -> np.ndarray:
        """``x`` released by the family's exact sampler at ``scales`` = Δf/ε."""
        sampler = self.exact_sampler
        if sampler is None:  # a family class without an exact sampler: a wiring error
            raise TypeError(f"{type(self).__name__} has no exact sampler")
        return sampler(x, scales)

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """``x + Z``, ``Z`` of scale Δf/ε drawn exactly; ``rng`` is ignored (OS
        entropy)."""
        return self._exact_draw(x, self.sensitivity / epsilon)

    def exact(self) -> Self:
        """Itself: it already draws exactly."""
        return self

    def perturb_one(self, value: float, epsilon: float, gen: np.random.Generator) -> float:
        """One value released exactly at budget ``epsilon`` (``gen`` is not used)."""
        return float(self._exact_draw(np.array([float(value)]), self.sensitivity / epsilon)[0])
