"""The time windows of a population statistic: a public grid of equal windows.

A statistic is released once per window ``[origin + i·w, origin + (i+1)·w)``, i = 0 … T−1.
The grid (origin, width w, count T) is a **public setting**: declared by the publisher
(``--start``/``--end``) or, for exploring, taken from the data's first and last time —
then the files say so, because a grid derived from the data is not a declared setting
(docs/aggregate.md). Times that are numbers are read as seconds (as everywhere else in
the tool); dates are naive UTC.

Widths are written as pandas time spans (``1h``, ``30min``, ``1d``, ``90s``) or a
number of seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["MAX_WINDOWS", "WindowGrid", "parse_width", "window_grid"]

#: the most windows one release may hold (one value per window and cell is kept in memory)
MAX_WINDOWS = 1_000_000

_NS = 1_000_000_000


def parse_width(text: str | float) -> float:
    """A window width in seconds from ``1h``, ``30min``, ``1d``, ``90s`` or a number of
    seconds; InputError unless it is a positive finite span."""
    import pandas as pd

    raw = str(text).strip()
    try:
        seconds = float(raw)
    except ValueError:
        try:
            seconds = pd.to_timedelta(raw).total_seconds()
        except (ValueError, TypeError):
            raise InputError(f"window {quote_user_text(raw)} is not a time span; write e.g. "
                             "1h, 30min, 1d or a number of seconds") from None
    if not np.isfinite(seconds) or seconds <= 0:
        raise InputError(f"the window must be a positive time span, got {quote_user_text(raw)}")
    return float(seconds)


@dataclass(frozen=True)
class WindowGrid:
    """T windows of ``width`` seconds from ``origin``.

    ``kind`` is 'datetime' (``origin`` a numpy datetime64[ns]) or 'number' (``origin`` in
    seconds); ``declared`` says whether the publisher declared the period (else it was
    read from the data, which the files state).
    """

    kind: str
    origin: np.datetime64 | float
    width: float
    count: int
    declared: bool

    def index(self, times: np.ndarray) -> np.ndarray:
        """The window of each time (int64; −1 before the grid, ``count`` and beyond after
        it): ``⌊(t − origin)/w⌋``, in whole nanoseconds for dates."""
        if self.kind == "datetime":
            ns = (np.asarray(times, dtype="datetime64[ns]") - _date(self.origin)
                  ).astype(np.int64)
            w = int(round(self.width * _NS))
            idx = np.floor_divide(ns, w)
        else:
            idx = np.floor((np.asarray(times, dtype=float) - _number(self.origin)) / self.width)
        idx = np.asarray(idx, dtype=np.int64)
        return np.clip(idx, -1, self.count)

    def labels(self) -> list[str]:
        """Each window's start: ISO 8601 (UTC, ``Z``) for dates, seconds for numbers."""
        if self.kind == "datetime":
            w = int(round(self.width * _NS))
            step = np.arange(self.count) * np.timedelta64(w, "ns")
            starts = _date(self.origin) + step
            text = np.datetime_as_string(starts, unit="s")
            return [f"{s}Z" for s in text]
        origin = _number(self.origin)
        return [f"{origin + i * self.width:g}" for i in range(self.count)]

    def describe(self) -> str:
        """The header line of the grid (public: declared, or marked as read from data)."""
        labels = self.labels()
        src = ("declared" if self.declared else
               "read from the data's first and last time (not a declared setting: declare "
               "--start and --end for a publication)")
        return (f"windows: {self.count} of {self.width:g} s from {labels[0]} ({src})")


def _date(t: np.datetime64 | float) -> np.datetime64:
    """An instant of a grid of dates (always a datetime64), in nanoseconds."""
    if not isinstance(t, np.datetime64):
        raise TypeError(f"an instant of a grid of dates must be a datetime64, got {t!r}")
    return t.astype("datetime64[ns]")


def _number(t: np.datetime64 | float) -> float:
    """An instant of a grid of numbers."""
    if isinstance(t, np.datetime64):
        raise TypeError(f"an instant of a grid of numbers must be a number, got {t!r}")
    return float(t)


def parse_instant(text: str, kind: str, what: str) -> np.datetime64 | float:
    """A declared instant in the data's time kind."""
    import pandas as pd

    raw = str(text).strip()
    if kind == "number":
        try:
            v = float(raw)
        except ValueError:
            raise InputError(f"{what} {quote_user_text(raw)} must be a number (the times are "
                             "numbers)") from None
        if not np.isfinite(v):
            raise InputError(f"{what} must be a finite number")
        return v
    try:
        stamp = pd.Timestamp(raw)
    except (ValueError, TypeError):
        raise InputError(f"{what} {quote_user_text(raw)} is not an ISO date like "
                         "2024-03-01T00:00") from None
    if stamp.tzinfo is not None:
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    return np.datetime64(stamp.to_datetime64(), "ns")


def window_grid(width: float, kind: str, *, start: str | None = None, end: str | None = None,
                first: Any = None, last: Any = None) -> WindowGrid:
    """The window grid: from the declared ``start`` (inclusive) to ``end`` (exclusive),
    or — when not declared — from the data's ``first`` time (floored to a whole number
    of widths since the Unix epoch / 0) to its ``last`` time inclusive."""
    declared = start is not None and end is not None
    if (start is None) != (end is None):
        raise InputError("declare both the start and the end of the period (--start and "
                         "--end), or neither")
    origin: np.datetime64 | float
    if start is not None and end is not None:
        origin = parse_instant(start, kind, "--start")
        stop = parse_instant(end, kind, "--end")
        span = _seconds_between(origin, stop, kind)
        if span <= 0:
            raise InputError("--end must come after --start")
        count = int(np.ceil(span / width))
    else:
        if first is None:
            raise InputError("the data have no times")
        origin = _floor_to_width(first, width, kind)
        count = int(_seconds_between(origin, last, kind) // width) + 1
    if count > MAX_WINDOWS:
        raise InputError(f"{count:,} windows of {width:g} s; at most {MAX_WINDOWS:,} — "
                         "choose a wider --window or a shorter period")
    return WindowGrid(kind=kind, origin=origin, width=width, count=count, declared=declared)


def _seconds_between(a: Any, b: Any, kind: str) -> float:
    """Seconds from ``a`` to ``b``: datetime64s or pandas Timestamps (dates), or numbers."""
    if kind == "datetime":
        ns_a, ns_b = (int(np.datetime64(t, "ns").astype(np.int64)) for t in (a, b))
        return float(ns_b - ns_a) / _NS
    return float(b) - float(a)


def _floor_to_width(t: Any, width: float, kind: str) -> np.datetime64 | float:
    """``t`` (a date as datetime64 or pandas Timestamp, or a number) floored to a whole
    number of widths since the Unix epoch / 0."""
    if kind == "datetime":
        w = int(round(width * _NS))
        ns = int(np.datetime64(t, "ns").astype(np.int64))
        return np.datetime64(ns - ns % w, "ns")
    return float(np.floor(float(t) / width) * width)
