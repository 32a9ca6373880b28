"""What every track reader shares, below the format modules
(:mod:`lmdk_core.data.track_formats`): the options a reader is given, the point limit,
the coordinate checks, the waypoints offered as landmark candidates, and the
:class:`~lmdk_core.data.track.Track` built from the pieces a file holds — each piece's
latitudes, longitudes and UTC times, in file order, checked the way every loader checks
them (docs/data-formats.md). The format modules call down into this module; it calls no
format module."""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from lmdk_core.data.tables import MAX_ROWS, numeric_column
from lmdk_core.data.time_formats import checked_ns
from lmdk_core.data.track import Track, Waypoint
from lmdk_core.data.track_times import resolve_track_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import check_positive
from lmdk_core.mechanisms.planar_laplace import check_coordinates

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

    from lmdk_core.data.track_columns import TrackColumns

__all__ = ["DEFAULT_WAYPOINT_MAX_M", "NamedPlace", "NearbyWaypoints", "Piece", "Place",
           "ReadOptions", "check_point_count", "clean_name", "column_coordinates",
           "nearest_waypoints", "pieces_note", "track_from_pieces", "utc_times"]

#: waypoints farther than this from every track point are not offered as landmarks
DEFAULT_WAYPOINT_MAX_M = 1000.0


@dataclass(frozen=True)
class ReadOptions:
    """What a track reader is told besides the file's bytes: the track's ``name``, the
    distance ``waypoint_max_m`` (metres) within which a file's waypoints or places are
    offered as landmark candidates, and for a CSV the columns the user named
    (``time_col``, ``lat_col``, ``lon_col``) and the strptime ``time_format`` of its
    times (the other readers ignore those)."""

    name: str = "uploaded track"
    waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M
    time_col: str | None = None
    lat_col: str | None = None
    lon_col: str | None = None
    time_format: str | None = None


@dataclass(frozen=True)
class Piece:
    """One recorded piece: ``lat``, ``lon`` (degrees) and ``time`` (naive UTC
    datetime64[ns], NaT where a point has none), and its label."""

    lat: np.ndarray
    lon: np.ndarray
    time: np.ndarray
    label: str

    def __len__(self) -> int:
        return int(np.asarray(self.lat).size)


class NamedPlace(NamedTuple):
    """A single named place of the file (a KML point placemark): a waypoint candidate."""

    name: str
    latitude: float
    longitude: float


class Place(Protocol):
    """A named position of a file offered as a landmark candidate: a
    :class:`NamedPlace` or a gpxpy waypoint (``name`` may be None)."""

    @property
    def name(self) -> str | None: ...

    @property
    def latitude(self) -> float: ...

    @property
    def longitude(self) -> float: ...


def utc_times(values: list) -> np.ndarray:
    """Times as naive UTC datetime64[ns] (NaT where a value is missing or unreadable):
    ISO 8601 text (any offset converted to UTC), or numbers as Unix time in seconds
    (milliseconds when above 10¹¹, as JavaScript writes them)."""
    import pandas as pd

    out = np.full(len(values), np.datetime64("NaT"), dtype="datetime64[ns]")
    nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    num = np.isfinite(nums)
    if num.any():
        ms = np.abs(nums[num]) > 1e11
        secs = np.where(ms, nums[num] / 1000, nums[num])
        out[num] = pd.to_datetime(secs, unit="s", errors="coerce").to_numpy("datetime64[ns]")
    text = [i for i, v in enumerate(values) if not num[i] and isinstance(v, str) and v.strip()]
    if text:
        parsed = pd.to_datetime(pd.Series([values[i].strip() for i in text]), utc=True,
                                format="ISO8601", errors="coerce")
        found = parsed.dt.tz_localize(None).to_numpy()
        wide = np.full(len(values), np.datetime64("NaT"), dtype=found.dtype)
        wide[text] = found
        out[text] = checked_ns(wide)[text]  # year 1 refused, not wrapped to 1754
    return out


def check_point_count(n: int, what: str) -> None:
    """InputError when a track file (``what``, e.g. "the GPX file") has more than
    :data:`~lmdk_core.data.tables.MAX_ROWS` points."""
    if n > MAX_ROWS:
        raise InputError(f"{what} has {n:,} points; the limit is {MAX_ROWS:,}")


def _check_point_coordinates(lat: np.ndarray, lon: np.ndarray, what: str) -> None:
    """InputError naming the first point whose coordinates are missing or out of range."""
    bad_lat = ~np.isfinite(lat) | (np.abs(lat) > 90)
    bad_lon = ~np.isfinite(lon) | (np.abs(lon) > 180)
    bad = np.flatnonzero(bad_lat | bad_lon)
    if bad.size:
        i = int(bad[0])
        which = (f"latitude {lat[i]:g} is out of range [-90, 90]" if bad_lat[i]
                 else f"longitude {lon[i]:g} is out of range [-180, 180]")
        raise InputError(f"{what}: point {i + 1} has no valid position ({which})")


def column_coordinates(df: pd.DataFrame, cols: TrackColumns) -> tuple[np.ndarray, np.ndarray]:
    """The checked latitudes and longitudes of a table's ``lat``/``lon`` columns (named
    ``cols.lat``/``cols.lon`` in the file); messages name the file's line and own
    columns, and an ``X``/``Y`` pair out of range is said to be projected, not degrees."""
    try:
        lat, lon = numeric_column(df, "lat"), numeric_column(df, "lon")
    except InputError as exc:
        msg = str(exc).replace(": lat ", f": {cols.lat} ").replace(": lon ", f": {cols.lon} ")
        raise InputError(msg) from None
    out = np.flatnonzero((np.abs(lat) > 90) | (np.abs(lon) > 180))
    if out.size:
        i = int(out[0])
        is_lat = abs(lat[i]) > 90
        col = cols.lat if is_lat else cols.lon
        what = (f"latitude {lat[i]:g} is out of range [-90, 90]" if is_lat
                else f"longitude {lon[i]:g} is out of range [-180, 180]")
        hint = ("; X/Y look like projected coordinates (metres), not degrees: export them "
                "as WGS 84 (EPSG:4326) longitude/latitude" if (cols.lat, cols.lon) == ("y", "x")
                else "" if col in ("lat", "lon", "latitude", "longitude")
                else f" (column {col}; name others with --lat-col/--lon-col)")
        raise InputError(f"line {i + 2}: {what}{hint}")
    return check_coordinates(lat, lon)


def _metres(d: float) -> str:
    """A distance as messages show it: metres, or whole km from 10 km on."""
    return f"{d / 1000:,.0f} km" if d >= 10_000 else f"{d:,.0f} m"


def clean_name(name: str | None) -> str:
    """A name as shown to the user: the XML text with its whitespace collapsed, "" for
    none.

    >>> clean_name("\\n    BIG LOOP\\n  ")
    'BIG LOOP'
    """
    return " ".join(str(name).split()) if name else ""


class NearbyWaypoints(NamedTuple):
    """The places near a track (:func:`nearest_waypoints`)."""

    waypoints: list[Waypoint]
    #: a note about the farther places (empty when none)
    notes: list[str]


def nearest_waypoints(lat: np.ndarray, lon: np.ndarray, places: Sequence[Place],
                      max_m: float) -> NearbyWaypoints:
    """The ``places`` within ``max_m`` metres of the track (each attached to its nearest
    point, geodesic distance on WGS84) and a note about the farther ones."""
    out: list[Waypoint] = []
    far: list[Waypoint] = []
    for k, w in enumerate(places):
        d = distance_m(lat, lon, w.latitude, w.longitude)
        i = int(np.argmin(d))
        wp = Waypoint(clean_name(w.name) or f"waypoint {k + 1}", float(w.latitude),
                      float(w.longitude), i,
                      float(d[i]))
        (out if wp.distance_m <= max_m else far).append(wp)
    return NearbyWaypoints(out, [_far_waypoints_note(far, max_m)] if far else [])


def _far_waypoints_note(far: list[Waypoint], max_m: float) -> str:
    """The note counting the waypoints too far from the track, naming the nearest."""
    near = min(far, key=lambda w: w.distance_m)
    return (f"{len(far)} waypoint{'s are' if len(far) != 1 else ' is'} farther than "
            f"{_metres(max_m)} from the track and not offered as landmark candidates "
            f"(nearest of them: {quote_user_text(near.name, 40)}, "
            f"{_metres(near.distance_m)} away).")


def pieces_note(pieces: Sequence[Sized], labels: list[str]) -> str:
    """The note listing a file's separate pieces (anything with a length) with their
    sizes."""
    return (f"{len(pieces)} separate pieces: "
            + "; ".join(f"{quote_user_text(lab, 40)} ({len(p):,} points)"
                        for lab, p in zip(labels, pieces, strict=True))
            + ". No line is drawn across the gaps between them.")


def track_from_pieces(pieces: list[Piece], options: ReadOptions, what: str,
                      notes: Sequence[str] = (), places: Sequence[Place] = (), *,
                      utc: bool = True, name_bad_point: bool = True) -> Track:
    """The track of the non-empty ``pieces`` (``what`` names the file in messages):
    at most :data:`~lmdk_core.data.tables.MAX_ROWS` points, valid coordinates (a bad
    one named by its point number, or with ``name_bad_point=False`` by its value alone,
    as :func:`~lmdk_core.mechanisms.planar_laplace.check_coordinates` words it), times
    resolved per piece (:func:`~lmdk_core.data.track_times.resolve_track_times`), the
    ``places`` within ``options.waypoint_max_m`` offered as landmark candidates
    (:func:`nearest_waypoints`). Times are UTC, written back with ``Z`` (``utc``: False
    for times the file gave without a zone)."""
    pieces = [p for p in pieces if len(p)]
    check_point_count(sum(len(p) for p in pieces), what)
    lat = np.concatenate([np.asarray(p.lat, dtype=float) for p in pieces])
    lon = np.concatenate([np.asarray(p.lon, dtype=float) for p in pieces])
    if name_bad_point:
        _check_point_coordinates(lat, lon, what)
    else:
        lat, lon = check_coordinates(lat, lon)
    raw = np.concatenate([np.asarray(p.time, dtype="datetime64[ns]") for p in pieces])
    segment = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    labels = [p.label for p in pieces]
    res = resolve_track_times(raw, segment, "datetime", labels=labels)
    notes = list(notes)
    if len(pieces) > 1:
        notes.insert(0, pieces_note([p.lat for p in pieces], labels))
    wpts, wnotes = nearest_waypoints(lat, lon, places,
                                     check_positive(options.waypoint_max_m, "waypoint distance"))
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=options.name,
                 waypoints=wpts, segment=segment, segment_names=tuple(labels),
                 notes=tuple(notes) + res.notes + tuple(wnotes), warnings=res.warnings,
                 utc=utc and res.kind == "datetime")
