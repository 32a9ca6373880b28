"""Times written other than ISO 8601: a format the user gives (``--time-format``, the
Timeline's *Time format*; Python ``strptime`` codes such as ``%m/%d/%Y %H:%M:%S``), and
the advice for dates like ``11/25/2011``: day-first or month-first is never guessed —
the message says which order the file shows, or that it cannot tell (docs/data-formats.md).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = ["checked_ns", "date_order_advice", "parse_formatted_times"]

_SLASHED = re.compile(r"^\s*(\d{1,2})([/.-])(\d{1,2})\2(\d{2,4})(.*)$")


#: the times a datetime64[ns] can hold (numpy's and pandas' time type here)
NS_FIRST, NS_LAST = np.datetime64("1677-09-22", "D"), np.datetime64("2262-04-11", "D")


def checked_ns(times: np.ndarray, what: str = "point", first: int = 1) -> np.ndarray:
    """``times`` (datetime64 of any unit, NaT where missing) as datetime64[ns].

    A time outside 1677-09-22 … 2262-04-10 cannot be held in nanoseconds, and numpy's
    cast wraps it silently (year 1 became 1754): such a time is refused with an
    InputError naming the first one as ``what`` and its position (``first`` for the
    first element: 1 for points, 2 for the lines of a CSV file under its header)."""
    t = np.asarray(times)
    if t.dtype == np.dtype("datetime64[ns]"):
        return t
    bad = np.flatnonzero(~np.isnat(t) & ((t < NS_FIRST) | (t > NS_LAST)))
    if bad.size:
        i = int(bad[0])
        stamp = np.datetime_as_string(t[i], unit="s")
        raise InputError(
            f"{what} {i + first}: the time {stamp} is outside the years 1678–2261 that this "
            "tool can hold (GPS receivers write year 1 when they have no time fix)"
            + (f"; {bad.size:,} such times in all" if bad.size > 1 else "")
            + ". Remove those times (points without a time keep their order in the file) "
            "or correct them")
    return t.astype("datetime64[ns]")


def _format_for(sep: str, year_digits: int, rest: str, month_first: bool) -> str:
    """The strptime format of a day/month/year cell like the sample."""
    y = "%Y" if year_digits == 4 else "%y"
    date = sep.join(["%m", "%d", y] if month_first else ["%d", "%m", y])
    clock = rest.strip()
    if not clock:
        return date
    return date + " " + ("%H:%M:%S" if clock.count(":") == 2 else "%H:%M")


def date_order_advice(cells: pd.Series) -> str | None:
    """What to give for ``dd/mm/yyyy``-or-``mm/dd/yyyy`` dates, or None when the cells
    are not such dates. The order is read from the cells — a first number above 12 is a
    day (day-first), a second number above 12 is a day (month-first) — and never
    guessed when no cell shows it.

    >>> import pandas as pd
    >>> date_order_advice(pd.Series(["11/25/2011 01:00:00", "11/26/2011 01:00:00"]))
    'they are month-first (25 cannot be a month): give --time-format "%m/%d/%Y %H:%M:%S"...'
    """
    import pandas as pd

    text = cells.astype(str).head(5000)
    m = text.str.extract(_SLASHED)
    if m[0].isna().mean() > 0.1:
        return None
    first = pd.to_numeric(m[0], errors="coerce")
    second = pd.to_numeric(m[2], errors="coerce")
    sample = m.dropna().iloc[0]
    sep, ylen, rest = sample[1], len(sample[3]), sample[4]
    where = " (Timeline: Time format)"
    if (second > 12).any() and not (first > 12).any():
        fmt = _format_for(sep, ylen, rest, True)
        return (f"they are month-first ({int(second[second > 12].iloc[0])} cannot be a "
                f"month): give --time-format \"{fmt}\"{where}")
    if (first > 12).any() and not (second > 12).any():
        fmt = _format_for(sep, ylen, rest, False)
        return (f"they are day-first ({int(first[first > 12].iloc[0])} cannot be a "
                f"month): give --time-format \"{fmt}\"{where}")
    return ("day-first and month-first cannot be told apart (no number above 12): give "
            f"--time-format \"{_format_for(sep, ylen, rest, False)}\" (day first) or "
            f"\"{_format_for(sep, ylen, rest, True)}\" (month first){where}")


def parse_formatted_times(cells: pd.Series, time_format: str,
                          column: str = "time") -> np.ndarray:
    """Text times read with the strptime format ``time_format`` (a zone in it, ``%z``,
    is converted to UTC) as naive datetime64[ns]; InputError naming the first line
    (header = line 1) whose cell does not match."""
    import pandas as pd

    raw = cells.astype(str).str.strip()
    parsed = pd.to_datetime(raw, format=time_format, errors="coerce", utc=True)
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise InputError(f"line {i + 2}: {column} {quote_user_text(raw.iloc[i], 40)} does not "
                         f"match --time-format {quote_user_text(time_format, 40)}"
                         + (f" ({bad.size:,} cells in all)" if bad.size > 1 else ""))
    return checked_ns(parsed.dt.tz_localize(None).to_numpy(), "line", first=2)
