"""Fingerprints of data: the one place the project hashes bytes, files and arrays.

* :func:`sha256_hex` — the SHA-256 (FIPS 180-4) of a file's bytes, as recorded in a
  configuration that references its data file (``data_file = {"name", "sha256"}``) and in
  the provenance of a batch summary;
* :func:`file_sha256` — the same digest of a file on disk, read in blocks of 1 MiB so a
  multi-gigabyte input is never held in memory;
* :func:`array_digest` — a digest of numeric arrays (their float64 bytes, in order), a
  cache key for results computed from the data's values (models, releases, sweeps);
* :func:`object_digest` — a digest of nested inputs (arrays, dataclasses such as a
  release, mappings, sequences, numbers, strings) fed canonically, a key for what a chart
  is drawn from.

    >>> sha256_hex(b"abc")[:16]
    'ba7816bf8f01cfea'
    >>> array_digest([1.0, 2.0]) == array_digest(np.array([1, 2]))
    True
    >>> array_digest([1.0, 2.0]) == array_digest([1.0], [2.0])
    False
    >>> object_digest({"b": [1, 2], "a": np.arange(3)}) == object_digest(
    ...     {"a": np.arange(3), "b": [1, 2]})
    True
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["array_digest", "file_sha256", "object_digest", "sha256_hex"]

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


def _feed(h, obj: object) -> None:
    """Feed ``obj`` to the hash canonically: arrays by dtype, shape and bytes,
    dataclasses field by field, mappings in key order, sequences item by item, other
    values by type and ``repr`` (the same content gives the same bytes whatever the
    objects' identity or memory layout)."""
    if isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        h.update(f"A{arr.dtype.str}{arr.shape}".encode())
        h.update(arr.tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"D{type(obj).__qualname__}".encode())
        for f in dataclasses.fields(obj):
            h.update(f"|{f.name}=".encode())
            _feed(h, getattr(obj, f.name))
    elif isinstance(obj, Mapping):
        h.update(f"M{len(obj)}".encode())
        for k in sorted(obj, key=repr):
            _feed(h, k)
            _feed(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(f"L{len(obj)}".encode())
        for x in obj:
            _feed(h, x)
    else:
        h.update(f"S{type(obj).__name__}:{obj!r};".encode())


def object_digest(*parts: object, label: str = "") -> str:
    """The SHA-256 (hexadecimal) of ``label`` and ``parts`` fed canonically (arrays by
    dtype, shape and bytes; dataclasses field by field; mappings in key order): equal
    inputs give equal digests whatever the objects' identity, any changed value another."""
    h = hashlib.sha256(label.encode("utf-8"))
    _feed(h, parts)
    return h.hexdigest()
