"""A numeric time series: CSV ``time,value`` (times whole numbers or ISO datetimes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.file_formats import FORMAT_NAMES, format_by_content
from lmdk_core.data.plain_series_csv import plain_header, read_plain_series
from lmdk_core.data.tables import (
    Source,
    csv_separator,
    has_zone,
    leading_comment_lines,
    numeric_column,
    parse_times,
    read_bytes,
    read_csv_table,
    repeated_times_note,
)
from lmdk_core.foundation.errors import InputError

if TYPE_CHECKING:  # pandas is imported where a table is parsed: a plain file needs none
    import pandas as pd

__all__ = ["Series", "csv_columns", "guess_series_columns", "is_index_column",
           "load_series_csv"]

#: words that mark a time column in a header (``Time``, ``date``, ``timestamp``, ``year``…)
TIME_WORDS = ("time", "date", "timestamp", "datetime", "year", "day", "month", "hour")


@dataclass(frozen=True)
class Series:
    """Values ``values[t]`` at timestamps t = 0..T-1; ``time`` holds the original labels."""

    time: np.ndarray
    values: np.ndarray
    time_kind: str = "number"  # 'number' or 'datetime'
    name: str = "series"
    unit: str = ""
    #: what the loader did that the user should know (e.g. repeated times kept)
    notes: tuple[str, ...] = ()
    #: True when the file's times carried a zone (``Z``, ``+08:00``): they are held in UTC
    #: and written back with ``Z`` (docs/data-formats.md)
    utc: bool = False

    def __len__(self) -> int:
        return int(self.values.size)

    def frame(self) -> pd.DataFrame:
        """The series as a ``time,value`` table."""
        import pandas as pd

        return pd.DataFrame({"time": self.time, "value": self.values})


def load_series_csv(source: Source, name: str = "uploaded series", time_col: str = "time",
                    value_col: str = "value", time_format: str | None = None) -> Series:
    """Read and validate a CSV with a time and a value column (any order, names matched
    case-insensitively; ``time_col`` / ``value_col`` choose other columns, e.g.
    ``timestamp`` and ``kWh``). Times: whole numbers or ISO 8601 (``2024-03-01T08:00``,
    with or without a time-zone offset such as ``+01:00`` or ``Z``; offsets are converted
    to UTC, so a daylight-saving change leaves no duplicate hour), or any other text read
    with the strptime format ``time_format`` (``%m/%d/%Y %H:%M:%S``)."""
    data = read_bytes(source, "the CSV file")
    _check_not_markup(data)
    tcol, vcol = str(time_col).strip().lower(), str(value_col).strip().lower()
    if tcol == vcol:
        raise InputError(f"the time and value columns must differ (both are {time_col!r})")
    plain = None if time_format else read_plain_series(data, tcol, vcol)
    if plain is not None:  # the same numbers and times as below, without pandas
        note = repeated_times_note(plain.times)
        return Series(time=plain.times, values=plain.values, time_kind=plain.kind,
                      name=name, notes=(note,) if note else ())
    df = _read_series_table(data, tcol, vcol)
    values = numeric_column(df, vcol)
    times, kind = parse_times(df, tcol, time_format)
    note = repeated_times_note(times)
    utc = kind == "datetime" and df[tcol].dtype.kind == "O" and has_zone(df[tcol])
    return Series(time=times, values=values, time_kind=kind, name=name,
                  notes=(note,) if note else (), utc=utc)


def _check_not_markup(data: bytes) -> None:
    """InputError naming the format of a track file (GPX, FIT, TCX, KML, GeoJSON, PLT)
    or of another non-CSV file (XML, HTML, binary) uploaded as a series."""
    fmt = format_by_content(data)
    if fmt is None:
        return
    what = FORMAT_NAMES[fmt]
    if fmt in ("gpx", "fit", "tcx", "kml", "geojson", "plt", "gpkg"):
        raise InputError(f"this file is {what}, a track, not a CSV of time,value rows; "
                         "release a track with `lmdk geo-release` (or on the Map page)")
    raise InputError(f"this file is {what}, not a CSV of time,value rows (export the "
                     "series as CSV text)")


def _read_series_table(data: bytes, tcol: str, vcol: str) -> pd.DataFrame:
    """The time and value columns; a missing one's message says how to name others."""
    try:
        return read_csv_table(data, [tcol, vcol])
    except InputError as exc:
        if str(exc).startswith("the CSV needs the column"):
            raise InputError(f"{exc}; name the columns to use (CLI: --time-col, --value-col; "
                             "Timeline page: the column choices under the upload)") from None
        raise


def csv_columns(source: Source) -> list[str]:
    """The header names of a CSV (to offer them as time / value column choices); an
    empty list when there are none to offer (an empty, oversized or unreadable file)."""
    import io

    try:
        data = read_bytes(source, "the CSV file")
    except InputError:
        return []
    plain = plain_header(data)
    if plain is not None:  # the names pandas reads, without pandas
        return plain
    import pandas as pd

    try:
        head = pd.read_csv(io.BytesIO(data), nrows=0, skiprows=leading_comment_lines(data),
                           sep=csv_separator(data))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, UnicodeDecodeError):
        return []
    return [str(c).strip() for c in head.columns]


def is_index_column(name: str, values: pd.Series | None = None) -> bool:
    """True for a row-index column, never a time or a value: an empty header cell
    (pandas calls it ``Unnamed: 0``), a column named ``index``, or (with ``values``) a
    column of the row numbers 0, 1, 2, … or 1, 2, 3, … under a nameless or
    ``id``-like header."""
    n = str(name).strip().lower()
    if n == "" or n.startswith("unnamed:") or n in ("index", "level_0"):
        return True
    if values is not None and n in ("", "id", "row", "#", "no", "n"):
        return _is_row_numbering(values)
    return False


def _is_row_numbering(values: pd.Series) -> bool:
    """True for the row numbers 0, 1, 2, … or 1, 2, 3, …"""
    import pandas as pd

    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    if not v.size or not np.all(np.isfinite(v)):
        return False
    return bool(np.array_equal(v, np.arange(v.size) + v[0]) and v[0] in (0, 1))


def guess_series_columns(source: Source) -> tuple[str, str] | None:
    """The time and value columns to offer first for a CSV whose columns are not
    ``time,value`` (the Timeline's column choices): never a row-index column
    (:func:`is_index_column`). Time: the first column whose name has a time word
    (:data:`TIME_WORDS`), else the first column whose cells are dates; value: the first
    other column whose cells are numbers. None when no pair is found."""
    head = _head_rows(source)
    if head is None:
        return None
    cols = [c for c in head.columns if not is_index_column(c, head[c])]
    time = _guess_time_column(head, cols)
    value = next((c for c in cols if c != time and _mostly_numbers(head[c])), None)
    return _column_pair(time, value)


def _column_pair(time: object | None, value: object | None) -> tuple[str, str] | None:
    """The two column names as offered (stripped), or None when one is missing."""
    if time is None or value is None:
        return None
    return str(time).strip(), str(value).strip()


def _head_rows(source: Source) -> pd.DataFrame | None:
    """The first 200 rows of a CSV as text cells, or None when it cannot be read."""
    import io

    import pandas as pd

    try:
        data = read_bytes(source, "the CSV file")
        return pd.read_csv(io.BytesIO(data), nrows=200, dtype=str,
                           skiprows=leading_comment_lines(data), sep=csv_separator(data))
    except (InputError, pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            UnicodeDecodeError):
        return None


def _mostly(parsed: pd.Series) -> bool:
    """True when more than 90 % of the parsed cells are not NaN/NaT (False when none)."""
    return bool(parsed.notna().mean() > 0.9) if len(parsed) else False


def _mostly_numbers(cells: pd.Series) -> bool:
    """True when more than 90 % of the cells are numbers."""
    import pandas as pd

    return _mostly(pd.to_numeric(cells.str.strip(), errors="coerce"))


def _mostly_dates(cells: pd.Series) -> bool:
    """True when more than 90 % of the cells are ISO 8601 dates."""
    import pandas as pd

    return _mostly(pd.to_datetime(cells.str.strip(), errors="coerce", format="ISO8601",
                                  utc=True))


def _guess_time_column(head: pd.DataFrame, cols: list) -> object | None:
    """Of the columns named with a time word, the first whose cells are ISO dates or
    numbers (a non-ISO ``Date`` beside an ISO ``Datetime`` is not offered first), else
    the first so named; else the first of dates (not numbers)."""
    named = [c for c in cols if _has_time_word(c)]
    readable = next((c for c in named
                     if _mostly_dates(head[c]) or _mostly_numbers(head[c])), None)
    if readable is not None or named:
        return readable if readable is not None else named[0]
    return next((c for c in cols
                 if not _mostly_numbers(head[c]) and _mostly_dates(head[c])), None)


def _has_time_word(name: object) -> bool:
    """True when a column name contains a word of :data:`TIME_WORDS`."""
    return any(w in str(name).lower() for w in TIME_WORDS)
