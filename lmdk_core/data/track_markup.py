"""TCX (Garmin Training Center) and KML (Google Earth) tracks read with the standard
library's XML parser into the one track model (docs/data-formats.md).

* **TCX**: every ``<Track>`` (of an activity's laps, or of a course) is a piece; its
  ``<Trackpoint>`` s with a ``<Position>`` (``LatitudeDegrees``, ``LongitudeDegrees``)
  and a ``<Time>`` are the points (trackpoints without a position are left out and
  counted).
* **KML**: every ``<gx:Track>`` (``<when>`` and ``<gx:coord>lon lat alt``, also inside a
  ``<gx:MultiTrack>``) and every ``<LineString>`` (``<coordinates>lon,lat[,alt] …``,
  no times) is a piece, in file order; ``<Point>`` placemarks within 1 km of the track
  are offered as landmark candidates, as GPX waypoints are.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from lmdk_core.data.tables import Source, read_bytes
from lmdk_core.data.track import DEFAULT_WAYPOINT_MAX_M, Track
from lmdk_core.data.track_pieces import NamedPlace, Piece, track_from_pieces, utc_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["load_track_kml", "load_track_tcx"]


def _local(tag: object) -> str:
    """An element's name without its XML namespace."""
    return str(tag).rsplit("}", 1)[-1]


def _children(el: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in el if _local(c.tag) == name]


def _descendants(el: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in el.iter() if _local(c.tag) == name]


def _text(el: ET.Element | None, name: str) -> str | None:
    """The stripped text of ``el``'s first descendant named ``name``."""
    if el is None:
        return None
    found = next((c for c in el.iter() if _local(c.tag) == name), None)
    return None if found is None or found.text is None else found.text.strip()


def _parse(data: bytes, fmt: str, root_name: str) -> ET.Element:
    """The document's root element; InputError naming the format when it is not one."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise InputError(f"the {fmt} file is not well-formed XML ({exc}); it may be cut "
                         "short: export it again") from None
    if _local(root.tag) != root_name:
        raise InputError(f"the file is not a {fmt} file: its root element is "
                         f"<{quote_user_text(_local(root.tag), 40)}>, not <{root_name}>")
    return root


def _float(text: str | None) -> float:
    try:
        return float(text) if text is not None else np.nan
    except ValueError:
        return np.nan


def _tcx_piece(track: ET.Element, label: str) -> tuple[Piece, int]:
    """(the piece of one TCX ``<Track>``, its trackpoints without a position)."""
    lat, lon, when, without = [], [], [], 0
    for tp in _children(track, "Trackpoint"):
        pos = next(iter(_children(tp, "Position")), None)
        if pos is None:
            without += 1
            continue
        lat.append(_float(_text(pos, "LatitudeDegrees")))
        lon.append(_float(_text(pos, "LongitudeDegrees")))
        when.append(_text(tp, "Time"))
    return Piece(np.asarray(lat), np.asarray(lon), utc_times(when), label), without


def load_track_tcx(source: Source, name: str = "uploaded track") -> Track:
    """Read a TCX file: its ``<Track>`` elements as pieces (module docstring)."""
    root = _parse(read_bytes(source, "the TCX file"), "TCX", "TrainingCenterDatabase")
    tracks = _descendants(root, "Track")
    pieces, without = [], 0
    for k, trk in enumerate(tracks):
        piece, n = _tcx_piece(trk, f"track {k + 1}")
        pieces.append(piece)
        without += n
    if not any(len(p) for p in pieces):
        raise InputError("the TCX file has no trackpoint with a position"
                         + (f" ({without:,} without one: an indoor activity?)" if without
                            else "") + ": there is no track to release")
    notes = ([f"{without:,} trackpoint{'s' if without != 1 else ''} without a position "
              "left out."] if without else [])
    return track_from_pieces(pieces, name, "the TCX file", notes)


def _coordinates(text: str | None, sep: str | None) -> tuple[list[float], list[float]]:
    """Longitudes and latitudes of KML coordinate tuples (``lon,lat[,alt]`` separated by
    whitespace, or one ``lon lat alt`` when ``sep`` is None)."""
    lon, lat = [], []
    tuples = (text or "").split() if sep else [text or ""]
    for tup in tuples:
        parts = tup.split(sep) if sep else tup.split()
        if len(parts) >= 2:
            lon.append(_float(parts[0]))
            lat.append(_float(parts[1]))
    return lon, lat


def _gx_track_piece(trk: ET.Element, label: str) -> tuple[Piece, list[str]]:
    """The piece of a ``<gx:Track>``; a note when its times do not match its points."""
    lon, lat = [], []
    for c in _children(trk, "coord"):
        x, y = _coordinates(c.text, None)
        lon += x
        lat += y
    when = [(w.text or "").strip() for w in _children(trk, "when")]
    notes = []
    if when and len(when) != len(lat):
        notes.append(f"{quote_user_text(label, 40)}: {len(when)} times for {len(lat)} "
                     "points, so its times are not used.")
        when = []
    times = utc_times(when) if when else np.full(len(lat), np.datetime64("NaT"), "datetime64[ns]")
    return Piece(np.asarray(lat), np.asarray(lon), times, label), notes


def _line_piece(line: ET.Element, label: str) -> Piece:
    lon, lat = _coordinates(_text(line, "coordinates"), ",")
    return Piece(np.asarray(lat), np.asarray(lon),
                 np.full(len(lat), np.datetime64("NaT"), "datetime64[ns]"), label)


def _placemark_pieces(pm: ET.Element, label: str) -> tuple[list[Piece], list[str]]:
    """The pieces of one placemark: its gx:Tracks and LineStrings, in document order."""
    pieces, notes = [], []
    geoms = [e for e in pm.iter() if _local(e.tag) in ("Track", "LineString")]
    for k, g in enumerate(geoms):
        lab = label if len(geoms) == 1 else f"{label}, part {k + 1}"
        if _local(g.tag) == "Track":
            piece, more = _gx_track_piece(g, lab)
            notes += more
        else:
            piece = _line_piece(g, lab)
        pieces.append(piece)
    return pieces, notes


def _place(pm: ET.Element, k: int) -> NamedPlace | None:
    """A point placemark as a waypoint candidate (None when it holds no point)."""
    point = next(iter(_descendants(pm, "Point")), None)
    lon, lat = _coordinates(_text(point, "coordinates"), ",") if point is not None else ([], [])
    if not lat or not np.isfinite(lat[0]) or not np.isfinite(lon[0]):
        return None
    return NamedPlace(" ".join((_text(pm, "name") or "").split()) or f"place {k + 1}",
                      lat[0], lon[0])


def load_track_kml(source: Source, name: str = "uploaded track",
                   waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M) -> Track:
    """Read a KML file: its gx:Tracks and LineStrings as pieces, its point placemarks
    as landmark candidates (module docstring)."""
    root = _parse(read_bytes(source, "the KML file"), "KML", "kml")
    pieces, notes, places = [], [], []
    for k, pm in enumerate(_descendants(root, "Placemark")):
        label = " ".join((_text(pm, "name") or "").split()) or f"placemark {k + 1}"
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
    return track_from_pieces(pieces, name, "the KML file", notes, places, waypoint_max_m)
