"""The one verifier of the landmark-privacy theorem.

**Theorem (landmark privacy; Katsomallos et al., CODASPY 2022; docs/definitions.md).** A
release made of independent per-timestamp ε_t-DP mechanisms satisfies landmark ε-privacy
if for every timestamp t::

    Σ_{i ∈ L ∪ {t}} ε_i  <=  ε

(landmarks compose with each other and with the current timestamp; regular
timestamps never compose with each other). The condition is **sufficient**; it is also
necessary only when every mechanism's ε_t is tight (no smaller ε'_t would do, as for
Laplace noise of scale Δf/ε_t on a query whose sensitivity Δf is attained): a
"NOT landmark-private" verdict means the theorem does not certify the allocation, not
that an attack exists. Every allocation the engine releases or the app shows goes
through :func:`verify`.

**Smallest budget.** :func:`verify` refuses a total ε below :data:`EPSILON_MIN` (1e-300,
the bottom of the Laplace mechanism's usable range at Δf = 1, below which no release is
made): there the budgets are at the bottom of the floating-point range, and a rounding
allowance of a few ulps would no longer be a small fraction of ε (at ε = 5e-324 one ulp
*is* ε). For every accepted ε the allowance is at most ``4·n·2⁻⁵²·ε``.


**Grouped form (stays as events; docs/stays.md).** When one mechanism reads several
timestamps — a stay released once, from its fixes — those timestamps form a *group* g
whose budget ε_g is the sum of the ε_i spent inside it, and the theorem's sum runs over
the groups that L ∪ {t} touches::

    Σ_{g : g ∩ (L ∪ {t}) ≠ ∅} ε_g  <=  ε

Every timestamp outside the given groups is a group of its own, so without groups this
is the per-timestamp form above.

**A budget shared by every set (a DP estimate read from the whole series).** A mechanism
that reads the whole series once and is itself landmark ε_S-private — every set L ∪ {t}
of at most k landmarks plus one timestamp may change its input, e.g. the noisy
transition counts of a correlation model estimated with differential privacy
(docs/correlation.md) — composes sequentially with every set, so the theorem becomes
``ε_S + Σ_{i ∈ L ∪ {t}} ε_i <= ε`` (argument ``shared`` of :func:`verify`): the totals
the verdict reports then include ε_S and are compared with the stated total ε.
**The declared bound k** (``max_landmarks``; docs/privacy-model.md). A publishable release
states a public bound k on its landmark events instead of |L| (Uniform spends ε/(k+1)).
Told k, :func:`verify` also requires that the landmark events — landmarks outside every
group, plus the groups that hold a landmark — number at most k; otherwise the verdict
is "not landmark-private" (the release would protect fewer events than it states).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.share_allocation import ShareAllocation, first_outside
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.validation import check_epsilon, check_epsilon_array, check_landmarks

__all__ = ["EPSILON_MIN", "ShareTotals", "Verdict", "verify", "landmark_totals", "grouped_totals",
           "check_groups", "landmark_event_count", "share_totals", "tolerance", "TOLERANCE_ULPS"]

#: ulps of ε allowed per term of the theorem's sum (see :func:`tolerance`).
TOLERANCE_ULPS = 4
#: the smallest total ε the verifier judges (see the module docstring)
EPSILON_MIN = 1e-300


def tolerance(epsilon: float, terms: int) -> float:
    """Rounding allowance of the test ``Σ_{i∈L∪{t}} ε_i <= ε`` for a sum of ``terms``
    budgets: ``TOLERANCE_ULPS · terms · ulp(ε)`` (``ulp = numpy.spacing``).

    **Derivation.** Let u = 2⁻⁵³ be the unit roundoff. Every quantity the engine rounds
    while building and summing an allocation (a share ε/(|L|+1), Adaptive's
    ``ε_j += b/(k+1)``, a partial sum) is at most about ε, so each rounding moves it by at
    most ``u·|value| ≤ ulp(ε)`` (``ulp(ε) ≥ u·ε`` for normal ε; for subnormal ε the error
    of a rounding is at most half a subnormal spacing, also ≤ ulp(ε)). With n = |L∪{t}|
    terms:

    * building the terms: each share ε/(|L|+1) is one rounding (total error ≤ u·ε over
      all n terms, as the exact shares sum to ≤ ε); each landmark whose share b Adaptive
      hands on adds one division and one addition per recipient, whose errors are
      relative to the recipients' budgets, hence ≤ 2u·ε per handed-on share and at most
      |L| < n such shares;
    * summing n non-negative terms in any order (numpy's pairwise sum, then ``+ ε_t``):
      ≤ (n−1)·u·Σ (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2),
      plus one rounding of the final addition.

    So an allocation whose exact shares satisfy the theorem has a computed total of at
    most ε·(1 + 3n·u) + O(u²), below ``ε + 4·n·ulp(ε)``. Anything larger is a real
    overshoot: with ε = 1 and one landmark (n = 2) the allowance is 8 ulps ≈ 1.8e-15, so
    ``0.5 + 0.5000000009`` (overshoot 9e-10) is **not** private, while ε/3 + ε/3 + ε/3 and
    every Uniform / Skip / Adaptive allocation is (property-tested at many ε and |L|).
    """
    return float(TOLERANCE_ULPS * max(int(terms), 1) * np.spacing(abs(float(epsilon))))


@dataclass(frozen=True)
class Verdict:
    """Outcome of :func:`verify`.

    ``totals[t] = Σ_{i∈L∪{t}} ε_i``, ``slack[t] = ε - totals[t]`` (negative where the
    theorem is violated); ``worst_timestamp`` is the first t with the largest total.
    ``tolerance`` is the rounding allowance of :func:`tolerance` for |L|+1 terms: a
    total counts as within budget when it is ``<= ε + tolerance``.
    """

    private: bool
    worst_timestamp: int
    worst_total: float
    epsilon: float
    #: ``totals`` as an array, or in compact form (a static scheme's allocation,
    #: :class:`ShareTotals`) until something reads :attr:`totals`
    totals_form: np.ndarray | ShareTotals = field(repr=False)
    landmarks: np.ndarray
    tolerance: float = 0.0
    #: the groups (inclusive ranges start..end) each read by one mechanism; () = none
    groups: tuple[tuple[int, int], ...] = ()
    #: ε_S, a budget spent on the whole series that every total includes (0 = none)
    shared: float = 0.0
    #: the declared bound k on landmark events (None: not declared)
    max_landmarks: int | None = None
    #: the landmark events (landmarks outside groups + groups holding a landmark)
    landmark_events: int = 0

    @property
    def totals(self) -> np.ndarray:
        """``Σ_{i∈L∪{t}} ε_i`` (plus ε_S) per timestamp; built from the compact form when
        first read (then kept)."""
        form = self.totals_form
        if isinstance(form, ShareTotals):
            form = form.array()
            object.__setattr__(self, "totals_form", form)
        return form

    @property
    def slack(self) -> np.ndarray:
        """``ε − totals[t]`` per timestamp (negative where the theorem is violated),
        computed when asked: a release does not carry a second array of the series."""
        return self.epsilon - self.totals

    @property
    def exceeds_bound(self) -> bool:
        """More landmark events than the declared bound k."""
        return self.max_landmarks is not None and self.landmark_events > self.max_landmarks

    @property
    def violations(self) -> np.ndarray:
        """Timestamps whose total exceeds ε (beyond the tolerance)."""
        return np.flatnonzero(self.totals > self.epsilon + self.tolerance)

    def summary(self) -> str:
        """One plain-language sentence for a badge or a log line."""
        t, tot = self.worst_timestamp, self.worst_total
        with_shared = (f" (with ε_S = {self.shared:.4g} spent on the whole series)"
                       if self.shared else "")
        if self.exceeds_bound:
            n = self.landmark_events
            return (f"NOT landmark-private: {counted(n, 'landmark event')} "
                    f"{agree(n, 'is', 'are')} more than the declared bound k = "
                    f"{self.max_landmarks}")
        if self.private:
            return (
                f"Landmark-private: the largest total Σ over L∪{{t}} is {tot:.4g} "
                f"(at t={t}){with_shared} ≤ ε = {self.epsilon:.4g}"
            )
        n = self.violations.size
        return (
            f"NOT landmark-private: at t={t} the landmarks plus t spend {tot:.4g}"
            f"{with_shared} > ε = {self.epsilon:.4g} ({n} timestamp{'s' if n != 1 else ''} "
            "over budget)"
        )

    def to_dict(self) -> dict:
        """The CLI's JSON keys (``max_landmarks``: the declared k, when declared)."""
        out = {
            "landmark_private": bool(self.private),
            "worst_timestamp": int(self.worst_timestamp),
            "worst_total": float(self.worst_total),
        }
        if self.max_landmarks is not None:
            out["max_landmarks"] = int(self.max_landmarks)
        return out


def landmark_totals(epsilon_t: ArrayLike, landmarks: Iterable[int]) -> np.ndarray:
    """``Σ_{i∈L∪{t}} ε_i`` for every t, in O(T): the landmark sum plus ε_t off L."""
    eps = np.asarray(epsilon_t, dtype=float)
    lm = landmarks if isinstance(landmarks, np.ndarray) else np.asarray(list(landmarks))
    lm = lm.astype(int, copy=False)
    lsum = float(eps[lm].sum()) if lm.size else 0.0
    totals = eps.copy()  # ε_t off L (0 on L) plus the landmark sum, in place
    if lm.size:
        totals[lm] = 0.0
    totals += lsum
    return totals


def check_groups(groups: Iterable[tuple[int, int]] | None,
                 length: int, what: str = "stay") -> tuple[tuple[int, int], ...]:
    """Groups as sorted, disjoint inclusive ranges ``(start, end)`` inside ``0..length-1``
    (a group of one timestamp is allowed); anything else is an :class:`InputError`
    (``what`` names a group in it: a track's 'stay', a series' 'run')."""
    if groups is None:
        return ()
    out = sorted(_group_range(g, length, what) for g in groups)
    for (a0, b0), (a1, b1) in zip(out, out[1:], strict=False):
        if a1 <= b0:
            raise InputError(f"{what}s {a0}-{b0} and {a1}-{b1} overlap; a timestamp belongs "
                             f"to one {what} at most")
    return tuple(out)


def _group_range(g: Any, length: int, what: str = "stay") -> tuple[int, int]:
    """One group as ``(start, end)`` with ``0 <= start <= end < length`` (``g``: whatever
    the caller passed, checked here)."""
    try:
        a, b = (int(v) for v in g)
    except (TypeError, ValueError):
        raise InputError(f"a {what} must be a range start-end of timestamps, got {g!r}"
                         ) from None
    if not 0 <= a <= b < length:
        raise InputError(f"{what} {a}-{b} is not a range of timestamps 0 to {length - 1} "
                         "(start <= end)")
    return a, b


def grouped_totals(epsilon_t: ArrayLike, landmarks: Iterable[int],
                   groups: Iterable[tuple[int, int]]) -> np.ndarray:
    """``Σ_{g ∩ (L∪{t}) ≠ ∅} ε_g`` for every t, in O(T + |groups|).

    ``groups`` are disjoint inclusive ranges (see :func:`check_groups`); every other
    timestamp is its own group. ``ε_g`` is the sum of ``epsilon_t`` over g. With no
    groups this is :func:`landmark_totals`."""
    eps = np.asarray(epsilon_t, dtype=float)
    T = eps.size
    gid = np.arange(T)  # each timestamp's group, named by its first timestamp
    for a, b in groups:
        gid[a:b + 1] = a
    g_eps = np.bincount(gid, weights=eps, minlength=T)  # ε_g at the group's first t
    lm = landmarks if isinstance(landmarks, np.ndarray) else np.asarray(list(landmarks))
    hit = np.zeros(T, dtype=bool)  # groups touched by L
    if lm.size:
        hit[gid[lm.astype(int, copy=False)]] = True
    lsum = float(g_eps[hit].sum())
    own = g_eps[gid]
    return lsum + np.where(hit[gid], 0.0, own)


def landmark_event_count(landmarks: np.ndarray, groups: tuple[tuple[int, int], ...]) -> int:
    """The landmark events of ``landmarks``: each landmark outside every group once, each
    group holding a landmark once (a stay is one event, docs/stays.md)."""
    lm = np.asarray(landmarks, dtype=int)
    if not groups or not lm.size:
        return int(lm.size)
    starts = np.array([a for a, _ in groups])
    ends = np.array([b for _, b in groups])
    g = np.searchsorted(starts, lm, side="right") - 1  # the group starting at or before
    inside = (g >= 0) & (lm <= ends[np.maximum(g, 0)])
    return int((~inside).sum() + np.unique(g[inside]).size)


def verify(epsilon_t: ArrayLike | ShareAllocation, landmarks: Iterable[int] | None, epsilon: float,
           *, groups: Iterable[tuple[int, int]] | None = None, shared: float = 0.0,
           max_landmarks: int | None = None) -> Verdict:
    """Check an allocation ``epsilon_t`` (one ε_i >= 0 per timestamp) against the
    landmark-privacy theorem for landmark set ``landmarks`` and total budget ``epsilon``.

    ``groups`` (optional): inclusive ranges ``(start, end)`` of timestamps each read by
    one mechanism (a stay released once; docs/stays.md). The theorem is then checked in
    its grouped form (module docstring): a group counts with its whole budget as soon
    as L ∪ {t} touches it.

    Parameters
    ----------
    epsilon_t : array_like or ShareAllocation
        One budget ε_i ≥ 0 per timestamp, or a static scheme's allocation in compact
        form (one share, 0 on a set of timestamps;
        :class:`~lmdk_core.engine.share_allocation.ShareAllocation`), checked exactly
        without building the arrays (:func:`share_totals`; the same verdict, floats
        and messages as the array).
    landmarks : iterable of int or None
        The landmark set L (timestamps of ``epsilon_t``).
    epsilon : float
        The total budget ε (at least :data:`EPSILON_MIN`).
    groups : iterable of (int, int), optional
        Inclusive ranges of timestamps released by one mechanism each.
    shared : float, optional
        ε_S ≥ 0 spent by a landmark ε_S-private mechanism that reads the whole series
        (module docstring): added to every total.
    max_landmarks : int, optional
        The declared bound k on landmark events: more events than k make the verdict
        "not private" (module docstring).

    Returns
    -------
    Verdict
        ``private`` when ``max_t Σ_{i∈L∪{t}} ε_i ≤ ε`` (within :func:`tolerance`) and
        the landmark events are at most k when k is given, with the totals per
        timestamp and the worst one.

    Examples
    --------
    Uniform's ε/(|L|+1) passes; ε/|L| at every timestamp does not (Katsomallos et al.,
    CODASPY 2022, Theorem 1):

    >>> v = verify([1 / 3] * 5, [1, 3], 1.0)
    >>> v.private, round(v.worst_total, 12)
    (True, 1.0)
    >>> v = verify([0.5] * 5, [1, 3], 1.0)
    >>> v.private, v.worst_total, v.worst_timestamp
    (False, 1.5, 0)

    A correlation model estimated with ε_M = 0.2 leaves 0.8 to the release:

    >>> verify([0.8 / 3] * 5, [1, 3], 1.0, shared=0.2).private
    True
    >>> verify([1 / 3] * 5, [1, 3], 1.0, shared=0.2).private
    False
    >>> verify([0.25] * 5, [1, 3], 1.0, max_landmarks=1).private  # 2 events > k = 1
    False
    """
    eps_total = check_epsilon(epsilon)
    if eps_total < EPSILON_MIN:
        raise InputError(f"ε = {eps_total:.4g} is below the smallest total budget the "
                         f"verifier judges, {EPSILON_MIN:g} (no release is made below it; "
                         "the rounding allowance would be as large as ε): raise ε")
    compact: ShareAllocation | None = None
    if isinstance(epsilon_t, ShareAllocation):
        compact = epsilon_t
        size = _check_share_allocation(compact)
    else:
        eps = check_epsilon_array(epsilon_t, allow_zero=True, name="allocation")
        if eps.ndim != 1 or eps.size == 0:
            raise InputError("the allocation must hold one budget per timestamp (at least "
                             "one)")
        size = eps.size
    lm = check_landmarks(landmarks, size)
    grp = check_groups(groups, size)
    spent = float(shared)
    if not (np.isfinite(spent) and spent >= 0):
        raise InputError(f"the shared budget must be a finite number >= 0, got {shared!r}")
    if compact is not None and grp:  # the grouped form reads the array
        eps, compact = compact.array(), None
    terms = lm.size + 1  # |L ∪ {t}| <= |L| + 1 terms at every t
    totals: np.ndarray | ShareTotals
    if compact is not None:
        totals = share_totals(compact, lm, spent)
        worst, worst_total = totals.worst()
    else:
        if grp:
            totals = grouped_totals(eps, lm, grp)
            # the timestamps of the groups L touches (each holds a landmark: at most |L|
            # plus the groups' other members) and of t's group: at most
            # |L| + 1 + 2·Σ(|g| − 1)
            terms = lm.size + 1 + 2 * sum(b - a for a, b in grp)
        else:
            totals = landmark_totals(eps, lm)
        if spent > 0:
            totals = totals + spent
        worst = int(np.argmax(totals))
        worst_total = float(totals[worst])
    if spent > 0:
        terms += 1
    tol = tolerance(eps_total, terms)
    k = None if max_landmarks is None else _declared_bound(max_landmarks)
    events = landmark_event_count(lm, grp)
    within_k = k is None or events <= k
    return Verdict(
        private=bool(worst_total <= eps_total + tol) and within_k,
        worst_timestamp=worst,
        worst_total=worst_total,
        epsilon=eps_total,
        totals_form=totals,
        landmarks=lm,
        tolerance=tol,
        groups=grp,
        shared=spent,
        max_landmarks=k,
        landmark_events=events,
    )


def _declared_bound(max_landmarks: object) -> int:
    """k as an int >= 0 (InputError otherwise)."""
    if isinstance(max_landmarks, bool) or not isinstance(max_landmarks, (int, np.integer)) \
            or max_landmarks < 0:
        raise InputError(f"the declared bound k on landmark events must be a whole number "
                         f">= 0; got {max_landmarks!r}")
    return int(max_landmarks)


def _check_share_allocation(alloc: ShareAllocation) -> int:
    """The length of a compact allocation, after the checks :func:`verify` makes on an
    array (same messages): its values, ``share`` off ``zero_at`` and 0 on it, finite and
    >= 0, at least one timestamp, ``zero_at`` sorted unique timestamps."""
    length = int(alloc.length)
    if length < 1:
        raise InputError("the allocation must hold one budget per timestamp (at least one)")
    z = np.asarray(alloc.zero_at)
    if z.ndim != 1 or (z.size and (z[0] < 0 or z[-1] >= length
                                   or not bool(np.all(np.diff(z) > 0)))):
        raise InputError("the allocation's zero timestamps must be sorted, unique "
                         f"timestamps 0 to {length - 1}")
    present = ([alloc.share] if z.size < length else []) + ([0.0] if z.size else [])
    check_epsilon_array(present, allow_zero=True, name="allocation")
    return length


@dataclass(frozen=True, eq=False)
class ShareTotals:
    """The theorem's totals of a compact allocation: ``high`` at every timestamp outside
    ``low_at`` (sorted unique), ``low`` on it (see :func:`share_totals`)."""

    length: int
    high: float
    low: float
    low_at: np.ndarray

    def array(self) -> np.ndarray:
        """The totals, one per timestamp (a fresh array)."""
        out = np.full(self.length, self.high)
        out[self.low_at] = self.low
        return out

    def worst(self) -> tuple[int, float]:
        """``(argmax, max)`` of :meth:`array` without building it: the first timestamp
        outside ``low_at`` when ``high > low``, else 0 (every total is ``low``: none is
        high, or ``high == low``)."""
        first_high = first_outside(self.low_at, self.length)
        if first_high < self.length and self.high > self.low:
            return first_high, float(self.high)
        return 0, float(self.low)


def share_totals(alloc: ShareAllocation, landmarks: np.ndarray,
                 shared: float = 0.0) -> ShareTotals:
    """:func:`landmark_totals` (plus ``shared`` when > 0) of ``alloc`` in compact form.

    With ``ε_t = s`` off Z and 0 on Z, ``Λ = Σ_{i∈L} ε_i`` (summed as numpy sums
    ``ε[L]``: the same float), the total at t is ``Λ + ε_t`` off L and ``Λ + 0`` on L:
    ``s + Λ`` outside L ∪ Z, ``Λ`` on L ∪ Z (each plus ε_S when ε_S > 0), the very
    floating-point operations the array path does (tests/engine/test_share_allocation.py
    checks this on random allocations)."""
    lm = np.asarray(landmarks, dtype=int)
    z = np.asarray(alloc.zero_at, dtype=int)
    on_lm = np.full(lm.size, float(alloc.share))
    if lm.size and z.size:
        on_lm[np.isin(lm, z, assume_unique=True)] = 0.0
    lsum = float(on_lm.sum()) if lm.size else 0.0
    high = float(np.float64(alloc.share) + lsum)
    low = float(np.float64(0.0) + lsum)
    if shared > 0:
        high, low = high + shared, low + shared
    return ShareTotals(int(alloc.length), high, low, np.union1d(lm, z))
