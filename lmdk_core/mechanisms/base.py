"""The contract every differential-privacy mechanism of the engine implements.

Modelled on diffprivlib's ``DPMechanism`` (Holohan et al., "Diffprivlib: the IBM
differential privacy library", 2019): one abstract base class, the inputs checked before
every draw, and each mechanism stating its error. A mechanism ``M`` releases values at a
per-element budget ε (one ε per element, or one for all); the release engine
(:mod:`lmdk_core.engine.release`, :mod:`lmdk_core.adaptive`, :mod:`lmdk_core.population`) asks it
only what this class declares and never looks at its concrete type:

========================  ================================================================
``perturb(x, ε, rng)``    the released values: ``check_values``, ``check_budget``, then
                          ``_randomise`` (the draw); nothing is drawn from unchecked input
``scale(ε)``              the noise parameter at ε (Laplace ``Δf/ε``, Planar ``r/ε`` …)
``expected_error(ε)``     ``E[d(M(x), x)]`` at ε, in the unit of ``distance``
``error_cdf(δ, ε)``       ``P(d(M(x), x) ≤ δ)``: the exact law of the error
                          (``1 − error_cdf`` is the tail probability)
``distance(a, b)``        how error is measured (absolute difference, metres, mismatch …)
``data_kind``             what a value is: number, count, location, category, choice
``check_budget(ε)``       ε as an array when it lies in the mechanism's usable range,
                          else :class:`~lmdk_core.foundation.errors.InputError` naming the range
``exact_sampler``         the exact (floating-point-safe) sampler of the family,
                          ``f(values, scales)``, or None (no exact sampler); ``exact()``
                          the same mechanism drawing with it; ``noise`` says which
                          sampler ``perturb`` uses
``perturb_one``,          one value / one distance with trusted parameters (the Adaptive
``distance_one``          loop's step, :mod:`lmdk_core.adaptive`)
``numpy_draws``           the name of the numpy draw sequence of ``perturb_one`` (a
                          compiled Adaptive loop reproduces it), None when not numpy's
``presample``,            standard variates drawn ahead and scaled at release (the
``release_presampled``    population's lockstep release); ``can_presample`` says whether
========================  ================================================================

The errors that depend on the data (the Exponential mechanism's utility loss) take the
input as ``values=``, as diffprivlib's ``bias(value)`` does; the others ignore it.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon_array

__all__ = ["Mechanism"]

#: an exact sampler: ``f(values, scales) -> released values`` (see exact_noise)
ExactSampler = Callable[[ArrayLike, ArrayLike], np.ndarray]


class Mechanism(abc.ABC):
    """An ε-differentially private mechanism (see the module docstring for the contract).

    Subclasses set :attr:`name` and :attr:`label` and implement the abstract methods;
    :meth:`perturb` is final: it checks the values and the budgets, then draws.
    """

    #: the key used in settings and files ('laplace', 'planar_laplace', ...)
    name: ClassVar[str]
    #: the name shown to a person
    label: ClassVar[str]
    #: what one released value is: "number", "count", "location" ([lat, lon] rows),
    #: "category" or "choice" (an index into candidates)
    data_kind: ClassVar[str]
    #: which sampler :meth:`perturb` uses: "fast" (numpy, seeded) or "exact"
    #: (:mod:`lmdk_core.mechanisms.exact_noise`, OS entropy)
    noise: ClassVar[str] = "fast"
    #: the exact sampler of this family, ``f(values, scales)``; None if there is none
    #: (an attribute, not a method: a plain function or a bound method of the subclass)
    exact_sampler: ExactSampler | None = None
    #: the numpy draws of :meth:`perturb_one` by name (a compiled Adaptive loop reproduces
    #: them); None when the draws are not numpy's or no compiled loop exists
    numpy_draws: ClassVar[str | None] = None

    # -- releasing -------------------------------------------------------------------

    def perturb(
        self,
        values: ArrayLike,
        epsilon: ArrayLike,
        rng: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """The released values of ``values`` at budget ``epsilon`` (one per element or one
        for all): the inputs are checked (:meth:`check_values`, :meth:`check_budget`)
        before anything is drawn, then :meth:`_randomise` draws."""
        x = self.check_values(values)
        eps = check_epsilon_array(epsilon, self.count(x))
        self.check_budget(eps)
        return self._randomise(x, eps, rng)

    @abc.abstractmethod
    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """The draw, on checked values and budgets (only :meth:`perturb` calls it)."""

    @abc.abstractmethod
    def check_values(self, values: ArrayLike) -> np.ndarray:
        """``values`` as an array this mechanism can release, else InputError."""

    def count(self, x: np.ndarray) -> int | None:
        """How many elements (one ε each) the checked values ``x`` hold; None for a
        single value."""
        return x.shape[0] if x.ndim else None

    @abc.abstractmethod
    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """``epsilon`` as an array of budgets in the usable range, else InputError
        stating the range."""

    # -- describing the noise --------------------------------------------------------

    @abc.abstractmethod
    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """The noise parameter at each budget (the module states its formula)."""

    @abc.abstractmethod
    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """``E[d(M(x), x)]`` at each budget, in the unit of :meth:`distance`."""

    @abc.abstractmethod
    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(d(M(x), x) ≤ d)`` at budget ``epsilon``: the exact law of the error."""

    @abc.abstractmethod
    def distance(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """The error between released and true values, element by element."""

    # -- optional capabilities -------------------------------------------------------

    def exact(self) -> Mechanism | None:
        """This mechanism drawing with the exact sampler (itself if it already
        does), or None when there is no exact sampler."""
        return self if self.noise == "exact" else None

    def perturb_one(self, value, epsilon: float, gen: np.random.Generator):
        """One released value, parameters trusted: the same draws as :meth:`perturb` on
        one element (subclasses override it with a cheaper call)."""
        x = self.check_values(np.asarray([value]))
        return self._randomise(x, np.array([float(epsilon)]), gen)[0]

    def distance_one(self, a, b) -> float:
        """:meth:`distance` of two single values, as a float."""
        return float(np.ravel(self.distance(np.asarray([a]), np.asarray([b])))[0])

    @property
    def can_presample(self) -> bool:
        """Whether :meth:`presample` / :meth:`release_presampled` are available (numpy
        noise only: an exact sampler draws nothing ahead)."""
        return self.noise == "fast" and type(self).presample is not Mechanism.presample

    def presample(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        """``n`` sets of standard variates, drawn ahead of the release."""
        raise NotImplementedError(f"{self.label} draws no standard variates ahead")

    def release_presampled(self, values: np.ndarray, epsilon: np.ndarray,
                           draws: tuple[np.ndarray, ...]) -> np.ndarray:
        """The released values from standard variates of :meth:`presample`."""
        raise NotImplementedError(f"{self.label} draws no standard variates ahead")

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


def check_finite_release(out: np.ndarray) -> np.ndarray:
    """``out`` if every released value is finite, else InputError (an overflow). The
    smallest and largest value decide it (NaN propagates through both): no mask."""
    if np.size(out) and not (np.isfinite(np.min(out)) and np.isfinite(np.max(out))):
        raise InputError(
            "a released value overflows (the value plus its noise is beyond ±1.8e308); "
            "rescale the data or raise ε"
        )
    return out
