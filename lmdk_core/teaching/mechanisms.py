"""The Learn page's fourth lesson: the mechanisms, and Δf on the demo week.

Laplace, Geometric, Planar Laplace (Andrés et al., CCS 2013), Exponential (McSherry &
Talwar 2007) and randomized response (Warner 1965): samples and exact distributions
from :mod:`lmdk_core.mechanisms`; what the demo week's landmark events change a reading
by, and the likelihood ratio they get at a given Δf (:func:`sensitivity_example`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.engine.allocation import allocate
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import (
    as_generator,
    check_count,
    check_epsilon,
    check_positive,
)
from lmdk_core.mechanisms import Exponential, Geometric, PlanarLaplace, RandomizedResponse

__all__ = [
    "EXPONENTIAL_EXAMPLE",
    "NoiseCloud",
    "RRSurvey",
    "SensitivityExample",
    "exponential_probabilities",
    "geometric_pmf",
    "laplace_samples",
    "noise_cloud",
    "randomized_response_survey",
    "sensitivity_example",
]


def laplace_samples(value: float, epsilon: float, sensitivity: float = 1.0, n: int = 2000,
                    seed: int = 0) -> np.ndarray:
    """``n`` draws of the Laplace mechanism ``value + Lap(Δf/ε)`` (seeded)."""
    from lmdk_core.mechanisms import Laplace

    check_count(n, "the number of samples")
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
    check_count(n, "the number of points")
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
    check_count(n, "the number of people")
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
