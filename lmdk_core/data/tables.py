"""Reading an uploaded CSV table with clear messages for every way it can be wrong.

Shared by the series and track loaders: size limits, empty files, missing columns,
text or missing values in numeric columns, and the time column (whole numbers,
decimals or ISO-8601 datetimes, strictly increasing).
"""

from __future__ import annotations

import io
import os
from typing import IO

import numpy as np
import pandas as pd

from lmdk_core.validation import InputError

__all__ = ["MAX_BYTES", "MAX_ROWS", "Source", "read_bytes", "read_csv_table", "numeric_column",
           "parse_times"]

#: largest upload accepted (bytes) and largest number of rows; see the README.
MAX_BYTES = 50 * 1024 * 1024
MAX_ROWS = 200_000

Source = str | os.PathLike | bytes | IO


def read_bytes(source: Source, what: str = "the file") -> bytes:
    """The raw bytes of a path, a bytes object or a file-like object, size-checked."""
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise InputError(f"no such file: {path}")
        if os.path.isdir(path):
            raise InputError(f"{path} is a folder, not a file")
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    else:
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise InputError(f"{what} is larger than {MAX_BYTES // 2**20} MB; use a smaller extract")
    if not data.strip():
        raise InputError(f"{what} is empty")
    return data


def read_csv_table(source: Source, required: list[str], optional: list[str] = ()) -> pd.DataFrame:
    """Read a CSV with a header row; column names are matched case-insensitively.

    Returns a frame with the required (and present optional) columns renamed to their
    canonical lower-case names, as strings (converted by the caller).
    """
    data = read_bytes(source, "the CSV file")
    try:
        df = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False,
                         skipinitialspace=True, encoding_errors="strict")
    except UnicodeDecodeError:
        raise InputError("the file is not a text CSV (it is not UTF-8 text)") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        raise InputError(f"the file is not a readable CSV: {first}") from None
    names = {str(c).strip().lower(): c for c in df.columns}
    missing = [c for c in required if c not in names]
    if missing:
        have = ", ".join(str(c) for c in df.columns) or "none"
        raise InputError(
            f"the CSV needs the column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} (header row: {', '.join(required)}); it has: {have}"
        )
    if len(df) == 0:
        raise InputError("the CSV has a header but no data rows")
    if len(df) > MAX_ROWS:
        raise InputError(f"the CSV has {len(df):,} rows; the limit is {MAX_ROWS:,}")
    keep = [c for c in list(required) + list(optional) if c in names]
    out = df[[names[c] for c in keep]].copy()
    out.columns = keep
    return out


def numeric_column(df: pd.DataFrame, column: str) -> np.ndarray:
    """A column as floats; text or empty cells raise InputError naming the file line."""
    raw = df[column].astype(str).str.strip()
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        cell = raw.iloc[i]
        what = "is missing" if cell == "" or cell.lower() in ("nan", "na", "null") else (
            f"is {cell!r}, not a finite number")
        more = f" ({bad.size} bad cells in all)" if bad.size > 1 else ""
        raise InputError(f"line {i + 2}: {column} {what}{more}")
    return values


def parse_times(df: pd.DataFrame, column: str = "time") -> tuple[np.ndarray, str]:
    """Parse a time column: whole numbers / decimals, or ISO-8601 datetimes.

    Returns (times, kind) with kind 'number' or 'datetime'. Times must be strictly
    increasing; duplicates and out-of-order rows raise InputError naming the lines.
    """
    raw = df[column].astype(str).str.strip()
    empty = np.flatnonzero(raw.to_numpy() == "")
    if empty.size:
        raise InputError(f"line {int(empty[0]) + 2}: time is missing")
    nums = pd.to_numeric(raw, errors="coerce")
    if nums.notna().all():
        times = nums.to_numpy(dtype=float)
        if not np.all(np.isfinite(times)):
            raise InputError("times must be finite numbers")
        kind = "number"
    else:
        try:
            parsed = pd.to_datetime(raw, format="ISO8601", utc=True)
        except (ValueError, TypeError):
            bad = int(np.flatnonzero(nums.isna().to_numpy())[0])
            raise InputError(
                f"line {bad + 2}: time {raw.iloc[bad]!r} is neither a number nor an ISO date "
                "like 2024-03-01T08:00"
            ) from None
        times = parsed.dt.tz_localize(None).to_numpy()
        kind = "datetime"
    if len(times) > 1:
        step = np.diff(times)
        zero = step == step.dtype.type(0)
        if np.any(zero):
            i = int(np.flatnonzero(zero)[0]) + 1
            raise InputError(
                f"line {i + 2}: time {raw.iloc[i]} appears twice (also on line {i + 1}); "
                "each timestamp must be unique"
            )
        neg = step < step.dtype.type(0)
        if np.any(neg):
            i = int(np.flatnonzero(neg)[0]) + 1
            raise InputError(
                f"line {i + 2}: time {raw.iloc[i]} comes before the previous row's "
                f"{raw.iloc[i - 1]}; sort the file by time"
            )
    return times, kind
