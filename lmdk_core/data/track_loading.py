"""The one way a track file becomes a :class:`~lmdk_core.data.track.Track`:
:func:`load_track` reads the file, detects its format and hands the bytes to that
format's reader in :mod:`lmdk_core.data.track_formats` (docs/data-formats.md). Every
caller — the app's upload, the ``lmdk`` commands, a configuration's embedded data, the
benchmarks and the tests — loads tracks through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from lmdk_core.data.file_formats import (
    FILE_WORDS,
    FORMAT_NAMES,
    format_by_content,
    format_by_name,
)
from lmdk_core.data.tables import Source, read_bytes
from lmdk_core.data.track import Track
from lmdk_core.data.track_building import DEFAULT_WAYPOINT_MAX_M, ReadOptions
from lmdk_core.data.track_formats import csv, fit, geojson, gpx, kml, plt, tcx
from lmdk_core.foundation.errors import InputError

__all__ = ["READERS", "load_track", "track_format"]

#: the reader of every track format; a file that is XML but none of GPX/TCX/KML is
#: read as GPX, whose reader says what it is
READERS: dict[str, Callable[[bytes, ReadOptions], Track]] = {
    "csv": csv.read_track, "plt": plt.read_track, "gpx": gpx.read_track,
    "xml": gpx.read_track, "fit": fit.read_track, "tcx": tcx.read_track,
    "kml": kml.read_track, "geojson": geojson.read_track,
}


def track_format(data: bytes, filename: str | None) -> str:
    """The format of a track file: the one its content shows
    (:func:`~lmdk_core.data.file_formats.format_by_content`), else the one the file
    name's extension names, else CSV; a damaged FIT file, or another XML file under a
    GPX/TCX/KML name, keeps its name's format (its reader then says what is wrong).

    >>> track_format(b"time,lat,lon\\n0,48.8,2.3\\n", "walk.gpx")
    'gpx'
    >>> track_format(b'{"type": "LineString", "coordinates": []}', "walk.txt")
    'geojson'
    """
    by_name = format_by_name(filename)
    fmt = format_by_content(data) or by_name or "csv"
    if (fmt == "binary" and by_name == "fit") or (fmt in ("xml", "html")
                                                  and by_name in ("gpx", "tcx", "kml")):
        fmt = by_name
    return fmt


def load_track(source: Source, filename: str | None = None, name: str | None = None, *,
               file_format: str | None = None,
               waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M, time_col: str | None = None,
               lat_col: str | None = None, lon_col: str | None = None,
               time_format: str | None = None) -> Track:
    """Load a track from CSV, GPX, GeoLife PLT, FIT, TCX, KML or GeoJSON.

    ``source`` is a path, bytes or a file-like object; ``filename`` (or the path) helps
    detect the format (:func:`track_format`) unless ``file_format`` names it (a
    configuration's embedded CSV); ``name`` labels the track (default: the file name).
    ``waypoint_max_m``: GPX waypoints and KML places within this many metres of the
    track are offered as landmark candidates; ``time_col``/``lat_col``/``lon_col`` name
    a CSV's columns and ``time_format`` its times' strptime format. Any other format is
    refused with a message naming it (docs/data-formats.md).
    """
    options = ReadOptions(name=name or (filename or "uploaded track"),
                          waypoint_max_m=waypoint_max_m, time_col=time_col,
                          lat_col=lat_col, lon_col=lon_col, time_format=time_format)
    if file_format is None:
        path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else ""
        data = read_bytes(source, "the track file")
        file_format = track_format(data, filename or str(path))
    else:
        data = read_bytes(source, FILE_WORDS.get(file_format, "the track file"))
    reader = READERS.get(file_format)
    if reader is None:
        raise _unsupported(file_format)
    return reader(data, options)


def _unsupported(fmt: str) -> InputError:
    """The refusal of a file that is no track format the explorer reads."""
    what = FORMAT_NAMES.get(fmt, "a file of another format")
    how = {"gpkg": ": export the layer as GPX, GeoJSON or CSV (QGIS: Export > Save "
                   "Features As…; GDAL: ogr2ogr -f GPX out.gpx in.gpkg)",
           "zip": ": unzip it first (a .kmz holds a .kml)",
           "html": " (a download that failed?): download the track file itself"}
    return InputError(f"the file is {what}, which is not a track format the explorer reads"
                      + how.get(fmt, ": use CSV, GPX, FIT, TCX, KML, GeoJSON or GeoLife PLT"))
