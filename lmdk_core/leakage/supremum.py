r"""Supremum of BPL / FPL / TPL for a constant budget (Cao et al., Theorem 10).

With the same ``ε`` at every timestamp, the BPL recursion ``a_t = L(a_{t-1}) + ε``
(Cao, Yoshikawa, Xiao, Xiong, ICDE'17 / TKDE'18) increases with t and converges to
the smallest fixed point ``a* = L(a*) + ε`` — or grows without bound when there is
none. ``L = max_v g_v`` over the loss function's hull vertices ``v = (Q, D)`` with
``g_v(a) = log((Q(e^a − 1) + 1)/(D(e^a − 1) + 1))``. For one vertex, with ``y = e^a``,
``a <= g_v(a) + ε`` exactly while ``y`` is below the positive root of

.. math::

    D y^2 + (1 − D − e^ε Q)\, y − e^ε (1 − Q) = 0

(for ``D = 0``: ``y = e^ε(1 − Q)/(1 − e^ε Q)``, finite iff ``e^ε Q < 1``, i.e.
``ε < log(1/Q)``). So ``L(a) + ε > a`` exactly below the largest of these roots, and
the supremum is ``log`` of the largest root over the vertices (``∞`` if a vertex has no
root). Cao's Theorem 10 states the same fixed point for the optimal pair ``(q, d)``.
The roots are computed with ``z = y e^{−ε}`` to avoid overflow and with the
cancellation-free form of the quadratic formula.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.validation import check_nonnegative
from lmdk_core.leakage.loss import LossFunction, as_loss

__all__ = ["check_constant_epsilon", "divergence_threshold", "supremum", "tpl_supremum"]


def check_constant_epsilon(epsilon: float, name: str = "epsilon") -> float:
    """A constant per-timestamp budget: a finite number >= 0
    (:func:`~lmdk_core.foundation.validation.check_nonnegative`).

    Parameters
    ----------
    epsilon : float
        The budget per timestamp.
    name : str
        How error messages name it.

    Returns
    -------
    float

    Examples
    --------
    >>> check_constant_epsilon("0.5")
    0.5
    """
    return check_nonnegative(epsilon, name)


def supremum(loss: LossFunction | ArrayLike, epsilon: float) -> float:
    """``sup_t BPL_t`` (equivalently ``sup_t FPL_t``) for the constant budget ``epsilon``.

    Returns ``math.inf`` when the recursion diverges (e.g. a row pair with ``d_j = 0``
    on the states of mass ``Q`` and ``ε >= log(1/Q)``).

    Parameters
    ----------
    loss : LossFunction or array_like
        The loss function (or the transition matrix it is built from).
    epsilon : float
        The constant budget per timestamp (>= 0).

    Returns
    -------
    float
        The supremum over all t, or ``math.inf``.

    Examples
    --------
    >>> from lmdk_core.leakage import bpl, smoothed_matrix
    >>> P = smoothed_matrix(2, 0.1)
    >>> round(supremum(P, 0.5), 4)
    1.9961
    >>> bool(bpl([0.5] * 200, P)[-1] <= supremum(P, 0.5))  # the recursion's limit
    True
    >>> supremum([[0.5, 0.5], [0.0, 1.0]], 1.0)  # ε >= log 2: diverges
    inf
    """
    e = check_constant_epsilon(epsilon)
    lf = as_loss(loss)
    if e == 0.0:
        return 0.0
    if lf.is_zero:
        return e
    Q = lf.vertex_Q
    D = lf.vertex_D
    r = math.exp(-e)
    b = (1.0 - D) * r - Q  # z-quadratic: D z² + b z − c = 0, z = y e^{−ε}
    c = (1.0 - Q) * r
    best = 0.0  # log z = 0 is the vertex (0, 0): sup >= ε
    # log z of the positive root, in logs so that a tiny D (down to subnormals) gives a
    # huge but finite supremum instead of an overflow
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = D > 0
        disc = np.sqrt(b * b + 4.0 * D * c)
        log_pos = np.where(b < 0, np.log(disc - b) - np.log(2.0 * D),
                           np.log(2.0 * c) - np.log(b + disc))
        log_zero = np.where(b > 0, np.log(c) - np.log(b), np.inf)
        log_z = np.where(pos, log_pos, log_zero)
    if np.any(np.isposinf(log_z)) or np.any(np.isnan(log_z)):
        return math.inf
    best = max(best, float(np.max(log_z)))
    return e + best


def tpl_supremum(
    epsilon: float,
    backward: LossFunction | ArrayLike,
    forward: LossFunction | ArrayLike | None = None,
) -> float:
    """``sup_t TPL_t = sup BPL + sup FPL − ε`` for a constant budget (infinite horizon).

    Parameters
    ----------
    epsilon : float
        The constant budget per timestamp (>= 0).
    backward : LossFunction or array_like
        The backward matrix (or its loss function).
    forward : LossFunction or array_like, optional
        The forward matrix; defaults to ``backward``.

    Returns
    -------
    float
        The supremum over all t, or ``math.inf``.

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> round(tpl_supremum(0.5, smoothed_matrix(2, 0.1)), 4)  # 2 · 1.9961 − 0.5
    3.4921
    """
    e = check_constant_epsilon(epsilon)
    lb = as_loss(backward, "the backward matrix")
    lf = lb if forward is None else as_loss(forward, "the forward matrix")
    sb = supremum(lb, e)
    sf = sb if lf is lb else supremum(lf, e)
    if math.isinf(sb) or math.isinf(sf):
        return math.inf
    return sb + sf - e


def divergence_threshold(loss: LossFunction | ArrayLike) -> float:
    """The smallest constant ε at which ``sup_t BPL_t`` is infinite (``math.inf`` if none).

    Cao's Theorem 10: a hull vertex with ``d(S) = 0`` (a set of next states that one
    previous state makes impossible and another reaches with probability ``q(S)``) makes
    the recursion diverge once ``e^{−ε} <= q(S)``, i.e. for ``ε >= −log q(S)``. The
    threshold is therefore ``−log max{q(S) : d(S) = 0}`` over the loss function's
    vertices; below it every supremum is finite.

    Parameters
    ----------
    loss : LossFunction or array_like
        The loss function (or the transition matrix it is built from).

    Returns
    -------
    float
        The threshold ε, ``math.inf`` when no constant budget diverges.

    Examples
    --------
    >>> round(divergence_threshold([[0.5, 0.5], [0.0, 1.0]]), 6)  # −log 0.5
    0.693147
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> divergence_threshold(smoothed_matrix(2, 0.1))  # no zero: never diverges
    inf
    """
    lf = as_loss(loss)
    if lf.is_zero:
        return math.inf
    zero = lf.vertex_D <= 0.0
    if not np.any(zero):
        return math.inf
    q = float(np.max(lf.vertex_Q[zero]))
    return 0.0 if q >= 1.0 else -math.log(q)
