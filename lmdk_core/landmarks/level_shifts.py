"""Sustained changes of level in a series (:func:`level_shifts`), which a rolling median
absorbs: binary segmentation on the CUSUM statistic (Scott & Knott 1974; reviewed by
Killick et al., JASA 2012), segments judged by their medians.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.landmarks.deviations import (
    DEFAULT_DEVIATION_K,
    DEFAULT_DEVIATION_WINDOW,
    MAD_TO_SD,
    MEANAD_TO_SD,
)

__all__ = ["LevelShift", "level_shifts"]


@dataclass(frozen=True)
class LevelShift:
    """Timestamps ``start..end`` (inclusive) whose level differs from the series' usual
    level: an *episode* (the level comes back: a holiday, an outage) or, touching an end
    of the series, a lasting change whose *change point* is ``change``."""

    start: int
    end: int
    level: float
    usual: float
    score: float
    change: int | None = None  # the first timestamp of the new level (lasting changes)

    @property
    def timestamps(self) -> list[int]:
        """The suggested landmarks: the episode's timestamps, or the change point."""
        if self.change is not None:
            return [self.change]
        return list(range(self.start, self.end + 1))


def _noise_sigma(x: np.ndarray, lag: int = 1) -> float:
    """The noise level of ``x`` robust to level shifts and spikes: ``1.4826·MAD`` of the
    differences ``x[t+lag] − x[t]``, over √2 (a difference holds two noises). ``lag`` is
    the resolution the noise is measured at (:func:`level_shifts`)."""
    d = x[lag:] - x[:-lag] if 0 < lag < x.size else np.diff(x)
    if d.size == 0:
        return 0.0
    s = MAD_TO_SD * float(np.median(np.abs(d - np.median(d)))) / np.sqrt(2)
    if s == 0:
        s = MEANAD_TO_SD * float(np.mean(np.abs(d - d.mean()))) / np.sqrt(2)
    return s


def _best_split(c: np.ndarray, a: int, b: int, min_len: int) -> tuple[int, float]:
    """The split s of x[a:b] maximising the two-sample statistic
    ``|mean(x[a:s]) − mean(x[s:b])|·√((s−a)(b−s)/(b−a))`` (the CUSUM statistic of
    binary segmentation; ``c`` is the cumulative sum with a leading 0)."""
    n = b - a
    s = np.arange(a + min_len, b - min_len + 1)
    if s.size == 0:
        return -1, 0.0
    m1 = (c[s] - c[a]) / (s - a)
    m2 = (c[b] - c[s]) / (b - s)
    stat = np.abs(m1 - m2) * np.sqrt((s - a) * (b - s) / n)
    i = int(np.argmax(stat))
    return int(s[i]), float(stat[i])


def level_shifts(values: ArrayLike, k: float = DEFAULT_DEVIATION_K, min_len: int = 5,
                 max_changes: int = 8,
                 min_duration: int = DEFAULT_DEVIATION_WINDOW,
                 noise_lag: int = 1) -> list[LevelShift]:
    """Sustained changes of level, which a rolling median absorbs (a 25-day holiday in
    a daily series moves the median with it and scores ~0).

    Binary segmentation (Scott & Knott 1974; Killick et al. JASA 2012 review it): split
    the series where the CUSUM statistic ``|Δmean|·√(n₁n₂/n)/σ`` is largest, σ the noise
    level from the first differences (:func:`_noise_sigma`, robust to the shifts
    themselves), while it exceeds ``max(k, √(2 ln T) + 1)`` (above what noise alone
    reaches over T candidate splits), each side at least ``min_len`` points; at most
    ``max_changes`` splits, the largest first. Segments are then judged by their
    **medians** (a spike moves a mean, not a median). The usual level is the length-weighted
    median of the segments' medians; neighbouring segments on the same side of it form
    one stretch, and a stretch whose median is at least the series' robust spread
    (``1.4826·MAD`` of the values: a change as large as the data's own variation) from
    the usual level, lasts at least ``min_duration`` timestamps (the deviation window:
    a day of hourly readings, so a daily cycle is not a shift), covers less than half
    the series and is **abrupt** — at each of its ends the medians of the ``min_len``
    timestamps on either side differ by at least half the shift (a slow cycle or trend,
    which a rolling median follows, is not a shift) — is a shift: an episode
    when the usual level comes back on both sides, else (touching an end) a lasting
    change suggested at its change point only.

    σ is measured on differences ``noise_lag`` timestamps apart (1: first differences).
    On a series sampled finer than its value changes (a meter read every 5 minutes that
    updates hourly) most first differences are exactly 0, so σ — and with it the bar a
    change must clear — shrinks with the sampling rate; :mod:`.discovery` measures it at
    a 24th of the deviation window (an hour when the window is a day), the same
    resolution at every rate."""
    x = np.asarray(values, dtype=float)
    T = x.size
    m = max(int(min_len), 2)
    sigma = _noise_sigma(x, int(noise_lag))
    if T < 2 * m or sigma == 0 or not np.isfinite(sigma):
        return []
    thr = max(float(k), np.sqrt(2 * np.log(T)) + 1)
    cuts = _segment(x, sigma, thr, m, max_changes)
    if not cuts:
        return []
    return _judge_stretches(x, cuts, sigma, min_duration, m)


def _judge_stretches(x: np.ndarray, cuts: list[tuple[int, float]], sigma: float,
                     min_duration: int, m: int) -> list[LevelShift]:
    """The shifts among the stretches the change points ``cuts`` delimit: segments
    judged by their medians against the usual level (see :func:`level_shifts`)."""
    T = x.size
    bounds = [0, *[s for s, _ in cuts], T]
    segs = list(zip(bounds[:-1], bounds[1:], strict=True))
    med, usual = _usual_level(x, segs)
    side = np.sign(med - usual) * (np.abs(med - usual) >= sigma)
    rule = _ShiftRule(usual=usual, least=max(_spread(x), sigma), min_duration=min_duration,
                      min_len=m)
    score_at = dict(cuts)
    out = []
    for i, j in _stretches(side):
        a, b = segs[i][0], segs[j][1]
        level = float(np.median(x[a:b]))
        if side[i] != 0 and rule.holds(x, a, b, level):
            score = max(score_at.get(a, 0.0), score_at.get(b, 0.0))
            change = b if a == 0 else a if b == T else None  # a lasting change
            out.append(LevelShift(a, b - 1, level, usual, score, change))
    return out


def _segment(x: np.ndarray, sigma: float, thr: float, m: int,
             max_changes: int) -> list[tuple[int, float]]:
    """Binary segmentation: the change points ``(s, statistic/σ)`` in position order, each
    the best split of its piece (:func:`_best_split`) whose statistic/σ exceeds ``thr``,
    at most ``max_changes``."""
    c = np.concatenate([[0.0], np.cumsum(x)])
    cuts: list[tuple[int, float]] = []
    todo = [(0, x.size)]
    while todo and len(cuts) < max_changes:
        a, b = todo.pop()
        s, stat = _best_split(c, a, b, m)
        if s < 0 or stat / sigma <= thr:
            continue
        cuts.append((s, stat / sigma))
        todo += [(a, s), (s, b)]
    return sorted(cuts)


def _usual_level(x: np.ndarray, segs: list[tuple[int, int]]) -> tuple[np.ndarray, float]:
    """The segments' medians and the usual level: their length-weighted median."""
    med = np.array([np.median(x[a:b]) for a, b in segs])
    lens = np.array([b - a for a, b in segs], dtype=float)
    order = np.argsort(med)
    cum = np.cumsum(lens[order])
    return med, float(med[order][np.searchsorted(cum, cum[-1] / 2)])


def _spread(x: np.ndarray) -> float:
    """The robust spread of the values: ``1.4826·MAD``."""
    return MAD_TO_SD * float(np.median(np.abs(x - np.median(x))))


def _stretches(side: np.ndarray) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` of neighbouring segments on the same side of the usual level."""
    runs = []
    i = 0
    while i < side.size:
        j = i
        while j + 1 < side.size and side[j + 1] == side[i]:
            j += 1
        runs.append((i, j))
        i = j + 1
    return runs


@dataclass(frozen=True)
class _ShiftRule:
    """When a stretch ``x[a:b]`` at ``level`` is a shift (see :func:`level_shifts`)."""

    usual: float
    least: float  # the smallest shift: max(robust spread, noise σ)
    min_duration: int
    min_len: int

    def holds(self, x: np.ndarray, a: int, b: int, level: float) -> bool:
        """Large enough, long enough but under half the series, and abrupt at both ends."""
        shift = abs(level - self.usual)
        return (shift >= self.least and self.min_duration <= b - a < x.size / 2
                and all(self._jump(x, e) >= shift / 2 for e in (a, b) if 0 < e < x.size))

    def _jump(self, x: np.ndarray, at: int) -> float:
        """The change of median across ``at`` over ``min_len`` timestamps on each side."""
        m = self.min_len
        return abs(float(np.median(x[at:at + m])) - float(np.median(x[max(at - m, 0):at])))
