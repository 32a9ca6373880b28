"""Budget over repeated releases: what a schedule of k releases guarantees in total.

An agency that publishes every week spends its budget again each week. For k releases
that are each ε-differentially private (each one landmark ε-private for its own
period; Katsomallos et al., "Landmark privacy", CODASPY 2022):

* **basic composition** (Dwork, McSherry, Nissim, Smith TCC 2006; Dwork & Roth,
  "The algorithmic foundations of differential privacy", Thm 3.16): the schedule is
  k·ε-DP;
* **advanced composition** (Dwork, Rothblum, Vadhan FOCS 2010; Dwork & Roth Thm 3.20):
  for any δ' > 0 it is (ε', δ')-DP with ``ε' = √(2k·ln(1/δ'))·ε + k·ε·(e^ε − 1)`` —
  smaller than k·ε when k is large and ε small, at the price of a failure
  probability δ'.

**What this means for landmarks.** An event that happens once lies in one release
and keeps that release's guarantee (ε). A landmark that *recurs* in every release —
home every night, the same weekly clinic visit — is one fact observed k times: all its
occurrences together are protected only at the composed level above. The per-release ε
for a total target is found by inverting either bound (:func:`per_release_epsilon`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon

__all__ = ["Schedule", "advanced_composition", "basic_composition", "per_release_epsilon",
           "schedule_summary"]

#: the default δ' of advanced composition
DEFAULT_DELTA = 1e-6


def _releases(k: int) -> int:
    if isinstance(k, bool) or int(k) != k or int(k) < 1:
        raise InputError(f"the number of releases must be a whole number ≥ 1, got {k!r}")
    if int(k) > 10**7:
        raise InputError("at most 10,000,000 releases")
    return int(k)


def _delta(delta: float) -> float:
    d = float(delta)
    if not 0 < d < 1:
        raise InputError(f"δ' must be strictly between 0 and 1, got {delta!r}")
    return d


def basic_composition(epsilon: float, k: int) -> float:
    """k·ε: the total of k ε-DP releases (sequential composition; Dwork & Roth, Thm 3.16).

    Examples
    --------
    >>> basic_composition(0.5, 10)
    5.0
    """
    out = _releases(k) * check_epsilon(epsilon)
    if not np.isfinite(out):
        raise InputError(f"{k:,} releases of ε = {epsilon:g} total more than the largest "
                         "float: give a smaller ε")
    return out


def advanced_composition(epsilon: float, k: int, delta: float = DEFAULT_DELTA) -> float:
    """ε' = √(2k·ln(1/δ'))·ε + k·ε·(e^ε − 1) (Dwork, Rothblum, Vadhan 2010).

    The k-fold composition of ε-DP releases is (ε', δ')-DP; it beats k·ε for many small
    releases.

    Examples
    --------
    >>> round(advanced_composition(0.1, 100), 4)
    6.3082
    """
    e = check_epsilon(epsilon)
    n = _releases(k)
    with np.errstate(over="ignore"):  # ε ≳ 710: e^ε − 1 is +inf
        out = float(np.sqrt(2 * n * np.log(1 / _delta(delta))) * e + n * e * np.expm1(e))
    if not np.isfinite(out):
        raise InputError(f"advanced composition of {n:,} releases of ε = {e:g} is larger "
                         "than the largest float (e^ε overflows): give a smaller ε")
    return out


#: relative error bound of the floating-point advanced-composition formula (a log, a
#: sqrt, an expm1 and five roundings, each ≤ 1 ulp): the inverse keeps this much margin
_ADVANCED_REL_ERROR = 16 * 2.0**-53


def _largest_double_with(ok, hi: float) -> float:
    """The largest double x in [0, hi] with ``ok(x)`` (``ok`` monotone: true up to some
    point, false beyond), by bisection on the ordered bit patterns of positive doubles."""
    lo_bits = 0  # 0.0, where ok holds
    hi_bits = int(np.float64(hi).view(np.int64))
    if ok(hi):
        return float(hi)
    while hi_bits - lo_bits > 1:
        mid = (lo_bits + hi_bits) // 2
        if ok(float(np.int64(mid).view(np.float64))):
            lo_bits = mid
        else:
            hi_bits = mid
    return float(np.int64(lo_bits).view(np.float64))


def per_release_epsilon(total: float, k: int, delta: float = DEFAULT_DELTA) -> dict:
    """The largest per-release ε whose k-fold composition stays within ``total``:
    by basic composition (total/k, δ = 0) and by advanced composition (the root of
    ε'(ε) = total; ε' is increasing in ε), and the better of the two.

    Both inverses are the largest double that never exceeds the target: basic is
    rounded down until k·ε ≤ total holds in exact (rational) arithmetic; advanced is the
    largest double whose computed ε'(ε), enlarged by its rounding-error bound
    (:data:`_ADVANCED_REL_ERROR`), is ≤ total — within a few ulps of the exact root
    (checked against 60-digit arithmetic in the tests)."""
    from fractions import Fraction

    tot = check_epsilon(total, "the total budget")
    n = _releases(k)
    d = _delta(delta)
    basic = tot / n
    while basic > 0 and Fraction(basic) * n > Fraction(tot):
        basic = float(np.nextafter(basic, 0.0))
    a = float(np.sqrt(2 * n * np.log(1 / d)))

    def ok(e: float) -> bool:
        with np.errstate(over="ignore"):
            v = a * e + n * e * float(np.expm1(e))
        return v * (1 + _ADVANCED_REL_ERROR) <= tot

    # ε'(ε) ≥ a·ε, ≥ k·ε², and ≥ e^ε − 1 ≥ total once ε ≥ max(1, ln(total) + 1): the root
    # lies below the smallest of these bounds, where nothing overflows
    hi = min(tot / a, float(np.sqrt(tot / n)), max(1.0, float(np.log(tot)) + 1.0))
    adv = _largest_double_with(ok, hi)
    best = "advanced" if adv > basic else "basic"
    return {"basic": basic, "advanced": adv, "best": best, "epsilon": max(basic, adv),
            "delta": d if best == "advanced" else 0.0}


@dataclass(frozen=True)
class Schedule:
    """k releases of ε each and the guarantee of each kind of event."""

    epsilon: float
    releases: int
    delta: float
    single_event: float
    recurring_basic: float
    recurring_advanced: float

    def to_dict(self) -> dict:
        return {"epsilon": self.epsilon, "releases": self.releases, "delta": self.delta,
                "single_event": self.single_event, "recurring_basic": self.recurring_basic,
                "recurring_advanced": self.recurring_advanced,
                "recurring_best": min(self.recurring_basic, self.recurring_advanced)}

    def sentences(self) -> list[str]:
        best = min(self.recurring_basic, self.recurring_advanced)
        how = ("advanced composition, with probability 1 − δ' = "
               f"{1 - self.delta:.6g}" if self.recurring_advanced < self.recurring_basic
               else "basic composition")
        return [
            f"An event that happens once (in one of the {self.releases} releases) keeps "
            f"that release's protection: ε = {self.single_event:.3g}.",
            f"All landmarks of one release together: ε = {self.epsilon:.3g} (landmark "
            "privacy).",
            f"A landmark that recurs in every release (home every night) is protected over "
            f"the whole schedule only at {best:.3g} ({how}; basic: "
            f"{self.recurring_basic:.3g}).",
        ]


def schedule_summary(epsilon: float, k: int, delta: float = DEFAULT_DELTA) -> Schedule:
    """The guarantees of k releases of ε each (see the module docstring)."""
    e = check_epsilon(epsilon)
    n = _releases(k)
    d = _delta(delta)
    return Schedule(e, n, d, e, basic_composition(e, n), advanced_composition(e, n, d))
