"""The population batch on Dask (``dask.dataframe`` + ``dask.distributed``).

1. The file's header is checked (every named column exists) before any work.
2. Partitions that each hold **whole users** (about ``rows_per_partition`` rows each) are
   formed so that memory is bounded by a partition, not by the dataset:

   * a Parquet input whose row groups are ordered by user (checked from the row-group
     statistics alone: each group's smallest user is at least the previous group's
     largest) is cut along row-group boundaries with no shuffle; each worker reads its
     own row groups, leaves out the user it shares with the previous partition and
     takes the tail of its last user from the following row groups;
   * otherwise (a CSV, a folder of Parquet parts, a Parquet file not ordered by user)
     the rows go through local disk (:mod:`lmdk_core.population.buckets`): scatter
     tasks read the input in chunks (Parquet record batches, CSV blocks of 64 MB read as
     text) and append each chunk's rows to one Parquet file per bucket, the bucket
     being a fixed-key hash of the user id; then each bucket (all the rows of its
     users) is one partition. Memory is bounded by a chunk, then by a bucket — unlike
     a shuffle, which held several times a partition.
3. Every partition is released by :func:`lmdk_core.population.partition.release_partition`
   on a worker, which writes its publishable part file itself and returns only its
   audit rows (a few numbers per user) to the driver (a bucket's files are deleted as
   soon as it is released).
4. The driver writes the CONFIDENTIAL audit and, when every user's allocation passed the
   verifier, moves the publishable file into place (CSV: the parts concatenated; Parquet:
   a folder of part files, read back with ``pandas.read_parquet(folder)``).

The cluster (a local one, or ``scheduler='tcp://host:8786'``), the signals and the
shut-down are :mod:`lmdk_core.population.cluster`; the row-group path is
:mod:`lmdk_core.population.row_groups`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from lmdk_core.files.atomic_write import AtomicFile, private_folder, replace_folder
from lmdk_core.files.export import max_landmarks_line, rounding_line
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.population.buckets import (
    Buckets,
    parquet_units,
    plan_units,
    read_bucket,
    scatter_frame,
    scatter_units,
)
from lmdk_core.population.cluster import (
    BatchStopped,
    LocalThreads,
    check_scheduler_address,
    connect_client,
    shut_down,
    stop_on_signals,
    workers_ignore_ctrl_c,
)
from lmdk_core.population.partition import UNDECLARED_K_LABEL, BatchSettings, release_partition
from lmdk_core.population.row_groups import read_units, row_group_plan
from lmdk_core.population.table import (
    PopulationColumns,
    check_columns,
    check_parquet_parts,
    file_format,
    read_header,
)

__all__ = ["BatchResult", "BatchStopped", "LOCAL_THREADS_MAX_ROWS", "PUBLISHABLE_NOTE",
           "AUDIT_LABEL", "TaskError",
           "collect_partitions", "partition_tasks", "row_count",
           "check_scheduler_address", "run_batch"]

#: inputs of at most this many rows (ten partitions of the default size; a CSV's rows
#: estimated from its size) run on ``--workers`` threads of the batch's own process
#: (:class:`~lmdk_core.population.cluster.LocalThreads`) when no ``--scheduler`` is given:
#: a local cluster's start (scheduler, nannies, worker processes each importing pandas,
#: Dask and ``lmdk_core``: about 3 s of CPU on 2 workers) would cost more than the
#: release itself. Larger inputs get the local cluster of worker processes, whose
#: Python-bound steps (Adaptive's lockstep loop, the audit's per-user columns) then run
#: in parallel instead of taking turns at one interpreter lock.
LOCAL_THREADS_MAX_ROWS = 20_000_000

#: written into every publishable file (Parquet metadata / CSV first line)
PUBLISHABLE_NOTE = "released values only (no raw data, landmarks, budgets or seeds)"
#: written into every audit file
AUDIT_LABEL = ("CONFIDENTIAL — per-user landmark counts, verdicts, leakage and errors of a "
               "landmark-private release; keep with the raw data")


@dataclass
class BatchResult:
    """Summary of a finished batch (the audit table itself is written to disk)."""

    users: int
    rows: int
    not_private: int
    output_written: bool
    noise: str
    partitions: int
    workers: int
    #: users per utility level (:mod:`lmdk_core.decision.utility`): useful, marginal, not useful,
    #: not judged (no scale to compare with)
    utility_counts: dict[str, int] = field(default_factory=dict)
    #: the median over users of their typical expected error (data units; m for tracks)
    median_expected_error: float | None = None

    @property
    def not_useful(self) -> int:
        return int(self.utility_counts.get("not useful", 0))

    def to_dict(self) -> dict:
        """The CLI's JSON keys (``not_useful``: users whose release is noise)."""
        return {**self.__dict__, "not_useful": self.not_useful}


def _check_output(path: str | Path, what: str) -> str:
    fmt = file_format(path, what)
    p = Path(path)
    if not p.parent.exists():
        raise InputError(f"cannot write {what} {quote_user_text(str(path))}: folder "
                         f"{quote_user_text(str(p.parent))} does not exist")
    return fmt



def row_count(path: Path, fmt: str) -> int:
    """The number of rows of an input table: exact for Parquet (its metadata), an
    estimate for CSV (file size / 40 bytes, at least 1); it sizes the partitions and
    chooses between an in-process run and Dask."""
    if fmt == "parquet":
        import pyarrow.dataset as ds

        return int(ds.dataset(str(path), format="parquet").count_rows())
    return max(1, path.stat().st_size // 40)  # CSV: a rough estimate (~40 bytes a row)


def _write_part(frame, path: Path, fmt: str, metadata: dict[str, str], *,
                confidential: bool = False) -> None:
    """One table as a CSV part (no header) or a Parquet file with ``metadata``, written
    whole through :class:`~lmdk_core.files.atomic_write.AtomicFile` (mode 0600 when
    ``confidential``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt == "csv":
        with AtomicFile(path, "w", confidential=confidential) as fh:
            frame.to_csv(fh, index=False, header=False)
        return
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = {**(table.schema.metadata or {}), **{k.encode(): v.encode()
                                                 for k, v in metadata.items()}}
    with AtomicFile(path, "wb", confidential=confidential) as fh:
        pq.write_table(table.replace_schema_metadata(meta), fh)


@dataclass(frozen=True)
class TaskError:
    """What a worker task returns instead of raising on bad input: raising would make
    the worker log its traceback on the terminal before the driver's one line."""

    message: str


def _process(part, index: int, cols: PopulationColumns, settings: BatchSettings,
             tmp_dir: str, fmt: str, metadata: dict[str, str]):
    """Worker task: release one partition, write its part, return its audit rows (or a
    :class:`TaskError`)."""
    try:
        res = release_partition(part, cols, settings)
    except InputError as exc:
        return TaskError(str(exc))
    if len(res.released):
        name = f"part-{index:05d}.{'csv' if fmt == 'csv' else 'parquet'}"
        _write_part(res.released, Path(tmp_dir) / name, fmt, metadata)
    return res.audit, res.time_kind, len(res.released)


def _units_task(work: Callable, units, lo: int, hi: int, index: int,
                cols: PopulationColumns, *args):
    """Worker task of the sorted path: read the owned rows, then ``work(part, index, cols,
    *args)``."""
    try:
        part = read_units(units, lo, hi, cols.user, cols.needed())
    except Exception as exc:  # pyarrow reading errors
        return TaskError(str(_read_error(exc, Path(units[lo][0]), "parquet")))
    return work(part, index, cols, *args)


def _bucket_task(work: Callable, folder: str, index: int, cols: PopulationColumns, *args):
    """Worker task of the bucket path: read one bucket, ``work(part, index, cols, *args)``,
    delete its files."""
    try:
        return work(read_bucket(folder), index, cols, *args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _guarded_scatter(task: Callable, src: str, fmt: str, *args) -> dict[int, int] | TaskError:
    """Worker task: a scatter task whose reading errors come back as a :class:`TaskError`."""
    try:
        return task(*args)
    except InputError as exc:
        return TaskError(str(exc))
    except Exception as exc:  # pyarrow / pandas reading errors
        return TaskError(str(_read_error(exc, Path(src), fmt)))


def _result(fut):
    """A finished future's value; a :class:`TaskError` becomes the driver's InputError."""
    value = fut.result()
    if isinstance(value, TaskError):
        raise InputError(value.message)
    return value


def _read_error(exc: Exception, src: Path, fmt: str) -> InputError:
    text = str(exc).strip()
    if "Original Message:" in text:  # dask wraps the reader's own message
        text = text.split("Original Message:", 1)[1].strip()
    first = text.splitlines()[0].strip() if text else type(exc).__name__
    return InputError(f"cannot read {quote_user_text(str(src))} as {fmt.upper()}: "
                      f"{quote_user_text(first, 120)}")


def _scatter(client, src: Path, fmt: str, cols: PopulationColumns, n_buckets: int,
             target_rows: int, root: Path) -> list[int]:
    """First pass of the bucket path (see the module docstring): the buckets that got
    rows, in order."""
    make_tasks = _parquet_scatter_tasks if fmt == "parquet" else _csv_scatter_tasks
    try:
        tasks = make_tasks(client, src, cols, n_buckets, target_rows, root)
    except InputError:
        raise
    except Exception as exc:  # pyarrow / pandas reading errors
        raise _read_error(exc, src, fmt) from None
    futures = client.compute(tasks)
    for _ in _as_completed(futures):
        pass
    filled: set[int] = set()
    for fut in futures:
        try:
            filled.update(b for b, n in _result(fut).items() if n)
        except InputError:
            raise
        except Exception as exc:  # reading the CSV blocks (dask's own tasks)
            raise _read_error(exc, src, fmt) from None
    return sorted(filled)


def _known_work(client, rows: int):
    """A context in which this process expects ``rows`` cells of work when the tasks run
    on its own threads (:func:`lmdk_core.adaptive.block_kernel.expected_cells`: a
    choice of path only, the same outputs); no context for a cluster's workers."""
    if isinstance(client, LocalThreads):
        from lmdk_core.adaptive.block_kernel import expected_cells

        return expected_cells(rows)
    return contextlib.nullcontext()


def _task(client, fn: Callable, *args):
    """The call ``fn(*args)`` as a task of ``client``: a plain call for the threads of
    :class:`~lmdk_core.population.cluster.LocalThreads` (nothing of Dask imported), a
    ``dask.delayed`` call for a Dask cluster."""
    if isinstance(client, LocalThreads):
        return partial(fn, *args)
    from dask import delayed

    return delayed(fn)(*args)


def _shared(client, value):
    """``value`` handed to many tasks of ``client``: as it is for threads, one
    ``dask.delayed`` object (sent once, not inside every task) for a Dask cluster."""
    if isinstance(client, LocalThreads):
        return value
    from dask import delayed

    return delayed(value, traverse=False)


def _parquet_scatter_tasks(client, src: Path, cols: PopulationColumns, n_buckets: int,
                           target_rows: int, root: Path) -> list:
    """One scatter task per run of about ``target_rows`` rows of Parquet record batches."""
    units = parquet_units(src)
    units_d = _shared(client, units)
    buckets = Buckets(cols.user, cols.needed(), n_buckets, str(root))
    return [_task(client, _guarded_scatter, scatter_units, str(src), "parquet", units_d, lo,
                  hi, i, buckets)
            for i, (lo, hi) in enumerate(plan_units(units, target_rows))]


def _csv_scatter_tasks(client, src: Path, cols: PopulationColumns, n_buckets: int,
                       target_rows: int, root: Path) -> list:
    """One scatter task per 64 MB block of the CSV, read as text (``target_rows`` unused:
    the blocks set the size)."""
    import dask.dataframe as dd

    needed = cols.needed()
    ddf = dd.read_csv(str(src), usecols=needed, dtype={c: str for c in needed},
                      blocksize="64MB", keep_default_na=False, na_values=[""])
    buckets = Buckets(cols.user, needed, n_buckets, str(root))
    if isinstance(client, LocalThreads):  # each thread reads its own block
        return [partial(_guarded_scatter, _scatter_csv_block, str(src), "csv", p, i, buckets)
                for i, p in enumerate(ddf.to_delayed())]
    from dask import delayed

    return [delayed(_guarded_scatter)(scatter_frame, str(src), "csv", p, i, buckets)
            for i, p in enumerate(ddf.to_delayed())]


def _scatter_csv_block(block, piece: int, buckets: Buckets) -> dict[int, int]:
    """Read one CSV block (a ``dask.delayed`` frame) in this thread and scatter it."""
    return scatter_frame(block.compute(scheduler="sync"), piece, buckets)


def _write_audit(audit, path: Path, fmt: str, meta: dict[str, str]) -> None:
    """The CONFIDENTIAL audit, mode 0600, written whole (never through a link at
    ``path``: :mod:`lmdk_core.files.atomic_write`)."""
    if fmt == "csv":
        with AtomicFile(path, "w", confidential=True) as fh:
            fh.write(f"# {AUDIT_LABEL}\n")
            fh.write(f"# {json.dumps(meta, ensure_ascii=False)}\n")
            audit.to_csv(fh, index=False)
        return
    _write_part(audit, path, "parquet", {"lmdk.confidential": AUDIT_LABEL, **meta},
                confidential=True)


def _publish(tmp_dir: Path, output: Path, fmt: str, header: list[str], note: str) -> None:
    """Move the parts into place (replacing an earlier output of the same name, or a
    link of that name — never the link's target): a CSV written whole beside the output
    and renamed, a Parquet folder renamed (:mod:`lmdk_core.files.atomic_write`)."""
    parts = sorted(tmp_dir.iterdir())
    if output.is_dir() and not output.is_symlink() and any(
            not f.name.startswith("part-") for f in output.iterdir()):
        raise InputError(f"{quote_user_text(str(output))} is a folder that holds other "
                         "files; choose another output name")
    if fmt == "csv":
        if output.is_dir() and not output.is_symlink():
            shutil.rmtree(output)
        with AtomicFile(output, "w", confidential=False) as out:
            out.write(f"# {note}\n")
            out.write(",".join(header) + "\n")
            for p in parts:
                with open(p, encoding="utf-8") as fh:
                    shutil.copyfileobj(fh, out)
        shutil.rmtree(tmp_dir)
        return
    replace_folder(tmp_dir, output)


def run_batch(cfg, input_path: str | Path, cols: PopulationColumns, output: str | Path,
              audit: str | Path, *, scheduler: str | None = None, workers: int | None = None,
              seed: int | None = None, noise: str = "exact", leakage: bool = True,
              rows_per_partition: int = 2_000_000,
              progress: Callable[[int, int, int], object] | None = None,
              other_inputs: dict[str, str | Path | None] | None = None) -> BatchResult:
    """Release every user of ``input_path`` with configuration ``cfg`` (a
    :class:`~lmdk_core.files.config.ViewConfig`); see the module docstring.
    ``progress(done, total, users)`` after each partition: partitions done and in all,
    and the users of the one just finished.

    Paths are made absolute first (the workers of a ``scheduler`` run in other
    folders). Neither output may be the input, lie inside it, or be the other output
    (``other_inputs``, e.g. the configuration file, are protected alike:
    :func:`lmdk_core.files.output_paths.check_outputs`). Scratch folders beside the output
    are removed on every exit: success, error, Ctrl-C, SIGTERM (:class:`BatchStopped`).
    """
    from lmdk_core.files.output_paths import check_outputs

    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
    src = Path(input_path).absolute()
    output, audit = Path(output).absolute(), Path(audit).absolute()
    check_outputs({"--input": src, **(other_inputs or {})},
                  {"--output": output, "--audit": audit}, allow_folder=frozenset({"--output"}))
    in_fmt = file_format(src)
    check_columns(read_header(src), cols)
    check_parquet_parts(src, cols)
    out_fmt = _check_output(output, "the output")
    audit_fmt = _check_output(audit, "the audit")
    _check_seed_and_workers(seed, workers)
    with stop_on_signals():
        return _run(cfg, src, in_fmt, cols, output, out_fmt, audit, audit_fmt,
                    scheduler=scheduler, workers=workers, seed=seed, noise=noise,
                    leakage=leakage, rows_per_partition=rows_per_partition, progress=progress)


def _check_seed_and_workers(seed: int | None, workers: int | None) -> None:
    """InputError unless ``seed`` is None or a whole number ≥ 0 and ``workers`` None or ≥ 1."""
    if seed is not None and (isinstance(seed, bool) or int(seed) != seed or seed < 0):
        raise InputError(f"the seed must be a whole number >= 0, got {seed!r}")
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")


def _sampler_text(noise: str, kind: str, seed: int | None, settings: BatchSettings) -> str:
    """The noise named in the output files: the exact samplers (Mironov, CCS 2012) for an
    exact release — discrete Laplace for series, the exact Planar Laplace on the declared
    region's grid for tracks — numpy's otherwise (tracks: :data:`PLANAR_PROTECTION`);
    with a fixed seed and numpy's noise the file says that the seed regenerates it."""
    from lmdk_core.mechanisms.exact_noise import FAST_SAMPLER_NAME, sampler_description
    from lmdk_core.mechanisms.exact_planar import ExactPlanarLaplace
    from lmdk_core.population.lockstep import PLANAR_PROTECTION

    exact = noise == "exact"
    if kind == "track":
        mech = settings.make_mechanism()
        # tracks with exact noise: the exact Planar Laplace on the declared region's grid
        sampler = mech.sampler if exact and isinstance(mech, ExactPlanarLaplace) \
            else PLANAR_PROTECTION
    else:
        sampler = sampler_description() if exact else FAST_SAMPLER_NAME
    if seed is not None and not exact:
        # a given seed fixes the noise: the file says so (never called safe to publish
        # while the seed is known; the seed itself is not written)
        sampler = (f"{sampler}; drawn from a fixed --seed: whoever knows the seed "
                   "regenerates the noise and recovers the data")
    return sampler


def partition_tasks(client, src: Path, *, in_fmt: str, cols: PopulationColumns, nparts: int,
                    rows_per_part: int, bucket_root: Path, n_workers: int, work: Callable,
                    work_args: tuple = ()) -> list:
    """One delayed task per partition of whole users, each running ``work(part, index,
    cols, *work_args)`` on the partition's raw rows (a pandas frame): along the Parquet row
    groups when the file is ordered by user (no shuffle), else over buckets of users
    scattered to disk (:func:`_scatter`). ``work`` returns a :class:`TaskError` for bad
    input. Used by ``lmdk batch`` and ``lmdk aggregate``."""
    args = tuple(work_args)

    plan = (row_group_plan(src, cols.user, rows_per_part) if in_fmt == "parquet" else None)
    if plan is not None and len(plan[1]) >= n_workers:
        units, spans = plan
        units_d = _shared(client, units)
        return [_task(client, _units_task, work, units_d, lo, hi, i, cols, *args)
                for i, (lo, hi) in enumerate(spans)]
    private_folder(bucket_root)
    filled = _scatter(client, src, in_fmt, cols, nparts, rows_per_part, bucket_root)
    return [_task(client, _bucket_task, work, str(bucket_root / f"b{b:05d}"), i, cols, *args)
            for i, b in enumerate(filled)]


def collect_partitions(futures, progress: Callable[..., object] | None,
                       users_of: Callable[[object], int] | None = None) -> list:
    """The partitions' results as they finish, reporting ``progress(done, total)`` —
    ``progress(done, total, users)`` with ``users_of`` (the users of a finished
    partition's result)."""
    results = []
    for done, fut in enumerate(_as_completed(futures), start=1):
        value = _result(fut)
        results.append(value)
        if progress:
            progress(done, len(futures), *(() if users_of is None else (users_of(value),)))
    return results


def _as_completed(futures):
    """The futures as they finish: Dask's (a cluster) or ``concurrent.futures``' (the
    threads of :class:`~lmdk_core.population.cluster.LocalThreads`)."""
    from concurrent.futures import Future, as_completed

    if futures and isinstance(futures[0], Future):
        return as_completed(futures)
    from dask.distributed import as_completed as dask_as_completed

    return dask_as_completed(futures)


def _partition_users(result) -> int:
    """The users of a released partition (its audit rows)."""
    return len(result[0])


def _check_one_time_kind(results: list) -> None:
    """InputError when some partitions' times are numbers and others' dates."""
    kinds = {k for _, k, _ in results if k != "none"}
    if len(kinds) > 1:
        raise InputError("mixed time kinds: some users' times are numbers and others' are "
                         "dates; use one kind for the whole file")


def _audit_table(results: list, src: Path):
    """The audit rows of every partition, by user; refuses mixed time kinds and an
    input without rows."""
    import pandas as pd

    _check_one_time_kind(results)
    audits = [a for a, _, _ in results if len(a)]
    table = (pd.concat(audits, ignore_index=True) if audits else
             pd.DataFrame(columns=results[0][0].columns if results else []))
    if table.empty:
        raise InputError(f"the input {quote_user_text(str(src))} has no rows")
    return table.sort_values("user", ignore_index=True)


def _audit_meta(seed: int | None, sampler: str, settings: BatchSettings,
                cols: PopulationColumns) -> dict[str, str]:
    """The CONFIDENTIAL audit's metadata: seed, noise, ε, scheme, mechanism, landmarks."""
    return {
        "lmdk.seed": str(seed) if seed is not None else
        "none (fresh 128-bit OS entropy, not recorded)",
        "lmdk.noise": sampler, "lmdk.epsilon": repr(settings.epsilon),
        "lmdk.scheme": settings.scheme, "lmdk.mechanism": settings.mechanism,
        "lmdk.landmarks": f"flag column {cols.landmark}" if cols.landmark else
        "discovered per user",
    }


def _batch_result(table, n_rows: int, not_private: int, written: bool, sampler: str,
                  partitions: int, n_workers: int) -> BatchResult:
    """The summary of a finished batch (utility levels and the median expected error
    read from the audit)."""
    import pandas as pd

    levels = table["utility"].astype(str).value_counts()
    med = float(pd.to_numeric(table["expected_error"], errors="coerce").median())
    return BatchResult(users=int(len(table)), rows=n_rows, not_private=not_private,
                       output_written=written, noise=sampler, partitions=partitions,
                       workers=n_workers,
                       utility_counts={str(k): int(v) for k, v in levels.items()},
                       median_expected_error=med if pd.notna(med) else None)


def _run(cfg, src: Path, in_fmt: str, cols: PopulationColumns, output: Path, out_fmt: str,
         audit: Path, audit_fmt: str, *, scheduler, workers, seed, noise, leakage,
         rows_per_partition, progress) -> BatchResult:
    """The body of :func:`run_batch` once its arguments are checked: partition, release
    every user on the cluster, write the audit, publish the output only when every user
    is landmark-private, and remove the scratch folders whatever happens."""
    from lmdk_core.population.streams import fresh_root_entropy

    root = int(seed) if seed is not None else fresh_root_entropy()
    settings = BatchSettings.from_config(cfg, cols.kind, noise, root, leakage)
    settings.make_mechanism()
    sampler = _sampler_text(noise, cols.kind, seed, settings)
    label = f"{UNDECLARED_K_LABEL}; " if settings.shows_landmark_count() else ""
    pub_meta = {"lmdk.content": label + PUBLISHABLE_NOTE, "lmdk.noise": sampler,
                "lmdk.rounding": rounding_line(settings.release_decimals()),
                **({"lmdk.max_landmarks": max_landmarks_line(settings.max_landmarks)}
                   if settings.max_landmarks is not None else {})}

    rows = row_count(src, in_fmt)
    tag = uuid.uuid4().hex[:8]
    tmp_dir = output.parent / f".{output.name}.tmp-{tag}"
    bucket_root = output.parent / f".{output.name}.buckets-{tag}"
    client = cluster = futures = None
    try:
        with workers_ignore_ctrl_c():
            client, cluster = connect_client(scheduler, workers,
                                             threads=rows <= LOCAL_THREADS_MAX_ROWS)
        private_folder(tmp_dir)
        n_workers = len(client.scheduler_info().get("workers", {})) or 1
        nparts = max(n_workers, -(-rows // max(1, rows_per_partition)))
        tasks = partition_tasks(client, src, in_fmt=in_fmt, cols=cols, nparts=nparts,
                                rows_per_part=-(-rows // nparts), bucket_root=bucket_root,
                                n_workers=n_workers, work=_process,
                                work_args=(settings, str(tmp_dir), out_fmt, pub_meta))
        # on threads of this process the batch's rows are this process's work: the
        # compiled Adaptive block loads at the first block when that work pays for it
        with _known_work(client, rows):
            futures = client.compute(tasks)
            results = collect_partitions(futures, progress, _partition_users)
        table = _audit_table(results, src)
        not_private = int((~table["landmark_private"].astype(bool)).sum())
        _write_audit(table, audit, audit_fmt, _audit_meta(seed, sampler, settings, cols))
        written = not_private == 0
        if written:
            header = ["user", "time"] + (["released_lat", "released_lon"]
                                         if cols.kind == "track" else ["released"])
            _publish(tmp_dir, output, out_fmt, header,
                     f"{label}{PUBLISHABLE_NOTE}; noise: {sampler}; "
                     + rounding_line(settings.release_decimals())
                     + ("; " + max_landmarks_line(settings.max_landmarks)
                        if settings.max_landmarks is not None else ""))
        return _batch_result(table, int(sum(n for _, _, n in results)), not_private, written,
                             sampler, len(tasks), n_workers)
    finally:
        shut_down(client, cluster, futures, (tmp_dir, bucket_root))


