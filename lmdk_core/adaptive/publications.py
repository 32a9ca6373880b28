"""The publications of one Adaptive release, as its variants return them."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Publications"]


class Publications(NamedTuple):
    """The noisy publications of one Adaptive release (Katsomallos et al., CODASPY 2022),
    in time order: the engine's loop (:func:`lmdk_core.adaptive.loop.adaptive_publications`),
    the exact-noise loop (:func:`lmdk_core.adaptive.exact_draws.exact_publications`) and
    the compiled series kernel (:func:`lmdk_core.adaptive.series_kernel.adaptive_laplace`)
    return the same floats (tests/engine/test_adaptive_bitwise.py). Every other timestamp
    shows the last publication (post-processing)."""

    #: the published timestamps (the first is 0)
    times: object
    #: the released value at each (a number, or ``[lat, lon]``)
    values: object
    #: the budget ε_t spent at each
    budgets: object
