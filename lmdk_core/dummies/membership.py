"""A landmark set as a boolean membership row: the form in which the landmark-set metrics
(:mod:`lmdk_core.dummies.metrics`, the ``calcMetric``/``evalSeq`` of Katsomallos et al.,
CODASPY'22) evaluate sets, and in which the dummy-landmark searches
(:mod:`lmdk_core.dummies.heuristic`, :mod:`lmdk_core.dummies.optimal`) build them.

A set ``S ⊆ {0, …, T−1}`` is the row ``member[t] = (t ∈ S)``; many sets are the rows of a
``(n_sets, T)`` matrix, built :data:`MEMBERSHIP_BLOCK_CELLS` cells at a time.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.foundation.errors import InputError

__all__ = ["MEMBERSHIP_BLOCK_CELLS", "check_series_length", "membership_row"]

#: rows × timestamps of one block of membership rows evaluated at once (a memory bound:
#: 2 MB of booleans)
MEMBERSHIP_BLOCK_CELLS = 2_000_000


def check_series_length(length: int) -> int:
    """The length T of the series a landmark set belongs to: a whole number ≥ 1 (an
    integer, or a float with no fractional part such as ``5.0``), as an int; else
    :class:`InputError`.

    >>> check_series_length(5.0)
    5
    >>> check_series_length(0)
    Traceback (most recent call last):
    ...
    lmdk_core.foundation.errors.InputError: the series length T must be at least 1, got 0
    """
    if isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer)):
        try:
            as_float = float(length)
        except (TypeError, ValueError):
            raise InputError(
                f"the series length T must be a whole number, got {length!r}"
            ) from None
        if not as_float.is_integer():
            raise InputError(f"the series length T must be a whole number, got {length!r}")
        length = int(as_float)
    if length < 1:
        raise InputError(f"the series length T must be at least 1, got {length}")
    return int(length)


def membership_row(landmarks: np.ndarray, length: int) -> np.ndarray:
    """The membership row of the landmark set ``landmarks`` (checked indices in
    ``0..length−1``): a boolean array of ``length`` values, True at the landmarks.

    >>> membership_row(np.array([1, 3]), 5).tolist()
    [False, True, False, True, False]
    """
    row = np.zeros(length, dtype=bool)
    row[landmarks] = True
    return row
