"""The medians of the landmark baseline (:mod:`lmdk_core.landmarks.deviations`) with
numpy only: a centred rolling median and the median of each group.

They replace ``pd.Series(x).rolling(w, center=True, min_periods=w).median()`` and
``pd.Series(x).groupby(groups).transform("median")`` with the same floats: a median is
an order statistic of the window or group (the middle value, ``(a + b) / 2`` of the two
middle values of an even count, as pandas computes it), so numpy's selection gives the
same numbers — tests/engine/test_robust_medians.py compares them bit for bit on random
series. Importing pandas cost ``lmdk report`` 0.2 s of CPU, more than the report's own
computation. Values must be finite (the deviation scores check it).

Values equal as numbers are the same bits except −0.0 and +0.0: which of them a median
returns depends on the selection algorithm, so values holding a −0.0 go through pandas
as before, and so do groups that are not whole numbers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["centred_rolling_median", "group_median", "has_negative_zero"]

#: rows of the windows' matrix taken at a time (bounds the copy numpy's median makes)
_CHUNK_ROWS = 1 << 15


def has_negative_zero(x: np.ndarray) -> bool:
    """Whether ``x`` holds a −0.0 (equal to 0.0, but other bits)."""
    return bool(np.any((x == 0) & np.signbit(x)))


def centred_rolling_median(x: np.ndarray, w: int) -> np.ndarray:
    """The median of the ``w`` values centred on each timestamp (the window of t starts
    at t − w//2, pandas' ``center=True``); NaN where the window does not fit."""
    x = np.asarray(x, dtype=float)
    if has_negative_zero(x):
        import pandas as pd

        return pd.Series(x).rolling(w, center=True, min_periods=w).median().to_numpy().copy()
    T = x.size
    out = np.full(T, np.nan)
    if w < 1 or T < w:
        return out
    windows = np.lib.stride_tricks.sliding_window_view(x, w)
    first = w // 2
    for a in range(0, windows.shape[0], _CHUNK_ROWS):
        chunk = windows[a:a + _CHUNK_ROWS]
        out[first + a:first + a + chunk.shape[0]] = np.median(chunk, axis=1)
    return out


def group_median(x: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each value's group median (``groupby(groups).transform("median")``): groups of
    whole numbers; other labels go through pandas as before."""
    x = np.asarray(x, dtype=float)
    g = np.asarray(groups)
    if g.dtype.kind not in "iub" or g.shape != x.shape or has_negative_zero(x):
        import pandas as pd

        return pd.Series(x).groupby(g).transform("median").to_numpy(dtype=float)
    if x.size == 0:
        return x.copy()
    labels, inverse = np.unique(g, return_inverse=True)
    order = np.lexsort((x, inverse))  # by group, each group's values ascending
    v = x[order]
    counts = np.bincount(inverse, minlength=labels.size)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    hi = v[starts + counts // 2]
    lo = v[starts + (counts - 1) // 2]
    med = np.where(counts % 2 == 1, hi, (hi + lo) / 2)
    return med[inverse.reshape(-1)]
