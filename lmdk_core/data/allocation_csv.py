"""Reading a per-timestamp allocation (one ε_t per timestamp) from a CSV file.

Accepted: one number per line (optionally with a header such as ``epsilon``), a single
comma-separated row, or a table with a column named ``epsilon``/``epsilon_t``/``eps``
(e.g. the output of ``lmdk release``).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from lmdk_core.data.tables import Source, read_bytes
from lmdk_core.validation import InputError, check_epsilon_array

__all__ = ["load_allocation_csv"]

_NAMES = ("epsilon_t", "epsilon", "eps")


def load_allocation_csv(source: Source) -> np.ndarray:
    """The allocation as a float array (>= 0, finite); InputError otherwise."""
    data = read_bytes(source, "the allocation file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the allocation file is not text") from None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = lines[0].split(",")[0].strip()
    try:
        float(first)
        has_header = False
    except ValueError:
        has_header = True
    if has_header:
        try:
            df = pd.read_csv(io.StringIO(text), dtype=str)
        except (pd.errors.ParserError, ValueError):
            raise InputError("the allocation file is not a readable CSV") from None
        cols = {str(c).strip().lower(): c for c in df.columns}
        name = next((cols[n] for n in _NAMES if n in cols), None)
        if name is None:
            if len(df.columns) != 1:
                raise InputError(
                    "the allocation CSV needs a column named epsilon (or a single column)"
                )
            name = df.columns[0]
        cells = df[name].astype(str).str.strip().tolist()
    else:
        cells = [c.strip() for ln in lines for c in ln.split(",") if c.strip()]
    if not cells:
        raise InputError("the allocation file has no values")
    values = pd.to_numeric(pd.Series(cells), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise InputError(
            f"allocation value {int(bad[0]) + 1} ({cells[int(bad[0])]!r}) is not a finite number"
        )
    return check_epsilon_array(values, allow_zero=True, name="the allocation")
