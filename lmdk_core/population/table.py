"""The long table of a population: one row per (user, time) with a value or lat/lon.

Columns are named by the caller (:class:`PopulationColumns`): a user column, a time
column, either a value column (series) or a latitude and a longitude column (tracks),
and optionally a landmark flag column (1/true = landmark). Rows may come in any order;
each user's rows are sorted by time. Refused with a message that says what is wrong:

* a column that the file does not have (the message lists the file's columns);
* a missing user id, or one longer than :data:`MAX_USER_ID_CHARS` characters (an id is
  a key, not a document: a megabyte-long id only costs time and memory in every step);
* a missing time, a value that is not a finite number, a bad coordinate;
* times of mixed kinds (whole numbers or decimals for some rows, dates for others);
* a flag that is not 0/1/true/false.

The same (user, time) on several rows is kept, each row its own timestamp in file order
(the repeated-timestamp rule of docs/data-formats.md, as on the Map and in ``lmdk
geo-release``); :func:`repeated_times_count` counts them.

:func:`check_columns` runs on the file's header before anything is read;
:func:`prepare_users` on every partition (groups of whole users).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.data.time_formats import checked_ns
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

if TYPE_CHECKING:  # pandas is imported lazily (fast CLI start)
    import pandas as pd

__all__ = ["MAX_USER_ID_CHARS", "PopulationColumns", "check_columns", "check_parquet_parts",
           "check_user_ids", "file_format", "ordered_by_user_and_time", "prepare_users",
           "read_header", "read_population", "repeated_times_count", "check_whole_numbers",
           "user_arrays", "user_starts"]

#: longest user id accepted (characters of its text form)
MAX_USER_ID_CHARS = 256

_TRUE = {"1", "true", "yes", "t", "y", "1.0"}
_FALSE = {"0", "false", "no", "f", "n", "0.0", ""}


@dataclass(frozen=True)
class PopulationColumns:
    """Names of the columns of a population table."""

    user: str
    time: str
    value: str | None = None
    lat: str | None = None
    lon: str | None = None
    landmark: str | None = None

    def __post_init__(self) -> None:
        if self.value is None and (self.lat is None or self.lon is None):
            raise InputError("name the value column (--value-col) for series, or both "
                             "--lat-col and --lon-col for tracks")
        if self.value is not None and (self.lat is not None or self.lon is not None):
            raise InputError("give either a value column (series) or lat/lon columns "
                             "(tracks), not both")
        names = [n for n in self.needed() if n is not None]
        if len(set(names)) != len(names):
            raise InputError("each role (user, time, value/lat/lon, landmark) needs its own "
                             "column; the same column was named twice")

    @property
    def kind(self) -> str:
        """'series' or 'track'."""
        return "series" if self.value is not None else "track"

    def needed(self) -> list[str]:
        """The columns to read, in a fixed order."""
        data = [self.value] if self.value is not None else [self.lat, self.lon]
        return [self.user, self.time, *data] + ([self.landmark] if self.landmark else [])


def file_format(path: str | Path, what: str = "the input") -> str:
    """'parquet' or 'csv' from the file name (a folder of Parquet parts counts as
    Parquet)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    raise InputError(f"{what} {quote_user_text(str(path))} must be a .parquet or .csv file")


def read_header(path: str | Path) -> list[str]:
    """The column names of a CSV or Parquet file, reading no data rows."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"the input {quote_user_text(str(path))} does not exist")
    fmt = file_format(p)
    try:
        if fmt == "parquet":
            import pyarrow.dataset as ds

            return list(ds.dataset(str(p), format="parquet").schema.names)
        import pandas as pd

        return [str(c) for c in pd.read_csv(p, nrows=0, comment=None).columns]
    except InputError:
        raise
    except Exception as exc:  # pyarrow / pandas parser errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot read {quote_user_text(str(path))} as {fmt.upper()}: "
                         f"{quote_user_text(first, 120)}") from None


def check_parquet_parts(path: str | Path, cols: PopulationColumns) -> None:
    """Every file of a Parquet folder must type the named columns alike (read from each
    file's footer, no data): a user column of whole numbers in one part and text in
    another cannot be released as one table."""
    p = Path(path)
    if file_format(p) != "parquet" or not p.is_dir():
        return
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    first: dict[str, tuple[str, str]] = {}
    try:
        files = sorted(ds.dataset(str(p), format="parquet").files)
        for f in files:
            schema = pq.read_schema(f)
            for name in cols.needed():
                if name not in schema.names:
                    raise InputError(f"the part {quote_user_text(Path(f).name)} of "
                                     f"{quote_user_text(str(path))} has no column "
                                     f"{quote_user_text(name)}; every part needs the same "
                                     "columns")
                typ = str(schema.field(name).type)
                seen = first.setdefault(name, (typ, f))
                if seen[0] != typ:
                    raise InputError(
                        f"the parts of {quote_user_text(str(path))} type column "
                        f"{quote_user_text(name)} differently ({seen[0]} in "
                        f"{quote_user_text(Path(seen[1]).name)}, {typ} in "
                        f"{quote_user_text(Path(f).name)}); write every part with the same "
                        "column types")
    except InputError:
        raise
    except Exception as exc:  # a part that is not Parquet
        text = str(exc).strip()
        first_line = text.splitlines()[0] if text else type(exc).__name__
        raise InputError(f"cannot read {quote_user_text(str(path))} as PARQUET: "
                         f"{quote_user_text(first_line, 120)}") from None


def check_columns(available: list[str], cols: PopulationColumns) -> None:
    """Every named column must exist in the file."""
    for role, name in (("user", cols.user), ("time", cols.time), ("value", cols.value),
                       ("lat", cols.lat), ("lon", cols.lon), ("landmark", cols.landmark)):
        if name is not None and name not in available:
            shown = ", ".join(quote_user_text(c, 30) for c in available[:12])
            more = " …" if len(available) > 12 else ""
            raise InputError(f"unknown {role} column {quote_user_text(name)}; the file has: "
                             f"{shown}{more}")


def _user_label(u: object) -> str:
    return quote_user_text(str(u), 40)


def _parse_times(raw: pd.Series, col: str) -> tuple[np.ndarray, str]:
    """Times as int64/float ('number') or datetime64[ns] ('datetime'); mixed kinds are
    refused."""
    import pandas as pd

    if raw.isna().any():
        raise InputError(f"a time is missing (column {quote_user_text(col)})")
    if pd.api.types.is_datetime64_any_dtype(raw.dtype):
        t = raw.dt.tz_localize(None) if getattr(raw.dt, "tz", None) is not None else raw
        return t.to_numpy(dtype="datetime64[ns]"), "datetime"
    if pd.api.types.is_integer_dtype(raw.dtype):
        return raw.to_numpy(dtype=np.int64), "number"
    if pd.api.types.is_float_dtype(raw.dtype):
        v = raw.to_numpy(dtype=float)
        if not np.all(np.isfinite(v)):
            raise InputError(f"times must be finite numbers (column {quote_user_text(col)})")
        return v, "number"
    return _parse_time_text(raw.astype(str).str.strip())


def _parse_time_text(text: pd.Series) -> tuple[np.ndarray, str]:
    """Times written as text: all numbers (whole numbers exactly as int64), or all ISO
    dates (to naive UTC); a mix of the two is refused."""
    import pandas as pd

    nums = pd.to_numeric(text, errors="coerce")
    if nums.notna().all():
        return _text_numbers(text, nums), "number"
    if nums.notna().any():
        i = int(np.flatnonzero(nums.notna().to_numpy())[0])
        j = int(np.flatnonzero(nums.isna().to_numpy())[0])
        raise InputError(f"mixed time kinds: {quote_user_text(text.iloc[i])} is a number but "
                         f"{quote_user_text(text.iloc[j])} is not; use whole numbers or ISO "
                         "dates for every row")
    try:
        parsed = pd.to_datetime(text, format="ISO8601", utc=True)
    except (ValueError, TypeError):
        bad = next(c for c in text if _not_date(c))
        raise InputError(f"time {quote_user_text(bad)} is neither a number nor an ISO date "
                         "like 2024-03-01T08:00") from None
    return checked_ns(parsed.dt.tz_localize(None).to_numpy(), "row"), "datetime"


def _text_numbers(text: pd.Series, nums: pd.Series) -> np.ndarray:
    """Numbers read from text: whole numbers as exact int64 (even beyond float's 2⁵³),
    others as floats."""
    if not text.str.fullmatch(r"[+-]?[0-9]+").all():
        return nums.to_numpy(dtype=float)
    if nums.dtype.kind == "i":  # parsed exactly as 64-bit integers
        return nums.to_numpy(dtype=np.int64)
    return np.array([int(c) for c in text], dtype=np.int64)


def _not_date(cell: str) -> bool:
    import pandas as pd

    try:
        pd.to_datetime(cell, format="ISO8601")
        return False
    except (ValueError, TypeError):
        return True


def _flags(raw: pd.Series, col: str) -> np.ndarray:
    import pandas as pd

    if pd.api.types.is_bool_dtype(raw.dtype):
        return raw.fillna(False).to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(raw.dtype):
        v = raw.fillna(0).to_numpy(dtype=float)
        bad = ~np.isin(v, (0.0, 1.0))
        if bad.any():
            raise InputError(f"landmark column {quote_user_text(col)} holds "
                             f"{v[bad][0]:g}; use 1/true for a landmark, 0/false or empty "
                             "otherwise")
        return v == 1.0
    text = raw.fillna("").astype(str).str.strip().str.lower()
    bad = ~text.isin(_TRUE | _FALSE)
    if bad.any():
        raise InputError(f"landmark column {quote_user_text(col)} holds "
                         f"{quote_user_text(text[bad].iloc[0])}; use 1/true for a landmark, "
                         "0/false or empty otherwise")
    return text.isin(_TRUE).to_numpy()


def check_user_ids(users: pd.Series, col: str) -> None:
    """Refuse a user id longer than :data:`MAX_USER_ID_CHARS` characters (checked on
    the distinct ids; the cost is linear in the total length of the ids)."""
    if users.dtype.kind in "iub":
        return
    distinct = users.drop_duplicates().astype(str)
    lengths = distinct.str.len()
    if len(lengths) and int(lengths.max()) > MAX_USER_ID_CHARS:
        i = int(lengths.to_numpy().argmax())
        raise InputError(f"user id {quote_user_text(distinct.iloc[i], 40)} in column "
                         f"{quote_user_text(col)} has {int(lengths.iloc[i]):,} characters; "
                         f"an id has at most {MAX_USER_ID_CHARS} — shorten or number the ids")


def prepare_users(df: pd.DataFrame, cols: PopulationColumns) -> tuple[pd.DataFrame, str]:
    """Validate a frame of whole users and return it in a standard form.

    Columns of the result: ``user`` (as read), ``time`` (int64, float or datetime64),
    ``value`` or ``lat``/``lon`` (float), ``landmark`` (bool, when a flag column is
    named), sorted by (user, time) with a fresh index; and the time kind ('number' or
    'datetime'; 'none' for an empty frame).
    """
    import pandas as pd

    missing = [c for c in cols.needed() if c not in df.columns]
    if missing:
        check_columns(list(map(str, df.columns)), cols)
    if df.empty:
        out = pd.DataFrame({"user": df[cols.user], "time": df[cols.time]})
        return out, "none"
    users = df[cols.user]
    _check_user_column(users, cols.user)
    times, kind = _parse_times(df[cols.time], cols.time)
    out = pd.DataFrame({"user": users.to_numpy(), "time": times})
    if cols.value is not None:
        out["value"] = _finite(df[cols.value], cols.value, out)
    else:
        _add_points(out, df, cols)
    if cols.landmark is not None:
        out["landmark"] = _flags(df[cols.landmark], cols.landmark)
    # stable: rows with the same (user, time) keep their file order (each its own t);
    # rows already in that order (a Parquet file ordered by user) are left as they are:
    # the stable sort of an ordered table is the table itself
    if not ordered_by_user_and_time(out["user"].to_numpy(), times):
        out = out.sort_values(["user", "time"], kind="stable", ignore_index=True)
    return out, kind


def ordered_by_user_and_time(users: np.ndarray, times: np.ndarray) -> bool:
    """Whether the rows are already in the order of a stable sort by (user, time): users
    never decrease and, within a user, times never decrease. Decided only for users of a
    numeric, boolean or date type (compared as numpy compares them, which is how pandas
    orders them: ``-0.0 == 0.0``, no NaN reaches here); text ids answer False (the caller
    sorts).

    >>> ordered_by_user_and_time(np.array([1, 1, 2]), np.array([5, 7, 0]))
    True
    >>> ordered_by_user_and_time(np.array([1, 1, 2]), np.array([7, 5, 0]))
    False
    """
    if users.dtype.kind not in "biufmM" or times.dtype.kind not in "iufmM":
        return False
    if users.size < 2:
        return True
    later, earlier = users[1:], users[:-1]
    if not bool(np.all(later >= earlier)):
        return False
    same = later == earlier
    return bool(np.all(times[1:][same] >= times[:-1][same]))


def _check_user_column(users: pd.Series, col: str) -> None:
    """InputError for a row without a user id, or an id that is too long."""
    blank = users.isna().any() or (users.dtype.kind not in "iub"  # numbers are never blank
                                   and (users.astype(str).str.strip() == "").any())
    if blank:
        raise InputError(f"a row has no user id (column {quote_user_text(col)}); every "
                         "row needs the user it belongs to")
    check_user_ids(users, col)


def _add_points(out: pd.DataFrame, df: pd.DataFrame, cols: PopulationColumns) -> None:
    """Add the checked ``lat``/``lon`` columns of ``df`` to ``out`` (finite, in range)."""
    assert cols.lat is not None and cols.lon is not None  # no value column: both (__post_init__)
    out["lat"] = _finite(df[cols.lat], cols.lat, out)
    out["lon"] = _finite(df[cols.lon], cols.lon, out)
    outside = (out["lat"].abs() > 90) | (out["lon"].abs() > 180)
    if outside.any():
        bad = out[outside].iloc[0]
        raise InputError(f"user {_user_label(bad['user'])} has a point out of range "
                         f"(lat {bad['lat']:g}, lon {bad['lon']:g}); latitudes lie in "
                         "[-90, 90], longitudes in [-180, 180]")


def check_whole_numbers(users: np.ndarray, values: np.ndarray) -> None:
    """InputError naming the first user (in row order) with a value that is not a whole
    number: the geometric mechanism releases counts."""
    bad = np.flatnonzero(values != np.round(values))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"user {_user_label(users[i])} has the value {values[i]:g}: the "
                         "geometric mechanism is for whole numbers (counts); round the "
                         "data or use a configuration with the Laplace mechanism")


def user_arrays(frame: pd.DataFrame,
                track: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(data, times, flags)`` of a prepared frame (:func:`prepare_users`): the values
    (N,) or ``[lat, lon]`` rows (N, 2) of a ``track``, the times, and the landmark flags
    (None without a flag column)."""
    data = (frame[["lat", "lon"]].to_numpy(dtype=float) if track
            else frame["value"].to_numpy(dtype=float))
    flags = frame["landmark"].to_numpy(dtype=bool) if "landmark" in frame else None
    return data, frame["time"].to_numpy(), flags


def user_starts(users: np.ndarray) -> np.ndarray:
    """The first row of each user in rows sorted by user, and the number of rows at the
    end: user ``i`` holds rows ``starts[i]:starts[i + 1]``.

    >>> user_starts(np.array(["a", "a", "b", "c", "c"])).tolist()
    [0, 2, 3, 5]
    """
    return np.concatenate([[0], np.flatnonzero(users[1:] != users[:-1]) + 1, [users.size]])


def repeated_times_count(frame: pd.DataFrame) -> tuple[int, int]:
    """(rows whose time equals the previous row's of the same user, users with such
    rows) of a prepared long table (:func:`prepare_users`): kept, each its own
    timestamp (docs/data-formats.md)."""
    u = frame["user"].to_numpy()
    t = frame["time"].to_numpy()
    dup = (u[1:] == u[:-1]) & (t[1:] == t[:-1])
    return int(dup.sum()), int(np.unique(u[1:][dup]).size)


def _finite(raw: pd.Series, col: str, frame: pd.DataFrame) -> np.ndarray:
    import pandas as pd

    v = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        cell = raw.iloc[i]
        what = "is missing" if pd.isna(cell) or str(cell).strip() == "" else \
            f"is {quote_user_text(str(cell))}, not a finite number"
        raise InputError(f"user {_user_label(frame['user'].iloc[i])}: {col} at time "
                         f"{quote_user_text(str(frame['time'].iloc[i]))} {what}")
    return v


def read_population(path: str | Path, cols: PopulationColumns) -> tuple[pd.DataFrame, str]:
    """Read and validate a whole (small) population file with pandas — for the app and
    tests; the batch reads through Dask instead."""
    import pandas as pd

    check_columns(read_header(path), cols)
    if file_format(path) == "parquet":
        df = pd.read_parquet(path, columns=cols.needed())
    else:
        df = pd.read_csv(path, usecols=cols.needed(), dtype={cols.time: str})
    if df.empty:
        raise InputError(f"the input {quote_user_text(str(path))} has no rows")
    return prepare_users(df, cols)
