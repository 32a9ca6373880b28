"""What averaging consecutive released points recovers from a released track.

Planar Laplace noise (Andrés et al., "Geo-indistinguishability", CCS 2013) is drawn
independently at every timestamp, but consecutive locations of a dense track are close
to each other: the mean of ``w`` consecutive released points keeps the path (moved by
how far it bends within the window) while the noise of the mean shrinks about as
``1/√w``. A moving average of the published file therefore recovers the path far better
than any single released point says — the utility line's "a typical point is 400 m
from the truth" can be 50 m after averaging a minute of a 1 Hz run. This is the effect of
temporal correlation that the verdict's temporal privacy leakage (TPL; Cao et al., ICDE
2017 / TKDE 2018) accounts for, shown in metres.

**What is measured.** :func:`averaging_effect` draws :data:`RUNS` releases with the
same settings from the generator of :data:`SEED` (the released file itself is not
used: its noise stays unknown), and for each window ``w`` of :data:`WINDOWS` replaces
every released point by the centred mean of the ``w`` released points around it (fewer
at the ends; withheld timestamps are not in the file and are skipped), exactly what
anyone can do with the published file. The error of a timestamp is the geodesic
distance from the averaged point to the true one; the figure stated is the **median
over timestamps, pooled over the runs**, for the window where it is smallest (the
window an attacker who knows the sampling rate would pick), next to the same median for
single points (``w = 1``). The figures come from the raw track: they are for the
curator's screen (stdout, the app), never for a published file.

See ``docs/correlation.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.decision.comparison import ReleaseFn
from lmdk_core.foundation.errors import InputError

__all__ = ["RUNS", "SEED", "WINDOWS", "AveragingEffect", "SmoothedTrack", "averaging_effect",
           "moving_average"]

#: the moving-average windows tried (consecutive released points, odd so they centre)
WINDOWS = (1, 3, 5, 9, 15, 25, 41, 61, 101, 151, 251, 401)
#: simulated releases per figure
RUNS = 8
#: the seed of the simulated releases (fixed: the figure is a property of the settings
#: and the track, the same on every run; independent of the release's own noise)
SEED = 20_221_017


@dataclass(frozen=True)
class AveragingEffect:
    """Outcome of :func:`averaging_effect`: the median error of single released points
    (``single_m``), the best moving-average ``window`` and the median error after it
    (``averaged_m``), all in metres; ``medians`` the median per window tried."""

    window: int
    single_m: float
    averaged_m: float
    medians: tuple[tuple[int, float], ...]
    runs: int = RUNS
    seed: int = SEED

    @property
    def helps(self) -> bool:
        """Whether some window > 1 beats single points."""
        return self.window > 1 and self.averaged_m < self.single_m

    def sentence(self) -> str:
        """What averaging does, in one or two sentences with the numbers."""
        from lmdk_core.decision.utility import format_amount

        how = (f"median over points, {self.runs} simulated releases with seed {self.seed}; "
               "docs/correlation.md")
        if not self.helps:
            return (f"Averaging consecutive released points does not bring them closer to "
                    f"the truth here: single points are typically "
                    f"{format_amount(self.single_m, 'm')} off, and no moving average of "
                    f"{WINDOWS[1]}–{WINDOWS[-1]} points does better ({how}).")
        return (f"Averaging consecutive released points recovers more than a single point "
                f"shows: a moving average of {self.window} points of the published file "
                f"brings a typical point from {format_amount(self.single_m, 'm')} to about "
                f"{format_amount(self.averaged_m, 'm')} of the true path ({how}). Noise "
                "is independent from point to point, the path is not: the closer the "
                "points, the more averaging recovers.")

    def to_dict(self) -> dict:
        """The JSON keys (``averaging_*``)."""
        return {"averaging_window": int(self.window),
                "averaging_single_median_m": float(self.single_m),
                "averaging_median_m": float(self.averaged_m),
                "averaging_runs": int(self.runs), "averaging_seed": int(self.seed),
                "averaging_sentence": self.sentence()}


class SmoothedTrack(NamedTuple):
    """A track's centred moving average (:func:`moving_average`), in degrees."""

    lat: np.ndarray
    lon: np.ndarray


def moving_average(lat: ArrayLike, lon: ArrayLike, window: int) -> SmoothedTrack:
    """The centred moving average of ``window`` consecutive points (``window`` odd; at the
    ends the points there are, as ``pandas.Series.rolling(window, center=True,
    min_periods=1).mean()``). Longitudes are averaged unwrapped (``numpy.unwrap``), so a
    track across the antimeridian is averaged where it is.

    >>> moving_average([0.0, 1, 2, 3], [10.0, 10, 10, 14], 3)[1].round(4).tolist()
    [10.0, 10.0, 11.3333, 12.0]
    >>> moving_average([0.0, 0.0], [179.9, -179.9], 3)[1].round(4).tolist()  # across ±180°
    [180.0, 180.0]
    """
    if window < 1 or window % 2 == 0:
        raise InputError(f"the moving-average window must be an odd number ≥ 1, got {window}")
    la = np.asarray(lat, dtype=float)
    lo = np.asarray(lon, dtype=float)
    lo_u = np.unwrap(lo, period=360.0)  # consecutive points never 180° apart
    n = la.size
    h = window // 2
    i = np.arange(n)
    a, b = np.maximum(i - h, 0), np.minimum(i + h, n - 1) + 1
    count = b - a

    def mean(x: np.ndarray) -> np.ndarray:
        if not x.size:
            return x
        x0 = x[0]  # sums of offsets from the first point: no digits lost to 40° or 116°
        cs = np.concatenate([[0.0], np.cumsum(x - x0)])
        return x0 + (cs[b] - cs[a]) / count

    out_lo = mean(lo_u)
    return SmoothedTrack(mean(la), np.where(np.abs(out_lo) > 180.0,
                                            (out_lo + 180.0) % 360.0 - 180.0, out_lo))


def averaging_effect(release_fn: ReleaseFn, scheme: str, epsilon: float, *,
                     runs: int = RUNS, seed: int = SEED,
                     windows: tuple[int, ...] = WINDOWS) -> AveragingEffect:
    """The median error of single released points and of the best centred moving average
    (module docstring): ``runs`` releases ``release_fn(scheme, epsilon, generator)`` drawn
    from ``numpy.random.default_rng([seed, i])``; for each window ``w``, the geodesic
    distance ``|mean_{j ∈ W(t)} y_j − x_t|`` of every released timestamp t (``y`` the
    released, ``x`` the true points), median pooled over the runs.

    Returns
    -------
    AveragingEffect
        The best window, the medians of single and averaged points (metres).

    Examples
    --------
    >>> import numpy as np
    >>> from lmdk_core.decision.comparison import track_release_fn
    >>> lat = 48.85 + np.arange(600) * 1e-5  # a walk north, about 1.1 m a step
    >>> fn = track_release_fn(lat, np.full(600, 2.35), [], radius=100.0)
    >>> eff = averaging_effect(fn, "uniform", 1.0, runs=2)
    >>> eff.helps, eff.averaged_m < eff.single_m / 5
    (True, True)
    """
    from lmdk_core.foundation.geodesy import distance_m

    if runs < 1:
        raise InputError("averaging needs at least one simulated release")
    errors: dict[int, list[np.ndarray]] = {w: [] for w in windows}
    for i in range(runs):
        rel = release_fn(scheme, epsilon, np.random.default_rng([seed, i]))
        ok = ~rel.withheld
        if not ok.any():
            break
        truth = np.asarray(rel.original, dtype=float)[ok]
        shown = np.asarray(rel.released, dtype=float)[ok]
        for w in windows:
            if w > 1 and w // 2 >= shown.shape[0]:
                continue  # longer than the file: the same as the next smaller window
            la, lo = moving_average(shown[:, 0], shown[:, 1], w)
            errors[w].append(distance_m(truth[:, 0], truth[:, 1], la, lo))
    medians = tuple((w, float(np.median(np.concatenate(e)))) for w, e in errors.items() if e)
    if not medians:
        nan = float("nan")
        return AveragingEffect(1, nan, nan, (), runs, seed)
    single = dict(medians).get(1, medians[0][1])
    best_w, best = min(medians, key=lambda m: (m[1], m[0]))
    return AveragingEffect(best_w, single, best, medians, runs, seed)
