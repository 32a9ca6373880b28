"""Reading a per-timestamp allocation (one ε_t per timestamp) from a CSV file.

Accepted: one number per line (optionally with a header such as ``epsilon``), a single
comma-separated row, or a table with a column named ``epsilon``/``epsilon_t``/``eps``
(e.g. the output of ``lmdk release``).

Read with the standard library's ``csv`` module rather than pandas so that ``lmdk check``
and ``lmdk leakage --allocation`` start without importing pandas.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from lmdk_core.data.tables import Source, leading_comment_lines, read_bytes
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import check_epsilon_array

__all__ = ["load_allocation_csv"]

_NAMES = ("epsilon_t", "epsilon", "eps")


def _number(cell: str) -> float:
    """``float(cell)``, or NaN when the cell is not a plain decimal number."""
    if "_" in cell:  # float() accepts 1_000; a CSV cell with an underscore is a typo
        return math.nan
    try:
        return float(cell)
    except ValueError:
        return math.nan


def _allocation_text(data: bytes) -> str:
    """The file's text without the '#' header of an explorer audit file (e.g. ``lmdk
    release --audit``); InputError when it is not text or holds nothing."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the allocation file is not text") from None
    text = "\n".join(text.splitlines()[leading_comment_lines(data):])
    if not text.strip():
        raise InputError("the allocation file has no values")
    return text


def _has_header(lines: list[str]) -> bool:
    """True when the first cell is not a number (a header such as ``epsilon``)."""
    try:
        float(lines[0].split(",")[0].strip())
    except ValueError:
        return True
    return False


def _epsilon_column(header: list[str]) -> int:
    """The index of the ε column: the first of :data:`_NAMES` present, else the only one."""
    col = next((header.index(n) for n in _NAMES if n in header), None)
    if col is not None:
        return col
    if len(header) != 1:
        raise InputError("the allocation CSV needs a column named epsilon (or a single column)")
    return 0


def _csv_rows(text: str) -> list[list[str]]:
    """The non-blank rows of a CSV text; InputError when it is not a readable CSV."""
    try:
        return [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    except csv.Error:
        raise InputError("the allocation file is not a readable CSV") from None


def _table_cells(text: str) -> list[str]:
    """The ε cells of a table with a header row."""
    rows = _csv_rows(text)
    header = [c.strip().lower() for c in rows[0]]
    if any(len(r) > len(header) for r in rows[1:]):
        raise InputError("the allocation file is not a readable CSV") from None
    col = _epsilon_column(header)
    return [r[col].strip() if col < len(r) else "" for r in rows[1:]]


def _plain_cells(lines: list[str]) -> list[str]:
    """The non-empty cells of headerless lines (one number per line, or one row)."""
    return [c.strip() for ln in lines for c in ln.split(",") if c.strip()]


def _finite_values(cells: list[str]) -> np.ndarray:
    """The cells as floats; InputError naming the first cell that is not a finite number."""
    if not cells:
        raise InputError("the allocation file has no values")
    values = np.array([_number(c) for c in cells], dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise InputError(
            f"allocation value {int(bad[0]) + 1} ({quote_user_text(cells[int(bad[0])])}) is not "
            "a finite number"
        )
    return values


def load_allocation_csv(source: Source) -> np.ndarray:
    """The allocation as a float array (>= 0, finite); InputError otherwise."""
    text = _allocation_text(read_bytes(source, "the allocation file"))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    cells = _table_cells(text) if _has_header(lines) else _plain_cells(lines)
    return check_epsilon_array(_finite_values(cells), allow_zero=True, name="the allocation")
