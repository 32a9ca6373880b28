"""The times of a track as recorders write them: some missing, some implausible, some
out of order.

:func:`resolve_track_times` takes the times found in a file (NaT / NaN where a point
has none) and the piece (GPX track segment) of every point, and returns the times the
engine uses with plain-language notes for the user:

* a missing time **inside** a piece is interpolated linearly on the point index
  between the nearest timed points of that piece; before the first (after the last)
  timed point of a piece it is extrapolated with the piece's median step. A piece with
  at most one timed point keeps its gaps (shown as "?"). Times are never all dropped.
* times before :data:`EARLIEST_PLAUSIBLE` (1990) or more than a day in the future are
  *implausible* (a GPS receiver without a fix, an unset clock): kept, with a warning;
* times are judged **per piece**: a piece whose times go **backwards** (a later point
  stamped earlier) loses its times (its points keep their file order, shown as "?"),
  the other pieces keep theirs; only when no piece has usable times are the points
  numbered 0..T−1 (``kind = 'index'``). Pieces that are not in time order with each
  other (a GPS unit's saved tracks exported in name order) keep their own times, with a
  note. The warning names the first offending point;
* equal consecutive times are kept, each point its own timestamp, and counted (the
  repeated-timestamp rule of docs/data-formats.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.engine.quoting import quote_user_text

__all__ = ["EARLIEST_PLAUSIBLE", "ResolvedTimes", "parse_time_cells", "resolve_track_times"]

#: earliest plausible recording date (consumer GPS logging did not exist before)
EARLIEST_PLAUSIBLE = np.datetime64("1990-01-01T00:00:00", "ns")


@dataclass(frozen=True)
class ResolvedTimes:
    """Times for the engine (``kind`` 'datetime', 'number' or 'index') and notes."""

    time: np.ndarray
    kind: str
    notes: tuple[str, ...]  # what was done (missing times filled, duplicates kept)
    warnings: tuple[str, ...]  # what the user must check (implausible, backwards)
    n_missing: int  # points without a time in the file
    n_interpolated: int  # of those, filled inside their piece


def _fill_piece(v: np.ndarray) -> np.ndarray:
    """Interpolate (and extrapolate with the median step) NaNs of one piece; pieces
    with fewer than two known values keep their NaNs."""
    known = np.flatnonzero(np.isfinite(v))
    if known.size < 2 or known.size == v.size:
        return v
    idx = np.arange(v.size, dtype=float)
    out = v.copy()
    inner = np.interp(idx, known, v[known])
    out[~np.isfinite(v)] = inner[~np.isfinite(v)]
    steps = np.diff(v[known]) / np.diff(known)
    step = float(np.median(steps))
    lo, hi = known[0], known[-1]
    out[:lo] = v[lo] - step * (lo - idx[:lo])
    out[hi + 1:] = v[hi] + step * (idx[hi + 1:] - hi)
    return out


def _label(x: float, kind: str) -> str:
    if kind == "datetime":
        return str(np.datetime64(int(x), "ns").astype("datetime64[s]")).replace("T", " ")
    return f"{x:g}"


def resolve_track_times(raw: np.ndarray, segment: np.ndarray, kind: str,
                        now: np.datetime64 | None = None,
                        labels: Sequence[str] | None = None) -> ResolvedTimes:
    """Times to use for a track whose file gave ``raw`` (datetime64 with NaT when
    ``kind == 'datetime'``, floats with NaN when ``kind == 'number'``); ``segment`` is
    the piece number of every point (non-decreasing), ``labels`` (optional) name the
    pieces in messages. See the module docstring."""
    n = int(np.asarray(segment).size)
    index = np.arange(n, dtype=float)
    if kind == "datetime":
        t = np.asarray(raw, dtype="datetime64[ns]")
        missing = np.isnat(t)
        v = np.where(missing, np.nan, t.astype(np.int64).astype(float))
    else:
        v = np.asarray(raw, dtype=float).copy()
        missing = ~np.isfinite(v)
    n_missing = int(missing.sum())
    if n_missing == n:
        note = () if n == 0 else ("The file has no times: the points are numbered in file "
                                  "order (0, 1, 2, …).",)
        return ResolvedTimes(index, "index", note, (), n_missing, 0)
    notes: list[str] = []
    warnings: list[str] = []
    seg = np.asarray(segment)
    filled = v.copy()
    for s in np.unique(seg):
        sel = np.flatnonzero(seg == s)
        filled[sel] = _fill_piece(v[sel])
    still = ~np.isfinite(filled)
    n_interp = n_missing - int(still.sum())
    if n_missing:
        text = f"{n_missing:,} of {n:,} points have no time in the file"
        parts = []
        if n_interp:
            parts.append(f"{n_interp:,} were interpolated between the timed points of their "
                         "track segment")
        if still.any():
            parts.append(f"{int(still.sum()):,} (in segments with fewer than two times) keep "
                         "no time and show “?”")
        notes.append(text + ": " + "; ".join(parts) + ".")
    known = np.flatnonzero(np.isfinite(filled))
    if kind == "datetime":
        now64 = (np.datetime64("now", "ns") if now is None else np.datetime64(now, "ns"))
        lo = float(EARLIEST_PLAUSIBLE.astype(np.int64))
        hi = float((now64 + np.timedelta64(1, "D")).astype(np.int64))
        bad = known[(filled[known] < lo) | (filled[known] > hi)]
        if bad.size:
            warnings.append(
                f"{bad.size:,} point{'s have' if bad.size != 1 else ' has'} an implausible "
                f"time (e.g. point {int(bad[0])}: {_label(filled[bad[0]], kind)}; before 1990 "
                "or in the future) — the recorder's clock was probably not set. The times "
                "are kept; check them before relying on durations.")
    exact = np.asarray(raw)
    kv_all = filled.copy()
    if n_missing == 0 and exact.dtype.kind in "iuM":
        # compare the file's own integers (datetime: ns) exactly: through float, 2**53 + 1
        # and 2**53 would be called equal
        kv_all = exact.astype(np.int64)
    pieces = [np.flatnonzero(seg == s) for s in np.unique(seg)]
    timed = [p[np.isfinite(filled[p])] for p in pieces]
    bad = []  # (piece number, its timed points, positions where it goes backwards)
    for k, p in enumerate(timed):
        back = np.flatnonzero(kv_all[p][1:] < kv_all[p][:-1])
        if back.size:
            bad.append((k, p, back))

    def name(k: int) -> str:
        if labels is not None and k < len(labels) and str(labels[k]).strip():
            return quote_user_text(labels[k], 40)
        return f"piece {k + 1}"

    if bad and len(bad) == sum(1 for p in timed if p.size):
        # no piece has usable times: the track has no time axis at all
        back = np.flatnonzero(kv_all[known][1:] < kv_all[known][:-1])
        i, j = int(known[back[0]]), int(known[back[0] + 1])
        warnings.append(
            f"The times go backwards {back.size:,} time{'s' if back.size != 1 else ''} (point "
            f"{j}, {_label(filled[j], kind)}, is earlier than point {i}, "
            f"{_label(filled[i], kind)}): they cannot serve as a time axis, so the points "
            "keep their file order and are numbered 0, 1, 2, …. Sort the file by time or "
            "fix the recorder's clock to use them.")
        return ResolvedTimes(index, "index", tuple(notes), tuple(warnings), n_missing,
                             n_interp)
    dropped = np.zeros(n, dtype=bool)
    for k, p, back in bad:  # times judged per piece: only the faulty piece loses them
        i, j = int(p[back[0]]), int(p[back[0] + 1])
        warnings.append(
            f"The times of {name(k)} go backwards {back.size:,} "
            f"time{'s' if back.size != 1 else ''} (point {j}, {_label(filled[j], kind)}, is "
            f"earlier than point {i}, {_label(filled[i], kind)}): they cannot serve as its "
            f"time axis, so its {pieces[k].size:,} points keep their file order without "
            "times (shown as “?”); the other pieces keep theirs. Fix the recorder's clock "
            "to use them.")
        dropped[pieces[k]] = True
    filled[dropped] = np.nan
    order = [(k, p) for k, p in enumerate(timed) if p.size and not dropped[p[0]]]
    for (k0, p0), (k1, p1) in zip(order[:-1], order[1:], strict=True):
        if kv_all[p1[0]] < kv_all[p0[-1]]:
            notes.append(
                f"The pieces are not in time order ({name(k1)} starts at "
                f"{_label(filled[p1[0]], kind)}, before {name(k0)} ends at "
                f"{_label(filled[p0[-1]], kind)}): each piece keeps its own times and the "
                "points keep their file order.")
            break
    kept = np.flatnonzero(np.isfinite(filled))
    same = int(np.sum(kv_all[kept][1:] == kv_all[kept][:-1]))
    if same:
        notes.append(f"{same:,} point{'s have' if same != 1 else ' has'} the same time as the "
                     "point before it (kept, each its own timestamp).")
    if kind == "datetime":
        out = t.copy()  # the file's times exactly; only the filled ones are computed
        new = missing & np.isfinite(filled)
        out[new] = np.round(filled[new]).astype(np.int64).astype("datetime64[ns]")
        out[dropped] = np.datetime64("NaT")
        return ResolvedTimes(out, "datetime", tuple(notes), tuple(warnings), n_missing,
                             n_interp)
    if n_missing == 0 and not dropped.any() and exact.dtype.kind in "iu":
        filled = exact.astype(np.int64)  # whole numbers exactly, as the file wrote them
    return ResolvedTimes(filled, "number", tuple(notes), tuple(warnings), n_missing, n_interp)


def parse_time_cells(raw: pd.Series) -> tuple[np.ndarray, str]:
    """A track CSV's time column with empty cells allowed: (values, kind) with NaN/NaT
    where a cell is empty; kind 'number' if every non-empty cell is a number, else
    'datetime' (ISO 8601, any time zone, converted to UTC). Raises ValueError with
    the 0-based row of the first cell that is neither."""
    cells = raw.astype(str).str.strip()
    empty = (cells == "") | cells.str.lower().isin(["nan", "nat", "none", "null"])
    nums = pd.to_numeric(cells.where(~empty), errors="coerce")
    if not empty.any() and cells.str.fullmatch(r"[+-]?[0-9]{1,18}").all():
        # whole numbers exactly (int64), not via float (2**53 + 1 is not 2**53)
        return np.array([int(c) for c in cells], dtype=np.int64), "number"
    if nums[~empty].notna().all():
        return nums.to_numpy(dtype=float), "number"
    out = np.full(len(cells), np.datetime64("NaT"), dtype="datetime64[ns]")
    keep = np.flatnonzero(~empty.to_numpy())
    try:
        parsed = pd.to_datetime(cells.iloc[keep], format="ISO8601", utc=True)
    except (ValueError, TypeError):
        for i in keep:
            try:
                pd.to_datetime(cells.iloc[i], format="ISO8601", utc=True)
            except (ValueError, TypeError):
                raise ValueError(int(i)) from None
        raise ValueError(int(keep[0])) from None
    out[keep] = parsed.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    return out, "datetime"
