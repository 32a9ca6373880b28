"""An aggregate over a table that does not fit in memory, on Dask.

The partitions of whole users are those of ``lmdk batch``
(:func:`lmdk_core.population.dask_driver.partition_tasks`: along the row groups of a
Parquet file ordered by user, else through buckets of users on local disk); each runs
:func:`lmdk_core.aggregate.partition_work.aggregate_raw_partition` and returns its
totals (arrays of the grids' size) and its users' audit rows, which the driver adds up.
Memory is bounded by a partition plus the grids. The grids must be declared (``--start``,
``--end``, and ``--bbox`` for tracks): they are fixed before any partition is read.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import reduce
from operator import add
from pathlib import Path

from lmdk_core.aggregate.partition_work import (
    AggregateSpec,
    PartialAggregate,
    aggregate_raw_partition,
)
from lmdk_core.population.table import PopulationColumns

__all__ = ["aggregate_on_dask"]


def aggregate_on_dask(src: Path, in_fmt: str, cols: PopulationColumns, spec: AggregateSpec,
                      scratch_dir: Path, *, scheduler: str | None = None,
                      workers: int | None = None, rows_per_partition: int = 2_000_000,
                      progress: Callable[[int, int], object] | None = None) -> PartialAggregate:
    """The summed :class:`PartialAggregate` of every partition of ``src`` (see the module
    docstring); scratch buckets go to a folder inside ``scratch_dir``, removed on every
    exit."""
    from lmdk_core.population.cluster import connect_client, shut_down, workers_ignore_ctrl_c
    from lmdk_core.population.dask_driver import (
        collect_partitions,
        partition_tasks,
        row_count,
    )

    rows = row_count(src, in_fmt)
    bucket_root = scratch_dir / f".lmdk-aggregate-buckets-{uuid.uuid4().hex[:8]}"
    client = cluster = futures = None
    try:
        with workers_ignore_ctrl_c():
            client, cluster = connect_client(scheduler, workers)
        n_workers = len(client.scheduler_info().get("workers", {})) or 1
        nparts = max(n_workers, -(-rows // max(1, rows_per_partition)))
        tasks = partition_tasks(client, src, in_fmt=in_fmt, cols=cols, nparts=nparts,
                                rows_per_part=-(-rows // nparts), bucket_root=bucket_root,
                                n_workers=n_workers, work=aggregate_raw_partition,
                                work_args=(spec,))
        futures = client.compute(tasks)
        return reduce(add, collect_partitions(futures, progress))
    finally:
        shut_down(client, cluster, futures, (bucket_root,))
