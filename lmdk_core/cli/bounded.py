"""Numeric command-line options bounded by the app's setting table.

``type=bounded("window", "--window")`` makes argparse check an option against
:data:`lmdk_core.foundation.setting_limits.LIMITS` while it parses, so a value outside the range —
``0``, ``1e308``, ``inf``, ``nan``, ``1.5`` for a whole number, ``abc`` — is refused at
once, before any file is read, with one line naming the option and its range::

    lmdk: error: --window must be a whole number from 1 to 100,000; got `0`

Every ``int``/``float`` option of every sub-command uses it (tests/cli/test_bounded_requests.py
walks the parser to make sure); docs/bad-input.md lists the ranges.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.foundation.setting_limits import LIMITS, check_setting

__all__ = ["OptionOutOfRange", "bounded", "parse_bounds"]


class OptionOutOfRange(Exception):
    """A numeric option outside its range. Deliberately not a ``ValueError``: argparse
    would replace the message by "invalid … value"; :func:`lmdk_core.cli.main` prints it
    as is (exit status 2)."""


def bounded(name: str, option: str) -> Callable[[str], float | int]:
    """An argparse ``type``: the option's text as a number inside ``LIMITS[name]``
    (a whole number, written without a decimal point, for whole settings)."""
    lim = LIMITS[name]

    def parse(text: str) -> float | int:
        must = f"{option} must be {lim.describe()}"
        got = f"; got {quote_user_text(text)}"
        value: float | int
        try:
            value = int(text) if lim.whole else float(text)
        except ValueError:
            extra = " (no decimal point)" if lim.whole else ""
            raise OptionOutOfRange(f"{must}{extra}{got}") from None
        if not lim.whole and not math.isfinite(value):
            raise OptionOutOfRange(f"{must}{got}, which is not a finite number")
        try:
            return check_setting(name, value, label=option)
        except InputError:
            raise OptionOutOfRange(f"{must}{got}") from None

    parse.__name__ = f"{name} ({lim.describe()})"
    parse.setting = name  # type: ignore[attr-defined]  # read by the tests and the docs check
    return parse


def parse_bounds(text: str, option: str = "--bounds") -> tuple[float, float]:
    """``"LO,HI"`` as two finite numbers LO < HI (declared bounds of a reading); an
    :class:`InputError` naming ``option`` for anything else (not two numbers, NaN or
    infinite, LO ≥ HI).

    >>> parse_bounds("0,5")
    (0.0, 5.0)
    """
    try:
        lo, hi = (float(p) for p in str(text).split(","))
    except ValueError:
        raise InputError(f"{option} must be two numbers LO,HI; got "
                         f"{quote_user_text(text)}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise InputError(f"{option} must be two finite numbers LO,HI; got "
                         f"{quote_user_text(text)}")
    if not lo < hi:
        raise InputError(f"{option} {lo:g},{hi:g}: LO must be below HI")
    return lo, hi
