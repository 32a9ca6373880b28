"""per_object: one result per live object, never another object's result."""

from __future__ import annotations

import gc

import pytest

from lmdk_core.figures.object_memo import per_object


class Box:
    def __init__(self, v: int) -> None:
        self.v = v


def test_cached_per_object_not_per_value_and_exceptions_not_cached():
    calls = []

    @per_object(maxsize=2)
    def double(box: Box) -> int:
        calls.append(box.v)
        if box.v < 0:
            raise ValueError("negative")
        return 2 * box.v

    a, b = Box(1), Box(1)
    assert double(a) == 2 and double(a) == 2 and double(b) == 2
    assert calls == [1, 1]  # the second object, equal in value, is computed anew
    bad = Box(-1)
    for _ in range(2):
        with pytest.raises(ValueError):
            double(bad)
    assert calls == [1, 1, -1, -1]
    # a dead object's id may be reused: its value is never returned for a new object
    for k in range(50):
        c = Box(k)
        assert double(c) == 2 * k
        del c
        gc.collect()
