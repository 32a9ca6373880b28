"""The aggregate engine against a slow, obvious implementation (pure Python loops).

On random populations (hypothesis): one contribution per user per window (the first fix
of the window for tracks, the mean of the clamped readings for series), the landmark rule
for users with more than k landmark windows (drop / refuse / Skip), the totals per window
and cell, and the per-user counts of the audit.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk_core.aggregate.cells import METRES_PER_DEGREE, CellGrid
from lmdk_core.aggregate.partition_work import AggregateSpec, aggregate_frame
from lmdk_core.aggregate.plan import LandmarkSetting, plan_allocation
from lmdk_core.aggregate.statistics import statistic
from lmdk_core.aggregate.windows import WindowGrid
from lmdk_core.population.table import PopulationColumns, prepare_users

WIDTH, COUNT = 100.0, 10
BOX = CellGrid(south=48.85, west=2.30, north=48.88, east=2.35, size=1000.0, declared=True)


def _slow_cell(lat: float, lon: float) -> int:
    """The cell of one point, written out with math (see lmdk_core/aggregate/cells.py)."""
    if not (BOX.south <= lat <= BOX.north and BOX.west <= lon <= BOX.east):
        return -1
    per_lon = METRES_PER_DEGREE * math.cos(math.radians((BOX.south + BOX.north) / 2))
    rows = max(1, math.ceil((BOX.north - BOX.south) * METRES_PER_DEGREE / BOX.size))
    cols = max(1, math.ceil((BOX.east - BOX.west) * per_lon / BOX.size))
    r = min(math.floor((lat - BOX.south) * METRES_PER_DEGREE / BOX.size), rows - 1)
    c = min(math.floor((lon - BOX.west) * per_lon / BOX.size), cols - 1)
    return r * cols + c


def _slow_aggregate(rows: list[dict], track: bool, bounds, k: int | None, rule: str,
                    skip: bool):
    """Totals {(window, cell): [count, total]} of all and of kept contributions, and per
    user [contributions, landmark windows, dropped, refused]."""
    by_user = defaultdict(list)
    for i, r in enumerate(rows):
        by_user[r["user"]].append((r["time"], i, r))
    all_t, kept_t = defaultdict(lambda: [0, 0.0]), defaultdict(lambda: [0, 0.0])
    users = {}
    for u in sorted(by_user):
        contrib = {}  # window -> list of rows in time order (file order among ties)
        for _, _, r in sorted(by_user[u], key=lambda x: (x[0], x[1])):
            w = math.floor(r["time"] / WIDTH)
            if 0 <= w < COUNT:
                contrib.setdefault(w, []).append(r)
        items = []
        for w in sorted(contrib):
            rs = contrib[w]
            if track:
                cell, value = _slow_cell(rs[0]["lat"], rs[0]["lon"]), 1.0
            else:
                lo, hi = bounds
                vals = [min(max(r["value"], lo), hi) for r in rs]
                cell, value = 0, min(max(sum(vals) / len(vals), lo), hi)
            items.append((w, cell, value, any(r["flag"] for r in rs)))
        n_lm = sum(1 for it in items if it[3])
        refused = k is not None and not skip and rule == "refuse" and n_lm > k
        seen_lm, dropped = 0, 0
        for w, cell, value, lm in items:
            keep = True
            if k is not None:
                if skip:
                    keep = not lm
                elif refused:
                    keep = False
                elif lm:
                    seen_lm += 1
                    keep = seen_lm <= k
            if k is not None and lm and not keep:
                dropped += 1
            if cell >= 0:
                all_t[(w, cell)][0] += 1
                all_t[(w, cell)][1] += value
                if keep:
                    kept_t[(w, cell)][0] += 1
                    kept_t[(w, cell)][1] += value
        users[u] = [len(items), n_lm, dropped, refused]
    return all_t, kept_t, users


def _as_dict(count: np.ndarray, total: np.ndarray) -> dict:
    return {(int(w), int(c)): [int(count[w, c]), float(total[w, c])]
            for w, c in zip(*np.nonzero(count), strict=True)}


def _same(engine: dict, slow: dict) -> None:
    assert engine.keys() == {key for key, v in slow.items() if v[0]}
    for key, (n, tot) in engine.items():
        assert n == slow[key][0]
        assert math.isclose(tot, slow[key][1], rel_tol=1e-9, abs_tol=1e-9)


rows_strategy = st.lists(
    st.fixed_dictionaries({
        "user": st.sampled_from(["a", "b", "c", "d", "e"]),
        "time": st.integers(-50, 1100),
        "value": st.floats(-5, 12, allow_nan=False),
        "lat": st.floats(48.84, 48.89), "lon": st.floats(2.29, 2.36),
        "flag": st.booleans(),
    }), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy, track=st.booleans(), k=st.one_of(st.none(), st.integers(0, 3)),
       rule=st.sampled_from(["drop", "refuse"]), skip=st.booleans())
def test_engine_aggregate_equals_the_slow_loops(rows, track, k, rule, skip):
    cols = (PopulationColumns("user", "time", lat="lat", lon="lon", landmark="flag") if track
            else PopulationColumns("user", "time", value="value", landmark="flag"))
    raw = pd.DataFrame(rows)[cols.needed()]
    frame, kind = prepare_users(raw, cols)
    windows = WindowGrid("number", 0.0, WIDTH, COUNT, declared=True)
    stat = statistic("cells") if track else statistic("sum", (0.0, 5.0))
    setting = (LandmarkSetting("personal", k=k, rule=rule) if k is not None
               else LandmarkSetting("none"))
    scheme = "skip" if (skip and k is not None) else "uniform"
    plan = plan_allocation(scheme, COUNT, setting, 1.0)
    spec = AggregateSpec(stat, windows, BOX if track else None, setting, plan.allocation,
                         plan.skip_landmarks, 1.0)
    part = aggregate_frame(frame, kind, spec)
    all_t, kept_t, users = _slow_aggregate(rows, track, (0.0, 5.0), k, rule,
                                           skip and k is not None)
    _same(_as_dict(part.all.count, part.all.total), all_t)
    _same(_as_dict(part.kept.count, part.kept.total), kept_t)
    got = {r.user: [r.contributions, r.landmark_windows if k is not None else
                    users[r.user][1], r.dropped, bool(r.refused)]
           for r in part.users.itertuples()}
    assert got == {u: v for u, v in users.items() if v[0]}
    # every user of the rule is landmark-private against the plan (the rule's purpose)
    if k is not None:
        assert part.users["landmark_private"].all()


@settings(max_examples=40, deadline=None)
@given(rows=rows_strategy)
def test_no_user_is_in_two_cells_of_one_window(rows):
    """Contribution bounding: the cell counts of a window add up to the number of users
    with a first fix inside the box in that window, never more."""
    cols = PopulationColumns("user", "time", lat="lat", lon="lon")
    frame, kind = prepare_users(pd.DataFrame(rows)[cols.needed()], cols)
    windows = WindowGrid("number", 0.0, WIDTH, COUNT, declared=True)
    setting = LandmarkSetting("none")
    plan = plan_allocation("uniform", COUNT, setting, 1.0)
    spec = AggregateSpec(statistic("cells"), windows, BOX, setting, plan.allocation, False, 1.0)
    part = aggregate_frame(frame, kind, spec)
    users_in_window = defaultdict(set)
    for r in rows:
        w = math.floor(r["time"] / WIDTH)
        if 0 <= w < COUNT:
            users_in_window[w].add(r["user"])
    for w in range(COUNT):
        assert part.all.count[w].sum() <= len(users_in_window[w])
    assert part.all.count.sum() + part.users["outside_cells"].sum() == part.users[
        "contributions"].sum()


@settings(max_examples=40, deadline=None)
@given(rows=rows_strategy, k=st.integers(0, 2))
def test_origin_destination_counts_equal_the_slow_loops(rows, k):
    """OD pairs: a user's kept first-fix cells in windows w and w + 1, both in the box."""
    from lmdk_core.aggregate.contributions import bound_contributions
    from lmdk_core.aggregate.landmark_bound import kept_contributions
    from lmdk_core.aggregate.origin_destination import od_totals

    cols = PopulationColumns("user", "time", lat="lat", lon="lon", landmark="flag")
    frame, _ = prepare_users(pd.DataFrame(rows)[cols.needed()], cols)
    windows = WindowGrid("number", 0.0, WIDTH, COUNT, declared=True)
    con = bound_contributions(frame, windows, cells=BOX)
    kept, _, _ = kept_contributions(con.user, con.landmark, k, "drop")
    got = od_totals(con.user, con.window, con.cell, kept, windows=COUNT, cells=BOX.count)
    # slow: per user, the kept (window -> cell) map, then consecutive windows
    want = np.zeros_like(got)
    by_user = defaultdict(dict)
    for u, w, c, keep in zip(con.user.tolist(), con.window.tolist(), con.cell.tolist(),
                             kept.tolist(), strict=True):
        if keep and c >= 0:
            by_user[u][w] = c
    for cells in by_user.values():
        for w, c in cells.items():
            if w + 1 in cells:
                want[w, c, cells[w + 1]] += 1
    assert np.array_equal(got, want)
    # the same first fixes as the slow implementation of the counts
    _, _, users = _slow_aggregate(rows, True, None, k, "drop", False)
    assert sum(1 for v in users.values() if v[0]) == con.users.size
