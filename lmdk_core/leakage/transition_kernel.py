r"""The binned transitions of many series in one compiled loop.

Cao, Yoshikawa, Xiao, Xiong (ICDE'17) estimate a correlation model from the data: the
values cut into bins, the transitions between consecutive bins counted.
:func:`~lmdk_core.leakage.estimation.quantile_transitions_many` bins the series of a
population block together; each series' states are ``searchsorted(edges, v,
side="right") − 1`` clipped to its bins, and each step's code ``state_t · n +
state_{t+1}`` — six numpy calls over the series' T values. :func:`transition_codes_kernel`
does the same for every series in one pass, where numba is loaded anyway (a population
batch): the state of a value is the number of its series' edges ``<= v`` less one (the
edges ascending and finite, the values finite: ``searchsorted(side="right")``), clipped
the same way; the codes are the same integers
(tests/engine/test_leakage_estimation_many.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from lmdk_core.foundation.compiled_paths import compile_with_helpers

__all__ = ["transition_codes_kernel"]


def _state(edges, i, n_edges, x):  # pragma: no cover - compiled into the kernel by numba
    """The bin of ``x`` among the ascending ``edges[i, :n_edges]``: the number of edges
    ``<= x`` less one, clipped to ``0 .. n_edges − 2``."""
    c = 0
    for m in range(n_edges):
        if edges[i, m] <= x:
            c += 1
    s = c - 1
    if s < 0:
        s = 0
    if s > n_edges - 2:
        s = n_edges - 2
    return s


def _transition_codes(values, edges, n_edges, codes):  # pragma: no cover - numba
    """``codes[i, t] = state_t · n + state_{t+1}`` of row i of ``values`` (T values)
    binned by ``edges[i, :n_edges[i]]`` (n = ``n_edges[i] − 1`` bins; :func:`_state`)."""
    for i in range(values.shape[0]):
        ne = n_edges[i]
        n = ne - 1
        prev = _state(edges, i, ne, values[i, 0])
        for t in range(1, values.shape[1]):
            s = _state(edges, i, ne, values[i, t])
            codes[i, t - 1] = prev * n + s
            prev = s
    return values.shape[0]


@functools.cache
def transition_codes_kernel() -> Callable | None:
    """:func:`_transition_codes` compiled (``njit(cache=True, nogil=True)``, from numba's
    on-disk cache when there; :func:`_state` compiled into it); None without numba."""
    return compile_with_helpers(lambda _stamp: _transition_codes, [_state], nogil=True)
