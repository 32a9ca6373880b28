r"""Backward, forward and temporal privacy leakage (BPL, FPL, TPL) and landmark TPL.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal
Correlations" (ICDE'17, Eq. (12)–(16), Theorems 4–5; TKDE'18). A release made of
per-timestamp ``ε_t``-DP mechanisms over temporally correlated data leaks, with the
loss functions ``L_B = L_{P_B}`` and ``L_F = L_{P_F}``
(:class:`~lmdk_core.leakage.loss.LossFunction`)::

    BPL:  a_0 = ε_0,          a_t = L_B(a_{t-1}) + ε_t
    FPL:  f_{T-1} = ε_{T-1},  f_t = L_F(f_{t+1}) + ε_t
    TPL:  tpl_t = a_t + f_t − ε_t

``ε_t = 0`` is allowed (nothing released from the raw data at t).

**Landmark TPL** (Katsomallos et al. 2022, "privacy under temporal correlation";
docs/definitions.md): for a timestamp t let ``S = sorted(L ∪ {t})``; for each ``i ∈ S`` with
predecessor
``i⁻`` in S (or −1) and successor ``i⁺`` (or T), ``BPL_i`` is the BPL recursion
restarted at ``i⁻+1`` and run to i, ``FPL_i`` the FPL recursion restarted at
``i⁺−1`` and run down to i, ``α_i = BPL_i + FPL_i − ε_i``, and the landmark TPL at t
is ``Σ_{i∈S} α_i``. With no correlation (``L ≡ 0``) it is ``Σ_{i∈L∪{t}} ε_i``, the
quantity of the landmark-privacy theorem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon_array, check_landmarks
from lmdk_core.leakage.loss import LossFunction, as_loss, loss_pair
from lmdk_core.leakage.recursion import recurse
from lmdk_core.leakage.restarts import Gaps

__all__ = [
    "LeakageResult",
    "bpl",
    "fpl",
    "tpl",
    "landmark_tpl",
    "max_landmark_tpl",
    "temporal_leakage",
    "segment_bpl",
    "segment_fpl",
    "check_allocation",
    "landmark_gaps",
    "gaps_from_segments",
]

LossLike = LossFunction | ArrayLike


def check_allocation(epsilon_t: ArrayLike, name: str = "the allocation") -> np.ndarray:
    """A per-timestamp budget: 1-D, at least one value, finite, >= 0.

    Parameters
    ----------
    epsilon_t : array_like
        One budget ``ε_t`` per timestamp (``ε_t = 0``: nothing released from the raw data).
    name : str
        How error messages name it.

    Returns
    -------
    numpy.ndarray
        The budgets as a float array.

    Raises
    ------
    InputError
        If the budget is empty, not 1-D, negative, infinite or not a number.

    Examples
    --------
    >>> check_allocation([0.5, 0, 1]).tolist()
    [0.5, 0.0, 1.0]
    """
    eps = check_epsilon_array(epsilon_t, allow_zero=True, name=name)
    if eps.ndim != 1 or eps.size == 0:
        raise InputError(f"{name} must hold one budget per timestamp (at least one)")
    return eps


def bpl(epsilon_t: ArrayLike, backward: LossLike) -> np.ndarray:
    """Backward privacy leakage: ``a_0 = ε_0``, ``a_t = L_B(a_{t-1}) + ε_t`` (Cao et al.
    ICDE'17, Eq. (12)).

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t`` (finite, >= 0).
    backward : LossFunction or array_like
        The backward matrix ``P_B`` or its precomputed loss function.

    Returns
    -------
    numpy.ndarray
        ``BPL_t`` for every t.

    Examples
    --------
    With perfect correlation (``L(α) = α``) BPL adds up the budgets so far:

    >>> import numpy as np
    >>> bpl([0.1, 0.2, 0.3], np.eye(2)).round(6).tolist()
    [0.1, 0.3, 0.6]
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> bpl([0.5, 0.5, 0.5], smoothed_matrix(2, 0.1)).round(4).tolist()
    [0.5, 0.914, 1.2454]
    """
    eps = check_allocation(epsilon_t)
    return recurse(eps, as_loss(backward, "the backward matrix"))


def fpl(epsilon_t: ArrayLike, forward: LossLike) -> np.ndarray:
    """Forward privacy leakage: ``f_{T-1} = ε_{T-1}``, ``f_t = L_F(f_{t+1}) + ε_t``
    (Cao et al. ICDE'17, Eq. (14)).

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t`` (finite, >= 0).
    forward : LossFunction or array_like
        The forward matrix ``P_F`` or its precomputed loss function.

    Returns
    -------
    numpy.ndarray
        ``FPL_t`` for every t.

    Examples
    --------
    >>> import numpy as np
    >>> fpl([0.1, 0.2, 0.3], np.eye(2)).round(6).tolist()  # the budgets from t on
    [0.6, 0.5, 0.3]
    """
    eps = check_allocation(epsilon_t)
    return recurse(eps[::-1], as_loss(forward, "the forward matrix"))[::-1].copy()


def tpl(epsilon_t: ArrayLike, backward: LossLike, forward: LossLike | None = None) -> np.ndarray:
    """Temporal privacy leakage ``tpl_t = BPL_t + FPL_t − ε_t`` (Cao et al. ICDE'17,
    Eq. (16)).

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t`` (finite, >= 0).
    backward : LossFunction or array_like
        The backward matrix (or its loss function).
    forward : LossFunction or array_like, optional
        The forward matrix; defaults to ``backward``.

    Returns
    -------
    numpy.ndarray
        ``TPL_t`` for every t.

    Raises
    ------
    InputError
        On a bad budget or matrix, or matrices with different numbers of states.

    Examples
    --------
    >>> import numpy as np
    >>> tpl([0.1, 0.2, 0.3], np.eye(2)).round(6).tolist()  # perfect correlation: Σ ε
    [0.6, 0.6, 0.6]
    >>> tpl([0.1, 0.2, 0.3], [[0.5, 0.5], [0.5, 0.5]]).round(6).tolist()  # none: ε_t
    [0.1, 0.2, 0.3]
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> tpl([0.5, 0.5, 0.5], smoothed_matrix(2, 0.1)).round(4).tolist()
    [1.2454, 1.328, 1.2454]
    """
    eps = check_allocation(epsilon_t)
    lb, lf = loss_pair(backward, forward)
    return recurse(eps, lb) + recurse(eps[::-1], lf)[::-1] - eps


def segment_bpl(epsilon_t: ArrayLike, landmarks: Iterable[int] | None, backward: LossLike):
    """BPL restarted after every landmark: at t, the recursion from (last landmark < t)+1.

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t``.
    landmarks : iterable of int or None
        The landmark timestamps (0-based).
    backward : LossFunction or array_like
        The backward matrix (or its loss function).

    Returns
    -------
    numpy.ndarray
        The restarted BPL at every t.

    Examples
    --------
    >>> import numpy as np
    >>> segment_bpl([0.25] * 4, [1], np.eye(2)).round(6).tolist()
    [0.25, 0.5, 0.25, 0.5]
    """
    eps = check_allocation(epsilon_t)
    lm = check_landmarks(landmarks, eps.size)
    mark = np.zeros(eps.size, dtype=bool)
    mark[lm] = True
    return recurse(eps, as_loss(backward, "the backward matrix"), mark)


def segment_fpl(epsilon_t: ArrayLike, landmarks: Iterable[int] | None, forward: LossLike):
    """FPL restarted before every landmark: at t, the recursion from (next landmark > t)−1.

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t``.
    landmarks : iterable of int or None
        The landmark timestamps (0-based).
    forward : LossFunction or array_like
        The forward matrix (or its loss function).

    Returns
    -------
    numpy.ndarray
        The restarted FPL at every t.

    Examples
    --------
    >>> import numpy as np
    >>> segment_fpl([0.25] * 4, [1], np.eye(2)).round(6).tolist()
    [0.25, 0.75, 0.5, 0.25]
    """
    eps = check_allocation(epsilon_t)
    lm = check_landmarks(landmarks, eps.size)
    mark = np.zeros(eps.size, dtype=bool)
    mark[lm] = True
    return recurse(eps[::-1], as_loss(forward, "the forward matrix"), mark[::-1])[::-1].copy()


def landmark_tpl(
    epsilon_t: ArrayLike,
    landmarks: Iterable[int] | None,
    backward: LossLike,
    forward: LossLike | None = None,
) -> np.ndarray:
    """Landmark TPL for every t (definition in the module docstring; docs/definitions.md).

    Computed for all t together: the segment recursions between consecutive landmarks
    are shared by every t outside them, so only the two landmarks around t change —
    ``FPL`` of the landmark before t now restarts at ``t−1`` and ``BPL`` of the
    landmark after t restarts at ``t+1``. Those restarted recursions run for every t
    of every gap at once as one numpy vector, each stopping as soon as it meets the
    shared segment recursion (:mod:`~lmdk_core.leakage.restarts`): ``O(T·K)`` loss
    evaluations in K vector steps for a mixing length K (linear in T), ``Σ_gaps gap²/2``
    only when the correlation is perfect.

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t``.
    landmarks : iterable of int or None
        The landmark timestamps L (0-based).
    backward : LossFunction or array_like
        The backward matrix (or its loss function).
    forward : LossFunction or array_like, optional
        The forward matrix; defaults to ``backward``.

    Returns
    -------
    numpy.ndarray
        The landmark TPL of ``L ∪ {t}`` for every t.

    Examples
    --------
    With no correlation it is the landmark-privacy theorem's ``Σ_{i∈L∪{t}} ε_i``
    (Katsomallos et al., CODASPY'22):

    >>> landmark_tpl([0.1, 0.2, 0.3, 0.4], [1], [[0.5, 0.5], [0.5, 0.5]]).round(6).tolist()
    [0.3, 0.2, 0.5, 0.6]
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> landmark_tpl([0.25] * 4, [1], smoothed_matrix(2, 0.1)).round(4).tolist()
    [0.8796, 0.8376, 0.916, 1.124]
    """
    g = landmark_gaps(epsilon_t, landmarks, backward, forward)
    out = np.empty(g.eps.size)
    out[g.lm] = g.base
    out[g.regular] = g.exact(np.arange(g.regular.size))
    return out


def landmark_gaps(epsilon_t: ArrayLike, landmarks: Iterable[int] | None,
                  backward: LossLike, forward: LossLike | None = None) -> Gaps:
    """The part of the landmark TPL (Katsomallos et al., CODASPY'22, on Cao et al.'s
    BPL/FPL, ICDE'17) that every timestamp shares, O(T): the segment recursions
    ``sb`` (BPL restarted after every landmark) and ``sf`` (FPL restarted before every
    landmark), the landmarks' own sum ``base = Σ_{l∈L} sb_l + sf_l − ε_l`` and, for each
    regular t, the bound ``upper_t = base + sb_t + sf_t − ε_t ≥`` its landmark TPL;
    :meth:`~lmdk_core.leakage.restarts.Gaps.exact` adds the two restarted corrections.
    :func:`landmark_tpl`, :func:`max_landmark_tpl` and
    :func:`~lmdk_core.leakage.tpl_many.max_landmark_tpls` start from it; the arguments
    are those of :func:`landmark_tpl`. With no correlation the segment recursions are
    the budgets themselves:

    >>> g = landmark_gaps([0.1, 0.2, 0.3, 0.4], [1], [[0.5, 0.5], [0.5, 0.5]])
    >>> round(g.base, 6), g.regular.tolist(), g.upper.round(6).tolist()
    (0.2, [0, 2, 3], [0.3, 0.5, 0.6])
    """
    eps = check_allocation(epsilon_t)
    T = eps.size
    lm = check_landmarks(landmarks, T)
    lb, lf = loss_pair(backward, forward)
    mark = np.zeros(T, dtype=bool)
    mark[lm] = True
    sb = recurse(eps, lb, mark)  # BPL from (previous landmark)+1
    sf = recurse(eps[::-1], lf, mark[::-1])[::-1]  # FPL from (next landmark)−1
    return gaps_from_segments(eps, lm, lb, lf, mark, sb, sf)


def gaps_from_segments(eps: np.ndarray, lm: np.ndarray, lb: LossFunction, lf: LossFunction,
                       mark: np.ndarray, sb: np.ndarray, sf: np.ndarray) -> Gaps:
    """The :class:`~lmdk_core.leakage.restarts.Gaps` of :func:`landmark_gaps` from its
    checked budget ``eps``, landmarks ``lm`` (``mark`` their mask), loss functions and
    segment recursions ``sb``, ``sf``: ``base = Σ_{l∈L} sb_l + sf_l − ε_l``, each regular
    t's landmarks around it and its bound ``upper_t = base + sb_t + sf_t − ε_t``."""
    T = eps.size
    base = float(np.sum(sb[lm] + sf[lm] - eps[lm])) if lm.size else 0.0
    regular = np.flatnonzero(~mark)
    if lm.size:
        pos = np.searchsorted(lm, regular)
        prev = np.where(pos > 0, lm[np.maximum(pos - 1, 0)], -1)
        nxt = np.where(pos < lm.size, lm[np.minimum(pos, lm.size - 1)], T)
    else:
        prev = np.full(regular.size, -1)
        nxt = np.full(regular.size, T)
    upper = base + sb[regular] + sf[regular] - eps[regular]
    return Gaps(eps, lm, lb, lf, sb, sf, base, regular, prev, nxt, upper)


def max_landmark_tpl(
    epsilon_t: ArrayLike,
    landmarks: Iterable[int] | None,
    backward: LossLike,
    forward: LossLike | None = None,
) -> float:
    """``max_t`` of :func:`landmark_tpl`, equal to ``np.max(landmark_tpl(...))`` bit for
    bit, computing the restarted recursions only where the maximum can be.

    The maps ``v ↦ L(v) + ε`` are monotone and ``L >= 0``, so a recursion restarted
    nearer to its landmark never exceeds the segment recursion at the same timestamp:
    both corrections of a regular t are ``<= 0`` and its landmark TPL is at most
    ``upper_t = base + sb_t + sf_t − ε_t`` (:func:`landmark_gaps`, O(T) for all t). The regular
    t are taken by decreasing ``upper_t`` in growing batches, their exact values
    computed, until the best exact value reaches the next bound: no t left can exceed
    it. The batch audit needs only this maximum (Cao et al., ICDE 2017; Katsomallos et
    al., CODASPY 2022).

    Parameters
    ----------
    epsilon_t, landmarks, backward, forward
        As for :func:`landmark_tpl`.

    Returns
    -------
    float
        The largest landmark TPL over all t.

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> round(max_landmark_tpl([0.25] * 4, [1], smoothed_matrix(2, 0.1)), 4)
    1.124
    """
    g = landmark_gaps(epsilon_t, landmarks, backward, forward)
    best = g.base if g.lm.size else -np.inf
    if g.regular.size == 0:
        return float(best)
    order = np.argsort(-g.upper, kind="stable")
    i, chunk = 0, 64
    while i < order.size and g.upper[order[i]] > best:
        sel = order[i:i + chunk]
        best = max(best, float(np.max(g.exact(sel))))
        i += chunk
        chunk *= 4
    return float(best)


@dataclass(frozen=True)
class LeakageResult:
    """BPL, FPL, TPL (and landmark TPL when landmarks were given) per timestamp."""

    epsilon_t: np.ndarray
    bpl: np.ndarray
    fpl: np.ndarray
    tpl: np.ndarray
    landmark_tpl: np.ndarray | None = None
    landmarks: np.ndarray | None = None

    def to_dict(self) -> dict:
        """The CLI's JSON keys (``landmark_tpl`` only when landmarks were given)."""
        out = {"bpl": self.bpl, "fpl": self.fpl, "tpl": self.tpl}
        if self.landmark_tpl is not None:
            out["landmark_tpl"] = self.landmark_tpl
        return out


def temporal_leakage(
    epsilon_t: ArrayLike,
    backward: LossLike,
    forward: LossLike | None = None,
    landmarks: Iterable[int] | None = None,
) -> LeakageResult:
    """All curves at once: BPL, FPL, TPL and, if ``landmarks`` is given, landmark TPL.

    Parameters
    ----------
    epsilon_t : array_like
        The per-timestamp budget ``ε_t``.
    backward : LossFunction or array_like
        The backward matrix (or its loss function).
    forward : LossFunction or array_like, optional
        The forward matrix; defaults to ``backward`` (the same matrix both ways).
    landmarks : iterable of int, optional
        The landmark timestamps; landmark TPL is computed only when given.

    Returns
    -------
    LeakageResult
        The curves per timestamp (Cao et al. ICDE'17; landmark TPL: Katsomallos et al.
        CODASPY'22).

    Examples
    --------
    >>> from lmdk_core.leakage import smoothed_matrix
    >>> res = temporal_leakage([0.5, 0.5, 0.5], smoothed_matrix(2, 0.1), landmarks=[1])
    >>> res.tpl.round(4).tolist(), res.landmark_tpl.round(4).tolist()
    ([1.2454, 1.328, 1.2454], [1.414, 1.328, 1.414])
    >>> sorted(res.to_dict())
    ['bpl', 'fpl', 'landmark_tpl', 'tpl']
    """
    eps = check_allocation(epsilon_t)
    lb, lf = loss_pair(backward, forward)
    a = recurse(eps, lb)
    f = recurse(eps[::-1], lf)[::-1].copy()
    lt = None
    lm = None
    if landmarks is not None:
        lm = check_landmarks(landmarks, eps.size)
        lt = landmark_tpl(eps, lm, lb, lf)
    return LeakageResult(epsilon_t=eps, bpl=a, fpl=f, tpl=a + f - eps, landmark_tpl=lt,
                         landmarks=lm)
