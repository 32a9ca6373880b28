"""Per-timestamp budget allocations (schemes) for landmark privacy.

The schemes of docs/definitions.md, with T timestamps, landmark set L and total budget ε:

=============  ==============================================================
event          ε everywhere — protects one event; landmark-private only without landmarks
               (with one landmark l and a regular t the total is ε_l + ε_t = 2ε)
user           ε/T everywhere — protects the whole series (user-level DP)
w-event        ε/w everywhere — uniform w-event privacy (Kellaris et al., VLDB 2014)
uniform        ε/(k+1) everywhere for a declared bound k ≥ |L| (without one:
               ε/(|L|+1), ε/|L| when every timestamp is a landmark)
skip           0 at landmarks (an approximation is published), ε elsewhere
adaptive       data-dependent; see :mod:`lmdk_core.engine.release`
=============  ==============================================================

Why Uniform gives ε/(|L|+1) and not ε/|L| to landmarks: the prose of Katsomallos et al.
(CODASPY 2022) can be read as "landmarks get ε/|L|". Then at a regular t the theorem's sum is
|L|·ε/|L| + ε/(|L|+1) > ε — the literal reading is not landmark-private, and the
verifier flags it (see :func:`literal_uniform_reading`).

**The declared bound k** (``max_landmarks``; docs/privacy-model.md). Uniform's noise
scale Δf(|L|+1)/ε would tell anyone who reads the released values (or a note stating the
expected error) how many landmarks there are. A publishable release therefore declares a
public upper bound k on the landmark events: Uniform (and Adaptive's start) spends
ε/(k+1) at every timestamp whatever |L| ≤ k is, and a landmark set larger than k is
refused (:func:`check_max_landmarks`). The landmarks plus any one timestamp then spend
(|L|+1)·ε/(k+1) ≤ ε. Without a declared k (exploring) the share is ε/(|L|+1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from lmdk_core.engine.share_allocation import ShareAllocation
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import check_setting
from lmdk_core.foundation.validation import check_epsilon, check_landmarks, check_length

__all__ = ["DEFAULT_MAX_LANDMARKS", "SCHEMES", "Scheme", "allocate", "check_max_landmarks",
           "literal_uniform_reading", "planned_shares", "scheme_info",
           "uniform_total_for_share"]

#: the declared bound k on landmark events when the user declares none (``lmdk release``,
#: ``lmdk geo-release``, the app's number input, a configuration without
#: ``extra.max_landmarks``): a public setting, never the number of landmarks marked
DEFAULT_MAX_LANDMARKS = 5


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
        Scheme("uniform", "Uniform", "ε/(k+1) at every timestamp (k the declared bound on "
               "landmark events): all landmarks plus the current event share ε."),
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
    *, window: int | None = None,
    max_landmarks: int | None = None,
) -> np.ndarray:
    """The planned per-timestamp budget ``eps[t]`` of a scheme (see the module table).

    For ``adaptive`` this is its starting point (Uniform); the release decides the rest.
    Uniform gives ε/(k+1) everywhere for a declared bound k ≥ |L| (ε/(|L|+1) without
    one), so that the landmarks plus any one timestamp spend
    ``Σ_{i∈L∪{t}} ε_i ≤ (|L|+1)·ε/(k+1) ≤ ε`` (Katsomallos et al., CODASPY 2022).

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
    max_landmarks : int, optional
        The declared bound k on the landmark events (public): Uniform and Adaptive's
        start get ε/(k+1) whatever |L| is; more than k landmarks are refused
        (:func:`check_max_landmarks`) under every scheme.

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
    >>> allocate("uniform", 5, [1, 3], 1.0, max_landmarks=4).tolist()  # ε/(k+1)
    [0.2, 0.2, 0.2, 0.2, 0.2]
    """
    return planned_shares(scheme, length, landmarks, epsilon, window=window,
                          max_landmarks=max_landmarks).array()


def planned_shares(
    scheme: str,
    length: int,
    landmarks: Iterable[int] | None,
    epsilon: float,
    *, window: int | None = None,
    max_landmarks: int | None = None,
) -> ShareAllocation:
    """:func:`allocate`'s plan in compact form: one share ``s`` and the timestamps Z
    where nothing is planned (``ε_t = s`` off Z, 0 on Z; Z = L for Skip, empty
    otherwise; :class:`~lmdk_core.engine.share_allocation.ShareAllocation`).
    :func:`allocate` is this plan as an array, so both are the same floats. Same
    parameters and checks as :func:`allocate`."""
    info = scheme_info(scheme)
    T = check_length(length)
    eps = check_epsilon(epsilon)
    lm = check_landmarks(landmarks, T)
    if max_landmarks is not None:
        k = check_max_landmarks(max_landmarks, lm.size)
        if info.key in ("uniform", "adaptive"):
            return ShareAllocation(T, eps / (k + 1), _NONE)
    share, zero_at = _BUDGETS[info.key](T, lm, eps, window)
    return ShareAllocation(T, share, zero_at)


def check_max_landmarks(max_landmarks: object, n_landmarks: int = 0,
                        option: str = "the declared bound k") -> int:
    """The declared bound k as an int (a whole number from 0 to 100,000), at least the
    ``n_landmarks`` landmark events of the release; anything else is an
    :class:`InputError` saying how to fix it (``option`` names the setting).

    >>> check_max_landmarks(5, 2)
    5
    """
    k = int(check_setting("max_landmarks", max_landmarks, label=option))
    if n_landmarks > k:
        raise InputError(f"{counted(n_landmarks, 'landmark event')} "
                         f"{agree(n_landmarks, 'is', 'are')} more than the declared bound "
                         f"k = {k}: declare k >= {n_landmarks} (a public bound, not the "
                         "number marked) or mark fewer landmarks")
    return k


#: no timestamp without a share
_NONE = np.zeros(0, dtype=np.intp)
#: a scheme's plan: its share and where it plans nothing
_Plan = tuple[float, np.ndarray]


def _event_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> _Plan:
    """Event-level: ε at every timestamp."""
    return eps, _NONE


def _user_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> _Plan:
    """User-level: ε/T at every timestamp."""
    return eps / T, _NONE


def _w_event_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> _Plan:
    """w-event: ε/w at every timestamp (w a whole number ≥ 1)."""
    if window is None:
        raise InputError("the w-event scheme needs a window w (a whole number >= 1)")
    if isinstance(window, bool) or int(window) != window or window < 1:
        raise InputError(f"the window w must be a whole number >= 1, got {window!r}")
    return eps / int(window), _NONE


def _uniform_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> _Plan:
    """Uniform (and Adaptive's start): ε/(|L|+1) everywhere, ε/|L| when every timestamp
    is a landmark."""
    return (eps / lm.size if lm.size == T else eps / (lm.size + 1)), _NONE


def _skip_budget(T: int, lm: np.ndarray, eps: float, window: int | None) -> _Plan:
    """Skip: nothing at the landmarks, ε at every regular timestamp."""
    return eps, lm


#: the plan of every scheme key: ``f(T, landmarks, ε, window)`` = (share, where nothing)
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
        raise InputError(f"{counted(n_landmarks, 'landmark')} do not fit in "
                         f"{counted(length, 'timestamp')}")
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
