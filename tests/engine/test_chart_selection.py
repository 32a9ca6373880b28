"""Chart selections in timestamps (lmdk_core.figures.chart_selection): clicks toggle, boxes add
or remove explicitly (a second box over the same region changes nothing), and a box is
answered from the full data, not from the decimated points drawn."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmdk_core.figures.chart_selection import apply_selection, point_timestamp, timestamps_in_box
from lmdk_core.figures.decimation import display_indices

sets = st.sets(st.integers(0, 60), max_size=20)


@given(sets, sets)
def test_a_box_adds_or_removes_and_repeating_it_changes_nothing(lm, hit):
    added = apply_selection(lm, hit, is_box=True, mode="add")
    assert set(added) == lm | hit
    assert apply_selection(added, hit, is_box=True, mode="add") == added
    removed = apply_selection(lm, hit, is_box=True, mode="remove")
    assert set(removed) == lm - hit
    assert apply_selection(removed, hit, is_box=True, mode="remove") == removed


@given(sets, sets)
def test_a_click_toggles(lm, hit):
    once = apply_selection(lm, hit, is_box=False)
    assert set(once) == lm ^ hit
    assert set(apply_selection(once, hit, is_box=False)) == lm


def test_unknown_box_mode_is_refused():
    with pytest.raises(ValueError, match="box mode"):
        apply_selection([1], [2], is_box=True, mode="toggle")


def test_point_timestamp_reads_numbers_and_lists():
    assert point_timestamp({"customdata": [17]}) == 17
    assert point_timestamp({"customdata": 4}) == 4
    assert point_timestamp({"customdata": {"0": 10}}) == 10  # plotly's typed-array row
    assert point_timestamp({"customdata": ["12", "Mon 01 Jan"]}) == 12
    assert point_timestamp({}) is None
    assert point_timestamp({"customdata": "x"}) is None


def test_box_on_a_decimated_series_covers_every_timestamp_in_range():
    T = 20_000
    rng = np.random.default_rng(3)
    y = rng.normal(size=T)
    drawn = display_indices(T, [y])
    assert drawn.size < T / 5  # the chart shows a fraction of the points ...
    t = np.arange(T)
    box = {"x": [1000.5, 1999.5], "y": [-10, 10]}
    got = timestamps_in_box(t, "number", box, [y])
    assert got.tolist() == list(range(1001, 2000))  # ... the box still means all of them
    # the y range restricts to the timestamps whose value lies in it
    high = timestamps_in_box(t, "number", {"x": [0, T], "y": [1.0, 99]}, [y])
    assert high.tolist() == np.flatnonzero(y >= 1.0).tolist()


def test_box_on_a_date_axis():
    time = np.datetime64("2024-03-04T00:00") + np.arange(48) * np.timedelta64(1, "h")
    box = {"x": ["2024-03-04 05:30", "2024-03-04 08:10:00.5"], "y": [0, 1]}
    got = timestamps_in_box(time, "datetime", box, [np.full(48, 0.5)])
    assert got.tolist() == [6, 7, 8]
    nan = np.full(48, np.nan)
    assert timestamps_in_box(time, "datetime", box, [nan]).size == 0
