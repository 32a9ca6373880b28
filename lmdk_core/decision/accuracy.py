"""The accuracy a scheme reaches at a total budget ε, for a target stated in the data's units.

People who publish data state what they need in the data's units — "each released
reading within ±1 kWh of the truth with 95 % probability", "released positions within
300 m at 90 %", "a mean error of at most 0.5 kWh" — not in ε. For a scheme (event,
user, w-event, Uniform, Skip, Adaptive; Katsomallos et al., "Landmark privacy:
configurable differential privacy protection for time series", CODASPY 2022) this
module gives the accuracy reached at any ε; :mod:`lmdk_core.decision.epsilon_search`
solves for the smallest ε reaching a target.

**The error of one released reading.** At a timestamp t that is *published* with
budget ε_t the error is the mechanism's noise; at an *approximated* t (Skip's
landmarks, Adaptive's skips) the release shows the last publication s(t) < t plus fresh
noise W_t of the regular law (:mod:`lmdk_core.engine.repeat_noise`), so the error is the
data's change plus both noises, ``δ_t + Z_{s(t)} + W_t`` with ``δ_t = x_{s(t)} − x_t``
(every fix of a stay likewise, δ_t = the stay's centroid − x_t;
:mod:`lmdk_core.decision.fresh_noise_laws`). Withheld timestamps (nothing published
yet) are left out and counted. The exact laws of Laplace, two-sided Geometric and
Planar Laplace noise are in :mod:`lmdk_core.decision.noise_laws`.

**Three readings of a target.** ``each``: each released reading, on its own, meets it
(min over t of P(|err_t| ≤ a) ≥ p, or max over t of E|err_t| ≤ a) — a statement about
every reading separately, not about all of them together; ``typical``: a released
reading picked at random meets it (the mixture over the allocation's ε_t: mean over
t); ``all`` (kind ``within`` only): all released readings are within ±a *at once* with
probability p. ``each`` and ``typical`` coincide when every timestamp is published with
the same ε_t; ``all`` is stronger (with 20 independent readings at 95 % each, all 20
are within together only 0.95²⁰ ≈ 36 % of the time). For Laplace and Geometric noise
without repeated values ``all`` is exact (publications are independent: the product of
the readings' probabilities). With repeated values (each with its own fresh noise) and
for Planar Laplace it is the union (Bonferroni) lower bound 1 − Σ_t P(|err_t| > a).

The smallest ε that meets a target is searched by :mod:`lmdk_core.decision.epsilon_search`;
Adaptive's accuracy is estimated by simulation in
:mod:`lmdk_core.decision.adaptive_accuracy`; the data and mechanism all three evaluate
a target on, and each reading's offset and fresh noise, are in
:mod:`lmdk_core.decision.accuracy_model`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.accuracy_model import (
    AccuracyModel,
    accuracy_model,
    fresh_budgets,
    reading_offsets,
)
from lmdk_core.decision.fresh_noise_laws import (
    geometric_fresh_mean,
    geometric_fresh_within,
    laplace_fresh_mean,
    laplace_fresh_within,
    planar_fresh_mean,
    planar_fresh_within,
)
from lmdk_core.decision.noise_laws import (
    gamma2_cdf,
    geometric_interval,
    geometric_mean,
    geometric_within,
    laplace_interval,
    laplace_mean,
    laplace_within,
    planar_mean,
    planar_within,
)
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon, check_positive

__all__ = ["AccuracyTarget", "EpsilonSolution", "accuracy_at", "accuracy_is_monotone",
           "meets_target", "reading_accuracy", "rising_readings", "static_accuracy"]


@dataclass(frozen=True)
class AccuracyTarget:
    """What the user needs: ``kind='within'`` — error ≤ ``bound`` with probability ≥
    ``probability``; ``kind='mean'`` — mean absolute error (mean displacement) ≤
    ``bound``. ``per`` is ``'each'`` (each released reading, on its own), ``'typical'``
    (a reading picked at random) or ``'all'`` (every released reading at once; kind
    ``'within'`` only). ``bound`` is in the data's units (metres for tracks)."""

    kind: str = "within"
    bound: float = 1.0
    probability: float = 0.95
    per: str = "each"

    def __post_init__(self) -> None:
        if self.kind not in ("within", "mean"):
            raise InputError("the accuracy target is 'within' (± bound with a probability) "
                             "or 'mean' (mean error ≤ bound)")
        check_positive(self.bound, "the accuracy bound")
        if self.kind == "within":
            _check_probability(self.probability)
        _check_reading(self.per, self.kind)

    def describe(self, unit: str = "") -> str:
        u = f" {unit}" if unit else ""
        if self.kind == "within":
            pr = f"{self.probability * 100:.6g}%"
            if self.per == "all":
                return (f"all released readings at once within ±{self.bound:g}{u} of the "
                        f"truth with probability {pr}")
            who = ("each released reading, on its own," if self.per == "each"
                   else "a typical released reading")
            return f"{who} within ±{self.bound:g}{u} of the truth with probability {pr}"
        who = ("each released reading (on its own)" if self.per == "each"
               else "a typical released reading")
        return f"mean error of {who} at most {self.bound:g}{u}"


def _check_probability(p: float) -> None:
    """A 'within' target's probability: a number strictly between 0 and 1."""
    if isinstance(p, bool) or not 0 < float(p) < 1:
        raise InputError(f"the probability must be strictly between 0 and 1, got {p!r}")


def _check_reading(per: str, kind: str) -> None:
    """The reading of a target: 'each', 'typical' or 'all' ('all' only for 'within')."""
    if per not in ("each", "typical", "all"):
        raise InputError("the target applies to 'each' reading on its own, a 'typical' "
                         "one, or 'all' readings at once")
    if per == "all" and kind != "within":
        raise InputError("'all readings at once' is a target with a probability: use "
                         "'within' (a mean error is per reading: 'each' or 'typical')")


#: the range of total budgets the accuracy solver searches
EPS_RANGE = (1e-4, 1e4)


@dataclass
class EpsilonSolution:
    """The answer for one scheme: the smallest ε on the searched range that meets the
    target (``None`` when none does, ``reason`` says why), the accuracy reached there,
    and how it was computed."""

    scheme: str
    epsilon: float | None
    achieved: float | None
    target: AccuracyTarget
    method: str
    reason: str = ""
    landmark_private: bool | None = None
    extra: dict = field(default_factory=dict)

    def partial_intervals(self, top: float = EPS_RANGE[1]) -> list[tuple[float, float]]:
        """The ε intervals that meet the target when they are not one interval reaching
        ``top``, the top of the searched range (a repeated value drifts out of the bound
        when the noise shrinks); ``[]`` otherwise. Adaptive's single interval runs from its
        simulated solution to the top and is no feasible set, so it is never partial.

        >>> t = AccuracyTarget("mean", 1.0)
        >>> EpsilonSolution("skip", 0.5, 0.9, t, "exact",
        ...                 extra={"intervals": [(0.5, 2.0), (7.0, 1e4)]}).partial_intervals()
        [(0.5, 2.0), (7.0, 10000.0)]
        >>> EpsilonSolution("uniform", 0.5, 0.9, t, "exact",
        ...                 extra={"intervals": [(0.5, 1e4)]}).partial_intervals()
        []
        """
        spans = self.extra.get("intervals") or []
        if (self.epsilon is None or self.scheme == "adaptive" or not spans
                or (len(spans) == 1 and spans[-1][1] >= top)):
            return []
        return list(spans)

    def to_dict(self) -> dict:
        return {"scheme": self.scheme, "epsilon": self.epsilon, "achieved": self.achieved,
                "method": self.method, "reason": self.reason or None,
                "landmark_private": self.landmark_private,
                "exact": self.extra.get("exact"),
                "feasible_intervals": [list(iv) for iv in self.extra.get("intervals", [])]}


# ------------------------------------------------------------------ a release's reading errors
def reading_accuracy(model: AccuracyModel, eps_t: np.ndarray, published: np.ndarray,
                     target: AccuracyTarget) -> np.ndarray:
    """Per released reading t: ``P(|err_t| ≤ a)`` (kind 'within', a = the bound) or
    ``E|err_t|`` (kind 'mean'), exactly, for ``err_t = δ_t + Z_{s(t)}`` plus the fresh
    noise ``W_t`` of a repeated value
    (:func:`~lmdk_core.decision.accuracy_model.reading_offsets`,
    :func:`~lmdk_core.decision.accuracy_model.fresh_budgets`): Laplace noise of scale
    b = Δf/ε_t, two-sided Geometric of α = e^{−ε_t/Δf}, Planar Laplace of
    scale r/ε_t (Andrés et al., CCS'13) — the laws of
    :mod:`lmdk_core.decision.noise_laws` and :mod:`lmdk_core.decision.fresh_noise_laws`.

    >>> m = accuracy_model([0.0, 0.0], "laplace", 1.0, None)
    >>> t = AccuracyTarget("within", 1.0, 0.5)
    >>> reading_accuracy(m, np.array([1.0, 2.0]), np.array([True, True]), t).round(6).tolist()
    [0.632121, 0.864665]
    """
    src, delta, released = reading_offsets(model, published)
    law = _READING_LAWS[model.mechanism]
    fresh = fresh_budgets(model, eps_t, published)[released]
    e, d = eps_t[src][released], delta[released]
    out = np.empty(e.size)
    plain = fresh == 0
    if plain.any():
        out[plain] = law(model.scale_unit, e[plain], d[plain], target)
    if (~plain).any():
        out[~plain] = _FRESH_LAWS[model.mechanism](model.scale_unit, e[~plain], d[~plain],
                                                   fresh[~plain], target)
    return out


def _laplace_fresh(scale_unit: float, e: np.ndarray, d: np.ndarray, ef: np.ndarray,
                   target: AccuracyTarget) -> np.ndarray:
    """Laplace: a publication's noise (b₁ = Δf/ε_t) plus fresh noise (b₂ = Δf/ε_reg)."""
    b1, b2 = scale_unit / e, scale_unit / ef
    if target.kind == "within":
        return laplace_fresh_within(d, b1, b2, float(target.bound))
    return laplace_fresh_mean(d, b1, b2)


def _geometric_fresh(scale_unit: float, e: np.ndarray, d: np.ndarray, ef: np.ndarray,
                     target: AccuracyTarget) -> np.ndarray:
    """Two-sided Geometric: a publication's noise plus fresh noise of the regular law."""
    if target.kind == "within":
        return geometric_fresh_within(d, e / scale_unit, ef / scale_unit, float(target.bound))
    return geometric_fresh_mean(d, e / scale_unit, ef / scale_unit)


def _planar_fresh(scale_unit: float, e: np.ndarray, d: np.ndarray, ef: np.ndarray,
                  target: AccuracyTarget) -> np.ndarray:
    """Planar Laplace: a publication's displacement (s₁ = r/ε_t) plus a fresh one
    (s₂ = r/ε_reg)."""
    s1, s2 = scale_unit / e, scale_unit / ef
    if target.kind == "within":
        return planar_fresh_within(d, s1, s2, float(target.bound))
    return planar_fresh_mean(d, s1, s2)


def _laplace_reading(scale_unit: float, e: np.ndarray, d: np.ndarray,
                     target: AccuracyTarget) -> np.ndarray:
    """Laplace noise of scale b = Δf/ε_t on readings ``d`` away from their publication."""
    b = scale_unit / e
    if target.kind == "within":
        return laplace_within(d, b, float(target.bound))
    return laplace_mean(d, b)


def _geometric_reading(scale_unit: float, e: np.ndarray, d: np.ndarray,
                       target: AccuracyTarget) -> np.ndarray:
    """Two-sided Geometric noise, α = e^{−ε_t/Δf}, on readings ``d`` away."""
    alpha = np.exp(-e / scale_unit)
    if target.kind == "within":
        return geometric_within(d, alpha, float(target.bound))
    return geometric_mean(d, alpha)


def _planar_reading(scale_unit: float, e: np.ndarray, d: np.ndarray,
                    target: AccuracyTarget) -> np.ndarray:
    """Planar Laplace of scale s = r/ε_t on points ``d`` metres away: published points
    (δ = 0) have the closed form, offsets need the angular rule."""
    a = float(target.bound)
    s = scale_unit / e
    out = np.empty(d.size)
    zero = d == 0
    if target.kind == "within":
        out[zero] = gamma2_cdf(np.full(zero.sum(), a), s[zero])
        if (~zero).any():
            out[~zero] = planar_within(d[~zero], s[~zero], a)
    else:
        out[zero] = 2 * s[zero]
        if (~zero).any():
            out[~zero] = planar_mean(d[~zero], s[~zero])
    return out


#: the accuracy of one reading, by mechanism
_READING_LAWS = {"laplace": _laplace_reading, "geometric": _geometric_reading,
                 "planar_laplace": _planar_reading}
#: the accuracy of a reading with fresh post-processing noise, by mechanism
_FRESH_LAWS = {"laplace": _laplace_fresh, "geometric": _geometric_fresh,
               "planar_laplace": _planar_fresh}


def _aggregate(per_reading: np.ndarray, target: AccuracyTarget) -> float:
    if per_reading.size == 0:
        return float("nan")
    if target.per == "typical":
        return float(per_reading.mean())
    return float(per_reading.min() if target.kind == "within" else per_reading.max())


def _all_within(model: AccuracyModel, eps_t: np.ndarray, published: np.ndarray,
                target: AccuracyTarget) -> float:
    """P(every released reading within ±a at once). Laplace / Geometric with every
    reading published: exact — the readings are independent, so the probability is the
    product of theirs (the general form below: a publication's readings are within ±a
    iff Z_s ∈ [max_t(−a − δ_t), min_t(a − δ_t)]). With repeated values (each with its
    own fresh noise W_t, :func:`fresh_budgets`) and for Planar Laplace: the union
    (Bonferroni) lower bound 1 − Σ_t P(|err_t| > a)."""
    src, delta, released = reading_offsets(model, published)
    if not released.any():
        return float("nan")
    a = float(target.bound)
    if model.mechanism == "planar_laplace" or fresh_budgets(model, eps_t, published).any():
        p = reading_accuracy(model, eps_t, published, target)
        return float(max(0.0, 1.0 - float(np.sum(1.0 - p))))
    s_idx = src[released]
    d = delta[released]  # error of reading t = δ_t + Z_{s(t)}, δ_t = x_s − x_t
    starts = np.flatnonzero(np.r_[True, s_idx[1:] != s_idx[:-1]])  # src is non-decreasing
    lo = np.maximum.reduceat(-a - d, starts)
    hi = np.minimum.reduceat(a - d, starts)
    e = eps_t[s_idx[starts]]
    if model.mechanism == "laplace":
        p = laplace_interval(lo, hi, model.scale_unit / e)
    else:
        p = geometric_interval(lo, hi, np.exp(-e / model.scale_unit))
    if np.any(p <= 0):
        return 0.0
    return float(np.exp(np.sum(np.log(np.minimum(p, 1.0)))))


def static_accuracy(model: AccuracyModel, eps_t: np.ndarray, target: AccuracyTarget) -> float:
    """The accuracy of the static allocation ``eps_t`` (published where ε_t > 0), exactly
    (the module docstring's three readings): ``each`` — the minimum over the released
    readings of :func:`reading_accuracy` (the maximum of a mean error); ``typical`` —
    their mean; ``all`` — P(every released reading within ±a at once). NaN when
    nothing is released.

    >>> m = accuracy_model([0.0, 0.0], "laplace", 1.0, None)
    >>> round(static_accuracy(m, np.array([1.0, 2.0]), AccuracyTarget("within", 1.0, 0.5)), 6)
    0.632121
    """
    published = eps_t > 0
    if target.per == "all":
        return _all_within(model, eps_t, published, target)
    return _aggregate(reading_accuracy(model, eps_t, published, target), target)


def accuracy_is_monotone(model: AccuracyModel, profile: np.ndarray,
                         target: AccuracyTarget) -> bool:
    """Whether every reading's accuracy is monotone in ε for the allocations ε·``profile``
    of a static scheme (so is any aggregate). A mean error always is (it grows with the
    noise scale); a probability is, unless a repeated reading's acceptance set
    {z: |δ + z| ≤ a} leaves out z = 0 (:func:`rising_readings`) — its probability then
    rises and falls with ε.

    >>> m = accuracy_model([0.0, 5.0], "laplace", 1.0, None)
    >>> accuracy_is_monotone(m, np.array([1.0, 0.0]), AccuracyTarget("within", 1.0, 0.5))
    False
    """
    if target.kind == "mean":
        return True
    return bool(np.all(rising_readings(model, profile > 0, target)))


def rising_readings(model: AccuracyModel, published: np.ndarray, target: AccuracyTarget
                    ) -> np.ndarray:
    """Per released reading (kind 'within'): whether its probability of lying within ±a
    rises with ε — its acceptance set {z: |δ_t + z| ≤ a} holds z = 0 (for Geometric
    noise: the integers ⌈−a − δ_t⌉..⌊a − δ_t⌋ hold 0), so a smaller noise scale only
    widens it around the noise's mode (the others rise and fall).

    >>> m = accuracy_model([0.0, 5.0], "laplace", 1.0, None)
    >>> t = AccuracyTarget("within", 1.0, 0.5)
    >>> rising_readings(m, np.array([True, False]), t).tolist()
    [True, False]
    """
    _, delta, released = reading_offsets(model, published)
    d = delta[released]
    a = float(target.bound)
    if model.mechanism == "geometric":
        return (np.ceil(-a - d) <= 0) & (np.floor(a - d) >= 0)
    return np.abs(d) <= a


def meets_target(value: float, target: AccuracyTarget) -> bool:
    """Whether an accuracy ``value`` meets ``target``: a probability at least
    ``target.probability`` (kind 'within'), a mean error at most ``target.bound`` (kind
    'mean'); never when the value is NaN (nothing released).

    >>> meets_target(0.96, AccuracyTarget("within", 1.0, 0.95)), meets_target(
    ...     float("nan"), AccuracyTarget("mean", 1.0))
    (True, False)
    """
    if not np.isfinite(value):
        return False
    return value >= target.probability if target.kind == "within" else value <= target.bound


# ------------------------------------------------------------------ the accuracy at ε
def accuracy_at(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float,
                scheme: str, target: AccuracyTarget, *, mechanism: str = "laplace",
                sensitivity: float | None = 1.0, radius: float | None = None,
                window: int | None = None,
                stays: Iterable[tuple[int, int]] | None = None) -> float:
    """The accuracy a static scheme reaches at total budget ``epsilon``, exactly:
    the probability (kind 'within') or the mean error (kind 'mean') of ``target``.
    Adaptive is data- and noise-dependent: use :func:`adaptive_accuracy`. ``stays``
    (tracks): released as one landmark event each, from their centroids (docs/stays.md)."""
    model = accuracy_model(values, mechanism, sensitivity, radius, stays)
    key = scheme_info(scheme).key
    if key == "adaptive":
        raise InputError("Adaptive's accuracy depends on its noise: use the Monte Carlo "
                         "estimate (adaptive_accuracy)")
    eps_t = model.allocate(key, landmarks, check_epsilon(epsilon), window)
    return static_accuracy(model, eps_t, target)
