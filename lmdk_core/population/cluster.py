"""The Dask cluster of a batch (:mod:`lmdk_core.population.dask_driver`): the scheduler
address checked and probed before anything connects, a local cluster otherwise, signals
while the batch runs, and the shut-down that removes the scratch folders whatever
happens.

Cluster: by default a ``LocalCluster`` with one single-threaded worker process per core
(``workers`` to choose); ``scheduler='tcp://host:8786'`` uses an existing cluster,
whose workers must see the input and output paths (a shared file system).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import FrameType

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = [
    "SCHEDULER_TIMEOUT_S",
    "BatchStopped",
    "LocalThreads",
    "check_scheduler_address",
    "connect_client",
    "shut_down",
    "stop_on_signals",
    "workers_ignore_ctrl_c",
]

#: seconds to wait for a ``--scheduler`` to answer (connection and handshake)
SCHEDULER_TIMEOUT_S = 10.0

_SCHEDULER_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})")


def check_scheduler_address(scheduler: str) -> str:
    """``scheduler`` if it is ``tcp://host:port`` or ``tls://host:port`` (what
    ``dask scheduler`` prints), else InputError: a URL of another kind (``http://``,
    ``inproc://``), a file path or a bare word is refused before anything connects."""
    text = scheduler.strip()
    m = _SCHEDULER_ADDRESS.fullmatch(text)
    if m is None or not 0 < int(m.group(3)) < 65536:
        raise InputError(f"--scheduler {quote_user_text(scheduler)} is not a Dask scheduler "
                         "address; give tcp://host:port (as printed by `dask scheduler`), "
                         "or leave --scheduler out for a local cluster")
    return text


def _probe_scheduler(address: str, seconds: float) -> None:
    """Connect to ``address`` and ask for its identity, all within ``seconds``
    (``distributed.Client`` alone waits without limit on a server that accepts the
    connection but never answers, e.g. a plain HTTP server)."""
    import asyncio

    from distributed.comm import connect

    async def probe() -> object:
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds)
        try:
            await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), seconds)
            return await asyncio.wait_for(comm.read(), seconds)
        finally:
            comm.abort()

    shown = quote_user_text(address)
    try:
        reply = asyncio.run(probe())
    except TimeoutError:
        raise InputError(f"the Dask scheduler {shown} did not answer within {seconds:g} s; "
                         "check the address and that `dask scheduler` runs there") from None
    except Exception as exc:  # refused, unreachable, not a Dask server
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot reach the Dask scheduler {shown}: "
                         f"{quote_user_text(first, 120)}") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise InputError(f"{shown} answered, but not as a Dask scheduler; give the address "
                         "printed by `dask scheduler`")


def connect_client(scheduler: str | None, workers: int | None, *, threads: bool = False):
    """``(client, cluster)``: a client of the checked and probed ``scheduler``
    (``cluster`` None), or of a new local cluster of ``workers`` single-threaded worker
    processes (default: one per core) listening on localhost only; with ``threads`` (and
    no ``scheduler``) :class:`LocalThreads` of ``workers`` threads in this process instead
    (``cluster`` None)."""
    if not scheduler and threads:
        return LocalThreads(workers or os.cpu_count() or 1), None
    from dask.distributed import Client, LocalCluster

    if scheduler:
        address = check_scheduler_address(scheduler)
        _probe_scheduler(address, SCHEDULER_TIMEOUT_S)
        try:
            return Client(address, timeout=f"{SCHEDULER_TIMEOUT_S:g}s"), None
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler {quote_user_text(scheduler)}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'timeout'}") from None
    n = workers or os.cpu_count() or 1
    # localhost only, no dashboard, a free port (several runs may share a machine)
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",
                           silence_logs=50, scheduler_kwargs={"dashboard": False})
    return Client(cluster), cluster


class LocalThreads:
    """The batch's tasks run on ``workers`` threads of this process: the part of a
    ``distributed.Client`` the batch uses (``compute``, ``scheduler_info``, ``cancel``,
    ``close``), with :class:`concurrent.futures.Future` results. A task is a plain call
    (:func:`functools.partial`) or a ``dask.delayed`` one (computed by Dask's synchronous
    scheduler in the thread). No scheduler, no worker process to start, nothing pickled;
    the libraries are imported once (numba's kernels loaded once); numpy, pyarrow and the
    ``nogil`` kernels run in parallel, the rest of the Python code of two tasks shares
    one interpreter lock."""

    def __init__(self, workers: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.workers = int(workers)
        self._pool = ThreadPoolExecutor(max_workers=self.workers,
                                        thread_name_prefix="lmdk-batch")

    def compute(self, tasks: list) -> list:
        """One future per task, in order."""
        return [self._pool.submit(t) if isinstance(t, partial) else
                self._pool.submit(_compute_sync, t) for t in tasks]

    def scheduler_info(self) -> dict:
        """The workers, as ``Client.scheduler_info`` names them."""
        return {"workers": {f"thread-{i}": {} for i in range(self.workers)}}

    def cancel(self, futures) -> None:
        """Cancel the tasks that have not started (a running task finishes)."""
        for f in futures:
            f.cancel()

    def close(self, timeout: float | None = None) -> None:
        """Cancel what has not started and wait for the running tasks to end (they may
        still be writing into the scratch folders that are removed next)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _compute_sync(task):
    """One ``dask.delayed`` task computed in the calling thread."""
    return task.compute(scheduler="sync")


class BatchStopped(BaseException):
    """The batch was stopped by a signal (SIGTERM, SIGHUP); ``exit_status`` is 128 + the
    signal's number, as a shell reports it. Raised in the driver's main thread so that
    every scratch folder is removed on the way out."""

    def __init__(self, signum: int) -> None:
        import signal

        self.signum = int(signum)
        self.exit_status = 128 + self.signum
        super().__init__(f"stopped by {signal.Signals(self.signum).name}")


@contextlib.contextmanager
def _signal_handlers(handlers: dict[str, Callable[[int, FrameType | None], object] | int]):
    """While inside, in the main thread: each named signal this platform has handled by
    ``handlers[name]``, the previous handlers restored on the way out (in another thread
    Python cannot set handlers: nothing changes)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {n: signal.signal(getattr(signal, n), h)
           for n, h in handlers.items() if hasattr(signal, n)}
    try:
        yield
    finally:
        for n, handler in old.items():
            signal.signal(getattr(signal, n), handler)


def _raise_stopped(signum, frame):
    """Signal handler: stop the batch (:class:`BatchStopped`)."""
    raise BatchStopped(signum)


def stop_on_signals():
    """While the batch runs (in the main thread): SIGTERM and SIGHUP raise
    :class:`BatchStopped`, SIGINT (Ctrl-C) raises KeyboardInterrupt, so the ``finally``
    clauses stop the cluster and remove the scratch folders."""
    import signal

    return _signal_handlers({"SIGTERM": _raise_stopped, "SIGHUP": _raise_stopped,
                             "SIGINT": signal.default_int_handler})


def workers_ignore_ctrl_c():
    """Start worker processes with SIGINT ignored (inherited by the processes the local
    cluster spawns): Ctrl-C in a terminal reaches the whole process group, and workers
    that die of it print their tracebacks and are restarted while the driver is still
    stopping them. The driver alone handles Ctrl-C and stops them."""
    import signal

    return _signal_handlers({"SIGINT": signal.SIG_IGN})


def shut_down(client, cluster, futures, scratch: tuple[Path, ...]) -> None:
    """Stop the work (cancel the tasks, close the client and a local cluster), then
    remove the scratch folders; a second signal during this is ignored so that the
    clean-up finishes."""
    import signal

    with _signal_handlers(dict.fromkeys(("SIGINT", "SIGTERM", "SIGHUP"), signal.SIG_IGN)):
        _stop_work(client, cluster, futures)
        for d in scratch:
            if d.exists():
                shutil.rmtree(d, ignore_errors=True)


def _stop_work(client, cluster, futures) -> None:
    """Cancel the tasks, close the client and a local cluster, ignoring their errors."""
    if client is not None:
        with contextlib.suppress(Exception):
            if futures:
                client.cancel(futures)
        with contextlib.suppress(Exception):
            client.close(timeout=10)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=10)
