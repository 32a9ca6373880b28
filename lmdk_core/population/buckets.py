"""Groups of whole users for an input that is not ordered by user, through local disk.

A long table whose rows are not ordered by user (a CSV, a folder of Parquet parts, or a
Parquet file whose row-group statistics do not show it ordered) cannot be cut into
partitions of whole users as it is read. Instead of a shuffle held in memory, two passes
keep the memory bounded by a chunk of the input and then by a partition:

1. **Scatter.** Each task reads a slice of the input in chunks (Parquet record batches
   of at most :data:`BATCH_ROWS` rows, or one CSV block) and appends every chunk's rows,
   split by :func:`bucket_ids`, to one Parquet file per bucket that this task owns
   (``b00007/p00012.parquet``: bucket 7, task 12), on the local disk beside the output.
2. **Release.** Each bucket — all the files of one ``bNNNNN`` folder, hence all the rows
   of the users hashed to it — is read back by one task, which sorts it by user and
   time and releases it as one partition.

:func:`bucket_ids` hashes the user id with pandas' fixed-key SipHash
(``pandas.util.hash_pandas_object``), so a user's bucket depends only on its id and the
number of buckets: not on the row order, the chunking, the process, nor the worker that
reads it. The release itself depends on none of these either (each user's stream is
keyed by the user), so a seed gives the same release for any row order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lmdk_core.files.atomic_write import AtomicFile, private_folder

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = ["BATCH_ROWS", "Buckets", "bucket_ids", "parquet_units", "plan_units", "read_bucket",
           "scatter_frame", "scatter_units"]

#: largest Parquet record batch read at once by a scatter task
BATCH_ROWS = 1_000_000


@dataclass(frozen=True)
class Buckets:
    """Where and how a scatter task writes: the ``user`` column that picks a row's bucket
    (:func:`bucket_ids`), the ``columns`` kept, the number of buckets ``n_buckets`` and
    the ``root`` folder of the ``bNNNNN`` bucket folders."""

    user: str
    columns: list[str]
    n_buckets: int
    root: str


def bucket_ids(users, n_buckets: int) -> np.ndarray:
    """The bucket (0 … ``n_buckets`` − 1) of every user id in ``users`` (a sequence,
    array or pandas Series): a fixed-key hash of the id modulo ``n_buckets``."""
    import pandas as pd

    s = users if isinstance(users, pd.Series) else pd.Series(np.asarray(users))
    h = pd.util.hash_pandas_object(s, index=False).to_numpy(dtype=np.uint64)
    return (h % np.uint64(max(1, int(n_buckets)))).astype(np.int64)


class _Writers:
    """One Parquet writer per bucket for one scatter task (opened on first rows; a new
    file when a chunk's schema differs from the open file's). The files hold raw rows:
    each is written through :class:`~lmdk_core.files.atomic_write.AtomicFile` (mode 0600,
    moved into place when closed) in a bucket folder of mode 0700."""

    def __init__(self, root: Path, piece: int):
        self.root, self.piece = private_folder(root, exist_ok=True), piece
        self.open: dict[int, tuple[pq.ParquetWriter, AtomicFile]] = {}
        self.files: dict[int, int] = {}
        self.rows: dict[int, int] = {}

    def _close(self, bucket: int) -> None:
        w, sink = self.open.pop(bucket)
        w.close()
        sink.commit()

    def write(self, bucket: int, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        if bucket in self.open and not self.open[bucket][0].schema.equals(table.schema):
            self._close(bucket)
        if bucket not in self.open:
            n = self.files.get(bucket, 0)
            self.files[bucket] = n + 1
            folder = private_folder(self.root / f"b{bucket:05d}", exist_ok=True)
            suffix = f"-{n}" if n else ""
            sink = AtomicFile(folder / f"p{self.piece:05d}{suffix}.parquet", "wb",
                              confidential=True)
            w = pq.ParquetWriter(sink.file, table.schema, compression="lz4",
                                 use_dictionary=False)
            self.open[bucket] = (w, sink)
        self.open[bucket][0].write_table(table)
        self.rows[bucket] = self.rows.get(bucket, 0) + table.num_rows

    def close(self) -> dict[int, int]:
        for bucket in list(self.open):
            self._close(bucket)
        return dict(self.rows)


def _split(table: pa.Table, user: str, n_buckets: int, writers: _Writers) -> None:
    """Append the rows of ``table`` to the writers of their users' buckets."""
    if table.num_rows == 0:
        return
    ids = bucket_ids(table.column(user).to_pandas(), n_buckets)
    # stable counting (radix) sort when the bucket numbers fit in 16 bits
    order = np.argsort(ids.astype(np.uint16) if n_buckets <= 2**16 else ids, kind="stable")
    counts = np.bincount(ids, minlength=n_buckets)
    ordered = table.take(order)
    start = 0
    for b in np.flatnonzero(counts).tolist():
        n = int(counts[b])
        writers.write(b, ordered.slice(start, n))
        start += n


def parquet_units(path: str | Path) -> list[tuple[str, int, int]]:
    """``(file, row_group, rows)`` of every non-empty row group of a Parquet file or
    folder of Parquet files."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    files = ds.dataset(str(path), format="parquet").files
    units = []
    for f in sorted(files):
        meta = pq.ParquetFile(f).metadata
        units += [(f, g, meta.row_group(g).num_rows) for g in range(meta.num_row_groups)
                  if meta.row_group(g).num_rows]
    return units


def plan_units(units: list[tuple[str, int, int]], target_rows: int) -> list[tuple[int, int]]:
    """Consecutive spans ``(lo, hi)`` of ``units`` of about ``target_rows`` rows each."""
    spans, lo, acc = [], 0, 0
    for i, u in enumerate(units):
        acc += u[2]
        if acc >= target_rows:
            spans.append((lo, i + 1))
            lo, acc = i + 1, 0
    if lo < len(units):
        spans.append((lo, len(units)))
    return spans


def scatter_units(units, lo: int, hi: int, piece: int, buckets: Buckets) -> dict[int, int]:
    """Scatter task ``piece`` over the row groups ``units[lo:hi]`` of a Parquet input: read
    them in record batches and append the rows to the ``buckets``; returns rows per
    bucket."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    user, columns, n_buckets = buckets.user, buckets.columns, buckets.n_buckets
    writers = _Writers(Path(buckets.root), piece)
    try:
        by_file: dict[str, list[int]] = {}
        for f, g, _ in units[lo:hi]:
            by_file.setdefault(f, []).append(g)
        for f, groups in by_file.items():
            pf = pq.ParquetFile(f)
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, row_groups=groups,
                                         columns=columns):
                _split(pa.Table.from_batches([batch]), user, n_buckets, writers)
    finally:
        rows = writers.close()
    return rows


def scatter_frame(frame: pd.DataFrame, piece: int, buckets: Buckets) -> dict[int, int]:
    """Scatter task ``piece`` over one CSV block read as text (every column a string),
    its rows appended to the ``buckets``; returns rows per bucket."""
    import pyarrow as pa

    columns = buckets.columns
    schema = pa.schema([(c, pa.string()) for c in columns])
    table = pa.Table.from_pandas(frame[columns], schema=schema, preserve_index=False)
    writers = _Writers(Path(buckets.root), piece)
    try:
        _split(table, buckets.user, buckets.n_buckets, writers)
    finally:
        rows = writers.close()
    return rows


def read_bucket(folder: str | Path) -> pd.DataFrame:
    """All the rows of one bucket (its files concatenated; any row order)."""
    import pandas as pd
    import pyarrow.parquet as pq

    files = sorted(Path(folder).glob("*.parquet"))
    frames = [pq.read_table(f).to_pandas() for f in files]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)
