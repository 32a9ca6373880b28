"""The one landmark syntax (lmdk_core.foundation.validation): the CLI's ranges (``271-295``),
the app pickers' chips and the Map's stay keys are written and read by the same functions."""

from __future__ import annotations

import doctest

from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.foundation import validation
from lmdk_core.foundation.validation import (
    format_landmark_range,
    landmark_runs,
    parse_landmark_entry,
    parse_landmark_ranges,
    parse_landmarks,
    picker_entries,
)

T = 400
landmark_sets = st.lists(st.integers(0, T - 1), max_size=120)


def test_doctests():
    assert doctest.testmod(validation).failed == 0


@settings(max_examples=200, deadline=None)
@given(landmark_sets)
def test_runs_are_the_maximal_runs_of_consecutive_timestamps(ts):
    runs = landmark_runs(ts)
    # oracle: walk the sorted set one timestamp at a time
    oracle: list[list[int]] = []
    for t in sorted(set(ts)):
        if oracle and t == oracle[-1][1] + 1:
            oracle[-1][1] = t
        else:
            oracle.append([t, t])
    assert runs == [tuple(r) for r in oracle]


@settings(max_examples=200, deadline=None)
@given(landmark_sets, st.integers(0, 60))
def test_picker_chips_read_back_to_the_landmarks(ts, max_single):
    chips = picker_entries(ts, max_single)
    back = [t for c in chips for t in parse_landmark_entry(c, T, "series")]
    assert back == sorted(set(ts))
    if len(set(ts)) <= max_single:
        assert chips == sorted(set(ts))
    else:  # one chip per run: neighbouring chips never touch
        ends = [(c, c) if isinstance(c, int) else c for c in chips]
        assert all(b[0] > a[1] + 1 for a, b in zip(ends, ends[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_formatted_range_is_read_back_by_the_cli_parser(a, n):
    b = a + n % 1000
    assert parse_landmark_ranges(format_landmark_range(a, b)) == [(a, b)]
    assert parse_landmarks(format_landmark_range(a, b)) == list(range(a, b + 1))


def test_typed_picker_text_uses_the_cli_syntax():
    assert parse_landmark_entry("271-295", 300) == parse_landmarks("271-295")
    assert parse_landmark_entry("t=12 · Mon 08:00", 300) == [12]
    assert parse_landmark_entry((3, 5), 300) == [3, 4, 5]
