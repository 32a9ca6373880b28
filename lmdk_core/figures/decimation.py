"""Decimation for display: which points of a long series a chart draws.

A chart 1,400 pixels wide cannot show 20,000 points; sending them all costs megabytes
per rerun and seconds of rendering. :func:`display_indices` keeps, in each of
``buckets`` runs of consecutive timestamps (about one per pixel column), the position of
the minimum and the maximum of every given curve — so spikes stay visible at their true
height — plus the first and last timestamp and every timestamp in ``keep`` (landmarks,
suggestions). It only chooses what is *drawn*: the data, every computation
and every download stay complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["DISPLAY_BUCKETS", "DISPLAY_MAX_POINTS", "display_indices"]

#: series up to this length are drawn whole
DISPLAY_MAX_POINTS = 4000
#: buckets of a decimated series (about the pixel width of a wide chart)
DISPLAY_BUCKETS = 1000


def display_indices(
    T: int,
    curves: Sequence[np.ndarray] = (),
    keep: Iterable[int] = (),
    *,
    buckets: int = DISPLAY_BUCKETS,
    max_points: int = DISPLAY_MAX_POINTS,
) -> np.ndarray:
    """Sorted, distinct timestamps (0 … T−1) to draw.

    All of them when ``T <= max_points``. Otherwise the series is cut into ``buckets``
    runs of consecutive timestamps of (nearly) equal length; in each run, for every
    array of ``curves`` (length T; NaN ignored), the position of its minimum and of its
    maximum are kept, together with timestamps 0 and T−1 and every valid timestamp of
    ``keep``. The result has at most ``2·buckets·len(curves) + len(keep) + 2`` entries,
    and each run's extremes of each curve are among them, so the
    drawn curve reaches every value range the full one does.
    """
    T = int(T)
    if T <= 0:
        return np.zeros(0, dtype=np.int64)
    if T <= max_points:
        return np.arange(T, dtype=np.int64)
    buckets = max(1, min(int(buckets), T))
    edges = np.linspace(0, T, buckets + 1).round().astype(np.int64)
    parts = [np.array([0, T - 1], dtype=np.int64)]
    for values in curves:
        y = np.asarray(values, dtype=float)
        if y.shape != (T,):
            raise ValueError(f"a curve has shape {y.shape}, expected ({T},)")
        parts.append(_bucket_arg(y, edges, np.fmin, np.inf))
        parts.append(_bucket_arg(y, edges, np.fmax, -np.inf))
    k = np.fromiter((int(t) for t in keep), dtype=np.int64)
    parts.append(k[(k >= 0) & (k < T)])
    return np.unique(np.concatenate(parts))


def _bucket_arg(y: np.ndarray, edges: np.ndarray, reduce, fill: float) -> np.ndarray:
    """Per bucket [edges[i], edges[i+1]), the first position where ``y`` attains the
    bucket's minimum (``reduce = np.fmin``) or maximum (``np.fmax``); buckets whose
    values are all NaN give nothing."""
    filled = np.where(np.isnan(y), fill, y)
    starts = edges[:-1][edges[1:] > edges[:-1]]
    ext = reduce.reduceat(filled, starts)  # the bucket's extreme
    # broadcast each bucket's extreme to its members; the first member equal to it wins
    lengths = np.diff(np.append(starts, y.size))
    per_point = np.repeat(ext, lengths)
    hit = (filled == per_point) & ~np.isnan(y)
    bucket_of = np.repeat(np.arange(starts.size), lengths)
    pos = np.flatnonzero(hit)
    first = np.unique(bucket_of[pos], return_index=True)[1]
    return pos[first]
