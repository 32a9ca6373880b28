"""The plainest series CSVs read without pandas (importing pandas costs a small command
0.25–0.4 s of CPU, docs/performance.md "Fixed costs").

A conservative recogniser: it returns a result only for a file whose parse by the
pandas path (:func:`lmdk_core.data.tables.read_csv_table`, :func:`~lmdk_core.data.tables.
parse_times`, :func:`~lmdk_core.data.tables.numeric_column`) is certain to give the
same numbers and times, and None for anything else — the caller then reads the file
with pandas, which gives every message. "Plain" means all of:

* at most :data:`PLAIN_MAX_BYTES` bytes of ASCII text, lines ending in ``\\n`` only (the
  last one may lack it), no empty line, no quote, no ``#``, no tab, no ``;`` or ``|``;
* a header of exactly two names ``[A-Za-z_][A-Za-z0-9_]*`` which, without case, are the
  time and the value column (so the separator is ``,``: :func:`~lmdk_core.data.tables.
  csv_separator` finds no other);
* every data row exactly two cells; values ``-?D+(.D+)?`` with at most 15 digits; times
  all whole numbers or decimals of that form, or all ISO 8601 local times of one
  layout, ``YYYY-MM-DDTHH:MM[:SS]`` or with a space for ``T``, years 1900–2199 (no
  zone, no fraction of a second);
* at most :data:`~lmdk_core.data.tables.MAX_ROWS` rows, times that never decrease (the
  messages come from the pandas path).

Why the numbers are the same: pandas' default float parser (``precise_xstrtod``) reads a
number of at most 15 digits as the integer of its digits, exact in a double (< 2⁵³),
divided by the power of ten of its decimal places (≤ 10¹⁵, exact too): one correctly
rounded division, i.e. the correctly rounded value of the decimal, which is what
``float()`` returns. Whole-number columns are int64 in pandas (converted to float for
values): ``int()`` then the same conversion. The ISO times are read by numpy's
``datetime64`` (in pandas' unit) as by ``pd.to_datetime(format="ISO8601", utc=True)`` (proleptic
Gregorian, no leap seconds; an invalid date falls back). tests/engine/
test_plain_series_csv.py checks all of this against the pandas path on generated files.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from lmdk_core.data import tables

__all__ = ["PLAIN_MAX_BYTES", "PlainSeries", "plain_header", "read_plain_series"]

#: the largest file read this way (about 3,000 rows): pandas is faster on longer files
PLAIN_MAX_BYTES = 96 * 1024

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_HEADER = re.compile(rf"({_NAME}),({_NAME})")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_WHOLE = re.compile(r"-?[0-9]+")
_ISO = re.compile(r"(?:19|20|21)[0-9]{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
                  r"[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9])?")
_ISO_LAYOUTS = ("T", " ")
#: bytes that never occur in a plain file (quotes, comments, other separators, CR, tab)
_SPECIAL = re.compile(rb"[\"#;|\t\r\x0b\x0c]|\n\n|^\n")
_MAX_DIGITS = 15


class PlainSeries(NamedTuple):
    """A plain file's times (int64, float or datetime64), their kind ('number' or
    'datetime') and values (float)."""

    times: np.ndarray
    kind: str
    values: np.ndarray


def _lines(data: bytes) -> list[str] | None:
    """The lines of a plain file (header first), or None."""
    if len(data) > PLAIN_MAX_BYTES or not data.isascii() or _SPECIAL.search(data):
        return None
    lines = data.decode("ascii").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines if len(lines) >= 2 else None


def plain_header(data: bytes) -> list[str] | None:
    """The two column names of a plain file (as pandas reads its header), or None (also
    when a row has other than two cells)."""
    lines = _lines(data)
    if lines is None:
        return None
    m = _HEADER.fullmatch(lines[0])
    if m is None or m.group(1) == m.group(2) or any(ln.count(",") != 1 for ln in lines[1:]):
        return None
    return [m.group(1), m.group(2)]


def _short(cell: str) -> bool:
    """True for a number of at most :data:`_MAX_DIGITS` digits."""
    return sum(ch.isdigit() for ch in cell) <= _MAX_DIGITS


def _numbers(cells: list[str]) -> np.ndarray | None:
    """Number cells as pandas types them: int64 when all are whole, else float."""
    if not all(_short(c) for c in cells):
        return None
    if all(_WHOLE.fullmatch(c) for c in cells):
        return np.array([int(c) for c in cells], dtype=np.int64)
    return np.array([float(c) for c in cells], dtype=float)


def _pandas_time_unit() -> str:
    """The datetime64 unit of ``pd.to_datetime`` on ISO texts without a fraction of a
    second: microseconds from pandas 3 on, nanoseconds before (read from the installed
    version, without importing pandas nor, mostly, :mod:`importlib.metadata`)."""
    from lmdk_core.foundation.installed_versions import installed_version

    return "us" if int(installed_version("pandas").split(".")[0]) >= 3 else "ns"


def _iso_times(cells: list[str]) -> np.ndarray | None:
    """ISO 8601 local times of one layout in the unit pandas gives them, or None."""
    n = len(cells[0])
    sep = cells[0][10:11]
    if sep not in _ISO_LAYOUTS or not all(len(c) == n and c[10] == sep and _ISO.fullmatch(c)
                                          for c in cells):
        return None
    try:
        return np.array(cells, dtype=f"datetime64[{_pandas_time_unit()}]")
    except ValueError:  # an invalid date: the pandas path says which
        return None


def _row_cells(rows: list[str], time_first: bool) -> tuple[list[str], list[str]] | None:
    """(time cells, value cells) of rows of exactly two cells each, or None."""
    cells = [r.split(",") for r in rows]
    if not all(len(c) == 2 for c in cells):
        return None
    t, v = (0, 1) if time_first else (1, 0)
    return [c[t] for c in cells], [c[v] for c in cells]


def read_plain_series(data: bytes, time_col: str, value_col: str) -> PlainSeries | None:
    """The series of a plain file (the module docstring) whose columns are ``time_col``
    and ``value_col`` (lower-case names, matched without case), or None."""
    header = plain_header(data)
    if header is None or time_col == value_col:
        return None
    names = [h.lower() for h in header]
    if sorted(names) != sorted((time_col, value_col)):
        return None
    lines = _lines(data)
    if lines is None or len(lines) - 1 > tables.MAX_ROWS:  # the row limit's message
        return None
    cells = _row_cells(lines[1:], names[0] == time_col)
    if cells is None:
        return None
    raw_t, raw_v = cells
    if not all(_NUMBER.fullmatch(v) for v in raw_v):
        return None
    values = _numbers(raw_v)
    if values is None:
        return None
    if all(_NUMBER.fullmatch(t) for t in raw_t):
        times, kind = _numbers(raw_t), "number"
    else:
        times, kind = _iso_times(raw_t), "datetime"
    if times is None or np.any(times[1:] < times[:-1]):
        return None
    return PlainSeries(times, kind, values.astype(float))
