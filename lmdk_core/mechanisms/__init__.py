"""Differential-privacy mechanisms, one module each (in the style of IBM's diffprivlib).

Every mechanism is a :class:`Mechanism` (:mod:`lmdk_core.mechanisms.base`: perturb,
scale, expected error, error law, distance, budget range, exact sampler if any), validates
its own parameters and inputs before every draw, takes a seed or a
``numpy.random.Generator``, and is vectorized over a whole series (one ε per element is
allowed). The release engine dispatches on that interface only; docs/privacy-model.md
describes the contract.
"""

from lmdk_core.mechanisms.base import Mechanism
from lmdk_core.mechanisms.exponential import Exponential
from lmdk_core.mechanisms.geometric import Geometric
from lmdk_core.mechanisms.laplace import Laplace
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace
from lmdk_core.mechanisms.randomized_response import RandomizedResponse

__all__ = ["Exponential", "Geometric", "Laplace", "Mechanism", "PlanarLaplace",
           "RandomizedResponse"]
