"""The utility line of a population: the per-user audit columns (equal to the engine's
utility of each user's single-trace release), the Population page's line and the
``lmdk batch`` JSON / text summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk_core.decision.utility import release_utility
from lmdk_core.engine.release import release_series
from lmdk_core.engine.run_events import runs_of
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.population.audit import AUDIT_COLUMNS, LeakageSettings
from lmdk_core.population.demo_population import (
    DEMO_POPULATION_SERIES_COLUMNS,
    demo_population_series,
)
from lmdk_core.population.in_process import standardise
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.streams import user_generator
from tests.app.test_app_utility import utility_lines
from tests.conftest import open_page, run_cli

TIMEOUT = 240


def _settings(**kw) -> BatchSettings:
    base = dict(kind="series", epsilon=1.0, scheme="uniform", window=10,
                mechanism="laplace", sensitivity=0.2, radius=100.0, noise="fast",
                root_entropy=2024, leakage=LeakageSettings(enabled=False))
    base.update(kw)
    return BatchSettings(**base)


@pytest.mark.parametrize("scheme", ["uniform", "skip"])
def test_audit_utility_equals_the_single_trace_engine(scheme):
    df = demo_population_series()
    df = df[df["household"].isin([f"h{u:03d}" for u in range(1, 9)])]
    frame = standardise(df, DEMO_POPULATION_SERIES_COLUMNS)[0]
    s = _settings(scheme=scheme)
    res = release_partition(frame, DEMO_POPULATION_SERIES_COLUMNS.__class__(
        user="user", time="time", value="value", landmark="landmark"), s)
    audit = res.audit
    assert list(audit.columns) == AUDIT_COLUMNS
    assert {"expected_error", "data_scale", "utility"} <= set(audit.columns)
    for _, row in audit.iterrows():
        g = frame[frame["user"] == row["user"]]
        lm = np.flatnonzero(g["landmark"].to_numpy())
        single = release_series(g["value"].to_numpy(), lm, epsilon=1.0, scheme=scheme,
                                mechanism="laplace", sensitivity=0.2,
                                seed=user_generator(2024, row["user"]), window=10,
                                runs=runs_of(lm) or None)
        uv = release_utility(single, sensitivity=0.2)
        assert row["utility"] == uv.label
        assert row["expected_error"] == pytest.approx(uv.typical)
        assert row["data_scale"] == pytest.approx(uv.scale.value)


def test_population_page_says_how_many_releases_are_noise():
    at = open_page("population", TIMEOUT)
    assert len(utility_lines(at)) == 1  # the preview's, before any release
    at.button(key="pop_release").click().run()
    assert not at.exception
    lines = utility_lines(at)
    assert len(lines) == 2  # the preview's, then the release's
    audit = at.session_state["pop_result"][1].audit
    n_bad = int((audit["utility"] == "not useful").sum())
    if n_bad:
        assert f"{n_bad:,} users' releases are not useful" in lines[1]
    else:
        assert "no user's release is noise" in lines[1]
    # a bad setting: ε = 0.02 makes every household's release noise — said at once by
    # the preview, and by the release at that setting
    at.number_input(key="w_epsilon").set_value(0.02).run()
    assert not at.exception
    lines = utility_lines(at)
    assert "Utility: 200 of 200 not useful" in lines[0]
    assert ":red-badge[:material/block:" in lines[0]
    at.button(key="pop_release").click().run()
    assert not at.exception
    lines = utility_lines(at)
    assert "Utility: 200 of 200 not useful" in lines[1]
    table = next(d.value for d in at.dataframe if "utility" in d.value.columns)
    assert set(table["utility"]) == {"not useful"}


def test_cli_batch_json_and_text_count_the_users_that_are_noise(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for u in range(6):
        spread = 0.05 if u < 2 else 50.0  # two users whose data barely vary
        v = 100 + rng.normal(0, spread, 48)
        rows.append(pd.DataFrame({"u": f"m{u}", "t": np.arange(48), "v": v,
                                  "f": np.arange(48) == 7}))
    src = tmp_path / "pop.csv"
    pd.concat(rows).to_csv(src, index=False)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(config_to_json(ViewConfig(epsilon=1.0, sensitivity=1.0, landmarks=[],
                                             seed=0)))
    args = ["batch", "--config", str(cfg), "--input", str(src), "--user-col", "u",
            "--time-col", "t", "--value-col", "v", "--landmark-col", "f",
            "--output", str(tmp_path / "out.csv"), "--audit", str(tmp_path / "audit.csv"),
            "--workers", "1", "--seed", "1", "--noise", "fast", "--no-leakage"]
    p = run_cli(*args, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    # Δf/ε_t = 2 against an IQR of ~0.07 (noise) or ~67 (useful: 3 %)
    assert d["not_useful"] == 2 and d["utility_counts"]["useful"] == 4
    assert d["median_expected_error"] == pytest.approx(2.0)
    audit = pd.read_csv(tmp_path / "audit.csv", comment="#")
    assert sorted(audit.loc[audit["utility"] == "not useful", "user"]) == ["m0", "m1"]
    p = run_cli(*args)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("utility:"))
    assert "2 of 6 users' releases are NOT USEFUL" in line and "4 useful" in line
