"""The population batch on Dask (``dask.dataframe`` + ``dask.distributed``).

1. The file's header is checked (every named column exists) before any work.
2. The table is read lazily (``dask.dataframe.read_parquet`` / ``read_csv``) and shuffled
   on the user column into partitions that each hold **whole users** (about
   ``rows_per_partition`` rows each), so memory is bounded by a partition, not by the
   dataset (the shuffle spills to disk).
3. Every partition is released by :func:`lmdk_core.population.partition.release_partition`
   on a worker, which writes its publishable part file itself and returns only its
   audit rows (a few numbers per user) to the driver.
4. The driver writes the CONFIDENTIAL audit and, when every user's allocation passed the
   verifier, moves the publishable file into place (CSV: the parts concatenated; Parquet:
   a folder of part files, read back with ``pandas.read_parquet(folder)``).

Cluster: by default a ``LocalCluster`` with one single-threaded worker process per core
(``workers`` to choose); ``scheduler='tcp://host:8786'`` uses an existing cluster,
whose workers must see the input and output paths (a shared file system).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.table import (
    PopulationColumns,
    check_columns,
    file_format,
    read_header,
)
from lmdk_core.quoting import quote_user_text
from lmdk_core.validation import InputError

__all__ = ["BatchResult", "PUBLISHABLE_NOTE", "AUDIT_LABEL", "run_batch"]

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

    def to_dict(self) -> dict:
        """The CLI's JSON keys."""
        return dict(self.__dict__)


def _check_output(path: str | Path, what: str) -> str:
    fmt = file_format(path, what)
    p = Path(path)
    if not p.parent.exists():
        raise InputError(f"cannot write {what} {quote_user_text(str(path))}: folder "
                         f"{quote_user_text(str(p.parent))} does not exist")
    return fmt


def _client(scheduler: str | None, workers: int | None):
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler {quote_user_text(scheduler)}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'timeout'}") from None
    n = workers or os.cpu_count() or 1
    # localhost only, no dashboard, a free port (several runs may share a machine)
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",
                           silence_logs=40, scheduler_kwargs={"dashboard": False})
    return Client(cluster), cluster


def _row_count(path: Path, fmt: str) -> int:
    if fmt == "parquet":
        import pyarrow.dataset as ds

        return int(ds.dataset(str(path), format="parquet").count_rows())
    return max(1, path.stat().st_size // 40)  # CSV: a rough estimate (~40 bytes a row)


def _write_part(frame, path: Path, fmt: str, metadata: dict[str, str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt == "csv":
        frame.to_csv(path, index=False, header=False)
        return
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = {**(table.schema.metadata or {}), **{k.encode(): v.encode()
                                                 for k, v in metadata.items()}}
    pq.write_table(table.replace_schema_metadata(meta), path)


def _process(part, index: int, cols: PopulationColumns, settings: BatchSettings,
             tmp_dir: str, fmt: str, metadata: dict[str, str]):
    """Worker task: release one partition, write its part, return its audit rows."""
    res = release_partition(part, cols, settings)
    if len(res.released):
        name = f"part-{index:05d}.{'csv' if fmt == 'csv' else 'parquet'}"
        _write_part(res.released, Path(tmp_dir) / name, fmt, metadata)
    return res.audit, res.time_kind, len(res.released)


def _write_audit(audit, path: Path, fmt: str, meta: dict[str, str]) -> None:
    if fmt == "csv":
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(f"# {AUDIT_LABEL}\n")
            fh.write(f"# {json.dumps(meta, ensure_ascii=False)}\n")
            audit.to_csv(fh, index=False)
        return
    _write_part(audit, path, "parquet", {"lmdk.confidential": AUDIT_LABEL, **meta})


def _publish(tmp_dir: Path, output: Path, fmt: str, header: list[str], note: str) -> None:
    """Move the parts into place (replacing an earlier output of the same name)."""
    parts = sorted(tmp_dir.iterdir())
    if output.exists():
        if output.is_dir():
            if any(not f.name.startswith("part-") for f in output.iterdir()):
                raise InputError(f"{quote_user_text(str(output))} is a folder that holds other "
                                 "files; choose another output name")
            shutil.rmtree(output)
        else:
            output.unlink()
    if fmt == "csv":
        with open(output, "w", encoding="utf-8", newline="") as out:
            out.write(f"# {note}\n")
            out.write(",".join(header) + "\n")
            for p in parts:
                with open(p, encoding="utf-8") as fh:
                    shutil.copyfileobj(fh, out)
        shutil.rmtree(tmp_dir)
        return
    tmp_dir.rename(output)


def run_batch(cfg, input_path: str | Path, cols: PopulationColumns, output: str | Path,
              audit: str | Path, *, scheduler: str | None = None, workers: int | None = None,
              seed: int | None = None, noise: str = "exact", leakage: bool = True,
              rows_per_partition: int = 2_000_000,
              progress: Callable[[int, int], None] | None = None) -> BatchResult:
    """Release every user of ``input_path`` with configuration ``cfg`` (a
    :class:`~lmdk_core.config.ViewConfig`); see the module docstring."""
    import pandas as pd

    from lmdk_core.mechanisms.exact_noise import FAST_SAMPLER_NAME, sampler_description
    from lmdk_core.population.lockstep import PLANAR_PROTECTION
    from lmdk_core.population.streams import fresh_root_entropy

    src = Path(input_path)
    in_fmt = file_format(src)
    check_columns(read_header(src), cols)
    out_fmt = _check_output(output, "the output")
    audit_fmt = _check_output(audit, "the audit")
    if Path(output).resolve() in (Path(audit).resolve(), src.resolve()):
        raise InputError("the output must be a new file, different from the input and the audit")
    if seed is not None and (isinstance(seed, bool) or int(seed) != seed or seed < 0):
        raise InputError(f"the seed must be a whole number >= 0, got {seed!r}")
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    root = int(seed) if seed is not None else fresh_root_entropy()
    settings = BatchSettings.from_config(cfg, cols.kind, noise, root, leakage)
    settings.make_mechanism()
    if noise == "exact" and cols.kind == "series":
        sampler = sampler_description()
    else:
        sampler = FAST_SAMPLER_NAME
    if cols.kind == "track":
        sampler = PLANAR_PROTECTION
    pub_meta = {"lmdk.content": PUBLISHABLE_NOTE, "lmdk.noise": sampler}

    import dask.dataframe as dd
    from dask import delayed

    needed = cols.needed()
    if in_fmt == "parquet":
        ddf = dd.read_parquet(str(src), columns=needed)
    else:
        text_cols = {cols.user: str, cols.time: str}
        if cols.landmark:
            text_cols[cols.landmark] = str
        ddf = dd.read_csv(str(src), usecols=needed, dtype=text_cols, blocksize="64MB",
                          keep_default_na=False, na_values=[""])
    rows = _row_count(src, in_fmt)
    client, cluster = _client(scheduler, workers)
    tmp_dir = Path(output).parent / f".{Path(output).name}.tmp-{uuid.uuid4().hex[:8]}"
    tmp_dir.mkdir()
    try:
        n_workers = len(client.scheduler_info().get("workers", {})) or 1
        nparts = max(n_workers, -(-rows // max(1, rows_per_partition)))
        shuffled = ddf.shuffle(on=cols.user, npartitions=nparts) if nparts > 1 or \
            ddf.npartitions > 1 else ddf
        parts = shuffled.to_delayed()
        tasks = [delayed(_process)(p, i, cols, settings, str(tmp_dir), out_fmt, pub_meta)
                 for i, p in enumerate(parts)]
        from dask.distributed import as_completed

        futures = client.compute(tasks)
        results = []
        for done, fut in enumerate(as_completed(futures), start=1):
            results.append(fut.result())
            if progress:
                progress(done, len(futures))
        kinds = {k for _, k, _ in results if k != "none"}
        if len(kinds) > 1:
            raise InputError("mixed time kinds: some users' times are numbers and others' are "
                             "dates; use one kind for the whole file")
        audits = [a for a, _, _ in results if len(a)]
        table = (pd.concat(audits, ignore_index=True) if audits else
                 pd.DataFrame(columns=results[0][0].columns if results else []))
        if table.empty:
            raise InputError(f"the input {quote_user_text(str(src))} has no rows")
        table = table.sort_values("user", ignore_index=True)
        n_rows = int(sum(n for _, _, n in results))
        not_private = int((~table["landmark_private"].astype(bool)).sum())
        audit_meta = {
            "lmdk.seed": str(seed) if seed is not None else
            "none (fresh 128-bit OS entropy, not recorded)",
            "lmdk.noise": sampler, "lmdk.epsilon": repr(settings.epsilon),
            "lmdk.scheme": settings.scheme, "lmdk.mechanism": settings.mechanism,
            "lmdk.landmarks": f"flag column {cols.landmark}" if cols.landmark else
            "discovered per user",
        }
        _write_audit(table, Path(audit), audit_fmt, audit_meta)
        written = not_private == 0
        if written:
            header = ["user", "time"] + (["released_lat", "released_lon"]
                                         if cols.kind == "track" else ["released"])
            _publish(tmp_dir, Path(output), out_fmt, header,
                     f"{PUBLISHABLE_NOTE}; noise: {sampler}")
        return BatchResult(users=int(len(table)), rows=n_rows, not_private=not_private,
                           output_written=written, noise=sampler, partitions=len(tasks),
                           workers=n_workers)
    finally:
        if tmp_dir.exists():
            shutil.rmtree(tmp_dir, ignore_errors=True)
        client.close()
        if cluster is not None:
            cluster.close()
