"""The progress line of ``lmdk batch`` on stderr (shown when stderr is a terminal or with
``--progress``).

A line when a partition finishes — partitions done, users released so far, their rate
and the time elapsed — and, while the workers run, a line every :data:`HEARTBEAT_S`
seconds without news, so a long run never looks stuck::

    lmdk: batch: 1 of 4 partitions, 250,000 users released (41,700 users/s), 6 s elapsed

Only counts and times: nothing about the data.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

__all__ = ["HEARTBEAT_S", "BatchProgress"]

#: seconds without a finished partition before the line is repeated with the new time
HEARTBEAT_S = 5.0


class BatchProgress:
    """Progress lines on ``stream``: call :meth:`partition_done` (``run_batch``'s
    ``progress``) as partitions finish; use as a context manager for the heartbeat."""

    def __init__(self, stream: TextIO | None = None, heartbeat_s: float = HEARTBEAT_S):
        self.stream = stream if stream is not None else sys.stderr
        self.heartbeat_s = float(heartbeat_s)
        self.start = time.monotonic()
        self.done = self.total = self.users = 0
        self._last = self.start
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def line(self) -> str:
        """The current progress line."""
        elapsed = time.monotonic() - self.start
        if not self.total:
            return f"lmdk: batch: starting ({elapsed:,.0f} s elapsed)"
        rate = f" ({self.users / elapsed:,.0f} users/s)" if self.users and elapsed > 0 else ""
        return (f"lmdk: batch: {self.done:,} of {self.total:,} partitions, "
                f"{self.users:,} users released{rate}, {elapsed:,.0f} s elapsed")

    def _print(self) -> None:
        with self._lock:
            print(self.line(), file=self.stream, flush=True)
            self._last = time.monotonic()

    def partition_done(self, done: int, total: int, users: int = 0) -> None:
        """Partition ``done`` of ``total`` finished with ``users`` users: a line."""
        self.done, self.total = int(done), int(total)
        self.users += int(users)
        self._print()

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat_s)):
            if time.monotonic() - self._last >= self.heartbeat_s:
                self._print()

    def __enter__(self) -> BatchProgress:
        self._thread = threading.Thread(target=self._beat, name="lmdk-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
