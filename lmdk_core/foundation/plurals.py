"""Counted nouns and the verbs that agree with them, for every message that states a count.

"The 1 landmark are protected", "1 stays protected", "1 users' releases are": a count
written into a sentence needs its noun and its verb to agree with it. Every message that
puts a number before a noun takes the noun from :func:`counted` and, when a verb follows,
the verb from :func:`agree` (English: singular for exactly 1, plural otherwise, 0
included: "0 landmarks").
"""

from __future__ import annotations

__all__ = ["agree", "counted"]


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, in the plural (``many``, default ``word + "s"``) unless n is 1;
    thousands separated by commas.

    >>> counted(1, "landmark"), counted(3, "landmark"), counted(0, "stay")
    ('1 landmark', '3 landmarks', '0 stays')
    >>> counted(1_500, "user's release", "users' releases")
    "1,500 users' releases"
    """
    return f"{int(n):,} {word if n == 1 else (many or word + 's')}"


def agree(n: int, one: str, many: str) -> str:
    """The verb (or any word) ``one`` when ``n`` is 1, else ``many``.

    >>> f"{counted(1, 'landmark')} {agree(1, 'is', 'are')} protected"
    '1 landmark is protected'
    """
    return one if n == 1 else many
