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
  smooth periodic integrands) and, for the mean, Gauss–Laguerre nodes in R.

**Two readings of a target.** ``each``: every released reading meets it
(min over t of P(|err_t| ≤ a) ≥ p, or max over t of E|err_t| ≤ a); ``typical``: a
released reading picked at random meets it (the mixture over the allocation's ε_t:
mean over t). They coincide when every timestamp is published with the same ε_t.

**Solving.** The allocation of every static scheme is ε times a fixed profile, so the
accuracy at ε has the closed forms above. It is increasing in ε at published
timestamps but not at approximated ones (a repeated value that is off by more than
±a is *less* likely to land within ±a when the noise shrinks), so the solver scans a
log grid and refines the first crossing by bisection; when no ε in the range reaches
the target it says why. **Adaptive** depends on the noise it draws: its accuracy is
estimated by R Monte Carlo releases per ε (independent streams of one
``numpy.random.SeedSequence``), and the target must hold for the one-sided lower
confidence bound of the mean over runs (normal approximation, stated confidence).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import roots_genlaguerre

from lmdk_core.allocation import allocate, scheme_info
from lmdk_core.validation import InputError, check_epsilon, check_landmarks, check_positive

__all__ = [
    "AccuracyTarget",
    "EpsilonSolution",
    "accuracy_at",
    "adaptive_accuracy",
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
#: Gauss–Laguerre nodes (weight r·e^{−r}) for the mean of the planar error
LAGUERRE_NODES = 64


@dataclass(frozen=True)
class AccuracyTarget:
    """What the user needs: ``kind='within'`` — error ≤ ``bound`` with probability ≥
    ``probability``; ``kind='mean'`` — mean absolute error (mean displacement) ≤
    ``bound``. ``per`` is ``'each'`` (every released reading) or ``'typical'`` (a
    reading picked at random). ``bound`` is in the data's units (metres for tracks)."""

    kind: str = "within"
    bound: float = 1.0
    probability: float = 0.95
    per: str = "each"

    def __post_init__(self) -> None:
        if self.kind not in ("within", "mean"):
            raise InputError("the accuracy target is 'within' (± bound with a probability) "
                             "or 'mean' (mean error ≤ bound)")
        check_positive(self.bound, "the accuracy bound")
        if self.kind == "within" and not 0 < float(self.probability) < 1:
            raise InputError(f"the probability must be strictly between 0 and 1, got "
                             f"{self.probability!r}")
        if self.per not in ("each", "typical"):
            raise InputError("the target applies to 'each' reading or a 'typical' one")

    def describe(self, unit: str = "") -> str:
        u = f" {unit}" if unit else ""
        who = "every released reading" if self.per == "each" else "a typical released reading"
        if self.kind == "within":
            return (f"{who} within ±{self.bound:g}{u} of the truth with probability "
                    f"{self.probability:.0%}")
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
                "landmark_private": self.landmark_private}


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
_LAG_X, _LAG_W = roots_genlaguerre(LAGUERRE_NODES, 1.0)  # ∫ f(u) u e^{−u} du
_LAG_W = _LAG_W / _LAG_W.sum()


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


def _planar_mean(delta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E|δ·e + R·u(θ)| with R ~ Gamma(2, s): Gauss–Laguerre in R/s, equispaced in θ."""
    delta = np.asarray(delta, float)[..., None, None]
    r = np.asarray(s, float)[..., None, None] * _LAG_X[:, None]
    c = np.cos(_THETA)
    dist = np.sqrt(np.maximum(delta**2 + r**2 + 2 * delta * r * c, 0.0))
    return (dist.mean(axis=-1) * _LAG_W).sum(axis=-1)


# ------------------------------------------------------------------ a release's reading errors
@dataclass(frozen=True)
class _Model:
    """The data and mechanism a target is evaluated on."""

    mechanism: str            # 'laplace' | 'geometric' | 'planar_laplace'
    scale_unit: float         # Δf (series) or r (tracks)
    values: np.ndarray        # (T,) or (T, 2) [lat, lon]

    @property
    def T(self) -> int:
        return int(self.values.shape[0])


def _offsets(model: _Model, published: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each released t: the publication s(t) it shows and the offset δ_t
    (0 where t itself is published); plus the mask of released (not withheld) t."""
    T = published.size
    idx = np.where(published, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    released = idx >= 0
    src = np.maximum(idx, 0)
    if model.values.ndim == 1:
        delta = model.values[src] - model.values
    else:
        from lmdk_core.geodesy import distance_m

        delta = distance_m(model.values[src, 0], model.values[src, 1], model.values[:, 0],
                           model.values[:, 1])
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


def _meets(value: float, target: AccuracyTarget) -> bool:
    if not np.isfinite(value):
        return False
    return value >= target.probability if target.kind == "within" else value <= target.bound


# ------------------------------------------------------------------ public API
def _model(values: ArrayLike, mechanism: str, sensitivity: float | None,
           radius: float | None) -> _Model:
    x = np.asarray(values, dtype=float)
    if x.ndim == 2:
        if radius is None:
            raise InputError("a track needs the protection radius r (metres)")
        return _Model("planar_laplace", check_positive(radius, "protection radius"), x)
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
                window: int | None = None) -> float:
    """The accuracy a static scheme reaches at total budget ``epsilon``, exactly:
    the probability (kind 'within') or the mean error (kind 'mean') of ``target``.
    Adaptive is data- and noise-dependent: use :func:`adaptive_accuracy`."""
    model = _model(values, mechanism, sensitivity, radius)
    key = scheme_info(scheme).key
    if key == "adaptive":
        raise InputError("Adaptive's accuracy depends on its noise: use the Monte Carlo "
                         "estimate (adaptive_accuracy)")
    eps_t = allocate(key, model.T, landmarks, check_epsilon(epsilon), window)
    return _aggregate(_reading_accuracy(model, eps_t, eps_t > 0, target), target)


def adaptive_accuracy(values: ArrayLike, landmarks: Iterable[int] | None, epsilon: float,
                      target: AccuracyTarget, *, mechanism: str = "laplace",
                      sensitivity: float | None = 1.0, radius: float | None = None,
                      runs: int = 100, seed: int | None = None,
                      confidence: float = 0.95) -> tuple[float, float, bool]:
    """Monte Carlo accuracy of Adaptive at ``epsilon``: (mean over runs, one-sided
    bound at ``confidence`` in the target's favourable direction — the lower bound of a
    probability, the upper bound of a mean error — and whether the verifier found every
    run landmark-private). Run r uses the r-th child of
    ``SeedSequence(seed)``; within a run every reading's accuracy is the exact law of
    its noise given the run's publication pattern."""
    from scipy.stats import norm

    from lmdk_core.release import release_series, release_trajectory

    model = _model(values, mechanism, sensitivity, radius)
    if int(runs) < 2:
        raise InputError("the Monte Carlo estimate needs at least 2 runs")
    children = np.random.SeedSequence(seed).spawn(int(runs))
    out = np.empty(int(runs))
    all_private = True
    lm = list(check_landmarks(landmarks, model.T))
    for r, child in enumerate(children):
        gen = np.random.default_rng(child)
        if model.mechanism == "planar_laplace":
            rel = release_trajectory(model.values[:, 0], model.values[:, 1], lm, epsilon,
                                     model.scale_unit, "adaptive", gen)
        else:
            rel = release_series(model.values, lm, epsilon, "adaptive", model.mechanism,
                                 model.scale_unit, gen)
        all_private &= bool(rel.verdict.private)
        out[r] = _aggregate(_reading_accuracy(model, rel.epsilon_t, rel.published, target),
                            target)
    mean = float(out.mean())
    half = float(norm.ppf(confidence) * out.std(ddof=1) / np.sqrt(out.size))
    bound = mean - half if target.kind == "within" else mean + half
    return mean, bound, all_private


def laplace_epsilon_for(bound: float, probability: float, sensitivity: float) -> float:
    """The per-timestamp ε_t with P(|Lap(Δf/ε_t)| ≤ a) = p: ε_t = Δf·ln(1/(1−p))/a."""
    return float(sensitivity * np.log(1.0 / (1.0 - probability)) / bound)


def planar_epsilon_for(distance: float, probability: float, radius: float) -> float:
    """The per-timestamp ε_t with P(R ≤ d) = p for R ~ Gamma(2, r/ε_t), by Lambert's W
    (Andrés et al. CCS 2013): ε_t = −(r/d)·(W₋₁(−(1−p)/e) + 1)."""
    from scipy.special import lambertw

    w = float(np.real(lambertw(-(1.0 - probability) / np.e, -1)))
    return float(-(radius / distance) * (w + 1.0))


def solve_epsilon(values: ArrayLike, landmarks: Iterable[int] | None, scheme: str,
                  target: AccuracyTarget, *, mechanism: str = "laplace",
                  sensitivity: float | None = 1.0, radius: float | None = None,
                  window: int | None = None, eps_range: tuple[float, float] = EPS_RANGE,
                  runs: int = 100, seed: int | None = None, confidence: float = 0.95,
                  progress=None) -> EpsilonSolution:
    """The smallest total ε in ``eps_range`` at which ``scheme`` meets ``target``.

    Static schemes: exact (closed forms, scan of a log grid then bisection to a relative
    1e-10). Adaptive: Monte Carlo with ``runs`` runs per ε, common random numbers
    (the same ``seed`` at every ε), and the target met by the one-sided ``confidence``
    bound; the grid is coarser (5 per decade) and the bisection stops at 1 %.
    ``progress(fraction)`` is called as the search advances.
    """
    from lmdk_core.verifier import verify

    model = _model(values, mechanism, sensitivity, radius)
    key = scheme_info(scheme).key
    lm = check_landmarks(landmarks, model.T)
    lo, hi = (check_epsilon(e, "the ε range") for e in eps_range)
    if not lo < hi:
        raise InputError("the ε range must have its lower end below its upper end")

    if key == "adaptive":
        method = (f"Monte Carlo: {int(runs)} runs per ε, {confidence:.0%} one-sided bound "
                  "(normal approximation)")

        def value(e: float) -> float:
            return adaptive_accuracy(model.values, lm, e, target, mechanism=model.mechanism,
                                     sensitivity=model.scale_unit, radius=model.scale_unit,
                                     runs=runs, seed=seed, confidence=confidence)[1]
        n_grid = int(np.ceil(np.log10(hi / lo) * 5)) + 1
        rel_tol = 1e-2
    else:
        method = "exact (closed form of the noise distribution)"

        def value(e: float) -> float:
            eps_t = allocate(key, model.T, lm, e, window)
            return _aggregate(_reading_accuracy(model, eps_t, eps_t > 0, target), target)
        n_grid = GRID_POINTS
        rel_tol = 1e-10

    grid = np.geomspace(lo, hi, n_grid)
    prev = None
    found = None
    for i, e in enumerate(grid):
        if progress is not None:
            progress(0.8 * (i + 1) / n_grid)
        if _meets(value(float(e)), target):
            found = float(e)
            break
        prev = float(e)
    if found is None:
        best = value(float(hi))
        reason = _unreachable_reason(model, lm, key, target, best, hi)
        return EpsilonSolution(key, None, best if np.isfinite(best) else None, target, method,
                               reason=reason)
    if prev is not None:
        a, b = prev, found
        while b / a - 1 > rel_tol:
            mid = float(np.sqrt(a * b))
            if _meets(value(mid), target):
                b = mid
            else:
                a = mid
        found = b
    if progress is not None:
        progress(1.0)
    achieved = value(found)
    if key == "adaptive":
        private = adaptive_accuracy(model.values, lm, found, target, mechanism=model.mechanism,
                                    sensitivity=model.scale_unit, radius=model.scale_unit,
                                    runs=runs, seed=seed, confidence=confidence)[2]
    else:
        private = verify(allocate(key, model.T, lm, found, window), lm, found).private
    return EpsilonSolution(key, found, achieved, target, method, landmark_private=private,
                           extra={"at_lower_end": prev is None})


def _unreachable_reason(model: _Model, lm: np.ndarray, key: str, target: AccuracyTarget,
                        best: float, hi: float) -> str:
    if key in ("skip", "adaptive") and lm.size:
        return (f"repeated values miss the bound whatever ε (at ε = {hi:g}: "
                f"{_fmt(best, target)})")
    return f"not met for any ε up to {hi:g} (at ε = {hi:g}: {_fmt(best, target)})"


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
