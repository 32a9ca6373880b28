"""What one partition of whole users adds to an aggregate release.

A partition (all the rows of its users: a Dask task of
:func:`lmdk_core.population.dask_driver.partition_tasks`, or the whole table in process)
is checked (:func:`lmdk_core.population.table.prepare_users`), cut into contributions
(:mod:`lmdk_core.aggregate.contributions`), each user's landmark rule applied
(:mod:`lmdk_core.aggregate.landmark_bound`), every user verified against the plan's
allocation (:mod:`lmdk_core.aggregate.user_verdicts`), and summed into
:class:`~lmdk_core.aggregate.statistics.Totals` — what the partition returns is a few
arrays of the grid's size and one audit row per user, never its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.aggregate.cells import CellGrid
from lmdk_core.aggregate.contributions import Contributions, bound_contributions
from lmdk_core.aggregate.landmark_bound import kept_contributions
from lmdk_core.aggregate.origin_destination import od_totals
from lmdk_core.aggregate.plan import LandmarkSetting
from lmdk_core.aggregate.statistics import Statistic, Totals, totals_of
from lmdk_core.aggregate.user_verdicts import user_worst_totals
from lmdk_core.aggregate.windows import WindowGrid
from lmdk_core.foundation.errors import InputError

__all__ = ["AggregateSpec", "PartialAggregate", "aggregate_frame", "aggregate_raw_partition"]

#: the per-user audit columns
USER_COLUMNS = ["user", "contributions", "landmark_windows", "dropped", "refused",
                "outside_cells", "worst_total", "landmark_private"]


@dataclass(frozen=True)
class AggregateSpec:
    """Everything a partition needs: public settings and the plan's allocation."""

    statistic: Statistic
    windows: WindowGrid
    cells: CellGrid | None
    landmarks: LandmarkSetting
    allocation: np.ndarray
    skip_landmarks: bool
    epsilon: float
    #: also count origin-destination pairs between consecutive windows (tracks)
    od: bool = False

    @property
    def n_cells(self) -> int:
        return self.cells.count if self.cells is not None else 1


@dataclass
class PartialAggregate:
    """The totals of every bounded contribution (``all``) and of those the landmark rule
    keeps (``kept``), the users' audit rows, rows outside the window grid, the time kind."""

    all: Totals
    kept: Totals
    users: pd.DataFrame
    rows_outside: int
    time_kind: str
    #: origin-destination counts (T − 1, C, C) of kept contributions, when asked for
    od: np.ndarray | None = None

    def __add__(self, other: PartialAggregate) -> PartialAggregate:
        kinds = {self.time_kind, other.time_kind} - {"none"}
        if len(kinds) > 1:
            raise InputError("mixed time kinds: some users' times are numbers and others' "
                             "are dates; use one kind for the whole file")
        return PartialAggregate(self.all + other.all, self.kept + other.kept,
                                pd.concat([self.users, other.users], ignore_index=True),
                                self.rows_outside + other.rows_outside,
                                next(iter(kinds), "none"),
                                None if self.od is None else self.od + other.od)


def _row_landmarks(frame: pd.DataFrame, setting: LandmarkSetting, kind: str,
                   track: bool) -> np.ndarray | None:
    """Each row's landmark flag for personal landmarks: the flag column, else the app's
    detectors run on each user (:func:`lmdk_core.population.landmarks.find_user_landmarks`)."""
    if setting.kind != "personal":
        return None
    if "landmark" in frame:
        return frame["landmark"].to_numpy(dtype=bool)
    from lmdk_core.population.landmarks import DiscoverySettings, find_user_landmarks
    from lmdk_core.population.table import user_arrays, user_starts

    data, times, _ = user_arrays(frame, track)
    flags = np.zeros(len(frame), dtype=bool)
    starts = user_starts(frame["user"].to_numpy())
    found_settings = DiscoverySettings()
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        found = find_user_landmarks(times[a:b], data[a:b], kind, found_settings)
        flags[a + found.landmarks] = True
    return flags


def aggregate_frame(frame: pd.DataFrame, kind: str, spec: AggregateSpec) -> PartialAggregate:
    """The :class:`PartialAggregate` of a prepared frame of whole users."""
    if kind not in ("none", spec.windows.kind):
        raise InputError(f"the times are {'dates' if kind == 'datetime' else 'numbers'} but "
                         "the declared period is not: give --start/--end in the same kind")
    T, C = spec.windows.count, spec.n_cells
    if frame.empty:
        od = np.zeros((max(T - 1, 0), C, C), dtype=np.int64) if spec.od else None
        return PartialAggregate(Totals.zeros(T, C), Totals.zeros(T, C),
                                pd.DataFrame(columns=USER_COLUMNS), 0, kind, od)
    track = spec.cells is not None
    con = bound_contributions(frame, spec.windows, cells=spec.cells,
                              bounds=spec.statistic.bounds,
                              row_landmarks=_row_landmarks(frame, spec.landmarks, kind, track))
    landmark = _contribution_landmarks(con, spec.landmarks)
    if spec.landmarks.kind == "personal":
        kept, dropped, refused = kept_contributions(con.user, landmark,
                                                    spec.landmarks.declared_k(),
                                                    spec.landmarks.rule, spec.skip_landmarks)
    else:
        kept = np.ones(len(con), dtype=bool)
        dropped = refused = np.zeros(len(con), dtype=bool)
    everyone = np.ones(len(con), dtype=bool)
    totals_all = totals_of(con.window, con.cell, con.value, everyone, windows=T, cells=C)
    totals_kept = totals_of(con.window, con.cell, con.value, kept, windows=T, cells=C)
    users = _user_rows(con, landmark, kept, dropped, refused, spec)
    od = od_totals(con.user, con.window, con.cell, kept, windows=T, cells=C) if spec.od else None
    return PartialAggregate(totals_all, totals_kept, users, con.rows_outside, kind, od)


def _contribution_landmarks(con: Contributions, setting: LandmarkSetting) -> np.ndarray:
    if setting.kind == "public":
        return np.isin(con.window, setting.windows)
    if setting.kind == "personal":
        return con.landmark
    return np.zeros(len(con), dtype=bool)


def _user_rows(con: Contributions, landmark: np.ndarray, kept: np.ndarray,
               dropped: np.ndarray, refused: np.ndarray, spec: AggregateSpec) -> pd.DataFrame:
    """One audit row per user: contributions, landmark windows, dropped contributions,
    refused, contributions in no cell, the theorem's worst total and the verdict."""
    n = con.users.size
    worst, private, n_lm = user_worst_totals(n, con.user, con.window, kept, landmark,
                                             spec.allocation, spec.epsilon)
    count = np.bincount(con.user, minlength=n)
    return pd.DataFrame({
        "user": con.users,
        "contributions": count,
        "landmark_windows": n_lm,
        "dropped": np.bincount(con.user, weights=dropped, minlength=n).astype(np.int64),
        "refused": np.bincount(con.user, weights=refused, minlength=n) > 0,
        "outside_cells": np.bincount(con.user, weights=con.cell < 0,
                                     minlength=n).astype(np.int64),
        "worst_total": worst,
        "landmark_private": private,
    })


def aggregate_raw_partition(raw: pd.DataFrame, index: int, cols, spec: AggregateSpec):
    """Dask task body: check the raw rows of whole users and aggregate them; bad input
    comes back as a :class:`~lmdk_core.population.dask_driver.TaskError` (one line on the
    driver, no worker traceback)."""
    from lmdk_core.population.dask_driver import TaskError
    from lmdk_core.population.table import prepare_users

    try:
        frame, kind = prepare_users(raw, cols)
        return aggregate_frame(frame, kind, spec)
    except InputError as exc:
        return TaskError(str(exc))
