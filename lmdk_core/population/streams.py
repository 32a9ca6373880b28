"""One independent random stream per user.

With a seed S, user u's generator is ``PCG64(SeedSequence(entropy=S,
spawn_key=(key(u),)))`` — the construction behind ``SeedSequence(S).spawn`` (child i has
spawn key (i,)), keyed by the user instead of by position, so a user's stream does not
depend on which partition or worker handles it, nor on the other users: the same seed
gives the same release with 1 or N workers. ``key(u)`` is a hash-free, stable encoding
of the user id (Python's ``hash`` of text changes between processes): an integer id
``n`` → ``2·(n + 2⁶³)`` (even), a text id → the integer of its UTF-8 bytes with a leading
1 byte, times 2, plus 1 (odd) — distinct ids never share a key.

Without a seed the root entropy is 128 bits from the operating system
(``SeedSequence()``), drawn once per run by the driver and shipped to the workers; it is
never written to a publishable file.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fresh_root_entropy", "user_generator", "user_key"]


def user_key(user: object) -> int:
    """Stable, collision-free non-negative integer for a user id (int or text)."""
    if isinstance(user, (bool, np.bool_)):
        user = int(user)
    if isinstance(user, (int, np.integer)):
        return 2 * (int(user) + 2**63)
    text = str(user).encode("utf-8")
    return 2 * int.from_bytes(b"\x01" + text, "big") + 1


def fresh_root_entropy() -> int:
    """128 bits of OS entropy for a run without a seed."""
    return int(np.random.SeedSequence().entropy)


def user_generator(root_entropy: int, user: object) -> np.random.Generator:
    """User ``user``'s generator under root entropy ``root_entropy`` (see module doc)."""
    ss = np.random.SeedSequence(entropy=int(root_entropy), spawn_key=(user_key(user),))
    return np.random.Generator(np.random.PCG64(ss))
