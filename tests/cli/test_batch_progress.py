"""``lmdk batch``'s progress line (lmdk_core/cli/batch_progress.py): shown with
``--progress`` (or on a terminal), a line per finished partition with the users released,
nothing on a redirected stderr without the option."""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd

from lmdk_core.cli import main
from lmdk_core.cli.batch_progress import BatchProgress
from lmdk_core.files.config import ViewConfig, config_to_json


def _files(tmp_path):
    src = tmp_path / "pop.csv"
    pd.DataFrame({"uid": np.arange(7), "t": np.zeros(7, dtype=int),
                  "kwh": np.arange(7) / 3}).to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    return src, cfg


def _batch(tmp_path, *extra):
    src, cfg = _files(tmp_path)
    return main(["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
                 "--time-col", "t", "--value-col", "kwh", "--output",
                 str(tmp_path / "out.csv"), "--audit", str(tmp_path / "audit.csv"),
                 "--noise", "fast", "--workers", "1", *extra])


def test_progress_option_prints_partitions_and_users(tmp_path, capsys):
    assert _batch(tmp_path, "--progress") == 0
    err = capsys.readouterr().err
    last = [ln for ln in err.splitlines() if ln.startswith("lmdk: batch: ")][-1]
    assert " of " in last and "7 users released" in last and "s elapsed" in last


def test_no_progress_on_a_redirected_stderr(tmp_path, capsys):
    assert _batch(tmp_path) == 0
    assert "lmdk: batch:" not in capsys.readouterr().err


def test_heartbeat_repeats_the_line_while_nothing_finishes():
    """The heartbeat prints the line without a finished partition (polled, no timing
    asserted), then the partition's line follows."""
    out = io.StringIO()
    with BatchProgress(out, heartbeat_s=0.01) as p:
        for _ in range(3000):  # up to 30 s on a loaded machine
            if out.getvalue():
                break
            time.sleep(0.01)
        p.partition_done(1, 3, 1000)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("lmdk: batch: starting (")
    assert lines[-1].startswith("lmdk: batch: 1 of 3 partitions, 1,000 users released (")
