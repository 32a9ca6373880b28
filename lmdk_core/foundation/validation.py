"""Parameter validation shared by every layer of lmdk_core.

Every check raises :class:`InputError` with a message that says what is wrong and
how to fix it. The CLI turns it into exit status 2 and one line on stderr; the app
turns it into ``st.error``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text, quote_user_value
from lmdk_core.foundation.sorted_unique import distinct_sorted

__all__ = [
    "budget_below",
    "joined_ranges",
    "check_count",
    "MAX_LENGTH",
    "InputError",
    "as_generator",
    "check_epsilon",
    "check_epsilon_array",
    "check_landmarks",
    "check_length",
    "check_nonnegative",
    "check_positive",
    "describe_budget",
    "format_landmark_range",
    "landmark_runs",
    "parse_landmark_entry",
    "parse_landmark_ranges",
    "parse_landmarks",
    "picker_entries",
]


#: largest number of timestamps a length argument may ask for (``lmdk allocate``,
#: ``leakage``, ``calibrate``, ``dummies``); uploads have their own, smaller row limit.
#: One million float budgets are 8 MB; 10⁹ would need 8 GB and ended in MemoryError.
MAX_LENGTH = 1_000_000


def check_length(length: int, name: str = "the series length") -> int:
    """A number of timestamps T: a whole number in ``1..MAX_LENGTH``."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InputError(f"{name} must be a whole number, at least 1, got {length!r}")
    if length > MAX_LENGTH:
        raise InputError(f"{name} is {int(length):,} timestamps; the limit is {MAX_LENGTH:,}")
    return int(length)


def check_count(n: object, name: str, maximum: int = 1_000_000) -> int:
    """``n`` as an int when it is a whole number from 1 to ``maximum``, else
    :class:`InputError` naming ``name`` and the range."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= maximum:
        raise InputError(f"{name} must be a whole number between 1 and {maximum:,}")
    return int(n)


def check_positive(value: float | str | None, name: str) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise InputError (None,
    a setting not given, included)."""
    try:
        if value is None:
            raise TypeError
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {quote_user_value(value)}") from None
    if not np.isfinite(x) or x <= 0:
        raise InputError(f"{name} must be a finite number greater than 0, got "
                         f"{quote_user_value(value)}")
    return x


def check_nonnegative(value: object, name: str) -> float:
    """``value`` as a float when it is a finite number ``x ≥ 0``, else :class:`InputError`
    naming ``name``.

    >>> check_nonnegative("0.25", "the smoothing")
    0.25
    >>> check_nonnegative(-1, "the smoothing")
    Traceback (most recent call last):
    ...
    lmdk_core.foundation.errors.InputError: the smoothing must be a finite number >= 0, got -1
    """
    try:
        x = float(value)  # type: ignore[arg-type]  # any object: float() refuses the rest
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(x) or x < 0:
        raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def budget_below(epsilon: ArrayLike, floor: float) -> float | None:
    """The smallest budget of ``epsilon`` when it is below ``floor`` (the bottom of a
    mechanism's usable range), else None. NaN and infinities are left to
    :func:`check_epsilon_array`."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    if eps.size == 0:
        return None
    lo = float(np.min(eps))
    return lo if np.isfinite(lo) and lo < floor else None


def describe_budget(epsilon_t: float) -> str:
    """``"ε_t = 1e-13"`` for a range message; says so when a share underflowed to 0."""
    if epsilon_t == 0:
        return "ε_t = 0 (the scheme's share of ε is below the smallest float)"
    return f"ε_t = {epsilon_t:.3g}"


def check_epsilon(epsilon: float, name: str = "epsilon") -> float:
    """The total privacy budget ε: a finite number > 0."""
    return check_positive(epsilon, name)


def check_epsilon_array(
    epsilon: ArrayLike,
    length: int | None = None,
    *,
    allow_zero: bool = False,
    name: str = "epsilon",
) -> np.ndarray:
    """A per-element budget: a scalar (broadcast to ``length``) or one value per element.

    Values must be finite and > 0 (or >= 0 with ``allow_zero``, 0 meaning "nothing
    released from the raw data").
    """
    eps = _budget_shape(_as_budget_array(epsilon, name), length, name)
    if eps.size:
        _check_budget_values(eps, allow_zero, name)
    return eps


def _as_budget_array(epsilon: ArrayLike, name: str) -> np.ndarray:
    """``epsilon`` as a float array of at most one dimension."""
    try:
        eps = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, got {quote_user_value(epsilon)}") from None
    if eps.ndim > 1:
        raise InputError(f"{name} must be a number or a 1-D list of numbers")
    return eps


def _budget_shape(eps: np.ndarray, length: int | None, name: str) -> np.ndarray:
    """A scalar broadcast to ``length``, or the array if it has ``length`` values."""
    if length is None:
        return eps
    if eps.ndim == 0:
        return np.full(length, float(eps))
    if eps.shape[0] != length:
        raise InputError(
            f"{name} has {eps.shape[0]} values but the data have {length}; "
            "give one value per element or a single number"
        )
    return eps


def _check_budget_values(eps: np.ndarray, allow_zero: bool, name: str) -> None:
    """Every value finite and > 0 (>= 0 with ``allow_zero``).

    The smallest and largest value decide every check (NaN propagates through both):
    two passes over the array and no temporary mask."""
    lo, hi = eps.min(), eps.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise InputError(f"{name} must be finite (no NaN or infinity)")
    if allow_zero and lo < 0:
        raise InputError(f"{name} must be >= 0 everywhere")
    if not allow_zero and lo <= 0:
        raise InputError(f"{name} must be greater than 0 (got {float(lo):g})")


def check_landmarks(landmarks: Iterable[int] | None, length: int) -> np.ndarray:
    """Landmark timestamps as a sorted array of unique 0-based indices in ``0..length-1``
    (a fresh array; one already so, as the engine passes them on, is copied without
    going through a list)."""
    if (isinstance(landmarks, np.ndarray) and landmarks.ndim == 1 and landmarks.size
            and landmarks.dtype.kind in "iu" and 0 <= landmarks[0] and landmarks[-1] < length
            and bool(np.all(landmarks[1:] > landmarks[:-1]))):
        return landmarks.copy()
    raw = [] if landmarks is None else list(landmarks)
    if not raw:
        return np.zeros(0, dtype=int)
    arr = _whole_landmarks(raw)
    bad = arr[(arr < 0) | (arr >= length)]
    if bad.size:
        raise InputError(
            f"landmark {int(bad[0])} is outside the series: timestamps run from 0 to {length - 1}"
        )
    return distinct_sorted(arr)  # np.unique(arr), without importing numpy.ma


def _whole_landmarks(raw: list) -> np.ndarray:
    """The landmarks as whole numbers (integral floats accepted)."""
    arr = np.asarray(raw)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError("landmarks must be whole numbers (0-based timestamps)")
        return arr.astype(int)
    if arr.dtype.kind not in "iu":
        raise InputError(f"landmarks must be whole numbers (0-based timestamps), got "
                         f"{quote_user_value(raw)}")
    return arr


#: The one landmark syntax of the CLI options (``--landmarks``, ``--stays``), the app's
#: landmark entries and the docs: comma-separated 0-based timestamps and inclusive ranges
#: (``-``, ``–`` or ``..`` between the ends); ``t=12`` is read as 12.
LANDMARK_SYNTAX = "0-based timestamps and inclusive ranges like 3,7,10-20"
_LANDMARK_PART = re.compile(r"^\s*(?:t\s*=\s*)?(\d+)\s*(?:(?:-|–|\.\.)\s*(?:t\s*=\s*)?(\d+))?\s*$")


def parse_landmark_ranges(text: str | None, what: str = "landmark") -> list[tuple[int, int]]:
    """Parse the landmark syntax (:data:`LANDMARK_SYNTAX`) into inclusive ranges
    ``(first, last)`` in the order written (``"7"`` is ``(7, 7)``); ``""`` or None means
    none. ``what`` names an entry in messages ('landmark', 'stay')."""
    if text is None:
        return []
    return [_landmark_part(part, what) for part in str(text).split(",") if part.strip()]


def _landmark_part(part: str, what: str) -> tuple[int, int]:
    """One comma-separated part of the landmark syntax as ``(first, last)``."""
    m = _LANDMARK_PART.match(part)
    if m is None:
        raise InputError(f"{what} {quote_user_text(part.strip())} is not a range of "
                         f"timestamps or a whole number; write {LANDMARK_SYNTAX}")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) is not None else a
    if b < a:
        raise InputError(f"{what} {a}-{b} ends before it starts; write first-last, "
                         "e.g. 10-20")
    return a, b


def parse_landmarks(text: str | None, length: int | None = None) -> list[int]:
    """Parse the landmark syntax (:data:`LANDMARK_SYNTAX`, e.g. ``"3,7,271-295"``) into
    timestamps, ranges expanded; ``""`` (or None) means no landmarks. With ``length``
    every timestamp must lie in ``0..length-1``; a range longer than
    :data:`MAX_LENGTH` is refused before it is expanded."""
    out: list[int] = []
    for a, b in parse_landmark_ranges(text):
        _check_landmark_range(a, b, length)
        out.extend(range(a, b + 1))
    return out


def _check_landmark_range(a: int, b: int, length: int | None) -> None:
    """The range ``a..b`` inside ``0..length-1`` (when given) and at most
    :data:`MAX_LENGTH` long."""
    if length is not None and b >= length:
        what = f"timestamp {a}" if a == b else f"range {a}-{b}"
        raise InputError(f"landmark {what} is outside the data; the data's timestamps run "
                         f"from 0 to {length - 1}")
    if b - a + 1 > MAX_LENGTH:
        raise InputError(f"the landmark range {a}-{b} is longer than {MAX_LENGTH:,} "
                         "timestamps")


def parse_landmark_entry(entry: object, length: int, data_name: str = "data") -> list[int]:
    """The landmarks of one entry of an app's landmark picker: an int t, a run
    ``(first, last)`` (a chip), or typed text in the landmark syntax
    (:data:`LANDMARK_SYNTAX`: ``12``, ``t=12``, ``271-295``, ``3,7``), optionally followed
    by the label the app shows after ``·`` (``12 · Mon 08:00``). Every timestamp must lie
    in ``0..length-1``; ``data_name`` ('series', 'track') names the data in messages."""
    text = _entry_text(entry)
    not_timestamp = (f"{quote_user_text(str(entry))} is not a timestamp: write "
                     f"{LANDMARK_SYNTAX}")
    try:
        ranges = parse_landmark_ranges(text)
    except InputError:
        raise InputError(not_timestamp) from None
    for a, b in ranges:
        if b >= length:
            what = f"t = {b}" if a == b else f"{a}-{b}"
            raise InputError(f"{what} is outside the {data_name} (t from 0 to {length - 1})")
    out = [t for a, b in ranges for t in range(a, b + 1)]
    if not out:
        raise InputError(not_timestamp)
    return out


def _entry_text(entry: object) -> str:
    """A picker entry in the landmark syntax: ``t``, ``first-last`` for a run, or typed
    text without the label after ``·``; InputError for a boolean."""
    if isinstance(entry, (bool, np.bool_)):
        raise InputError(f"{entry!r} is not a timestamp")
    if isinstance(entry, (int, np.integer)):
        return str(int(entry))
    if isinstance(entry, tuple) and len(entry) == 2:
        return f"{int(entry[0])}-{int(entry[1])}"
    return str(entry).split("·", 1)[0]


def format_landmark_range(first: int, last: int) -> str:
    """One range in the landmark syntax: ``"7"`` for a single timestamp, ``"3-9"``
    otherwise (read back by :func:`parse_landmark_ranges`).

    >>> format_landmark_range(7, 7), format_landmark_range(271, 295)
    ('7', '271-295')
    >>> parse_landmark_ranges(format_landmark_range(271, 295))
    [(271, 295)]
    """
    return str(int(first)) if int(first) == int(last) else f"{int(first)}-{int(last)}"


def joined_ranges(ranges: Iterable[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """Inclusive ranges ``(first, last)`` sorted, overlapping or touching ones joined into
    one, those outside ``0..length-1`` dropped (a track's accepted stays, a series'
    accepted runs).

    >>> joined_ranges([(8, 9), (2, 4), (5, 6), (30, 40)], 20)
    [(2, 6), (8, 9)]
    """
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in ranges
                       if 0 <= int(a) <= int(b) < int(length)):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def landmark_runs(timestamps: Iterable[int]) -> list[tuple[int, int]]:
    """The runs of consecutive timestamps ``(first, last)`` of ``timestamps`` (in any
    order, repeats allowed), in increasing order.

    >>> landmark_runs([12, 3, 4, 5, 9, 11, 4])
    [(3, 5), (9, 9), (11, 12)]
    """
    ts = np.unique(np.fromiter((int(t) for t in timestamps), dtype=np.int64))
    if ts.size == 0:
        return []
    starts = np.flatnonzero(np.diff(ts, prepend=ts[0] - 2) != 1)
    ends = np.append(starts[1:], ts.size) - 1
    return [(int(ts[a]), int(ts[b])) for a, b in zip(starts.tolist(), ends.tolist(),
                                                     strict=True)]


def picker_entries(landmarks: Iterable[int], max_single: int) -> list[int | tuple[int, int]]:
    """The entries (chips) of an app's landmark picker for ``landmarks``: each landmark t
    while there are at most ``max_single`` of them; above, each run of consecutive
    landmarks as ``(first, last)`` (a landmark without neighbours stays t). Every entry is
    read back by :func:`parse_landmark_entry`.

    >>> picker_entries([5, 1, 2, 3], max_single=4)
    [1, 2, 3, 5]
    >>> picker_entries([5, 1, 2, 3], max_single=3)
    [(1, 3), 5]
    """
    lm = sorted({int(t) for t in landmarks})
    if len(lm) <= max_single:
        return list(lm)
    return [a if a == b else (a, b) for a, b in landmark_runs(lm)]


def as_generator(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A ``numpy.random.Generator`` from a seed (int or None) or an existing generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed must be a whole number, got {quote_user_value(seed)}")
    if seed < 0:
        raise InputError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(int(seed))
