"""Reading an uploaded CSV table with clear messages for every way it can be wrong.

Shared by the series and track loaders: size limits, empty files, missing columns,
text or missing values in numeric columns, and the time column (whole numbers,
decimals or ISO-8601 datetimes, strictly increasing).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, NamedTuple

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:  # pandas is imported where a table is parsed: `lmdk loss` never needs it
    import pandas as pd

__all__ = ["MAX_BYTES", "MAX_ROWS", "SEPARATORS", "ParsedTimes", "Source", "csv_separator",
           "leading_comment_lines", "read_bytes", "read_csv_table", "numeric_column",
           "has_zone", "parse_times", "repeated_times_note"]

#: column separators recognised in an uploaded table, in order of preference on a tie
SEPARATORS = (",", ";", "\t", "|")

#: largest upload accepted (bytes) and largest number of rows; see docs/inputs.md.
MAX_BYTES = 50 * 1024 * 1024
MAX_ROWS = 200_000

Source = str | os.PathLike | bytes | IO


def _path_bytes(source: str | os.PathLike) -> bytes:
    """The first ``MAX_BYTES + 1`` bytes of a file; InputError when it is missing or a
    folder."""
    path = os.fspath(source)
    if not os.path.exists(path):
        raise InputError(f"no such file: {quote_user_text(path, 200)}")
    if os.path.isdir(path):
        raise InputError(f"{quote_user_text(path, 200)} is a folder, not a file")
    with open(path, "rb") as fh:
        return fh.read(MAX_BYTES + 1)


def _source_bytes(source: Source) -> bytes:
    """The bytes of a bytes object, a path or a file-like object (text encoded UTF-8)."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        return _path_bytes(source)
    data = source.read()
    return data.encode("utf-8") if isinstance(data, str) else data


def read_bytes(source: Source, what: str = "the file") -> bytes:
    """The raw bytes of a path, a bytes object or a file-like object, size-checked."""
    data = _source_bytes(source)
    if len(data) > MAX_BYTES:
        raise InputError(f"{what} is larger than {MAX_BYTES // 2**20} MB; use a smaller extract")
    if not data.strip():
        raise InputError(f"{what} is empty")
    return data


def leading_comment_lines(data: bytes) -> int:
    """How many lines at the top of ``data`` start with ``#`` (the header of the
    explorer's release and audit files); the table starts after them."""
    limit = 4096  # only the top of the file is split into lines (not all of it)
    while True:
        whole = limit >= len(data)
        lines = data[:limit].splitlines()
        n = 0
        for line in lines:
            if not line.lstrip(b"\xef\xbb\xbf \t").startswith(b"#"):
                return n
            n += 1
        if whole:
            return n
        limit *= 8  # every line so far is a comment: look further


def csv_separator(data: bytes) -> str:
    """The column separator of a delimited text table: ``,`` (the default), ``;`` (spreadsheets
    set to European conventions), tab or ``|``.

    Rule: read the header and up to 49 further lines (after the leading ``#`` lines) with
    each candidate, honouring quotes; a candidate qualifies when it splits the header
    into at least two fields and every line into the same number of fields as the header;
    of those, the one giving the most fields wins, ties going to the earlier of
    :data:`SEPARATORS`. Without a qualifying candidate the table is read with ``,`` (and
    the usual messages explain what is wrong)."""
    lines = _sample_lines(data)
    if not lines:
        return ","
    best, best_n = ",", 1
    for sep in SEPARATORS:
        n = _consistent_fields(lines, sep)
        if n > best_n:
            best, best_n = sep, n
    return best


def _sample_lines(data: bytes) -> list[str]:
    """The header and up to 49 further non-blank lines after the leading ``#`` lines,
    from the first 256 KiB (a last line cut there is left out)."""
    skip = leading_comment_lines(data)
    head = data[:262144].decode("utf-8-sig", errors="replace").splitlines()[skip:]
    lines = [ln for ln in head[:50] if ln.strip()]
    if len(head) > 1 and len(data) > 262144:
        lines = lines[:-1]  # the last line read may be cut in the middle
    return lines


def _consistent_fields(lines: list[str], sep: str) -> int:
    """How many fields ``sep`` splits every line into (quotes honoured), or 0 when the
    lines differ or the header has fewer than two."""
    import csv

    rows = list(csv.reader(lines, delimiter=sep))
    n = len(rows[0])
    return n if n >= 2 and all(len(r) == n for r in rows) else 0


def _read_typed(data: bytes, required: Sequence[str],
                optional: Sequence[str]) -> pd.DataFrame | None:
    """The common, well-formed case at ``pd.read_csv`` speed, or None.

    One parse with pandas' type inference (no NA detection, so
    an empty cell keeps its column as text). Accepted only when every wanted column is
    present and is int64, finite float64 or text, with 1..MAX_ROWS rows; anything else
    (a parse error, booleans, huge integers, NaN/inf, a missing column) returns None and
    the caller's text read produces the precise message. Numeric columns stay numeric
    (:func:`numeric_column`, :func:`parse_times` use them directly); text columns hold
    the same strings as the text read.
    """
    df = _parse_typed(data)
    if df is None or not 0 < len(df) <= MAX_ROWS:
        return None
    names = _column_names(df)
    if len(names) != len(df.columns) or any(c not in names for c in required):
        return None
    keep = _kept_columns(names, required, optional)
    if not all(_typed_column_ok(df[names[c]]) for c in keep):
        return None
    return _renamed(df, names, keep)


def _parse_typed(data: bytes) -> pd.DataFrame | None:
    """One ``pd.read_csv`` with type inference and no NA detection, or None when it fails."""
    import pandas as pd

    try:
        return pd.read_csv(io.BytesIO(data), keep_default_na=False, na_filter=False,
                           skipinitialspace=True, encoding_errors="strict",
                           skiprows=leading_comment_lines(data), sep=csv_separator(data))
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            OverflowError):
        return None


def _typed_column_ok(col: pd.Series) -> bool:
    """True for a column the fast read keeps: int64, finite float64, or text."""
    kind = col.dtype.kind
    if kind == "f":
        return bool(np.isfinite(col.to_numpy()).all())
    if kind == "O":
        return all(isinstance(v, str) for v in col.head(1))
    return kind == "i" and col.dtype.itemsize == 8


def _column_names(df: pd.DataFrame) -> dict[str, object]:
    """The frame's columns by their stripped lower-case names."""
    return {str(c).strip().lower(): c for c in df.columns}


def _kept_columns(names: dict[str, object], required: Sequence[str],
                  optional: Sequence[str]) -> list[str]:
    """The required columns and the optional ones present, in that order."""
    return [c for c in list(required) + list(optional) if c in names]


def _renamed(df: pd.DataFrame, names: dict[str, object], keep: list[str]) -> pd.DataFrame:
    """A copy of the ``keep`` columns under their canonical lower-case names."""
    out = df[[names[c] for c in keep]].copy()
    out.columns = keep
    return out


def read_csv_table(source: Source, required: Sequence[str],
                   optional: Sequence[str] = ()) -> pd.DataFrame:
    """Read a CSV with a header row; column names are matched case-insensitively; the
    separator (``,`` ``;`` tab ``|``) is detected by :func:`csv_separator`.

    Returns a frame with the required (and present optional) columns renamed to their
    canonical lower-case names: int64 / float64 where every cell is a number, else
    strings (converted by the caller with :func:`numeric_column` / :func:`parse_times`).
    """
    data = read_bytes(source, "the CSV file")
    fast = _read_typed(data, required, optional)
    if fast is not None:
        return fast
    df = _read_text(data)
    names = _column_names(df)
    _check_required(df, names, required)
    _check_row_count(len(df))
    return _renamed(df, names, _kept_columns(names, required, optional))


def _read_text(data: bytes) -> pd.DataFrame:
    """Every cell as text; InputError when the bytes are not a readable UTF-8 CSV."""
    import pandas as pd

    try:
        return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False,
                           skipinitialspace=True, encoding_errors="strict",
                           skiprows=leading_comment_lines(data), sep=csv_separator(data))
    except UnicodeDecodeError:
        raise InputError("the file is not a text CSV (it is not UTF-8 text)") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        raise InputError(f"the file is not a readable CSV: {quote_user_text(first, 160)}"
                         ) from None


def _check_required(df: pd.DataFrame, names: dict[str, object], required: Sequence[str]) -> None:
    """InputError naming the required columns the header lacks and the ones it has."""
    missing = [c for c in required if c not in names]
    if not missing:
        return
    have = ", ".join(quote_user_text(c) for c in list(df.columns)[:10]) or "none"
    if len(df.columns) > 10:
        have += f" and {len(df.columns) - 10} more"
    raise InputError(
        f"the CSV needs the column{'s' if len(missing) > 1 else ''} "
        f"{', '.join(missing)} (header row: {', '.join(required)}); it has: {have}"
    )


def _check_row_count(n: int) -> None:
    """InputError for a table without data rows or with more than :data:`MAX_ROWS`."""
    if n == 0:
        raise InputError("the CSV has a header but no data rows")
    if n > MAX_ROWS:
        raise InputError(f"the CSV has {n:,} rows; the limit is {MAX_ROWS:,}")


def numeric_column(df: pd.DataFrame, column: str) -> np.ndarray:
    """A column as floats; text or empty cells raise InputError naming the file line."""
    import pandas as pd

    if df[column].dtype.kind in "if":  # parsed as numbers (all finite) by read_csv_table
        return df[column].to_numpy(dtype=float)
    raw = df[column].astype(str).str.strip()
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        more = f" ({bad.size} bad cells in all)" if bad.size > 1 else ""
        raise InputError(f"line {i + 2}: {column} {_bad_number(raw.iloc[i])}{more}")
    return values


def _bad_number(cell: str) -> str:
    """What is wrong with a cell that is not a finite number, as the message says it."""
    if cell == "" or cell.lower() in ("nan", "na", "null"):
        return "is missing"
    return f"is {quote_user_text(cell)}, not a finite number"


def _whole_number_times(raw: pd.Series) -> np.ndarray:
    """Cells that are all whole numbers as exact int64 (InputError beyond its range)."""
    limit = np.iinfo(np.int64).max
    values = [int(c) for c in raw]
    for i, v in enumerate(values):
        if not -limit <= v <= limit:
            raise InputError(f"line {i + 2}: time {quote_user_text(raw.iloc[i], 40)} is too "
                             f"large; whole-number times must lie within ±{limit:,}")
    return np.array(values, dtype=np.int64)


class ParsedTimes(NamedTuple):
    """A parsed time column: the ``times`` (int64 or float numbers, or datetime64) and
    their ``kind``, 'number' or 'datetime'."""

    times: np.ndarray
    kind: str


def parse_times(df: pd.DataFrame, column: str = "time",
                time_format: str | None = None) -> ParsedTimes:
    """Parse a time column: whole numbers / decimals, or ISO-8601 datetimes.

    Returns :class:`ParsedTimes` (times, kind) with kind 'number' or 'datetime'; whole
    numbers are returned exactly, as int64 (not via float). Times must not decrease
    (out-of-order rows raise InputError naming the lines); a time equal to the previous
    row's is kept, each row its own timestamp (the repeated-timestamp rule, docs/data-formats.md;
    :func:`repeated_times_note` says how many).
    """
    col = df[column]
    if time_format:  # the user's strptime format (lmdk_core.data.time_formats)
        from lmdk_core.data.time_formats import parse_formatted_times

        raw = col.astype(str).str.strip()
        times = parse_formatted_times(raw, time_format, column)
        _check_time_order(times, raw)
        return ParsedTimes(times, "datetime")
    if col.dtype.kind == "i":  # whole numbers parsed exactly by read_csv_table
        times, kind = col.to_numpy(dtype=np.int64), "number"
        raw = col
    elif col.dtype.kind == "f":  # finite decimals
        times, kind = col.to_numpy(dtype=float), "number"
        raw = col
    else:
        raw = col.astype(str).str.strip()
        times, kind = _parse_text_times(raw)
    _check_time_order(times, raw)
    return ParsedTimes(times, kind)


def _check_time_order(times: np.ndarray, raw: pd.Series) -> None:
    """InputError naming the first row whose time comes before the previous row's
    (neighbours compared directly: a difference of int64 times may overflow)."""
    neg = times[1:] < times[:-1]
    if np.any(neg):
        i = int(np.flatnonzero(neg)[0]) + 1
        raise InputError(
            f"line {i + 2}: time {quote_user_text(raw.iloc[i])} comes before the previous "
            f"row's {quote_user_text(raw.iloc[i - 1])}; sort the file by time"
        )


#: a time-zone designator at the end of an ISO 8601 time: ``Z``, ``+08:00``, ``-0500``, ``+01``
_ZONE = r"(?:[zZ]|[+-][0-9]{2}(?::?[0-9]{2})?)$"


def has_zone(cells: pd.Series) -> bool:
    """True when an ISO 8601 time cell ends in a zone designator (``Z`` or an offset):
    such times are converted to UTC and written back with ``Z``
    (:func:`lmdk_core.files.export.time_labels`)."""
    text = cells.dropna().astype(str).str.strip()
    text = text[text.str.contains(r"[0-9]T[0-9]|[0-9] [0-9]", regex=True)]
    return bool(text.str.contains(r"[0-9:.]" + _ZONE, regex=True).any())


def repeated_times_note(times: np.ndarray, what: str = "row") -> str | None:
    """The note for times equal to the one before them (the repeated-timestamp rule of
    docs/data-formats.md: kept, each its own timestamp t, in file order), or None."""
    t = np.asarray(times)
    repeats = np.flatnonzero(t[1:] == t[:-1])
    if not repeats.size:
        return None
    same, i = int(repeats.size), int(repeats[0]) + 1
    return (f"{same:,} {what}{'s have' if same != 1 else ' has'} the same time as the "
            f"{what} before {'them' if same != 1 else 'it'} (first: timestamp {i}); kept, each "
            "its own timestamp, in file order.")


def _parse_text_times(raw: pd.Series) -> tuple[np.ndarray, str]:
    """Times given as text: whole numbers (exact int64), decimals or ISO-8601 dates."""
    import pandas as pd

    empty = np.flatnonzero(raw.to_numpy() == "")
    if empty.size:
        raise InputError(f"line {int(empty[0]) + 2}: time is missing")
    # the numeric tests only when the first cell is a number (ISO dates skip them)
    numeric = pd.notna(pd.to_numeric(raw.iloc[:1], errors="coerce")).all()
    nums = pd.to_numeric(raw, errors="coerce") if numeric else None
    if numeric and raw.str.fullmatch(r"[+-]?[0-9]+").all():
        # whole numbers are kept exact as int64: through float, 2**53 and 2**53 + 1 would
        # become the same time
        times = _whole_number_times(raw)
        kind = "number"
    elif nums is not None and nums.notna().all():
        times, kind = _decimal_times(nums), "number"
    else:
        times, kind = _iso_times(raw, nums), "datetime"
    return times, kind


def _decimal_times(nums: pd.Series) -> np.ndarray:
    """Numeric time cells as floats; InputError for an infinite one."""
    times = nums.to_numpy(dtype=float)
    if not np.all(np.isfinite(times)):
        raise InputError("times must be finite numbers")
    return times


def _iso_times(raw: pd.Series, nums: pd.Series | None) -> np.ndarray:
    """ISO-8601 time cells as UTC datetime64 without zone; InputError naming the first
    cell that is neither a number nor an ISO date (``nums``: the cells as numbers, if
    already computed)."""
    import pandas as pd

    try:
        parsed = pd.to_datetime(raw, format="ISO8601", utc=True)
    except (ValueError, TypeError):
        if nums is None:
            nums = pd.to_numeric(raw, errors="coerce")
        bad = int(np.flatnonzero(nums.isna().to_numpy())[0])
        from lmdk_core.data.time_formats import date_order_advice

        advice = date_order_advice(raw)
        raise InputError(
            f"line {bad + 2}: time {quote_user_text(raw.iloc[bad])} is neither a number nor "
            "an ISO date like 2024-03-01T08:00"
            + (f"; {advice}" if advice else "; give its format with --time-format (e.g. "
               "\"%d/%m/%Y %H:%M\"; Timeline: Time format)")
        ) from None
    return parsed.dt.tz_localize(None).to_numpy()
