"""Spikes of a series: deviations from a seasonal, rolling baseline
(:func:`deviation_scores`, :func:`seasonal_phase`).

With dates, the median profile of each hour of the day (or of the week) is removed first,
so the ordinary daily peaks are not suggested; timestamps whose value is more than k
robust standard deviations away from a centred rolling median (a Hampel-style
identifier: Hampel 1974; Pearson 2002), the robust standard deviation being
``1.4826·MAD`` of the residuals; Theil–Sen lines (Sen 1968) stand in for the median at
the two ends of the series. Sustained changes of level are :mod:`.level_shifts`; both
are combined into suggestions by :mod:`.discovery`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.landmarks.robust_medians import centred_rolling_median, group_median

__all__ = [
    "DEFAULT_DEVIATION_K",
    "DEFAULT_DEVIATION_WINDOW",
    "MAD_TO_SD",
    "MEANAD_TO_SD",
    "SCORE_EXPLAINED",
    "SCORE_SHOWN_MAX",
    "SEASONS",
    "DeviationScores",
    "DeviationSuggestion",
    "SeasonalPhase",
    "check_window",
    "deviation_scores",
    "seasonal_phase",
    "seasonal_profile",
    "shown_score",
]

#: Rolling-median window (timestamps; a day of hourly readings) and threshold k. k = 5
#: keeps ordinary daily peaks out (on the demo week k = 3.5 also flags every evening
#: peak) while spikes of one-off events score far higher.
DEFAULT_DEVIATION_WINDOW = 24
DEFAULT_DEVIATION_K = 5.0
#: ``1/Φ⁻¹(3/4)``: MAD × 1.4826 estimates the standard deviation of normal data.
MAD_TO_SD = 1.4826
#: Scores above this are shown as ">100σ" (:func:`shown_score`): beyond it a score says
#: only "far outside the usual variation" — a series that barely varies (a resting heart
#: rate, a meter at night) has a tiny robust σ, so a one-hour cool-down scored 1260.7σ.
SCORE_SHOWN_MAX = 100.0
#: What a score means, for the reader of a list of suggestions.
SCORE_EXPLAINED = (
    "a score is the distance from the usual level (rolling median, daily/weekly profile "
    "removed) in robust standard deviations σ = 1.4826·MAD of the residuals, so it grows "
    "without bound where the series barely varies; it ranks suggestions and is not a "
    f"probability: above {SCORE_SHOWN_MAX:g}σ it only means far outside the usual "
    f"variation, shown as >{SCORE_SHOWN_MAX:g}σ")
#: ``√(π/2)``: mean absolute deviation × 1.2533 estimates the std of normal data (used
#: when the MAD is 0, e.g. a mostly flat series).
MEANAD_TO_SD = 1.253314


@dataclass(frozen=True)
class DeviationSuggestion:
    """A timestamp whose value is ``score`` robust standard deviations from the
    rolling-median baseline."""

    timestamp: int
    value: float
    baseline: float
    score: float
    #: 'deviation' (a spike off the rolling baseline) or 'level_shift' (a timestamp of a
    #: sustained change of level, :func:`level_shifts`; ``baseline`` is then the usual
    #: level and ``score`` the shift's significance)
    reason: str = "deviation"

    @property
    def timestamps(self) -> list[int]:
        """The suggested landmark timestamp (as a list, like :class:`StayPoint`)."""
        return [self.timestamp]

    @property
    def direction(self) -> str:
        """'above' or 'below' the baseline."""
        return "above" if self.value >= self.baseline else "below"

    def to_dict(self) -> dict:
        """JSON-ready suggestion."""
        return {
            "reason": self.reason,
            "timestamps": self.timestamps,
            "timestamp": self.timestamp,
            "value": self.value,
            "baseline": self.baseline,
            "score": self.score,
            "score_shown": shown_score(self.score),
            "direction": self.direction,
        }


def shown_score(score: float) -> str:
    """A score as shown to people: ``"7.3σ"``, capped at :data:`SCORE_SHOWN_MAX`
    (``">100σ"``; :data:`SCORE_EXPLAINED` says why)."""
    if not score <= SCORE_SHOWN_MAX:
        return f">{SCORE_SHOWN_MAX:g}σ"
    return f"{score:.1f}σ"


def check_window(window: int) -> int:
    """The rolling window as an int of at least 3 timestamps (InputError otherwise)."""
    if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer)):
        raise InputError(f"the rolling window must be a whole number of timestamps, got {window!r}")
    if window < 3:
        raise InputError(f"the rolling window must cover at least 3 timestamps, got {window}")
    return int(window)


#: Theil–Sen fits use at most this many (evenly spaced) points: O(n²) slopes.
_THEIL_SEN_MAX_POINTS = 256


def _theil_sen(t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Theil–Sen line (Sen 1968): slope = median of the pairwise slopes, intercept =
    ``median(y) − slope·median(t)`` (scipy's convention). Returns (slope, intercept)."""
    if t.size > _THEIL_SEN_MAX_POINTS:
        keep = np.unique(np.linspace(0, t.size - 1, _THEIL_SEN_MAX_POINTS).astype(int))
        t, y = t[keep], y[keep]
    i, j = np.triu_indices(t.size, k=1)
    slope = float(np.median((y[j] - y[i]) / (t[j] - t[i])))
    return slope, float(np.median(y) - slope * np.median(t))


def _baseline(x: np.ndarray, w: int) -> np.ndarray:
    """Centred rolling median; Theil–Sen lines through the first/last w values where
    the centred window does not fit."""
    T = x.size
    t = np.arange(T, dtype=float)
    if T < 3:
        return np.full(T, float(np.median(x)))
    base = centred_rolling_median(x, w)
    missing = np.isnan(base)
    if missing.all():
        slope, icept = _theil_sen(t, x)
        return icept + slope * t
    ok = np.flatnonzero(~missing)
    first, last = ok[0], ok[-1]
    if first > 0:
        slope, icept = _theil_sen(t[:w], x[:w])
        base[:first] = icept + slope * t[:first]
    if last < T - 1:
        slope, icept = _theil_sen(t[-w:], x[-w:])
        base[last + 1 :] = icept + slope * t[last + 1 :]
    return base


SEASONS = {"day": np.timedelta64(1, "D"), "week": np.timedelta64(7, "D")}


class SeasonalPhase(NamedTuple):
    """The position of every timestamp in its day or week (:func:`seasonal_phase`)."""

    #: the phase of every timestamp (None: no seasonal profile)
    phase: np.ndarray | None
    #: what the phase is, or why there is none, in words
    how: str


def seasonal_phase(time: ArrayLike, time_kind: str,
                   season: str = "auto") -> SeasonalPhase:
    """The position of every timestamp in its day or week, for a seasonal baseline.

    ``season``: 'day' (hour of day, or whatever the sampling step is), 'week' (hour of
    week), 'none', or 'auto': 'week' when the series spans at least 8 weeks (≥ 8
    readings per hour of the week: fewer make the per-phase MAD too noisy), else 'day'
    when it spans at least 3 days, else none.
    Needs datetime times with a step that divides the day; returns ``(phase, label)``
    with ``phase[t] = ((time_t − time_0) // step) mod (season / step)``, or ``(None,
    reason)`` when there is no usable season.
    """
    if season == "none":
        return SeasonalPhase(None, "no seasonal profile")
    if time_kind != "datetime":
        return SeasonalPhase(None, "no seasonal profile (the times are not dates)")
    t = np.asarray(time, dtype="datetime64[s]")
    if t.size < 3 or np.isnat(t).any():
        return SeasonalPhase(None, "no seasonal profile (too few or missing times)")
    step = _day_dividing_step(t)
    if step == 0:
        return SeasonalPhase(None, "no seasonal profile (the sampling step does not divide a day)")
    if season == "auto":
        season = _auto_season(int((t[-1] - t[0]).astype(np.int64)))
        if season == "none":
            return SeasonalPhase(None, "no seasonal profile (the series spans less than 3 days)")
    if season not in SEASONS:
        raise InputError(f"season must be 'auto', 'day', 'week' or 'none', got {season!r}")
    period = int(SEASONS[season].astype("timedelta64[s]").astype(np.int64)) // step
    phase = ((t - t[0]).astype(np.int64) // step) % period
    return SeasonalPhase(phase.astype(int), f"{_slot_name(step)} of the {season}")


def _day_dividing_step(t: np.ndarray) -> int:
    """The median step of ``t`` in seconds when it divides a day, else 0."""
    steps = np.diff(t).astype(np.int64)
    step = int(np.median(steps)) if steps.size else 0
    return step if step > 0 and 86400 % step == 0 else 0


def _auto_season(span_s: int) -> str:
    """'week' for a series spanning at least 8 weeks, 'day' for 3 days, else 'none'."""
    return "week" if span_s >= 56 * 86400 else "day" if span_s >= 3 * 86400 else "none"


def _slot_name(step: int) -> str:
    """'hour', '15-minute slot' or 'slot': one sampling step of ``step`` seconds."""
    return "hour" if step == 3600 else f"{step // 60}-minute slot" if step >= 60 else "slot"


def seasonal_profile(x: np.ndarray, phase: np.ndarray) -> np.ndarray:
    """The median of the values that share each timestamp's phase."""
    return group_median(x, phase)


def _check_values(values: ArrayLike) -> np.ndarray:
    """The series as a non-empty 1-D float array with a finite value at every timestamp."""
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the series values must be numbers") from None
    if x.ndim != 1 or x.size == 0:
        raise InputError("the series is empty: there are no values to look for deviations in")
    if not np.all(np.isfinite(x)):
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise InputError(f"the series has a missing or infinite value at t={bad}")
    return x


class DeviationScores(NamedTuple):
    """The baseline and the deviation score of every timestamp (:func:`deviation_scores`)."""

    baseline: np.ndarray
    score: np.ndarray


def deviation_scores(
    values: ArrayLike, window: int = DEFAULT_DEVIATION_WINDOW,
    phase: ArrayLike | None = None,
) -> DeviationScores:
    """``(baseline, score)`` for every timestamp.

    **Seasonal** (``phase`` given, e.g. hour of day from :func:`seasonal_phase`): the
    seasonal profile ``s_t`` = median of the values with t's phase is removed first,
    the rolling baseline below is computed on ``x − s`` (the level), and the baseline is
    ``s_t + level_t``. The robust σ is taken per phase (``1.4826·MAD`` of the residuals
    sharing t's phase, never below the overall σ), so the ordinary 06:00 and 19:00
    peaks of a meter — high but usual for their hour, and more variable — are not
    flagged, while a spike at an hour where it is unusual is. This is the robust
    seasonal decomposition idea (median profile + MAD) of e.g. Twitter's S-H-ESD
    (Hochenbaum, Vallis & Kejariwal 2017), with a Hampel identifier on the residual.

    **Without a season:**

    ``baseline_t`` = median of the ``window`` values centred on t. Where that window
    does not fit (the first and last ~window/2 timestamps) the baseline is the
    Theil–Sen line (Sen 1968; robust to spikes) through the first (last) ``window``
    values: a truncated median would lag behind any trend there and flag the ends.
    Residual ``r_t = x_t − baseline_t``; robust standard deviation
    ``σ = 1.4826·median(|r − median(r)|)`` over the whole series (``1.2533·mean|r −
    mean(r)|`` if that MAD is 0); ``score_t = |r_t| / σ`` (0 everywhere if σ = 0, i.e.
    the series follows its baseline exactly).

    The medians are numpy's (:mod:`lmdk_core.landmarks.robust_medians`: the same
    floats as pandas' rolling and per-group medians, which they replace).
    """
    x = _check_values(values)
    w = check_window(window)
    profile = np.zeros_like(x)
    ph = None
    if phase is not None:
        ph = np.asarray(phase)
        if ph.shape != x.shape:
            raise InputError(f"need one phase per value ({x.size}), got {ph.size}")
        profile = seasonal_profile(x, ph)
    baseline = profile + _baseline(x - profile, w)
    r = x - baseline
    sigma = MAD_TO_SD * float(np.median(np.abs(r - np.median(r))))
    if sigma == 0:
        sigma = MEANAD_TO_SD * float(np.mean(np.abs(r - r.mean())))
    if sigma == 0:
        return DeviationScores(baseline, np.zeros_like(x))
    if ph is None:
        return DeviationScores(baseline, np.abs(r) / sigma)
    med = group_median(r, ph)
    per_phase = MAD_TO_SD * group_median(np.abs(r - med), ph)
    return DeviationScores(baseline, np.abs(r) / np.maximum(per_phase, sigma))
