"""The Exponential mechanism (McSherry & Talwar, FOCS 2007).

Selects candidate ``r`` with probability ``exp(ε·u(r)/(2Δu)) / Z`` for a utility ``u``
of sensitivity ``Δu``; ε-differentially private. Utility guarantee (Dwork & Roth,
Thm 3.11): with probability at least ``1 - e^{-s}`` the selected utility is at least
``OPT - 2Δu/ε · (ln|R| + s)``.

As a :class:`~lmdk_core.mechanisms.base.Mechanism` its input is the candidates'
utilities (a vector: one selection; a matrix: one selection per row, one ε per row) and
its release the selected index; its error is the utility loss ``OPT − u(r)``, measured
in utility (``distance``), so its expected error and error law take the utilities as
``values=``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import (
    as_generator,
    check_epsilon,
    check_epsilon_array,
    check_positive,
)
from lmdk_core.mechanisms.base import Mechanism


class Exponential(Mechanism):
    """Exponential mechanism over a finite list of candidates."""

    name = "exponential"
    label = "Exponential"
    data_kind = "choice"

    def __init__(self, sensitivity: float = 1.0) -> None:
        self.sensitivity = check_positive(sensitivity, "utility sensitivity")

    @staticmethod
    def _utilities(utilities: ArrayLike) -> np.ndarray:
        u = np.asarray(utilities, dtype=float)
        if u.ndim != 1 or u.size == 0:
            raise InputError("the exponential mechanism needs a non-empty list of utilities")
        if not np.all(np.isfinite(u)):
            raise InputError("utilities must be finite numbers")
        return u

    def check_values(self, values: ArrayLike) -> np.ndarray:
        """Utilities: a non-empty vector, or a matrix with one candidate list per row."""
        u = np.asarray(values, dtype=float)
        if u.ndim == 2 and u.shape[0] > 0:
            for row in u:
                self._utilities(row)
            return u
        return self._utilities(u)

    def count(self, x: np.ndarray) -> int | None:
        """One selection (one ε) per row of a utility matrix; one for a vector."""
        return x.shape[0] if x.ndim == 2 else None

    def check_budget(self, epsilon: ArrayLike) -> np.ndarray:
        """Every ε > 0 is usable (the logits are shifted, so nothing overflows)."""
        return check_epsilon_array(epsilon)

    def scale(self, epsilon: ArrayLike) -> np.ndarray:
        """The temperature ``2Δu/ε``: a candidate's weight is ``exp(u/scale)``."""
        return 2.0 * self.sensitivity / check_epsilon_array(epsilon)

    def _randomise(self, x: np.ndarray, epsilon: np.ndarray,
                   rng: int | np.random.Generator | None) -> np.ndarray:
        """The selected index (per row), drawn with :meth:`probabilities`."""
        gen = as_generator(rng)
        if x.ndim == 1:
            p = self.probabilities(x, float(epsilon))
            return np.asarray(gen.choice(p.size, p=p))
        picks = []
        for row, e in zip(x, epsilon, strict=True):
            p = self.probabilities(row, float(e))
            picks.append(gen.choice(p.size, p=p))
        return np.asarray(picks, dtype=int)

    def _needs_utilities(self, values: ArrayLike | None) -> np.ndarray:
        if values is None:
            raise InputError("the Exponential mechanism's error depends on the candidates: "
                             "pass their utilities as values=")
        return self._utilities(values)

    def expected_error(self, epsilon: ArrayLike, values: ArrayLike | None = None) -> np.ndarray:
        """Expected utility loss ``OPT − Σ_r p(r)·u(r)`` at each ε (``values``: the
        candidates' utilities)."""
        u = self._needs_utilities(values)
        eps = check_epsilon_array(epsilon)
        loss = [u.max() - float(np.dot(self.probabilities(u, float(e)), u))
                for e in np.ravel(eps)]
        return np.asarray(loss).reshape(eps.shape)

    def error_cdf(self, d: ArrayLike, epsilon: float,
                  values: ArrayLike | None = None) -> np.ndarray:
        """``P(OPT − u(r) ≤ d) = Σ_{r: OPT − u(r) ≤ d} p(r)`` (``values``: the
        utilities)."""
        u = self._needs_utilities(values)
        p = self.probabilities(u, epsilon)
        loss = u.max() - u
        d = np.asarray(d, dtype=float)
        return (p[None, :] * (loss[None, :] <= d.reshape(-1, 1))).sum(axis=1).reshape(d.shape)

    @staticmethod
    def distance(a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Utility difference ``|a − b|`` (the loss of selecting utility a when b is best)."""
        return np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))

    def probabilities(self, utilities: ArrayLike, epsilon: float) -> np.ndarray:
        """Selection probability of every candidate: ``exp(ε·u/(2Δu)) / Z``."""
        u = self._utilities(utilities)
        eps = check_epsilon(epsilon)
        # shift before scaling: ε·(u − max u)/(2Δu) <= 0, so no inf − inf at large ε
        with np.errstate(over="ignore"):
            logits = eps * ((u - u.max()) / (2.0 * self.sensitivity))
        w = np.exp(logits)
        return w / w.sum()

    def select(
        self,
        utilities: ArrayLike,
        epsilon: float,
        rng: int | np.random.Generator | None = None,
    ) -> int:
        """Index of one candidate drawn with :meth:`probabilities` (:meth:`perturb` of
        one utility vector)."""
        u = self._utilities(utilities)
        return int(self.perturb(u, check_epsilon(epsilon), rng))

    def expected_utility(self, utilities: ArrayLike, epsilon: float) -> float:
        """``Σ p(r)·u(r)``: the mean utility of the selected candidate."""
        u = self._utilities(utilities)
        return float(np.dot(self.probabilities(u, epsilon), u))

    def utility_loss_bound(self, n_candidates: int, epsilon: float, s: float = np.log(20)) -> float:
        """``2Δu/ε·(ln n + s)``: the loss exceeded with probability at most ``e^{-s}``."""
        return 2.0 * self.sensitivity / check_epsilon(epsilon) * (np.log(n_candidates) + s)
