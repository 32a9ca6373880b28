"""A track's runs of consecutive *flagged* fixes in `lmdk batch` / the Population page:
each run of two or more is released as ONE stay event (one release of the run's
centroid, every fix of it shown with fresh noise of the regular law, the grouped
verifier; docs/stays.md, docs/population.md), as a series' runs of flagged readings are
(docs/series-events.md). So the demo commuters (lmdk_core/population/demo_population.py:
a clinic visit of up to 23 flagged fixes and the home fix at 03:00) fit a declared
k = 5, and a neighbouring table — one run of flags shifted by a fix — gives the same
publishable header."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.engine.release import release_trajectory
from lmdk_core.engine.run_events import runs_of
from lmdk_core.engine.verifier import verify
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.population.demo_population import (
    DEMO_POPULATION_TRACK_COLUMNS,
    demo_population_tracks,
)
from lmdk_core.population.in_process import standardise, user_stays
from lmdk_core.population.landmarks import DiscoverySettings
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.streams import user_generator

ENTROPY = 20261206  # the batch's root entropy: every user's noise stream derives from it
R = 100.0
COLS = DEMO_POPULATION_TRACK_COLUMNS


def _settings(k: int | None, extra: dict | None = None) -> BatchSettings:
    cfg = ViewConfig(data_kind="track", dataset="demo-paris", radius=R,
                     extra={**({"max_landmarks": k} if k is not None else {}),
                            **(extra or {})})
    return BatchSettings.from_config(cfg, "track", "fast", ENTROPY, leakage=False)


@pytest.fixture(scope="module")
def commuters() -> pd.DataFrame:
    return demo_population_tracks()


def test_the_demo_commuters_fit_k_5_and_every_user_is_private(commuters):
    """At k = 5 every commuter is released (before, up to 24 flagged fixes were 24
    events: refused); each user's released points are the single-trace engine's release
    with the runs as stays, point for point, and the verifier's grouped form holds."""
    settings = _settings(5)
    res = release_partition(commuters, COLS, settings)
    audit = res.audit.set_index("user")
    assert len(audit) == 100 and audit["landmark_private"].all()
    decimals = settings.release_decimals()
    n_runs = 0
    for user, g in commuters.groupby(COLS.user, sort=False):
        g = g.sort_values(COLS.time)
        lm = np.flatnonzero(g[COLS.landmark].to_numpy())
        runs = runs_of(lm)
        assert len(lm) - sum(b - a for a, b in runs) <= 5  # the events k counts
        n_runs += len(runs)
        single = release_trajectory(g["lat"], g["lon"], lm, epsilon=1.0, radius=R, scheme="uniform",
                                    seed=user_generator(ENTROPY, user), stays=runs,
                                    max_landmarks=5)
        assert verify(single.epsilon_t, lm, 1.0, groups=runs or None,
                      max_landmarks=5).private
        rel = res.released[res.released["user"] == user]
        np.testing.assert_array_equal(rel[["released_lat", "released_lon"]].to_numpy(),
                                      np.round(single.released, decimals))
    assert n_runs >= 40  # about half of them visit the clinic: a run of flags each


def test_a_flagged_run_is_one_event_and_the_switch_turns_it_off(commuters):
    """One commuter with a clinic visit: the run is one stay (its fixes published from
    one release of the centroid, ε_t = 0 after its first fix); with
    ``stays_as_events: false`` every flagged fix is its own event and k = 5 refuses."""
    lengths = commuters.groupby(COLS.user)[COLS.landmark].sum()
    user = str(lengths.idxmax())
    one = commuters[commuters[COLS.user] == user]
    lm = np.flatnonzero(one[COLS.landmark].to_numpy())
    runs = runs_of(lm)
    assert len(runs) == 1 and len(lm) > 5
    a, b = runs[0]
    res = release_partition(one, COLS, _settings(5))
    assert int(res.audit["n_approximated"].iloc[0]) == b - a
    frame, kind = standardise(one, COLS)
    assert user_stays(frame, user, kind, DiscoverySettings()) == runs  # what the app opens
    with pytest.raises(InputError, match="k = 5"):
        release_partition(one, COLS, _settings(5, {"discovery": {"stays_as_events": False}}))
    assert user_stays(frame, user, kind, DiscoverySettings(stays_as_events=False)) == []


def _publish(tmp_path: Path, df: pd.DataFrame, name: str) -> tuple[list[str], pd.DataFrame]:
    src, out = tmp_path / f"{name}.csv", tmp_path / f"{name}.released.csv"
    df.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind="track", radius=R,
                                             extra={"max_landmarks": 5})))
    code = main(["batch", "--config", str(cfg), "--input", str(src), "--user-col", "person",
                 "--time-col", "time", "--lat-col", "lat", "--lon-col", "lon",
                 "--landmark-col", "visit", "--output", str(out),
                 "--audit", str(tmp_path / f"{name}.audit.csv"), "--noise", "fast",
                 "--no-leakage"])
    assert code == 0
    header = [ln for ln in out.read_text().splitlines() if ln.startswith("#")]
    return header, pd.read_csv(out, comment="#")


def test_a_shifted_run_of_flags_gives_the_same_publishable_header(tmp_path, commuters):
    """Neighbouring tables: one commuter's run of flags shifted one fix later. Both are
    released at k = 5 with the same header (nothing in it follows the flags), the same
    users and times, and no two consecutive identical points (fresh noise in the runs)."""
    users = commuters[COLS.user].unique()[:6]
    a = commuters[commuters[COLS.user].isin(users)].reset_index(drop=True)
    lengths = a.groupby(COLS.user)[COLS.landmark].sum()
    who = a.index[a[COLS.user] == lengths.idxmax()]
    flags = a.loc[who, COLS.landmark].to_numpy()
    b = a.copy()
    b.loc[who, COLS.landmark] = np.roll(flags, 1)  # every flag one fix later
    assert runs_of(np.flatnonzero(flags)) != runs_of(np.flatnonzero(np.roll(flags, 1)))
    head_a, rel_a = _publish(tmp_path, a, "a")
    head_b, rel_b = _publish(tmp_path, b, "b")
    assert head_a == head_b
    assert head_a[0].startswith("#") and "EXPLORATORY" not in "\n".join(head_a)
    assert rel_a[["user", "time"]].equals(rel_b[["user", "time"]])
    for rel in (rel_a, rel_b):
        for _, g in rel.groupby("user"):
            p = g[["released_lat", "released_lon"]].to_numpy()
            assert not np.any(np.all(p[1:] == p[:-1], axis=1))
