"""TCX (Garmin Training Center) tracks read with the standard library's XML parser
(docs/data-formats.md): every ``<Track>`` (of an activity's laps, or of a course) is a
piece; its ``<Trackpoint>`` s with a ``<Position>`` (``LatitudeDegrees``,
``LongitudeDegrees``) and a ``<Time>`` are the points (trackpoints without a position are
left out and counted)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from lmdk_core.data.track import Track
from lmdk_core.data.track_building import Piece, ReadOptions, track_from_pieces, utc_times
from lmdk_core.data.xml_elements import children, descendants, number, parse_root, text_of
from lmdk_core.foundation.errors import InputError

__all__ = ["read_track"]


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a TCX file: its ``<Track>`` elements as pieces (module docstring)."""
    root = parse_root(data, "TCX", "TrainingCenterDatabase")
    tracks = descendants(root, "Track")
    pieces, without = [], 0
    for k, trk in enumerate(tracks):
        piece, n = _piece(trk, f"track {k + 1}")
        pieces.append(piece)
        without += n
    if not any(len(p) for p in pieces):
        raise InputError("the TCX file has no trackpoint with a position"
                         + (f" ({without:,} without one: an indoor activity?)" if without
                            else "") + ": there is no track to release")
    notes = ([f"{without:,} trackpoint{'s' if without != 1 else ''} without a position "
              "left out."] if without else [])
    return track_from_pieces(pieces, options, "the TCX file", notes)


def _piece(track: ET.Element, label: str) -> tuple[Piece, int]:
    """(the piece of one TCX ``<Track>``, its trackpoints without a position)."""
    lat, lon, when, without = [], [], [], 0
    for tp in children(track, "Trackpoint"):
        pos = next(iter(children(tp, "Position")), None)
        if pos is None:
            without += 1
            continue
        lat.append(number(text_of(pos, "LatitudeDegrees")))
        lon.append(number(text_of(pos, "LongitudeDegrees")))
        when.append(text_of(tp, "Time"))
    return Piece(np.asarray(lat), np.asarray(lon), utc_times(when), label), without
