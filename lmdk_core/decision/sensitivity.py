"""A default sensitivity Δf that covers what the data's own landmark events change.

The Laplace mechanism ``x_t + Lap(Δf/ε_t)`` makes two series that differ by ``d_t`` at
timestamp t indistinguishable up to the likelihood ratio ``exp(|d_t|·ε_t/Δf)``
(Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, Thm 3.6). Landmark
privacy (Katsomallos et al., "Landmark privacy: configurable differential privacy
protection for time series", CODASPY 2022) bounds the ratio for all landmarks plus one
timestamp together by ``e^ε`` — **only if every change is at most Δf**. An event that
moves a reading by 2.5 kWh, released with Δf = 0.2 kWh, is 12.5 times less protected
than ε says: its likelihood ratio is ``exp(Σ_{t∈event} |d_t|·ε_t/Δf)``, not ≤ e^ε.

This module measures those changes and derives the default Δf from them:

* :func:`landmark_changes` — ``d_t = x_t − b_t`` at every landmark, ``b_t`` the
  seasonal, rolling-median baseline of :func:`lmdk_core.landmarks.discovery.deviation_scores`
  (the hour-of-day profile when the times allow one): what the reading would typically
  have been without the event;
* :func:`derived_sensitivity` — ``Δf = max_t |d_t|`` over *every* timestamp (landmark
  privacy protects the landmarks plus any one other timestamp, so a regular reading's
  event must be covered too; this covers every landmark event by construction), rounded
  **up** to two significant digits (a whole number for the Geometric mechanism);
* :func:`landmark_events` — the likelihood ratio of every event (a run of consecutive
  landmarks) at an allocation and a Δf, and the largest posterior of an attacker with
  prior p: ``p·LR / (1 − p + p·LR)``.

A Δf computed from the data is itself a function of the data: for a release it should be
a bound you can declare without looking (the largest appliance, clamping bounds — the
Timeline's *Clamp* sets Δf = upper − lower). The derived value is the explorer's
default so that the figures it shows hold for the data shown; ``docs/definitions.md``
explains it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.data.series import Series
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_landmarks, check_positive
from lmdk_core.landmarks.discovery import DEFAULT_DEVIATION_WINDOW, deviation_scores, seasonal_phase

__all__ = [
    "DerivedSensitivity",
    "LandmarkChanges",
    "LandmarkEvent",
    "derived_sensitivity",
    "landmark_changes",
    "landmark_events",
    "round_up",
]


def round_up(x: float, digits: int = 2) -> float:
    """``x`` rounded up to ``digits`` significant digits (2.815 → 2.9; 0 stays 0)."""
    if not math.isfinite(x) or x <= 0:
        return 0.0
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    # the small slack keeps an exact 2.9 at 2.9 despite binary rounding of x/scale
    return round(math.ceil(x / scale - 1e-9) * scale, 12)


def _baseline(series: Series) -> tuple[np.ndarray, str]:
    phase, label = seasonal_phase(series.time, series.time_kind)
    w = min(DEFAULT_DEVIATION_WINDOW, max(3, len(series)))
    base, _ = deviation_scores(series.values, w, phase)
    how = (f"the typical reading at that {label.split(' of ')[0]} (the median of each "
           f"{label} plus a rolling median over {w} timestamps)" if phase is not None
           else f"a rolling median over {w} timestamps ({label})")
    return base, how


class LandmarkChanges(NamedTuple):
    """The changes at the landmarks from a baseline (:func:`landmark_changes`)."""

    #: the timestamps (the landmarks, or every timestamp)
    timestamps: np.ndarray
    #: ``d_t = x_t − b_t`` at those timestamps
    changes: np.ndarray
    #: the baseline ``b_t``, in words
    how: str


def landmark_changes(series: Series, landmarks: Iterable[int] | None = None
                     ) -> LandmarkChanges:
    """``(timestamps, changes, how)``: ``d_t = x_t − b_t`` at the landmarks (every
    timestamp when ``landmarks`` is None), ``b_t`` the baseline described by ``how``."""
    x = np.asarray(series.values, dtype=float)
    if x.size == 0:
        raise InputError("the series is empty: there are no changes to measure")
    base, how = _baseline(series)
    ts = np.arange(x.size) if landmarks is None else check_landmarks(landmarks, x.size)
    return LandmarkChanges(ts, x[ts] - base[ts], how)


@dataclass(frozen=True)
class DerivedSensitivity:
    """The default Δf (``value``) and where it comes from: the largest change
    ``largest`` of any reading against ``baseline`` (at ``timestamp``), and the largest
    change of a landmark (``landmark_largest`` at ``landmark_timestamp``; None without
    landmarks), which ``value`` covers."""

    value: float
    largest: float
    timestamp: int
    landmark_largest: float | None
    landmark_timestamp: int | None
    baseline: str
    whole: bool = False

    @property
    def from_landmarks(self) -> bool:
        """The largest change is a landmark's."""
        return self.landmark_timestamp == self.timestamp

    def sentence(self, unit: str = "") -> str:
        """Where the default Δf comes from, in one sentence."""
        u = f" {unit}" if unit else ""
        rounding = "a whole number" if self.whole else "two significant digits"
        if self.from_landmarks:
            what = (f"the largest change of any reading is {abs(self.largest):.3g}{u}, at the "
                    f"landmark t={self.timestamp}")
        elif self.landmark_largest is not None:
            what = (f"the landmark events change a reading by up to "
                    f"{abs(self.landmark_largest):.3g}{u} (t={self.landmark_timestamp}), any "
                    f"reading by up to {abs(self.largest):.3g}{u} (t={self.timestamp})")
        else:
            what = (f"the largest change of any reading is {abs(self.largest):.3g}{u} (t="
                    f"{self.timestamp}; no landmarks yet)")
        return (f"Δf = {self.value:g}{u} is derived from the data: {what}, rounded up to "
                f"{rounding}. A change is measured against {self.baseline}.")


def derived_sensitivity(series: Series, landmarks: Iterable[int] | None,
                        whole: bool = False) -> DerivedSensitivity:
    """Δf = max |d_t| over every timestamp, rounded up (two significant digits, or to a
    whole number when ``whole``, for the Geometric mechanism); at least the explorer's
    smallest Δf (0.001) when no reading departs from its baseline.

    Every timestamp, not only the landmarks: landmark privacy protects the landmarks
    *plus any one other timestamp*, so one event at a regular timestamp must be covered
    too — and the default does not jump when a landmark is added. It covers every
    landmark change by construction (``landmark_largest`` reports the largest)."""
    ts, d, how = landmark_changes(series, None)
    i = int(np.argmax(np.abs(d)))
    largest = float(d[i])
    lm = check_landmarks(landmarks, len(series)) if landmarks is not None else np.zeros(0, int)
    lm_big = lm_t = None
    if lm.size:
        j = int(lm[np.argmax(np.abs(d[lm]))])
        lm_big, lm_t = float(d[j]), j
    value = float(math.ceil(abs(largest))) if whole else round_up(abs(largest))
    value = max(value, 1.0 if whole else 0.001)
    return DerivedSensitivity(value=value, largest=largest, timestamp=int(ts[i]),
                              landmark_largest=lm_big, landmark_timestamp=lm_t,
                              baseline=how, whole=whole)


@dataclass(frozen=True)
class LandmarkEvent:
    """A run of consecutive landmarks: its timestamps, the changes ``d_t``, the budgets
    ``ε_t`` spent on them, and the likelihood ratio ``exp(Σ |d_t|·ε_t/Δf)`` of the
    release with and without the event."""

    timestamps: tuple[int, ...]
    changes: tuple[float, ...]
    epsilon_t: tuple[float, ...]
    sensitivity: float

    @property
    def log_ratio(self) -> float:
        return float(sum(abs(d) * e for d, e in zip(self.changes, self.epsilon_t,
                                                     strict=True)) / self.sensitivity)

    @property
    def likelihood_ratio(self) -> float:
        return float(math.exp(min(self.log_ratio, 700.0)))

    @property
    def covered(self) -> bool:
        """Every change of the event is at most Δf (the guarantee's assumption)."""
        return all(abs(d) <= self.sensitivity * (1 + 1e-12) for d in self.changes)

    def posterior(self, prior: float) -> float:
        """Largest posterior of an attacker with prior ``prior`` after the release."""
        from lmdk_core.decision.attacker import posterior_bound

        return float(posterior_bound(prior, self.log_ratio))


def landmark_events(series: Series, landmarks: Iterable[int] | None, epsilon_t: ArrayLike,
                    sensitivity: float) -> list[LandmarkEvent]:
    """The landmark events (runs of consecutive landmarks) with their changes and their
    likelihood ratio at allocation ``epsilon_t`` and sensitivity Δf."""
    df = check_positive(sensitivity, "the sensitivity Δf")
    eps = np.asarray(epsilon_t, dtype=float)
    if eps.shape != (len(series),):
        raise InputError(f"need one ε_t per timestamp ({len(series)}), got {eps.size}")
    ts, d, _ = landmark_changes(series, landmarks)
    if ts.size == 0:
        return []
    runs = np.split(np.arange(ts.size), np.flatnonzero(np.diff(ts) > 1) + 1)
    return [LandmarkEvent(tuple(int(ts[k]) for k in r), tuple(float(d[k]) for k in r),
                          tuple(float(eps[ts[k]]) for k in r), df) for r in runs]
