r"""The landmark TPL's shared bounds of many users in one compiled loop.

Landmark TPL (Katsomallos et al., CODASPY'22, on Cao, Yoshikawa, Xiao, Xiong's BPL/FPL,
ICDE'17 / TKDE'18): :func:`~lmdk_core.leakage.tpl.gaps_from_segments` gives, for one
user, every regular timestamp t, the landmarks around it and the bound ``upper_t =
base + sb_t + sf_t − ε_t`` of its landmark TPL — about ten numpy calls over the user's T
timestamps. :func:`gaps_kernel` does the same for all the users of a block in one pass
each (the population audit, :mod:`~lmdk_core.leakage.tpl_many`, where numba is loaded
anyway): the same integers, and each bound by the same three floating-point operations
in the same order (tests/engine/test_leakage_tpl_many.py: bit for bit).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from lmdk_core.foundation.compiled_paths import compile_with_helpers

__all__ = ["gaps_kernel"]


def _user_gaps(eps, mark, sb, sf, lo, n, lm, lm_lo, n_lm, base, at, regular, prev, nxt,
               upper):  # pragma: no cover - compiled by numba
    """One user's part of :func:`_all_gaps`: timestamps ``lo .. lo + n − 1`` of the
    block's arrays, landmarks ``lm[lm_lo : lm_lo + n_lm]`` (ascending, the user's own
    indices), written from ``at``; returns the number of regular timestamps."""
    p = 0  # landmarks before t
    m = at
    for t in range(n):
        if mark[lo + t]:
            p += 1
            continue
        regular[m] = t
        prev[m] = lm[lm_lo + p - 1] if p > 0 else -1
        nxt[m] = lm[lm_lo + p] if p < n_lm else n
        upper[m] = base + sb[lo + t] + sf[lo + t] - eps[lo + t]
        m += 1
    return m - at


def _all_gaps(eps, mark, sb, sf, e_off, sizes, lm, lm_off, n_lm, base, reg_off, regular,
              prev, nxt, upper):  # pragma: no cover - compiled by numba
    """For every user u (timestamps ``e_off[u] .. e_off[u] + sizes[u] − 1`` of ``eps``,
    ``mark`` its landmark mask, ``sb`` / ``sf`` its segment recursions, ``lm[lm_off[u]
    : lm_off[u] + n_lm[u]]`` its landmarks, ``base[u]`` their sum): its regular
    timestamps in ascending order from ``reg_off[u]`` in ``regular``, the landmark before
    each (−1 when none) in ``prev``, the one after (its T when none) in ``nxt``, and its
    bound ``base + sb_t + sf_t − ε_t`` in ``upper``, as
    :func:`~lmdk_core.leakage.tpl.gaps_from_segments` computes them."""
    for u in range(e_off.size):
        _user_gaps(eps, mark, sb, sf, e_off[u], sizes[u], lm, lm_off[u], n_lm[u], base[u],
                   reg_off[u], regular, prev, nxt, upper)
    return e_off.size


@functools.cache
def gaps_kernel() -> Callable | None:
    """:func:`_all_gaps` compiled (``njit(cache=True, nogil=True)``, from numba's on-disk
    cache when there; :func:`_user_gaps` compiled into it); None without numba. numba is
    imported on the first call."""
    return compile_with_helpers(lambda _stamp: _all_gaps, [_user_gaps], nogil=True)
