"""A :class:`~lmdk_core.data.track.Track` built from the pieces an activity file holds
(FIT, TCX, KML, GeoJSON readers): each piece's latitudes, longitudes and UTC times, in
file order, checked the way every loader checks them (docs/data-formats.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from lmdk_core.data.tables import MAX_ROWS
from lmdk_core.data.track import DEFAULT_WAYPOINT_MAX_M, Track, _nearest_waypoints, _pieces_note
from lmdk_core.data.track_times import resolve_track_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_positive

__all__ = ["NamedPlace", "Piece", "track_from_pieces", "utc_times"]


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


def utc_times(values: list) -> np.ndarray:
    """Times as naive UTC datetime64[ns] (NaT where a value is missing or unreadable):
    ISO 8601 text (any offset converted to UTC), or numbers as Unix time in seconds
    (milliseconds when above 10¹¹, as JavaScript writes them)."""
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
        out[text] = parsed.dt.tz_localize(None).to_numpy("datetime64[ns]")
    return out


def _checked_coordinates(lat: np.ndarray, lon: np.ndarray, what: str) -> None:
    """InputError naming the first point whose coordinates are missing or out of range."""
    bad_lat = ~np.isfinite(lat) | (np.abs(lat) > 90)
    bad_lon = ~np.isfinite(lon) | (np.abs(lon) > 180)
    bad = np.flatnonzero(bad_lat | bad_lon)
    if bad.size:
        i = int(bad[0])
        which = (f"latitude {lat[i]:g} is out of range [-90, 90]" if bad_lat[i]
                 else f"longitude {lon[i]:g} is out of range [-180, 180]")
        raise InputError(f"{what}: point {i + 1} has no valid position ({which})")


def track_from_pieces(pieces: list[Piece], name: str, what: str, notes: list[str] = (),
                      places: list[NamedPlace] = (),
                      waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M, utc: bool = True) -> Track:
    """The track of the non-empty ``pieces`` (``what`` names the file in messages):
    at most :data:`~lmdk_core.data.tables.MAX_ROWS` points, valid coordinates, times
    resolved per piece (:func:`~lmdk_core.data.track_times.resolve_track_times`), the
    ``places`` within ``waypoint_max_m`` offered as landmark candidates. Times are UTC,
    written back with ``Z`` (``utc``: False for times the file gave without a zone)."""
    pieces = [p for p in pieces if len(p)]
    n = sum(len(p) for p in pieces)
    if n > MAX_ROWS:
        raise InputError(f"{what} has {n:,} points; the limit is {MAX_ROWS:,}")
    lat = np.concatenate([np.asarray(p.lat, dtype=float) for p in pieces])
    lon = np.concatenate([np.asarray(p.lon, dtype=float) for p in pieces])
    _checked_coordinates(lat, lon, what)
    raw = np.concatenate([np.asarray(p.time, dtype="datetime64[ns]") for p in pieces])
    segment = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    labels = [p.label for p in pieces]
    res = resolve_track_times(raw, segment, "datetime", labels=labels)
    notes = list(notes)
    if len(pieces) > 1:
        notes.insert(0, _pieces_note([p.lat for p in pieces], labels))
    wpts, wnotes = _nearest_waypoints(lat, lon, places,
                                      check_positive(waypoint_max_m, "waypoint distance"))
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=name,
                 waypoints=wpts, segment=segment, segment_names=tuple(labels),
                 notes=tuple(notes) + res.notes + tuple(wnotes), warnings=res.warnings,
                 utc=utc and res.kind == "datetime")
