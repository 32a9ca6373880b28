"""One independent random stream per user.

With a seed S, user u's generator is ``PCG64(SeedSequence(entropy=S,
spawn_key=(key(u),)))`` — the construction behind ``SeedSequence(S).spawn`` (child i has
spawn key (i,)), keyed by the user instead of by position, so a user's stream does not
depend on which partition or worker handles it, nor on the other users: the same seed
gives the same release with 1 or N workers. ``key(u)`` is a hash-free, stable encoding
of the user id (Python's ``hash`` of text changes between processes): an integer id
``n`` → ``2·(n + 2⁶³)`` (even), a text id → ``2·h + 1`` (odd) where ``h`` is the 256-bit
SHA-256 digest of its UTF-8 bytes (FIPS 180-4). Hashing makes the key's cost linear in the
id's length and the key itself short: a spawn key built from the id's bytes as one huge
integer made ``SeedSequence`` quadratic in the id length (a 10⁶-character id took
minutes). Distinct ids share a key only on a SHA-256 collision.

Without a seed the root entropy is 128 bits from the operating system
(``SeedSequence()``), drawn once per run by the driver and shipped to the workers; it is
never written to a publishable file.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["fresh_root_entropy", "user_generator", "user_key"]


def user_key(user: object) -> int:
    """Stable, collision-free non-negative integer for a user id (int or text)."""
    if isinstance(user, (bool, np.bool_)):
        user = int(user)
    if isinstance(user, (int, np.integer)):
        return 2 * (int(user) + 2**63)
    digest = hashlib.sha256(str(user).encode("utf-8", "surrogatepass")).digest()
    return 2 * int.from_bytes(digest, "big") + 1


def fresh_root_entropy() -> int:
    """128 bits of OS entropy for a run without a seed."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # drawn from the OS when none is given
    return entropy


def user_generator(root_entropy: int, user: object) -> np.random.Generator:
    """User ``user``'s generator under root entropy ``root_entropy`` (see module doc)."""
    ss = np.random.SeedSequence(entropy=int(root_entropy), spawn_key=(user_key(user),))
    return np.random.Generator(np.random.PCG64(ss))
