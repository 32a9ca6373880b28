"""``lmdk batch`` without ``--scheduler`` runs its partitions on threads of its own process
(:class:`lmdk_core.population.cluster.LocalThreads`) instead of a local cluster of worker
processes. The release depends neither on the process nor on the thread that releases a
partition (each user's stream is keyed by the user): the files written on threads are
the files written by worker processes, byte for byte, on an ordered Parquet input (cut
along its row groups) and on a shuffled CSV (the bucket path), with the default audit."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from lmdk_core.files.config import ViewConfig
from lmdk_core.population.cluster import LocalThreads, connect_client
from lmdk_core.population.dask_driver import LOCAL_THREADS_MAX_ROWS, run_batch
from lmdk_core.population.table import PopulationColumns

SEED = 29  # seed of the releases compared below
COLS = PopulationColumns(user="uid", time="t", value="kwh", landmark="event")


def _population(users: int = 30, rows: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(6)  # data, not noise
    df = pd.DataFrame({"uid": np.repeat(np.arange(users) * 5 + 1, rows),
                       "t": np.tile(np.arange(rows) * 3600, users),
                       "kwh": 10 + rng.normal(0, 1, users * rows).cumsum() / 10,
                       "event": rng.random(users * rows) < 0.02})
    return df.iloc[rng.random(len(df)) > 0.05].reset_index(drop=True)  # uneven users


def _files(folder) -> dict[str, bytes]:
    """Every file under ``folder`` by its name (a file alone: under the name "")."""
    if folder.is_file():
        return {"": folder.read_bytes()}
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_threads_write_what_worker_processes_write(tmp_path, cluster, fmt, scheme):
    df = _population()
    src = tmp_path / f"pop.{fmt}"
    if fmt == "parquet":
        df.to_parquet(src, row_group_size=700)  # ordered by user: cut along row groups
    else:
        df.sample(frac=1.0, random_state=2).to_csv(src, index=False)  # buckets
    cfg = ViewConfig(scheme=scheme, epsilon=1.0)
    runs = {}
    for how, kw in (("threads", {"workers": 2}),
                    ("processes", {"scheduler": cluster.scheduler_address})):
        out, audit = tmp_path / f"r-{how}.{fmt}", tmp_path / f"a-{how}.{fmt}"
        res = run_batch(cfg, src, COLS, out, audit, seed=SEED, noise="fast",
                        rows_per_partition=1500, **kw)
        runs[how] = (res, _files(out), _files(audit))
    (res_t, out_t, audit_t), (res_p, out_p, audit_p) = runs["threads"], runs["processes"]
    assert res_t.partitions == res_p.partitions > 1
    assert res_t.workers == 2 and res_t.users == res_p.users == 30
    assert res_t.output_written == res_p.output_written
    assert list(out_t) == list(out_p) and out_t == out_p
    assert audit_t == audit_p


def test_local_runs_use_threads_and_a_scheduler_does_not(cluster):
    client, local = connect_client(None, 3, threads=True)
    try:
        assert isinstance(client, LocalThreads) and local is None
        assert len(client.scheduler_info()["workers"]) == 3
    finally:
        client.close()
    remote, none = connect_client(cluster.scheduler_address, None, threads=True)
    try:
        assert not isinstance(remote, LocalThreads) and none is None
    finally:
        remote.close()


def test_closing_the_threads_waits_for_the_running_task_and_drops_the_others():
    """The driver removes the scratch folders right after closing: a task still running
    then could write raw rows into a folder already removed (or re-create it)."""
    from dask import delayed

    started, release = threading.Event(), threading.Event()
    log: list[str] = []

    def running():
        started.set()
        release.wait(60)
        log.append("running task done")

    def waiting():
        log.append("waiting task ran")

    runner = LocalThreads(1)
    futures = runner.compute([delayed(running)(), delayed(waiting)()])
    assert started.wait(60)
    seen_at_close: list[list[str]] = []

    def close():
        runner.cancel(futures)
        runner.close()
        seen_at_close.append(list(log))

    closer = threading.Thread(target=close)
    closer.start()
    release.set()
    closer.join(60)
    assert seen_at_close == [["running task done"]]
    assert futures[1].cancelled() and log == ["running task done"]


@pytest.mark.parametrize("limit, threads", [(10**9, True), (10, False)])
def test_small_inputs_run_on_threads_large_ones_on_worker_processes(tmp_path, monkeypatch,
                                                                    limit, threads):
    """The choice follows the input's rows (at most LOCAL_THREADS_MAX_ROWS, 20 M); the spy runs
    both on threads, so only the choice is under test here (the releases are the same
    either way: above)."""
    from lmdk_core.population import dask_driver

    asked: list[bool] = []
    real = dask_driver.connect_client

    def spy(scheduler, workers, *, threads=False):
        asked.append(threads)
        return real(scheduler, workers, threads=True)

    monkeypatch.setattr(dask_driver, "LOCAL_THREADS_MAX_ROWS", limit)
    monkeypatch.setattr(dask_driver, "connect_client", spy)
    src = tmp_path / "pop.parquet"
    _population(users=4, rows=20).to_parquet(src)
    res = run_batch(ViewConfig(), src, COLS, tmp_path / "r.parquet", tmp_path / "a.parquet",
                    seed=SEED, noise="fast", workers=1)
    assert asked == [threads] and res.users == 4
    assert LOCAL_THREADS_MAX_ROWS >= 1000 * 8760  # issue 39's batch runs on threads
