"""Batch / Population on real multi-day GeoLife tracks (tests/data/real/geolife/): each
user's discovered stays are released as ONE landmark event each by default
(docs/stays.md), the per-user audit checks the grouped form of the theorem, and the
displacement is usable; ``extra.discovery.stays_as_events = false`` keeps the old
per-fix landmarks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.engine.release import release_trajectory
from lmdk_core.files.config import ViewConfig
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.geodesy import distance_m
from lmdk_core.landmarks.discovery import detect_stay_points
from lmdk_core.population.landmarks import DiscoverySettings
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.streams import user_generator
from lmdk_core.population.table import PopulationColumns

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "tests" / "data" / "real" / "geolife").glob("*.csv"))
COLS = PopulationColumns(user="user", time="time", lat="lat", lon="lon")
ENTROPY = 20251125  # the batch's root entropy: every user's noise stream derives from it


@pytest.fixture(scope="module")
def population() -> pd.DataFrame:
    frames = []
    for p in FILES:
        df = pd.read_csv(p)
        df.insert(0, "user", p.stem)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def run(df: pd.DataFrame, extra: dict | None = None):
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", extra=extra or {})
    settings = BatchSettings.from_config(cfg, "track", "fast", ENTROPY, leakage=False)
    return release_partition(df, COLS, settings)


def test_stays_are_events_in_batch_and_the_release_is_usable(population):
    """Defaults (ε = 1, r = 100 m, Uniform): every user landmark-private under the grouped
    theorem, each stay released once and its fixes shown with fresh noise, median
    displacement ≤ 5 km and none beyond 100 km (root entropy fixed above, so the figures
    are fixed)."""
    res = run(population)
    audit = res.audit.set_index("user")
    out = res.released
    assert len(out) == len(population)
    for user, g in population.groupby("user", sort=False):
        rel = out[out["user"] == user]
        lat, lon = g["lat"].to_numpy(), g["lon"].to_numpy()
        t = pd.to_datetime(g["time"]).dt.tz_convert(None).to_numpy().astype("datetime64[s]")
        stays = detect_stay_points(lat, lon, (t - t[0]).astype(float) / 60)
        assert stays, user
        assert audit.loc[user, "landmark_private"]
        assert audit.loc[user, "n_landmarks"] == sum(s.end - s.start + 1 for s in stays)
        rl, ro = rel["released_lat"].to_numpy(), rel["released_lon"].to_numpy()
        # one release per stay, each fix shown with fresh post-processing noise: the
        # single-trace engine's release from the user's stream, point for point (rounded
        # as the file is), and no two consecutive points the same
        single = release_trajectory(lat, lon, [], epsilon=1.0, radius=100.0, scheme="uniform",
                                    seed=user_generator(ENTROPY, user),
                                    stays=[s.span for s in stays])
        decimals = BatchSettings.from_config(ViewConfig(data_kind="track"), "track", "fast",
                                             ENTROPY).release_decimals()
        np.testing.assert_array_equal(np.column_stack([rl, ro]),
                                      np.round(single.released, decimals))
        assert not np.any((np.diff(rl) == 0) & (np.diff(ro) == 0))
        d = distance_m(lat, lon, rl, ro)
        assert np.median(d) <= 5_000, (user, np.median(d))
        assert np.max(d) <= 100_000, (user, np.max(d))


def test_per_fix_landmarks_stay_available_and_are_what_ruined_batch(population):
    user = "geolife-user004"
    one = population[population["user"] == user]
    res = run(one, {"discovery": {"stays_as_events": False}})
    rel = res.released
    d = distance_m(one["lat"].to_numpy(), one["lon"].to_numpy(),
                   rel["released_lat"].to_numpy(), rel["released_lon"].to_numpy())
    assert res.audit["landmark_private"].all()
    assert np.median(d) > 50_000  # 1,229 landmarks share ε = 1


def test_the_setting_is_checked():
    with pytest.raises(InputError, match="stays_as_events"):
        DiscoverySettings.from_extra({"discovery": {"stays_as_events": "yes"}})
    assert DiscoverySettings.from_extra({}).stays_as_events is True


def test_user_stays_are_the_ones_the_batch_released(population):
    from lmdk_core.population.in_process import standardise, user_stays

    frame, kind = standardise(population, COLS)
    d = DiscoverySettings()
    stays = user_stays(frame, "geolife-user004", kind, d)
    assert len(stays) == 22 and stays[0] == (93, 168)
    assert user_stays(frame, "geolife-user004", kind,
                      DiscoverySettings(stays_as_events=False)) == []
    flagged = frame.assign(landmark=False)
    assert user_stays(flagged, "geolife-user004", kind, d) == []
