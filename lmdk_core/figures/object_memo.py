"""Results kept per live object: computed once for each object a session holds.

The app keeps its datasets (and, within one rerun, its configuration) as the same Python
objects from rerun to rerun; a value derived from such an object — the hover labels of
20,000 timestamps, the table a configuration embeds, a configuration's check — need not
be recomputed on every rerun. :func:`per_object` caches a one-argument function by the
*identity* of its argument (objects holding numpy arrays are not hashable), checked
through a weak reference so that a recycled ``id`` of a dead object never returns its
value. Callers must treat the cached value as read-only: it is shared.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import TypeVar

__all__ = ["per_object"]

T = TypeVar("T")
R = TypeVar("R")


def per_object(maxsize: int) -> Callable[[Callable[[T], R]], Callable[[T], R]]:
    """Decorator: cache ``func(obj)`` per live ``obj`` (at most ``maxsize`` objects; the
    cache is emptied when full). An exception is not cached."""

    def decorate(func: Callable[[T], R]) -> Callable[[T], R]:
        cache: dict[int, tuple[weakref.ref, R]] = {}

        @functools.wraps(func)
        def cached(obj: T) -> R:
            hit = cache.get(id(obj))
            if hit is not None and hit[0]() is obj:
                return hit[1]
            value = func(obj)
            if len(cache) >= maxsize:
                cache.clear()
            cache[id(obj)] = (weakref.ref(obj), value)
            return value

        return cached

    return decorate
