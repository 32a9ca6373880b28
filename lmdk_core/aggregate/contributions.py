"""Contribution bounding: at most one contribution per user per window.

The rows of a population (:func:`lmdk_core.population.table.prepare_users`: sorted by
user, then time, rows with equal times in file order) are cut into (user, window)
groups; each group becomes **one contribution**:

* **tracks** — the cell of the user's **first fix in the window** (the earliest time;
  among equal times the first row of the file). A first fix outside the grid's box puts
  the user in no cell for that window (the audit counts it). So no user is in two cells
  of one window, and each window's cell counts change by at most 1 in each of two cells
  when one user's fixes change (docs/aggregate.md);
* **series** — the **mean of the user's readings in the window, each clamped** to the
  declared bounds ``[LO, HI]`` (a mean of values in ``[LO, HI]`` lies in it).

A contribution is a **landmark** of its user when any of the user's rows in the window
is flagged (flag column, discovered landmarks, or the window is a public landmark).
Rows outside the window grid are left out (counted in the audit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.aggregate.cells import CellGrid
from lmdk_core.aggregate.windows import WindowGrid

__all__ = ["Contributions", "bound_contributions"]


@dataclass(frozen=True)
class Contributions:
    """One row per (user, window) with data, sorted by user then window.

    ``user`` indexes ``users`` (the distinct ids, in sorted order); ``cell`` is the cell
    of a track contribution (−1: outside the box; 0 for series); ``value`` the clamped
    mean of a series contribution (1 for tracks); ``landmark`` whether the window is a
    landmark of the user. ``rows_outside`` counts rows outside the window grid.
    """

    users: np.ndarray
    user: np.ndarray
    window: np.ndarray
    cell: np.ndarray
    value: np.ndarray
    landmark: np.ndarray
    rows_outside: int = 0

    def __len__(self) -> int:
        return int(self.user.size)


def bound_contributions(frame, windows: WindowGrid, *, cells: CellGrid | None = None,
                        bounds: tuple[float, float] | None = None,
                        row_landmarks: np.ndarray | None = None) -> Contributions:
    """The contributions of a prepared frame (see the module docstring).

    ``row_landmarks`` (one bool per row, optional) marks the landmark rows; without it
    the frame's ``landmark`` column is used when it has one.
    """
    users_all = frame["user"].to_numpy()
    w_all = windows.index(frame["time"].to_numpy())
    inside = (w_all >= 0) & (w_all < windows.count)
    if row_landmarks is None and "landmark" in frame:
        row_landmarks = frame["landmark"].to_numpy(dtype=bool)
    keep = np.flatnonzero(inside)
    users_k, w = users_all[keep], w_all[keep]
    if not keep.size:
        return _empty(int((~inside).sum()))
    new_user = np.concatenate([[True], users_k[1:] != users_k[:-1]])
    starts = np.flatnonzero(new_user | np.concatenate([[True], w[1:] != w[:-1]]))
    # the rows are sorted by user: a user's code counts the user changes so far
    first_of_user = new_user[starts]
    ids = users_k[starts][first_of_user]
    user_code = np.cumsum(first_of_user) - 1
    if cells is not None:
        cell = cells.index(frame["lat"].to_numpy()[keep][starts],
                           frame["lon"].to_numpy()[keep][starts])
        value = np.ones(starts.size)
    else:
        if bounds is None:
            raise ValueError("the contributions of a series need its declared bounds")
        lo, hi = bounds
        x = np.clip(frame["value"].to_numpy(dtype=float)[keep], lo, hi)
        n = np.diff(np.append(starts, keep.size))
        value = np.clip(np.add.reduceat(x, starts) / n, lo, hi)
        cell = np.zeros(starts.size, dtype=np.int64)
    if row_landmarks is not None:
        flag = np.asarray(row_landmarks, dtype=np.uint8)[keep]
        landmark = np.maximum.reduceat(flag, starts).astype(bool)
    else:
        landmark = np.zeros(starts.size, dtype=bool)
    return Contributions(users=ids, user=user_code.astype(np.int64), window=w[starts],
                         cell=cell.astype(np.int64), value=value, landmark=landmark,
                         rows_outside=int((~inside).sum()))


def _empty(rows_outside: int) -> Contributions:
    z = np.zeros(0, dtype=np.int64)
    return Contributions(users=np.zeros(0, dtype=object), user=z, window=z, cell=z,
                         value=np.zeros(0), landmark=np.zeros(0, dtype=bool),
                         rows_outside=rows_outside)
