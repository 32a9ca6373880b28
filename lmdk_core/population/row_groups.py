"""Partitions along the row groups of a Parquet file ordered by user: the batch's path
without a shuffle (:mod:`lmdk_core.population.dask_driver`).

Whether the file is ordered is read from the row-group statistics alone: each group's
smallest user is at least the previous group's largest. Each task then reads its own row
groups, leaves out the user it shares with the previous task and takes the tail of its
last user from the following row groups.
"""

from __future__ import annotations

from pathlib import Path

from lmdk_core.population.buckets import plan_units

__all__ = ["read_units", "row_group_plan"]


def row_group_plan(path: Path, user: str, target_rows: int):
    """Cut a Parquet input ordered by user into groups of whole row groups.

    Returns ``[(units, lo, hi), ...]`` over the list ``units`` of
    ``(file, row_group, rows, min_user, max_user)`` (task ``i`` owns ``units[lo:hi]``), or
    ``None`` when the input is not a single file or its row-group statistics do not show
    the user column ordered (missing statistics, nulls, or a group starting below the
    previous group's largest user).
    """
    if not path.is_file():
        return None  # a folder of files: the buckets (its files' order is not checked)
    try:
        units = _row_group_units(path, user)
        if not units or not _ordered(units):
            return None
    except (TypeError, ValueError, OSError):
        return None
    return units, plan_units(units, target_rows)


def _row_group_units(path: Path, user: str) -> list[tuple] | None:
    """``(file, row_group, rows, min_user, max_user)`` of every non-empty row group, or
    None when the user column is missing or a group has no usable statistics for it."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(str(path)).metadata
    names = [meta.schema.column(i).path for i in range(meta.num_columns)]
    if user not in names:
        return None
    col = names.index(user)
    units = []
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        if rg.num_rows == 0:
            continue
        st = rg.column(col).statistics
        if st is None or not st.has_min_max or st.null_count is None or st.null_count > 0:
            return None
        units.append((str(path), g, rg.num_rows, st.min, st.max))
    return units


def _ordered(units: list[tuple]) -> bool:
    """True when each group's users run from its minimum to its maximum and start at or
    after the previous group's largest user (comparisons may raise TypeError)."""
    for a, b in zip(units, units[1:], strict=False):
        if not (a[3] <= a[4] <= b[3]):
            return False
    return units[-1][3] <= units[-1][4]


def read_units(units, lo: int, hi: int, user: str, columns: list[str]):
    """Rows of the users that task ``units[lo:hi]`` owns (see :func:`row_group_plan`)."""
    import pyarrow as pa

    tables = [_read_group(units, i, columns) for i in range(lo, hi)]
    first, last = units[lo][3], units[hi - 1][4]
    shared_first = lo > 0 and units[lo - 1][4] == first  # owned by the previous task
    if shared_first:
        tables = [_user_rows(t, user, first, keep=False) for t in tables]
    if not (shared_first and last == first):
        tables += _tail_of_user(units, hi, user, last, columns)
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return table.to_pandas()


def _read_group(units, i: int, columns: list[str]):
    """The columns of row group ``units[i]`` as an Arrow table."""
    import pyarrow.parquet as pq

    f, g = units[i][0], units[i][1]
    return pq.ParquetFile(f).read_row_groups([g], columns=columns)


def _user_rows(table, user: str, value, keep: bool):
    """The rows of ``table`` whose user is ``value`` (``keep``) or is not."""
    import pyarrow as pa
    import pyarrow.compute as pc

    scalar = pa.scalar(value, table.schema.field(user).type)
    return table.filter((pc.equal if keep else pc.not_equal)(table[user], scalar))


def _tail_of_user(units, j: int, user: str, last, columns: list[str]) -> list:
    """The rows of user ``last`` in the row groups from ``units[j]`` on that start with it."""
    tail = []
    while j < len(units) and units[j][3] == last:
        tail.append(_user_rows(_read_group(units, j, columns), user, last, keep=True))
        if units[j][4] != last:
            break
        j += 1
    return tail
