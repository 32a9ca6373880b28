"""``lmdk aggregate``: the publishable file and the audit, bad input (exit 2, one line),
a release that is not landmark-private (exit 1, nothing publishable), the Dask path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import aggregate_commands, main

TRACK = ["--user-col", "user", "--time-col", "time", "--window", "1h", "--lat-col", "lat",
         "--lon-col", "lon", "--cell", "1000"]
SERIES = ["--user-col", "user", "--time-col", "time", "--window", "1h", "--value-col", "kwh",
          "--bounds", "0,3"]


def _tracks(path: Path, users: int = 12) -> Path:
    gen = np.random.default_rng(5)  # data, not noise
    rows = []
    for u in range(users):
        for m in range(0, 6 * 60, 15):
            rows.append((f"p{u}", f"2024-05-01T{m // 60:02d}:{m % 60:02d}:00Z",
                         48.86 + gen.uniform(0, 0.02), 2.33 + gen.uniform(0, 0.02),
                         int(gen.random() < 0.1)))
    pd.DataFrame(rows, columns=["user", "time", "lat", "lon", "flag"]).to_csv(path, index=False)
    return path


def _series(path: Path, users: int = 10) -> Path:
    gen = np.random.default_rng(6)
    rows = [(f"h{u}", h, round(float(gen.gamma(2, 0.3)), 3), int(gen.random() < 0.05))
            for u in range(users) for h in range(0, 48 * 3600, 3600)]
    pd.DataFrame(rows, columns=["user", "time", "kwh", "flag"]).to_csv(path, index=False)
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_tracks_publishable_file_and_confidential_audit(tmp_path, capsys):
    src = _tracks(tmp_path / "t.csv")
    out, audit = tmp_path / "stats.csv", tmp_path / "audit.csv"
    rc, stdout, err = _run(capsys, "aggregate", "--input", str(src), *TRACK,
                           "--landmark-col", "flag", "--landmarks-per-user", "2",
                           "--epsilon", "1", "--scheme", "uniform", "--output", str(out),
                           "--audit", str(audit), "--json",
                           "--bbox", "48.855,2.325,48.885,2.355",
                           "--start", "2024-05-01T00:00", "--end", "2024-05-01T06:00")
    assert rc == 0, err
    summary = json.loads(stdout)
    assert summary["publishable"] and summary["k"] == 2 and summary["windows"] == 6
    assert {lv["level"] for lv in summary["levels"]} == {"event", "w-event", "user",
                                                          "landmark"}
    text = out.read_text()
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert "k = 2" in "\n".join(head) and "ε_t = 0.333333" in "\n".join(head)
    table = pd.read_csv(out, comment="#")
    assert list(table.columns) == ["window", "cell", "cell_lat", "cell_lon", "released",
                                   "low", "high"]
    assert "true" not in table.columns and "user" not in table.columns
    assert (table["low"] <= table["released"]).all() and (table["released"] <= table["high"]).all()
    assert audit.read_text().startswith("# CONFIDENTIAL")
    users = audit.with_name("audit.users.csv")
    assert users.read_text().startswith("# CONFIDENTIAL")
    assert (audit.stat().st_mode & 0o777) == 0o600 and (users.stat().st_mode & 0o777) == 0o600
    assert "true" in pd.read_csv(audit, comment="#").columns
    assert pd.read_csv(users, comment="#")["landmark_private"].all()


def test_series_mean_to_parquet(tmp_path, capsys):
    src = _series(tmp_path / "s.csv")
    out = tmp_path / "stats.parquet"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, "--statistic", "mean",
                      "--landmarks-per-user", "3", "--landmark-col", "flag",
                      "--epsilon", "2", "--output", str(out), "--noise", "fast", "--seed", "1")
    assert rc == 0, err
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    assert table.column_names == ["window", "released", "low", "high"]
    header = json.loads(table.schema.metadata[b"lmdk.header"])
    assert any("mean" in line for line in header)
    rel = table.to_pandas()
    assert rel["released"].between(0, 3).all()


def test_public_landmarks_with_event_level_is_refused_with_exit_1(tmp_path, capsys):
    src = _series(tmp_path / "s.csv")
    out = tmp_path / "stats.csv"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES,
                      "--landmark-times", "7200,36000", "--epsilon", "1", "--scheme", "event",
                      "--output", str(out))
    assert rc == 1 and not out.exists()
    assert "NOT landmark-private" in err


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_public_landmarks_schemes(tmp_path, capsys, scheme):
    src = _series(tmp_path / "s.csv")
    out = tmp_path / "stats.csv"
    rc, stdout, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, "--statistic",
                           "count", "--landmark-times", "7200,36000", "--epsilon", "1",
                           "--scheme", scheme, "--output", str(out), "--json")
    assert rc == 0, err
    head = "\n".join(line for line in out.read_text().splitlines() if line.startswith("#"))
    assert "public landmark windows: 7200, 36000" in head


BAD = [
    ("empty", None, []),
    ("missing column", "series", ["--value-col", "nope"]),
    ("eps zero", "series", ["--epsilon", "0"]),
    ("eps negative", "series", ["--epsilon", "-1"]),
    ("LO >= HI", "series", ["--bounds", "3,3"]),
    ("bounds text", "series", ["--bounds", "a,b"]),
    ("K < 0", "series", ["--landmarks-per-user", "-1"]),
    ("flags without K", "series", ["--landmark-col", "flag"]),
    ("both landmark kinds", "series", ["--landmark-times", "0", "--landmarks-per-user", "2"]),
    ("bad window", "series", ["--window", "soon"]),
    ("adaptive with personal", "series", ["--scheme", "adaptive", "--landmarks-per-user", "2"]),
    ("adaptive cells", "tracks", ["--scheme", "adaptive", "--landmark-times",
                                  "2024-05-01T01:00"]),
    ("bad bbox", "tracks", ["--bbox", "50,2,49,3"]),
    ("seed with exact", "series", ["--seed", "3"]),
    ("bad scheduler", "series", ["--scheduler", "http://example.org:80"]),
    ("Dask without declared grids", "series", ["--scheduler", "tcp://127.0.0.1:1"]),
    ("landmark time outside", "series", ["--landmark-times", "999999999"]),
    ("OD for a series", "series", ["--od-output", "{tmp}/od.csv"]),
    ("OD with skip", "tracks", ["--scheme", "skip", "--landmark-times", "2024-05-01T01:00",
                                "--od-output", "{tmp}/od.csv"]),
]


def _bad_input(tmp_path: Path, kind: str | None) -> tuple[Path, list[str]]:
    if kind is None:
        src = tmp_path / "empty.csv"
        src.write_text("")
        return src, SERIES
    if kind == "series":
        return _series(tmp_path / "s.csv"), SERIES
    return _tracks(tmp_path / "t.csv"), TRACK


@pytest.mark.parametrize(("name", "kind", "extra"), BAD, ids=[b[0] for b in BAD])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, name, kind, extra):
    src, base = _bad_input(tmp_path, kind)
    argv = ["aggregate", "--input", str(src), *base, "--epsilon", "1",
            "--output", str(tmp_path / "o.csv")]
    rc, _, err = _run(capsys, *argv, *(x.replace("{tmp}", str(tmp_path)) for x in extra))
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("lmdk: error:")
    assert not (tmp_path / "o.csv").exists() and not (tmp_path / "od.csv").exists()


@pytest.mark.parametrize(("cell", "message"), [
    ("nan", "kwh"), ("lots", "not a finite number"), ("", "missing")])
def test_bad_values_exit_2(tmp_path, capsys, cell, message):
    src = _series(tmp_path / "s.csv")
    text = src.read_text().splitlines()
    first = text[1].split(",")
    first[2] = cell
    text[1] = ",".join(first)
    src.write_text("\n".join(text) + "\n")
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, "--epsilon", "1",
                      "--output", str(tmp_path / "o.csv"))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and message in err


@pytest.mark.parametrize("lat", ["91", "-95.5"])
def test_latitude_out_of_range_exit_2(tmp_path, capsys, lat):
    src = _tracks(tmp_path / "t.csv")
    lines = src.read_text().splitlines()
    parts = lines[3].split(",")
    parts[2] = lat
    lines[3] = ",".join(parts)
    src.write_text("\n".join(lines) + "\n")
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *TRACK, "--epsilon", "1",
                      "--output", str(tmp_path / "o.csv"))
    assert rc == 2 and "out of range" in err and len(err.strip().splitlines()) == 1


def test_dask_path_gives_the_in_process_totals(tmp_path, capsys, monkeypatch):
    """The same table through Dask (forced by a tiny row limit; 1 local worker): the audit's
    true values equal the in-process run's, and a progress line per partition."""
    src = _series(tmp_path / "s.csv", users=6)
    grid = ["--start", "0", "--end", str(48 * 3600)]
    a_out, a_audit = tmp_path / "a.csv", tmp_path / "a_audit.csv"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, *grid,
                      "--epsilon", "1", "--output", str(a_out), "--audit", str(a_audit))
    assert rc == 0, err
    monkeypatch.setattr(aggregate_commands, "IN_PROCESS_ROWS", 10)
    b_out, b_audit = tmp_path / "b.csv", tmp_path / "b_audit.csv"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, *grid,
                      "--epsilon", "1", "--output", str(b_out), "--audit", str(b_audit),
                      "--workers", "1")
    assert rc == 0, err
    assert "partition 1 of" in err
    ta = pd.read_csv(a_audit, comment="#")["true"]
    tb = pd.read_csv(b_audit, comment="#")["true"]
    assert np.allclose(ta, tb)
    assert [x for x in a_out.read_text().splitlines() if x.startswith("#")] == [
        x for x in b_out.read_text().splitlines() if x.startswith("#")]
    assert not list(tmp_path.glob(".lmdk-aggregate-buckets-*"))


def test_declared_matrix_puts_the_leakage_in_the_header(tmp_path, capsys):
    src = _series(tmp_path / "s.csv")
    matrix = tmp_path / "P.csv"
    matrix.write_text("0.9,0.1\n0.2,0.8\n")
    out = tmp_path / "stats.csv"
    rc, stdout, err = _run(capsys, "aggregate", "--input", str(src), *SERIES,
                           "--landmark-col", "flag", "--landmarks-per-user", "2",
                           "--epsilon", "1", "--matrix", str(matrix), "--output", str(out),
                           "--json")
    assert rc == 0, err
    leak = json.loads(stdout)["leakage"]
    assert leak["bound"] and leak["landmark_tpl"] >= leak["max_tpl"] > 0
    head = [x for x in out.read_text().splitlines() if x.startswith("# temporal leakage")]
    assert len(head) == 1 and "landmark TPL at most" in head[0]
    bad = tmp_path / "bad.csv"
    bad.write_text("0.9,0.2\n0.2,0.8\n")
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, "--epsilon", "1",
                      "--matrix", str(bad), "--output", str(tmp_path / "o.csv"))
    assert rc == 2 and len(err.strip().splitlines()) == 1


def test_parquet_in_through_dask_row_groups_and_parquet_out(tmp_path, capsys, monkeypatch):
    """A Parquet table ordered by user (several row groups) goes through the row-group
    partitions of lmdk batch; Parquet out; same totals as in process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = pd.read_csv(_series(tmp_path / "s.csv", users=8))
    src = tmp_path / "s.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), src, row_group_size=96)
    grid = ["--start", "0", "--end", str(48 * 3600)]
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, *grid,
                      "--epsilon", "1", "--output", str(tmp_path / "a.parquet"),
                      "--audit", str(tmp_path / "a_audit.parquet"))
    assert rc == 0, err
    monkeypatch.setattr(aggregate_commands, "IN_PROCESS_ROWS", 10)
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *SERIES, *grid,
                      "--epsilon", "1", "--output", str(tmp_path / "b.parquet"),
                      "--audit", str(tmp_path / "b_audit.parquet"), "--workers", "2")
    assert rc == 0, err
    assert "partition 2 of" in err
    ta = pd.read_parquet(tmp_path / "a_audit.parquet")["true"]
    tb = pd.read_parquet(tmp_path / "b_audit.parquet")["true"]
    assert np.allclose(ta, tb)
    assert list(pd.read_parquet(tmp_path / "b.parquet").columns) == ["window", "released",
                                                                     "low", "high"]


def test_origin_destination_file(tmp_path, capsys):
    src = _tracks(tmp_path / "t.csv")
    od, audit = tmp_path / "od.csv", tmp_path / "audit.csv"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *TRACK,
                      "--bbox", "48.855,2.325,48.885,2.355", "--start", "2024-05-01T00:00",
                      "--end", "2024-05-01T06:00", "--epsilon", "1",
                      "--output", str(tmp_path / "o.csv"), "--od-output", str(od),
                      "--audit", str(audit))
    assert rc == 0, err
    table = pd.read_csv(od, comment="#")
    assert list(table.columns) == ["window", "origin", "destination", "released", "low", "high"]
    cells = pd.read_csv(tmp_path / "o.csv", comment="#")["cell"].nunique()
    assert len(table) == 5 * cells * cells
    assert "split" in od.read_text()
    true = pd.read_csv(tmp_path / "audit.od.csv", comment="#")["true"]
    assert true.sum() > 0 and (audit.with_name("audit.od.csv").stat().st_mode & 0o777) == 0o600


def _note_run(capsys, tmp_path: Path, src: Path, name: str, *extra: str) -> tuple[str, str]:
    out, note = tmp_path / f"{name}_stats.csv", tmp_path / f"{name}_note.html"
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *TRACK,
                      "--landmark-col", "flag", "--landmarks-per-user", "2",
                      "--epsilon", "1", "--output", str(out), "--note", str(note),
                      "--noise", "fast", "--seed", "3", *extra)
    assert rc == 0, err
    head = "\n".join(line for line in out.read_text().splitlines() if line.startswith("#"))
    return note.read_text(), head + "\n" + err


DECLARED = ["--bbox", "48.855,2.325,48.885,2.355",
            "--start", "2024-05-01T00:00", "--end", "2024-05-01T06:00"]


def test_public_note_is_the_same_for_neighbouring_populations(tmp_path, capsys):
    """Two populations that differ in one user's fix (moved to another cell) and in one
    user's landmark flags (0 → 2 landmark windows, within k = 2) give byte-identical
    public notes and headers: both hold public settings and expected errors only."""
    src = _tracks(tmp_path / "a.csv")
    frame = pd.read_csv(src)
    frame.loc[7, ["lat", "lon"]] = [48.884, 2.354]   # one fix moved across the grid
    user = frame["user"] == "p3"
    frame.loc[user, "flag"] = 0
    frame.loc[frame.index[user][:2], "flag"] = 1
    frame.to_csv(tmp_path / "b.csv", index=False)
    note_a, head_a = _note_run(capsys, tmp_path, src, "a", *DECLARED)
    note_b, head_b = _note_run(capsys, tmp_path, tmp_path / "b.csv", "b", *DECLARED)
    assert note_a == note_b and head_a == head_b
    assert "Landmark-private for every user at ε = 1" in note_a
    assert "k = 2" in note_a and "user level" in note_a and "EXPLORATORY" not in head_a


def test_a_grid_read_from_the_data_is_marked_exploratory(tmp_path, capsys):
    src = _tracks(tmp_path / "a.csv")
    note, head = _note_run(capsys, tmp_path, src, "a")
    assert head.startswith("# lmdk aggregate: EXPLORATORY, not publishable")
    assert "Exploratory: not for publication" in note
    assert "declare --start, --end (and --bbox) to publish" in head  # the stderr line


def test_note_must_be_html(tmp_path, capsys):
    src = _tracks(tmp_path / "a.csv")
    rc, _, err = _run(capsys, "aggregate", "--input", str(src), *TRACK, "--epsilon", "1",
                      "--output", str(tmp_path / "o.csv"), "--note", str(tmp_path / "n.txt"))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "must end in .html" in err
