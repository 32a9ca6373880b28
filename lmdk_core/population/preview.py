"""The fast preview of a population release: each user's planned allocation, the
verifier's verdict on it and its expected error — no noise drawn.

A release of the whole population draws noise for every value and computes every
user's landmark TPL; the preview answers a change of ε or of the scheme with what is
known before any noise is drawn (Katsomallos et al., CODASPY 2022):

* the planned allocation ``ε_t`` of the scheme (:func:`lmdk_core.engine.allocation.allocate`;
  for Adaptive its starting point, Uniform ``ε/(|L|+1)`` — the release then spends at
  most that at every timestamp);
* the verdict of the one landmark-privacy verifier (:func:`lmdk_core.engine.verifier.verify`)
  on that allocation: ``max_t Σ_{i∈L∪{t}} ε_i ≤ ε``;
* the expected absolute error at that allocation (:func:`lmdk_core.decision.utility.
  utility_verdict`: ``Δf/ε_t`` for Laplace, ``≈ 2r/ε_t`` for Planar Laplace).

The per-user landmarks (flags, or the detectors of :mod:`lmdk_core.population.
landmarks`) depend only on the data and the detectors' settings: :func:`user_plans`
finds them once, :func:`preview_table` is then cheap for every ε and scheme.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.decision.utility import DataScale, data_scale, expected_utility
from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.stay_events import condense, condensed_points
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.population.landmarks import DiscoverySettings, find_user_landmarks
from lmdk_core.population.table import (
    PopulationColumns,
    check_whole_numbers,
    prepare_users,
    user_arrays,
    user_starts,
)

__all__ = ["PREVIEW_COLUMNS", "UserPlan", "preview_table", "user_plans"]

PREVIEW_COLUMNS = ["user", "n_timestamps", "n_landmarks", "landmark_private",
                   "worst_total", "expected_error", "utility"]


@dataclass(frozen=True)
class UserPlan:
    """One user's data and landmarks: ``stays`` the inclusive (start, end) ranges
    released as one landmark event each (tracks; docs/stays.md), else empty."""

    user: object
    data: np.ndarray
    landmarks: np.ndarray
    stays: tuple[tuple[int, int], ...] = ()
    #: the data's own scale (:func:`lmdk_core.decision.utility.data_scale`), computed with the plan:
    #: it does not depend on the budget, so a preview at another ε reuses it
    scale: DataScale | None = None


def user_plans(frame: pd.DataFrame, kind: str, discovery: DiscoverySettings,
               use_flags: bool) -> list[UserPlan]:
    """Every user's data and landmarks, found as the release finds them
    (:func:`lmdk_core.population.partition.release_partition`)."""
    track = kind == "track"
    flagged = use_flags and "landmark" in frame
    if not flagged:
        frame = frame.drop(columns="landmark", errors="ignore")
    prepared, time_kind = prepare_users(frame, _preview_columns(track, flagged))
    users = prepared["user"].to_numpy()
    if users.size == 0:
        return []
    starts = user_starts(users)
    data, times, flags = user_arrays(prepared, track)
    out = []
    for s, e in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        x = data[s:e]
        found = find_user_landmarks(times[s:e], x, time_kind, discovery,
                               None if flags is None else flags[s:e])
        out.append(UserPlan(users[s], x, np.asarray(found.landmarks, dtype=int),
                            tuple((int(a), int(b)) for a, b in found.stays),
                            _scale(x, "m" if track else "", times[s:e] if track else None)))
    return out


def _preview_columns(track: bool, flagged: bool) -> PopulationColumns:
    """The columns of the app's standardised frame (user, time, value or lat/lon, landmark)."""
    return PopulationColumns(user="user", time="time", value=None if track else "value",
                             lat="lat" if track else None, lon="lon" if track else None,
                             landmark="landmark" if flagged else None)


def _scale(x: np.ndarray, unit: str, times: np.ndarray | None = None) -> DataScale | None:
    """:func:`data_scale` of one user's data (a track's with its times: a typical day's
    extent over several days), or None where it refuses the data (the preview's utility
    verdict then says why, as for any release)."""
    try:
        return data_scale(x, unit, times)
    except InputError:
        return None


def _plan_row(p: UserPlan, epsilon: float, scheme: str, window: int | None,
              mechanism: str, scale_unit: float, max_landmarks: int | None = None) -> dict:
    n = len(p.data)
    sources = None
    cond = condense(n, list(p.stays)) if p.stays else None
    lm_c = (np.unique(cond.index[np.asarray(p.landmarks, dtype=int)]) if cond is not None
            else np.asarray(p.landmarks, dtype=int))
    if max_landmarks is not None and lm_c.size > max_landmarks:  # refused
        return {"user": p.user, "n_timestamps": n, "n_landmarks": int(len(p.landmarks)),
                "landmark_private": False, "worst_total": np.nan,
                "expected_error": np.nan, "utility": f"refused: more than k = {max_landmarks}"}
    if cond is not None:  # the release allocates over the condensed stream (one slot per stay)
        eps_c = allocate(scheme, cond.condensed_length, lm_c, epsilon, window=window,
                         max_landmarks=max_landmarks)
        eps_t = np.zeros(n)
        eps_t[cond.rep] = eps_c
        sources = condensed_points(p.data, cond, mechanism == "geometric")[cond.index]
    else:
        eps_t = allocate(scheme, n, p.landmarks, epsilon, window=window,
                         max_landmarks=max_landmarks)
    published = eps_t > 0
    verdict = verify(eps_t, p.landmarks, epsilon, groups=list(p.stays) or None)
    planar = mechanism == "planar_laplace"
    # the utility verdict's typical error and badge, without its sentences and advice
    typical, label = expected_utility(p.data, eps_t, published, mechanism=mechanism,
                                      sensitivity=None if planar else scale_unit,
                                      radius=scale_unit if planar else None,
                                      sources=sources, scale=p.scale)
    return {"user": p.user, "n_timestamps": n, "n_landmarks": int(len(p.landmarks)),
            "landmark_private": bool(verdict.private),
            "worst_total": float(verdict.worst_total), "expected_error": typical,
            "utility": label}


def preview_table(plans: list[UserPlan], *, epsilon: float, scheme: str, window: int | None,
                  mechanism: str, scale_unit: float,
                  max_landmarks: int | None = None) -> pd.DataFrame:
    """One row per user (:data:`PREVIEW_COLUMNS`): the planned allocation's verdict and
    expected error; ``scale_unit`` is Δf, or r for Planar Laplace. With a declared bound
    k (``max_landmarks``) every allocation is planned at k (Uniform ε/(k+1)); a user with
    more than k landmark events is refused (not private, no error figure), as the release
    refuses the population (:func:`lmdk_core.population.lockstep.planned_budgets`)."""
    if mechanism == "geometric":  # the release refuses it too (release_partition)
        for p in plans:
            check_whole_numbers(np.full(len(p.data), p.user, dtype=object), p.data)
    rows = [_plan_row(p, epsilon, scheme, window, mechanism, scale_unit, max_landmarks)
            for p in plans]
    return pd.DataFrame(rows, columns=PREVIEW_COLUMNS)
