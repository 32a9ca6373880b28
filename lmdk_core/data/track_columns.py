"""Which columns of a track table hold the time, the latitude and the longitude.

One rule for every way in (``lmdk geo-release``/``suggest``/``solve-epsilon``…, the Map's
upload and its column choices): a column the user names (``--time-col``, ``--lat-col``,
``--lon-col``; the Map's selectors) must exist; a column not named is recognised by its
header, matched without case or surrounding spaces, in the order of
:data:`LAT_NAMES`, :data:`LON_NAMES` and :data:`TIME_NAMES` — so ``timestamp,latitude,
longitude`` (a bus feed), ``X;Y;…;t`` (a GIS export, ``X`` the longitude) and
``time,lat,lon`` all load without naming anything (docs/data-formats.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["LAT_NAMES", "LON_NAMES", "TIME_NAMES", "TrackColumns", "WantedColumns",
           "find_track_columns",
           "missing_coordinates_error"]

#: latitude headers recognised, best first (``y`` only when no other is present)
LAT_NAMES = ("lat", "latitude", "lat_deg", "latitude_deg", "gps_lat", "gps_latitude",
             "location-lat", "location_lat", "position_lat", "y")
#: longitude headers recognised, best first (``x`` only when no other is present)
LON_NAMES = ("lon", "lng", "long", "longitude", "lon_deg", "longitude_deg", "gps_lon",
             "gps_lng", "gps_longitude", "location-lng", "location-long", "location_lng",
             "location_long", "position_long", "x")
#: time headers recognised, best first
TIME_NAMES = ("time", "timestamp", "datetime", "date_time", "t", "tracked_at",
              "recorded_at", "time_utc", "utc", "gps_time", "date")
#: the piece number of a track CSV (a new piece wherever it changes)
SEGMENT_NAME = "segment"


class WantedColumns(NamedTuple):
    """The column names a track table must have and those it may have
    (:meth:`TrackColumns.wanted`)."""

    required: list[str]
    optional: list[str]


@dataclass(frozen=True)
class TrackColumns:
    """The (lower-case, stripped) header names of a track table's columns: ``lat`` and
    ``lon``; ``time`` and ``segment`` None when the table has none."""

    lat: str
    lon: str
    time: str | None = None
    segment: str | None = None

    def wanted(self) -> WantedColumns:
        """(required, optional) column names for
        :func:`~lmdk_core.data.tables.read_csv_table`."""
        return WantedColumns([self.lat, self.lon], [c for c in (self.time, self.segment) if c])

    def renaming(self) -> dict[str, str]:
        """The table's names mapped to the track's canonical ``lat, lon, time, segment``."""
        pairs = {self.lat: "lat", self.lon: "lon", self.time: "time",
                 self.segment: "segment"}
        return {k: v for k, v in pairs.items() if k is not None}


def _key(name: object) -> str:
    return str(name).strip().lower()


def _named(keys: list[str], given: str, option: str, header: list[str]) -> str:
    """The header key of a column the user named; InputError listing the header when
    there is none."""
    key = _key(given)
    if key in keys:
        return key
    raise InputError(f"there is no column {quote_user_text(given)} ({option}); the file's "
                     f"columns are: {_header_text(header)}")


def _header_text(header: list[str]) -> str:
    shown = ", ".join(quote_user_text(str(c), 40) for c in header[:12]) or "none"
    return shown + (f" and {len(header) - 12} more" if len(header) > 12 else "")


def _recognised(keys: list[str], names: tuple[str, ...],
                taken: set[str | None]) -> str | None:
    return next((n for n in names if n in keys and n not in taken), None)


def find_track_columns(header: list[str], lat_col: str | None = None,
                       lon_col: str | None = None,
                       time_col: str | None = None) -> TrackColumns | None:
    """The time, latitude and longitude columns of a table with the columns ``header``.

    Named columns (``lat_col`` …) must be in the header (InputError naming the header
    otherwise); the others are recognised by :data:`LAT_NAMES`, :data:`LON_NAMES`,
    :data:`TIME_NAMES` (first match wins; a column is used once). Returns None when no
    latitude or no longitude column is found and none was named: the table is not a
    track (the caller says what it needs).

    >>> find_track_columns(["timestamp", "Latitude", "Longitude"])
    TrackColumns(lat='latitude', lon='longitude', time='timestamp', segment=None)
    >>> find_track_columns(["X", "Y", "fid", "t"]).lon
    'x'
    >>> find_track_columns(["time", "kWh"]) is None
    True
    """
    keys = [_key(c) for c in header]
    lat = None if lat_col is None else _named(keys, lat_col, "--lat-col", header)
    lon = None if lon_col is None else _named(keys, lon_col, "--lon-col", header)
    time = None if time_col is None else _named(keys, time_col, "--time-col", header)
    if lat is not None and lat == lon:
        raise InputError(f"the latitude and longitude columns must differ (both are "
                         f"{quote_user_text(lat_col)})")
    lat = lat or _recognised(keys, LAT_NAMES, {lon, time})
    lon = lon or _recognised(keys, LON_NAMES, {lat, time})
    if lat is None or lon is None:
        return None
    time = time or _recognised(keys, TIME_NAMES, {lat, lon})
    segment = SEGMENT_NAME if SEGMENT_NAME in keys and SEGMENT_NAME not in (
        lat, lon, time) else None
    return TrackColumns(lat=lat, lon=lon, time=time, segment=segment)


def missing_coordinates_error(header: list[str]) -> InputError:
    """The refusal of a table in which no latitude or longitude column was found."""
    return InputError(
        "the CSV needs a latitude and a longitude column (recognised names: lat, latitude "
        "or Y; lon, lng, longitude or X); it has: " + _header_text(header)
        + "; name them (CLI: --lat-col, --lon-col and --time-col; Map page: the column "
        "choices under the upload)")
