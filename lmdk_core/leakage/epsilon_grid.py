"""Landmark TPL of one allocation shape at many totals ε: what an ε slider previews.

Every static scheme (event, user, w-event, Uniform, Skip) spends ``ε_t = ε·share_t``
with a share that does not depend on ε (:func:`lmdk_core.engine.allocation.allocate` at
ε = 1). The theorem's totals ``Σ_{L∪{t}} ε_i`` are then ``ε`` times those of the share,
but TPL and landmark TPL under a Markov correlation (Cao et al., ICDE 2017 / TKDE 2018;
landmark TPL: Katsomallos et al., CODASPY 2022) are not linear in ε (the loss function
saturates), so a preview of them at any ε of a slider is read off a grid of totals
computed once: :func:`leakage_on_grid` evaluates them at every grid ε, and
:func:`epsilon_grid` is the grid (log-spaced, :data:`GRID_POINTS` values).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.leakage.tpl import LossLike, max_landmark_tpl, temporal_leakage

__all__ = ["GRID_POINTS", "GridLeakage", "epsilon_grid", "leakage_on_grid"]

#: how many totals ε a slider's preview grid holds
GRID_POINTS = 64


def epsilon_grid(low: float, high: float, n: int = GRID_POINTS) -> np.ndarray:
    """``n`` log-spaced totals from ``low`` to ``high`` (both included, ``0 < low < high``).

    >>> epsilon_grid(0.01, 10, 4).round(4).tolist()
    [0.01, 0.1, 1.0, 10.0]
    """
    if not (0 < low < high) or not np.isfinite(high) or n < 2:
        raise ValueError("a grid needs 0 < low < high and at least two points")
    return np.geomspace(float(low), float(high), int(n))


@dataclass(frozen=True)
class GridLeakage:
    """Leakage of ``grid[g]·share`` for every grid point g: the largest landmark TPL per
    g (``max_landmark_tpl``, shape (G,)) and, when asked for, the curves per g
    (``tpl`` and ``landmark_tpl``, shape (G, T))."""

    grid: np.ndarray
    max_landmark_tpl: np.ndarray
    tpl: np.ndarray | None = None
    landmark_tpl: np.ndarray | None = None


def leakage_on_grid(share: ArrayLike, landmarks: Iterable[int], backward: LossLike,
                    forward: LossLike | None, grid: ArrayLike, *,
                    curves: bool = False) -> GridLeakage:
    """Landmark TPL of the allocations ``g·share`` for every total ``g`` of ``grid``.

    ``max_landmark_tpl[g] = max_t landmark_TPL_t(g·share)`` (bit for bit
    :func:`~lmdk_core.leakage.tpl.max_landmark_tpl`); with ``curves`` also TPL and
    landmark TPL per timestamp (:func:`~lmdk_core.leakage.tpl.temporal_leakage`) — the
    curves cost a full landmark-TPL evaluation per grid point, the maxima only the
    restarted recursions where the maximum can be.

    >>> from lmdk_core.leakage import smoothed_matrix
    >>> res = leakage_on_grid([0.5, 0.5, 0.5], [1], smoothed_matrix(2, 0.1), None,
    ...                       [1.0, 2.0], curves=True)
    >>> res.landmark_tpl[0].round(4).tolist(), res.max_landmark_tpl.round(4).tolist()
    ([1.414, 1.328, 1.414], [1.414, 2.8121])
    """
    share = np.asarray(share, dtype=float)
    lm = [int(t) for t in landmarks]
    g = np.asarray(grid, dtype=float)
    if not curves:
        peak = np.array([max_landmark_tpl(e * share, lm, backward, forward) for e in g])
        return GridLeakage(grid=g, max_landmark_tpl=peak)
    tpl = np.empty((g.size, share.size))
    lt = np.empty((g.size, share.size))
    for i, e in enumerate(g):
        res = temporal_leakage(e * share, backward, forward, lm)
        tpl[i] = res.tpl
        lt[i] = res.landmark_tpl
    return GridLeakage(grid=g, max_landmark_tpl=lt.max(axis=1), tpl=tpl, landmark_tpl=lt)
