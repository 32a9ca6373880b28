"""Automatic landmark discovery: suggestions the user accepts or rejects.

* **Trajectories — stay points** (:mod:`.stays`: :func:`stay_points`,
  :func:`detect_stay_points`, :func:`track_stay_points`): places where the user stayed
  within a distance threshold for at least a time threshold (Li et al., ACM GIS 2008).
* **Series — deviations from a seasonal, rolling baseline** (:mod:`.deviations`:
  :func:`deviation_scores`, :func:`seasonal_phase`) and **sustained level shifts**
  (:mod:`.level_shifts`), combined here by :func:`deviation_suggestions`; the window
  from the sampling interval (:func:`sampling_window`), at most a few events for a
  person to review (:func:`cap_events`), one entry point (:func:`series_suggestions`).

This module is the package's front door: it re-exports the public names of
:mod:`.stays`, :mod:`.deviations` and :mod:`.level_shifts`, so callers import
suggestions from one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.validation import check_positive, landmark_runs
from lmdk_core.landmarks.deviations import (
    DEFAULT_DEVIATION_K,
    DEFAULT_DEVIATION_WINDOW,
    MAD_TO_SD,
    SCORE_EXPLAINED,
    SCORE_SHOWN_MAX,
    DeviationSuggestion,
    check_window,
    deviation_scores,
    seasonal_phase,
    seasonal_profile,
    shown_score,
)
from lmdk_core.landmarks.level_shifts import LevelShift, level_shifts
from lmdk_core.landmarks.stays import (
    DEFAULT_STAY_DISTANCE_M,
    DEFAULT_STAY_MINUTES,
    StayPoint,
    detect_stay_points,
    merge_stays,
    stay_points,
    track_minutes,
    track_stay_points,
)

__all__ = [
    "DEFAULT_DEVIATION_K",
    "DEFAULT_DEVIATION_WINDOW",
    "DEFAULT_MAX_SUGGESTED_EVENTS",
    "DEVIATION_WINDOW_MAX",
    "DEFAULT_STAY_DISTANCE_M",
    "DEFAULT_STAY_MINUTES",
    "MAD_TO_SD",
    "SCORE_EXPLAINED",
    "SCORE_SHOWN_MAX",
    "CappedEvents",
    "DeviationSuggestion",
    "LevelShift",
    "SamplingWindow",
    "SeriesSuggestions",
    "StayPoint",
    "cap_events",
    "deviation_scores",
    "deviation_suggestions",
    "detect_stay_points",
    "level_shifts",
    "merge_stays",
    "sampling_window",
    "seasonal_phase",
    "series_suggestions",
    "shown_score",
    "stay_points",
    "suggested_timestamps",
    "suggestion_events",
    "track_minutes",
    "track_stay_points",
]

#: Largest window derived from the sampling interval: a day of one-minute readings
#: (:func:`sampling_window`).
DEVIATION_WINDOW_MAX = 1440
#: At most this many suggested events (runs of consecutive timestamps) are offered; a
#: person reviews each one (:func:`cap_events`).
DEFAULT_MAX_SUGGESTED_EVENTS = 20


def deviation_suggestions(
    values: ArrayLike,
    window: int = DEFAULT_DEVIATION_WINDOW,
    k: float = DEFAULT_DEVIATION_K,
    phase: ArrayLike | None = None,
    shifts: bool = True,
) -> list[DeviationSuggestion]:
    """Timestamps with ``score_t > k`` (see :func:`deviation_scores`; ``phase`` from
    :func:`seasonal_phase` for a seasonal baseline), and — with ``shifts`` — the
    timestamps of sustained level shifts (:func:`level_shifts`, on the series without
    its seasonal profile), in time order, each timestamp once."""
    kk = check_positive(k, "deviation threshold k")
    baseline, score = deviation_scores(values, window, phase)
    x = np.asarray(values, dtype=float)
    found = {int(t): DeviationSuggestion(int(t), float(x[t]), float(baseline[t]),
                                         float(score[t]))
             for t in np.flatnonzero(score > kk)}
    if shifts:
        for t, sug in _shift_suggestions(x, check_window(window), kk, phase).items():
            found.setdefault(t, sug)
    return [found[t] for t in sorted(found)]


def _shift_suggestions(x: np.ndarray, w: int, k: float,
                       phase: ArrayLike | None) -> dict[int, DeviationSuggestion]:
    """The timestamps of the level shifts of ``x`` without its seasonal profile
    (:func:`level_shifts` with minimum duration ``w``, noise measured ``w // 24``
    timestamps apart: an hour when ``w`` is a day of readings, so the noise level does
    not shrink with the sampling rate), as suggestions."""
    level = x - (seasonal_profile(x, np.asarray(phase)) if phase is not None else 0.0)
    out: dict[int, DeviationSuggestion] = {}
    lag = max(1, w // DEFAULT_DEVIATION_WINDOW)
    for sh in level_shifts(level, k, min_len=max(3, w // 4), min_duration=w,
                           noise_lag=lag):
        for t in sh.timestamps:
            out.setdefault(t, DeviationSuggestion(t, float(x[t]), sh.usual, sh.score,
                                                  reason="level_shift"))
    return out


def suggestion_events(timestamps: Iterable[int]) -> list[tuple[int, int]]:
    """The suggested timestamps as events: runs of consecutive timestamps
    ``(first, last)``. On finer sampling one event (an appliance running for half an
    hour, a holiday) covers more timestamps, so the number of events — not of
    timestamps — is what stays comparable across sampling rates (the count shown
    beside the suggestions)."""
    return landmark_runs(timestamps)


def suggested_timestamps(
    suggestions: Iterable[StayPoint | DeviationSuggestion],
) -> list[int]:
    """The sorted union of the suggestions' timestamps (the landmarks if all accepted)."""
    out: set[int] = set()
    for s in suggestions:
        out.update(s.timestamps)
    return sorted(out)


# ------------------------------------------------------- window, cap and one entry point
class SamplingWindow(NamedTuple):
    """The deviation window derived from the sampling interval (:func:`sampling_window`)."""

    window: int
    #: how it was chosen, in words
    how: str


def sampling_window(time: ArrayLike, time_kind: str,
                    length: int | None = None) -> SamplingWindow:
    """The deviation window derived from the sampling interval: ``(window, how)``.

    A day's worth of readings, ``w = round(86 400 s / Δ)`` with Δ the median step of
    the dated times, bounded to ``[DEFAULT_DEVIATION_WINDOW, DEVIATION_WINDOW_MAX]``
    (24 … 1440: a day of hourly to a day of one-minute readings), and — given the
    series' ``length`` T — to at most ``max(24, T // 4)``, so the "usual level" is the
    median of a fraction of the series, never a line through all of it. Hourly data
    keep the 24 of the fixed default; one-minute data get 1440, 5-minute data 288, so
    one event spans the same share of the window at every rate and the level-shift
    detector's minimum duration (the window) stays a day. Without dates (times that
    are numbers, e.g. years) there is no interval to derive from: 24 timestamps.
    """
    lo = DEFAULT_DEVIATION_WINDOW
    w, why = _window_from_step(_median_step_s(time, time_kind))
    if length is not None and w > max(lo, int(length) // 4):
        w = max(lo, int(length) // 4)
        why = f"a quarter of the {int(length):,} readings ({why})"
    return SamplingWindow(w, f"{w} timestamps: {why}")


def _median_step_s(time: ArrayLike, time_kind: str) -> int:
    """The median sampling step of dated times in seconds; 0 without dates."""
    if time_kind != "datetime":
        return 0
    t = np.asarray(time, dtype="datetime64[s]")
    if t.size < 2 or np.isnat(t).any():
        return 0
    return int(np.median(np.diff(t).astype(np.int64)))


def _window_from_step(step: int) -> tuple[int, str]:
    """A day of readings sampled every ``step`` seconds, bounded to
    ``[DEFAULT_DEVIATION_WINDOW, DEVIATION_WINDOW_MAX]``, and why: ``(window, why)``."""
    lo, hi = DEFAULT_DEVIATION_WINDOW, DEVIATION_WINDOW_MAX
    if step <= 0:
        return lo, "the times are not dates: no sampling interval to derive a day from"
    per_day = max(1, int(round(86400 / step)))
    w = min(max(per_day, lo), hi)
    unit = _step_text(step)
    why = (f"a day of {unit} readings" if w == per_day else
           f"a day of {unit} readings would be {per_day:,}; the most is {hi}"
           if per_day > hi else
           f"{unit} readings, {per_day} a day; the least is {lo}" if step < 86400 else
           f"{unit} readings, fewer than one a day; the least is {lo}")
    return w, why


def _step_text(step: int) -> str:
    """'5-second', '16-minute', 'hourly', 'daily', … for a step in seconds."""
    named = {3600: "hourly", 86400: "daily", 7 * 86400: "weekly"}
    if step in named:
        return named[step]
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if step >= size and step % size == 0:
            return f"{step // size}-{unit}"
    return f"{step}-second"


class CappedEvents(NamedTuple):
    """The suggestions kept under the cap on events (:func:`cap_events`)."""

    kept: list[DeviationSuggestion]
    #: the number of events left out
    left_out: int


def cap_events(found: list[DeviationSuggestion],
               max_events: int | None = DEFAULT_MAX_SUGGESTED_EVENTS
               ) -> CappedEvents:
    """At most ``max_events`` events of ``found`` (runs of consecutive timestamps,
    :func:`suggestion_events`): those holding a level shift first, then by their largest
    score; returned in time order with the number of events left out (None: no cap)."""
    events = suggestion_events(s.timestamp for s in found)
    if max_events is None or len(events) <= max_events:
        return CappedEvents(list(found), 0)
    by_t = {s.timestamp: s for s in found}

    def rank(ev: tuple[int, int]) -> tuple[bool, float]:
        run = [by_t[t] for t in range(ev[0], ev[1] + 1)]
        return (any(s.reason == "level_shift" for s in run), max(s.score for s in run))

    keep = sorted(sorted(events, key=rank, reverse=True)[:int(max_events)])
    kept = [by_t[t] for a, b in keep for t in range(a, b + 1)]
    return CappedEvents(kept, len(events) - len(keep))


@dataclass(frozen=True)
class SeriesSuggestions:
    """The suggestions for one series and how they were made (:func:`series_suggestions`)."""

    found: list[DeviationSuggestion]
    window: int
    window_note: str  # how the window was chosen
    season: str  # the seasonal profile removed, or why none
    left_out: int  # events beyond the cap, not offered

    @property
    def events(self) -> list[tuple[int, int]]:
        """The suggested timestamps as events (runs of consecutive timestamps)."""
        return suggestion_events(s.timestamp for s in self.found)


def series_suggestions(time: ArrayLike, time_kind: str, values: ArrayLike,
                       *, window: int | None = None, k: float = DEFAULT_DEVIATION_K,
                       season: str = "auto",
                       max_events: int | None = DEFAULT_MAX_SUGGESTED_EVENTS
                       ) -> SeriesSuggestions:
    """Suggested landmarks of a series, as the Timeline, ``lmdk suggest`` and the batch
    discovery make them: the seasonal profile (:func:`seasonal_phase`) removed, the
    window from the sampling interval unless ``window`` is given
    (:func:`sampling_window`), spikes and level shifts (:func:`deviation_suggestions`),
    at most ``max_events`` events (:func:`cap_events`)."""
    x = np.asarray(values, dtype=float)
    if window is None:
        w, how = sampling_window(time, time_kind, x.size)
    else:
        w, how = check_window(window), f"{int(window)} timestamps (chosen)"
    phase = None
    label = "no seasonal profile"
    if x.size >= 3 or season != "auto":
        phase, label = seasonal_phase(time, time_kind, season)
    found = deviation_suggestions(x, w, k, phase=phase)
    kept, left_out = cap_events(found, max_events)
    return SeriesSuggestions(kept, w, how, label, left_out)

