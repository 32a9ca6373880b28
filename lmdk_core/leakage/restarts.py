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
from typing import NamedTuple

import numpy as np

from lmdk_core.leakage.loss import LossFunction

__all__ = ["MERGE_RTOL", "SAFE_SEGMENT_ALPHA", "Gaps", "RestartedPair", "restarted",
           "restarted_both"]

#: a restarted recursion stops once it is within this relative distance of the segment
#: recursion at the same timestamp (see :func:`restarted`; also the loop of
#: :mod:`~lmdk_core.leakage.tpl_many`)
MERGE_RTOL = 1e-13
#: segment runs at most this large keep every restarted run below the loss function's
#: log branch (:data:`~lmdk_core.leakage.loss.LOG_BRANCH_ALPHA`, α > 700) with a margin
#: of e^50: the loops skip its per-step check (a restarted run never exceeds its segment
#: run: monotone maps from a smaller start)
SAFE_SEGMENT_ALPHA = 650.0


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
    of t is within ``MERGE_RTOL`` (relative) of ``segment`` at the same timestamp, its
    final value is ``segment[anchor]`` to within that distance; it stops there. With a
    contractive ``L`` (any correlation short of deterministic transitions) the runs meet
    the segment run after a few dozen steps, so the work is ``O(T·K)`` for a mixing
    length K instead of ``Σ_gaps gap²/2``; without contraction (``L(α) = α``, perfect
    correlation) it is that sum, as the definition requires.
    """
    steps = np.full(t.size, direction, dtype=np.intp)
    return _Runs(eps, (loss, loss), t.size, steps, segment,
                 np.zeros(t.size, dtype=np.intp)).run(t, anchor)


class RestartedPair(NamedTuple):
    """The restarted recursions of :func:`restarted_both`, each as :func:`restarted`
    gives it: the forward leakage (the runs down, ``fpl``) and the backward leakage (the
    runs up, ``bpl``)."""

    forward: np.ndarray
    backward: np.ndarray


def restarted_both(eps: np.ndarray, losses: tuple[LossFunction, LossFunction],
                   fpl: tuple[np.ndarray, np.ndarray], bpl: tuple[np.ndarray, np.ndarray],
                   sf: np.ndarray, sb: np.ndarray) -> RestartedPair:
    """:func:`restarted` down (``fpl = (t, landmark before t)``, loss ``losses[0]``,
    against ``sf``) and up (``bpl = (t, landmark after t)``, loss ``losses[1]``, against
    ``sb``) in ONE vector.

    Every run does the same operations on the same numbers as in :func:`restarted`
    (numpy's element-wise functions give each element the same double wherever it sits
    in the vector, and each run looks its loss function's hull vertex up in its own
    table), so both results are bit for bit those of two separate calls; the loop's
    fixed cost per step (a dozen numpy calls on short vectors) is paid once instead of
    twice (tests/engine/test_leakage_fused.py)."""
    (tf, af), (tb, ab) = fpl, bpl
    nf = tf.size
    steps = np.r_[np.full(nf, -1, dtype=np.intp), np.full(tb.size, 1, dtype=np.intp)]
    # the runs up read their segment run from the second half of one array
    offset = np.r_[np.zeros(nf, dtype=np.intp), np.full(tb.size, sf.size, dtype=np.intp)]
    out = _Runs(eps, losses, nf, steps, np.r_[sf, sb], offset).run(np.r_[tf, tb],
                                                                   np.r_[af, ab])
    return RestartedPair(out[:nf], out[nf:])


class _Runs:
    """The loop of :func:`restarted`: run i starts at ``t_i + steps_i``, moves by
    ``steps_i`` (±1) to ``anchor_i`` and compares with ``segment[pos + offset_i]``; the
    first ``split`` runs use ``losses[0]``, the others ``losses[1]``."""

    def __init__(self, eps: np.ndarray, losses: tuple[LossFunction, LossFunction],
                 split: int, steps: np.ndarray, segment: np.ndarray, offset: np.ndarray):
        self.eps, self.losses, self.split = eps, losses, split
        self.step, self.segment, self.off = steps, segment, offset
        l0, l1 = losses
        self.same = l0 is l1
        self.zero = l0.is_zero and l1.is_zero
        # both hulls' vertex tables end to end: a run of the second loss reads its vertex
        # at its own index + the first table's length
        self.qmd = l0._wQmD if self.same else np.r_[l0._wQmD, l1._wQmD]
        self.d = l0._wD if self.same else np.r_[l0._wD, l1._wD]
        self.shift = l0._wD.size
        # a restarted run never exceeds the segment run it is compared with (monotone
        # maps from a smaller start), so below the loss function's log branch (α > 700)
        # with a margin of e^50 for rounding, no run can reach it: no check per step
        self.small = not (l0.is_zero or l1.is_zero) and (
            segment.size == 0 or float(segment.max()) <= SAFE_SEGMENT_ALPHA)

    def evaluate(self, v: np.ndarray) -> np.ndarray:
        """``L(v)`` of every run with its own loss function: the operations of
        :meth:`LossFunction.evaluate` (``log1p((Q − D)·x / (1 + D·x))``, ``x = expm1(v)``,
        the hull vertex by ``searchsorted``), one numpy call each for all runs."""
        l0, l1 = self.losses
        s = self.split
        if not self.small:  # the loss functions' own checks (zero, log branch)
            return l0.evaluate(v) if self.same else np.r_[l0.evaluate(v[:s]),
                                                          l1.evaluate(v[s:])]
        x = np.expm1(v)
        if self.same:
            k = l0._x_thr.searchsorted(x, side="right")
        else:
            k = np.empty(v.size, dtype=np.intp)
            k[:s] = l0._x_thr.searchsorted(x[:s], side="right")
            k[s:] = l1._x_thr.searchsorted(x[s:], side="right") + self.shift
        return np.log1p(self.qmd.take(k) * x / (1.0 + self.d.take(k) * x))

    def run(self, t: np.ndarray, anchor: np.ndarray) -> np.ndarray:
        """The final value of every run (see :func:`restarted`)."""
        eps, segment = self.eps, self.segment
        out = np.empty(t.size)
        idx = np.arange(t.size)
        anc, step, off = anchor, self.step, self.off
        pos = t + step
        v = eps[pos].copy()  # L(0) + ε = ε
        live = np.ones(t.size, dtype=bool)
        n_live = t.size
        while True:
            ref = segment[pos + off]
            at_end = pos == anc
            fin = np.abs(v - ref) <= MERGE_RTOL * ref
            fin |= at_end
            fin &= live
            if fin.any():
                end = fin & at_end
                met = fin & ~at_end
                out[idx[end]] = v[end]
                out[idx[met]] = segment[anc[met] + off[met]]
                live &= ~fin
                n_live -= int(np.count_nonzero(fin))
                if n_live == 0:
                    return out
                if n_live < 0.75 * live.size:  # compact; finished runs otherwise idle
                    self.split = int(np.count_nonzero(live[:self.split]))
                    idx, anc, pos, v = idx[live], anc[live], pos[live], v[live]
                    step, off = step[live], off[live]
                    live = np.ones(n_live, dtype=bool)
            pos = pos + step if n_live == live.size else pos + step * live
            v = eps[pos] if self.zero else self.evaluate(v) + eps[pos]


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
        # landmark before t: FPL restarted at t−1 down to prev (t − prev terms);
        # landmark after t: BPL restarted at t+1 up to next (next − t terms)
        down, up = prev >= 0, nxt < eps.size
        if np.any(down) and np.any(up):
            fnew, bnew = restarted_both(eps, (self.lf, self.lb), (regular[down], prev[down]),
                                        (regular[up], nxt[up]), sf, sb)
            val[down] += fnew - sf[prev[down]]
            val[up] += bnew - sb[nxt[up]]
            return val
        if np.any(down):
            fnew = restarted(eps, self.lf, regular[down], prev[down], -1, sf)
            val[down] += fnew - sf[prev[down]]
        if np.any(up):
            bnew = restarted(eps, self.lb, regular[up], nxt[up], +1, sb)
            val[up] += bnew - sb[nxt[up]]
        return val
