"""The Exponential mechanism (McSherry & Talwar, FOCS 2007).

Selects candidate ``r`` with probability ``exp(ε·u(r)/(2Δu)) / Z`` for a utility ``u``
of sensitivity ``Δu``; ε-differentially private. Utility guarantee (Dwork & Roth,
Thm 3.11): with probability at least ``1 - e^{-s}`` the selected utility is at least
``OPT - 2Δu/ε · (ln|R| + s)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.validation import InputError, as_generator, check_epsilon, check_positive


class Exponential:
    """Exponential mechanism over a finite list of candidates."""

    name = "exponential"
    label = "Exponential"

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
        """Index of one candidate drawn with :meth:`probabilities`."""
        p = self.probabilities(utilities, epsilon)
        return int(as_generator(rng).choice(p.size, p=p))

    def expected_utility(self, utilities: ArrayLike, epsilon: float) -> float:
        """``Σ p(r)·u(r)``: the mean utility of the selected candidate."""
        u = self._utilities(utilities)
        return float(np.dot(self.probabilities(u, epsilon), u))

    def utility_loss_bound(self, n_candidates: int, epsilon: float, s: float = np.log(20)) -> float:
        """``2Δu/ε·(ln n + s)``: the loss exceeded with probability at most ``e^{-s}``."""
        return 2.0 * self.sensitivity / check_epsilon(epsilon) * (np.log(n_candidates) + s)
