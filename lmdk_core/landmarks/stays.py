"""Stay points of a track: places where the user stayed within a distance threshold for
at least a time threshold (:func:`stay_points`, :func:`detect_stay_points`,
:func:`track_stay_points`).

Hariharan & Toyama, "Project Lachesis: Parsing and Modeling Location Histories"
(GIScience 2004); the stay-point algorithm of Li, Zheng, Xie, Chen, Liu & Ma, "Mining user
similarity based on location history" (ACM GIS 2008). Each stay point suggests the
timestamps of its visit as landmarks, with its centroid and duration; back-to-back stays
at the same place are one visit (:func:`merge_stays`). An accepted stay is protected by
default as ONE landmark event (docs/stays.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.data.track import Track
from lmdk_core.engine.stay_events import centroid
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.foundation.validation import check_positive
from lmdk_core.mechanisms.planar_laplace import check_coordinates

__all__ = [
    "DEFAULT_MAX_GAP_HOURS",
    "DEFAULT_STAY_DISTANCE_M",
    "DEFAULT_STAY_MINUTES",
    "StayPoint",
    "TrackStays",
    "detect_stay_points",
    "merge_stays",
    "stay_points",
    "track_minutes",
    "track_stay_points",
]

#: Stay-point thresholds of Li et al. 2008: 200 m and 20 minutes.
DEFAULT_STAY_DISTANCE_M = 200.0
DEFAULT_STAY_MINUTES = 20.0


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
            same = bool(distance_m(p.lat, p.lon, s.lat, s.lon) <= distance_threshold_m)
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
    *, distance_threshold_m: float = DEFAULT_STAY_DISTANCE_M,
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
    t = _check_minutes(minutes, la.size)
    dist = check_positive(distance_threshold_m, "stay distance threshold (metres)")
    dur = check_positive(time_threshold_min, "stay time threshold (minutes)")
    names = None if labels is None else [str(x) for x in np.asarray(labels).tolist()]
    stays = [_stay(la, lo, t, i, j, names) for i, j in _anchor_scan(la, lo, t, dist, dur)]
    return merge_stays(stays, la, lo, dist) if merge else stays


def _anchor_scan(la: np.ndarray, lo: np.ndarray, t: np.ndarray, dist: float,
                 dur: float) -> list[tuple[int, int]]:
    """The stays ``(i, j)`` (points i..j−1) of the anchor scan of Li et al. 2008: the
    points within ``dist`` of anchor i lasting at least ``dur`` minutes."""
    n = la.size
    found = []
    i = 0
    while i < n and t[-1] - t[i] >= dur:  # no later anchor can last long enough
        j = _first_outside(la, lo, i, dist)
        if t[j - 1] - t[i] >= dur:
            found.append((i, j))
            i = j
        else:
            i += 1
    return found


def _stay(la: np.ndarray, lo: np.ndarray, t: np.ndarray, i: int, j: int,
          names: list[str] | None) -> StayPoint:
    """The stay of points i..j−1: their centroid, first and last times and labels."""
    c_lat, c_lon = centroid(la[i:j], lo[i:j])
    return StayPoint(
        start=i, end=j - 1, lat=c_lat, lon=c_lon,
        arrival_minutes=float(t[i]), departure_minutes=float(t[j - 1]),
        arrival=names[i] if names else "", departure=names[j - 1] if names else "",
    )


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
    unit = _time_unit_minutes(minutes_per_time_unit)
    times = np.asarray(track.time, dtype=float)
    return (times - times[0]) * unit


def _time_unit_minutes(minutes_per_time_unit: float | None) -> float:
    """Minutes per unit of numeric times: the checked value given, else 1/60 (seconds)."""
    if minutes_per_time_unit is None:
        return 1 / 60
    return check_positive(minutes_per_time_unit, "minutes per time unit")


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
    _check_track(track)
    minutes = track_minutes(track, minutes_per_point, minutes_per_time_unit)
    return detect_stay_points(track.lat, track.lon, minutes,
                              distance_threshold_m=distance_threshold_m,
                              time_threshold_min=time_threshold_min, labels=_time_labels(track))


def _check_track(track: Track) -> None:
    """InputError unless ``track`` is a :class:`~lmdk_core.data.track.Track` with points."""
    if not isinstance(track, Track):
        raise InputError("stay points need a track (lat, lon and times)")
    if len(track) == 0:
        raise InputError("the track is empty: there are no points to look for stays in")


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
        unit = _time_unit_minutes(minutes_per_time_unit)
        return (t - t[0]) * unit
    return None


#: the longest gap between two recordings a stay may span (a night with the logger off)
DEFAULT_MAX_GAP_HOURS = 24.0


def _timed_chains(track: Track, minutes_per_time_unit: float | None,
                  max_gap_min: float) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(chains, untimed pieces): the track's pieces grouped into *chains* of consecutive
    pieces with a time at every point, each piece starting no earlier than the one
    before it ends and at most ``max_gap_min`` minutes later; the pieces without times
    apart. A chain is ``(start, stop)`` of its points (stop exclusive)."""
    chains: list[tuple[int, int]] = []
    untimed: list[tuple[int, int]] = []
    last_end: float | None = None  # the previous timed piece's last time (absolute)
    for a, b in track.segment_ranges():
        minutes = _piece_minutes(track, a, b, minutes_per_time_unit)
        if minutes is None:
            untimed.append((a, b))
            last_end = None
            continue
        first = _absolute_minutes(track, a, minutes_per_time_unit)
        if last_end is not None and 0 <= first - last_end <= max_gap_min:
            chains[-1] = (chains[-1][0], b)  # the previous piece is timed and adjacent
        else:
            chains.append((a, b))
        last_end = first + float(minutes[-1])
    return chains, untimed


def _absolute_minutes(track: Track, i: int, minutes_per_time_unit: float | None) -> float:
    """The time of point ``i`` in minutes on the track's own clock (epoch minutes for
    datetimes; the numbers times the unit otherwise)."""
    if track.time_kind == "datetime":
        t = np.asarray(track.time, dtype="datetime64[ns]")[i]
        return float(t.astype(np.int64)) / 6e10
    return float(np.asarray(track.time, dtype=float)[i]) * _time_unit_minutes(
        minutes_per_time_unit)


class TrackStays(NamedTuple):
    """The stay points of a track and what was assumed to find them
    (:func:`track_stay_points`)."""

    stays: list[StayPoint]
    #: sentences saying what was assumed (times of untimed pieces, gaps split at)
    notes: list[str]


def track_stay_points(
    track: Track,
    *, distance_threshold_m: float = DEFAULT_STAY_DISTANCE_M,
    time_threshold_min: float = DEFAULT_STAY_MINUTES,
    minutes_per_point: float | None = None,
    minutes_per_time_unit: float | None = None,
    max_gap_hours: float = DEFAULT_MAX_GAP_HOURS,
) -> TrackStays:
    """Stay points of a track whose pieces may lack times, and notes saying what was
    assumed: ``(stays, notes)``.

    Pieces with a time at every point are searched with those times (``minutes_per_point``
    is never used there: a duration shown is a measured one), **across recordings**:
    consecutive timed pieces in time order whose gap is at most ``max_gap_hours`` are
    searched as one, so a night at home between the evening's recording and the
    morning's is a stay when the last fix before the gap and the first after it lie
    within the distance threshold of the stay's first fix (the anchor scan of Li et al.
    2008 needs every fix of a stay inside the radius; a gap is bridged only when the
    user is found at the same place on both sides of it). Pieces out of time order, or
    further apart, are searched on their own. A piece without times is searched only
    when ``minutes_per_point`` is given, and its stays carry
    ``assumed_minutes_per_point`` (their durations are an assumption, labelled as such);
    without it the piece is skipped and a note says so. A track with no time at all
    needs ``minutes_per_point`` (InputError otherwise)."""
    step = _check_stay_track(track, minutes_per_point)
    max_gap = check_positive(max_gap_hours, "longest gap a stay may span (hours)") * 60
    labels = _time_labels(track) if track.time_kind != "index" else None
    chains, untimed = _timed_chains(track, minutes_per_time_unit, max_gap)
    stays: list[StayPoint] = []
    for a, b in chains:
        minutes = _piece_minutes(track, a, b, minutes_per_time_unit)
        assert minutes is not None  # a chain joins pieces with a time at every point
        found = detect_stay_points(track.lat[a:b], track.lon[a:b], minutes,
                                   distance_threshold_m=distance_threshold_m,
                                   time_threshold_min=time_threshold_min,
                                   labels=None if labels is None else labels[a:b])
        stays += [replace(s, start=s.start + a, end=s.end + a) for s in found]
    if step is not None:
        for a, b in untimed:
            stays += _untimed_piece_stays(track, a, b, step, distance_threshold_m,
                                          time_threshold_min)
    stays.sort(key=lambda s: s.start)
    notes = [_untimed_note(track, untimed, step)] if untimed else []
    return TrackStays(stays, notes)


def _check_stay_track(track: Track, minutes_per_point: float | None) -> float | None:
    """The checked sampling interval (None: not given) of a track to search for stays."""
    _check_track(track)
    if track.time_kind == "index" and minutes_per_point is None:
        backwards = any("go backwards" in w for w in track.warnings)
        why = ("the track's times go backwards, so they were set aside and stay durations "
               "cannot be measured; sort the file by time, or give" if backwards else
               "the track has no times, so stay durations cannot be measured; give")
        raise InputError(
            f"{why} the sampling interval (minutes per point, CLI: --minutes-per-point) to "
            "search it with that assumed interval")
    return None if minutes_per_point is None else check_positive(minutes_per_point,
                                                                 "minutes per point")


def _untimed_piece_stays(track: Track, a: int, b: int, step: float,
                         distance_threshold_m: float,
                         time_threshold_min: float) -> list[StayPoint]:
    """The stays of points a..b−1 (a piece without times) assuming ``step`` minutes
    between points; their durations are labelled as assumed."""
    minutes = np.arange(b - a, dtype=float) * step
    found = detect_stay_points(track.lat[a:b], track.lon[a:b], minutes,
                               distance_threshold_m=distance_threshold_m,
                               time_threshold_min=time_threshold_min)
    return [replace(s, start=s.start + a, end=s.end + a, assumed_minutes_per_point=step,
                    arrival="", departure="") for s in found]


def _untimed_note(track: Track, untimed: list[tuple[int, int]], step: float | None) -> str:
    """What was assumed (or skipped) for the pieces ``untimed`` that have no times."""
    n_pts = sum(b - a for a, b in untimed)
    whole = len(untimed) == track.n_segments
    what = ("The track has no times" if whole else
            f"{len(untimed)} of {track.n_segments} pieces ({n_pts:,} points) have no times")
    if step is None:
        return (f"{what}: no stay is looked for there (give the minutes between "
                "points to search them with an assumed interval).")
    their = "its" if whole else "their"
    return (f"{what}: {their} stays assume {step:g} min between points — the "
            "durations shown for them are an assumption, not a measurement"
            + ("." if whole else "; the other pieces use their recorded times."))
