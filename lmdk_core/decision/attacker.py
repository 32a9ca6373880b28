"""What an attacker learns from a release — computed and simulated, not asserted.

Three views, each in plain numbers:

* **Posterior bound** (Kasiviswanathan & Smith, "On the 'semantics' of differential
  privacy", J. Priv. Conf. 2014; the Bayesian reading of ε-DP): an attacker with prior
  probability p for any statement about what landmark privacy protects (e.g. "a
  landmark reading exceeded 3 kWh") ends with a posterior of at most
  ``p·e^x / (1 − p + p·e^x)`` where x is the privacy loss: ε for independent values
  (Katsomallos et al., "Landmark privacy", CODASPY 2022), the landmark temporal privacy
  leakage under a correlation model otherwise (Cao et al. ICDE 2017 / TKDE 2018). The
  attacker is then at most e^x times more certain (odds ratio).
* **Which timestamps are landmarks** (:func:`simulate_repeat_inference`): a released
  value that repeats the previous one exactly cannot come from fresh continuous noise
  (probability 0), so it marks an approximation — under Skip, exactly the landmarks.
  The attacker flags every exact repeat (and every withheld value) as a landmark; the
  release is simulated R times and precision / recall of that guess are measured.
* **Averaging a stay point over repeated releases** (:func:`averaging_attack`): a place
  visited every day (home, work) is released every day with fresh Planar Laplace noise
  (Andrés et al. CCS 2013). An attacker who averages the released points of the stay
  over D days approaches the true place: the noise of a day's mean has covariance
  σ₁²·I with σ₁² = Σ_u w_u²·3s_u² (s_u = r/ε_u the Gamma(2, s) scale of publication u,
  E R² = 6s², w_u the share of the stay's timestamps showing u), a D-day mean σ₁²/D,
  and the points repeated by approximations add a fixed offset ν. The estimate's
  error is Rice(ν, σ) in the normal limit; it is also simulated (Gamma(2) radii,
  uniform angles, in the local tangent plane at the stay; once a D-day sum has more
  than ``EXACT_DRAWS/runs`` terms it is drawn from its normal limit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import allocate, scheme_info
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks, check_positive

__all__ = [
    "AveragingResult",
    "PosteriorCurve",
    "RepeatFlags",
    "RepeatInference",
    "averaging_attack",
    "certainty_sentence",
    "planning_scheme",
    "posterior_bound",
    "posterior_vs_epsilon",
    "repeat_inference",
    "risk_statements",
    "simulate_repeat_inference",
]

#: variates simulated exactly per number of days (beyond: the sum's normal limit)
EXACT_DRAWS = 500_000
#: mean Earth radius for the local tangent plane (metres)
EARTH_RADIUS_M = 6_371_008.8


def posterior_bound(prior: ArrayLike, loss: ArrayLike) -> np.ndarray:
    """Largest posterior ``p·e^x / (1 − p + p·e^x)`` of an attacker with prior p after a
    release whose privacy loss is x (ε, or landmark TPL under correlation).

    Bayes' rule with a likelihood ratio of at most e^x (Kasiviswanathan & Smith 2014).

    Examples
    --------
    >>> import math
    >>> float(posterior_bound(0.5, math.log(3)))
    0.75
    """
    p = np.asarray(prior, dtype=float)
    x = np.asarray(loss, dtype=float)
    if not np.all((p >= 0) & (p <= 1)):  # NaN fails both comparisons
        raise InputError("a prior probability must be a number from 0 to 1")
    if not np.all(x >= 0):
        raise InputError("a privacy loss must be a number ≥ 0 (not NaN)")
    # p·e^x/(1 − p + p·e^x) = p/(p + (1 − p)e^{−x}): no overflow for large x
    with np.errstate(invalid="ignore", divide="ignore"):
        out = p / (p + (1.0 - p) * np.exp(-x))
    return np.where(p == 0, 0.0, out)


def planning_scheme(scheme: str) -> str:
    """The scheme whose allocation stands for ``scheme`` before any noise is drawn:
    Adaptive's allocation depends on its own noise, so it is judged by its starting
    Uniform allocation; every other scheme by itself."""
    key = scheme_info(scheme).key
    return "uniform" if key == "adaptive" else key


@dataclass(frozen=True)
class PosteriorCurve:
    """The attacker's largest posterior over a grid of ε (:func:`posterior_vs_epsilon`):
    ``independent[i]`` at loss ε_i, and under a correlation model ``landmark_tpl[i]``
    (the largest landmark TPL of the allocation at ε_i) and ``correlated[i]`` at that
    loss (both None without a model)."""

    prior: float
    epsilon: np.ndarray
    independent: np.ndarray
    landmark_tpl: np.ndarray | None = None
    correlated: np.ndarray | None = None


def posterior_vs_epsilon(prior: float, epsilons: ArrayLike, *, scheme: str, length: int,
                         landmarks: Iterable[int], window: int | None = None,
                         backward=None, forward=None) -> PosteriorCurve:
    """The posterior bound ``p·e^x/(1 − p + p·e^x)`` (:func:`posterior_bound`) for each ε
    of ``epsilons``: with x = ε for independent values and, when the loss functions
    ``backward``/``forward`` of a correlation model are given, with x = max_t landmark
    TPL of the :func:`planning_scheme`'s allocation at that ε (Cao et al. ICDE 2017 /
    TKDE 2018; ``forward`` defaults to ``backward``).

    >>> c = posterior_vs_epsilon(0.1, [0.0, 1.0], scheme="uniform", length=5, landmarks=[2])
    >>> [round(float(p), 4) for p in c.independent], c.correlated
    ([0.1, 0.232], None)
    """
    grid = np.asarray(epsilons, dtype=float)
    independent = posterior_bound(prior, grid)
    if backward is None:
        return PosteriorCurve(float(prior), grid, independent)
    from lmdk_core.leakage.tpl import temporal_leakage

    lm = list(landmarks)
    plan = planning_scheme(scheme)
    tpl = np.array([_largest(temporal_leakage(allocate(plan, length, lm, float(e),
                                                       window=window),
                                              backward, forward, lm).landmark_tpl)
                    for e in grid])
    return PosteriorCurve(float(prior), grid, independent, tpl, posterior_bound(prior, tpl))


def _largest(landmark_tpl: np.ndarray | None) -> float:
    """The peak of a landmark TPL curve (computed: the landmarks were given)."""
    if landmark_tpl is None:
        raise ValueError("landmark TPL was not computed")
    return float(np.max(landmark_tpl))


def _times(factor: float) -> str:
    """A likelihood ratio in words: '2.72×', '15,800×', 'about 10^13×'."""
    if factor < 1000:
        return f"{factor:.3g}×"
    if factor < 1e6:
        return f"{float(f'{factor:.3g}'):,.0f}×"
    return f"about 10^{int(np.floor(np.log10(factor)))}×"


def certainty_sentence(loss: float, prior: float = 0.1, *, epsilon: float | None = None,
                       correlated: bool = False) -> str:
    """The privacy loss in words: "an attacker is at most e^x times more certain"."""
    post = float(posterior_bound(prior, loss))  # refuses NaN and negative values
    factor = (_times(float(np.exp(loss))) if loss <= 700.0
              else f"about 10^{int(np.floor(loss / np.log(10.0)))}×")
    why = ("under the assumed temporal correlation (landmark TPL)" if correlated
           else "if consecutive values are independent")
    extra = ("" if epsilon is None or not correlated
             else f" (ε = {epsilon:.3g} alone would give {_times(np.exp(min(epsilon, 700.0)))})")
    return (f"{why[0].upper()}{why[1:]}, an attacker becomes at most {factor} more "
            f"certain of anything about the landmarks{extra}: a {prior:.0%} suspicion can grow to "
            f"at most {post:.1%}.")


def risk_statements(epsilon: float, landmark_tpl_max: float | None = None, *,
                    releases: int = 52, delta: float = 1e-6,
                    priors: Sequence[float] = (0.01, 0.1, 0.5)) -> list[tuple[str, str]]:
    """Plain-language rows for a report: the posterior bound at ε (and at the largest
    landmark TPL when a correlation model gave one) and what ``releases`` repetitions of
    the same release add up to for a landmark that recurs in each (composition)."""
    from lmdk_core.decision.composition import schedule_summary

    rows = [("What ε means", certainty_sentence(epsilon, 0.1))]
    if landmark_tpl_max is not None and np.isfinite(landmark_tpl_max):
        rows.append(("Under temporal correlation",
                     certainty_sentence(float(landmark_tpl_max), 0.1, epsilon=epsilon,
                                        correlated=True)))
    loss = epsilon if landmark_tpl_max is None or not np.isfinite(landmark_tpl_max) \
        else max(epsilon, float(landmark_tpl_max))
    rows.append(("Posterior bounds", "; ".join(
        f"prior {p:.0%} → at most {float(posterior_bound(p, loss)):.1%}" for p in priors)))
    sched = schedule_summary(epsilon, releases, delta)
    rows.append((f"If repeated {releases} times", sched.sentences()[2]))
    return rows


# ------------------------------------------------------------------ which t are landmarks
@dataclass(frozen=True)
class RepeatInference:
    """Precision and recall of "an exact repeat (or a withheld value) is a landmark",
    the posterior P(landmark | flagged), the base rate |L|/T and the number of runs."""

    precision: float
    recall: float
    flagged_per_run: float
    base_rate: float
    runs: int

    def sentence(self) -> str:
        if self.flagged_per_run == 0:
            return ("No released value repeats the previous one: the release shows no "
                    "trace of which timestamps are landmarks.")
        return (f"An attacker who takes every repeated (or missing) value for a landmark "
                f"flags {self.flagged_per_run:.3g} timestamps per release; {self.precision:.0%} "
                f"of them are landmarks (base rate {self.base_rate:.1%}) and they cover "
                f"{self.recall:.0%} of the landmarks.")


class RepeatFlags(NamedTuple):
    """What the repeat attacker flags in one release (:func:`repeat_inference`)."""

    #: timestamps whose released value equals the previous one exactly, or is withheld
    flagged: int
    #: the landmarks among them
    flagged_landmarks: int
    #: the landmarks of the release
    landmarks: int


def repeat_inference(released: np.ndarray, landmarks: Iterable[int]) -> RepeatFlags:
    """(flagged, flagged landmarks, landmarks) for one release: t is flagged when its
    released value equals the previous one exactly, or is withheld (NaN)."""
    r = np.asarray(released, dtype=float)
    rows = r.reshape(r.shape[0], -1)
    missing = np.isnan(rows).any(axis=1)
    same = np.zeros(rows.shape[0], dtype=bool)
    same[1:] = np.all(rows[1:] == rows[:-1], axis=1)
    flagged = missing | same
    lm = np.asarray(list(landmarks), dtype=int)
    hit = int(flagged[lm].sum()) if lm.size else 0
    return RepeatFlags(int(flagged.sum()), hit, int(lm.size))


def simulate_repeat_inference(values: ArrayLike, landmarks: Iterable[int] | None,
                              scheme: str, epsilon: float, *, mechanism: str = "laplace",
                              sensitivity: float = 1.0, radius: float | None = None,
                              window: int | None = None, runs: int = 50,
                              seed: int | None = None) -> RepeatInference:
    """Release ``runs`` times (independent streams of ``SeedSequence(seed)``) and
    measure the repeat attack. Geometric noise is discrete, so a fresh value can repeat
    by chance: those false flags are counted like any other."""
    from lmdk_core.engine.release import release_series, release_trajectory

    x = np.asarray(values, dtype=float)
    T = x.shape[0]
    lm = check_landmarks(landmarks, T)
    key = scheme_info(scheme).key
    if int(runs) < 1:
        raise InputError("the simulation needs at least one run")
    flagged = hits = 0
    for child in np.random.SeedSequence(seed).spawn(int(runs)):
        gen = np.random.default_rng(child)
        if x.ndim == 2:
            if radius is None:
                raise InputError("a track needs the protection radius r (metres)")
            rel = release_trajectory(x[:, 0], x[:, 1], lm, epsilon=epsilon, radius=radius,
                                     scheme=key, seed=gen, window=window)
        else:
            rel = release_series(x, lm, epsilon=epsilon, scheme=key, mechanism=mechanism,
                                 sensitivity=sensitivity, seed=gen, window=window)
        f, h, _ = repeat_inference(rel.released, lm)
        flagged += f
        hits += h
    n = int(runs)
    return RepeatInference(
        precision=hits / flagged if flagged else float("nan"),
        recall=hits / (lm.size * n) if lm.size else float("nan"),
        flagged_per_run=flagged / n, base_rate=lm.size / T, runs=n)


# ------------------------------------------------------------------ averaging a stay point
@dataclass(frozen=True)
class AveragingResult:
    """Distance (metres) from the attacker's D-day average to the true place, per D:
    simulated mean and 90th percentile, and the normal-limit (Rice) mean."""

    days: np.ndarray
    simulated_mean: np.ndarray
    simulated_p90: np.ndarray
    rice_mean: np.ndarray
    offset_m: float
    one_day_sigma_m: float
    runs: int
    estimates: np.ndarray  # (runs, 2) east/north metres of the estimate at the largest D

    @property
    def withheld(self) -> bool:
        """True when no point of the stay is ever released (nothing to average)."""
        return bool(np.all(np.isnan(self.simulated_mean)))

    def sentence(self, i: int = -1) -> str:
        if self.withheld:
            return ("Nothing of this stay is ever released (every point of it is withheld), "
                    "so there is nothing to average.")
        d = int(self.days[i])
        return (f"After {d} day{'s' if d != 1 else ''} of releases, an attacker who averages "
                f"the released points of this stay is on average "
                f"{self.simulated_mean[i]:,.0f} m from the true place (90 % of the time "
                f"within {self.simulated_p90[i]:,.0f} m).")


def _local_xy(lat: np.ndarray, lon: np.ndarray, lat0: float, lon0: float) -> np.ndarray:
    """East/north metres in the tangent plane at (lat0, lon0) (equirectangular)."""
    k = np.pi / 180 * EARTH_RADIUS_M
    return np.column_stack([(lon - lon0) * k * np.cos(np.radians(lat0)), (lat - lat0) * k])


def _rice_mean(nu: float, sigma: float) -> float:
    """Mean of Rice(ν, σ): σ·√(π/2)·L_{1/2}(−ν²/2σ²), with the Laguerre function written
    with exponentially scaled Bessel functions, L_{1/2}(−u) = (1+u)·i0e(u/2) + u·i1e(u/2),
    so that a large ν/σ neither overflows nor loses precision."""
    from scipy.special import i0e, i1e

    u = nu * nu / (2 * sigma * sigma)
    return float(sigma * np.sqrt(np.pi / 2) * ((1 + u) * i0e(u / 2) + u * i1e(u / 2)))


def _checked_stay(stay: Sequence[int], T: int) -> np.ndarray:
    """The stay's timestamps, sorted and unique; refused unless all lie in 0 … T−1."""
    st = np.unique(np.asarray(list(stay), dtype=int))
    if st.size == 0 or st.min() < 0 or st.max() >= T:
        raise InputError("the stay must be timestamps of the track")
    return st


def _checked_days(days: Sequence[int]) -> np.ndarray:
    """The numbers of days D ≥ 1, sorted and unique; at least one."""
    days_arr = np.asarray(sorted({int(d) for d in days if int(d) >= 1}), dtype=int)
    if days_arr.size == 0:
        raise InputError("give at least one number of days ≥ 1")
    return days_arr


def _summed_noise(gen: np.random.Generator, n: int, D: int, s: np.ndarray, w: np.ndarray,
                  sigma1: float) -> np.ndarray:
    """Per run (n, 2): the sum over D days of Σ_u w_u·noise_u, Planar Laplace noise of
    scale s_u (Gamma(2, s_u) radii, uniform angles; Andrés et al. CCS 2013). Beyond
    EXACT_DRAWS variates the sum has ≥ EXACT_DRAWS/runs terms and is drawn from its
    normal limit (exact mean 0 and covariance D·σ₁²·I)."""
    if n * D * s.size > EXACT_DRAWS:
        return gen.normal(0.0, sigma1 * np.sqrt(D), size=(n, 2))
    total = np.zeros((n, 2))
    remaining = D
    while remaining > 0:  # chunks bound the memory
        c = min(remaining, max(1, 2_000_000 // max(1, n * s.size)))
        rad = gen.gamma(2.0, s, size=(n, c, s.size))
        ang = gen.uniform(0, 2 * np.pi, size=(n, c, s.size))
        total[:, 0] += (w * rad * np.cos(ang)).sum(axis=(1, 2))
        total[:, 1] += (w * rad * np.sin(ang)).sum(axis=(1, 2))
        remaining -= c
    return total


def averaging_attack(lat: ArrayLike, lon: ArrayLike, landmarks: Iterable[int] | None,
                     stay: Sequence[int], *, scheme: str, epsilon: float, radius: float,
                     days: Sequence[int] = (1, 7, 30, 90, 365), window: int | None = None,
                     runs: int = 200, seed: int | None = None) -> AveragingResult:
    """The averaging attack on the stay made of timestamps ``stay`` (its true place is
    their centroid), for a static scheme's allocation at total ``epsilon`` (Adaptive's
    allocation depends on its noise: pass its planned start, Uniform). Each day is an
    independent release of the same day; ``runs`` simulated attackers per D."""
    la = np.asarray(lat, dtype=float)
    lo = np.asarray(lon, dtype=float)
    T = la.size
    lm = check_landmarks(landmarks, T)
    st = _checked_stay(stay, T)
    r = check_positive(radius, "protection radius")
    key = scheme_info(scheme).key
    eps_t = allocate("uniform" if key == "adaptive" else key, T, lm, epsilon, window=window)
    published = eps_t > 0
    idx = np.where(published, np.arange(T), -1)
    np.maximum.accumulate(idx, out=idx)
    shown = idx[st]
    shown = shown[shown >= 0]  # withheld stay points give the attacker nothing
    days_arr = _checked_days(days)
    n = int(runs)
    if n < 2:
        raise InputError("the simulation needs at least 2 runs")
    if shown.size == 0:
        nan = np.full(days_arr.size, np.nan)
        return AveragingResult(days_arr, nan, nan.copy(), nan.copy(), float("nan"),
                               float("nan"), n, np.zeros((0, 2)))
    lat0, lon0 = float(la[st].mean()), float(lo[st].mean())
    xy = _local_xy(la, lo, lat0, lon0)
    centre = xy[st].mean(axis=0)
    pubs, counts = np.unique(shown, return_counts=True)
    w = counts / shown.size
    s = r / eps_t[pubs]
    offset = (w[:, None] * xy[pubs]).sum(axis=0) - centre
    sigma1 = float(np.sqrt(np.sum(w**2 * 3 * s**2)))
    gen = np.random.default_rng(np.random.SeedSequence(seed))
    sim_mean, sim_p90, rice_mean = [], [], []
    est = np.zeros((n, 2))
    for D in days_arr:
        total = _summed_noise(gen, n, int(D), s, w, sigma1)
        est = offset + total / D
        dist = np.hypot(est[:, 0], est[:, 1])
        sim_mean.append(float(dist.mean()))
        sim_p90.append(float(np.percentile(dist, 90)))
        sig = sigma1 / np.sqrt(D)
        rice_mean.append(_rice_mean(float(np.hypot(*offset)), float(sig)))
    return AveragingResult(days_arr, np.array(sim_mean), np.array(sim_p90), np.array(rice_mean),
                           float(np.hypot(*offset)), sigma1, n, est)
