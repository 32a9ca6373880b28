"""Fingerprints of data: the one place the project hashes bytes, files and arrays.

* :func:`sha256_hex` — the SHA-256 (FIPS 180-4) of a file's bytes, as recorded in a
  configuration that references its data file (``data_file = {"name", "sha256"}``) and in
  the provenance of a batch summary;
* :func:`file_sha256` — the same digest of a file on disk, read in blocks of 1 MiB so a
  multi-gigabyte input is never held in memory;
* :func:`array_digest` — a digest of numeric arrays (their float64 bytes, in order), a
  cache key for results computed from the data's values (models, releases, sweeps).

    >>> sha256_hex(b"abc")[:16]
    'ba7816bf8f01cfea'
    >>> array_digest([1.0, 2.0]) == array_digest(np.array([1, 2]))
    True
    >>> array_digest([1.0, 2.0]) == array_digest([1.0], [2.0])
    False
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["array_digest", "file_sha256", "sha256_hex"]

#: bytes read at a time by :func:`file_sha256`
BLOCK_BYTES = 1 << 20


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 lower-case hexadecimal digits."""
    return hashlib.sha256(bytes(data)).hexdigest()


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of the file at ``path`` (64 lower-case hexadecimal digits), read in
    blocks of :data:`BLOCK_BYTES`; equal to ``sha256_hex`` of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(BLOCK_BYTES), b""):
            h.update(block)
    return h.hexdigest()


def array_digest(*arrays: ArrayLike, label: str = "") -> str:
    """The SHA-256 (hexadecimal) of ``label`` followed by each array's values as
    contiguous float64 bytes, each preceded by its shape: equal values give equal
    digests whatever their dtype or memory layout, and ``([1, 2])`` differs from
    ``([1], [2])``."""
    h = hashlib.sha256(label.encode("utf-8"))
    for a in arrays:
        values = np.ascontiguousarray(a, dtype=float)
        h.update(repr(values.shape).encode())
        h.update(values.tobytes())
    return h.hexdigest()
