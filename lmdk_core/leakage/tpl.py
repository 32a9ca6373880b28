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

**Landmark TPL** (seed "landmark privacy under temporal correlation", DESIGN.md):
for a timestamp t let ``S = sorted(L ∪ {t})``; for each ``i ∈ S`` with predecessor
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

from lmdk_core.leakage.loss import LossFunction, as_loss
from lmdk_core.validation import InputError, check_epsilon_array, check_landmarks

__all__ = [
    "LeakageResult",
    "bpl",
    "fpl",
    "tpl",
    "landmark_tpl",
    "temporal_leakage",
    "segment_bpl",
    "segment_fpl",
    "check_allocation",
]

LossLike = LossFunction | ArrayLike


def check_allocation(epsilon_t: ArrayLike, name: str = "the allocation") -> np.ndarray:
    """A per-timestamp budget: 1-D, at least one value, finite, >= 0."""
    eps = check_epsilon_array(epsilon_t, allow_zero=True, name=name)
    if eps.ndim != 1 or eps.size == 0:
        raise InputError(f"{name} must hold one budget per timestamp (at least one)")
    return eps


def _losses(backward: LossLike, forward: LossLike | None) -> tuple[LossFunction, LossFunction]:
    lb = as_loss(backward, "the backward matrix")
    lf = lb if forward is None else as_loss(forward, "the forward matrix")
    if lf.n_states != lb.n_states:
        raise InputError(
            f"the backward matrix has {lb.n_states} states but the forward matrix has "
            f"{lf.n_states}; both must describe the same states"
        )
    return lb, lf


def _run(eps: np.ndarray, loss: LossFunction, restart: np.ndarray | None = None) -> np.ndarray:
    """``out[t] = L(out[t-1]) + eps[t]`` from ``out[-1] = 0``; restart (state 0) after
    every t with ``restart[t]``."""
    out = np.empty(eps.size)
    if loss.is_zero:
        out[:] = eps
        return out
    f = loss.scalar
    a = 0.0
    e = eps.tolist()
    if restart is None:
        for t in range(len(e)):
            a = f(a) + e[t]
            out[t] = a
    else:
        r = restart.tolist()
        for t in range(len(e)):
            a = f(a) + e[t]
            out[t] = a
            if r[t]:
                a = 0.0
    return out


def bpl(epsilon_t: ArrayLike, backward: LossLike) -> np.ndarray:
    """Backward privacy leakage: ``a_0 = ε_0``, ``a_t = L_B(a_{t-1}) + ε_t`` (Cao et al.)."""
    eps = check_allocation(epsilon_t)
    return _run(eps, as_loss(backward, "the backward matrix"))


def fpl(epsilon_t: ArrayLike, forward: LossLike) -> np.ndarray:
    """Forward privacy leakage: ``f_{T-1} = ε_{T-1}``, ``f_t = L_F(f_{t+1}) + ε_t``."""
    eps = check_allocation(epsilon_t)
    return _run(eps[::-1], as_loss(forward, "the forward matrix"))[::-1].copy()


def tpl(epsilon_t: ArrayLike, backward: LossLike, forward: LossLike | None = None) -> np.ndarray:
    """Temporal privacy leakage ``tpl_t = BPL_t + FPL_t − ε_t`` (forward defaults to backward)."""
    eps = check_allocation(epsilon_t)
    lb, lf = _losses(backward, forward)
    return _run(eps, lb) + _run(eps[::-1], lf)[::-1] - eps


def segment_bpl(epsilon_t: ArrayLike, landmarks: Iterable[int] | None, backward: LossLike):
    """BPL restarted after every landmark: at t, the recursion from (last landmark < t)+1."""
    eps = check_allocation(epsilon_t)
    lm = check_landmarks(landmarks, eps.size)
    mark = np.zeros(eps.size, dtype=bool)
    mark[lm] = True
    return _run(eps, as_loss(backward, "the backward matrix"), mark)


def segment_fpl(epsilon_t: ArrayLike, landmarks: Iterable[int] | None, forward: LossLike):
    """FPL restarted before every landmark: at t, the recursion from (next landmark > t)−1."""
    eps = check_allocation(epsilon_t)
    lm = check_landmarks(landmarks, eps.size)
    mark = np.zeros(eps.size, dtype=bool)
    mark[lm] = True
    return _run(eps[::-1], as_loss(forward, "the forward matrix"), mark[::-1])[::-1].copy()


def _lockstep(eps: np.ndarray, loss: LossFunction, start: np.ndarray, length: np.ndarray,
              step: int) -> np.ndarray:
    """Many recursions at once: chain c applies ``v = L(v) + eps[j]`` for
    ``j = start[c], start[c] + step, ...`` (``length[c]`` terms) from ``v = 0``.

    Chains are ordered by length so the live ones form a prefix of the vector.
    """
    out = np.zeros(start.size)
    if start.size == 0:
        return out
    order = np.argsort(-length, kind="stable")
    st = start[order]
    ln = length[order]
    v = np.zeros(start.size)
    steps = int(ln.max())
    alive = np.searchsorted(-ln, -np.arange(steps), side="left")  # #(ln > m) at step m
    zero = loss.is_zero
    for m in range(steps):
        c = int(alive[m])
        j = st[:c] + step * m
        if zero:
            v[:c] = eps[j]
        else:
            v[:c] = loss.evaluate(v[:c]) + eps[j]
    out[order] = v
    return out


def _merged_sweep(eps: np.ndarray, loss: LossFunction, js: range) -> np.ndarray:
    """Chains born one per step, all advanced by the same map at each step.

    At step ``m`` every live chain does ``v = L(v) + eps[js[m]]`` and a new chain starts
    with ``v = eps[js[m]]`` (= L(0) + eps). Returns the final value of each chain in
    birth order. Chains are kept ordered by age; since the maps are monotone, chains that
    become *bitwise equal* stay equal for ever, so they are merged — exact. The oldest
    chains coincide first (they have been contracted longest), so merging is done at the
    front; with a contractive L only a few distinct chains stay alive.
    """
    size = len(js)
    vals = np.empty(size)
    cnt = np.ones(size, dtype=np.int64)
    lo = 0  # live chains are vals[lo:hi], oldest first
    hi = 0
    ev = loss.evaluate
    sc = loss.scalar
    zero = loss.is_zero
    for j in js:
        e = float(eps[j])
        live = hi - lo
        if live:
            if zero:
                vals[lo:hi] = e
            elif live <= 8:
                for i in range(lo, hi):
                    vals[i] = sc(float(vals[i])) + e
            else:
                vals[lo:hi] = ev(vals[lo:hi]) + e
        vals[hi] = e
        hi += 1
        while hi - lo > 1 and vals[lo] == vals[lo + 1]:
            cnt[lo + 1] += cnt[lo]
            lo += 1
    return np.repeat(vals[lo:hi], cnt[lo:hi])


#: gaps (regular timestamps between two landmarks) longer than this use the merged sweep
_SWEEP_GAP = 1024


def _restarted(eps: np.ndarray, loss: LossFunction, t: np.ndarray, anchor: np.ndarray,
               direction: int) -> np.ndarray:
    """For each regular t, the recursion restarted next to t and run to its landmark.

    ``direction = -1``: FPL restarted at t−1 run down to ``anchor`` (the landmark before
    t); ``+1``: BPL restarted at t+1 run up to ``anchor`` (the landmark after t).
    Short gaps run together in lockstep; long gaps use :func:`_merged_sweep`.
    """
    out = np.empty(t.size)
    length = np.abs(anchor - t)  # number of terms
    gap_id, first = np.unique(anchor, return_index=True)
    del gap_id
    sizes = np.diff(np.r_[first, t.size])
    # t is sorted and grouped by anchor (consecutive regular timestamps of one gap)
    small = np.zeros(t.size, dtype=bool)
    for f, sz in zip(first.tolist(), sizes.tolist(), strict=True):
        if sz <= _SWEEP_GAP:
            small[f : f + sz] = True
            continue
        tt = t[f : f + sz]
        a = int(anchor[f])
        if direction < 0:  # chain of t runs t−1 ... a; the oldest chain is t = tt[-1]
            vals = _merged_sweep(eps, loss, range(int(tt[-1]) - 1, a - 1, -1))
            out[f : f + sz] = vals[::-1]
        else:  # chain of t runs t+1 ... a; the oldest chain is t = tt[0]
            vals = _merged_sweep(eps, loss, range(int(tt[0]) + 1, a + 1))
            out[f : f + sz] = vals
    if np.any(small):
        out[small] = _lockstep(eps, loss, t[small] + direction, length[small], direction)
    return out


def landmark_tpl(
    epsilon_t: ArrayLike,
    landmarks: Iterable[int] | None,
    backward: LossLike,
    forward: LossLike | None = None,
) -> np.ndarray:
    """Landmark TPL for every t (definition in the module docstring; DESIGN.md).

    Computed for all t together in ``O(T)`` recursion steps plus the per-gap ones:
    the segment recursions between consecutive landmarks are shared by every t
    outside them, so only the two landmarks around t change —
    ``FPL`` of the landmark before t now restarts at ``t−1`` and ``BPL`` of the
    landmark after t restarts at ``t+1``. Those recursions run for all t at once as
    numpy vectors: short gaps together (:func:`_lockstep`), long gaps in one sweep each
    that merges recursions once they coincide (:func:`_merged_sweep`) — at most
    ``Σ_gaps gap²`` loss evaluations, far fewer when L is contractive.
    """
    eps = check_allocation(epsilon_t)
    T = eps.size
    lm = check_landmarks(landmarks, T)
    lb, lf = _losses(backward, forward)
    mark = np.zeros(T, dtype=bool)
    mark[lm] = True
    sb = _run(eps, lb, mark)  # BPL from (previous landmark)+1
    sf = _run(eps[::-1], lf, mark[::-1])[::-1]  # FPL from (next landmark)−1
    out = np.empty(T)
    base = float(np.sum(sb[lm] + sf[lm] - eps[lm])) if lm.size else 0.0
    out[lm] = base
    regular = np.flatnonzero(~mark)
    if regular.size == 0:
        return out
    # previous / next landmark of every regular t (−1 / T when none)
    if lm.size:
        pos = np.searchsorted(lm, regular)
        prev = np.where(pos > 0, lm[np.maximum(pos - 1, 0)], -1)
        nxt = np.where(pos < lm.size, lm[np.minimum(pos, lm.size - 1)], T)
    else:
        prev = np.full(regular.size, -1)
        nxt = np.full(regular.size, T)
    val = base + sb[regular] + sf[regular] - eps[regular]
    # landmark before t: FPL restarted at t−1 down to prev (t − prev terms)
    has = prev >= 0
    if np.any(has):
        fnew = _restarted(eps, lf, regular[has], prev[has], -1)
        val[has] += fnew - sf[prev[has]]
    # landmark after t: BPL restarted at t+1 up to next (next − t terms)
    has = nxt < T
    if np.any(has):
        bnew = _restarted(eps, lb, regular[has], nxt[has], +1)
        val[has] += bnew - sb[nxt[has]]
    out[regular] = val
    return out


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

    ``forward`` defaults to ``backward`` (the same matrix both ways).
    """
    eps = check_allocation(epsilon_t)
    lb, lf = _losses(backward, forward)
    a = _run(eps, lb)
    f = _run(eps[::-1], lf)[::-1].copy()
    lt = None
    lm = None
    if landmarks is not None:
        lm = check_landmarks(landmarks, eps.size)
        lt = landmark_tpl(eps, lm, lb, lf)
    return LeakageResult(epsilon_t=eps, bpl=a, fpl=f, tpl=a + f - eps, landmark_tpl=lt,
                         landmarks=lm)
