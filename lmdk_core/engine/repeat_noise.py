"""Fresh post-processing noise on every value a release shows more than once.

A release shows one noisy value at several timestamps in two places: a **stay**
released as one landmark event (every fix of the stay shows the stay's noisy
centroid, :mod:`lmdk_core.engine.stay_events`), and an **approximation** (Skip's
landmarks, Adaptive's skips: the last publication repeated,
:mod:`lmdk_core.engine.release`). Published as they are, these make runs of identical
values, and a run gives away which timestamps are landmarks — a stay's arrival and
departure times (issue: "Nothing published gives away what it protects").

So every such timestamp publishes the repeated value **plus fresh noise of the
regular law**: the mechanism's noise (Laplace, two-sided Geometric, Planar Laplace —
Dwork et al., TCC 2006; Ghosh et al., STOC 2009; Andrés et al., CCS 2013) at the
budget the scheme plans for a regular timestamp (:func:`regular_share`; a public
setting once the landmark bound k is declared). The fresh noise is drawn from no
raw data — its input is the already released value and public settings — so it is
**post-processing** and costs no budget (Dwork & Roth 2014, Prop. 2.1): ε_t stays 0
there and the verifier's totals do not change.

Why the runs disappear and what the differences look like (docs/privacy-model.md,
"Repeated values"): with ``o_t = ĉ + W_t`` (ĉ the repeated value, W_t i.i.d. of the
regular law), two consecutive repeated points differ by ``W_t − W_{t−1}``, the
difference of two independent draws of the regular noise — exactly the law of the
difference ``Z_t − Z_{t−1}`` of two regular publications of a place that did not move
(``x_t = x_{t−1}``). A continuous noise law repeats a value with probability 0.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.engine.share_allocation import ShareAllocation, first_outside
from lmdk_core.foundation.sorted_unique import distinct_sorted
from lmdk_core.mechanisms import Mechanism

__all__ = ["regular_share", "renoise", "renoise_at"]


def regular_share(planned: np.ndarray | ShareAllocation, landmarks: np.ndarray) -> float:
    """The budget ε_reg the scheme plans for a regular timestamp: its planned ε_t at the
    first timestamp outside ``landmarks`` (every scheme plans one share for all of them:
    event ε, user ε/T, w-event ε/w, Uniform and Adaptive's start ε/(k+1), Skip ε); the
    largest planned share when every timestamp is a landmark; 0 when nothing is
    planned (nothing is then released, so nothing is repeated). ``planned`` may be a
    static scheme's plan in compact form (the same share, read without its array)."""
    if isinstance(planned, ShareAllocation):
        return _regular_share_of_plan(planned, landmarks)
    p = np.asarray(planned, dtype=float)
    if not p.size:
        return 0.0
    # the first timestamp outside L: the first k with lm[k] != k (no mask of the series)
    first = first_outside(distinct_sorted(np.asarray(landmarks, dtype=np.intp) % p.size), p.size)
    if first < p.size:
        share = float(p[first])
        if share > 0:
            return share
    return float(p.max())


def _regular_share_of_plan(plan: ShareAllocation, landmarks: np.ndarray) -> float:
    """:func:`regular_share` of ``plan``'s array: ε_t is ``share`` off ``zero_at`` and 0
    on it, so its value at the first regular timestamp is one lookup and its largest
    value ``share`` (0 when every timestamp is in ``zero_at``)."""
    T = plan.length
    if not T:
        return 0.0
    first = first_outside(distinct_sorted(np.asarray(landmarks, dtype=np.intp) % T), T)
    if first < T and plan.share > 0:
        i = int(np.searchsorted(plan.zero_at, first))
        if not (i < plan.zero_at.size and plan.zero_at[i] == first):
            return float(plan.share)
    values = ([plan.share] if plan.zero_at.size < T else []) + ([0.0] if plan.zero_at.size else [])
    return float(max(values))


def renoise(released: np.ndarray, repeated: np.ndarray, mechanism: Mechanism, share: float,
            gen: np.random.Generator, *, in_place: bool = False) -> np.ndarray:
    """``released`` with fresh noise of the regular law added at every ``repeated``
    timestamp: ``o_t = released_t + W_t``, ``W_t`` the mechanism's noise at budget
    ``share`` (ε_reg), independent of everything else (post-processing: no budget).
    Withheld (NaN) values stay withheld. Returns a new array, or ``released`` itself
    changed where it was repeated with ``in_place`` (a float array the caller owns).

    The repeated timestamps are gathered by index (in increasing order, as a boolean
    mask gathers them, so the draws are the same) and only they are checked for NaN:
    no copy of the mask, no NaN test of the whole series."""
    out = released if in_place else np.array(released, dtype=float, copy=True)
    return renoise_at(out, np.flatnonzero(np.asarray(repeated, dtype=bool)), mechanism, share,
                      gen)


def renoise_at(released: np.ndarray, idx: np.ndarray, mechanism: Mechanism, share: float,
               gen: np.random.Generator) -> np.ndarray:
    """:func:`renoise` in place at the timestamps ``idx`` (increasing): ``released``
    itself, changed there (the same draws as the mask ``repeated`` with those
    timestamps set)."""
    out = released
    if not idx.size or share <= 0:
        return out
    vals = out[idx]
    idx = idx[~(np.isnan(vals) if vals.ndim == 1 else np.isnan(vals).any(axis=1))]
    if idx.size:
        out[idx] = np.asarray(mechanism.perturb(out[idx], share, gen), dtype=float)
    return out
