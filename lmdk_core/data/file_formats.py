"""What kind of file an upload is, from its first bytes (and, failing that, its name):
so that every loader reads the format it was given and every refusal names the format it
saw (docs/data-formats.md)."""

from __future__ import annotations

__all__ = ["FILE_WORDS", "FORMAT_NAMES", "format_by_content", "format_by_name"]

#: how messages name each format
FORMAT_NAMES = {
    "csv": "a CSV table",
    "gpx": "a GPX file",
    "plt": "a GeoLife/OziExplorer track (.plt)",
    "fit": "a FIT activity file (Garmin, Wahoo and other bike computers and watches)",
    "tcx": "a TCX file (Garmin Training Center)",
    "kml": "a KML file (Google Earth)",
    "geojson": "a GeoJSON file",
    "gpkg": "a GeoPackage (.gpkg, an SQLite database)",
    "sqlite": "an SQLite database",
    "zip": "a ZIP archive (e.g. a .kmz or a .xlsx spreadsheet)",
    "html": "an HTML page",
    "xml": "an XML file",
    "binary": "a binary file",
}

#: how messages name a file of each track format read as that format (size, emptiness)
FILE_WORDS = {"csv": "the CSV file", "plt": "the PLT file", "gpx": "the GPX file",
              "fit": "the FIT file", "tcx": "the TCX file", "kml": "the KML file",
              "geojson": "the GeoJSON file"}

#: file-name endings and the format they name
_EXTENSIONS = {".gpx": "gpx", ".plt": "plt", ".csv": "csv", ".txt": "csv", ".tsv": "csv",
               ".fit": "fit", ".tcx": "tcx", ".kml": "kml", ".geojson": "geojson",
               ".json": "geojson", ".gpkg": "gpkg"}


def format_by_name(filename: str | None) -> str | None:
    """The format a file name's extension names (case-insensitive), or None.

    >>> format_by_name("Morning_Ride.FIT")
    'fit'
    """
    fname = (filename or "").lower()
    return next((f for ext, f in _EXTENSIONS.items() if fname.endswith(ext)), None)


def _xml_format(head: bytes) -> str:
    """The XML vocabulary of a file's top: gpx, tcx, kml, html or plain xml."""
    low = head.lower()
    if b"<gpx" in low:
        return "gpx"
    if b"<trainingcenterdatabase" in low:
        return "tcx"
    if b"<kml" in low:
        return "kml"
    if b"<html" in low or b"<!doctype html" in low:
        return "html"
    return "xml"


def format_by_content(data: bytes) -> str | None:
    """The format the first bytes show, or None for text that may be a table: 'fit'
    (``.FIT`` at byte 8 of the header), 'gpkg'/'sqlite', 'zip', 'plt' (a GeoLife
    header), an XML vocabulary (:func:`_xml_format`), 'geojson' (a JSON object),
    'binary' (not UTF-8 text).

    >>> format_by_content(b'{"type": "FeatureCollection", "features": []}')
    'geojson'
    >>> format_by_content(b"time,lat,lon\\n") is None
    True
    """
    if len(data) >= 12 and data[8:12] == b".FIT":
        return "fit"
    if data.startswith(b"SQLite format 3\x00"):
        return "gpkg" if data[68:72] in (b"GPKG", b"GP10", b"GP11") else "sqlite"
    if data.startswith(b"PK\x03\x04"):
        return "zip"
    top = data[:65536].lstrip(b"\xef\xbb\xbf \t\r\n")
    if top[:40].lower().startswith((b"geolife trajectory", b"oziexplorer track point file")):
        return "plt"
    if top.startswith(b"<"):
        return _xml_format(top)
    if top.startswith(b"{"):
        return "geojson"
    try:
        data[:65536].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 65530:  # not a character cut at the end of the sample
            return "binary"
    return None
