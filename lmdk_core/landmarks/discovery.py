"""Automatic landmark discovery: suggestions the user accepts or rejects.

* **Trajectories — stay points** (:func:`stay_points`, :func:`detect_stay_points`):
  places where the user stayed within a distance threshold for at least a time
  threshold. Hariharan & Toyama, "Project Lachesis: Parsing and Modeling Location
  Histories" (GIScience 2004); the stay-point algorithm of Li, Zheng, Xie, Chen, Liu &
  Ma, "Mining user similarity based on location history" (ACM GIS 2008). Each stay
  point suggests the timestamps of its visit as landmarks, with its centroid and
  duration; back-to-back stays at the same place are one visit (:func:`merge_stays`).
  An accepted stay is protected by default as ONE landmark event (docs/stays.md).
* **Series — deviations from a seasonal, rolling baseline** (:func:`deviation_suggestions`,
  :func:`seasonal_phase`): with dates, the median profile of each hour of the day (or
  of the week) is removed first, so the ordinary daily peaks are not suggested;
  timestamps whose value is more than k robust standard deviations away from a
  centred rolling median (a Hampel-style identifier: Hampel 1974; Pearson 2002),
  the robust standard deviation being ``1.4826·MAD`` of the residuals; Theil–Sen
  lines (Sen 1968) stand in for the median at the two ends of the series.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from lmdk_core.data.track import Track
from lmdk_core.engine.geodesy import distance_m
from lmdk_core.engine.stay_events import centroid
from lmdk_core.engine.validation import InputError, check_positive, landmark_runs
from lmdk_core.mechanisms.planar_laplace import check_coordinates

__all__ = [
    "DEFAULT_DEVIATION_K",
    "DEFAULT_DEVIATION_WINDOW",
    "DEFAULT_MAX_SUGGESTED_EVENTS",
    "DEVIATION_WINDOW_MAX",
    "DEFAULT_STAY_DISTANCE_M",
    "DEFAULT_STAY_MINUTES",
    "MAD_TO_SD",
    "DeviationSuggestion",
    "LevelShift",
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
    "stay_points",
    "suggested_timestamps",
    "suggestion_events",
    "track_minutes",
    "track_stay_points",
]

#: Stay-point thresholds of Li et al. 2008: 200 m and 20 minutes.
DEFAULT_STAY_DISTANCE_M = 200.0
DEFAULT_STAY_MINUTES = 20.0
#: Rolling-median window (timestamps; a day of hourly readings) and threshold k. k = 5
#: keeps ordinary daily peaks out (on the demo week k = 3.5 also flags every evening
#: peak) while spikes of one-off events score far higher.
DEFAULT_DEVIATION_WINDOW = 24
DEFAULT_DEVIATION_K = 5.0
#: Largest window derived from the sampling interval: a day of one-minute readings
#: (:func:`sampling_window`).
DEVIATION_WINDOW_MAX = 1440
#: At most this many suggested events (runs of consecutive timestamps) are offered; a
#: person reviews each one (:func:`cap_events`).
DEFAULT_MAX_SUGGESTED_EVENTS = 20
#: ``1/Φ⁻¹(3/4)``: MAD × 1.4826 estimates the standard deviation of normal data.
MAD_TO_SD = 1.4826
#: ``√(π/2)``: mean absolute deviation × 1.2533 estimates the std of normal data (used
#: when the MAD is 0, e.g. a mostly flat series).
MEANAD_TO_SD = 1.253314


# ------------------------------------------------------------------------- stay points


@dataclass(frozen=True)
class StayPoint:
    """A stay: track points ``start..end`` (inclusive) all within the distance
    threshold of point ``start``, lasting ``duration_minutes``; centroid (lat, lon)."""

    start: int
    end: int
    lat: float
    lon: float
    arrival_minutes: float
    departure_minutes: float
    arrival: str = ""
    departure: str = ""
    #: None when the duration is measured from the track's times; else the sampling
    #: interval (minutes per point) the duration ASSUMES for a piece without times
    assumed_minutes_per_point: float | None = None

    @property
    def duration_assumed(self) -> bool:
        """True when the duration is not measured but assumed from a sampling interval."""
        return self.assumed_minutes_per_point is not None

    @property
    def duration_minutes(self) -> float:
        """Time between the first and last point of the stay."""
        return self.departure_minutes - self.arrival_minutes

    @property
    def timestamps(self) -> list[int]:
        """The suggested landmark timestamps: every point of the visit."""
        return list(range(self.start, self.end + 1))

    @property
    def span(self) -> tuple[int, int]:
        """The stay as an inclusive range ``(start, end)``: one landmark event."""
        return (self.start, self.end)

    def to_dict(self) -> dict:
        """JSON-ready suggestion."""
        return {
            "reason": "stay",
            "stay": f"{self.start}-{self.end}",
            "start": self.start,
            "end": self.end,
            "n_fixes": self.end - self.start + 1,
            "timestamps": self.timestamps,
            "centroid": {"lat": self.lat, "lon": self.lon},
            "duration_minutes": self.duration_minutes,
            "duration_assumed": self.duration_assumed,
            "assumed_minutes_per_point": self.assumed_minutes_per_point,
            "arrival": self.arrival,
            "departure": self.departure,
        }

    def describe(self) -> str:
        """'10:18 to 10:33 (15 min)' for measured times; 'points 56–84 (≈28 min if the
        points are 1 min apart, assumed)' for a piece without times."""
        if self.duration_assumed:
            return (f"points {self.start}–{self.end} (≈{self.duration_minutes:.0f} min if the "
                    f"points are {self.assumed_minutes_per_point:g} min apart, assumed)")
        a = self.arrival[11:16] if len(self.arrival) >= 16 else self.arrival
        d = self.departure[11:16] if len(self.departure) >= 16 else self.departure
        return f"{a} to {d} ({self.duration_minutes:.0f} min)"


def _check_minutes(minutes: ArrayLike, n: int) -> np.ndarray:
    m = np.asarray(minutes, dtype=float)
    if m.shape != (n,):
        raise InputError(f"need one time per track point ({n}), got {m.size}")
    if not np.all(np.isfinite(m)):
        bad = int(np.flatnonzero(~np.isfinite(m))[0])
        raise InputError(f"track point {bad} has no time; stay points need a time at every point")
    if n > 1 and np.any(np.diff(m) < 0):
        bad = int(np.flatnonzero(np.diff(m) < 0)[0]) + 1
        raise InputError(f"track point {bad} is earlier than the point before it; sort by time")
    return m


def _first_outside(lat: np.ndarray, lon: np.ndarray, i: int, limit: float) -> int:
    """Smallest j > i with distance(p_i, p_j) > limit, or n (chunked, vectorized)."""
    n = lat.size
    start, size = i + 1, 32
    while start < n:
        end = min(n, start + size)
        d = distance_m(lat[i], lon[i], lat[start:end], lon[start:end])
        out = np.flatnonzero(d > limit)
        if out.size:
            return start + int(out[0])
        start, size = end, min(size * 2, 8192)
    return n


def merge_stays(stays: list[StayPoint], lat: np.ndarray, lon: np.ndarray,
                distance_threshold_m: float) -> list[StayPoint]:
    """Back-to-back stays at the same place merged into one visit.

    The anchor-based scan of Li et al. 2008 ends a stay at the first fix farther than
    the threshold from the stay's *first* fix, so GPS drift during one long visit (a
    night at home) splits it into consecutive stays a few fixes apart. Stays k and k+1
    are merged when their centroids lie within ``distance_threshold_m`` of each other
    and every fix between them lies within ``distance_threshold_m`` of one of the two
    centroids (the track never left the place); the merged stay runs from k's first to
    k+1's last fix, its centroid the mean of all its fixes. Applied until no pair
    merges (each merge is checked against the merged stay's centroid)."""
    out: list[StayPoint] = []
    for s in stays:
        if out:
            p = out[-1]
            same = distance_m(p.lat, p.lon, s.lat, s.lon) <= distance_threshold_m
            if same and s.start > p.end + 1:
                gap = slice(p.end + 1, s.start)
                d = np.minimum(distance_m(p.lat, p.lon, lat[gap], lon[gap]),
                               distance_m(s.lat, s.lon, lat[gap], lon[gap]))
                same = bool(np.all(d <= distance_threshold_m))
            if same:
                c_lat, c_lon = centroid(lat[p.start:s.end + 1], lon[p.start:s.end + 1])
                out[-1] = StayPoint(
                    start=p.start, end=s.end, lat=c_lat, lon=c_lon,
                    arrival_minutes=p.arrival_minutes, departure_minutes=s.departure_minutes,
                    arrival=p.arrival, departure=s.departure,
                    assumed_minutes_per_point=p.assumed_minutes_per_point)
                continue
        out.append(s)
    return out


def detect_stay_points(
    lat: ArrayLike,
    lon: ArrayLike,
    minutes: ArrayLike,
    distance_threshold_m: float = DEFAULT_STAY_DISTANCE_M,
    time_threshold_min: float = DEFAULT_STAY_MINUTES,
    labels: ArrayLike | None = None,
    merge: bool = True,
) -> list[StayPoint]:
    """Stay points of a track (Li et al. 2008, Algorithm "StayPointDetection";
    Hariharan & Toyama 2004), back-to-back stays at one place merged (``merge``,
    :func:`merge_stays`).

    From anchor point i, take the points i..j−1 that lie within
    ``distance_threshold_m`` (geodesic metres) of point i, j being the first point
    farther away. If ``minutes[j−1] − minutes[i] ≥ time_threshold_min`` they form a
    stay (centroid = their mean position) and the scan resumes at j, else at i+1.

    Two deliberate details: the duration is measured to the last point *inside* the
    radius (Li et al. measure to p_j, the first point outside, which can count travel
    time as stay time), and a stay still open at the end of the track is reported
    (the original loop drops it). ``minutes`` are the point times in minutes;
    ``labels`` (optional) are shown as arrival/departure.
    """
    la, lo = check_coordinates(lat, lon)
    if la.ndim != 1 or la.size == 0:
        raise InputError("the track is empty: there are no points to look for stays in")
    n = la.size
    t = _check_minutes(minutes, n)
    dist = check_positive(distance_threshold_m, "stay distance threshold (metres)")
    dur = check_positive(time_threshold_min, "stay time threshold (minutes)")
    names = None if labels is None else [str(x) for x in np.asarray(labels).tolist()]
    stays: list[StayPoint] = []
    i = 0
    while i < n and t[-1] - t[i] >= dur:  # no later anchor can last long enough
        j = _first_outside(la, lo, i, dist)
        if t[j - 1] - t[i] >= dur:
            c_lat, c_lon = centroid(la[i:j], lo[i:j])
            stays.append(StayPoint(
                start=i, end=j - 1, lat=c_lat, lon=c_lon,
                arrival_minutes=float(t[i]), departure_minutes=float(t[j - 1]),
                arrival=names[i] if names else "", departure=names[j - 1] if names else "",
            ))
            i = j
        else:
            i += 1
    return merge_stays(stays, la, lo, dist) if merge else stays


def track_minutes(
    track: Track,
    minutes_per_point: float | None = None,
    minutes_per_time_unit: float | None = None,
) -> np.ndarray:
    """Minutes since the first point, for every point of ``track``.

    * ``minutes_per_point`` given: a fixed sampling interval (``i·minutes_per_point``),
      used whatever the track's times — required when the track has no times
      (``time_kind == 'index'``).
    * datetime times: their difference in minutes.
    * numeric times: multiplied by ``minutes_per_time_unit`` (default 1/60: the numbers
      are seconds, e.g. Unix time).
    """
    n = len(track)
    if minutes_per_point is not None:
        step = check_positive(minutes_per_point, "minutes per point")
        return np.arange(n, dtype=float) * step
    if track.time_kind == "index":
        raise InputError(
            "the track has no times, so stay durations cannot be measured; give the sampling "
            "interval (minutes per point, CLI: --minutes-per-point)"
        )
    if track.time_kind == "datetime":
        times = np.asarray(track.time, dtype="datetime64[ns]")
        missing = np.isnat(times)
        if missing.any():
            raise InputError(
                f"track point {int(np.flatnonzero(missing)[0])} has no time; give a sampling "
                "interval (minutes per point) or a track with a time at every point"
            )
        return (times - times[0]).astype("timedelta64[ns]").astype(np.int64) / 6e10
    unit = 1 / 60 if minutes_per_time_unit is None else check_positive(
        minutes_per_time_unit, "minutes per time unit")
    times = np.asarray(track.time, dtype=float)
    return (times - times[0]) * unit


def _time_labels(track: Track) -> list[str]:
    if track.time_kind == "datetime":
        return [str(x) for x in np.datetime_as_string(
            np.asarray(track.time, dtype="datetime64[s]"), unit="s")]
    return [f"{x:g}" for x in np.asarray(track.time, dtype=float)]


def stay_points(
    track: Track,
    distance_threshold_m: float = DEFAULT_STAY_DISTANCE_M,
    time_threshold_min: float = DEFAULT_STAY_MINUTES,
    minutes_per_point: float | None = None,
    minutes_per_time_unit: float | None = None,
) -> list[StayPoint]:
    """Stay points of a loaded :class:`~lmdk_core.data.track.Track` (see
    :func:`detect_stay_points` for the algorithm and :func:`track_minutes` for how
    times are read)."""
    if not isinstance(track, Track):
        raise InputError("stay points need a track (lat, lon and times)")
    if len(track) == 0:
        raise InputError("the track is empty: there are no points to look for stays in")
    minutes = track_minutes(track, minutes_per_point, minutes_per_time_unit)
    return detect_stay_points(track.lat, track.lon, minutes, distance_threshold_m,
                              time_threshold_min, labels=_time_labels(track))


def _piece_minutes(track: Track, a: int, b: int,
                   minutes_per_time_unit: float | None) -> np.ndarray | None:
    """Minutes of points a..b−1 measured from the track's own times, or None when one
    of them has no time (a piece the file left without times)."""
    if track.time_kind == "datetime":
        t = np.asarray(track.time, dtype="datetime64[ns]")[a:b]
        if np.isnat(t).any():
            return None
        return (t - t[0]).astype(np.int64) / 6e10
    if track.time_kind == "number":
        t = np.asarray(track.time, dtype=float)[a:b]
        if not np.all(np.isfinite(t)):
            return None
        unit = 1 / 60 if minutes_per_time_unit is None else check_positive(
            minutes_per_time_unit, "minutes per time unit")
        return (t - t[0]) * unit
    return None


def track_stay_points(
    track: Track,
    distance_threshold_m: float = DEFAULT_STAY_DISTANCE_M,
    time_threshold_min: float = DEFAULT_STAY_MINUTES,
    minutes_per_point: float | None = None,
    minutes_per_time_unit: float | None = None,
) -> tuple[list[StayPoint], list[str]]:
    """Stay points of a track whose pieces may lack times, and notes saying what was
    assumed: ``(stays, notes)``.

    Every piece (GPX track segment) is searched on its own, so no stay spans the gap
    between two recordings. A piece with a time at every point is measured with those
    times (``minutes_per_point`` is never used there: a duration shown is a measured
    one). A piece without times is searched only when ``minutes_per_point`` is given,
    and its stays carry ``assumed_minutes_per_point`` (their durations are an
    assumption, labelled as such); without it the piece is skipped and a note says so.
    A track with no time at all needs ``minutes_per_point`` (InputError otherwise)."""
    if not isinstance(track, Track):
        raise InputError("stay points need a track (lat, lon and times)")
    if len(track) == 0:
        raise InputError("the track is empty: there are no points to look for stays in")
    if track.time_kind == "index" and minutes_per_point is None:
        raise InputError(
            "the track has no times, so stay durations cannot be measured; give the sampling "
            "interval (minutes per point, CLI: --minutes-per-point) to search it with that "
            "assumed interval")
    step = None if minutes_per_point is None else check_positive(minutes_per_point,
                                                                 "minutes per point")
    labels = _time_labels(track) if track.time_kind != "index" else None
    stays: list[StayPoint] = []
    untimed: list[tuple[int, int]] = []
    skipped = 0
    for a, b in track.segment_ranges():
        minutes = _piece_minutes(track, a, b, minutes_per_time_unit)
        assumed = minutes is None
        if assumed:
            untimed.append((a, b))
            if step is None:
                skipped += 1
                continue
            minutes = np.arange(b - a, dtype=float) * step
        found = detect_stay_points(track.lat[a:b], track.lon[a:b], minutes,
                                   distance_threshold_m, time_threshold_min,
                                   labels=None if assumed or labels is None else labels[a:b])
        for s in found:
            stays.append(replace(
                s, start=s.start + a, end=s.end + a,
                assumed_minutes_per_point=step if assumed else None,
                arrival="" if assumed else s.arrival, departure="" if assumed else s.departure))
    notes: list[str] = []
    if untimed:
        n_pts = sum(b - a for a, b in untimed)
        whole = len(untimed) == track.n_segments
        what = ("The track has no times" if whole else
                f"{len(untimed)} of {track.n_segments} pieces ({n_pts:,} points) have no times")
        their = "its" if whole else "their"
        if step is None:
            notes.append(f"{what}: no stay is looked for there (give the minutes between "
                         "points to search them with an assumed interval).")
        else:
            notes.append(f"{what}: {their} stays assume {step:g} min between points — the "
                         "durations shown for them are an assumption, not a measurement"
                         + ("." if whole else "; the other pieces use their recorded times."))
    return stays, notes


# -------------------------------------------------------------------------- deviations


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
            "direction": self.direction,
        }


def _check_window(window: int) -> int:
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
    base = pd.Series(x).rolling(w, center=True, min_periods=w).median().to_numpy().copy()
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


def seasonal_phase(time: ArrayLike, time_kind: str,
                   season: str = "auto") -> tuple[np.ndarray | None, str]:
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
        return None, "no seasonal profile"
    if time_kind != "datetime":
        return None, "no seasonal profile (the times are not dates)"
    t = np.asarray(time, dtype="datetime64[s]")
    if t.size < 3 or np.isnat(t).any():
        return None, "no seasonal profile (too few or missing times)"
    steps = np.diff(t).astype(np.int64)
    step = int(np.median(steps)) if steps.size else 0
    if step <= 0 or 86400 % step:
        return None, "no seasonal profile (the sampling step does not divide a day)"
    span = (t[-1] - t[0]).astype(np.int64)
    if season == "auto":
        season = "week" if span >= 56 * 86400 else "day" if span >= 3 * 86400 else "none"
        if season == "none":
            return None, "no seasonal profile (the series spans less than 3 days)"
    if season not in SEASONS:
        raise InputError(f"season must be 'auto', 'day', 'week' or 'none', got {season!r}")
    period = int(SEASONS[season].astype("timedelta64[s]").astype(np.int64)) // step
    phase = ((t - t[0]).astype(np.int64) // step) % period
    unit = "hour" if step == 3600 else f"{step // 60}-minute slot" if step >= 60 else "slot"
    return phase.astype(int), f"{unit} of the {season}"


def _seasonal_profile(x: np.ndarray, phase: np.ndarray) -> np.ndarray:
    """The median of the values that share each timestamp's phase."""
    prof = pd.Series(x).groupby(phase).transform("median").to_numpy(dtype=float)
    return prof


def deviation_scores(
    values: ArrayLike, window: int = DEFAULT_DEVIATION_WINDOW,
    phase: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
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
    """
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError("the series values must be numbers") from None
    if x.ndim != 1 or x.size == 0:
        raise InputError("the series is empty: there are no values to look for deviations in")
    if not np.all(np.isfinite(x)):
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise InputError(f"the series has a missing or infinite value at t={bad}")
    w = _check_window(window)
    profile = np.zeros_like(x)
    ph = None
    if phase is not None:
        ph = np.asarray(phase)
        if ph.shape != x.shape:
            raise InputError(f"need one phase per value ({x.size}), got {ph.size}")
        profile = _seasonal_profile(x, ph)
    baseline = profile + _baseline(x - profile, w)
    r = x - baseline
    sigma = MAD_TO_SD * float(np.median(np.abs(r - np.median(r))))
    if sigma == 0:
        sigma = MEANAD_TO_SD * float(np.mean(np.abs(r - r.mean())))
    if sigma == 0:
        return baseline, np.zeros_like(x)
    if ph is None:
        return baseline, np.abs(r) / sigma
    ser = pd.Series(r)
    med = ser.groupby(ph).transform("median")
    per_phase = MAD_TO_SD * (ser - med).abs().groupby(ph).transform("median").to_numpy()
    return baseline, np.abs(r) / np.maximum(per_phase, sigma)


@dataclass(frozen=True)
class LevelShift:
    """Timestamps ``start..end`` (inclusive) whose level differs from the series' usual
    level: an *episode* (the level comes back: a holiday, an outage) or, touching an end
    of the series, a lasting change whose *change point* is ``change``."""

    start: int
    end: int
    level: float
    usual: float
    score: float
    change: int | None = None  # the first timestamp of the new level (lasting changes)

    @property
    def timestamps(self) -> list[int]:
        """The suggested landmarks: the episode's timestamps, or the change point."""
        if self.change is not None:
            return [self.change]
        return list(range(self.start, self.end + 1))


def _noise_sigma(x: np.ndarray) -> float:
    """The noise level of ``x`` robust to level shifts and spikes: ``1.4826·MAD`` of the
    first differences, over √2 (a difference holds two noises)."""
    d = np.diff(x)
    if d.size == 0:
        return 0.0
    s = MAD_TO_SD * float(np.median(np.abs(d - np.median(d)))) / np.sqrt(2)
    if s == 0:
        s = MEANAD_TO_SD * float(np.mean(np.abs(d - d.mean()))) / np.sqrt(2)
    return s


def _best_split(c: np.ndarray, a: int, b: int, min_len: int) -> tuple[int, float]:
    """The split s of x[a:b] maximising the two-sample statistic
    ``|mean(x[a:s]) − mean(x[s:b])|·√((s−a)(b−s)/(b−a))`` (the CUSUM statistic of
    binary segmentation; ``c`` is the cumulative sum with a leading 0)."""
    n = b - a
    s = np.arange(a + min_len, b - min_len + 1)
    if s.size == 0:
        return -1, 0.0
    m1 = (c[s] - c[a]) / (s - a)
    m2 = (c[b] - c[s]) / (b - s)
    stat = np.abs(m1 - m2) * np.sqrt((s - a) * (b - s) / n)
    i = int(np.argmax(stat))
    return int(s[i]), float(stat[i])


def level_shifts(values: ArrayLike, k: float = DEFAULT_DEVIATION_K, min_len: int = 5,
                 max_changes: int = 8,
                 min_duration: int = DEFAULT_DEVIATION_WINDOW) -> list[LevelShift]:
    """Sustained changes of level, which a rolling median absorbs (a 25-day holiday in
    a daily series moves the median with it and scores ~0).

    Binary segmentation (Scott & Knott 1974; Killick et al. JASA 2012 review it): split
    the series where the CUSUM statistic ``|Δmean|·√(n₁n₂/n)/σ`` is largest, σ the noise
    level from the first differences (:func:`_noise_sigma`, robust to the shifts
    themselves), while it exceeds ``max(k, √(2 ln T) + 1)`` (above what noise alone
    reaches over T candidate splits), each side at least ``min_len`` points; at most
    ``max_changes`` splits, the largest first. Segments are then judged by their
    **medians** (a spike moves a mean, not a median). The usual level is the length-weighted
    median of the segments' medians; neighbouring segments on the same side of it form
    one stretch, and a stretch whose median is at least the series' robust spread
    (``1.4826·MAD`` of the values: a change as large as the data's own variation) from
    the usual level, lasts at least ``min_duration`` timestamps (the deviation window:
    a day of hourly readings, so a daily cycle is not a shift), covers less than half
    the series and is **abrupt** — at each of its ends the medians of the ``min_len``
    timestamps on either side differ by at least half the shift (a slow cycle or trend,
    which a rolling median follows, is not a shift) — is a shift: an episode
    when the usual level comes back on both sides, else (touching an end) a lasting
    change suggested at its change point only."""
    x = np.asarray(values, dtype=float)
    T = x.size
    m = max(int(min_len), 2)
    sigma = _noise_sigma(x)
    if T < 2 * m or sigma == 0 or not np.isfinite(sigma):
        return []
    thr = max(float(k), np.sqrt(2 * np.log(T)) + 1)
    c = np.concatenate([[0.0], np.cumsum(x)])
    cuts: list[tuple[int, float]] = []
    todo = [(0, T)]
    while todo and len(cuts) < max_changes:
        a, b = todo.pop()
        s, stat = _best_split(c, a, b, m)
        if s < 0 or stat / sigma <= thr:
            continue
        cuts.append((s, stat / sigma))
        todo += [(a, s), (s, b)]
    if not cuts:
        return []
    cuts.sort()
    bounds = [0, *[s for s, _ in cuts], T]
    score_at = dict(cuts)
    segs = list(zip(bounds[:-1], bounds[1:], strict=True))
    med = np.array([np.median(x[a:b]) for a, b in segs])
    lens = np.array([b - a for a, b in segs], dtype=float)
    order = np.argsort(med)
    cum = np.cumsum(lens[order])
    usual = float(med[order][np.searchsorted(cum, cum[-1] / 2)])
    spread = MAD_TO_SD * float(np.median(np.abs(x - np.median(x))))
    side = np.sign(med - usual) * (np.abs(med - usual) >= sigma)
    out = []
    i = 0
    while i < len(segs):
        j = i
        while j + 1 < len(segs) and side[j + 1] == side[i]:
            j += 1  # neighbouring segments on the same side: one stretch
        a, b = segs[i][0], segs[j][1]
        level = float(np.median(x[a:b]))
        def jump(at: int) -> float:
            return abs(float(np.median(x[at:at + m])) - float(np.median(x[max(at - m, 0):at])))

        abrupt = all(jump(e) >= abs(level - usual) / 2 for e in (a, b) if 0 < e < T)
        if (side[i] != 0 and abs(level - usual) >= max(spread, sigma)
                and min_duration <= b - a < T / 2 and abrupt):
            score = max(score_at.get(a, 0.0), score_at.get(b, 0.0))
            change = b if a == 0 else a if b == T else None  # a lasting change
            out.append(LevelShift(a, b - 1, level, usual, score, change))
        i = j + 1
    return out


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
        level = x - (_seasonal_profile(x, np.asarray(phase)) if phase is not None else 0.0)
        w = _check_window(window)
        for sh in level_shifts(level, kk, min_len=max(3, w // 4), min_duration=w):
            for t in sh.timestamps:
                if t not in found:
                    found[t] = DeviationSuggestion(t, float(x[t]), sh.usual, sh.score,
                                                   reason="level_shift")
    return [found[t] for t in sorted(found)]


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
def sampling_window(time: ArrayLike, time_kind: str,
                    length: int | None = None) -> tuple[int, str]:
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
    lo, hi = DEFAULT_DEVIATION_WINDOW, DEVIATION_WINDOW_MAX
    step = 0
    if time_kind == "datetime":
        t = np.asarray(time, dtype="datetime64[s]")
        if t.size >= 2 and not np.isnat(t).any():
            step = int(np.median(np.diff(t).astype(np.int64)))
    if step <= 0:
        w, why = lo, "the times are not dates: no sampling interval to derive a day from"
    else:
        per_day = max(1, int(round(86400 / step)))
        w = min(max(per_day, lo), hi)
        unit = _step_text(step)
        why = (f"a day of {unit} readings" if w == per_day else
               f"a day of {unit} readings would be {per_day:,}; the most is {hi}"
               if per_day > hi else
               f"{unit} readings, {per_day} a day; the least is {lo}" if step < 86400 else
               f"{unit} readings, fewer than one a day; the least is {lo}")
    if length is not None and w > max(lo, int(length) // 4):
        w = max(lo, int(length) // 4)
        why = f"a quarter of the {int(length):,} readings ({why})"
    return w, f"{w} timestamps: {why}"


def _step_text(step: int) -> str:
    """'5-second', '16-minute', 'hourly', 'daily', … for a step in seconds."""
    named = {3600: "hourly", 86400: "daily", 7 * 86400: "weekly"}
    if step in named:
        return named[step]
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if step >= size and step % size == 0:
            return f"{step // size}-{unit}"
    return f"{step}-second"


def cap_events(found: list[DeviationSuggestion],
               max_events: int | None = DEFAULT_MAX_SUGGESTED_EVENTS
               ) -> tuple[list[DeviationSuggestion], int]:
    """At most ``max_events`` events of ``found`` (runs of consecutive timestamps,
    :func:`suggestion_events`): those holding a level shift first, then by their largest
    score; returned in time order with the number of events left out (None: no cap)."""
    events = suggestion_events(s.timestamp for s in found)
    if max_events is None or len(events) <= max_events:
        return list(found), 0
    by_t = {s.timestamp: s for s in found}

    def rank(ev: tuple[int, int]) -> tuple[bool, float]:
        run = [by_t[t] for t in range(ev[0], ev[1] + 1)]
        return (any(s.reason == "level_shift" for s in run), max(s.score for s in run))

    keep = sorted(sorted(events, key=rank, reverse=True)[:int(max_events)])
    kept = [by_t[t] for a, b in keep for t in range(a, b + 1)]
    return kept, len(events) - len(keep)


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
                       window: int | None = None, k: float = DEFAULT_DEVIATION_K,
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
        w, how = _check_window(window), f"{int(window)} timestamps (chosen)"
    phase = None
    label = "no seasonal profile"
    if x.size >= 3 or season != "auto":
        phase, label = seasonal_phase(time, time_kind, season)
    found = deviation_suggestions(x, w, k, phase=phase)
    kept, left_out = cap_events(found, max_events)
    return SeriesSuggestions(kept, w, how, label, left_out)
