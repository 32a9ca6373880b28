"""The allowed range of every release setting, in one table.

The app's sidebar and page widgets take their ``min_value``/``max_value`` from
:data:`LIMITS`, and a restored configuration is checked against the same table by
:func:`check_setting`, so a value that a widget cannot hold is refused with a message
naming the field and its range — never clamped or coerced (a radius of 150 km must not
come back as 1 m, ``true`` must not be read as ε = 1, 1e309 must not become 0.001).

Seeds: a release's noise is fully determined by its seed, so a known seed lets anyone
subtract the noise. Fresh seeds are 128 bits of operating-system entropy
(:func:`fresh_seed`, ``secrets.randbits``); ``numpy.random.SeedSequence`` takes such
integers whole. A fixed seed is only for the app's reproducible (teaching) mode, whose
widget holds at most :data:`TEACHING_SEED_MAX`.
"""

from __future__ import annotations

import math
import numbers
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_value as _shown

__all__ = [
    "LIMITS",
    "SEED_BITS",
    "SEED_MAX",
    "TEACHING_SEED_MAX",
    "SettingLimit",
    "check_landmark_list",
    "check_setting",
    "check_whole_setting",
    "fresh_seed",
]

#: bits of OS entropy in a fresh seed (as many as NumPy's SeedSequence pools)
SEED_BITS = 128
SEED_MAX = 2**SEED_BITS - 1
#: the largest fixed seed of the reproducible (teaching) mode; a browser number field
#: holds whole numbers exactly only up to 2**53 - 1
TEACHING_SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class SettingLimit:
    """A setting's closed range [low, high]; ``whole`` for whole numbers only."""

    name: str
    low: float
    high: float
    whole: bool = False
    unit: str = ""

    def describe(self) -> str:
        """'a number from 0.001 to 100' / 'a whole number from 1 to 100,000 (metres)'."""
        kind = "a whole number" if self.whole else "a number"
        unit = f" ({self.unit})" if self.unit else ""
        return f"{kind} from {_fmt(self.low)} to {_fmt(self.high)}{unit}"


def _fmt(x: float) -> str:
    if isinstance(x, int) and x > 10**12:
        return f"2^{x.bit_length()} − 1" if x == 2**x.bit_length() - 1 else str(x)
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


#: every numeric setting a configuration restores, and every count, range and
#: probability the command line takes (field name -> range); docs/bad-input.md lists them
LIMITS: dict[str, SettingLimit] = {lim.name: lim for lim in (
    SettingLimit("epsilon", 0.001, 100.0),
    SettingLimit("sensitivity", 0.001, 1e9),
    SettingLimit("radius", 1.0, 100_000.0, unit="metres"),
    SettingLimit("window", 1, 100_000, whole=True),
    SettingLimit("seed", 0, SEED_MAX, whole=True),
    SettingLimit("correlation_strength", 0.0001, 1000.0),
    SettingLimit("cell_size_m", 10.0, 100_000.0, unit="metres"),
    # --- the command line's simulations and targets (lmdk solve-epsilon / attack / compose)
    # Monte Carlo releases per ε (Adaptive) or per attack: 10,000 releases of a
    # 1,000-point series take seconds, 10⁷ took minutes
    SettingLimit("runs", 2, 10_000, whole=True),
    # an accuracy target's bound ±A or mean error M, in the data's units (metres for
    # tracks): with Δf ≤ 1e9 and ε ≥ 1e-4 every error law stays finite
    SettingLimit("accuracy_bound", 1e-9, 1e12),
    # the probability of an accuracy target (strictly between 0 and 1)
    SettingLimit("probability", 1e-6, 0.999999),
    # an attacker's prior probability
    SettingLimit("prior", 0.0, 1.0),
    # a privacy loss x (ε or a landmark TPL): e^x must be a float (e^709.8 is the largest)
    SettingLimit("privacy_loss", 0.0, 700.0),
    # numbers of daily releases the averaging attack is evaluated at (a century and more)
    SettingLimit("days", 1, 100_000, whole=True),
    # releases k of a schedule (composition)
    SettingLimit("releases", 1, 10_000_000, whole=True),
    # δ' of advanced composition
    SettingLimit("delta", 1e-100, 0.5),
    # a total ε over a schedule (compose --target): up to 10⁷ releases of ε = 100
    SettingLimit("total_epsilon", 0.001, 1e9),
    # --- the other commands' numbers (lmdk allocate / dummies / suggest / batch / explore)
    # a number of timestamps T (validation.MAX_LENGTH)
    SettingLimit("length", 1, 1_000_000, whole=True),
    # ε_sel of the dummy-landmark selection (the Dummies page's widget)
    SettingLimit("selection_epsilon", 0.01, 1000.0),
    # Δu of the dummy-landmark selection's utility (the gap metric's bound is (T − 1)/2)
    SettingLimit("utility_sensitivity", 0.001, 1e9),
    # dummies the heuristic adds at most (never more than T anyway)
    SettingLimit("max_options", 1, 1_000_000, whole=True),
    # stay discovery on a track (the Map's widgets)
    SettingLimit("stay_distance", 5.0, 10_000.0, unit="metres"),
    SettingLimit("stay_minutes", 1.0, 1440.0, unit="minutes"),
    SettingLimit("minutes_per_point", 0.01, 1440.0, unit="minutes"),
    # spike discovery on a series (the Timeline's widgets): rolling window and threshold k
    SettingLimit("spike_window", 3, 10_000, whole=True),
    SettingLimit("spike_k", 0.5, 50.0),
    # suggested events offered at most (lmdk suggest --max-events)
    SettingLimit("max_suggested_events", 1, 10_000, whole=True),
    # local Dask workers of lmdk batch
    SettingLimit("workers", 1, 256, whole=True),
    # the port lmdk explore listens on
    SettingLimit("port", 1, 65_535, whole=True),
    # a declared bound k on the landmarks of one user (or one view): public, it sets
    # Uniform's ε/(k+1) (Katsomallos et al. CODASPY'22 count |L| as part of what is
    # protected, so the noise scale must come from a declared k, never from |L|)
    SettingLimit("max_landmarks", 0, 100_000, whole=True),
)}


def fresh_seed() -> int:
    """A new seed of :data:`SEED_BITS` bits from the operating system (``secrets``): not
    guessable and far too many to search against released values."""
    return secrets.randbits(SEED_BITS)


def check_setting(name: str, value: object, where: str = "config", *,
                  label: str | None = None) -> float | int:
    """``value`` if it is a number (not a bool, not text) inside ``LIMITS[name]``; a whole
    number (``int``) for whole settings. Anything else raises :class:`InputError` naming
    the field (``label``, e.g. ``--runs``, or ``where: name``) and its allowed range;
    nothing is rounded, clamped or converted from text.
    """
    lim = LIMITS[name]
    field = label if label else (f"{where}: {name}" if where else name)
    must = f"{field} must be {lim.describe()}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{must}; got {_shown(value)}")
    v = _whole_value(value, must) if lim.whole else _real_value(value, must)
    if not lim.low <= v <= lim.high:
        raise InputError(f"{must}; got {_shown(value)}")
    return v


def check_whole_setting(name: str, value: object, where: str = "config", *,
                        label: str | None = None) -> int:
    """:func:`check_setting` for a whole setting (``LIMITS[name].whole``: the seed, the
    window, …), typed as the ``int`` it returns.

    >>> check_whole_setting("seed", 7)
    7
    """
    if not LIMITS[name].whole:
        raise ValueError(f"{name} is not a whole-number setting")
    return int(check_setting(name, value, where, label=label))


def _whole_value(value: numbers.Real, must: str) -> int:
    """``value`` as an int; InputError when it has a decimal point (1.0 is not 1)."""
    if not isinstance(value, numbers.Integral):
        raise InputError(f"{must} (no decimal point); got {_shown(value)}")
    return int(value)


def _real_value(value: numbers.Real, must: str) -> float:
    """``value`` as a finite float; InputError for inf/NaN or an integer too large."""
    try:
        v = float(value)
    except OverflowError:  # a whole number with hundreds of digits: out of range
        raise InputError(f"{must}; got {_shown(value)}") from None
    if not math.isfinite(v):
        raise InputError(f"{must}; got {_shown(value)}, which is not a finite number")
    return v


def check_landmark_list(value: object, where: str = "config") -> list[int]:
    """A list of distinct whole numbers >= 0 (not bools, not text, not 1.7), sorted."""
    field = f"{where}: landmarks" if where else "landmarks"
    if not isinstance(value, list):
        raise InputError(f"{field} must be a list of distinct whole numbers >= 0, like "
                         f"[3, 7]; got {_shown(value)}")
    out = [_landmark_item(t, f"{field}: item {k + 1}") for k, t in enumerate(value)]
    dup = _first_duplicate(out)
    if dup is not None:
        raise InputError(f"{field}: {dup} appears twice; list each landmark once")
    return sorted(out)


def _landmark_item(t: object, item: str) -> int:
    """One landmark of a list: a whole number >= 0 (``item`` names it in messages)."""
    if isinstance(t, bool) or not isinstance(t, numbers.Integral):
        raise InputError(f"{item} must be a whole number >= 0; got {_shown(t)}")
    if t < 0:
        raise InputError(f"{item} must be >= 0; got {_shown(t)}")
    return int(t)


def _first_duplicate(values: Iterable[int]) -> int | None:
    """The first value that appeared before, or None when all differ."""
    seen: set[int] = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None
