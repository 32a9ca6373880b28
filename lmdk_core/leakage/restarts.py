r"""The restarted recursions of landmark TPL, run for every timestamp at once.

Landmark TPL (Katsomallos et al., CODASPY'22, on Cao, Yoshikawa, Xiao, Xiong's BPL/FPL,
ICDE'17 / TKDE'18; definition in :mod:`~lmdk_core.leakage.tpl` and docs/definitions.md)
of a regular timestamp t differs from the shared segment recursions only at the two
landmarks around t: FPL of the landmark before t restarts at ``t − 1`` and BPL of the
landmark after t restarts at ``t + 1``. :func:`restarted` runs those recursions for all
t as one numpy vector; :class:`Gaps` holds the shared part and adds the corrections.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.leakage.loss import LossFunction

__all__ = ["Gaps", "restarted"]

#: a restarted recursion stops once it is within this relative distance of the segment
#: recursion at the same timestamp (see :func:`restarted`)
_MERGE_RTOL = 1e-13


def restarted(eps: np.ndarray, loss: LossFunction, t: np.ndarray, anchor: np.ndarray,
               direction: int, segment: np.ndarray) -> np.ndarray:
    """For each regular t, the recursion restarted next to t and run to its landmark.

    ``direction = -1``: FPL restarted at t−1 run down to ``anchor`` (the landmark before
    t); ``+1``: BPL restarted at t+1 run up to ``anchor`` (the landmark after t).
    ``segment`` is the same recursion restarted at the far end of t's gap
    (``segment_fpl`` / ``segment_bpl`` of :mod:`~lmdk_core.leakage.tpl`): an older run
    of the same maps ``v ↦ L(v) + ε_j``.

    All recursions advance together as one numpy vector, one timestamp per step. The
    maps are monotone and non-expansive (``|L(a) − L(b)| <= |a − b|``), so once the run
    of t is within ``_MERGE_RTOL`` (relative) of ``segment`` at the same timestamp, its
    final value is ``segment[anchor]`` to within that distance; it stops there. With a
    contractive ``L`` (any correlation short of deterministic transitions) the runs meet
    the segment run after a few dozen steps, so the work is ``O(T·K)`` for a mixing
    length K instead of ``Σ_gaps gap²/2``; without contraction (``L(α) = α``, perfect
    correlation) it is that sum, as the definition requires.
    """
    out = np.empty(t.size)
    idx = np.arange(t.size)
    anc = anchor
    pos = t + direction
    v = eps[pos].copy()  # L(0) + ε = ε
    zero = loss.is_zero
    ev = loss.evaluate
    live = np.ones(t.size, dtype=bool)
    n_live = t.size
    while True:
        ref = segment[pos]
        at_end = pos == anc
        fin = np.abs(v - ref) <= _MERGE_RTOL * ref
        fin |= at_end
        fin &= live
        if fin.any():
            end = fin & at_end
            met = fin & ~at_end
            out[idx[end]] = v[end]
            out[idx[met]] = segment[anc[met]]
            live &= ~fin
            n_live -= int(np.count_nonzero(fin))
            if n_live == 0:
                return out
            if n_live < 0.75 * live.size:  # compact; finished runs otherwise idle in place
                idx, anc, pos, v = idx[live], anc[live], pos[live], v[live]
                live = np.ones(n_live, dtype=bool)
        if n_live == live.size:
            pos = pos + direction
        else:
            pos = pos + np.where(live, direction, 0)
        v = eps[pos] if zero else ev(v) + eps[pos]


@dataclass
class Gaps:
    """The shared part of the landmark TPL of every t: the segment recursions ``sb``
    (BPL from the previous landmark + 1) and ``sf`` (FPL from the next landmark − 1),
    the landmarks' own sum ``base = Σ_{l∈L} sb_l + sf_l − ε_l``, and for each regular t
    its previous / next landmark (−1 / T when none) and the upper bound
    ``upper_t = base + sb_t + sf_t − ε_t`` of its landmark TPL."""

    eps: np.ndarray
    lm: np.ndarray
    lb: LossFunction
    lf: LossFunction
    sb: np.ndarray
    sf: np.ndarray
    base: float
    regular: np.ndarray
    prev: np.ndarray
    nxt: np.ndarray
    upper: np.ndarray

    def exact(self, sel: np.ndarray) -> np.ndarray:
        """The landmark TPL of the regular timestamps ``regular[sel]``: ``upper`` plus
        the two corrections of the landmarks around t — ``FPL`` of the landmark before t
        restarted at ``t−1`` and ``BPL`` of the landmark after t restarted at ``t+1``
        (each run independent of the others: a subset gives the same values)."""
        eps, sb, sf = self.eps, self.sb, self.sf
        regular, prev, nxt = self.regular[sel], self.prev[sel], self.nxt[sel]
        val = self.upper[sel].copy()
        # landmark before t: FPL restarted at t−1 down to prev (t − prev terms)
        has = prev >= 0
        if np.any(has):
            fnew = restarted(eps, self.lf, regular[has], prev[has], -1, sf)
            val[has] += fnew - sf[prev[has]]
        # landmark after t: BPL restarted at t+1 up to next (next − t terms)
        has = nxt < eps.size
        if np.any(has):
            bnew = restarted(eps, self.lb, regular[has], nxt[has], +1, sb)
            val[has] += bnew - sb[nxt[has]]
        return val
