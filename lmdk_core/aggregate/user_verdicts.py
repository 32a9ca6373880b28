"""The landmark-privacy verdict of every user of an aggregate release, vectorised.

User u spends ε_{u,t} = ε_t (the release's allocation) at each window t where u's
contribution enters the statistic, and 0 elsewhere. With u's landmark windows L_u the
theorem of :mod:`lmdk_core.engine.verifier` (Katsomallos et al., CODASPY 2022) asks
``max_t Σ_{i∈L_u∪{t}} ε_{u,i} ≤ ε``; the maximum is

    S_u + max(0, max_{t ∉ L_u} ε_{u,t}),   S_u = Σ_{i∈L_u} ε_{u,i},

computed here for all users at once from the contributions (O(n)). The rounding
allowance is the verifier's own :func:`~lmdk_core.engine.verifier.tolerance` for
|L_u| + 1 terms. ``tests/engine/test_aggregate_verdicts.py`` checks it against
:func:`~lmdk_core.engine.verifier.verify` run user by user.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.engine.verifier import TOLERANCE_ULPS

__all__ = ["user_worst_totals"]


def user_worst_totals(n_users: int, user: np.ndarray, window: np.ndarray, kept: np.ndarray,
                      landmark: np.ndarray, allocation: np.ndarray, epsilon: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(worst_total, private, landmark_windows)`` per user (arrays of ``n_users``).

    ``user``, ``window``, ``kept``, ``landmark``: one entry per contribution;
    ``allocation``: ε_t per window.
    """
    eps_u = np.where(kept, np.asarray(allocation, dtype=float)[window], 0.0)
    lm = np.asarray(landmark, dtype=bool)
    s = np.bincount(user[lm], weights=eps_u[lm], minlength=n_users)
    regular = np.zeros(n_users)
    np.maximum.at(regular, user[~lm], eps_u[~lm])
    n_lm = np.bincount(user[lm], minlength=n_users)
    worst = s + regular
    # the verifier's allowance, TOLERANCE_ULPS·(|L|+1)·ulp(ε) (verifier.tolerance)
    allowance = TOLERANCE_ULPS * (n_lm + 1) * np.spacing(abs(float(epsilon)))
    return worst, worst <= float(epsilon) + allowance, n_lm
