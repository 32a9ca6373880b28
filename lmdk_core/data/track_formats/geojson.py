"""GeoJSON tracks (RFC 7946: longitude, latitude in WGS 84) read with the standard
library's JSON parser into the one track model (docs/data-formats.md):

* every ``LineString``, every line of a ``MultiLineString`` and every ``MultiPoint`` is a
  piece, in file order; its times, where present, from the feature's properties:
  ``coordTimes`` (GPX/KML converters such as togeojson; one list per line of a
  MultiLineString), ``times``, ``time`` or ``timestamps`` as a list, or
  ``coordinateProperties.times`` (ISO 8601 or Unix seconds/milliseconds);
* ``Point`` features are one piece in file order (a GPX exported point by point, e.g.
  by GDAL), each timed by its ``time``/``timestamp``/``datetime``/``date`` property.
"""

from __future__ import annotations

import json
import re

import numpy as np

from lmdk_core.data.strict_json import loads_strict
from lmdk_core.data.track import Track
from lmdk_core.data.track_building import Piece, ReadOptions, track_from_pieces, utc_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["LIST_TIME_KEYS", "POINT_TIME_KEYS", "read_track"]

#: properties holding one time per coordinate of a line
LIST_TIME_KEYS = ("coordTimes", "times", "time", "timestamps")
#: properties holding the time of a Point feature
POINT_TIME_KEYS = ("time", "timestamp", "datetime", "date", "t")


def _document(data: bytes) -> dict:
    """The parsed JSON object; InputError naming the format when it is not one."""
    try:
        doc = loads_strict(data.decode("utf-8-sig"), "the GeoJSON file")
    except UnicodeDecodeError:
        raise InputError("the GeoJSON file is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"the GeoJSON file is not valid JSON (line {exc.lineno}: "
                         f"{exc.msg}); it may be cut short: export it again") from None
    if not isinstance(doc, dict) or "type" not in doc:
        raise InputError("the file is JSON but not GeoJSON (no \"type\" member at the top)")
    return doc


def _features(doc: dict) -> list[dict]:
    """The features of a FeatureCollection, a Feature or a bare geometry."""
    kind = doc.get("type")
    if kind == "FeatureCollection":
        feats = doc.get("features")
        if not isinstance(feats, list):
            raise InputError("the GeoJSON FeatureCollection has no \"features\" list")
        return [f for f in feats if isinstance(f, dict)]
    if kind == "Feature":
        return [doc]
    return [{"type": "Feature", "geometry": doc, "properties": {}}]


def _check_crs(doc: dict) -> None:
    """InputError for a (pre-RFC 7946) ``crs`` other than WGS 84 longitude/latitude."""
    name = str(((doc.get("crs") or {}).get("properties") or {}).get("name", ""))
    if name and not any(k in name.upper() for k in ("CRS84", "4326")):
        raise InputError(f"the GeoJSON coordinates are in {quote_user_text(name, 60)}, not "
                         "WGS 84 longitude/latitude: export them as EPSG:4326")


def _line_times(props: dict, n: int, part: int | None) -> list:
    """The times of one line (``part`` of a MultiLineString) from the properties, or []."""
    sources = [props.get(k) for k in LIST_TIME_KEYS]
    sources.append((props.get("coordinateProperties") or {}).get("times"))
    for value in sources:
        if part is not None and isinstance(value, list) and len(value) > part \
                and isinstance(value[part], list):
            value = value[part]
        if isinstance(value, list) and len(value) == n and not any(
                isinstance(v, list) for v in value):
            return value
    return []


def _piece(coords: list, times: list, label: str) -> Piece:
    """A piece of ``[lon, lat, …]`` positions (InputError for a malformed one)."""
    try:
        xy = np.array([[float(c[0]), float(c[1])] for c in coords], dtype=float).reshape(-1, 2)
    except (TypeError, ValueError, IndexError):
        raise InputError(f"the GeoJSON {label} has a position that is not "
                         "[longitude, latitude]") from None
    when = utc_times(times) if times else np.full(len(xy), np.datetime64("NaT"),
                                                   "datetime64[ns]")
    return Piece(xy[:, 1], xy[:, 0], when, label)


def _feature_pieces(feat: dict, k: int) -> list[Piece]:
    """The pieces of one line feature (empty for points and other geometries)."""
    geom = feat.get("geometry") or {}
    props = feat.get("properties") or {}
    label = " ".join(str(props.get("name") or "").split()) or f"feature {k + 1}"
    coords = geom.get("coordinates") or []
    if geom.get("type") in ("LineString", "MultiPoint"):
        return [_piece(coords, _line_times(props, len(coords), None), label)]
    if geom.get("type") == "MultiLineString":
        return [_piece(line, _line_times(props, len(line), i),
                       label if len(coords) == 1 else f"{label}, line {i + 1}")
                for i, line in enumerate(coords)]
    return []


def _point_piece(points: list[dict]) -> Piece:
    """The Point features, in file order, as one piece timed by their properties."""
    coords, when = [], []
    for f in points:
        coords.append(f["geometry"].get("coordinates") or [])
        props = f.get("properties") or {}
        when.append(next((props[k] for k in POINT_TIME_KEYS if props.get(k) is not None),
                         None))
    return _piece(coords, when if any(w is not None for w in when) else [], "points")


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a GeoJSON file: its lines (and multipoints) as pieces, else its Point
    features as one piece (module docstring)."""
    doc = _document(data)
    _check_crs(doc)
    feats = _features(doc)
    pieces = [p for k, f in enumerate(feats) for p in _feature_pieces(f, k)]
    points = [f for f in feats if (f.get("geometry") or {}).get("type") == "Point"]
    notes = []
    if points and pieces:
        notes.append(f"The file also has {len(points):,} Point features; its lines are used.")
    elif points:
        pieces = [_point_piece(points)]
    if not any(len(p) for p in pieces):
        kinds = sorted({str((f.get("geometry") or {}).get("type")) for f in feats})
        raise InputError("the GeoJSON file has no LineString, MultiLineString, MultiPoint "
                         "or Point features" + (f" (it has {', '.join(kinds)})" if kinds
                                                else " (it has no features)")
                         + ": there is no track to release")
    return track_from_pieces(pieces, options, "the GeoJSON file", notes, utc=_zoned(doc))


def _zoned(doc: dict) -> bool:
    """True unless the file's text times carry no zone (they then stay without one, as
    a CSV's do): numbers (Unix time) and ``Z``/offset times are UTC."""
    text = json.dumps(doc.get("features", doc))[:1_000_000]
    return not re.search(r'"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.]+"', text)
