"""Discovered stays in `lmdk batch` (docs/privacy-model.md, "Discovered landmarks in lmdk
batch"): two users whose tracks differ by one fix moved r = 100 m — discovery finds the
stay 0–29 for one and 1–29 for the other — give publishable files with the same
deterministic parts (header, users, times) and no pattern of repeated points in either
(before the fresh noise, the files differed with certainty in which points repeat); the
declared bound k sets Uniform's ε/(k+1) for every user whatever discovery found."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import destination
from lmdk_core.landmarks.discovery import detect_stay_points

R = 100.0  # the protection radius: one fix moved by r is a neighbour


def _track(first_fix_north: float) -> pd.DataFrame:
    """One fix a minute: fix 0 ``first_fix_north`` metres north of a place, fixes 1–29
    within 20 m of it, then 15 fixes walking away 300 m each (data, seed 5)."""
    rng = np.random.default_rng(5)
    la0, lo0 = 39.98, 116.31
    la, lo = destination(np.full(29, la0), np.full(29, lo0), rng.uniform(0, 360, 29),
                         20 * np.sqrt(rng.random(29)))
    f_la, f_lo = destination(la0, lo0, 0.0, first_fix_north)
    w_la, w_lo = destination(np.full(15, la0), np.full(15, lo0), 90.0,
                             300.0 * np.arange(1, 16))
    lat = np.concatenate([[float(f_la)], la, w_la])
    lon = np.concatenate([[float(f_lo)], lo, w_lo])
    t = pd.Timestamp("2026-01-05 08:00") + pd.to_timedelta(np.arange(lat.size), "min")
    return pd.DataFrame({"uid": "alice", "t": t.strftime("%Y-%m-%dT%H:%M:%S"),
                         "lat": lat, "lon": lon})


def _publish(tmp_path: Path, df: pd.DataFrame, name: str) -> tuple[list[str], pd.DataFrame]:
    src, out = tmp_path / f"{name}.csv", tmp_path / f"{name}.released.csv"
    df.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind="track", radius=R,
                                             extra={"max_landmarks": 2})))
    code = main(["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
                 "--time-col", "t", "--lat-col", "lat", "--lon-col", "lon", "--output",
                 str(out), "--audit", str(tmp_path / f"{name}.audit.csv"), "--noise", "fast",
                 "--no-leakage"])
    assert code == 0
    lines = out.read_text().splitlines()
    header = [ln for ln in lines if ln.startswith("#")]
    return header, pd.read_csv(out, comment="#")


def test_one_fix_moved_by_r_changes_what_discovery_finds_but_not_the_file(tmp_path):
    a, b = _track(120.0), _track(220.0)  # fix 0 moved 100 m = r further north
    minutes = np.arange(len(a), dtype=float)
    stays_a = [s.span for s in detect_stay_points(a["lat"].to_numpy(), a["lon"].to_numpy(),
                                                  minutes)]
    stays_b = [s.span for s in detect_stay_points(b["lat"].to_numpy(), b["lon"].to_numpy(),
                                                  minutes)]
    assert stays_a == [(0, 29)] and stays_b == [(1, 29)]  # discovery differs
    head_a, rel_a = _publish(tmp_path, a, "a")
    head_b, rel_b = _publish(tmp_path, b, "b")
    # the deterministic parts: header lines (no seed given: the same text), users, times
    assert head_a == head_b
    assert list(rel_a.columns) == list(rel_b.columns)
    assert rel_a[["user", "time"]].equals(rel_b[["user", "time"]])
    # no repeat pattern: not one pair of identical consecutive points in either file
    for rel in (rel_a, rel_b):
        p = rel[["released_lat", "released_lon"]].to_numpy()
        assert not np.any(np.all(p[1:] == p[:-1], axis=1))


def test_declared_k_sets_every_users_share_whatever_discovery_found():
    """planned_budgets with k = 3: ε/4 for a user with no landmark and for one with three;
    undeclared, the share would be ε/(|L_u| + 1) and tell |L_u|."""
    from lmdk_core.population.lockstep import planned_budgets

    lm = np.zeros((2, 10), dtype=bool)
    lm[1, [2, 5, 7]] = True
    lengths = np.array([10, 10])
    k3 = planned_budgets("uniform", lengths, lm, 1.0, window=None, max_landmarks=3)
    assert np.all(k3 == 0.25)
    k3 = planned_budgets("adaptive", lengths, lm, 1.0, window=None, max_landmarks=3)
    assert np.all(k3 == 0.25)
    free = planned_budgets("uniform", lengths, lm, 1.0, window=None)
    assert free[0, 0] == 1.0 and free[1, 0] == 0.25


def test_a_user_with_more_events_than_k_is_refused(tmp_path):
    """Three discovered stays with k = 2: refused with one message saying how to
    declare a larger k; with k = 3 the user is released, landmark-private."""
    from lmdk_core.population.partition import BatchSettings, release_partition
    from lmdk_core.population.table import PopulationColumns

    parts = [_track(120.0) for _ in range(3)]  # a stay, then 15 regular fixes walking
    df = pd.concat(parts, ignore_index=True)
    n = len(parts[0])
    t = pd.Timestamp("2026-01-05 08:00") + pd.to_timedelta(np.arange(3 * n), "min")
    df["t"] = t.strftime("%Y-%m-%dT%H:%M:%S")
    df["lat"] = df["lat"] + np.repeat([0.0, 0.05, 0.1], n)  # three places 5.5 km apart
    cols = PopulationColumns(user="uid", time="t", lat="lat", lon="lon")
    def settings(k):
        cfg = ViewConfig(data_kind="track", radius=R, extra={"max_landmarks": k})
        return BatchSettings.from_config(cfg, "track", "fast", 1, leakage=False)

    with pytest.raises(InputError, match="larger k"):
        release_partition(df, cols, settings(2))
    res = release_partition(df, cols, settings(3))
    assert bool(res.audit["landmark_private"].iloc[0])
