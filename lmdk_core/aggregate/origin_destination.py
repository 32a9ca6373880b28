"""Origin–destination counts between cells per pair of consecutive windows (tracks).

A user with a contribution (:mod:`lmdk_core.aggregate.contributions`: the cell of the
first fix) in window w and in window w + 1, both inside the grid and both kept by the
landmark rule, adds 1 to the pair (cell at w, cell at w + 1) of **transition** w.

**Budget.** One user's event at window w (its contribution there) reaches the cell counts
of w and the OD counts of transitions w − 1 and w: in each, one user's pair moves (L1
change 2) or appears / disappears (1). With the window's budget b = ε_w of the plan (the
allocation the verifier checks, and every user's verdict), the counts are released at
b/2 and each transition at b/4 — two-sided geometric noise of scale 2/(b/2) and 2/(b/4) —
so the event costs at most b/2 + b/4 + b/4 = b: the theorem Σ_{i∈L∪{t}} ε_i ≤ ε covers
counts and OD together. This needs the same b in neighbouring windows: OD is offered for
constant allocations only (Uniform, event, w-event, user), not Skip or Adaptive.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.foundation.errors import InputError

__all__ = ["MAX_OD_VALUES", "check_od", "od_totals"]

#: the most OD values (transitions × origins × destinations) one release may hold
MAX_OD_VALUES = 2_000_000


def check_od(allocation: np.ndarray, windows: int, cells: int) -> None:
    """InputError unless the allocation is one positive constant and the OD table fits."""
    eps = np.asarray(allocation, dtype=float)
    if not (eps.size and eps[0] > 0 and np.all(eps == eps[0])):
        raise InputError("origin-destination counts need the same budget in every window: "
                         "use the uniform, event, w-event or user scheme")
    n = max(windows - 1, 0) * cells * cells
    if n > MAX_OD_VALUES:
        raise InputError(f"{n:,} origin-destination values ({cells:,} cells squared per "
                         f"transition); at most {MAX_OD_VALUES:,} — choose larger cells, a "
                         "smaller --bbox or wider windows")


def od_totals(user: np.ndarray, window: np.ndarray, cell: np.ndarray, kept: np.ndarray,
              *, windows: int, cells: int) -> np.ndarray:
    """Counts ``(T − 1, C, C)`` of (origin, destination) per transition, from
    contributions sorted by user then window (see the module docstring)."""
    ok = np.asarray(kept, dtype=bool) & (cell >= 0)
    pair = ((user[1:] == user[:-1]) & (window[1:] == window[:-1] + 1) & ok[1:] & ok[:-1])
    i = np.flatnonzero(pair)
    flat = (window[i] * cells + cell[i]) * cells + cell[i + 1]
    n = max(windows - 1, 0) * cells * cells
    return np.bincount(flat, minlength=n).reshape(max(windows - 1, 0), cells, cells)
