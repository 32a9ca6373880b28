"""The exact discrete Laplace sampler compiled with numba (imports numba).

Step for step the reference of :mod:`lmdk_core.mechanisms.discrete_laplace` (Canonne,
Kamath & Steinke, NeurIPS 2020, Algorithms 1–2, integer arithmetic only), reading the
same bits of the same :class:`~lmdk_core.mechanisms.entropy.EntropyStream` in the same
order — so both give the same values on the same stream (tested bit for bit). All
integers are int64 below 2⁶², random words uint64.

**Running out of words.** The kernel does not call back into Python (numba's object mode
made every bit ~200 times slower). When a value needs a word beyond the buffer, the
kernel sets the stream's "spent" flag, every loop of the draw returns at once, the
stream is put back where that value started, and :func:`draws` returns how many values
are done. The caller moves the unread words (those of the unfinished value included) to
the front of the buffer, fills the rest from the OS and calls again: the unfinished value
is drawn again from the same bits, then continues into the fresh ones — exactly what an
endless buffer would give. Only :mod:`lmdk_core.mechanisms.discrete_laplace` imports this
module, when the kernel pays for its load.
"""

from __future__ import annotations

import numpy as np

from lmdk_core.foundation.compiled_paths import import_numba

njit = import_numba().njit

__all__ = ["draws"]

_LIMIT = np.int64(2**62)
_ONE = np.uint64(1)


@njit(cache=True)
def _take(n, words, st):
    """The next ``n`` bits (1 ≤ n ≤ 62) of the stream, low bits first; 0 with the spent
    flag ``st[3]`` set when the buffer holds no more words."""
    nb = st[2]
    un = np.uint64(n)
    if nb >= un:
        v = st[1] & ((_ONE << un) - _ONE)
        st[1] = st[1] >> un
        st[2] = nb - un
        return np.int64(v)
    pos = st[0]
    if pos >= np.uint64(words.size):
        st[3] = _ONE
        return np.int64(0)
    need = un - nb
    w = words[pos]
    st[0] = pos + _ONE
    v = st[1] | ((w & ((_ONE << need) - _ONE)) << nb)
    st[1] = w >> need
    st[2] = np.uint64(64) - need
    return np.int64(v)


@njit(cache=True)
def _bernoulli(n, d, words, st):
    """Bernoulli(n/d) by lazy comparison of binary expansions."""
    if n <= 0:
        return False
    if n >= d:
        return True
    while True:
        n = n << 1
        p = 0
        if n >= d:
            n -= d
            p = 1
        r = _take(1, words, st)
        if st[3]:
            return False
        if r != p:
            return r < p
        if n == 0:
            return False


@njit(cache=True)
def _bernoulli_exp(n, d, kmax, words, st):
    """Bernoulli(exp(−n/d)), 0 ≤ n ≤ d (Algorithm 1); ``kmax = ⌊(2⁶² − 1)/d⌋``."""
    k = np.int64(1)
    while True:
        if k > kmax:
            a = _bernoulli(np.int64(1), k, words, st) and _bernoulli(n, d, words, st)
        else:
            a = _bernoulli(n, d * k, words, st)
        if st[3]:
            return False
        if not a:
            break
        k += 1
    return (k & 1) == 1


@njit(cache=True)
def _one_draw(t, j, width, words, st):
    """One discrete Laplace value of scale t/2^j (Algorithm 2); 0 once the buffer is
    spent."""
    one = np.int64(1)
    kmax = (_LIMIT - 1) // t
    while True:
        u = np.int64(0)
        if t > 1:
            while True:
                u = _take(width, words, st)
                if st[3]:
                    return np.int64(0)
                if u < t:
                    break
        if not _bernoulli_exp(u, t, kmax, words, st):
            if st[3]:
                return np.int64(0)
            continue
        v = np.int64(0)
        while _bernoulli_exp(one, one, _LIMIT - 1, words, st):
            v += 1
        if st[3]:
            return np.int64(0)
        if v > (_LIMIT - u) // t:
            raise OverflowError("discrete Laplace draw beyond 2^62")
        y = (u + t * v) >> j
        b = _take(1, words, st)
        if st[3]:
            return np.int64(0)
        if b == 1 and y == 0:
            continue
        return -y if b == 1 else y


@njit(cache=True)
def draws(t, j, width, which, out, start, words, st):
    """``out[i]`` ~ discrete Laplace of scale ``t[which[i]] / 2^j[which[i]]`` for
    ``i = start, …``; returns the first index not drawn (``which.size`` when all are),
    the stream put back where that value started (module docstring)."""
    for i in range(start, which.size):
        pos, res, nb = st[0], st[1], st[2]
        g = which[i]
        y = _one_draw(t[g], j[g], width[g], words, st)
        if st[3]:
            st[0], st[1], st[2], st[3] = pos, res, nb, np.uint64(0)
            return i
        out[i] = y
    return which.size
