"""A trajectory: CSV ``time,lat,lon[,segment]`` (time optional), GPX (gpxpy) or a
GeoLife / OziExplorer ``.plt`` track (six header lines, then
``lat,lon,0,altitude_ft,days_since_1899-12-30,date,time`` rows in UTC).

GPX: every track segment (``<trkseg>``) of every track (``<trk>``) is a separate
*piece* (``segment`` = 0, 1, …, in file order); the engine releases all points in
file order, but no line is drawn across a gap between pieces. Routes are used when
there is no track, one piece per route. Times: those in the file are used, missing
ones interpolated inside their piece, implausible or backward times reported (see
:mod:`lmdk_core.data.track_times`); ``Track.notes`` says what was done. Waypoints
within ``waypoint_max_m`` (default 1 km) of the track are offered as candidate
landmarks, each attached to its nearest track point; farther ones are counted in the
notes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lmdk_core.data.file_formats import FORMAT_NAMES, format_by_content, format_by_name
from lmdk_core.data.tables import (
    MAX_ROWS,
    Source,
    has_zone,
    numeric_column,
    read_bytes,
    read_csv_table,
)
from lmdk_core.data.track_columns import (
    TrackColumns,
    find_track_columns,
    missing_coordinates_error,
)
from lmdk_core.data.track_times import iso_time_labels, parse_time_cells, resolve_track_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import check_positive
from lmdk_core.mechanisms.planar_laplace import check_coordinates

if TYPE_CHECKING:
    import gpxpy.gpx

__all__ = ["DEFAULT_WAYPOINT_MAX_M", "Track", "Waypoint", "load_track", "load_track_csv",
           "load_track_gpx", "load_track_plt"]

#: waypoints farther than this from every track point are not offered as landmarks
DEFAULT_WAYPOINT_MAX_M = 1000.0


@dataclass(frozen=True)
class Waypoint:
    """A GPX waypoint offered as a landmark candidate at track point ``index``."""

    name: str
    lat: float
    lon: float
    index: int
    distance_m: float


@dataclass(frozen=True)
class Track:
    """Points t = 0..T-1 with ``lat``/``lon`` in degrees; ``time`` may hold NaT/NaN.

    ``segment[t]`` is the piece (GPX track segment) of point t, non-decreasing from 0;
    ``segment_names`` one label per piece; ``notes`` what the loader did (pieces,
    missing times filled, far waypoints) and ``warnings`` what the user must check
    (implausible or backward times), both to show to the user.
    """

    lat: np.ndarray
    lon: np.ndarray
    time: np.ndarray
    time_kind: str = "datetime"  # 'datetime', 'number' or 'index'
    name: str = "track"
    waypoints: list[Waypoint] = field(default_factory=list)
    segment: np.ndarray | None = None
    segment_names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: True when the times are UTC by the format (GPX, GeoLife) or carried a zone in the
    #: file: written back with ``Z`` (docs/data-formats.md)
    utc: bool = False

    def __post_init__(self) -> None:
        n = int(np.asarray(self.lat).size)
        seg = (np.zeros(n, dtype=int) if self.segment is None
               else np.asarray(self.segment, dtype=int).reshape(-1))
        if seg.size != n:
            raise InputError(f"need one segment number per track point ({n}), got {seg.size}")
        object.__setattr__(self, "segment", seg)

    def __len__(self) -> int:
        return int(self.lat.size)

    @property
    def n_segments(self) -> int:
        """Number of separate pieces (1 for a single continuous track)."""
        return len(self.segment_ranges())

    def segment_ranges(self) -> list[tuple[int, int]]:
        """``(start, stop)`` index ranges of the pieces, in order (stop exclusive): a
        new piece starts wherever ``segment`` changes."""
        n = len(self)
        if n == 0:
            return []
        cuts = np.flatnonzero(np.diff(self.segment) != 0) + 1
        bounds = [0, *cuts.tolist(), n]
        return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def table(self) -> dict[str, list]:
        """The track as JSON-ready columns, read back by :func:`load_track_csv` (a
        configuration's embedded data): ``time`` (ISO 8601 or numbers, ``None`` where
        missing; absent for a track without times), ``lat``, ``lon`` and, for several
        pieces, ``segment``."""
        out: dict[str, list] = {}
        if self.time_kind != "index":
            out["time"] = self._time_cells()
        out["lat"] = np.asarray(self.lat, dtype=float).tolist()
        out["lon"] = np.asarray(self.lon, dtype=float).tolist()
        if self.n_segments > 1:
            out["segment"] = self.segment.tolist()
        return out

    def _time_cells(self) -> list:
        """The times as JSON values: ISO 8601 text (``Z`` when UTC) or numbers (whole
        ones as int), ``None`` where missing."""
        if self.time_kind == "datetime":
            return iso_time_labels(self.time, self.utc)
        return [None if not np.isfinite(x) else (int(x) if x == round(x) else x)
                for x in np.asarray(self.time, dtype=float).tolist()]

    def with_gaps(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per point, e.g. lat) with a NaN inserted between pieces, so
        that a line drawn through them (plotly) breaks at every gap."""
        v = np.asarray(values, dtype=float)
        cuts = [a for a, _ in self.segment_ranges()[1:]]
        return np.insert(v, cuts, np.nan) if cuts else v

    @property
    def n_missing_times(self) -> int:
        """Points that have no usable time (shown as '?'); all of them when the track
        has no times at all (``time_kind == 'index'`` counts as none missing)."""
        if self.time_kind == "datetime":
            return int(np.isnat(np.asarray(self.time, dtype="datetime64[ns]")).sum())
        if self.time_kind == "number":
            return int((~np.isfinite(np.asarray(self.time, dtype=float))).sum())
        return 0

    def points(self) -> np.ndarray:
        """``[lat, lon]`` rows."""
        return np.column_stack([self.lat, self.lon])

    def frame(self) -> pd.DataFrame:
        """The track as a ``time,lat,lon,segment`` table."""
        return pd.DataFrame({"time": self.time, "lat": self.lat, "lon": self.lon,
                             "segment": self.segment})


def _metres(d: float) -> str:
    """A distance as messages show it: metres, or whole km from 10 km on."""
    return f"{d / 1000:,.0f} km" if d >= 10_000 else f"{d:,.0f} m"


def _clean_name(name: str | None) -> str:
    """A GPX name as shown to the user: the XML text with its whitespace collapsed (a
    pretty-printed ``<name>\\n    BIG LOOP\\n  </name>`` is ``BIG LOOP``)."""
    return " ".join(str(name).split()) if name else ""


def _nearest_waypoints(lat: np.ndarray, lon: np.ndarray, wpts,
                       max_m: float) -> tuple[list[Waypoint], list[str]]:
    """Waypoints within ``max_m`` of the track (attached to the nearest point) and a
    note about the farther ones."""
    out, far = [], []
    for k, w in enumerate(wpts):
        d = distance_m(lat, lon, w.latitude, w.longitude)
        i = int(np.argmin(d))
        wp = Waypoint(_clean_name(w.name) or f"waypoint {k + 1}", float(w.latitude),
                      float(w.longitude), i,
                      float(d[i]))
        (out if wp.distance_m <= max_m else far).append(wp)
    return out, [_far_waypoints_note(far, max_m)] if far else []


def _far_waypoints_note(far: list[Waypoint], max_m: float) -> str:
    """The note counting the waypoints too far from the track, naming the nearest."""
    near = min(far, key=lambda w: w.distance_m)
    return (f"{len(far)} waypoint{'s are' if len(far) != 1 else ' is'} farther than "
            f"{_metres(max_m)} from the track and not offered as landmark candidates "
            f"(nearest of them: {quote_user_text(near.name, 40)}, "
            f"{_metres(near.distance_m)} away).")


def load_track_csv(source: Source, name: str = "uploaded track", time_col: str | None = None,
                   lat_col: str | None = None, lon_col: str | None = None,
                   time_format: str | None = None) -> Track:
    """Read and validate a CSV with a latitude and a longitude column and optionally a
    time (cells may be empty: see
    :func:`~lmdk_core.data.track_times.resolve_track_times`) and a ``segment`` column
    (whole numbers; a new piece wherever it changes). Columns are named by
    ``time_col``/``lat_col``/``lon_col`` or recognised by their headers
    (:func:`~lmdk_core.data.track_columns.find_track_columns`: ``time,lat,lon``,
    ``timestamp,latitude,longitude``, ``X;Y;t`` …); times other than ISO 8601 or
    numbers are read with the strptime format ``time_format``."""
    from lmdk_core.data.series import csv_columns

    data = read_bytes(source, "the CSV file")
    header = csv_columns(data)
    cols = find_track_columns(header, lat_col, lon_col, time_col)
    if cols is None:
        raise missing_coordinates_error(header)
    required, optional = cols.wanted()
    df = read_csv_table(data, required, optional).rename(columns=cols.renaming())
    lat, lon = _csv_coordinates(df, cols)
    segment = _csv_segments(df)
    if "time" not in df.columns:
        return Track(lat=lat, lon=lon, time=np.arange(lat.size, dtype=float),
                     time_kind="index", name=name, segment=segment)
    raw, kind = _csv_time_cells(df["time"], cols.time, time_format)
    res = resolve_track_times(raw, segment, kind)
    utc = res.kind == "datetime" and has_zone(df["time"])
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=name,
                 segment=segment, notes=res.notes, warnings=res.warnings, utc=utc)


def _csv_coordinates(df: pd.DataFrame, cols: TrackColumns) -> tuple[np.ndarray, np.ndarray]:
    """The checked latitudes and longitudes; messages name the file's line and own
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


def _csv_segments(df: pd.DataFrame) -> np.ndarray:
    """The piece of every row, 0, 1, … (a new piece wherever the ``segment`` column
    changes; one piece without the column)."""
    if "segment" not in df.columns:
        return np.zeros(len(df), dtype=int)
    seg = numeric_column(df, "segment")
    if np.any(seg != np.round(seg)):
        i = int(np.flatnonzero(seg != np.round(seg))[0])
        raise InputError(f"line {i + 2}: segment must be a whole number")
    return np.concatenate([[0], np.cumsum(np.diff(seg) != 0)]).astype(int)


def _csv_time_cells(cells: pd.Series, column: str | None = "time",
                    time_format: str | None = None) -> tuple[np.ndarray, str]:
    """:func:`~lmdk_core.data.track_times.parse_time_cells` (or the user's
    ``time_format``) with the file's line number in the message of a cell that cannot be
    read, and the date-order advice for ``dd/mm/yyyy``-like dates."""
    from lmdk_core.data.time_formats import date_order_advice, parse_formatted_times

    if time_format:
        text = cells.astype(str).str.strip()
        empty = (text == "") | text.str.lower().isin(["nan", "nat", "none", "null"])
        out = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
        keep = np.flatnonzero(~empty.to_numpy())
        out[keep] = parse_formatted_times(text.iloc[keep], time_format, column or "time")
        return out, "datetime"
    try:
        return parse_time_cells(cells)
    except ValueError as exc:
        i = int(exc.args[0])
        advice = date_order_advice(cells)
        raise InputError(f"line {i + 2}: {column or 'time'} "
                         f"{quote_user_text(str(cells.iloc[i]).strip())} is neither a "
                         "number nor an ISO date like 2024-03-01T08:00"
                         + (f"; {advice}" if advice else "")) from None


#: header lines of a GeoLife / OziExplorer track file (.plt) before the first point
PLT_HEADER_LINES = 6


def load_track_plt(source: Source, name: str = "uploaded track") -> Track:
    """Read a GeoLife / OziExplorer track (``.plt``): six header lines, then one point a
    line ``lat,lon,0,altitude_ft,days,date,time``. Times: the ``date`` and ``time``
    fields (GeoLife writes them in UTC; Zheng et al., *GeoLife GPS trajectory dataset
    user guide*, Microsoft Research 2011); a row whose date or time cannot be read
    falls back on the ``days`` field (days since 1899-12-30, the OziExplorer clock).
    Missing or backward times are handled like a CSV's (one piece)."""
    df = _plt_rows(read_bytes(source, "the PLT file"))
    if df.shape[1] < 2:
        raise InputError("the PLT file's rows need at least latitude,longitude")
    _check_point_count(len(df), "the PLT file")
    table = pd.DataFrame({"lat": df[0], "lon": df[1]})
    try:
        lat, lon = check_coordinates(numeric_column(table, "lat"), numeric_column(table, "lon"))
    except InputError as exc:  # line numbers of the file, not of the table after the header
        raise InputError(_shift_line(str(exc), PLT_HEADER_LINES)) from None
    segment = np.zeros(lat.size, dtype=int)
    res = resolve_track_times(_plt_times(df), segment, "datetime")
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=name,
                 segment=segment, notes=res.notes, warnings=res.warnings,
                 utc=res.kind == "datetime")  # GeoLife's times are GMT


def _plt_rows(data: bytes) -> pd.DataFrame:
    """The point rows of a ``.plt`` file as text cells; InputError when its first line
    is not a GeoLife / OziExplorer header or no row can be read."""
    import io

    lines = data.decode("utf-8-sig", errors="replace").splitlines()
    if len(lines) <= PLT_HEADER_LINES or not lines[0].strip().lower().startswith(
            ("geolife trajectory", "oziexplorer track point file")):
        raise InputError("the file is not a GeoLife/OziExplorer track (.plt): its first line "
                         "should read 'Geolife trajectory' or 'OziExplorer Track Point File', "
                         "followed by 5 more header lines and one lat,lon,... row per point")
    body = "\n".join(lines[PLT_HEADER_LINES:])
    try:
        return pd.read_csv(io.StringIO(body), header=None, dtype=str, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "unreadable"
        raise InputError(f"the PLT file has no readable points: {quote_user_text(msg, 160)}"
                         ) from None


def _plt_times(df: pd.DataFrame) -> np.ndarray:
    """The rows' UTC times: the ``date`` and ``time`` fields, else the ``days`` field
    (days since 1899-12-30); NaT where neither can be read."""
    raw = np.full(len(df), np.datetime64("NaT"), dtype="datetime64[ns]")
    if df.shape[1] >= 7:
        stamp = pd.to_datetime(df[5].str.strip() + " " + df[6].str.strip(), errors="coerce",
                               format="%Y-%m-%d %H:%M:%S")
        raw = stamp.to_numpy(dtype="datetime64[ns]")
    if df.shape[1] >= 5:
        days = pd.to_numeric(df[4], errors="coerce")
        from_days = (pd.Timestamp("1899-12-30") + pd.to_timedelta(days, unit="D")).dt.round("s")
        raw = np.where(np.isnat(raw), from_days.to_numpy(dtype="datetime64[ns]"), raw)
    return raw


def _check_point_count(n: int, what: str) -> None:
    """InputError when a track file has more than :data:`MAX_ROWS` points."""
    if n > MAX_ROWS:
        raise InputError(f"{what} has {n:,} points; the limit is {MAX_ROWS:,}")


def _shift_line(message: str, by: int) -> str:
    """``message`` with a leading ``line N:`` moved by ``by`` lines."""
    import re

    m = re.match(r"line (\d+):", message)
    return f"line {int(m.group(1)) + by}:{message[m.end():]}" if m else message


def _utc_naive(time) -> np.datetime64:
    """A GPX point's time as naive UTC (NaT when it has none)."""
    if time is None:
        return np.datetime64("NaT", "ns")
    ts = pd.Timestamp(time)
    if ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts.to_datetime64()


def _track_pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str]]:
    """(pieces of points, their labels): the non-empty segments of every track."""
    pieces, labels = [], []
    for ti, trk in enumerate(gpx.tracks):
        tname = _clean_name(trk.name) or f"track {ti + 1}"
        segs = [s for s in trk.segments if s.points]
        for si, seg in enumerate(segs):
            pieces.append(seg.points)
            labels.append(tname if len(segs) == 1 else f"{tname}, segment {si + 1}")
    return pieces, labels


def _route_pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str]]:
    """(pieces of points, their labels): the non-empty routes."""
    routes = [(ri, rte) for ri, rte in enumerate(gpx.routes) if rte.points]
    return ([rte.points for _, rte in routes],
            [_clean_name(rte.name) or f"route {ri + 1}" for ri, rte in routes])


def _gpx_pieces(gpx: gpxpy.gpx.GPX) -> tuple[list, list[str], list[str]]:
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


def _parse_gpx(data: bytes) -> gpxpy.gpx.GPX:
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


def _pieces_note(pieces: list, labels: list[str]) -> str:
    """The note listing a GPX file's separate pieces with their sizes."""
    return (f"{len(pieces)} separate pieces: "
            + "; ".join(f"{quote_user_text(lab, 40)} ({len(p):,} points)"
                        for lab, p in zip(labels, pieces, strict=True))
            + ". No line is drawn across the gaps between them.")


def _gpx_columns(pieces: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(lat, lon, UTC times with NaT, piece number) of every point of the pieces, in
    file order; InputError for too many points or invalid coordinates."""
    pts = [p for piece in pieces for p in piece]
    _check_point_count(len(pts), "the GPX file")
    segment = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    lat, lon = check_coordinates([p.latitude for p in pts], [p.longitude for p in pts])
    raw = np.array([_utc_naive(p.time) for p in pts], dtype="datetime64[ns]")
    return lat, lon, raw, segment


def load_track_gpx(source: Source, name: str = "uploaded track",
                   waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M) -> Track:
    """Read a GPX file: its track segments (or routes) as separate pieces, times as
    found (see the module docstring), and the waypoints within ``waypoint_max_m``
    metres of the track as landmark candidates."""
    gpx = _parse_gpx(read_bytes(source, "the GPX file"))
    pieces, labels, notes = _gpx_pieces(gpx)
    if not pieces:
        raise _no_points_error(gpx)
    lat, lon, raw, segment = _gpx_columns(pieces)
    res = resolve_track_times(raw, segment, "datetime", labels=labels)
    if len(pieces) > 1:
        notes.insert(0, _pieces_note(pieces, labels))
    wpts, wnotes = _nearest_waypoints(lat, lon, gpx.waypoints,
                                      check_positive(waypoint_max_m, "waypoint distance"))
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=name,
                 waypoints=wpts, segment=segment, segment_names=tuple(labels),
                 notes=tuple(notes) + res.notes + tuple(wnotes), warnings=res.warnings,
                 utc=res.kind == "datetime")  # GPX times are UTC (GPX 1.1 schema)


def load_track(source: Source, filename: str | None = None, name: str | None = None,
               waypoint_max_m: float = DEFAULT_WAYPOINT_MAX_M, time_col: str | None = None,
               lat_col: str | None = None, lon_col: str | None = None,
               time_format: str | None = None) -> Track:
    """Load a track from CSV, GPX, GeoLife PLT, FIT, TCX, KML or GeoJSON: the format the
    content shows (:func:`~lmdk_core.data.file_formats.format_by_content`), else the one
    the file name's extension names, else CSV; ``time_col``/``lat_col``/``lon_col`` name
    a CSV's columns (see :func:`load_track_csv`). Any other format is refused with a
    message naming it (docs/data-formats.md)."""
    label = name or (filename or "uploaded track")
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else ""
    by_name = format_by_name(filename or str(path))
    data = read_bytes(source, "the track file")
    fmt = format_by_content(data) or by_name or "csv"
    if (fmt == "binary" and by_name == "fit") or (fmt in ("xml", "html")
                                                  and by_name in ("gpx", "tcx", "kml")):
        fmt = by_name  # damaged, or another XML under the name: its reader says so
    reader = _reader(fmt)
    if reader is None:
        raise _unsupported(fmt)
    if fmt in ("gpx", "kml"):
        return reader(data, label, waypoint_max_m)
    if fmt == "csv":
        return load_track_csv(data, label, time_col=time_col, lat_col=lat_col,
                              lon_col=lon_col, time_format=time_format)
    return reader(data, label)


def _unsupported(fmt: str) -> InputError:
    """The refusal of a file that is no track format the explorer reads."""
    what = FORMAT_NAMES.get(fmt, "a file of another format")
    how = {"gpkg": ": export the layer as GPX, GeoJSON or CSV (QGIS: Export > Save "
                   "Features As…; GDAL: ogr2ogr -f GPX out.gpx in.gpkg)",
           "zip": ": unzip it first (a .kmz holds a .kml)",
           "html": " (a download that failed?): download the track file itself"}
    return InputError(f"the file is {what}, which is not a track format the explorer reads"
                      + how.get(fmt, ": use CSV, GPX, FIT, TCX, KML, GeoJSON or GeoLife PLT"))


def _reader(fmt: str):
    """The reader of a track format (imported on first use: fitdecode only for FIT)."""
    import importlib

    where = {"fit": "track_fit", "tcx": "track_markup", "kml": "track_markup",
             "geojson": "track_geojson"}.get(fmt)
    if where is None:
        return {"gpx": load_track_gpx, "xml": load_track_gpx, "plt": load_track_plt,
                "csv": load_track_csv}.get(fmt)
    return getattr(importlib.import_module(f"lmdk_core.data.{where}"), f"load_track_{fmt}")
