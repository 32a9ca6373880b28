"""Each user's own landmarks under a declared bound k (landmark windows per user).

With personal landmarks the allocation may not depend on anyone's landmarks (their
number would show in the noise scale; docs/privacy-model.md). The publisher declares a
public bound **k**: every window is released with ε_t = ε/(k+1) (Uniform), or with ε
while every landmark contribution is left out (Skip). For Uniform, a user with at most
k landmark windows spends at most k·ε/(k+1) on them plus ε/(k+1) at any other window:
ε in all (Katsomallos et al., CODASPY 2022, Theorem 1). A user with **more** than k
landmark windows is handled by a stated rule, counted in the audit:

* ``drop`` (default): the user's landmark contributions after the first k (in time)
  are left out of the statistic — the user then spends nothing there, and the theorem
  holds for the user with all of the user's landmarks;
* ``refuse``: the user is left out of every window.

Which contributions are dropped depends on the user's own data only; the release's
structure and noise scale depend on k and ε alone.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.foundation.errors import InputError

__all__ = ["OVER_K_RULES", "check_k", "kept_contributions"]

#: what happens to a user with more than k landmark windows
OVER_K_RULES = ("drop", "refuse")


def check_k(k: object) -> int:
    """The declared bound k as an int ≥ 0, else InputError."""
    try:
        value = float(k)  # type: ignore[arg-type]  # any object: float() refuses the rest
    except (TypeError, ValueError):
        raise InputError(f"--landmarks-per-user must be a whole number >= 0, got {k!r}"
                         ) from None
    if isinstance(k, bool) or not np.isfinite(value) or value != int(value) or value < 0:
        raise InputError(f"--landmarks-per-user must be a whole number >= 0, got {k!r}")
    return int(value)


def _rank_within_user(user: np.ndarray, flag: np.ndarray) -> np.ndarray:
    """For each row, how many flagged rows of the same user come before it and at it
    (rows sorted by user)."""
    c = np.cumsum(flag, dtype=np.int64)
    first = np.concatenate([[True], user[1:] != user[:-1]])
    before = np.where(first, c - flag, 0)
    base = np.maximum.accumulate(np.where(first, before, -1))
    return c - base


def kept_contributions(user: np.ndarray, landmark: np.ndarray, k: int, rule: str,
                       skip: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(kept, dropped_per_contribution, refused_user)`` for contributions sorted by user
    then window.

    ``kept[i]``: contribution i enters the statistic. Uniform (``skip`` False): every
    contribution of a user with at most ``k`` landmark windows; for a user with more,
    ``drop`` leaves out the landmark contributions after the k-th, ``refuse`` all of
    the user's. Skip: every landmark contribution is left out (the user spends nothing
    on landmarks), whatever k. ``refused_user`` is per contribution (True for every
    contribution of a refused user).
    """
    if rule not in OVER_K_RULES:
        raise InputError(f"unknown rule {rule!r} for users with more than k landmark "
                         f"windows; choose {' or '.join(OVER_K_RULES)}")
    lm = np.asarray(landmark, dtype=bool)
    if skip:
        return ~lm, lm.copy(), np.zeros(lm.size, dtype=bool)
    rank = _rank_within_user(np.asarray(user), lm.astype(np.int64))
    if rule == "drop":
        over = lm & (rank > k)
        return ~over, over, np.zeros(lm.size, dtype=bool)
    total = np.zeros(int(user.max()) + 1 if user.size else 0, dtype=np.int64)
    np.add.at(total, user, lm)
    refused = total[user] > k
    return ~refused, lm & refused, refused
