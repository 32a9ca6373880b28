"""The distinct values of an array, sorted: :func:`numpy.unique` without its extras.

``np.unique`` (numpy 2.x) asks ``np.ma.is_masked`` of every array, which imports
``numpy.ma`` the first time: 11–15 ms of CPU for a short command that never uses a
masked array (``lmdk solve-epsilon``; ``np.median`` and ``np.percentile`` ask the same
question, so ``lmdk report`` loads it anyway). The callers here pass plain
arrays of whole numbers, or of doubles without NaN and without both zeros, where one
sort and one comparison of neighbours give ``np.unique``'s array exactly
(tests/engine/test_quantiles_of_sorted.py compares them bit for bit).
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct_sorted"]


def distinct_sorted(q: np.ndarray) -> np.ndarray:
    """``np.unique(q)`` of a 1-D array of whole numbers, or of doubles without NaN nor
    both zeros (-0.0 and 0.0): sorted, each value once, in ``q``'s dtype."""
    s = np.sort(q)
    return s[np.r_[True, s[1:] != s[:-1]]] if s.size else s
