"""A transition matrix estimated with differential privacy: noisy transition counts.

The correlation model estimated from the data (:mod:`lmdk_core.leakage.estimation`) is a
statistic of the raw data: a leakage figure computed from it may not be published. This
module estimates the model *privately*, so that TPL and landmark TPL under it (Cao,
Yoshikawa, Xiao, Xiong, ICDE'17 / TKDE'18) can go into the public release note, at a
stated share ``ε_M`` of the total budget ε (the release then spends ``ε − ε_M``):

1. **Public states.** The readings are clamped to declared bounds ``[LO, HI]`` and cut
   into ``n`` *equal-width* bins over ``[LO, HI]`` — edges fixed by the declared
   bounds, never by the data (equal-count bins would put the data's quantiles in the
   model).
2. **Counts.** ``c_ij = #{t : s_{t−1} = i, s_t = j}``, the T − 1 transitions.
3. **Noise.** Each count gets independent two-sided geometric noise (the discrete
   Laplace mechanism, Ghosh, Roughgarden, Sundararajan, STOC 2009):
   ``Pr(z) ∝ α^|z − c|``, ``α = exp(−ε_M / Δ)``. Integer counts and integer noise: no
   floating-point attack on the noise (Mironov, CCS 2012).
4. **Post-processing** (no budget): ``P_F[i, j] = (max(z_ij, 0) + a) / Σ_k (max(z_ik,
   0) + a)`` with the smoothing ``a > 0``; the backward matrix from the same noisy
   counts transposed.

**Sensitivity** Δ (L1 norm of the count matrix, proven in docs/correlation.md). Changing
one reading ``x_t`` changes at most the two transitions ``(s_{t−1}, s_t)`` and
``(s_t, s_{t+1})``; each changed transition moves one unit from one cell to another,
an L1 change of 2. Landmark privacy (Katsomallos et al., CODASPY 2022) protects the
landmarks together with one further timestamp: a neighbouring input differs in up to
``|L| + 1 ≤ k + 1`` readings (k the declared bound on the landmark events), which
change at most ``min(2(k + 1), T − 1)`` transitions, so

    Δ = 2 · min(2(k + 1), T − 1).

The noisy counts are then landmark ε_M-private for every landmark set of at most k
events, the release landmark (ε − ε_M)-private, and the two together landmark
ε-private (sequential composition); everything computed from the noisy counts is
post-processing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.leakage.estimation import Discretization, TransitionMatrices

__all__ = ["PrivateCounts", "count_sensitivity", "declared_bins", "noisy_log_likelihood",
           "noisy_transition_counts", "private_matrices", "transition_counts"]


def count_sensitivity(max_landmarks: int, length: int) -> int:
    """Δ = 2 · min(2(k + 1), T − 1): the L1 sensitivity of the transition counts of a
    series of ``length`` T when the landmarks (at most ``max_landmarks`` k) plus one
    timestamp may change (module docstring; proof in docs/correlation.md).

    >>> count_sensitivity(0, 168), count_sensitivity(5, 168), count_sensitivity(5, 4)
    (4, 24, 6)
    """
    k, T = int(max_landmarks), int(length)
    if k < 0 or T < 1:
        raise InputError("the sensitivity needs k >= 0 and a series of at least 1 value")
    return 2 * min(2 * (k + 1), max(T - 1, 0))


def declared_bins(values: ArrayLike, low: float, high: float, n_bins: int) -> Discretization:
    """The readings clamped to ``[low, high]`` and cut into ``n_bins`` equal-width bins
    over that declared range (public edges: nothing about the data in them).

    >>> declared_bins([-1.0, 0.4, 2.6, 9.0], 0.0, 3.0, 3).states.tolist()
    [0, 0, 2, 2]
    """
    lo, hi = float(low), float(high)
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise InputError("the declared range of the private model needs finite low < high")
    n = int(n_bins)
    if not 2 <= n <= 500:
        raise InputError("the private model needs 2 to 500 bins")
    edges = np.linspace(lo, hi, n + 1)
    x = np.clip(np.asarray(values, dtype=float), lo, hi)
    states = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, n - 1)
    return Discretization(states=states.astype(int), edges=edges, method="declared")


def transition_counts(states: ArrayLike, n_states: int) -> np.ndarray:
    """``c_ij = #{t : s_{t−1} = i, s_t = j}`` as an n×n integer array."""
    s = np.asarray(states, dtype=np.int64)
    C = np.zeros((n_states, n_states), dtype=np.int64)
    if s.size > 1:
        np.add.at(C, (s[:-1], s[1:]), 1)
    return C


def _two_sided_geometric(shape: tuple[int, ...], alpha: float,
                         rng: np.random.Generator) -> np.ndarray:
    """Integer noise with ``Pr(z) = (1 − α)/(1 + α) · α^|z|``: the difference of two
    independent geometric variables on {0, 1, …} with success probability 1 − α."""
    p = 1.0 - alpha
    return (rng.geometric(p, size=shape) - rng.geometric(p, size=shape)).astype(np.int64)


@dataclass(frozen=True)
class PrivateCounts:
    """Noisy transition counts and what they were drawn with: ``noisy`` (n×n integers,
    possibly negative), the share ``epsilon`` of the budget, the sensitivity Δ and the
    noise parameter ``alpha = exp(−ε_M/Δ)``."""

    noisy: np.ndarray
    epsilon: float
    sensitivity: int
    alpha: float


def noisy_transition_counts(states: ArrayLike, n_states: int, epsilon: float,
                            max_landmarks: int, rng: np.random.Generator) -> PrivateCounts:
    """The transition counts of ``states`` with two-sided geometric noise of parameter
    ``α = exp(−epsilon/Δ)``, Δ = :func:`count_sensitivity` (``max_landmarks`` = k):
    landmark ``epsilon``-private for every landmark set of at most k events."""
    eps = float(epsilon)
    if not np.isfinite(eps) or eps <= 0:
        raise InputError("the private model's share of ε must be a number > 0")
    s = np.asarray(states)
    delta = count_sensitivity(max_landmarks, s.size)
    counts = transition_counts(s, n_states)
    if delta == 0:  # a single reading: no transition, nothing to protect
        return PrivateCounts(counts, eps, 0, 0.0)
    alpha = float(np.exp(-eps / delta))
    return PrivateCounts(counts + _two_sided_geometric(counts.shape, alpha, rng), eps,
                         delta, alpha)


def noisy_log_likelihood(noisy: np.ndarray, counts: np.ndarray, alpha: float) -> float:
    """``log Pr(noisy | counts)`` under independent two-sided geometric noise of
    parameter ``alpha``: ``Σ_ij [log((1 − α)/(1 + α)) + |z_ij − c_ij| · log α]`` (the
    likelihood-ratio check of the neighbour tests)."""
    z, c = np.asarray(noisy), np.asarray(counts)
    return float(z.size * np.log((1 - alpha) / (1 + alpha))
                 + np.abs(z - c).sum() * np.log(alpha))


def private_matrices(noisy: np.ndarray, smoothing: float) -> TransitionMatrices:
    """``(P_F, P_B)`` from noisy counts by post-processing: clipped at 0, ``smoothing``
    (> 0) added to every cell, rows normalised; the backward matrix from the transposed
    counts.

    >>> F, B = private_matrices(np.array([[3, -2], [1, 1]]), 1.0)
    >>> F.round(3).tolist()  # counts clipped + 1: [[4, 1], [2, 2]]
    [[0.8, 0.2], [0.5, 0.5]]
    >>> B.round(3).tolist()  # reversed: [[4, 2], [1, 2]]
    [[0.667, 0.333], [0.333, 0.667]]
    """
    a = float(smoothing)
    if not np.isfinite(a) or a <= 0:
        raise InputError("the private model's smoothing must be a number > 0 (a zero "
                         "noisy count would make some leakage infinite)")
    C = np.maximum(np.asarray(noisy, dtype=float), 0.0) + a
    forward = C / C.sum(axis=1, keepdims=True)
    backward = C.T / C.T.sum(axis=1, keepdims=True)
    return TransitionMatrices(forward, backward)
