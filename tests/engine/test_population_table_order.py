"""The batch's validation leaves a partition that is already ordered by (user, time) as it
is (:func:`lmdk_core.population.table.ordered_by_user_and_time`): that is only right if
the stable sort it skips would have returned the same table, value for value. Checked
against pandas' own stable sort on random tables, ordered and not, with ties, repeated
timestamps, ``-0.0``/``0.0`` and every key type the check decides."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.population.table import (
    PopulationColumns,
    ordered_by_user_and_time,
    prepare_users,
)

COLS = PopulationColumns(user="u", time="t", value="v")


def _stable_sort_is_identity(users: np.ndarray, times: np.ndarray) -> bool:
    frame = pd.DataFrame({"user": users, "time": times})
    order = frame.sort_values(["user", "time"], kind="stable").index.to_numpy()
    return bool(np.array_equal(order, np.arange(users.size)))


def _keys(draw, kind: str, n: int, small: bool) -> np.ndarray:
    """``n`` keys of ``kind``; ``small`` keys repeat often (ties)."""
    top = 3 if small else 1000
    ints = np.array(draw(st.lists(st.integers(-top, top), min_size=n, max_size=n)),
                    dtype=np.int64)
    if kind == "int":
        return ints
    if kind == "uint":
        return np.abs(ints).astype(np.uint64)
    if kind == "bool":
        return ints % 2 == 0
    if kind == "float":
        zeros = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        x = ints / 4.0
        x[(x == 0) & zeros] = -0.0  # -0.0 and 0.0 mixed: equal keys, kept in file order
        return x
    return np.datetime64("2024-01-01T00:00", "ns") + ints.astype("timedelta64[h]")


@st.composite
def _tables(draw):
    n = draw(st.integers(0, 40))
    small = draw(st.booleans())
    users = _keys(draw, draw(st.sampled_from(["int", "uint", "bool", "float", "date"])), n,
                  small)
    times = _keys(draw, draw(st.sampled_from(["int", "float", "date"])), n, small)
    if draw(st.booleans()):  # an ordered table (its ties in file order)
        order = pd.DataFrame({"user": users, "time": times}).sort_values(
            ["user", "time"], kind="stable").index.to_numpy()
        users, times = users[order], times[order]
    return users, times


@settings(max_examples=400, deadline=None)
@given(_tables())
def test_ordered_means_the_stable_sort_returns_the_table(table):
    users, times = table
    assert ordered_by_user_and_time(users, times) == _stable_sort_is_identity(users, times)


def test_text_ids_are_left_to_the_sort():
    users = np.array(["a", "a", "b"], dtype=object)
    assert not ordered_by_user_and_time(users, np.array([0, 1, 0]))
    assert ordered_by_user_and_time(np.array([], dtype=np.int64), np.array([], dtype=float))


def _bits(a: np.ndarray) -> np.ndarray:
    """The array's bytes as integers: -0.0 differs from 0.0."""
    return a.view(np.int64) if a.dtype.kind in "fM" else a


@settings(max_examples=200, deadline=None)
@given(_tables(), st.randoms(use_true_random=False))
def test_prepared_frame_is_the_sorted_frame_bit_for_bit(table, rnd):
    """Whether or not the sort is skipped, ``prepare_users`` returns what sorting the
    validated table returns: the same values (to the bit, -0.0 kept), the same index."""
    users, times = table
    if users.dtype.kind == "b" or users.size == 0:
        return  # the sort of an empty or boolean-keyed table is covered above
    values = np.array([rnd.uniform(-5, 5) for _ in range(users.size)])
    raw = pd.DataFrame({"u": users, "t": times, "v": values})
    frame, _ = prepare_users(raw, COLS)
    expected = frame.sort_values(["user", "time"], kind="stable", ignore_index=True)
    pd.testing.assert_index_equal(frame.index, pd.RangeIndex(users.size))
    for col in ("user", "time", "value"):
        np.testing.assert_array_equal(_bits(frame[col].to_numpy()),
                                      _bits(expected[col].to_numpy()))
        assert frame[col].dtype == expected[col].dtype


@pytest.mark.parametrize("ordered", [True, False])
def test_prepared_frame_equals_sorting_the_raw_rows(ordered):
    rng = np.random.default_rng(4)  # data, not noise
    users = np.repeat(np.arange(50), 30)
    times = np.tile(np.arange(30), 50)
    raw = pd.DataFrame({"u": users, "t": times, "v": rng.normal(size=users.size)})
    if not ordered:
        raw = raw.sample(frac=1.0, random_state=3).reset_index(drop=True)
    frame, kind = prepare_users(raw, COLS)
    by_hand = raw.sort_values(["u", "t"], kind="stable", ignore_index=True)
    assert kind == "number"
    np.testing.assert_array_equal(frame["user"].to_numpy(), by_hand["u"].to_numpy())
    np.testing.assert_array_equal(frame["time"].to_numpy(), by_hand["t"].to_numpy())
    np.testing.assert_array_equal(frame["value"].to_numpy(), by_hand["v"].to_numpy())
