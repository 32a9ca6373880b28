"""Track CSV: a latitude and a longitude column, optionally a time and a ``segment``
column — ``time,lat,lon[,segment]``, ``timestamp,latitude,longitude``, ``X;Y;…;t`` are
recognised (:func:`~lmdk_core.data.track_columns.find_track_columns`), other names are
given by the user (docs/data-formats.md).

Time cells may be empty (see :func:`~lmdk_core.data.track_times.resolve_track_times`);
times other than ISO 8601 or numbers are read with the user's strptime format. A new
piece starts wherever the ``segment`` column (whole numbers) changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.series import csv_columns
from lmdk_core.data.tables import has_zone, numeric_column, read_csv_table
from lmdk_core.data.time_formats import date_order_advice, parse_formatted_times
from lmdk_core.data.track import Track
from lmdk_core.data.track_building import ReadOptions, column_coordinates
from lmdk_core.data.track_columns import find_track_columns, missing_coordinates_error
from lmdk_core.data.track_times import parse_time_cells, resolve_track_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = ["read_track"]


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read and validate a track CSV (module docstring): its columns named by
    ``options.time_col``/``lat_col``/``lon_col`` or recognised by their headers, its
    times read with ``options.time_format`` when given."""
    header = csv_columns(data)
    cols = find_track_columns(header, options.lat_col, options.lon_col, options.time_col)
    if cols is None:
        raise missing_coordinates_error(header)
    required, optional = cols.wanted()
    df = read_csv_table(data, required, optional).rename(columns=cols.renaming())
    lat, lon = column_coordinates(df, cols)
    segment = _segments(df)
    if "time" not in df.columns:
        return Track(lat=lat, lon=lon, time=np.arange(lat.size, dtype=float),
                     time_kind="index", name=options.name, segment=segment)
    raw, kind = _time_cells(df["time"], cols.time, options.time_format)
    res = resolve_track_times(raw, segment, kind)
    utc = res.kind == "datetime" and has_zone(df["time"])
    return Track(lat=lat, lon=lon, time=res.time, time_kind=res.kind, name=options.name,
                 segment=segment, notes=res.notes, warnings=res.warnings, utc=utc)


def _segments(df: pd.DataFrame) -> np.ndarray:
    """The piece of every row, 0, 1, … (a new piece wherever the ``segment`` column
    changes; one piece without the column)."""
    if "segment" not in df.columns:
        return np.zeros(len(df), dtype=int)
    seg = numeric_column(df, "segment")
    if np.any(seg != np.round(seg)):
        i = int(np.flatnonzero(seg != np.round(seg))[0])
        raise InputError(f"line {i + 2}: segment must be a whole number")
    return np.concatenate([[0], np.cumsum(np.diff(seg) != 0)]).astype(int)


def _time_cells(cells: pd.Series, column: str | None = "time",
                time_format: str | None = None) -> tuple[np.ndarray, str]:
    """:func:`~lmdk_core.data.track_times.parse_time_cells` (or the user's
    ``time_format``) with the file's line number in the message of a cell that cannot be
    read, and the date-order advice for ``dd/mm/yyyy``-like dates."""
    if time_format:
        text = cells.astype(str).str.strip()
        empty = (text == "") | text.str.lower().isin(["nan", "nat", "none", "null"])
        out = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
        keep = np.flatnonzero(~empty.to_numpy())
        out[keep] = parse_formatted_times(text.iloc[keep], time_format, column or "time")
        return out, "datetime"
    try:
        return parse_time_cells(cells)
    except InputError:  # a time this tool cannot hold (track_times.checked_ns)
        raise
    except ValueError as exc:
        i = int(exc.args[0])
        advice = date_order_advice(cells)
        raise InputError(f"line {i + 2}: {column or 'time'} "
                         f"{quote_user_text(str(cells.iloc[i]).strip())} is neither a "
                         "number nor an ISO date like 2024-03-01T08:00"
                         + (f"; {advice}" if advice else "")) from None
