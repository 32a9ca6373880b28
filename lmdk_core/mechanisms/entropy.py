"""Random bits from the operating system's CSPRNG, in bulk, for the exact noise sampler.

The exact discrete Laplace sampler (:mod:`lmdk_core.mechanisms.discrete_laplace`) reads
random bits, never a seeded generator: a publishable release must not be reproducible
from a seed, and a predictable generator (numpy's PCG64 is one) would let whoever
recovers its state subtract the noise. :class:`EntropyStream` holds a buffer of 64-bit
words filled by ``os.urandom`` (the kernel's ``getrandom``: ChaCha20 reseeded from the
kernel's entropy pool) and a *bit reservoir*: the sampler consumes single bits and short
bit strings, so one word serves several draws.

Every bit is used at most once: the buffer and the reservoir are mutated in place by
whoever draws (the Python reference, or the compiled kernel, whose caller refills the
buffer with :meth:`EntropyStream.refill_keeping_unread`), under one lock per process,
and a forked child process discards what its parent had buffered
(``os.register_at_fork``), so a Dask or multiprocessing worker never re-uses its
parent's bits.

The source of the words is :data:`PROVIDER` ``[0]``, ``os.urandom`` in production; the
tests swap in a seeded source only to compare the reference and the compiled sampler
bit for bit on the same stream.
"""

from __future__ import annotations

import os
import threading

import numpy as np

__all__ = ["PROVIDER", "BitReader", "EntropyStream", "os_entropy", "refill_words", "stream"]

#: 64-bit words per refill (512 KiB: one ``getrandom`` call serves ~45,000 values)
WORDS = 65536


def os_entropy(words: np.ndarray) -> None:
    """Fill ``words`` (uint64, in place) with bytes from ``os.urandom``."""
    words[:] = np.frombuffer(os.urandom(words.size * 8), dtype=np.uint64)


#: the word source, ``f(words)`` filling a uint64 array in place (looked up at each
#: refill, so a test can swap it)
PROVIDER: list = [os_entropy]


def refill_words(words: np.ndarray) -> None:
    """Fill ``words`` from :data:`PROVIDER`."""
    PROVIDER[0](words)


class EntropyStream:
    """A buffer of random 64-bit ``words`` and its ``state``: uint64 ``[position of the
    next unread word, bit reservoir, bits left in the reservoir, spent flag]`` (the flag:
    the compiled kernel ran out of words). The buffer starts empty (position = its
    size), so the first draw refills it."""

    def __init__(self, size: int = WORDS) -> None:
        self.words = np.zeros(size, dtype=np.uint64)
        self.state = np.array([size, 0, 0, 0], dtype=np.uint64)
        self.lock = threading.Lock()

    def refill_keeping_unread(self) -> None:
        """Move the unread words to the front and fill the rest from the provider: the
        stream goes on exactly where it was (the kernel's resumption). A buffer with no
        word read is doubled first (one value needed more than all of it)."""
        pos = int(self.state[0])
        if pos == 0:
            self.words = np.concatenate([self.words, np.zeros_like(self.words)])
            refill_words(self.words[self.words.size // 2:])
            return
        unread = self.words.size - pos
        self.words[:unread] = self.words[pos:]
        refill_words(self.words[unread:])
        self.state[0] = 0

    def discard(self) -> None:
        """Forget every buffered bit (a forked child must not re-use its parent's) and
        take a fresh lock (the parent's may have been held by another thread)."""
        self.lock = threading.Lock()
        self.words[:] = 0
        self.state[:] = (self.words.size, 0, 0, 0)


class BitReader:
    """The bits of an :class:`EntropyStream` as Python integers, for the exact samplers'
    Python reference (:mod:`lmdk_core.mechanisms.discrete_laplace`,
    :mod:`lmdk_core.mechanisms.discrete_planar_laplace`): its position and bit reservoir
    are copied in, bits are read in the order the compiled kernel reads them (whole
    words from the buffer, refilled when spent; short strings from the reservoir, low
    bits first), and :meth:`close` writes the position back — hold the stream's lock
    from the reader's creation to its close."""

    def __init__(self, s: EntropyStream) -> None:
        self.words = s.words
        self.state = s.state
        self.pos, self.res, self.nb = (int(v) for v in s.state[:3])

    def word(self) -> int:
        """The next whole 64-bit word of the buffer (refilled from :data:`PROVIDER` when
        every word is read)."""
        if self.pos >= self.words.size:
            refill_words(self.words)
            self.pos = 0
        w = int(self.words[self.pos])
        self.pos += 1
        return w

    def take(self, n: int) -> int:
        """The next ``n`` bits (1 ≤ n ≤ 62) as an integer: low bits first."""
        if self.nb >= n:
            v = self.res & ((1 << n) - 1)
            self.res >>= n
            self.nb -= n
            return v
        need = n - self.nb
        w = self.word()
        v = self.res | ((w & ((1 << need) - 1)) << self.nb)
        self.res = w >> need
        self.nb = 64 - need
        return v

    def close(self) -> None:
        """Write the position and the reservoir back to the stream: the next reader goes
        on from the first unread bit."""
        self.state[:3] = (self.pos, self.res, self.nb)


_STREAM = EntropyStream()


def stream() -> EntropyStream:
    """This process's stream of OS entropy."""
    return _STREAM


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_STREAM.discard)
