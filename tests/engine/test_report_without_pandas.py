"""What the report computed with pandas, now computed without it, is the same: the
tables (render.Grid from plain rows vs ``Grid`` of a DataFrame), the demo week's times
(vs ``pd.date_range``) and the hover labels of datetimes (vs ``pd.to_datetime``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.data.demo import demo_series, demo_series_times
from lmdk_core.figures.common import _datetime_labels
from lmdk_core.report.render import Grid

CELLS = st.one_of(st.text(max_size=12), st.integers(-10 ** 6, 10 ** 6))
NAMES = st.lists(st.text(min_size=0, max_size=10), min_size=1, max_size=6, unique=True)


def _dataframe_grid(df: pd.DataFrame) -> Grid:
    """The table as the report built it from a DataFrame (before 2026-12)."""
    return Grid([str(c) for c in df.columns], [list(r) for r in df.itertuples(index=False)])


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_grid_of_records_is_the_dataframes(data):
    names = data.draw(NAMES)
    records = data.draw(st.lists(st.fixed_dictionaries({n: CELLS for n in names}),
                                 min_size=1, max_size=8))
    ours = Grid.of_records(records)
    ref = _dataframe_grid(pd.DataFrame(records))
    assert ours.columns == ref.columns
    # the template writes each cell as text: the same text, and the same values
    assert [[str(c) for c in r] for r in ours.rows] == [[str(c) for c in r] for r in ref.rows]
    assert ours.rows == ref.rows


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_grid_of_columns_is_the_dataframes(data):
    names = data.draw(NAMES)
    n = data.draw(st.integers(1, 8))
    columns = {name: data.draw(st.lists(CELLS, min_size=n, max_size=n)) for name in names}
    ours = Grid.of_columns(columns)
    ref = _dataframe_grid(pd.DataFrame(columns))
    assert ours.columns == ref.columns and ours.rows == ref.rows
    assert [[str(c) for c in r] for r in ours.rows] == [[str(c) for c in r] for r in ref.rows]


def test_ragged_tables_are_refused():
    with pytest.raises(ValueError):
        Grid.of_records([{"a": 1}, {"b": 2}])
    with pytest.raises(ValueError):
        Grid.of_columns({"a": [1, 2], "b": [1]})


@pytest.mark.parametrize("n", [0, 1, 24, 168, 10_000])
def test_demo_times_are_pandas_date_range(n):
    ref = pd.date_range("2024-03-04", periods=n, freq="h").to_numpy()
    ours = demo_series_times(n)
    assert ours.dtype == ref.dtype and np.array_equal(ours, ref)
    if n == 168:
        assert np.array_equal(demo_series().time, ref)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2 * 10 ** 12, 4 * 10 ** 12) | st.none(), max_size=30),
       st.sampled_from(["s", "ms", "us", "ns", "m", "h", "D"]))
def test_datetime_labels_read_datetimes_as_pandas_does(seconds, unit):
    """Labels of datetime64 arrays of any unit (NaT included), read directly, and of
    the same times through pd.to_datetime (as before) are the same text."""
    t = np.array([np.datetime64("NaT") if s is None else np.datetime64(s, "s")
                  for s in seconds], dtype="datetime64[s]")
    if unit == "ns":  # the times a datetime64[ns] can hold
        lo, hi = np.datetime64("1678-01-01"), np.datetime64("2262-01-01")
        t = t[np.isnat(t) | ((t > lo) & (t < hi))]
    t = t.astype(f"datetime64[{unit}]")
    ref_ts = np.asarray(pd.to_datetime(t.ravel()).values, dtype="datetime64[m]")
    ours = _datetime_labels(t)
    # the pandas path: the same function on the values pandas gave (datetime64[m])
    assert ours == _datetime_labels(ref_ts)
