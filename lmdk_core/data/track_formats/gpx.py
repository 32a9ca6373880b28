"""GPX tracks read with gpxpy (docs/data-formats.md).

Every track segment (``<trkseg>``) of every track (``<trk>``) is a separate *piece*
(``segment`` = 0, 1, …, in file order); the engine releases all points in file order,
but no line is drawn across a gap between pieces. Routes are used when there is no
track, one piece per route. Times: those in the file are used (UTC, GPX 1.1 schema),
missing ones interpolated inside their piece, implausible or backward times reported
(see :mod:`lmdk_core.data.track_times`); ``Track.notes`` says what was done. Waypoints
within ``waypoint_max_m`` (default 1 km) of the track are offered as candidate
landmarks, each attached to its nearest track point; farther ones are counted in the
notes.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.time_formats import checked_ns
from lmdk_core.data.track import Track
from lmdk_core.data.track_building import Piece, ReadOptions, clean_name, track_from_pieces
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:
    import gpxpy.gpx

__all__ = ["read_track"]


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a GPX file: its track segments (or routes) as separate pieces, times as
    found, and the waypoints within ``options.waypoint_max_m`` metres of the track as
    landmark candidates (module docstring)."""
    gpx = _parse(data)
    points, labels, notes = _pieces(gpx)
    if not points:
        raise _no_points_error(gpx)
    pieces = [Piece(np.asarray([p.latitude for p in pts], dtype=float),
                    np.asarray([p.longitude for p in pts], dtype=float),
                    checked_ns(np.array([_utc_naive(p.time) for p in pts],
                                        dtype="datetime64[us]"),
                               f"{label}: point"), label)
              for pts, label in zip(points, labels, strict=True)]
    return track_from_pieces(pieces, options, "the GPX file", notes, gpx.waypoints,
                             name_bad_point=False)


def _utc_naive(time: datetime.datetime | None) -> np.datetime64:
    """A GPX point's time as naive UTC, to the microsecond (NaT when it has none)."""
    if time is None:
        return np.datetime64("NaT", "us")
    if time.tzinfo is not None:
        time = time.astimezone(datetime.UTC).replace(tzinfo=None)
    return np.datetime64(time, "us")


def _track_pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str]]:
    """(pieces of points, their labels): the non-empty segments of every track."""
    pieces, labels = [], []
    for ti, trk in enumerate(gpx.tracks):
        tname = clean_name(trk.name) or f"track {ti + 1}"
        segs = [s for s in trk.segments if s.points]
        for si, seg in enumerate(segs):
            pieces.append(seg.points)
            labels.append(tname if len(segs) == 1 else f"{tname}, segment {si + 1}")
    return pieces, labels


def _route_pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str]]:
    """(pieces of points, their labels): the non-empty routes."""
    routes = [(ri, rte) for ri, rte in enumerate(gpx.routes) if rte.points]
    return ([rte.points for _, rte in routes],
            [clean_name(rte.name) or f"route {ri + 1}" for ri, rte in routes])


def _pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str], list[str]]:
    """(pieces of points, their labels, notes): the non-empty track segments, or the
    routes when the file has no track point."""
    pieces, labels = _track_pieces(gpx)
    if pieces:
        also = any(r.points for r in gpx.routes)
        return pieces, labels, ["The file also has routes; the tracks are used."] if also else []
    pieces, labels = _route_pieces(gpx)
    if not pieces:
        return pieces, labels, []
    return pieces, labels, ["The file has no track, so its route points are used (routes "
                            "rarely carry times)."]


def _not_gpx_reason(head: bytes) -> str | None:
    """Why the top of a file is not GPX (HTML, other XML, not XML), or None when it has
    a ``<gpx`` element."""
    if b"<gpx" in head:
        return None
    if b"<html" in head or b"<!doctype html" in head:
        return "it is an HTML page without a <gpx> element"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "it is XML without a <gpx> element"
    return "it is not XML at all"


def _parse(data: bytes) -> gpxpy.gpx.GPX:
    """The parsed GPX document; InputError when the bytes are not a GPX file (gpxpy is
    imported here, on the one path that reads GPX)."""
    import gpxpy
    import gpxpy.gpx

    what = _not_gpx_reason(data[:65536].lower())
    if what is not None:
        raise InputError(f"the file is not a GPX file: {what} (a download that failed, or "
                         "another format); export the track as GPX again")
    try:
        return gpxpy.parse(data.decode("utf-8-sig", errors="strict"))
    except UnicodeDecodeError:
        raise InputError("the file is not a GPX file (it is not UTF-8 text)") from None
    except gpxpy.gpx.GPXException as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "unreadable"
        raise InputError(f"the file is not a valid GPX file: {quote_user_text(msg, 160)}"
                         ) from None


def _no_points_error(gpx: gpxpy.gpx.GPX) -> InputError:
    """The error for a GPX file without track or route points (naming its waypoints)."""
    n = len(gpx.waypoints)
    if not n:
        return InputError("the GPX file has no track or route points")
    return InputError(
        f"the GPX file has no track or route points, only {n} waypoint"
        f"{'s' if n != 1 else ''} (single places, not a path); record or export a "
        "track (<trk>), or save the places as a route (<rte>) to release them in order")
