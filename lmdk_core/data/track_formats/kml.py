"""KML (Google Earth, My Tracks) tracks read with the standard library's XML parser
(docs/data-formats.md): every ``<gx:Track>`` (``<when>`` and ``<gx:coord>lon lat alt``,
also inside a ``<gx:MultiTrack>``) and every ``<LineString>`` (``<coordinates>lon,lat[,alt]
…``, no times) is a piece, in file order; ``<Point>`` placemarks within 1 km of the track
are offered as landmark candidates, as GPX waypoints are."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from lmdk_core.data.track import Track
from lmdk_core.data.track_building import (
    NamedPlace,
    Piece,
    ReadOptions,
    clean_name,
    track_from_pieces,
    utc_times,
)
from lmdk_core.data.xml_elements import (
    children,
    descendants,
    local_name,
    number,
    parse_root,
    text_of,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["read_track"]


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a KML file: its gx:Tracks and LineStrings as pieces, its point placemarks
    within ``options.waypoint_max_m`` as landmark candidates (module docstring)."""
    root = parse_root(data, "KML", "kml")
    pieces, notes, places = [], [], []
    for k, pm in enumerate(descendants(root, "Placemark")):
        label = clean_name(text_of(pm, "name")) or f"placemark {k + 1}"
        found, more = _placemark_pieces(pm, label)
        pieces += found
        notes += more
        if not found and (place := _place(pm, k)) is not None:
            places.append(place)
    if not any(len(p) for p in pieces):
        raise InputError(
            "the KML file has no LineString or gx:Track with coordinates"
            + (f", only {len(places)} single place{'s' if len(places) != 1 else ''}"
               if places else "") + ": there is no track to release (export the path, "
            "not only its places)")
    return track_from_pieces(pieces, options, "the KML file", notes, places)


def _coordinates(text: str | None, sep: str | None) -> tuple[list[float], list[float]]:
    """Longitudes and latitudes of KML coordinate tuples (``lon,lat[,alt]`` separated by
    whitespace, or one ``lon lat alt`` when ``sep`` is None)."""
    lon, lat = [], []
    tuples = (text or "").split() if sep else [text or ""]
    for tup in tuples:
        parts = tup.split(sep) if sep else tup.split()
        if len(parts) >= 2:
            lon.append(number(parts[0]))
            lat.append(number(parts[1]))
    return lon, lat


def _gx_track_piece(trk: ET.Element, label: str) -> tuple[Piece, list[str]]:
    """The piece of a ``<gx:Track>``; a note when its times do not match its points."""
    lon, lat = [], []
    for c in children(trk, "coord"):
        x, y = _coordinates(c.text, None)
        lon += x
        lat += y
    when = [(w.text or "").strip() for w in children(trk, "when")]
    notes = []
    if when and len(when) != len(lat):
        notes.append(f"{quote_user_text(label, 40)}: {len(when)} times for {len(lat)} "
                     "points, so its times are not used.")
        when = []
    times = utc_times(when) if when else np.full(len(lat), np.datetime64("NaT"), "datetime64[ns]")
    return Piece(np.asarray(lat), np.asarray(lon), times, label), notes


def _line_piece(line: ET.Element, label: str) -> Piece:
    """The piece of a ``<LineString>`` (its points have no times)."""
    lon, lat = _coordinates(text_of(line, "coordinates"), ",")
    return Piece(np.asarray(lat), np.asarray(lon),
                 np.full(len(lat), np.datetime64("NaT"), "datetime64[ns]"), label)


def _placemark_pieces(pm: ET.Element, label: str) -> tuple[list[Piece], list[str]]:
    """The pieces of one placemark: its gx:Tracks and LineStrings, in document order."""
    pieces, notes = [], []
    geoms = [e for e in pm.iter() if local_name(e.tag) in ("Track", "LineString")]
    for k, g in enumerate(geoms):
        lab = label if len(geoms) == 1 else f"{label}, part {k + 1}"
        if local_name(g.tag) == "Track":
            piece, more = _gx_track_piece(g, lab)
            notes += more
        else:
            piece = _line_piece(g, lab)
        pieces.append(piece)
    return pieces, notes


def _place(pm: ET.Element, k: int) -> NamedPlace | None:
    """A point placemark as a waypoint candidate (None when it holds no point)."""
    point = next(iter(descendants(pm, "Point")), None)
    lon, lat = (_coordinates(text_of(point, "coordinates"), ",") if point is not None
                else ([], []))
    if not lat or not np.isfinite(lat[0]) or not np.isfinite(lon[0]):
        return None
    return NamedPlace(clean_name(text_of(pm, "name")) or f"place {k + 1}", lat[0], lon[0])
