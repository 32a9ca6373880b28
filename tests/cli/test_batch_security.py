"""Attacks on ``lmdk batch`` and the other writing commands (issue: a batch that can
destroy its input, hang or leave raw rows behind). Every case ends with exit status 2 and
ONE line on stderr, leaves the input unchanged and no scratch folder behind. Inputs are
tiny (a few users, a few rows): the machine's two cores are shared."""

from __future__ import annotations

import hashlib
import http.server
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.foundation.errors import InputError
from lmdk_core.population import cluster as dask_cluster
from lmdk_core.population.in_process import standardise
from lmdk_core.population.streams import user_generator, user_key
from lmdk_core.population.table import MAX_USER_ID_CHARS, PopulationColumns

ROOT = Path(__file__).resolve().parents[2]
COLS = PopulationColumns(user="uid", time="t", value="kwh")


def _population(users: int = 4, rows: int = 6, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)  # data, not noise
    return pd.DataFrame({"uid": np.repeat(np.arange(users), rows),
                         "t": np.tile(np.arange(rows), users),
                         "kwh": rng.normal(10, 1, users * rows).round(3)})


def _files(tmp_path: Path, fmt: str = "csv") -> tuple[Path, Path]:
    src = tmp_path / f"pop.{fmt}"
    df = _population()
    df.to_csv(src, index=False) if fmt == "csv" else df.to_parquet(src)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    return src, cfg


def _digest(path: Path) -> str:
    if path.is_dir():
        return "".join(_digest(p) for p in sorted(path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cli(capsys, argv: list[str]) -> tuple[int, list[str]]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err.strip().splitlines()


def _batch_argv(src, cfg, out, audit, *extra) -> list:
    return ["batch", "--config", cfg, "--input", src, "--user-col", "uid", "--time-col", "t",
            "--value-col", "kwh", "--output", out, "--audit", audit, "--noise", "fast",
            *extra]


def _scratch(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ------------------------------------------------------------ never over the input
@pytest.mark.parametrize("target", ["audit", "output"])
@pytest.mark.parametrize("how", ["same", "hardlink", "symlink", "dotted"])
def test_batch_never_writes_over_its_input(tmp_path, capsys, target, how):
    """`lmdk batch --audit <the input>` once replaced the raw input with the audit."""
    src, cfg = _files(tmp_path)
    before = _digest(src)
    alias = {"same": src, "dotted": tmp_path / "." / "sub" / ".." / src.name,
             "hardlink": tmp_path / "link.csv", "symlink": tmp_path / "sym.csv"}[how]
    (tmp_path / "sub").mkdir()
    if how == "hardlink":
        os.link(src, alias)
    elif how == "symlink":
        alias.symlink_to(src)
    out, audit = tmp_path / "r.csv", tmp_path / "a.csv"
    if target == "audit":
        audit = alias
    else:
        out = alias
    code, err = _cli(capsys, _batch_argv(src, cfg, out, audit))
    assert code == 2 and len(err) == 1 and "never writes over its input" in err[0], err
    assert _digest(src) == before
    assert not (tmp_path / "r.csv").exists() and not (tmp_path / "a.csv").exists()


def test_batch_never_writes_over_its_configuration_or_inside_the_input(tmp_path, capsys):
    src, cfg = _files(tmp_path)
    before = _digest(cfg)
    code, err = _cli(capsys, _batch_argv(src, cfg, tmp_path / "r.csv", cfg))
    assert code == 2 and len(err) == 1 and "--config" in err[0] and _digest(cfg) == before
    # a Parquet folder input: an output inside it, or the folder itself as the output
    folder = tmp_path / "parts.parquet"
    folder.mkdir()
    _population().to_parquet(folder / "part-00000.parquet")
    before = _digest(folder)
    for out, audit in ((folder / "r.parquet", tmp_path / "a.csv"),
                       (folder, tmp_path / "a.csv"),
                       (tmp_path / "r.parquet", folder / "a.csv")):
        code, err = _cli(capsys, _batch_argv(folder, cfg, out, audit))
        assert code == 2 and len(err) == 1, err
        assert _digest(folder) == before
    code, err = _cli(capsys, _batch_argv(src, cfg, tmp_path / "x.csv", tmp_path / "x.csv"))
    assert code == 2 and len(err) == 1 and "same file" in err[0]


@pytest.mark.parametrize("command", ["release", "geo-release", "report"])
def test_other_commands_never_write_over_their_input(tmp_path, capsys, command):
    if command == "release":
        src = tmp_path / "s.csv"
        src.write_text("time,value\n0,1\n1,2\n2,3\n")
        argv = ["release", "--input", src, "--landmarks", "1", "--epsilon", "1"]
    elif command == "geo-release":
        src = tmp_path / "t.csv"
        src.write_text("time,lat,lon\n0,48.85,2.35\n1,48.86,2.35\n2,48.87,2.35\n")
        argv = ["geo-release", "--noise", "fast",
                "--input", src, "--landmarks", "1", "--epsilon", "1",
                "--radius", "100"]
    else:
        src = tmp_path / "view.json"
        src.write_text(config_to_json(ViewConfig()))
        argv = ["report", "--config", src]
    before = _digest(src)
    for flag in ("--output", "--audit") if command != "report" else ("--output",):
        extra = [flag, src] + (["--output", tmp_path / "o.csv"] if flag == "--audit" else [])
        code, err = _cli(capsys, argv + extra)
        assert code == 2 and len(err) == 1 and "never writes over its input" in err[0], err
        assert _digest(src) == before


# ------------------------------------------------------------ --scheduler
@pytest.mark.parametrize("address", ["notaurl", "http://127.0.0.1:8786", "inproc://x",
                                     "tcp://", "tcp://host:99999", "./scheduler.json",
                                     "tcp://h:1/../x"])
def test_scheduler_that_is_not_a_tcp_address_is_one_line(tmp_path, capsys, address):
    src, cfg = _files(tmp_path)
    code, err = _cli(capsys, _batch_argv(src, cfg, tmp_path / "r.csv", tmp_path / "a.csv",
                                         "--scheduler", address))
    assert code == 2 and len(err) == 1 and "not a Dask scheduler address" in err[0], err
    assert _scratch(tmp_path) == []


def test_scheduler_that_never_answers_times_out_with_a_clear_message(tmp_path, capsys,
                                                                      monkeypatch):
    """A plain HTTP server accepts the connection and never answers Dask's handshake:
    `distributed.Client` alone waited 25 minutes. The server here is on 127.0.0.1,
    serves at most a few requests and stops with the test."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # the test's stderr is the command's
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    server.timeout = 1
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              daemon=True)
    thread.start()
    monkeypatch.setattr(dask_cluster, "SCHEDULER_TIMEOUT_S", 1.0)
    try:
        src, cfg = _files(tmp_path)
        code, err = _cli(capsys, _batch_argv(
            src, cfg, tmp_path / "r.csv", tmp_path / "a.csv",
            "--scheduler", f"tcp://127.0.0.1:{server.server_address[1]}"))
    finally:
        server.shutdown()
        server.server_close()
    assert code == 2 and len(err) == 1, err
    assert "did not answer within 1 s" in err[0] or "not as a Dask scheduler" in err[0] \
        or "cannot reach" in err[0]
    assert _scratch(tmp_path) == []


def test_relative_paths_work_with_a_scheduler_whose_workers_run_elsewhere(
        tmp_path, capsys, monkeypatch, cluster):
    """Workers resolve relative paths in their own folder: the driver makes every path
    absolute, so nothing is created in the workers' folder and the batch succeeds."""
    _files(tmp_path, "parquet")
    monkeypatch.chdir(tmp_path)
    code, err = _cli(capsys, _batch_argv("pop.parquet", "view.json", "r.parquet",
                                         "a.parquet", "--scheduler",
                                         cluster.scheduler_address, "--seed", "1"))
    assert code == 0, err
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(_population())
    assert _scratch(tmp_path) == []


# ------------------------------------------------------------ tracebacks
def test_parquet_parts_that_type_the_user_column_differently(tmp_path, capsys):
    folder = tmp_path / "parts.parquet"
    folder.mkdir()
    df = _population()
    df.iloc[:12].to_parquet(folder / "part-0.parquet")
    df.iloc[12:].astype({"uid": str}).to_parquet(folder / "part-1.parquet")
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    code, err = _cli(capsys, _batch_argv(folder, cfg, tmp_path / "r.csv", tmp_path / "a.csv"))
    assert code == 2 and len(err) == 1 and "type column `uid` differently" in err[0], err
    assert "unexpected" not in err[0]


def test_nan_on_the_default_local_cluster_is_one_line_without_worker_traceback(tmp_path):
    """A NaN value fails inside a worker process; its traceback must not reach the
    terminal (a real process: workers write to the inherited stderr)."""
    df = _population(users=2, rows=4)
    df.loc[3, "kwh"] = np.nan
    src = tmp_path / "pop.csv"
    df.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    proc = subprocess.run(
        [sys.executable, "-m", "lmdk_core", *map(str, _batch_argv(
            src, cfg, tmp_path / "r.csv", tmp_path / "a.csv", "--workers", "1"))],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1, proc.stderr
    assert "is missing" in err[0] and "Traceback" not in proc.stderr
    assert _scratch(tmp_path) == []


# ------------------------------------------------------------ long user ids
def test_a_long_user_id_is_refused_and_keys_stay_short():
    long_id = "x" * 1_000_000
    df = pd.DataFrame({"user": [long_id, "b"], "time": [0, 0], "value": [1.0, 2.0]})
    with pytest.raises(InputError, match=f"at most {MAX_USER_ID_CHARS}"):
        standardise(df, PopulationColumns(user="user", time="time", value="value"))
    # the seed derivation hashes the id: a 256-bit key whatever the id's length (building
    # the key from the id's bytes made SeedSequence quadratic in the id length)
    assert user_key(long_id).bit_length() <= 257
    assert user_key(long_id) % 2 == 1 and user_key(7) % 2 == 0
    g1, g2 = user_generator(5, long_id), user_generator(5, long_id + "y")
    assert g1.random() != g2.random()


def test_batch_refuses_a_long_user_id_in_one_line(tmp_path, capsys, cluster):
    df = _population(users=2, rows=3).astype({"uid": str})
    df.loc[0:2, "uid"] = "u" * (MAX_USER_ID_CHARS + 1)
    src = tmp_path / "pop.csv"
    df.to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    code, err = _cli(capsys, _batch_argv(src, cfg, tmp_path / "r.csv", tmp_path / "a.csv",
                                         "--scheduler", cluster.scheduler_address))
    assert code == 2 and len(err) == 1 and f"at most {MAX_USER_ID_CHARS}" in err[0], err
    assert _scratch(tmp_path) == []


# ------------------------------------------------------------ signals
def _start_batch(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    """A batch big enough to be still running when it is signalled (2,000 users of 30
    rows, exact noise, one worker), in its own process group like a terminal job."""
    rng = np.random.default_rng(8)  # data, not noise
    users, rows = 2000, 30
    df = pd.DataFrame({"uid": np.repeat(np.arange(users), rows),
                       "t": np.tile(np.arange(rows), users),
                       "kwh": rng.normal(10, 1, users * rows).round(3)})
    src = tmp_path / "pop.csv"
    df.sample(frac=1.0, random_state=2).to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    argv = [str(a) for a in _batch_argv(src, cfg, tmp_path / "r.parquet",
                                        tmp_path / "a.parquet", "--workers", "1")]
    argv[argv.index("fast")] = "exact"
    proc = subprocess.Popen([sys.executable, "-m", "lmdk_core", *argv], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    return proc, src


def _wait_for_scratch(proc: subprocess.Popen, folder: Path) -> None:
    for _ in range(1200):  # up to 2 minutes on a loaded machine
        if any(n.startswith(".r.parquet.buckets-") and any((folder / n).iterdir())
               for n in _scratch(folder)):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    pytest.fail(f"the batch wrote no scratch rows before it ended: {proc.communicate()}")


@pytest.mark.parametrize("how, status", [("SIGTERM", 143), ("Ctrl-C", 130)])
def test_a_signalled_batch_stops_removes_its_raw_scratch_and_prints_one_line(
        tmp_path, how, status):
    """SIGTERM once left Parquet files of raw rows in hidden folders beside the output;
    Ctrl-C (SIGINT to the whole process group, as a terminal sends it) was ignored twice,
    then ended with a Dask traceback."""
    proc, src = _start_batch(tmp_path)
    before = _digest(src)
    try:
        _wait_for_scratch(proc, tmp_path)
        if how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    lines = err.strip().splitlines()
    assert proc.returncode == status, err
    assert len(lines) == 1 and "temporary files were removed" in lines[0], err
    assert "Traceback" not in err
    assert _scratch(tmp_path) == [], "scratch with raw rows left beside the output"
    assert not (tmp_path / "r.parquet").exists()
    assert _digest(src) == before


# ------------------------------------------------------------ the app's upload
def test_a_parquet_upload_with_too_many_rows_is_refused_from_its_footer(monkeypatch):
    """A 393 kB Parquet file of 30 M rows would peak at 1.6 GB if read before the row
    limit: the row count comes from the footer, before any data is read. (The
    limit is lowered here so that the file stays tiny.)"""
    import io

    from lmdk_core.population import in_process

    buf = io.BytesIO()
    pd.DataFrame({"u": np.zeros(5000, dtype=np.int64), "t": np.arange(5000),
                  "v": np.zeros(5000)}).to_parquet(buf)
    monkeypatch.setattr(in_process, "MAX_APP_ROWS", 1000)
    read = []
    monkeypatch.setattr(pd, "read_parquet", lambda *a, **k: read.append(1))
    with pytest.raises(InputError, match="5,000 rows; the app releases up to 1,000"):
        in_process.read_table_bytes(buf.getvalue(), "big.parquet")
    assert read == []  # refused before reading a single row


# ------------------------------------------------------------ geo-release and GPX times
def _gpx_times(times: list[str]) -> bytes:
    pts = "".join(f'<trkpt lat="{48.85 + i * 1e-4}" lon="2.35"><time>2024-03-05T{t}Z</time>'
                  "</trkpt>" for i, t in enumerate(times))
    return (f'<?xml version="1.0"?><gpx version="1.1" creator="t" '
            f'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>w</name><trkseg>{pts}'
            "</trkseg></trk></gpx>").encode()


@pytest.mark.parametrize("times, said", [
    (["08:00:00", "08:01:00", "08:01:00", "08:03:00"], "lmdk: note: 1 point has the same time"),
    (["08:00:00", "08:01:00", "08:03:00", "08:02:00"], "lmdk: warning: The times go backwards"),
])
def test_geo_release_says_what_it_did_with_repeated_or_backward_gpx_times(
        tmp_path, capsys, times, said):
    """The app warns about such times; geo-release once dropped them silently."""
    src = tmp_path / "t.gpx"
    src.write_bytes(_gpx_times(times))
    code, err = _cli(capsys, ["geo-release", "--noise", "fast", "--input", src, "--landmarks", "1",
                              "--epsilon", "1", "--radius", "100", "--seed", "1",
                              "--output", tmp_path / "o.csv"])
    assert code == 0
    assert any(line.startswith(said) for line in err), err
