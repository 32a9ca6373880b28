"""A numeric time series: CSV ``time,value`` (times whole numbers or ISO datetimes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.data.tables import (
    Source,
    csv_separator,
    leading_comment_lines,
    numeric_column,
    parse_times,
    read_bytes,
    read_csv_table,
)
from lmdk_core.validation import InputError

__all__ = ["Series", "csv_columns", "load_series_csv"]


@dataclass(frozen=True)
class Series:
    """Values ``values[t]`` at timestamps t = 0..T-1; ``time`` holds the original labels."""

    time: np.ndarray
    values: np.ndarray
    time_kind: str = "number"  # 'number' or 'datetime'
    name: str = "series"
    unit: str = ""

    def __len__(self) -> int:
        return int(self.values.size)

    def frame(self) -> pd.DataFrame:
        """The series as a ``time,value`` table."""
        return pd.DataFrame({"time": self.time, "value": self.values})


def load_series_csv(source: Source, name: str = "uploaded series", time_col: str = "time",
                    value_col: str = "value") -> Series:
    """Read and validate a CSV with a time and a value column (any order, names matched
    case-insensitively; ``time_col`` / ``value_col`` choose other columns, e.g.
    ``timestamp`` and ``kWh``). Times: whole numbers or ISO 8601 (``2024-03-01T08:00``,
    with or without a time-zone offset such as ``+01:00`` or ``Z``; offsets are converted
    to UTC, so a daylight-saving change leaves no duplicate hour)."""
    data = read_bytes(source, "the CSV file")
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        what = "a GPX track" if b"<gpx" in data[:65536].lower() else "XML or HTML"
        raise InputError(f"this file is {what}, not a CSV of time,value rows; release a track "
                         "with `lmdk geo-release` (or on the Map page)")
    tcol, vcol = str(time_col).strip().lower(), str(value_col).strip().lower()
    if tcol == vcol:
        raise InputError(f"the time and value columns must differ (both are {time_col!r})")
    try:
        df = read_csv_table(data, [tcol, vcol])
    except InputError as exc:
        if str(exc).startswith("the CSV needs the column"):
            raise InputError(f"{exc}; name the columns to use (CLI: --time-col, --value-col; "
                             "Timeline page: the column choices under the upload)") from None
        raise
    values = numeric_column(df, vcol)
    times, kind = parse_times(df, tcol)
    return Series(time=times, values=values, time_kind=kind, name=name)


def csv_columns(source: Source) -> list[str]:
    """The header names of a CSV (to offer them as time / value column choices); an
    empty list when there are none to offer (an empty, oversized or unreadable file)."""
    import io

    try:
        data = read_bytes(source, "the CSV file")
    except InputError:
        return []
    try:
        head = pd.read_csv(io.BytesIO(data), nrows=0, skiprows=leading_comment_lines(data),
                           sep=csv_separator(data))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, UnicodeDecodeError):
        return []
    return [str(c).strip() for c in head.columns]
