"""Differential-privacy mechanisms, one module each (in the style of IBM's diffprivlib).

Every mechanism validates its own parameters, takes a seed or a
``numpy.random.Generator``, is vectorized over a whole series (one ε per element is
allowed) and states its expected error.

The numeric mechanisms (:class:`Laplace`, :class:`Geometric`, :class:`PlanarLaplace`)
share one small interface used by the release engine:

* ``perturb(values, epsilon, rng)`` -> noisy values (same shape as ``values``),
* ``expected_error(epsilon)`` -> expected absolute error (MAE, or mean displacement in
  metres) of one noisy release at budget ``epsilon``,
* ``distance(a, b)`` -> the error between two values in the same unit,
* ``check_budget(epsilon)`` -> the budgets as an array if they lie in the mechanism's
  usable range (each module states it), else ``InputError`` naming the range; the
  release engine calls it on the planned allocation before drawing any noise.
"""

from lmdk_core.mechanisms.exponential import Exponential
from lmdk_core.mechanisms.geometric import Geometric
from lmdk_core.mechanisms.laplace import Laplace
from lmdk_core.mechanisms.planar_laplace import PlanarLaplace
from lmdk_core.mechanisms.randomized_response import RandomizedResponse

__all__ = ["Exponential", "Geometric", "Laplace", "PlanarLaplace", "RandomizedResponse"]
