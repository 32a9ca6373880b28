"""Per-timestamp budget allocations (schemes) for landmark privacy.

The schemes of docs/definitions.md, with T timestamps, landmark set L and total budget ε:

=============  ==============================================================
event          ε everywhere — protects one event; landmark-private only without landmarks
               (with one landmark l and a regular t the total is ε_l + ε_t = 2ε)
user           ε/T everywhere — protects the whole series (user-level DP)
w-event        ε/w everywhere — uniform w-event privacy (Kellaris et al., VLDB 2014)
uniform        ε/(|L|+1) everywhere (ε/|L| when every timestamp is a landmark)
skip           0 at landmarks (an approximation is published), ε elsewhere
adaptive       data-dependent; see :mod:`lmdk_core.engine.release`
=============  ==============================================================

Why Uniform gives ε/(|L|+1) and not ε/|L| to landmarks: the prose of Katsomallos et al.
(CODASPY 2022) can be read as "landmarks get ε/|L|". Then at a regular t the theorem's sum is
|L|·ε/|L| + ε/(|L|+1) > ε — the literal reading is not landmark-private, and the
verifier flags it (see :func:`literal_uniform_reading`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from lmdk_core.engine.quoting import quote_user_text
from lmdk_core.engine.validation import InputError, check_epsilon, check_landmarks, check_length

__all__ = ["SCHEMES", "Scheme", "allocate", "literal_uniform_reading", "scheme_info",
           "uniform_total_for_share"]


@dataclass(frozen=True)
class Scheme:
    """A budget scheme: its CLI key, display name and one-line description."""

    key: str
    label: str
    description: str
    data_dependent: bool = False


SCHEMES: dict[str, Scheme] = {
    s.key: s
    for s in [
        Scheme("event", "Event-level", "ε at every timestamp: protects single events only; "
               "not landmark-private once there is a landmark."),
        Scheme("user", "User-level", "ε/T at every timestamp: protects the whole series, "
               "at the highest cost in accuracy."),
        Scheme("w-event", "w-event", "ε/w at every timestamp: protects any w consecutive "
               "events (uniform w-event privacy)."),
        Scheme("uniform", "Uniform", "ε/(|L|+1) at every timestamp: all landmarks plus the "
               "current event share ε."),
        Scheme("skip", "Skip", "Nothing released at landmarks (last release repeated), "
               "ε at every regular timestamp."),
        Scheme("adaptive", "Adaptive", "Starts Uniform; skips when the data barely change "
               "and hands a skipped landmark's share to the future.", data_dependent=True),
    ]
}

_ALIASES = {"event-level": "event", "user-level": "user", "w_event": "w-event", "wevent": "w-event"}


def scheme_info(scheme: str) -> Scheme:
    """Look up a scheme by key (case-insensitive; 'event-level' etc. accepted)."""
    key = str(scheme).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in SCHEMES:
        raise InputError(
            f"unknown scheme {quote_user_text(scheme)}; choose one of: {', '.join(SCHEMES)}"
        )
    return SCHEMES[key]


def allocate(
    scheme: str,
    length: int,
    landmarks: Iterable[int] | None,
    epsilon: float,
    window: int | None = None,
) -> np.ndarray:
    """The planned per-timestamp budget ``eps[t]`` of a scheme (see the module table).

    For ``adaptive`` this is its starting point (Uniform); the release decides the rest.
    Uniform gives ε/(|L|+1) everywhere, so that the landmarks plus any one timestamp
    spend ``Σ_{i∈L∪{t}} ε_i ≤ ε`` (Katsomallos et al., CODASPY 2022).

    Parameters
    ----------
    scheme : str
        ``event``, ``user``, ``w-event``, ``uniform``, ``skip`` or ``adaptive``
        (:data:`SCHEMES`; case-insensitive).
    length : int
        The number of timestamps T (at least 1).
    landmarks : iterable of int or None
        The landmark timestamps L, each in ``0 … T-1``.
    epsilon : float
        The total budget ε > 0.
    window : int, optional
        w of the ``w-event`` scheme (a whole number ≥ 1).

    Returns
    -------
    numpy.ndarray
        One budget ε_t ≥ 0 per timestamp.

    Examples
    --------
    >>> allocate("uniform", 5, [1, 3], 1.0).round(4).tolist()
    [0.3333, 0.3333, 0.3333, 0.3333, 0.3333]
    >>> allocate("skip", 5, [1, 3], 1.0).tolist()
    [1.0, 0.0, 1.0, 0.0, 1.0]
    """
    info = scheme_info(scheme)
    T = check_length(length)
    eps = check_epsilon(epsilon)
    lm = check_landmarks(landmarks, T)
    return _BUDGETS[info.key](T, lm, eps, window)


def _event_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> np.ndarray:
    """Event-level: ε at every timestamp."""
    return np.full(T, eps)


def _user_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> np.ndarray:
    """User-level: ε/T at every timestamp."""
    return np.full(T, eps / T)


def _w_event_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> np.ndarray:
    """w-event: ε/w at every timestamp (w a whole number ≥ 1)."""
    if window is None:
        raise InputError("the w-event scheme needs a window w (a whole number >= 1)")
    if isinstance(window, bool) or int(window) != window or window < 1:
        raise InputError(f"the window w must be a whole number >= 1, got {window!r}")
    return np.full(T, eps / int(window))


def _uniform_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> np.ndarray:
    """Uniform (and Adaptive's start): ε/(|L|+1) everywhere, ε/|L| when every timestamp
    is a landmark."""
    share = eps / lm.size if lm.size == T else eps / (lm.size + 1)
    return np.full(T, share)


def _skip_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> np.ndarray:
    """Skip: nothing at the landmarks, ε at every regular timestamp."""
    out = np.full(T, eps)
    out[lm] = 0.0
    return out


#: the planned budget of every scheme key: ``f(T, landmarks, ε, window)``
_BUDGETS = {"event": _event_budget, "user": _user_budget, "w-event": _w_event_budget,
            "uniform": _uniform_budget, "adaptive": _uniform_budget, "skip": _skip_budget}


def uniform_total_for_share(share: float, length: int, n_landmarks: int) -> float:
    """The total ε for which Uniform spends ``share`` at every timestamp.

    Uniform gives ε/(|L|+1) everywhere (ε/|L| when all T timestamps are landmarks), so
    ε = share·(|L|+1), or share·|L| when |L| = T. Used to apply a calibrated constant
    per-timestamp budget as a landmark-private Uniform release.
    """
    e = check_epsilon(share, "the per-timestamp budget")
    if not 0 <= n_landmarks <= length:
        raise InputError(f"{n_landmarks} landmarks do not fit in {length} timestamps")
    return e * (n_landmarks if n_landmarks == length else n_landmarks + 1)


def literal_uniform_reading(length: int, landmarks: Iterable[int], epsilon: float) -> np.ndarray:
    """The *wrong* reading of Uniform: ε/|L| at landmarks, ε/(|L|+1) elsewhere.

    Kept for teaching and for the test that the verifier rejects it: at any regular t
    the theorem's total is ε + ε/(|L|+1) > ε.
    """
    eps = check_epsilon(epsilon)
    lm = check_landmarks(landmarks, length)
    if lm.size == 0:
        raise InputError("the literal reading needs at least one landmark")
    out = np.full(int(length), eps / (lm.size + 1))
    out[lm] = eps / lm.size
    return out
