"""A population statistic released end to end: settings → grids → plan → totals → noise.

:func:`aggregate_population` does it in process on a prepared long table (the app, the
tests, small files); :mod:`lmdk_core.aggregate.dask_run` feeds the same partition work
through Dask for tables that do not fit in memory. Both end in :func:`finish_release`.

The release is **publishable** only when the plan passes the verifier and every user's
own verdict does (:mod:`lmdk_core.aggregate.user_verdicts`); otherwise nothing
publishable is written and the audit says who is not protected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lmdk_core.aggregate.cells import CellGrid, cell_grid
from lmdk_core.aggregate.landmark_bound import check_k
from lmdk_core.aggregate.levels import LevelError, compare_levels
from lmdk_core.aggregate.noisy_release import (
    StatisticRelease,
    release_adaptive,
    release_statistic,
)
from lmdk_core.aggregate.origin_destination import check_od
from lmdk_core.aggregate.partition_work import AggregateSpec, PartialAggregate, aggregate_frame
from lmdk_core.aggregate.plan import LandmarkSetting, Plan, plan_allocation
from lmdk_core.aggregate.statistics import Statistic, Totals
from lmdk_core.aggregate.temporal_leakage import AggregateLeakage, aggregate_leakage
from lmdk_core.aggregate.windows import WindowGrid, window_grid
from lmdk_core.engine.allocation import scheme_info
from lmdk_core.engine.verifier import Verdict
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.validation import check_epsilon

__all__ = ["AggregateRequest", "AggregateResult", "aggregate_population", "finish_release",
           "make_spec"]

#: w of the w-event level in the comparison when the request names none
DEFAULT_W = 24


@dataclass(frozen=True)
class AggregateRequest:
    """The public settings of an aggregate release (the CLI's options)."""

    statistic: Statistic
    width: float
    epsilon: float
    scheme: str = "uniform"
    start: str | None = None
    end: str | None = None
    cell_size: float | None = None
    bbox: tuple[float, float, float, float] | None = None
    w: int | None = None
    landmark_times: tuple[str, ...] | None = None
    k: int | None = None
    landmark_flags: bool = False
    over_k: str = "drop"
    noise: str = "exact"
    seed: int | None = None
    #: a declared transition matrix (backward; ``forward_matrix`` defaults to it) for the
    #: temporal leakage of the release (:mod:`lmdk_core.aggregate.temporal_leakage`)
    #: also release origin-destination counts between consecutive windows (tracks)
    od: bool = False
    matrix: np.ndarray | None = field(default=None, repr=False)
    forward_matrix: np.ndarray | None = field(default=None, repr=False)

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)


@dataclass
class AggregateResult:
    """A finished aggregate release and what the audit and the page show about it."""

    spec: AggregateSpec
    plan: Plan
    release: StatisticRelease
    verdict: Verdict
    truth: np.ndarray
    partial: PartialAggregate
    levels: list[LevelError] = field(default_factory=list)
    #: TPL under the declared matrix (None without one, or for Adaptive)
    leakage: AggregateLeakage | None = None
    #: origin-destination release (T − 1 transitions × C² pairs) and its truth
    od_release: StatisticRelease | None = None
    od_truth: np.ndarray | None = None

    @property
    def not_private(self) -> int:
        """Users whose own verdict fails (nobody, for a publishable release)."""
        return int((~self.partial.users["landmark_private"].astype(bool)).sum())

    @property
    def publishable(self) -> bool:
        return bool(self.verdict.private) and self.not_private == 0


def _landmark_setting(req: AggregateRequest, windows: WindowGrid) -> LandmarkSetting:
    if req.landmark_times is not None and (req.k is not None or req.landmark_flags):
        raise InputError("give either --landmark-times (landmarks common to everyone) or "
                         "--landmarks-per-user K (each user's own), not both")
    if req.landmark_times is not None:
        return LandmarkSetting("public", _public_windows(req.landmark_times, windows))
    if req.landmark_flags and req.k is None:
        raise InputError("--landmark-col needs --landmarks-per-user K: the declared bound "
                         "of landmark windows per user sets every window's budget")
    if req.k is not None:
        k = check_k(req.k)
        return LandmarkSetting("personal", k=k, rule=req.over_k,
                               source="flag column" if req.landmark_flags else "discovered")
    return LandmarkSetting("none")


def _public_windows(times: tuple[str, ...], windows: WindowGrid) -> np.ndarray:
    """The windows of the public landmark times (each must fall inside the grid)."""
    from lmdk_core.aggregate.windows import parse_instant

    out = []
    for t in times:
        if not str(t).strip():
            continue
        at = parse_instant(t, windows.kind, "landmark time")
        i = int(windows.index(np.array([at]))[0])
        if not 0 <= i < windows.count:
            raise InputError(f"landmark time {quote_user_text(str(t))} is outside the period "
                             "of the windows")
        out.append(i)
    return np.unique(np.asarray(out, dtype=np.int64))


def make_spec(req: AggregateRequest, kind: str, *, first=None, last=None,
              lat: np.ndarray | None = None, lon: np.ndarray | None = None
              ) -> tuple[AggregateSpec, Plan]:
    """The grids (declared, or from the data's extent ``first``/``last`` and
    ``lat``/``lon``), the landmark setting and the plan."""
    eps = check_epsilon(req.epsilon)
    scheme_info(req.scheme)
    windows = window_grid(req.width, kind, start=req.start, end=req.end, first=first,
                          last=last)
    cells: CellGrid | None = None
    if req.statistic.kind == "cells":
        if req.cell_size is None:
            raise InputError("users per cell need the cell size (--cell, in metres)")
        cells = cell_grid(float(req.cell_size), bbox=req.bbox, lat=lat, lon=lon)
    setting = _landmark_setting(req, windows)
    plan = plan_allocation(req.scheme, windows.count, setting, eps, req.w)
    if req.od:
        if cells is None:
            raise InputError("origin-destination counts are for tracks (--lat-col, --lon-col)")
        check_od(plan.allocation, windows.count, cells.count)
    spec = AggregateSpec(req.statistic, windows, cells, setting, plan.allocation,
                         plan.skip_landmarks, eps, od=req.od)
    return spec, plan


def aggregate_population(frame: pd.DataFrame, kind: str, req: AggregateRequest,
                         compare: bool = True) -> AggregateResult:
    """Release ``req``'s statistic of a prepared long table (in process)."""
    if frame.empty:
        raise InputError("the population has no rows")
    times = frame["time"].to_numpy()
    track = req.statistic.kind == "cells"
    spec, plan = make_spec(req, kind, first=times.min(), last=times.max(),
                           lat=frame["lat"].to_numpy() if track else None,
                           lon=frame["lon"].to_numpy() if track else None)
    return finish_release(aggregate_frame(frame, kind, spec), spec, plan, req, compare)


def finish_release(partial: PartialAggregate, spec: AggregateSpec, plan: Plan,
                   req: AggregateRequest, compare: bool = True) -> AggregateResult:
    """The noise, the verdicts and the level comparison of summed partition totals."""
    if partial.users.empty:
        raise InputError("no user has a row inside the period of the windows")
    rng = req.rng()
    verdict = plan.verdict
    if plan.scheme == "adaptive":
        rel, verdict = release_adaptive(partial.kept, spec.statistic, spec.landmarks.windows,
                                        epsilon=spec.epsilon, noise=req.noise, rng=rng)
        # every user shares the public landmarks and spends at most the release's ε_t
        partial.users["landmark_private"] = bool(verdict.private)
    else:
        # with OD the window's budget b is split: counts b/2, each transition b/4
        counts_eps = plan.allocation / 2 if spec.od else plan.allocation
        rel = release_statistic(partial.kept, spec.statistic, counts_eps, req.noise, rng)
    truth = partial.all.values(spec.statistic)
    result = AggregateResult(spec, plan, rel, verdict, truth, partial)
    if spec.od:
        if partial.od is None:
            raise ValueError("an origin-destination release needs the partitions' OD counts")
        T, C = partial.od.shape[0], spec.n_cells
        od = Totals(partial.od.reshape(T, C * C), np.zeros((T, C * C)))
        result.od_release = release_statistic(od, spec.statistic, plan.allocation[:-1] / 4,
                                              req.noise, rng)
        result.od_truth = od.count.astype(float)
    if req.matrix is not None and plan.scheme != "adaptive":
        result.leakage = aggregate_leakage(plan.allocation, spec.landmarks, req.matrix,
                                           req.forward_matrix)
    if compare:
        w = req.w or min(DEFAULT_W, spec.windows.count)
        result.levels = compare_levels(partial.all, rel, spec.statistic, epsilon=spec.epsilon, w=w,
                                       noise=req.noise, rng=rng)
    return result
