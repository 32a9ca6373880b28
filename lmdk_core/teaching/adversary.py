"""The Learn page's second lesson: what ε means to an adversary.

A prior belief ``p`` that a person's record is ``D`` rather than ``D'`` can rise to at
most ``p·e^ε / (1 − p + p·e^ε)`` (Dwork & Roth §1 and §2.3; Kasiviswanathan & Smith
2014; :func:`posterior_bound`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError

__all__ = [
    "posterior_bound",
    "posterior_lower_bound",
]


def posterior_bound(prior: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    """Largest posterior an adversary can reach after seeing an ε-DP output:
    ``p·e^ε / (1 − p + p·e^ε)`` for a prior ``p`` (Bayes' rule with the likelihood ratio
    bounded by ``e^ε``; Dwork & Roth §2.3, Kasiviswanathan & Smith 2014)."""
    p = _check_prior(prior)
    e = np.exp(_check_eps_array(epsilon))
    return p * e / (1.0 - p + p * e)


def posterior_lower_bound(prior: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    """Smallest posterior: ``p / (p + (1 − p)·e^ε)`` (the ratio bounded below by e^−ε)."""
    p = _check_prior(prior)
    e = np.exp(_check_eps_array(epsilon))
    return p / (p + (1.0 - p) * e)


def _check_prior(prior: ArrayLike) -> np.ndarray:
    try:
        p = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the prior must be a probability (a number between 0 and 1)") from None
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise InputError("the prior must be a probability between 0 and 1")
    return p


def _check_eps_array(epsilon: ArrayLike) -> np.ndarray:
    try:
        e = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise InputError("ε must be a number") from None
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise InputError("ε must be a finite number >= 0")
    return e
