"""GeoLife / OziExplorer tracks (``.plt``): six header lines, then one point a line
``lat,lon,0,altitude_ft,days_since_1899-12-30,date,time`` in UTC (Zheng et al.,
*GeoLife GPS trajectory dataset user guide*, Microsoft Research 2011;
docs/data-formats.md)."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.tables import numeric_column
from lmdk_core.data.track import Track
from lmdk_core.data.track_building import ReadOptions, check_point_count
from lmdk_core.data.track_times import resolve_track_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.mechanisms.planar_laplace import check_coordinates

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = ["PLT_HEADER_LINES", "read_track"]

#: header lines of a GeoLife / OziExplorer track file (.plt) before the first point
PLT_HEADER_LINES = 6


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a GeoLife / OziExplorer track: times from the ``date`` and ``time`` fields
    (GeoLife writes them in UTC); a row whose date or time cannot be read falls back on
    the ``days`` field (days since 1899-12-30, the OziExplorer clock). Missing or
    backward times are handled like a CSV's (one piece)."""
    import pandas as pd

    df = _rows(data)
    if df.shape[1] < 2:
        raise InputError("the PLT file's rows need at least latitude,longitude")
    check_point_count(len(df), "the PLT file")
    table = pd.DataFrame({"lat": df[0], "lon": df[1]})
    try:
        lat, lon = check_coordinates(numeric_column(table, "lat"), numeric_column(table, "lon"))
    except InputError as exc:  # line numbers of the file, not of the table after the header
        raise InputError(_shift_line(str(exc), PLT_HEADER_LINES)) from None
    segment = np.zeros(lat.size, dtype=int)
    res = resolve_track_times(_times(df), segment, "datetime")
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=options.name,
                 segment=segment, notes=res.notes, warnings=res.warnings,
                 utc=res.kind == "datetime")  # GeoLife's times are GMT


def _rows(data: bytes) -> pd.DataFrame:
    """The point rows of a ``.plt`` file as text cells; InputError when its first line
    is not a GeoLife / OziExplorer header or no row can be read."""
    import pandas as pd

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


def _times(df: pd.DataFrame) -> np.ndarray:
    """The rows' UTC times: the ``date`` and ``time`` fields, else the ``days`` field
    (days since 1899-12-30); NaT where neither can be read."""
    import pandas as pd

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


def _shift_line(message: str, by: int) -> str:
    """``message`` with a leading ``line N:`` moved by ``by`` lines."""
    m = re.match(r"line (\d+):", message)
    return f"line {int(m.group(1)) + by}:{message[m.end():]}" if m else message
