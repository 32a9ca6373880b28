"""lmdk_core.data.digest: the one place bytes, files and arrays are hashed."""

from __future__ import annotations

import doctest
import hashlib
import pathlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data import digest
from lmdk_core.data.digest import array_digest, file_sha256, sha256_hex

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_doctests():
    assert doctest.testmod(digest).failed == 0


def test_sha256_hex_is_fips_180_4():
    # FIPS 180-4's example "abc"
    assert sha256_hex(b"abc") == ("ba7816bf8f01cfea414140de5dae2223"
                                  "b00361a396177a9cb410ff61f20015ad")
    assert sha256_hex(bytearray(b"")) == hashlib.sha256(b"").hexdigest()


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 4096))
def test_file_sha256_equals_the_digest_of_the_bytes_whatever_the_block(tmp_path_factory,
                                                                      data, block):
    path = tmp_path_factory.mktemp("d") / "f.bin"
    path.write_bytes(data)
    old = digest.BLOCK_BYTES
    digest.BLOCK_BYTES = block  # several blocks, a partial last one, or one block
    try:
        assert file_sha256(path) == sha256_hex(data) == file_sha256(str(path))
    finally:
        digest.BLOCK_BYTES = old


def test_array_digest_depends_on_values_not_on_dtype_or_layout():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert array_digest(a) == array_digest(a.astype(float)) == array_digest(
        np.asfortranarray(a)) == array_digest(a.tolist())
    assert array_digest(a[:, ::2]) == array_digest(np.ascontiguousarray(a[:, ::2]))
    assert array_digest(a) != array_digest(a.ravel())  # the shape is part of it
    assert array_digest([1.0, 2.0]) != array_digest([1.0], [2.0])
    assert array_digest([1.0, 2.0]) != array_digest([1.0, 2.0 + 1e-15])
    assert array_digest([1.0], label="series") != array_digest([1.0], label="track")


def test_nothing_else_in_the_app_or_engine_hashes_data():
    """Only the digest module hashes data (and the per-user random streams, which derive
    seeds from user ids: population/streams.py; and foundation/compiled_paths.py, which
    hashes the project's own source code, Adaptive's rules, to key numba's cache — no
    data)."""
    allowed = {"digest.py", "streams.py", "compiled_paths.py"}
    found = [p.relative_to(ROOT).as_posix()
             for folder in ("lmdk_core", "app_pages", "app_support")
             for p in (ROOT / folder).rglob("*.py")
             if p.name not in allowed and "hashlib" in p.read_text(encoding="utf-8")]
    assert found == []
