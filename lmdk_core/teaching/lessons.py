"""Pure functions behind the Learn page (no streamlit): small, exact, seeded examples.

Every function states the formula it computes and the source it follows:

* **The definition** (Dwork, McSherry, Nissim, Smith 2006; Dwork & Roth, *The
  Algorithmic Foundations of Differential Privacy*, Def. 2.4): ``M`` is ε-DP if for
  neighbouring data sets ``D, D'`` and every set of outputs ``O``,
  ``Pr[M(D) ∈ O] ≤ e^ε · Pr[M(D') ∈ O]`` — shown with the Laplace densities of a count
  and of the same count with one more person (:func:`neighbouring_densities`).
* **What ε means to an adversary** (Dwork & Roth §1 and §2.3; Kasiviswanathan & Smith
  2014): a prior belief ``p`` that a person's record is ``D`` rather than ``D'`` can rise
  to at most ``p·e^ε / (1 − p + p·e^ε)`` (:func:`posterior_bound`).
* **Protection levels** (seed "levels of privacy protection"; Dwork et al. 2010 for
  event/user level, Kellaris et al. VLDB 2014 for w-event) and landmark privacy
  (:func:`protection_levels`), with :func:`lmdk_core.engine.allocation.allocate` and the
  verifier :func:`lmdk_core.engine.verifier.verify`.
* **Mechanisms**: Laplace, Geometric, Planar Laplace (Andrés et al., CCS 2013),
  Exponential (McSherry & Talwar 2007), Randomized response (Warner 1965) — samples and
  exact distributions from :mod:`lmdk_core.mechanisms`.
* **Composition** (the theorems of Katsomallos et al.'s survey): sequential and parallel
(McSherry 2009),
  temporal discounting (Farokhi 2020), temporal correlation (Cao et al. ICDE'17 /
  TKDE'18), post-processing.
* **Why not k-anonymity** for continuous publishing: k-anonymity (Sweeney 2002),
  l-diversity (Machanavajjhala et al. 2006), t-closeness (Li, Li, Venkatasubramanian
  2007) on the ``User(Name, Age, Location, Status)`` example of Katsomallos et al.'s survey, and the
  intersection (composition) attack on two k-anonymous releases (Ganta, Kasiviswanathan,
  Smith, KDD 2008; the survey's "complementary release attack", Sweeney 2002).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.validation import (
    InputError,
    as_generator,
    check_epsilon,
    check_landmarks,
    check_positive,
)
from lmdk_core.engine.verifier import verify
from lmdk_core.mechanisms import Exponential, Geometric, PlanarLaplace, RandomizedResponse

__all__ = [
    "AGE_LEVELS",
    "LOCATION_LEVELS",
    "LEVEL_KEYS",
    "EXPONENTIAL_EXAMPLE",
    "AnonymityReport",
    "CorrelatedWindow",
    "IntersectionAttack",
    "NeighbourDensities",
    "NoiseCloud",
    "PostProcessing",
    "ProtectionLevel",
    "RRSurvey",
    "SensitivityExample",
    "anonymity_report",
    "correlated_composition",
    "discount_weights",
    "discounted_composition",
    "distinct_l_diversity",
    "entropy_l_diversity",
    "equivalence_classes",
    "exponential_probabilities",
    "generalize",
    "geometric_pmf",
    "intersection_attack",
    "k_anonymity",
    "laplace_density",
    "laplace_samples",
    "neighbouring_densities",
    "noise_cloud",
    "parallel_composition",
    "posterior_bound",
    "posterior_lower_bound",
    "post_processing_demo",
    "protection_levels",
    "protection_levels_frame",
    "randomized_response_survey",
    "sensitivity_example",
    "sequential_composition",
    "t_closeness",
    "toy_microdata",
]


# ====================================================================== 1. the definition
def laplace_density(x: ArrayLike, mu: float, scale: float) -> np.ndarray:
    """Density of Laplace(μ, b): ``exp(−|x − μ|/b) / 2b`` (Dwork & Roth, Def. 3.2)."""
    b = check_positive(scale, "the Laplace scale b")
    z = np.asarray(x, dtype=float)
    return np.exp(-np.abs(z - mu) / b) / (2.0 * b)


def _laplace_interval(low: float, high: float, mu: float, b: float) -> float:
    """``Pr[low <= X <= high]`` for X ~ Laplace(μ, b), computed from the tail on the side
    of μ the interval lies on (no cancellation far out in the tails)."""
    if low >= mu:
        return 0.5 * (math.exp(-(low - mu) / b) - math.exp(-(high - mu) / b))
    if high <= mu:
        return 0.5 * (math.exp((high - mu) / b) - math.exp((low - mu) / b))
    return 1.0 - 0.5 * math.exp((low - mu) / b) - 0.5 * math.exp(-(high - mu) / b)


@dataclass(frozen=True)
class NeighbourDensities:
    """Laplace output densities of a count on two neighbouring data sets.

    ``D`` has the true count ``count_d``, ``D'`` one more person (``count_d2 =
    count_d + Δf``). ``log_ratio`` is the privacy loss ``ln(p_D(x)/p_D'(x))``, which the
    Laplace mechanism keeps within ``[−ε, ε]`` at every output ``x``.
    """

    x: np.ndarray
    density_d: np.ndarray
    density_d2: np.ndarray
    log_ratio: np.ndarray
    epsilon: float
    sensitivity: float
    scale: float
    count_d: float
    count_d2: float

    @property
    def max_abs_loss(self) -> float:
        """``max_x |ln(p_D(x)/p_D'(x))|`` over the grid — equal to ε (attained off the
        segment between the two counts)."""
        return float(np.max(np.abs(self.log_ratio)))

    def interval_probabilities(self, low: float, high: float) -> tuple[float, float]:
        """``(Pr[M(D) ∈ [low, high]], Pr[M(D') ∈ [low, high]])`` — one set O of outputs.

        Their ratio always lies within ``[e^−ε, e^ε]`` (the definition with O an interval).
        """
        if not (np.isfinite(low) and np.isfinite(high)) or high < low:
            raise InputError("the interval must have finite ends with low <= high")
        return (_laplace_interval(low, high, self.count_d, self.scale),
                _laplace_interval(low, high, self.count_d2, self.scale))


def neighbouring_densities(
    epsilon: float, sensitivity: float = 1.0, count: float = 10.0, points: int = 801
) -> NeighbourDensities:
    """The Laplace mechanism ``M(D) = f(D) + Lap(Δf/ε)`` on ``D`` (count ``count``) and on
    its neighbour ``D'`` (count ``count + Δf``): densities on a grid wide enough to show
    both tails (±6 scales), and the privacy loss ``ln(p_D/p_D') = (|x − f(D')| − |x −
    f(D)|)/b ∈ [−ε, ε]`` (Dwork & Roth, Thm 3.6)."""
    eps = check_epsilon(epsilon)
    df = check_positive(sensitivity, "the sensitivity Δf")
    b = df / eps
    c1, c2 = float(count), float(count) + df
    span = 6.0 * b + df
    x = np.linspace(c1 - span, c2 + span, int(points))
    p1 = laplace_density(x, c1, b)
    p2 = laplace_density(x, c2, b)
    loss = (np.abs(x - c2) - np.abs(x - c1)) / b
    return NeighbourDensities(x, p1, p2, loss, eps, df, b, c1, c2)


# ====================================================================== 2. the adversary
def posterior_bound(prior: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    """Largest posterior an adversary can reach after seeing an ε-DP output:
    ``p·e^ε / (1 − p + p·e^ε)`` for a prior ``p`` (Bayes' rule with the likelihood ratio
    bounded by ``e^ε``; Dwork & Roth §2.3, Kasiviswanathan & Smith 2014)."""
    p = _check_prior(prior)
    e = np.exp(_check_eps_array(epsilon))
    return p * e / (1.0 - p + p * e)


def posterior_lower_bound(prior: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    """Smallest posterior: ``p / (p + (1 − p)·e^ε)`` (the ratio bounded below by e^−ε)."""
    p = _check_prior(prior)
    e = np.exp(_check_eps_array(epsilon))
    return p / (p + (1.0 - p) * e)


def _check_prior(prior: ArrayLike) -> np.ndarray:
    try:
        p = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the prior must be a probability (a number between 0 and 1)") from None
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise InputError("the prior must be a probability between 0 and 1")
    return p


def _check_eps_array(epsilon: ArrayLike) -> np.ndarray:
    try:
        e = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise InputError("ε must be a number") from None
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise InputError("ε must be a finite number >= 0")
    return e


# ====================================================================== 3. protection levels
#: the levels shown side by side, in order
LEVEL_KEYS = ("event", "user", "w-event", "landmark")

_LEVEL_INFO = {
    # key: (label, scheme, what it protects) — event/user level: Dwork et al. 2010;
    # w-event: Kellaris et al. 2014; landmark: the landmark-privacy theorem (Uniform)
    "event": ("Event-level", "event", "any one event"),
    "user": ("User-level", "user", "all events together"),
    "w-event": ("w-event", "w-event", "any w consecutive events"),
    "landmark": ("Landmark (Uniform)", "uniform", "all landmarks + any one event"),
}


@dataclass(frozen=True)
class ProtectionLevel:
    """One protection level on the example timeline.

    ``protected[t]`` marks the events protected *together with* the focus timestamp:
    the neighbouring series may differ in all of them at once. ``protected_total`` is
    the budget they spend together (≤ ε by construction of the level);
    ``landmark_total`` is the landmark-privacy theorem's worst total
    ``max_t Σ_{i∈L∪{t}} ε_i`` and ``landmark_private`` the verifier's verdict.
    """

    key: str
    label: str
    description: str
    epsilon_t: np.ndarray
    protected: np.ndarray
    protected_total: float
    landmark_total: float
    landmark_worst_t: int
    landmark_private: bool


def protection_levels(
    length: int,
    landmarks: Iterable[int],
    epsilon: float,
    window: int,
    focus: int,
) -> list[ProtectionLevel]:
    """Event, user, w-event and landmark protection of a ``length``-timestamp series.

    Budgets come from :func:`lmdk_core.engine.allocation.allocate` (landmark = Uniform,
    ``ε/(|L|+1)``) and verdicts from :func:`lmdk_core.engine.verifier.verify`. The events
    protected together with ``focus``: event-level ``{focus}``; user-level all; w-event
    the window of ``w`` timestamps ending at ``focus`` (clipped at 0; any w consecutive
    events are protected); landmark ``L ∪ {focus}``.
    """
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InputError(f"the example length must be a whole number >= 1, got {length!r}")
    T = int(length)
    lm = check_landmarks(landmarks, T)
    eps = check_epsilon(epsilon)
    if isinstance(window, bool) or int(window) != window or window < 1:
        raise InputError(f"the window w must be a whole number >= 1, got {window!r}")
    w = int(window)
    if isinstance(focus, bool) or int(focus) != focus or not 0 <= focus < T:
        raise InputError(f"the chosen timestamp must lie in 0..{T - 1}, got {focus!r}")
    f = int(focus)
    out = []
    for key in LEVEL_KEYS:
        label, scheme, desc = _LEVEL_INFO[key]
        alloc = allocate(scheme, T, lm, eps, w)
        prot = np.zeros(T, dtype=bool)
        if key == "event":
            prot[f] = True
        elif key == "user":
            prot[:] = True
        elif key == "w-event":
            prot[max(0, f - w + 1): f + 1] = True
        else:
            prot[lm] = True
            prot[f] = True
        v = verify(alloc, lm, eps)
        out.append(ProtectionLevel(key, label, desc, alloc, prot, float(alloc[prot].sum()),
                                   v.worst_total, v.worst_timestamp, v.private))
    return out


def protection_levels_frame(levels: Sequence[ProtectionLevel], landmarks: Iterable[int],
                            sensitivity: float = 1.0) -> pd.DataFrame:
    """One row per level: budget at a regular timestamp and at a landmark, the Laplace
    noise scale ``Δf/ε_t`` at a regular timestamp, the budget spent by the events
    protected together with the focus ("spent with t"), the theorem's worst total and
    the landmark-privacy verdict."""
    df = check_positive(sensitivity, "the sensitivity Δf")
    rows = []
    for lv in levels:
        T = lv.epsilon_t.size
        lm = check_landmarks(landmarks, T)
        regular = np.setdiff1d(np.arange(T), lm)
        e_reg = float(lv.epsilon_t[regular[0]]) if regular.size else float("nan")
        e_lm = float(lv.epsilon_t[lm[0]]) if lm.size else float("nan")
        rows.append({
            "level": lv.label,
            "protects": lv.description,
            "ε_t regular": e_reg,
            "ε_t landmark": e_lm,
            "noise Δf/ε_t": df / e_reg if e_reg > 0 else float("inf"),
            "spent with t": lv.protected_total,
            "worst Σ over L∪{t}": lv.landmark_total,
            "landmark-private": "yes" if lv.landmark_private else "no",
        })
    return pd.DataFrame(rows)


# ====================================================================== 4. mechanisms
def laplace_samples(value: float, epsilon: float, sensitivity: float = 1.0, n: int = 2000,
                    seed: int = 0) -> np.ndarray:
    """``n`` draws of the Laplace mechanism ``value + Lap(Δf/ε)`` (seeded)."""
    from lmdk_core.mechanisms import Laplace

    _check_count(n, "the number of samples")
    mech = Laplace(sensitivity)
    return mech.perturb(np.full(int(n), float(value)), epsilon, as_generator(seed))


def geometric_pmf(epsilon: float, sensitivity: int = 1, k_max: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided geometric noise ``P(Z = k) = (1 − a)/(1 + a) · a^|k|``, ``a = e^{−ε/Δf}``
    (Ghosh, Roughgarden, Sundararajan 2009), for ``k = −k_max..k_max`` (by default the
    range holding 99.9 % of the mass)."""
    mech = Geometric(sensitivity)
    a = float(mech.ratio(epsilon))
    if k_max is None:
        # P(|Z| > k) = 2a^{k+1}/(1+a) <= 1e-3
        k_max = int(np.ceil(np.log(5e-4 * (1 + a)) / np.log(a))) if a > 0 else 1
        k_max = int(min(max(k_max, 3), 500))
    k = np.arange(-int(k_max), int(k_max) + 1)
    return k, (1 - a) / (1 + a) * a ** np.abs(k)


@dataclass(frozen=True)
class NoiseCloud:
    """Planar Laplace draws around a point, in metres east (``x``) and north (``y``).

    ``expected_mean = 2r/ε`` (Andrés et al. 2013), ``median`` and ``p95`` the Gamma(2, r/ε)
    quantiles; ``within_radius`` the exact probability ``1 − (1 + ε)e^{−ε}`` of landing
    within the protection radius r; ``measured_mean`` the mean distance of the draws.
    """

    x: np.ndarray
    y: np.ndarray
    distance: np.ndarray
    epsilon: float
    radius: float
    expected_mean: float
    median: float
    p95: float
    within_radius: float

    @property
    def measured_mean(self) -> float:
        return float(self.distance.mean())


def noise_cloud(epsilon: float, radius: float, n: int = 1000, seed: int = 0) -> NoiseCloud:
    """``n`` Planar Laplace displacements (angle uniform, distance ~ Gamma(2, r/ε)) drawn
    by :class:`lmdk_core.mechanisms.PlanarLaplace` for protection radius ``r`` metres."""
    _check_count(n, "the number of points")
    mech = PlanarLaplace(radius)
    eps = check_epsilon(epsilon)
    dist, az = mech.sample_displacement(np.full(int(n), eps), as_generator(seed))
    theta = np.radians(az)
    return NoiseCloud(
        x=dist * np.sin(theta), y=dist * np.cos(theta), distance=dist, epsilon=eps,
        radius=mech.radius,
        expected_mean=float(mech.expected_error(eps)),
        median=float(mech.displacement_quantile(0.5, eps)),
        p95=float(mech.displacement_quantile(0.95, eps)),
        within_radius=float(mech.displacement_cdf(mech.radius, eps)),
    )


#: the Exponential mechanism's example: "which café was visited most this week?"
#: (candidate, number of visits); one person changes a count by at most 1 (Δu = 1).
EXPONENTIAL_EXAMPLE: list[tuple[str, int]] = [
    ("Café de Flore", 42), ("Le Procope", 40), ("Les Deux Magots", 31),
    ("Café Oberkampf", 12), ("La Palette", 5),
]


def exponential_probabilities(utilities: ArrayLike, epsilon: float,
                              sensitivity: float = 1.0) -> np.ndarray:
    """Selection probabilities ``exp(ε·u/(2Δu)) / Σ exp(ε·u'/(2Δu))`` of the Exponential
    mechanism (McSherry & Talwar 2007)."""
    return Exponential(sensitivity).probabilities(utilities, epsilon)


@dataclass(frozen=True)
class RRSurvey:
    """A randomized-response survey of ``n`` people, ``true_yes`` of whom would answer yes.

    ``p_truth = e^ε/(1 + e^ε)``; ``observed`` is the share of "yes" reports;
    ``estimate = (observed − q)/(p − q)`` with ``q = 1 − p`` (Warner 1965) is unbiased,
    with standard error ``√(λ(1−λ)/n)/(p − q)``.
    """

    n: int
    epsilon: float
    true_proportion: float
    true_yes: int
    reports_yes: int
    p_truth: float
    observed: float
    estimate: float
    std_error: float


def randomized_response_survey(true_proportion: float, n: int, epsilon: float,
                               seed: int = 0) -> RRSurvey:
    """Simulate Warner's survey with :class:`lmdk_core.mechanisms.RandomizedResponse`
    (two answers: each person tells the truth with probability ``e^ε/(1 + e^ε)``) and
    estimate the true proportion of "yes" with ``estimate_proportions``."""
    _check_count(n, "the number of people")
    try:
        pi = float(true_proportion)
    except (TypeError, ValueError):
        raise InputError("the true proportion must be a number between 0 and 1") from None
    if not 0 <= pi <= 1:
        raise InputError("the true proportion must be between 0 and 1")
    eps = check_epsilon(epsilon)
    n = int(n)
    k = int(round(pi * n))
    truth = np.zeros(n, dtype=int)
    truth[:k] = 1
    rr = RandomizedResponse(2)
    reports = rr.perturb(truth, eps, as_generator(seed))
    est = float(rr.estimate_proportions(reports, eps)[1])
    p = float(rr.truth_probability(eps))
    lam = float(reports.mean())
    se = float(np.sqrt(max(lam * (1 - lam), 1e-12) / n) / (2 * p - 1))
    return RRSurvey(n, eps, pi, k, int(reports.sum()), p, lam, est, se)


def _check_count(n: object, name: str, maximum: int = 1_000_000) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= maximum:
        raise InputError(f"{name} must be a whole number between 1 and {maximum:,}")
    return int(n)


# ====================================================================== 5. composition
def _eps_list(epsilons: Iterable[float], name: str = "the budgets") -> np.ndarray:
    try:
        e = np.asarray(list(epsilons), dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers") from None
    if e.ndim != 1 or e.size == 0:
        raise InputError(f"{name}: give at least one ε")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise InputError(f"{name} must be finite numbers >= 0")
    return e


def sequential_composition(epsilons: Iterable[float]) -> float:
    """Mechanisms applied to the *same* data: ``Σ ε_i`` (McSherry 2009, Thm 1)."""
    return float(_eps_list(epsilons).sum())


def parallel_composition(epsilons: Iterable[float]) -> float:
    """Mechanisms applied to *disjoint* subsets of the data: ``max ε_i`` (McSherry 2009)."""
    return float(_eps_list(epsilons).max())


def discount_weights(m: int, kind: str = "exponential", rate: float = 0.5) -> np.ndarray:
    """Temporal discount ``g`` of the m releases, oldest first (Farokhi 2020).

    The release of age ``k`` (``k = 0`` the newest, ``k = m−1`` the oldest) weighs
    ``g(k) = e^{−λk}`` (exponential) or ``g(k) = 1/(1 + λk)`` (hyperbolic), ``λ = rate``.
    """
    _check_count(m, "the number of releases", 100_000)
    lam = float(rate)
    if not np.isfinite(lam) or lam < 0:
        raise InputError("the discount rate λ must be a finite number >= 0")
    age = np.arange(int(m) - 1, -1, -1, dtype=float)
    key = str(kind).strip().lower()
    if key == "exponential":
        return np.exp(-lam * age)
    if key == "hyperbolic":
        return 1.0 / (1.0 + lam * age)
    raise InputError(f"unknown discount {kind!r}; choose exponential or hyperbolic")


def discounted_composition(epsilons: Iterable[float], kind: str = "exponential",
                           rate: float = 0.5) -> float:
    """Sequential composition with temporal discounting: ``Σ g(i)·ε_i`` (Farokhi 2020,
    the survey's theorem) with the weights of :func:`discount_weights`."""
    e = _eps_list(epsilons)
    return float(np.dot(discount_weights(e.size, kind, rate), e))


@dataclass(frozen=True)
class CorrelatedWindow:
    """Leakage of the releases ``start..end`` under Markov correlation.

    ``bpl``/``fpl`` are Cao et al.'s backward/forward leakage of the whole series;
    ``leakage`` the guarantee of the window (the survey's "sequential composition under
    temporal correlation", Cao et al. TKDE'18); ``independent`` the plain sequential
    composition ``Σ_{i=start}^{end} ε_i`` that holds for independent data.
    """

    epsilon_t: np.ndarray
    bpl: np.ndarray
    fpl: np.ndarray
    start: int
    end: int
    leakage: float
    independent: float
    strength: float
    n_states: int


def correlated_composition(epsilon_t: Iterable[float], start: int, end: int,
                           strength: float, n_states: int = 2) -> CorrelatedWindow:
    """Privacy of a window of releases on temporally correlated data.

    The correlation is Cao et al.'s smoothed matrix ``P = (I + s)/(1 + n·s)``
    (:func:`lmdk_core.leakage.smoothed_matrix`; small ``s`` = strong correlation), used
    as both backward and forward matrix. With ``BPL``/``FPL`` of the whole series
    (:func:`lmdk_core.leakage.bpl`, :func:`~lmdk_core.leakage.fpl`), the window
    ``[s, e]`` is ``α^B_s + α^F_e + Σ_{s<i<e} ε_i``-DP, and a single release (``s = e``)
    is ``α^B_s + α^F_s − ε_s`` (its TPL).
    """
    from lmdk_core.leakage import bpl, fpl, smoothed_matrix

    eps = _eps_list(epsilon_t, "the budgets ε_t")
    T = eps.size
    s, e = int(start), int(end)
    if not 0 <= s <= e < T:
        raise InputError(f"the window must satisfy 0 <= start <= end <= {T - 1}")
    P = smoothed_matrix(int(n_states), strength)
    b = bpl(eps, P)
    f = fpl(eps, P)
    if s == e:
        leak = float(b[s] + f[s] - eps[s])
    else:
        leak = float(b[s] + f[e] + eps[s + 1: e].sum())
    return CorrelatedWindow(eps, b, f, s, e, leak, float(eps[s: e + 1].sum()),
                            float(strength), int(n_states))


@dataclass(frozen=True)
class PostProcessing:
    """A Laplace release and two post-processed versions of it, all ε-DP (Dwork & Roth,
    Prop. 2.1): ``clipped`` = released values clipped to ``[0, ∞)``, ``smoothed`` = a
    centred moving average of the clipped values. ``mae`` maps each version to its mean
    absolute error against ``original``."""

    original: np.ndarray
    released: np.ndarray
    clipped: np.ndarray
    smoothed: np.ndarray
    epsilon: float
    mae: dict[str, float]


def post_processing_demo(values: ArrayLike, epsilon: float, sensitivity: float = 1.0,
                         window: int = 3, seed: int = 0) -> PostProcessing:
    """Release ``values`` with Laplace(Δf/ε) at every timestamp (event-level ε), then
    post-process without touching the raw data: clip negatives to 0 (counts cannot be
    negative) and average ``window`` neighbours. No extra budget is spent."""
    from lmdk_core.mechanisms import Laplace

    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise InputError("the example series must be a non-empty list of numbers")
    w = _check_count(window, "the smoothing window", 999)
    eps = check_epsilon(epsilon)
    rel = Laplace(sensitivity).perturb(x, eps, as_generator(seed))
    clipped = np.maximum(rel, 0.0)
    smoothed = (pd.Series(clipped).rolling(w, center=True, min_periods=1).mean()
                .to_numpy())
    mae = {k: float(np.mean(np.abs(v - x)))
           for k, v in (("released", rel), ("clipped", clipped), ("smoothed", smoothed))}
    return PostProcessing(x, rel, clipped, smoothed, eps, mae)


# ====================================================================== 6. k-anonymity
#: generalisation hierarchy of Age (level -> description)
AGE_LEVELS = {0: "exact age", 1: "decade (10–19, 20–29, ...)", 2: "≤ 20 / > 20",
              3: "suppressed (*)"}
#: generalisation hierarchy of Location
LOCATION_LEVELS = {0: "neighbourhood", 1: "city (Paris)", 2: "suppressed (*)"}

QUASI_IDENTIFIERS = ("Age", "Location")
SENSITIVE = "Status"

_TOY_ROWS = [
    # Name, Age, Location, Status — the User(Name, Age, Location, Status) example of
    # Katsomallos et al.'s survey:
    # Dewey at home at Montmartre, Quackmore (62, the sixth record) dining at Opéra.
    ("Donald", 31, "Montmartre", "at work"),
    ("Daisy", 29, "Opéra", "driving"),
    ("Huey", 12, "Montmartre", "running"),
    ("Dewey", 11, "Montmartre", "at home"),
    ("Louie", 10, "Opéra", "walking"),
    ("Quackmore", 62, "Opéra", "dining"),
]


def toy_microdata(variant: str = "seed") -> pd.DataFrame:
    """The microdata ``User(Name, Age, Location, Status)`` of Katsomallos et al.'s survey
    at one timestamp.

    ``variant="homogeneous"``: every adult is "at work" — the homogeneity attack of
    Machanavajjhala et al.: a k-anonymous class whose sensitive values are all equal.
    """
    df = pd.DataFrame(_TOY_ROWS, columns=["Name", "Age", "Location", "Status"])
    key = str(variant).strip().lower()
    if key == "homogeneous":
        df.loc[df["Age"] > 20, "Status"] = "at work"
    elif key != "seed":
        raise InputError(f"unknown variant {variant!r}; choose seed or homogeneous")
    return df


def _age_label(age: int, level: int) -> str:
    if level == 0:
        return str(age)
    if level == 1:
        lo = (age // 10) * 10
        return f"{lo}–{lo + 9}"
    if level == 2:
        return "≤ 20" if age <= 20 else "> 20"
    return "*"


def generalize(table: pd.DataFrame, age_level: int, location_level: int) -> pd.DataFrame:
    """Suppress the identifier (Name → ``*``) and generalise the quasi-identifiers Age and
    Location up their hierarchies (:data:`AGE_LEVELS`, :data:`LOCATION_LEVELS`) — Sweeney's
    generalisation and suppression (2002)."""
    if age_level not in AGE_LEVELS:
        raise InputError(f"age level must be one of {sorted(AGE_LEVELS)}")
    if location_level not in LOCATION_LEVELS:
        raise InputError(f"location level must be one of {sorted(LOCATION_LEVELS)}")
    out = table.copy()
    out["Name"] = "*"
    out["Age"] = [_age_label(int(a), age_level) for a in table["Age"]]
    out["Location"] = [loc if location_level == 0 else ("Paris" if location_level == 1 else "*")
                       for loc in table["Location"]]
    return out


def equivalence_classes(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS
                        ) -> list[np.ndarray]:
    """Row indices of each equivalence class: rows with equal quasi-identifier values."""
    return [np.asarray(idx) for _, idx in table.groupby(list(qi), sort=False).indices.items()]


def k_anonymity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS) -> int:
    """Largest k for which the table is k-anonymous: the smallest class size (Sweeney)."""
    return int(min(len(c) for c in equivalence_classes(table, qi)))


def distinct_l_diversity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                         sensitive: str = SENSITIVE) -> int:
    """Distinct l-diversity: the fewest distinct sensitive values in a class
    (Machanavajjhala et al. 2006)."""
    s = table[sensitive].to_numpy()
    return int(min(len(set(s[c])) for c in equivalence_classes(table, qi)))


def entropy_l_diversity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                        sensitive: str = SENSITIVE) -> float:
    """Entropy l-diversity: ``exp(min over classes of −Σ p·ln p)`` — the table is entropy
    l-diverse for every l up to this value (Machanavajjhala et al. 2006)."""
    s = table[sensitive].to_numpy()
    ent = []
    for c in equivalence_classes(table, qi):
        _, counts = np.unique(s[c], return_counts=True)
        p = counts / counts.sum()
        ent.append(float(-(p * np.log(p)).sum()))
    return float(np.exp(min(ent)))


def t_closeness(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                sensitive: str = SENSITIVE) -> float:
    """Smallest t for which the table has t-closeness (Li, Li, Venkatasubramanian 2007):
    the largest distance between a class's sensitive-value distribution and the whole
    table's. For a categorical attribute with equal ground distances the Earth Mover's
    Distance is the total-variation distance ``½ Σ_v |P_class(v) − P_table(v)|``."""
    s = table[sensitive].to_numpy()
    values = np.unique(s)
    overall = np.array([(s == v).mean() for v in values])
    worst = 0.0
    for c in equivalence_classes(table, qi):
        dist = np.array([(s[c] == v).mean() for v in values])
        worst = max(worst, 0.5 * float(np.abs(dist - overall).sum()))
    return worst


@dataclass(frozen=True)
class AnonymityReport:
    """A generalised release of the toy table and its k, l and t."""

    released: pd.DataFrame
    classes: pd.DataFrame
    k: int
    l_distinct: int
    l_entropy: float
    t: float


def anonymity_report(age_level: int, location_level: int, variant: str = "seed"
                     ) -> AnonymityReport:
    """Generalise the toy table and measure it: k-anonymity, distinct and entropy
    l-diversity, t-closeness; ``classes`` lists each class's size and sensitive values."""
    gen = generalize(toy_microdata(variant), age_level, location_level)
    rows = []
    for c in equivalence_classes(gen):
        statuses = gen["Status"].to_numpy()[c]
        rows.append({"Age": gen["Age"].iloc[c[0]], "Location": gen["Location"].iloc[c[0]],
                     "people": len(c), "Status values": ", ".join(sorted(set(statuses)))})
    return AnonymityReport(
        released=gen, classes=pd.DataFrame(rows), k=k_anonymity(gen),
        l_distinct=distinct_l_diversity(gen), l_entropy=entropy_l_diversity(gen),
        t=t_closeness(gen),
    )


@dataclass(frozen=True)
class IntersectionAttack:
    """What an adversary learns about ``target`` from two releases.

    The adversary knows the target's quasi-identifiers (age and neighbourhood) and that
    the target is in both tables. ``candidates_a``/``candidates_b``: the sensitive values
    of the target's class in each release; ``intersection``: the values consistent with
    both. ``k_a``/``k_b`` are the releases' k.
    """

    target: str
    truth: str
    candidates_a: list[str]
    candidates_b: list[str]
    intersection: list[str]
    k_a: int
    k_b: int

    @property
    def disclosed(self) -> bool:
        """True when the two releases together pin the target's status down."""
        return len(self.intersection) == 1


def intersection_attack(levels_a: tuple[int, int], levels_b: tuple[int, int],
                        target: str = "Donald", variant: str = "seed") -> IntersectionAttack:
    """The composition (intersection) attack of Ganta, Kasiviswanathan & Smith (KDD 2008)
    on two k-anonymous releases of the same table, generalised with ``levels_a`` and
    ``levels_b`` = (age level, location level): each release alone leaves k candidates
    for the target's status; intersecting the two classes' values may leave one."""
    table = toy_microdata(variant)
    names = table["Name"].tolist()
    if target not in names:
        raise InputError(f"{target!r} is not in the table; choose one of {', '.join(names)}")
    i = names.index(target)
    out = []
    for levels in (levels_a, levels_b):
        gen = generalize(table, *levels)
        cls = next(c for c in equivalence_classes(gen) if i in c)
        out.append((sorted(set(gen["Status"].to_numpy()[cls])), k_anonymity(gen)))
    (ca, ka), (cb, kb) = out
    inter = sorted(set(ca) & set(cb))
    return IntersectionAttack(target, str(table["Status"].iloc[i]), ca, cb, inter, ka, kb)


# ---------------------------------------------------------------- Δf on the demo week
@dataclass(frozen=True)
class SensitivityExample:
    """The demo week's medical-device event (two night readings) released with Uniform
    at total ε: its changes, the likelihood ratio at the chosen Δf and at the Δf derived
    from the data, and e^ε for comparison."""

    epsilon: float
    sensitivity: float
    derived: float
    changes: tuple[float, ...]
    epsilon_t: float
    ratio: float
    ratio_derived: float

    @property
    def covered(self) -> bool:
        return all(abs(d) <= self.sensitivity for d in self.changes)

    def sentence(self) -> str:
        """The example in words (numbers computed, nothing asserted)."""
        ch = " and ".join(f"{abs(d):.2f}" for d in self.changes)
        return (f"In the demo week a medical device running at night raises two readings by "
                f"{ch} kWh (against the usual reading at that hour). Released with Uniform at "
                f"ε = {self.epsilon:g} (5 landmarks, so ε_t = ε/6 = {self.epsilon_t:.3g}) and "
                f"Δf = {self.sensitivity:g} kWh, the release is **{self.ratio:,.3g} times** "
                f"more likely with the device than without — "
                + ("within" if self.ratio <= math.exp(self.epsilon) * (1 + 1e-12) else
                   "far beyond" if self.ratio > 2 * math.exp(self.epsilon) else "beyond")
                + f" e^ε = {math.exp(self.epsilon):.3g}. With Δf = {self.derived:g} kWh, "
                f"derived from the week's own events, it is {self.ratio_derived:.3g}.")


def sensitivity_example(epsilon: float = 1.0, sensitivity: float = 0.2) -> SensitivityExample:
    """Why Δf must cover the events it protects, on the demo week: the likelihood ratio
    ``exp(Σ_t |d_t|·ε_t/Δf)`` of the medical-device event (t = 27, 28) under Uniform
    (Dwork & Roth, Thm 3.6; :mod:`lmdk_core.decision.sensitivity`)."""
    from lmdk_core.data.demo import demo_series, demo_series_landmarks
    from lmdk_core.decision.sensitivity import derived_sensitivity, landmark_events

    eps = check_epsilon(epsilon)
    df = check_positive(sensitivity, "the sensitivity Δf")
    s, lm = demo_series(), demo_series_landmarks()
    eps_t = allocate("uniform", len(s), lm, eps)
    derived = derived_sensitivity(s, lm).value
    device = landmark_events(s, lm, eps_t, df)[0]
    at_derived = landmark_events(s, lm, eps_t, derived)[0]
    return SensitivityExample(epsilon=eps, sensitivity=df, derived=derived,
                              changes=device.changes, epsilon_t=float(eps_t[27]),
                              ratio=device.likelihood_ratio,
                              ratio_derived=at_derived.likelihood_ratio)
