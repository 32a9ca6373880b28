"""The advice of a utility verdict that is not useful: what works, most effective first,
and what does not.

What works: publishing where the values change (when repeated readings drift from the
truth: Skip and Adaptive repeat old values; Katsomallos et al., "Landmark privacy",
CODASPY 2022), a larger total ε (the budget at which a published reading's expected
error is a tenth of the data's scale), fewer landmarks when they share most of ε, one
landmark event per stay for a track or per run of readings for a series, and a scheme
that does better at the same settings (Skip, when the landmarks take most of ε under
Uniform or Adaptive). What does not: a larger protection radius r
(Planar Laplace's displacement grows as 2r/ε_t; Andrés et al. CCS 2013) or a smaller
Δf than one event really changes a value by. See ``docs/utility.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.foundation.plurals import agree, counted

__all__ = ["AdviceSetting", "release_advice"]


@dataclass(frozen=True)
class AdviceSetting:
    """What the advice is about: the mechanism and its Δf (series) or r (track), the
    expected error a published reading should reach (``target_error``), the total ε,
    the number of landmarks (landmark events with stays) and the scheme, whether the data
    are a track and whether its stays are already protected as one event each."""

    mechanism: str
    scale_unit: float
    target_error: float
    epsilon: float | None
    n_landmarks: int
    scheme: str | None
    track: bool = False
    stays_as_events: bool = False
    #: landmark readings of a series that lie in runs of consecutive landmarks not yet
    #: released as one event each (docs/series-events.md)
    readings_in_runs: int = 0
    #: a scheme that would do better at the same ε, Δf and landmarks, in words ("" none;
    #: :func:`lmdk_core.decision.utility.release_utility` computes Skip's)
    better_scheme: str = ""

    @property
    def noun(self) -> str:
        """"point" for a track, "reading" for a series."""
        return "point" if self.track else "reading"


def release_advice(err: np.ndarray, pub: np.ndarray, eps: np.ndarray,
                   setting: AdviceSetting) -> str:
    """What works, most effective first, and what does not, joined by "; ".

    Parameters
    ----------
    err
        Expected error of each reading (NaN where withheld).
    pub
        Whether each timestamp is published.
    eps
        The allocation ε_t.
    setting
        The mechanism, target error, budget and landmarks the advice is about.
    """
    tips: list[str] = [setting.better_scheme] if setting.better_scheme else []
    if _approximations_drift(err, pub):
        tips.append("publish where the values change (Uniform publishes every timestamp; "
                    "Skip and Adaptive repeat old values that drift from the truth)")
    if pub.any():
        eps_pub = float(np.median(eps[pub]))
        need = needed_budget(setting.mechanism, setting.scale_unit, setting.target_error)
        tips.append(_budget_tip(need, eps_pub, setting.epsilon, setting.noun))
        tips += _landmark_tips(eps_pub, setting)
    if setting.mechanism == "planar_laplace":
        tips.append("a larger r is not a fix (the displacement grows as 2r/ε_t); a smaller r "
                    "shrinks it but hides less")
    else:
        tips.append("a smaller Δf is not a fix unless one event really changes a value by "
                    "less")
    return "; ".join(tips)


def needed_budget(mech: str, scale_unit: float, target: float) -> float:
    """The ε_t at which a published reading's expected error equals ``target``:
    Laplace Δf/a, Planar Laplace 2r/a, Geometric −Δf·ln α with 2α/(1−α²) = a, i.e.
    α = (√(1 + a²) − 1)/a."""
    if mech == "laplace":
        return scale_unit / target
    if mech == "planar_laplace":
        return 2.0 * scale_unit / target
    a = target
    alpha = (np.sqrt(1.0 + a * a) - 1.0) / a
    return float(-scale_unit * np.log(alpha)) if alpha > 0 else float("inf")


def _approximations_drift(err: np.ndarray, pub: np.ndarray) -> bool:
    """Whether repeated readings drift from the truth: their median error is over twice
    the published ones' (more noise budget does not fix them)."""
    pub_err = err[pub]
    appr = np.isfinite(err) & ~pub
    return bool(appr.any() and np.median(err[appr]) > 2 * (np.median(pub_err) if pub_err.size
                                                            else 0.0))


def _budget_tip(need: float, eps_pub: float, epsilon: float | None, noun: str) -> str:
    """"Raise ε to about …": the total (or per-reading) budget that makes the error useful."""
    if epsilon is not None and np.isfinite(need) and eps_pub > 0:
        total = float(epsilon) * need / eps_pub
        return (f"raise ε to about {total:.3g} (each published {noun} needs ε_t ≈ "
                f"{need:.3g}; it gets {eps_pub:.3g} now)")
    return f"raise ε_t to about {need:.3g} per published reading"


def _landmark_tips(eps_pub: float, setting: AdviceSetting) -> list[str]:
    """"Fewer landmarks" (and "one event per stay") when landmarks take most of ε."""
    n, epsilon = setting.n_landmarks, setting.epsilon
    if not (n and epsilon is not None and eps_pub < float(epsilon) / 2
            and setting.scheme in (None, "uniform", "adaptive")):
        return []
    tips = [f"fewer landmarks and a smaller declared k ({counted(n, 'landmark event')} "
            f"{agree(n, 'shares', 'share')} ε, so "
            f"each {setting.noun} gets {eps_pub / float(epsilon):.2g} of it)"]
    if setting.track and n >= 20 and not setting.stays_as_events:
        tips.append("protect each stay as one event rather than each of its points")
    if setting.readings_in_runs:
        tips.append(f"protect each run of consecutive landmark readings as one event "
                    f"({setting.readings_in_runs:,} landmark readings lie in runs; lmdk "
                    "release --runs, the Timeline's 'as one event per run')")
    return tips
