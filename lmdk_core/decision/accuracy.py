"""Accuracy → ε: the smallest total budget ε that meets an accuracy target.

People who publish data state what they need in the data's units — "each released
reading within ±1 kWh of the truth with 95 % probability", "released positions within
300 m at 90 %", "a mean error of at most 0.5 kWh" — not in ε. For a scheme (event,
user, w-event, Uniform, Skip, Adaptive; Katsomallos et al., "Landmark privacy:
configurable differential privacy protection for time series", CODASPY 2022) this
module gives the accuracy reached at any ε and solves for the smallest ε reaching a
target.

**The error of one released reading.** At a timestamp t that is *published* with
budget ε_t the error is the mechanism's noise; at an *approximated* t (Skip's
landmarks, Adaptive's skips) the release repeats the last publication s(t) < t, so the
error is the data's change plus that publication's noise, ``δ_t + Z_{s(t)}`` with
``δ_t = x_{s(t)} − x_t``. Withheld timestamps (nothing published yet) are left out and
counted. Exact laws, from the noise distributions:

* Laplace, b = Δf/ε_t (Dwork et al. TCC 2006): ``P(|δ + Z| ≤ a) = F(a − δ) − F(−a − δ)``
  with ``F(z) = ½e^{z/b}`` (z < 0), ``1 − ½e^{−z/b}`` (z ≥ 0); ``E|δ + Z| = |δ| +
  b·e^{−|δ|/b}``.
* two-sided Geometric, α = e^{−ε_t/Δf} (Ghosh et al. STOC 2009): ``P(Z ≤ k) = 1 −
  α^{k+1}/(1+α)`` (k ≥ 0), ``α^{−k}/(1+α)`` (k < 0); ``E|d + Z| = |d| +
  2α^{|d|+1}/(1−α²)`` for a whole number d.
* Planar Laplace with protection radius r (Andrés et al., "Geo-indistinguishability",
  CCS 2013): the displacement R ~ Gamma(2, s), s = r/ε_t, angle uniform:
  ``P(R ≤ d) = 1 − (1 + d/s)e^{−d/s}``, ``E R = 2s``. With an offset of length δ
  (an approximated point) the probability and the mean are integrals over the angle,
  computed with an equispaced rule on the circle (exponentially accurate for these
  smooth periodic integrands); the mean as a radial integral of the angular mean
  ``max(δ, R)·₂F₁(−½, −½; 1; min²/max²)`` (complete elliptic integrals), by Gauss–Legendre
  panels graded toward R = δ — exact to a few ulps.

**Three readings of a target.** ``each``: each released reading, on its own, meets it
(min over t of P(|err_t| ≤ a) ≥ p, or max over t of E|err_t| ≤ a) — a statement about
every reading separately, not about all of them together; ``typical``: a released
reading picked at random meets it (the mixture over the allocation's ε_t: mean over
t); ``all`` (kind ``within`` only): all released readings are within ±a *at once* with
probability p. ``each`` and ``typical`` coincide when every timestamp is published with
the same ε_t; ``all`` is stronger (with 20 independent readings at 95 % each, all 20
are within together only 0.95²⁰ ≈ 36 % of the time). For Laplace and Geometric noise
``all`` is exact: the readings that repeat publication s are all within ±a exactly
when its noise Z_s lies in the intersection of their intervals, and publications are
independent, so P(all) = Π_s P(max_t(−a − δ_t) ≤ Z_s ≤ min_t(a − δ_t)). For Planar
Laplace it is the union (Bonferroni) lower bound 1 − Σ_t P(|err_t| > a).

**Solving.** The allocation of every static scheme is ε times a fixed profile, so the
accuracy at ε has the closed forms above. It is increasing in ε at published
timestamps but not at approximated ones (a repeated value that is off by more than
±a is *less* likely to land within ±a when the noise shrinks: its probability rises,
peaks and falls), so the set of ε that meet a target can be an interval or several.
The solver scans a log grid; when some reading's accuracy is not monotone it also
maximises the accuracy inside every grid cell (bounded Brent), so a feasible window
narrower than a grid cell is found, and it bisects every crossing: the answer lists
every feasible interval found and the smallest ε. It is **exact** (every interval)
when the accuracy is monotone, and for ``each`` with Laplace or Geometric noise (each
reading's probability is then increasing or unimodal in ε, their minimum is
quasi-concave, so the feasible set is one interval and a cell's maximum is found);
otherwise the method says it is **approximate** (two windows inside one grid cell
could be taken for one). When no ε in the range reaches the target it says why.

**Adaptive** depends on the noise it draws — which readings are published depends on
the noise too — so its accuracy is estimated by simulating R whole releases per ε
(independent streams of one ``numpy.random.SeedSequence``) and measuring every
released reading's actual error: ``each`` is the minimum over t of the fraction of
releases in which reading t is within ±a (lower Clopper–Pearson bound per t at the
stated confidence; the minimum of those bounds is a valid lower bound of the minimum),
``typical`` the mean over releases of each release's fraction of readings within ±a
(one-sided normal bound over the R independent releases), ``all`` the fraction of
releases with every reading within ±a (Clopper–Pearson); for a mean error, the mean
over releases with a one-sided normal bound (per t for ``each``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import allocate, scheme_info
from lmdk_core.engine.validation import InputError, check_epsilon, check_landmarks, check_positive

__all__ = [
    "AccuracyTarget",
    "EpsilonSolution",
    "accuracy_at",
    "adaptive_accuracy",
    "adaptive_errors",
    "estimate_from_errors",
    "min_adaptive_runs",
    "solve_epsilon",
    "solve_all_schemes",
    "laplace_epsilon_for",
    "planar_epsilon_for",
]

#: the range of total budgets the solver searches
EPS_RANGE = (1e-4, 1e4)
#: points of the log grid scanned before bisection (per decade ≈ 12)
GRID_POINTS = 97
#: angles of the equispaced rule on the circle (Planar Laplace with an offset)
ANGLES = 256


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
        p = self.probability
        if self.kind == "within" and (isinstance(p, bool) or not 0 < float(p) < 1):
            raise InputError(f"the probability must be strictly between 0 and 1, got "
                             f"{p!r}")
        if self.per not in ("each", "typical", "all"):
            raise InputError("the target applies to 'each' reading on its own, a 'typical' "
                             "one, or 'all' readings at once")
        if self.per == "all" and self.kind != "within":
            raise InputError("'all readings at once' is a target with a probability: use "
                             "'within' (a mean error is per reading: 'each' or 'typical')")

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

    def to_dict(self) -> dict:
        return {"scheme": self.scheme, "epsilon": self.epsilon, "achieved": self.achieved,
                "method": self.method, "reason": self.reason or None,
                "landmark_private": self.landmark_private,
                "exact": self.extra.get("exact"),
                "feasible_intervals": [list(iv) for iv in self.extra.get("intervals", [])]}


# ------------------------------------------------------------------ closed forms, one reading
def _laplace_within(delta: np.ndarray, b: np.ndarray, a: float) -> np.ndarray:
    def cdf(z):
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b),
                        1.0 - 0.5 * np.exp(-np.maximum(z, 0) / b))
    return cdf(a - delta) - cdf(-a - delta)


def _laplace_mean(delta: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = np.abs(delta)
    return d + b * np.exp(-d / b)


def _geometric_cdf(k: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    k = np.floor(k)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = 1.0 - np.power(alpha, np.maximum(k, 0) + 1) / (1 + alpha)
        neg = np.power(alpha, np.maximum(-k, 0)) / (1 + alpha)
    return np.where(k >= 0, pos, neg)


def _geometric_within(delta: np.ndarray, alpha: np.ndarray, a: float) -> np.ndarray:
    # |δ + Z| ≤ a  ⟺  ceil(−a − δ) ≤ Z ≤ floor(a − δ)
    hi = np.floor(a - delta)
    lo = np.ceil(-a - delta)
    return np.where(hi >= lo, _geometric_cdf(hi, alpha) - _geometric_cdf(lo - 1, alpha), 0.0)


def _geometric_mean(delta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    d = np.abs(np.round(delta))
    with np.errstate(over="ignore", invalid="ignore"):
        return d + 2 * np.power(alpha, d + 1) / (1 - alpha * alpha)


def _gamma2_cdf(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    u = np.maximum(r, 0) / s
    return 1.0 - (1.0 + u) * np.exp(-u)


_THETA = (np.arange(ANGLES) + 0.5) * (2 * np.pi / ANGLES)


def _planar_within(delta: np.ndarray, s: np.ndarray, d: float) -> np.ndarray:
    """P(|δ·e + R·u(θ)| ≤ d) for R ~ Gamma(2, s), θ uniform: for each θ the R in
    [R₁, R₂] with R² + 2δcosθ·R + δ² − d² ≤ 0."""
    delta = np.asarray(delta, float)[..., None]
    s = np.asarray(s, float)[..., None]
    c = np.cos(_THETA)
    disc = (delta * c) ** 2 - (delta**2 - d * d)
    ok = disc >= 0
    root = np.sqrt(np.where(ok, disc, 0.0))
    r1 = np.maximum(-delta * c - root, 0.0)
    r2 = -delta * c + root
    p = np.where(ok & (r2 > 0), _gamma2_cdf(r2, s) - _gamma2_cdf(r1, s), 0.0)
    return p.mean(axis=-1)


#: Gauss–Legendre nodes per panel of the planar mean's radial integral
_PANEL_X, _PANEL_W = np.polynomial.legendre.leggauss(24)
#: panel ends graded geometrically toward r = δ/s (where the angular mean has its
#: (r − δ)²·log|r − δ| singularity): 1, 1/2, …, 2⁻⁴⁵ of the distance
_GRADE = 2.0 ** -np.arange(46)
#: the radial integral stops at 64 scale units: the weight r·e^{−r} beyond is < 1e-25
_R_MAX = 64.0
#: panels of at most 4 scale units elsewhere (e^{−r} is resolved to rounding)
_UNIFORM = np.arange(0.0, _R_MAX + 1.0, 4.0)


def _binom_half_squared(n: int) -> np.ndarray:
    """(C(½, k))² for k = 0..n−1: the coefficients of ₂F₁(−½, −½; 1; m) = Σ C(½, k)² mᵏ."""
    c = np.empty(n)
    c[0] = 1.0
    for k in range(1, n):
        c[k] = c[k - 1] * (1.5 - k) / k
    return c * c


_F_SERIES = _binom_half_squared(64)


def _angular_excess(m: np.ndarray) -> np.ndarray:
    """F(m) − 1 for F(m) = ₂F₁(−½, −½; 1; m) = (2/π)(2E(m) − (1 − m)K(m)), accurate to
    rounding also where it is small: the series Σ_{k≥1} C(½, k)² mᵏ for m < ½ (64 terms,
    remainder < 2⁻⁶⁴), the elliptic integrals above (F(1) = 4/π)."""
    from scipy.special import ellipe, ellipk

    m = np.asarray(m, dtype=float)
    small = m < 0.5
    ms = np.where(small, m, 0.0)
    acc = np.zeros_like(m)
    for c in _F_SERIES[:0:-1]:  # Horner, k = 63 … 1
        acc = (acc + c) * ms
    with np.errstate(invalid="ignore"):
        big = np.where(m < 1.0, (2.0 / np.pi) * (2.0 * ellipe(m) - (1.0 - m) * ellipk(m)),
                       4.0 / np.pi) - 1.0
    return np.where(small, acc, big)


def _planar_mean_unit(beta: np.ndarray) -> np.ndarray:
    """M(β) = E|β·e + N| for N Planar-Laplace noise of unit scale (radius ~ Gamma(2, 1),
    angle uniform; Andrés et al. CCS 2013).

    For radius r the mean over the angle is ``max(β, r)·F(min(β, r)²/max(β, r)²)`` with
    ``F(m) = ₂F₁(−½, −½; 1; m) = (2/π)(2E(m) − (1 − m)K(m))`` (complete elliptic
    integrals; F(0) = 1, F(1) = 4/π). With F = 1 the radial integral is closed,
    ``∫₀^∞ max(β, r)·r·e^{−r} dr = β + (β + 2)e^{−β}``, so

        M(β) = β + (β + 2)e^{−β} + ∫₀^∞ max(β, r)·(F(m) − 1)·r·e^{−r} dr.

    The remaining integrand is smooth except for a (r − β)²·log|r − β| term at r = β:
    composite 24-point Gauss–Legendre on panels graded toward β from both sides, panels
    of at most 4 elsewhere, up to r = 64. Agrees with 60-digit arithmetic to a few ulps
    (tests/engine/test_accuracy_edges.py).
    """
    b = np.asarray(beta, dtype=float).reshape(-1, 1)
    room = np.maximum(_R_MAX - b, 0.0)
    pts = np.concatenate([b * (1.0 - _GRADE), b + room * _GRADE, b,
                          np.broadcast_to(_UNIFORM, (b.shape[0], _UNIFORM.size))], axis=1)
    pts = np.sort(np.clip(pts, 0.0, _R_MAX), axis=1)
    lo, hi = pts[:, :-1, None], pts[:, 1:, None]
    half = 0.5 * (hi - lo)
    r = lo + half * (1.0 + _PANEL_X)            # (n, panels, nodes)
    bb = b[:, :, None]
    mx = np.maximum(bb, r)
    mn = np.minimum(bb, r)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(mx > 0, (mn / np.where(mx > 0, mx, 1.0)) ** 2, 0.0)
    excess = (mx * _angular_excess(m) * r * np.exp(-r) * (half * _PANEL_W)).sum(axis=(1, 2))
    b = b[:, 0]
    return b + (b + 2.0) * np.exp(-b) + excess


def _planar_mean(delta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E|δ·e + R·u(θ)| with R ~ Gamma(2, s), θ uniform: ``s·M(δ/s)``
    (:func:`_planar_mean_unit`)."""
    delta = np.asarray(delta, float)
    s = np.asarray(s, float)
    d, sc = np.broadcast_arrays(delta, s)
    return sc * _planar_mean_unit((d / sc).ravel()).reshape(d.shape)


# ------------------------------------------------------------------ a release's reading errors
@dataclass(frozen=True)
class _Model:
    """The data and mechanism a target is evaluated on."""

    mechanism: str            # 'laplace' | 'geometric' | 'planar_laplace'
    scale_unit: float         # Δf (series) or r (tracks)
    values: np.ndarray        # (T,) or (T, 2) [lat, lon]
    #: stays released as one landmark event each (tracks; docs/stays.md)
    stays: tuple[tuple[int, int], ...] = ()
    #: the point a publication at t noises (a stay's first fix: the stay's centroid);
    #: None = the value itself
    base: np.ndarray | None = None

    @property
    def T(self) -> int:
        return int(self.values.shape[0])

    def landmarks(self, landmarks: Iterable[int] | None) -> np.ndarray:
        """The landmark set: the given one plus every fix of the stays."""
        lm = check_landmarks(landmarks, self.T)
        if not self.stays:
            return lm
        from lmdk_core.engine.stay_events import stay_members

        return np.union1d(lm, stay_members(self.stays)).astype(int)

    def allocate(self, key: str, landmarks: Iterable[int] | None, epsilon: float,
                 window: int | None) -> np.ndarray:
        """The scheme's planned ε_t; with stays, the allocation of the condensed
        timeline (each stay one landmark) with each stay's budget at its first fix."""
        lm = self.landmarks(landmarks)
        if not self.stays:
            return allocate(key, self.T, lm, epsilon, window)
        from lmdk_core.engine.stay_events import condense

        cond = condense(self.T, self.stays)
        out = np.zeros(self.T)
        out[cond.rep] = allocate(key, cond.condensed_length, np.unique(cond.index[lm]),
                                 epsilon, window)
        return out


def _offsets(model: _Model, published: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each released t: the publication s(t) it shows and the offset δ_t
    (0 where t itself is published); plus the mask of released (not withheld) t."""
    T = published.size
    idx = np.where(published, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    released = idx >= 0
    src = np.maximum(idx, 0)
    base = model.values if model.base is None else model.base
    if model.values.ndim == 1:
        delta = base[src] - model.values
    else:
        from lmdk_core.engine.geodesy import distance_m

        delta = distance_m(base[src, 0], base[src, 1], model.values[:, 0],
                           model.values[:, 1])
    if model.base is None:  # a publication noises the value itself
        delta = np.where(published, 0.0, delta)
    return src, np.asarray(delta, float), released


def _reading_accuracy(model: _Model, eps_t: np.ndarray, published: np.ndarray,
                      target: AccuracyTarget) -> np.ndarray:
    """Per released reading: P(|err| ≤ bound) (kind 'within') or E|err| (kind 'mean')."""
    src, delta, released = _offsets(model, published)
    e = eps_t[src][released]
    d = delta[released]
    a = float(target.bound)
    if model.mechanism == "laplace":
        b = model.scale_unit / e
        return _laplace_within(d, b, a) if target.kind == "within" else _laplace_mean(d, b)
    if model.mechanism == "geometric":
        alpha = np.exp(-e / model.scale_unit)
        return (_geometric_within(d, alpha, a) if target.kind == "within"
                else _geometric_mean(d, alpha))
    s = model.scale_unit / e
    out = np.empty(d.size)
    # published readings (δ = 0) have the closed form; offsets need the angular rule
    zero = d == 0
    if target.kind == "within":
        out[zero] = _gamma2_cdf(np.full(zero.sum(), a), s[zero])
        if (~zero).any():
            out[~zero] = _planar_within(d[~zero], s[~zero], a)
    else:
        out[zero] = 2 * s[zero]
        if (~zero).any():
            out[~zero] = _planar_mean(d[~zero], s[~zero])
    return out


def _aggregate(per_reading: np.ndarray, target: AccuracyTarget) -> float:
    if per_reading.size == 0:
        return float("nan")
    if target.per == "typical":
        return float(per_reading.mean())
    return float(per_reading.min() if target.kind == "within" else per_reading.max())


def _all_within(model: _Model, eps_t: np.ndarray, published: np.ndarray,
                target: AccuracyTarget) -> float:
    """P(every released reading within ±a at once). Laplace / Geometric: exact — the
    readings showing publication s (s itself, δ = 0, and the approximations after it)
    are all within ±a iff Z_s ∈ [max_t(−a − δ_t), min_t(a − δ_t)], publications are
    independent, so the probability is the product over s. Planar Laplace: the union
    (Bonferroni) lower bound 1 − Σ_t P(|err_t| > a)."""
    src, delta, released = _offsets(model, published)
    if not released.any():
        return float("nan")
    a = float(target.bound)
    if model.mechanism == "planar_laplace":
        p = _reading_accuracy(model, eps_t, published, target)
        return float(max(0.0, 1.0 - float(np.sum(1.0 - p))))
    s_idx = src[released]
    d = delta[released]  # error of reading t = δ_t + Z_{s(t)}, δ_t = x_s − x_t
    starts = np.flatnonzero(np.r_[True, s_idx[1:] != s_idx[:-1]])  # src is non-decreasing
    lo = np.maximum.reduceat(-a - d, starts)
    hi = np.minimum.reduceat(a - d, starts)
    e = eps_t[s_idx[starts]]
    if model.mechanism == "laplace":
        b = model.scale_unit / e

        def cdf(z):
            return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b),
                            1.0 - 0.5 * np.exp(-np.maximum(z, 0) / b))
        p = np.where(hi >= lo, cdf(hi) - cdf(lo), 0.0)
    else:
        alpha = np.exp(-e / model.scale_unit)
        k_hi, k_lo = np.floor(hi), np.ceil(lo)
        p = np.where(k_hi >= k_lo, _geometric_cdf(k_hi, alpha) - _geometric_cdf(k_lo - 1, alpha),
                     0.0)
    if np.any(p <= 0):
        return 0.0
    return float(np.exp(np.sum(np.log(np.minimum(p, 1.0)))))


def _static_accuracy(model: _Model, eps_t: np.ndarray, target: AccuracyTarget) -> float:
    """The accuracy of a static allocation ``eps_t`` (exact laws)."""
    published = eps_t > 0
    if target.per == "all":
        return _all_within(model, eps_t, published, target)
    return _aggregate(_reading_accuracy(model, eps_t, published, target), target)


def _monotone(model: _Model, profile: np.ndarray, target: AccuracyTarget) -> bool:
    """Whether every reading's accuracy is monotone in ε (so is any aggregate). A mean
    error always is (it grows with the noise scale); a probability is, unless a repeated
    reading's acceptance set {z: |δ + z| ≤ a} leaves out z = 0 — its probability then
    rises and falls with ε."""
    if target.kind == "mean":
        return True
    _, delta, released = _offsets(model, profile > 0)
    d = delta[released]
    a = float(target.bound)
    if model.mechanism == "geometric":
        return bool(np.all((np.ceil(-a - d) <= 0) & (np.floor(a - d) >= 0)))
    return bool(np.all(np.abs(d) <= a))


def _meets(value: float, target: AccuracyTarget) -> bool:
    if not np.isfinite(value):
        return False
    return value >= target.probability if target.kind == "within" else value <= target.bound


# ------------------------------------------------------------------ public API
def _model(values: ArrayLike, mechanism: str, sensitivity: float | None,
           radius: float | None, stays: Iterable[tuple[int, int]] | None = None) -> _Model:
    x = np.asarray(values, dtype=float)
    if x.ndim == 2:
        if radius is None:
            raise InputError("a track needs the protection radius r (metres)")
        r = check_positive(radius, "protection radius")
        if stays:
            from lmdk_core.engine.stay_events import condense, condensed_points

            cond = condense(x.shape[0], stays)
            if cond.stays:
                base = x.copy()
                base[cond.rep] = condensed_points(x, cond)
                return _Model("planar_laplace", r, x, cond.stays, base)
        return _Model("planar_laplace", r, x)
    if stays:
        raise InputError("stays as events are for tracks")
    if x.ndim != 1 or x.size == 0:
        raise InputError("the data must be a non-empty series or a track")
    mech = str(mechanism).lower()
    if mech not in ("laplace", "geometric"):
        raise InputError("the series mechanism is 'laplace' or 'geometric'")
    return _Model(mech, check_positive(sensitivity if sensitivity is not None else 1.0,
                                       "sensitivity Δf"), x)


def accuracy_at(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float,
                scheme: str, target: AccuracyTarget, *, mechanism: str = "laplace",
                sensitivity: float | None = 1.0, radius: float | None = None,
                window: int | None = None,
                stays: Iterable[tuple[int, int]] | None = None) -> float:
    """The accuracy a static scheme reaches at total budget ``epsilon``, exactly:
    the probability (kind 'within') or the mean error (kind 'mean') of ``target``.
    Adaptive is data- and noise-dependent: use :func:`adaptive_accuracy`. ``stays``
    (tracks): released as one landmark event each, from their centroids (docs/stays.md)."""
    model = _model(values, mechanism, sensitivity, radius, stays)
    key = scheme_info(scheme).key
    if key == "adaptive":
        raise InputError("Adaptive's accuracy depends on its noise: use the Monte Carlo "
                         "estimate (adaptive_accuracy)")
    eps_t = model.allocate(key, landmarks, check_epsilon(epsilon), window)
    return _static_accuracy(model, eps_t, target)


def adaptive_errors(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float, *,
                    mechanism: str = "laplace", sensitivity: float | None = 1.0,
                    radius: float | None = None, runs: int = 100,
                    seed: int | None = None,
                    stays: Iterable[tuple[int, int]] | None = None) -> tuple[np.ndarray, bool]:
    """The absolute error of every reading in ``runs`` whole Adaptive releases at
    ``epsilon`` — an array (runs, T), NaN where a reading is withheld — and whether the
    verifier found every release landmark-private. Release r uses the r-th child of
    ``SeedSequence(seed)``: the same seed gives the same releases at every ε (common
    random numbers)."""
    from lmdk_core.engine.release import release_series, release_trajectory
    from lmdk_core.engine.setting_limits import check_setting

    model = _model(values, mechanism, sensitivity, radius, stays)
    n = int(check_setting("runs", runs, label="the number of Monte Carlo runs"))
    lm = list(check_landmarks(landmarks, model.T))
    out = np.empty((n, model.T))
    all_private = True
    for r, child in enumerate(np.random.SeedSequence(seed).spawn(n)):
        gen = np.random.default_rng(child)
        if model.mechanism == "planar_laplace":
            rel = release_trajectory(model.values[:, 0], model.values[:, 1], lm, epsilon,
                                     model.scale_unit, "adaptive", gen,
                                     stays=list(model.stays) or None)
        else:
            rel = release_series(model.values, lm, epsilon, "adaptive", model.mechanism,
                                 model.scale_unit, gen)
        all_private &= bool(rel.verdict.private)
        out[r] = rel.errors
    return out, all_private


def _clopper_pearson_lower(k: np.ndarray, n: np.ndarray, confidence: float) -> np.ndarray:
    """One-sided lower confidence bound of a binomial proportion (Clopper–Pearson):
    the ``1 − confidence`` quantile of Beta(k, n − k + 1); 0 when k = 0."""
    from scipy.stats import beta

    k = np.asarray(k, float)
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore"):
        lo = beta.ppf(1.0 - confidence, np.maximum(k, 1e-300), n - k + 1)
    return np.where(k > 0, lo, 0.0)


def estimate_from_errors(errors: np.ndarray, target: AccuracyTarget,
                         confidence: float = 0.95) -> tuple[float, float]:
    """(estimate, one-sided bound at ``confidence`` in the target's favourable direction)
    of ``target`` from simulated whole releases: ``errors`` (runs, T), NaN = withheld.
    See the module docstring (Adaptive) for each reading of the target."""
    from scipy.stats import norm

    err = np.asarray(errors, float)
    R = err.shape[0]
    released = ~np.isnan(err)
    z = float(norm.ppf(confidence))
    if target.kind == "within":
        inside = released & (np.nan_to_num(err, nan=np.inf) <= target.bound)
        if target.per == "each":
            n_t = released.sum(axis=0)
            ok = n_t > 0
            if not ok.any():
                return float("nan"), float("nan")
            k_t = inside.sum(axis=0)[ok]
            est = float(np.min(k_t / n_t[ok]))
            return est, float(np.min(_clopper_pearson_lower(k_t, n_t[ok], confidence)))
        if target.per == "all":
            k = int(np.sum(inside.sum(axis=1) == released.sum(axis=1)))
            return k / R, float(_clopper_pearson_lower(np.array([k]), np.array([R]),
                                                       confidence)[0])
        n_r = released.sum(axis=1)
        frac = inside.sum(axis=1)[n_r > 0] / n_r[n_r > 0]
        if frac.size < 2:
            return float("nan"), float("nan")
        m = float(frac.mean())
        return m, m - z * float(frac.std(ddof=1)) / np.sqrt(frac.size)
    if target.per == "each":
        n_t = released.sum(axis=0)
        ok = n_t > 1
        if not ok.any():
            return float("nan"), float("nan")
        e = err[:, ok]
        m_t = np.nanmean(e, axis=0)
        sd_t = np.nanstd(e, axis=0, ddof=1)
        return float(m_t.max()), float(np.max(m_t + z * sd_t / np.sqrt(n_t[ok])))
    per_run = np.array([np.nanmean(row) for row in err if np.any(~np.isnan(row))])
    if per_run.size < 2:
        return float("nan"), float("nan")
    m = float(per_run.mean())
    return m, m + z * float(per_run.std(ddof=1)) / np.sqrt(per_run.size)


def adaptive_accuracy(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float,
                      target: AccuracyTarget, *, mechanism: str = "laplace",
                      sensitivity: float | None = 1.0, radius: float | None = None,
                      runs: int = 100, seed: int | None = None,
                      confidence: float = 0.95,
                      stays: Iterable[tuple[int, int]] | None = None
                      ) -> tuple[float, float, bool]:
    """Monte Carlo accuracy of Adaptive at ``epsilon``: (estimate, one-sided bound at
    ``confidence`` in the target's favourable direction — the lower bound of a
    probability, the upper bound of a mean error — and whether the verifier found every
    run landmark-private). Whole releases are simulated (:func:`adaptive_errors`) and
    every reading's actual error is measured: which readings Adaptive publishes depends
    on the noise, so the noise law given the publication pattern is not the plain one."""
    errors, private = adaptive_errors(values, landmarks, epsilon, mechanism=mechanism,
                                      sensitivity=sensitivity, radius=radius, runs=runs,
                                      seed=seed, stays=stays)
    est, bound = estimate_from_errors(errors, target, confidence)
    return est, bound, private


def laplace_epsilon_for(bound: float, probability: float, sensitivity: float) -> float:
    """The per-timestamp ε_t with P(|Lap(Δf/ε_t)| ≤ a) = p: ε_t = Δf·ln(1/(1−p))/a."""
    return float(sensitivity * np.log(1.0 / (1.0 - probability)) / bound)


def planar_epsilon_for(distance: float, probability: float, radius: float) -> float:
    """The per-timestamp ε_t with P(R ≤ d) = p for R ~ Gamma(2, r/ε_t), by Lambert's W
    (Andrés et al. CCS 2013): ε_t = −(r/d)·(W₋₁(−(1−p)/e) + 1)."""
    from scipy.special import lambertw

    w = float(np.real(lambertw(-(1.0 - probability) / np.e, -1)))
    return float(-(radius / distance) * (w + 1.0))


def _adaptive_floor(model: _Model, lm: np.ndarray, target: AccuracyTarget) -> float:
    """A total ε below which Adaptive cannot meet an 'each' or 'all' target: its first
    reading is always published with the planned Uniform share c·ε (c = 1/(|L|+1)), and
    that reading alone must meet the target — exactly, not statistically. Laplace:
    ``1 − e^{−a·c·ε/Δf} ≥ p``, ``Δf/(c·ε) ≤ m``; Planar Laplace: Lambert's W, ``2r/(c·ε)
    ≤ m``. 0 for 'typical' and for Geometric noise (no floor used)."""
    if target.per == "typical" or model.mechanism == "geometric":
        return 0.0
    c = float(allocate("uniform", model.T, lm, 1.0)[0])
    if target.kind == "mean":
        per = (model.scale_unit if model.mechanism == "laplace" else 2 * model.scale_unit)
        return per / (c * target.bound)
    if model.mechanism == "laplace":
        e_t = laplace_epsilon_for(target.bound, target.probability, model.scale_unit)
    else:
        e_t = planar_epsilon_for(target.bound, target.probability, model.scale_unit)
    return float(e_t / c * (1 - 1e-9))


def _bisect(value, target: AccuracyTarget, a: float, b: float, rel_tol: float) -> float:
    """The crossing between ``a`` and ``b`` (exactly one of which meets the target), to a
    relative ``rel_tol``; returns the end that meets."""
    meets_a = _meets(value(a), target)
    while b / a - 1 > rel_tol:
        mid = float(np.sqrt(a * b))
        if _meets(value(mid), target) == meets_a:
            a = mid
        else:
            b = mid
    return a if meets_a else b


def _feasible_intervals(value, target: AccuracyTarget, grid: np.ndarray, rel_tol: float,
                        search_cells: bool, progress=None) -> list[tuple[float, float]]:
    """Every interval of ε in [grid[0], grid[-1]] where ``value`` meets ``target``: the
    grid's points, plus (``search_cells``) the maximum of the accuracy inside each cell
    whose ends both miss (bounded Brent on log ε), then every change of status bisected."""
    from scipy.optimize import minimize_scalar

    pts = []
    n = grid.size
    for i, e in enumerate(grid):
        if progress is not None:
            progress(0.6 * (i + 1) / n)
        pts.append((float(e), _meets(value(float(e)), target)))
    if search_cells:
        sign = -1.0 if target.kind == "within" else 1.0
        extra = []
        for i in range(n - 1):
            if progress is not None:
                progress(0.6 + 0.3 * (i + 1) / (n - 1))
            if pts[i][1] or pts[i + 1][1]:
                continue

            def f(u: float) -> float:
                v = value(float(np.exp(u)))
                return sign * v if np.isfinite(v) else np.inf
            res = minimize_scalar(f, bounds=(np.log(pts[i][0]), np.log(pts[i + 1][0])),
                                  method="bounded", options={"xatol": 1e-10})
            e = float(np.exp(res.x))
            if pts[i][0] < e < pts[i + 1][0] and _meets(value(e), target):
                extra.append((e, True))
        pts = sorted(pts + extra)
    intervals: list[tuple[float, float]] = []
    start = pts[0][0] if pts[0][1] else None
    for (e0, m0), (e1, m1) in zip(pts, pts[1:], strict=False):
        if m0 == m1:
            continue
        cross = _bisect(value, target, e0, e1, rel_tol)
        if m1:  # enters the feasible set
            start = cross
        else:
            intervals.append((start, cross))
            start = None
    if start is not None:
        intervals.append((start, pts[-1][0]))
    return intervals


def min_adaptive_runs(probability: float, confidence: float = 0.95) -> int:
    """The fewest simulated releases R that can certify an 'each'/'all' target of
    ``probability`` p at ``confidence``: with all R releases within the bound the one-sided
    Clopper–Pearson lower bound is (1 − confidence)^(1/R), so R ≥ ln(1 − confidence) / ln p
    (p = 0.95 at 95 %: 59 runs)."""
    return int(np.ceil(np.log(1 - confidence) / np.log(probability)))


def solve_epsilon(values: ArrayLike, landmarks: Iterable[int] | None, scheme: str,
                  target: AccuracyTarget, *, mechanism: str = "laplace",
                  sensitivity: float | None = 1.0, radius: float | None = None,
                  window: int | None = None, eps_range: tuple[float, float] = EPS_RANGE,
                  runs: int = 100, seed: int | None = None, confidence: float = 0.95,
                  progress=None,
                  stays: Iterable[tuple[int, int]] | None = None) -> EpsilonSolution:
    """The smallest total ε in ``eps_range`` at which ``scheme`` meets ``target``, and
    every interval of ε that meets it (``extra['intervals']``).

    Static schemes: exact laws; a log grid, the accuracy's maximum in every grid cell
    when some reading's accuracy is not monotone, every crossing bisected to a relative
    1e-10 (``extra['exact']`` says whether every interval is certain to be found; see
    the module docstring). Adaptive: whole releases simulated, ``runs`` per ε, common
    random numbers (the same ``seed`` at every ε), the target met by the one-sided
    ``confidence`` bound; 5 grid points per decade from the exact floor of an 'each' /
    'all' target (:func:`_adaptive_floor`), the first crossing bisected to 1 %.
    ``progress(fraction)`` is called as the search advances.

    Returns
    -------
    EpsilonSolution
        The smallest ε (None when no ε in the range meets the target), the accuracy it
        achieves, the method and whether the release is landmark-private.

    Examples
    --------
    Uniform with 2 landmarks spends ε/3 per reading; Laplace noise is within 1 of the
    truth with probability 1 − e^{−ε_t}, so 95 % needs ε_t = ln 20 and ε = 3·ln 20:

    >>> s = solve_epsilon([0.0] * 10, [2, 5], "uniform", AccuracyTarget("within", 1.0, 0.95))
    >>> round(s.epsilon, 6), s.landmark_private
    (8.987197, True)
    """
    from lmdk_core.engine.verifier import verify

    model = _model(values, mechanism, sensitivity, radius, stays)
    key = scheme_info(scheme).key
    lm = model.landmarks(landmarks)
    lo, hi = (check_epsilon(e, "the ε range") for e in eps_range)
    if not lo < hi:
        raise InputError("the ε range must have its lower end below its upper end")

    if key == "adaptive":
        from lmdk_core.engine.setting_limits import check_setting

        check_setting("runs", runs, label="the number of Monte Carlo runs")
        if target.kind == "within" and target.per != "typical":
            need = min_adaptive_runs(target.probability, confidence)
            if int(runs) < need:
                raise InputError(
                    f"{int(runs)} runs cannot certify {target.probability:.6g} at "
                    f"{confidence:.0%} confidence even if every release is within the bound; "
                    f"give at least {need:,} runs (--runs)")
        how = {"each": "each reading's share of releases within the bound, Clopper–Pearson",
               "all": "share of releases with every reading within, Clopper–Pearson",
               "typical": "normal approximation over releases"}[target.per]
        if target.kind == "mean":
            how = "normal approximation over releases"
        method = (f"Monte Carlo: {int(runs)} whole releases per ε, {confidence:.0%} "
                  f"one-sided bound ({how})")
        cache: dict[float, tuple[float, float, bool]] = {}

        def evaluate(e: float) -> tuple[float, float, bool]:
            if e not in cache:
                cache[e] = adaptive_accuracy(model.values, lm, e, target,
                                             mechanism=model.mechanism,
                                             sensitivity=model.scale_unit,
                                             radius=model.scale_unit, runs=runs, seed=seed,
                                             confidence=confidence,
                                             stays=list(model.stays) or None)
            return cache[e]

        def value(e: float) -> float:
            return evaluate(e)[1]
        # no ε below the one at which the first reading alone (always published, at the
        # planned Uniform share) meets an 'each'/'all' target can meet it: start there
        start = max(lo, min(_adaptive_floor(model, lm, target), hi))
        grid = np.geomspace(start, hi, max(2, int(np.ceil(np.log10(hi / start) * 5)) + 1))
        prev = None
        found = None
        for i, e in enumerate(grid):
            if progress is not None:
                progress(0.8 * (i + 1) / grid.size)
            if _meets(value(float(e)), target):
                found = float(e)
                break
            prev = float(e)
        if found is None:
            best = evaluate(float(hi))[0]
            return EpsilonSolution(key, None, best if np.isfinite(best) else None, target,
                                   method, reason=_unreachable_reason(lm, key, target, best,
                                                                      hi))
        if prev is not None:
            found = _bisect(value, target, prev, found, 1e-2)
        if progress is not None:
            progress(1.0)
        est, _, private = evaluate(found)
        return EpsilonSolution(key, found, est, target, method, landmark_private=private,
                               extra={"at_lower_end": prev is None and start == lo,
                                      "exact": False,
                                      "intervals": [(found, float(hi))]})

    profile = model.allocate(key, lm, 1.0, window)
    monotone = _monotone(model, profile, target)
    exact = monotone or (target.per == "each" and model.mechanism != "planar_laplace")
    if monotone:
        method = "exact (closed form of the noise distribution)"
    elif exact:
        method = ("exact (closed form of the noise distribution; every feasible interval: "
                  "each reading's accuracy rises, or rises and falls, with ε)")
    else:
        method = ("closed form of the noise distribution; the search is approximate (the "
                  "accuracy is maximised in every grid cell: two windows inside one cell "
                  "could be taken for one)")

    def value(e: float) -> float:
        return _static_accuracy(model, model.allocate(key, lm, e, window), target)
    grid = np.geomspace(lo, hi, GRID_POINTS)
    intervals = _feasible_intervals(value, target, grid, 1e-10, not monotone, progress)
    if progress is not None:
        progress(1.0)
    if not intervals:
        best = value(float(hi))
        if not monotone:  # the best accuracy over the range, for the reason
            best = max((value(float(e)) for e in grid), key=lambda v: (
                -np.inf if not np.isfinite(v) else (v if target.kind == "within" else -v)))
        return EpsilonSolution(key, None, best if np.isfinite(best) else None, target, method,
                               reason=_unreachable_reason(lm, key, target, best, hi,
                                                          best_over_range=not monotone),
                               extra={"exact": exact, "intervals": []})
    found = intervals[0][0]
    private = verify(model.allocate(key, lm, found, window), lm, found,
                     groups=model.stays).private
    return EpsilonSolution(key, found, value(found), target, method, landmark_private=private,
                           extra={"at_lower_end": found == float(grid[0]), "exact": exact,
                                  "intervals": intervals})


def _unreachable_reason(lm: np.ndarray, key: str, target: AccuracyTarget, best: float,
                        hi: float, best_over_range: bool = False) -> str:
    where = f"best over the range: {_fmt(best, target)}" if best_over_range else \
        f"at ε = {hi:g}: {_fmt(best, target)}"
    if key in ("skip", "adaptive") and lm.size:
        return f"repeated values miss the bound whatever ε ({where})"
    return f"not met for any ε up to {hi:g} ({where})"


def _fmt(value: float, target: AccuracyTarget) -> str:
    if not np.isfinite(value):
        return "nothing released"
    return f"{value:.1%}" if target.kind == "within" else f"mean error {value:.4g}"


def solve_all_schemes(values: ArrayLike, landmarks: Iterable[int] | None,
                      target: AccuracyTarget, schemes: Iterable[str] = (
                          "uniform", "skip", "adaptive", "w-event", "user"),
                      **kwargs) -> list[EpsilonSolution]:
    """:func:`solve_epsilon` for several schemes (w-event needs ``window``)."""
    out = []
    for s in schemes:
        if scheme_info(s).key == "w-event" and kwargs.get("window") is None:
            continue
        out.append(solve_epsilon(values, landmarks, s, target, **kwargs))
    return out
