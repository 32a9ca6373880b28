"""Every real public file of ``tests/data/real/`` through the three ways in: the CLI
(``lmdk suggest`` and ``lmdk release`` / ``geo-release``), the app's upload (Map for
tracks, Timeline for series, AppTest) and ``lmdk batch`` (one long table per kind of
data and time). A file the loaders refuse is refused the same way everywhere: exit
status 2 with one line on stderr, an ``st.error`` in the app."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.data.series import load_series_csv
from lmdk_core.data.track_loading import load_track
from lmdk_core.files.config import ViewConfig, config_to_json
from tests.conftest import open_page
from tests.engine.test_real_data import (
    REAL,
    SERIES,
    SERIES_COLUMNS,
    SERIES_DIR,
    TRACK_FILES,
)

APP_TIMEOUT = 240


def _track_args(path: Path) -> list[str]:
    """--minutes-per-point for a track some of whose pieces have no times (stays are
    searched there with that interval, labelled as assumed)."""
    t = load_track(path)
    return ["--minutes-per-point", "1"] if t.n_missing_times or t.time_kind == "index" else []


def _cli(capsys, *args: str) -> tuple[int, str, list[str]]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, [ln for ln in out.err.splitlines() if ln.strip()]


# ------------------------------------------------------------------------------ CLI
@pytest.mark.parametrize("rel", TRACK_FILES)
def test_track_through_the_cli(rel, capsys, tmp_path):
    path = REAL / rel
    code, out, err = _cli(capsys, "suggest", "--input", str(path), *_track_args(path),
                          "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["kind"] == "track" and doc["length"] == len(load_track(path))
    assert all("NaT" not in json.dumps(s) for s in doc["suggestions"])
    code, out, err = _cli(capsys, "geo-release", "--noise", "fast",
                          "--input", str(path), "--epsilon", "1",
                          "--seed", "1", "--output", str(tmp_path / "o.csv"), "--json")
    assert code == 0, err
    rows = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert len(rows) == len(load_track(path)) and "lat" not in rows.columns


@pytest.mark.parametrize("name", sorted(SERIES))
def test_series_through_the_cli(name, capsys, tmp_path):
    tcol, vcol = SERIES_COLUMNS[name]
    cols = ["--time-col", tcol, "--value-col", vcol]
    path = str(SERIES_DIR / name)
    code, out, err = _cli(capsys, "suggest", "--input", path, *cols, "--json")
    if "error" in SERIES[name]:
        assert code == 2 and len(err) == 1 and SERIES[name]["error"] in err[0], err
        return
    assert code == 0, err
    assert json.loads(out)["length"] == SERIES[name]["rows"]
    code, _, err = _cli(capsys, "release", "--input", path, *cols, "--epsilon", "1",
                        "--seed", "1", "--output", str(tmp_path / "o.csv"))
    assert code == 0, err
    rows = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert list(rows.columns) == ["time", "released"] and len(rows) == SERIES[name]["rows"]


# ------------------------------------------------------------------------------ the app
@pytest.fixture(scope="module")
def map_page():
    return open_page("map", APP_TIMEOUT)


@pytest.fixture(scope="module")
def timeline_page():
    return open_page("timeline", APP_TIMEOUT)


@pytest.mark.parametrize("rel", TRACK_FILES)
def test_track_uploads_on_the_map(rel, map_page):
    at = map_page
    path = REAL / rel
    at.file_uploader(key="track_upload").set_value((path.name, path.read_bytes(),
                                                    "application/octet-stream"))
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert f"{len(load_track(path)):,} points" in at.caption[0].value


@pytest.mark.parametrize("name", sorted(SERIES))
def test_series_uploads_on_the_timeline(name, timeline_page):
    at = timeline_page
    data = (SERIES_DIR / name).read_bytes()
    at.file_uploader(key="series_upload").set_value((name, data, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    tcol, vcol = SERIES_COLUMNS[name]
    if at.session_state["series_columns_pending"]:  # not time,value: choose the columns
        # the columns offered first are never a row index (pandas' `Unnamed: 0`)
        assert not at.selectbox(key="w_upload_value_col").value.startswith("Unnamed")
        assert not at.selectbox(key="w_upload_time_col").value.startswith("Unnamed")
        at.selectbox(key="w_upload_time_col").set_value(tcol)
        at.selectbox(key="w_upload_value_col").set_value(vcol)
        at.button[[b.label for b in at.button].index("Load with these columns")].click()
        at.run()
        assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    if "error" in SERIES[name]:
        assert any(SERIES[name]["error"] in e for e in errors), errors
        return
    assert not errors, errors
    assert f"{SERIES[name]['rows']} timestamps" in at.caption[0].value


# ------------------------------------------------------------------------------ batch
def _long_tables() -> dict[str, tuple[pd.DataFrame, str, list[str]]]:
    """One long table per (kind, time kind): every loadable fixture as one user, its
    times as the loader read them (a track with missing times: its point numbers)."""
    groups: dict[str, list[pd.DataFrame]] = {}
    for rel in TRACK_FILES:
        t = load_track(REAL / rel)
        timed = t.time_kind == "datetime" and not t.n_missing_times
        time = ([pd.Timestamp(x).isoformat() for x in np.asarray(t.time)] if timed
                else np.arange(len(t)))
        groups.setdefault("track-" + ("datetime" if timed else "number"), []).append(
            pd.DataFrame({"user": rel, "time": time, "lat": t.lat, "lon": t.lon}))
    for name in sorted(SERIES):
        if "error" in SERIES[name]:
            continue
        s = load_series_csv(SERIES_DIR / name, time_col=SERIES_COLUMNS[name][0],
                            value_col=SERIES_COLUMNS[name][1])
        time = ([pd.Timestamp(x).isoformat() for x in s.time] if s.time_kind == "datetime"
                else s.time)
        groups.setdefault(f"series-{s.time_kind}", []).append(
            pd.DataFrame({"user": name, "time": time, "value": s.values}))
    out = {}
    for key, frames in groups.items():
        track = key.startswith("track")
        out[key] = (pd.concat(frames, ignore_index=True), "track" if track else "series",
                    ["--lat-col", "lat", "--lon-col", "lon"] if track else
                    ["--value-col", "value"])
    return out


@pytest.mark.parametrize("key", ["track-datetime", "track-number", "series-datetime",
                                 "series-number"])
def test_every_fixture_through_the_batch(key, cluster, capsys, tmp_path):
    table, kind, cols = _long_tables()[key]
    src = tmp_path / "population.csv"
    table.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig(data_kind=kind, dataset="demo-paris")
                                  if kind == "track" else ViewConfig()))
    code, _, err = _cli(capsys, "batch", "--config", str(cfg), "--input", str(src),
                        "--user-col", "user", "--time-col", "time", *cols,
                        "--output", str(tmp_path / "o.csv"), "--audit", str(tmp_path / "a.csv"),
                        "--scheduler", cluster.scheduler_address, "--noise", "fast",
                        "--seed", "4", "--no-leakage")
    assert code == 0, err
    out = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert len(out) == len(table)
    assert sorted(out["user"].unique()) == sorted(table["user"].unique())
