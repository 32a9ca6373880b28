"""The options that name an input file's columns — ``--time-col``, ``--value-col``,
``--lat-col``, ``--lon-col`` — one way for every command that reads a series or a track
(``suggest``, ``geo-release``, ``solve-epsilon``, ``attack``), and whether an input is a
track or a series (docs/data-formats.md)."""

from __future__ import annotations

import argparse
from typing import TypedDict

#: track files recognised by their extension (never read as a series)
TRACK_EXTENSIONS = (".gpx", ".plt", ".fit", ".tcx", ".kml", ".geojson", ".gpkg")


def add_column_options(p: argparse.ArgumentParser, series: bool = True,
                       track: bool = True) -> None:
    """``--time-col`` (both), ``--value-col`` (series), ``--lat-col``/``--lon-col``
    (tracks): column names, matched without case; not given = recognised by name."""
    p.add_argument("--time-col", default=None,
                   help="the time column (default: a series' 'time'; a track's time, "
                        "timestamp, datetime or t; names match case-insensitively)")
    p.add_argument("--time-format", default=None, metavar="FORMAT",
                   help="times that are not ISO 8601, as strptime codes, e.g. "
                        "\"%%m/%%d/%%Y %%H:%%M:%%S\" (month first) or \"%%d/%%m/%%Y\"; "
                        "day-first and month-first are never guessed")
    if series:
        p.add_argument("--value-col", default=None,
                       help="series: the value column (default 'value')")
    if track:
        p.add_argument("--lat-col", default=None,
                       help="track CSV: the latitude column (default: lat, latitude or Y)")
        p.add_argument("--lon-col", default=None,
                       help="track CSV: the longitude column (default: lon, lng, longitude "
                            "or X)")


class SeriesColumns(TypedDict):
    """The keyword arguments of the series loader that name a CSV's columns."""

    time_col: str
    value_col: str
    time_format: str | None


class TrackColumns(TypedDict):
    """The keyword arguments of the track loader that name a CSV's columns (None:
    recognised by name)."""

    time_col: str | None
    lat_col: str | None
    lon_col: str | None
    time_format: str | None


def series_columns(args: argparse.Namespace) -> SeriesColumns:
    """``time_col``/``value_col`` keyword arguments of the series loader."""
    return {"time_col": getattr(args, "time_col", None) or "time",
            "value_col": getattr(args, "value_col", None) or "value",
            "time_format": getattr(args, "time_format", None)}


def track_columns(args: argparse.Namespace) -> TrackColumns:
    """``time_col``/``lat_col``/``lon_col`` keyword arguments of the track loader."""
    return {"time_col": getattr(args, "time_col", None),
            "lat_col": getattr(args, "lat_col", None),
            "lon_col": getattr(args, "lon_col", None),
            "time_format": getattr(args, "time_format", None)}


def input_kind(path: str, args: argparse.Namespace | None = None) -> str:
    """'track' for a track file (:data:`TRACK_EXTENSIONS`, or a format the content shows:
    GPX, FIT, TCX, KML, GeoJSON, … — the track loader names a format it cannot read) or a
    table
    with a latitude and a longitude column (named by ``--lat-col``/``--lon-col`` or
    recognised: :func:`~lmdk_core.data.track_columns.find_track_columns`), else 'series'."""
    from lmdk_core.data.file_formats import format_by_content
    from lmdk_core.data.series import csv_columns
    from lmdk_core.data.tables import read_bytes
    from lmdk_core.data.track_columns import find_track_columns

    if path.lower().endswith(TRACK_EXTENSIONS):
        return "track"
    if args is not None and (getattr(args, "lat_col", None) or getattr(args, "lon_col", None)):
        return "track"
    data = read_bytes(path, "the input file")
    if format_by_content(data) is not None:  # a track file, or one the loader names
        return "track"
    found = find_track_columns(csv_columns(data))
    return "track" if found is not None else "series"
