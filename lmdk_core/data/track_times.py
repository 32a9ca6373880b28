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
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.tables import ParsedTimes
from lmdk_core.data.time_formats import checked_ns
from lmdk_core.foundation.plurals import agree
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:  # pandas is imported where a table is handled
    import pandas as pd

__all__ = ["EARLIEST_PLAUSIBLE", "ResolvedTimes", "iso_time_labels", "parse_time_cells",
           "resolve_track_times"]

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
    """A time value as the user reads it: ``YYYY-MM-DD hh:mm:ss`` or a plain number."""
    if kind == "datetime":
        return str(np.datetime64(int(x), "ns").astype("datetime64[s]")).replace("T", " ")
    return f"{x:g}"


def _as_float_times(raw: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The file's times as floats (datetimes in ns since the epoch) with NaN where a
    point has none, and the mask of those missing points."""
    if kind == "datetime":
        t = np.asarray(raw, dtype="datetime64[ns]")
        missing = np.isnat(t)
        return np.where(missing, np.nan, t.astype(np.int64).astype(float)), missing
    v = np.asarray(raw, dtype=float).copy()
    return v, ~np.isfinite(v)


def _fill_pieces(v: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Every piece's missing times filled by :func:`_fill_piece`, piece by piece."""
    filled = v.copy()
    for s in np.unique(seg):
        sel = np.flatnonzero(seg == s)
        filled[sel] = _fill_piece(v[sel])
    return filled


def _missing_note(n_missing: int, n: int, n_interp: int, n_still: int) -> str:
    """The note counting the points without a time and what became of them."""
    parts = []
    if n_interp:
        parts.append(f"{n_interp:,} were interpolated between the timed points of their "
                     "track segment")
    if n_still:
        parts.append(f"{n_still:,} (in segments with fewer than two times) keep "
                     "no time and show “?”")
    return (f"{n_missing:,} of {n:,} points {agree(n_missing, 'has', 'have')} no time in the "
            "file: " + "; ".join(parts) + ".")


def _implausible_warnings(filled: np.ndarray, known: np.ndarray,
                          now: np.datetime64 | None) -> list[str]:
    """The warning (at most one) about datetimes before :data:`EARLIEST_PLAUSIBLE` or
    more than a day after ``now``."""
    now64 = np.datetime64("now", "ns") if now is None else now.astype("datetime64[ns]")
    lo = float(EARLIEST_PLAUSIBLE.astype(np.int64))
    hi = float((now64 + np.timedelta64(1, "D")).astype(np.int64))
    bad = known[(filled[known] < lo) | (filled[known] > hi)]
    if not bad.size:
        return []
    return [f"{bad.size:,} point{agree(bad.size, ' has', 's have')} an implausible "
            f"time (e.g. point {int(bad[0])}: {_label(filled[bad[0]], 'datetime')}; before "
            "1990 or in the future) — the recorder's clock was probably not set. The times "
            "are kept; check them before relying on durations."]


def _comparable(raw: np.ndarray, filled: np.ndarray, n_missing: int) -> np.ndarray:
    """The values to compare for order: the file's own integers (datetime: ns) when no
    time is missing — through float, 2**53 + 1 and 2**53 would be called equal — else
    the filled floats."""
    exact = np.asarray(raw)
    if n_missing == 0 and exact.dtype.kind in "iuM":
        return exact.astype(np.int64)
    return filled.copy()


@dataclass(frozen=True)
class _Timeline:
    """The filled times of one track with what the order checks need to word their
    messages: the comparable values, the kind and the pieces' labels."""

    filled: np.ndarray
    values: np.ndarray  # :func:`_comparable`
    kind: str
    labels: Sequence[str] | None

    def label(self, i: int) -> str:
        """Point ``i``'s time as the user reads it."""
        return _label(self.filled[i], self.kind)

    def name(self, k: int) -> str:
        """Piece ``k`` as messages call it: its label (quoted) or "piece k+1"."""
        labels = self.labels
        if labels is not None and k < len(labels) and str(labels[k]).strip():
            return quote_user_text(labels[k], 40)
        return f"piece {k + 1}"

    def backwards(self, points: np.ndarray) -> np.ndarray:
        """Positions in ``points`` after which the next point is stamped earlier."""
        vals = self.values[points]
        return np.flatnonzero(vals[1:] < vals[:-1])


def _all_backwards_warning(tl: _Timeline, known: np.ndarray) -> str:
    """The warning when no piece has usable times: the track has no time axis."""
    back = tl.backwards(known)
    i, j = int(known[back[0]]), int(known[back[0] + 1])
    return (f"The times go backwards {back.size:,} time{agree(back.size, '', 's')} (point "
            f"{j}, {tl.label(j)}, is earlier than point {i}, "
            f"{tl.label(i)}): they cannot serve as a time axis, so the points "
            "keep their file order and are numbered 0, 1, 2, …. Sort the file by time or "
            "fix the recorder's clock to use them.")


def _piece_backwards_warning(tl: _Timeline, k: int, timed: np.ndarray, back: np.ndarray,
                             n_points: int) -> str:
    """The warning that piece ``k``'s times go backwards and are dropped."""
    i, j = int(timed[back[0]]), int(timed[back[0] + 1])
    return (f"The times of {tl.name(k)} go backwards {back.size:,} "
            f"time{agree(back.size, '', 's')} (point {j}, {tl.label(j)}, is "
            f"earlier than point {i}, {tl.label(i)}): they cannot serve as its "
            f"time axis, so its {n_points:,} points keep their file order without "
            "times (shown as “?”); the other pieces keep theirs. Fix the recorder's clock "
            "to use them.")


def _piece_order_notes(tl: _Timeline, order: list[tuple[int, np.ndarray]]) -> list[str]:
    """The note (at most one) that a kept piece starts before the previous one ends."""
    for (k0, p0), (k1, p1) in zip(order[:-1], order[1:], strict=True):
        if tl.values[p1[0]] < tl.values[p0[-1]]:
            return [f"The pieces are not in time order ({tl.name(k1)} starts at "
                    f"{tl.label(p1[0])}, before {tl.name(k0)} ends at "
                    f"{tl.label(p0[-1])}): each piece keeps its own times and the "
                    "points keep their file order."]
    return []


def _repeated_notes(values: np.ndarray, kept: np.ndarray) -> list[str]:
    """The note (at most one) counting points stamped like the point before them."""
    same = int(np.sum(values[kept][1:] == values[kept][:-1]))
    if not same:
        return []
    return [f"{same:,} point{agree(same, ' has', 's have')} the same time as the "
            "point before it (kept, each its own timestamp)."]


def _final_times(raw: np.ndarray, filled: np.ndarray, missing: np.ndarray,
                 dropped: np.ndarray, kind: str) -> np.ndarray:
    """The engine's times: for datetimes the file's own values with the filled ones
    computed and the dropped ones NaT; for whole numbers the file's integers exactly
    when nothing was filled or dropped; else the filled floats."""
    if kind == "datetime":
        out = np.asarray(raw, dtype="datetime64[ns]").copy()
        new = missing & np.isfinite(filled)
        out[new] = np.round(filled[new]).astype(np.int64).astype("datetime64[ns]")
        out[dropped] = np.datetime64("NaT")
        return out
    exact = np.asarray(raw)
    if not missing.any() and not dropped.any() and exact.dtype.kind in "iu":
        return exact.astype(np.int64)
    return filled


def _untimed(n: int) -> ResolvedTimes:
    """The result for a file without a single time: the points numbered 0..n−1."""
    note = () if n == 0 else ("The file has no times: the points are numbered in file "
                              "order (0, 1, 2, …).",)
    return ResolvedTimes(np.arange(n, dtype=float), "index", note, (), n, 0)


def _piece_points(seg: np.ndarray, filled: np.ndarray
                  ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The points of every piece, and of those the ones with a time."""
    pieces = [np.flatnonzero(seg == s) for s in np.unique(seg)]
    return pieces, [p[np.isfinite(filled[p])] for p in pieces]


def _kept_pieces(timed: list[np.ndarray], dropped: np.ndarray
                 ) -> list[tuple[int, np.ndarray]]:
    """(piece number, timed points) of the pieces that keep their times."""
    return [(k, p) for k, p in enumerate(timed) if p.size and not dropped[p[0]]]


def _backwards_pieces(tl: _Timeline, timed: list[np.ndarray]
                      ) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(piece number, its timed points, positions where it goes backwards) of every
    piece whose times go backwards."""
    found = [(k, p, tl.backwards(p)) for k, p in enumerate(timed)]
    return [(k, p, back) for k, p, back in found if back.size]


def _drop_backwards_pieces(tl: _Timeline, bad: list[tuple[int, np.ndarray, np.ndarray]],
                           pieces: list[np.ndarray]) -> tuple[list[str], np.ndarray]:
    """The warnings about the pieces whose times go backwards and the mask of their
    points, which lose their times (the other pieces keep theirs)."""
    dropped = np.zeros(tl.filled.size, dtype=bool)
    warnings = []
    for k, p, back in bad:
        warnings.append(_piece_backwards_warning(tl, k, p, back, pieces[k].size))
        dropped[pieces[k]] = True
    return warnings, dropped


def resolve_track_times(raw: np.ndarray, segment: np.ndarray, kind: str,
                        now: np.datetime64 | None = None,
                        labels: Sequence[str] | None = None) -> ResolvedTimes:
    """Times to use for a track whose file gave ``raw`` (datetime64 with NaT when
    ``kind == 'datetime'``, floats with NaN when ``kind == 'number'``); ``segment`` is
    the piece number of every point (non-decreasing), ``labels`` (optional) name the
    pieces in messages. See the module docstring."""
    seg = np.asarray(segment)
    v, missing = _as_float_times(raw, kind)
    n_missing = int(missing.sum())
    if n_missing == seg.size:
        return _untimed(seg.size)
    filled = _fill_pieces(v, seg)
    n_still = int((~np.isfinite(filled)).sum())
    n_interp = n_missing - n_still
    notes = [_missing_note(n_missing, seg.size, n_interp, n_still)] if n_missing else []
    known = np.flatnonzero(np.isfinite(filled))
    warnings = _implausible_warnings(filled, known, now) if kind == "datetime" else []
    tl = _Timeline(filled, _comparable(raw, filled, n_missing), kind, labels)
    pieces, timed = _piece_points(seg, filled)
    bad = _backwards_pieces(tl, timed)
    if bad and len(bad) == sum(p.size > 0 for p in timed):
        # no piece has usable times: the track has no time axis at all
        warnings.append(_all_backwards_warning(tl, known))
        return ResolvedTimes(np.arange(seg.size, dtype=float), "index", tuple(notes),
                             tuple(warnings), n_missing, n_interp)
    dropped_warnings, dropped = _drop_backwards_pieces(tl, bad, pieces)
    warnings += dropped_warnings
    filled[dropped] = np.nan
    notes += _piece_order_notes(tl, _kept_pieces(timed, dropped))
    notes += _repeated_notes(tl.values, np.flatnonzero(np.isfinite(filled)))
    out = _final_times(raw, filled, missing, dropped, kind)
    return ResolvedTimes(out, kind, tuple(notes), tuple(warnings), n_missing, n_interp)


def iso_time_labels(times: np.ndarray, utc: bool = False) -> list[str | None]:
    """Datetimes as written to files: ISO 8601 text ending in ``Z`` when ``utc`` (times
    held in UTC are never written as if local, docs/data-formats.md), None for NaT.

    >>> iso_time_labels(np.array(["2024-03-01T08:00", "NaT"], dtype="datetime64[ns]"), utc=True)
    ['2024-03-01T08:00:00Z', None]
    """
    import pandas as pd

    z = "Z" if utc else ""
    return [None if pd.isna(x) else pd.Timestamp(x).isoformat() + z for x in np.asarray(times)]


def parse_time_cells(raw: pd.Series) -> ParsedTimes:
    """A track CSV's time column with empty cells allowed: (values, kind) with NaN/NaT
    where a cell is empty; kind 'number' if every non-empty cell is a number, else
    'datetime' (ISO 8601, any time zone, converted to UTC). Raises ValueError with
    the 0-based row of the first cell that is neither."""
    import pandas as pd

    cells = raw.astype(str).str.strip()
    empty = (cells == "") | cells.str.lower().isin(["nan", "nat", "none", "null"])
    nums = pd.to_numeric(cells.where(~empty), errors="coerce")
    if not empty.any() and cells.str.fullmatch(r"[+-]?[0-9]{1,18}").all():
        # whole numbers exactly (int64), not via float (2**53 + 1 is not 2**53)
        return ParsedTimes(np.array([int(c) for c in cells], dtype=np.int64), "number")
    if nums[~empty].notna().all():
        return ParsedTimes(nums.to_numpy(dtype=float), "number")
    return ParsedTimes(_iso_time_cells(cells, np.flatnonzero(~empty.to_numpy())), "datetime")


def _iso_time_cells(cells: pd.Series, keep: np.ndarray) -> np.ndarray:
    """The cells ``keep`` as UTC datetimes (NaT elsewhere); ValueError with the row of
    the first cell that is not ISO 8601."""
    import pandas as pd

    try:
        parsed = pd.to_datetime(cells.iloc[keep], format="ISO8601", utc=True)
    except (ValueError, TypeError):
        raise ValueError(_first_non_iso(cells, keep)) from None
    found = parsed.dt.tz_localize(None).to_numpy()
    wide = np.full(len(cells), np.datetime64("NaT"), dtype=found.dtype)
    wide[keep] = found
    return checked_ns(wide, "line", first=2)  # the header is line 1


def _first_non_iso(cells: pd.Series, keep: np.ndarray) -> int:
    """The row of the first of the cells ``keep`` that is not ISO 8601 (the first cell
    when each parses alone)."""
    import pandas as pd

    for i in keep:
        try:
            pd.to_datetime(cells.iloc[i], format="ISO8601", utc=True)
        except (ValueError, TypeError):
            return int(i)
    return int(keep[0])
