"""The Learn page's third lesson: protection levels and landmark privacy.

Event and user level (Dwork et al. 2010), w-event (Kellaris et al., VLDB 2014) and
landmark privacy (Katsomallos et al., CODASPY 2022) side by side
(:func:`protection_levels`), with :func:`lmdk_core.engine.allocation.allocate` and the
verifier :func:`lmdk_core.engine.verifier.verify`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.engine.allocation import allocate
from lmdk_core.engine.verifier import verify
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.validation import check_epsilon, check_landmarks, check_positive

__all__ = [
    "LEVEL_KEYS",
    "ProtectionLevel",
    "protection_levels",
    "protection_levels_frame",
]


#: the levels shown side by side, in order
LEVEL_KEYS = ("event", "user", "w-event", "landmark")

_LEVEL_INFO = {
    # key: (label, scheme, what it protects) — event/user level: Dwork et al. 2010;
    # w-event: Kellaris et al. 2014; landmark: the landmark-privacy theorem (Uniform)
    "event": ("Event-level", "event", "any one event"),
    "user": ("User-level", "user", "all events together"),
    "w-event": ("w-event", "w-event", "any w consecutive events"),
    "landmark": ("Landmark (Uniform)", "uniform", "all landmarks + any one event"),
}


@dataclass(frozen=True)
class ProtectionLevel:
    """One protection level on the example timeline.

    ``protected[t]`` marks the events protected *together with* the focus timestamp:
    the neighbouring series may differ in all of them at once. ``protected_total`` is
    the budget they spend together (≤ ε by construction of the level);
    ``landmark_total`` is the landmark-privacy theorem's worst total
    ``max_t Σ_{i∈L∪{t}} ε_i`` and ``landmark_private`` the verifier's verdict.
    """

    key: str
    label: str
    description: str
    epsilon_t: np.ndarray
    protected: np.ndarray
    protected_total: float
    landmark_total: float
    landmark_worst_t: int
    landmark_private: bool


def protection_levels(
    length: int,
    landmarks: Iterable[int],
    epsilon: float,
    window: int,
    focus: int,
) -> list[ProtectionLevel]:
    """Event, user, w-event and landmark protection of a ``length``-timestamp series.

    Budgets come from :func:`lmdk_core.engine.allocation.allocate` (landmark = Uniform,
    ``ε/(|L|+1)``) and verdicts from :func:`lmdk_core.engine.verifier.verify`. The events
    protected together with ``focus``: event-level ``{focus}``; user-level all; w-event
    the window of ``w`` timestamps ending at ``focus`` (clipped at 0; any w consecutive
    events are protected); landmark ``L ∪ {focus}``.
    """
    T = _check_example_length(length)
    lm = check_landmarks(landmarks, T)
    eps = check_epsilon(epsilon)
    w, f = _check_window_and_focus(window, focus, T)
    out = []
    for key in LEVEL_KEYS:
        label, scheme, desc = _LEVEL_INFO[key]
        alloc = allocate(scheme, T, lm, eps, window=w)
        prot = _protected_with(key, T, lm, f, w)
        v = verify(alloc, lm, eps)
        out.append(ProtectionLevel(key, label, desc, alloc, prot, float(alloc[prot].sum()),
                                   v.worst_total, v.worst_timestamp, v.private))
    return out


def _check_example_length(length: object) -> int:
    """The example's length T: a whole number >= 1."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InputError(f"the example length must be a whole number >= 1, got {length!r}")
    return int(length)


def _whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number (3 or 3.0, not True), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    return int(value) if float(value).is_integer() else None


def _check_window_and_focus(window: object, focus: object, T: int) -> tuple[int, int]:
    """The window w (a whole number >= 1) and the chosen timestamp (in ``0..T-1``)."""
    w = _whole(window)
    if w is None or w < 1:
        raise InputError(f"the window w must be a whole number >= 1, got {window!r}")
    f = _whole(focus)
    if f is None or not 0 <= f < T:
        raise InputError(f"the chosen timestamp must lie in 0..{T - 1}, got {focus!r}")
    return w, f


def _protected_with(key: str, T: int, lm: np.ndarray, f: int, w: int) -> np.ndarray:
    """The events a level protects together with ``f``: event ``{f}``, user all,
    w-event the window of ``w`` ending at ``f`` (clipped at 0), landmark ``L ∪ {f}``."""
    prot = np.zeros(T, dtype=bool)
    if key == "event":
        prot[f] = True
    elif key == "user":
        prot[:] = True
    elif key == "w-event":
        prot[max(0, f - w + 1): f + 1] = True
    else:
        prot[lm] = True
        prot[f] = True
    return prot


def protection_levels_frame(levels: Sequence[ProtectionLevel], landmarks: Iterable[int],
                            sensitivity: float = 1.0) -> pd.DataFrame:
    """One row per level: budget at a regular timestamp and at a landmark, the Laplace
    noise scale ``Δf/ε_t`` at a regular timestamp, the budget spent by the events
    protected together with the focus ("spent with t"), the theorem's worst total and
    the landmark-privacy verdict."""
    df = check_positive(sensitivity, "the sensitivity Δf")
    rows = []
    for lv in levels:
        T = lv.epsilon_t.size
        lm = check_landmarks(landmarks, T)
        regular = np.setdiff1d(np.arange(T), lm)
        e_reg = float(lv.epsilon_t[regular[0]]) if regular.size else float("nan")
        e_lm = float(lv.epsilon_t[lm[0]]) if lm.size else float("nan")
        rows.append({
            "level": lv.label,
            "protects": lv.description,
            "ε_t regular": e_reg,
            "ε_t landmark": e_lm,
            "noise Δf/ε_t": df / e_reg if e_reg > 0 else float("inf"),
            "spent with t": lv.protected_total,
            "worst Σ over L∪{t}": lv.landmark_total,
            "landmark-private": "yes" if lv.landmark_private else "no",
        })
    return pd.DataFrame(rows)
