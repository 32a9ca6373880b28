"""Inputs not ordered by user: whole users gathered through buckets on local disk
(lmdk_core.population.buckets), released on a real 2-worker dask LocalCluster."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import lmdk_core.population.buckets as buckets
from lmdk_core.cli import main
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.population.buckets import (
    Buckets,
    bucket_ids,
    parquet_units,
    plan_units,
    read_bucket,
    scatter_units,
)
from lmdk_core.population.dask_driver import run_batch
from lmdk_core.population.row_groups import row_group_plan
from lmdk_core.population.table import PopulationColumns

SEED = 4321
COLS = PopulationColumns(user="uid", time="t", value="kwh", landmark="event")


def _population(users=30, T=100, seed=9):
    rng = np.random.default_rng(seed)  # data generator, not the release noise
    rows = []
    for u in range(users):
        n = int(rng.integers(T // 2, T))
        lm = rng.random(n) < 0.04
        lm[0] = u % 4 == 0
        rows.append(pd.DataFrame({"uid": f"meter-{u:03d}", "t": np.arange(n) * 3600,
                                  "kwh": 5 + np.cumsum(rng.normal(0, 1, n)), "event": lm}))
    return pd.concat(rows, ignore_index=True)  # ordered by user, then time


def _release(path):
    return pd.read_parquet(path).sort_values(["user", "time"], ignore_index=True)


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_unordered_input_gives_the_release_of_the_ordered_input(tmp_path, cluster, scheme):
    """Same data, same seed: ordered Parquet (cut along row groups), shuffled Parquet
    and shuffled CSV (both through the buckets) release exactly the same values."""
    df = _population()
    ordered = tmp_path / "ordered.parquet"
    df.to_parquet(ordered, row_group_size=150)
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    unordered = tmp_path / "unordered.parquet"
    shuffled.to_parquet(unordered, row_group_size=150)
    csv = tmp_path / "unordered.csv"
    shuffled.to_csv(csv, index=False)
    assert row_group_plan(ordered, "uid", 600) is not None
    assert row_group_plan(unordered, "uid", 600) is None
    cfg = ViewConfig(scheme=scheme, epsilon=1.0)
    outs = {}
    for name, src in (("ordered", ordered), ("unordered", unordered), ("csv", csv)):
        out = tmp_path / f"r_{name}.parquet"
        res = run_batch(cfg, src, COLS, out, tmp_path / f"a_{name}.parquet", seed=SEED,
                        noise="fast", scheduler=cluster.scheduler_address,
                        rows_per_partition=600)
        assert res.partitions > 1 and res.workers == 2 and res.not_private == 0
        assert res.rows == len(df) and res.users == 30
        outs[name] = _release(out)
        # the scratch buckets are gone; only the output and the audits remain
        assert not [p for p in tmp_path.iterdir() if ".buckets-" in p.name or ".tmp-" in
                    p.name]
    pd.testing.assert_frame_equal(outs["ordered"], outs["unordered"])
    pd.testing.assert_frame_equal(outs["ordered"], outs["csv"])
    audit_o = pd.read_parquet(tmp_path / "a_ordered.parquet")
    audit_u = pd.read_parquet(tmp_path / "a_unordered.parquet")
    pd.testing.assert_frame_equal(audit_o, audit_u)


def test_release_does_not_depend_on_workers_or_bucket_count(tmp_path, cluster):
    df = _population(users=20).sample(frac=1.0, random_state=5)
    src = tmp_path / "pop.parquet"
    df.to_parquet(src, row_group_size=111)
    cfg = ViewConfig(scheme="adaptive", epsilon=1.0)
    outs = []
    for i, kw in enumerate([dict(scheduler=cluster.scheduler_address, rows_per_partition=300),
                            dict(scheduler=cluster.scheduler_address,
                                 rows_per_partition=10**7),
                            dict(workers=1, rows_per_partition=700)]):
        res = run_batch(cfg, src, COLS, tmp_path / f"r{i}.parquet", tmp_path / f"a{i}.parquet",
                        seed=SEED, noise="fast", **kw)
        outs.append((res.partitions, _release(tmp_path / f"r{i}.parquet")))
    assert len({p for p, _ in outs}) == 3  # three different cuts into buckets
    for _, out in outs[1:]:
        pd.testing.assert_frame_equal(outs[0][1], out)


def test_scatter_keeps_every_row_and_puts_each_user_in_one_bucket(tmp_path, monkeypatch):
    df = _population(users=25).sample(frac=1.0, random_state=1)
    src = tmp_path / "pop.parquet"
    df.to_parquet(src, row_group_size=400)
    monkeypatch.setattr(buckets, "BATCH_ROWS", 97)  # several record batches per row group
    units = parquet_units(src)
    spans = plan_units(units, 900)
    assert len(spans) > 1
    root = tmp_path / "b"
    counts: dict[int, int] = {}
    for i, (lo, hi) in enumerate(spans):
        target = Buckets("uid", COLS.needed(), 4, str(root))
        for b, n in scatter_units(units, lo, hi, i, target).items():
            counts[b] = counts.get(b, 0) + n
    expect = pd.Series(bucket_ids(df["uid"], 4)).value_counts().to_dict()
    assert counts == expect
    seen = []
    for b in sorted(counts):
        part = read_bucket(root / f"b{b:05d}")
        assert len(part) == counts[b]
        assert set(bucket_ids(part["uid"], 4)) == {b}
        # the batches were appended as row groups of at most BATCH_ROWS rows
        files = list((root / f"b{b:05d}").glob("*.parquet"))
        assert max(pq.ParquetFile(f).metadata.num_row_groups for f in files) > 1
        seen.append(part)
    back = pd.concat(seen).sort_values(["uid", "t"], ignore_index=True)
    pd.testing.assert_frame_equal(back, df.sort_values(["uid", "t"], ignore_index=True))


def test_bucket_of_a_user_is_the_same_in_another_process():
    ids = ["meter-001", "é", "", "x" * 200, "42"]
    nums = [0, 1, -7, 2**40]
    here = [bucket_ids(ids, 13).tolist(), bucket_ids(np.array(nums, dtype=np.int64), 13).tolist()]
    code = ("import json, numpy as np; from lmdk_core.population.buckets import bucket_ids; "
            f"print(json.dumps([bucket_ids({ids!r}, 13).tolist(), "
            f"bucket_ids(np.array({nums!r}, dtype=np.int64), 13).tolist()]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "random", "PATH": ""})
    assert json.loads(out.stdout) == here
    # a user's bucket does not depend on the other users of the chunk
    assert bucket_ids(ids[:1], 13).tolist() == here[0][:1]


def test_unreadable_csv_is_one_line_exit_2(tmp_path, cluster, capsys):
    src = tmp_path / "pop.csv"
    src.write_text('uid,t,kwh\na,1,2.0\nb,2,"3.0\n')  # a quote never closed
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    code = main(["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
                 "--time-col", "t", "--value-col", "kwh", "--output", str(tmp_path / "o.csv"),
                 "--audit", str(tmp_path / "a.csv"), "--scheduler", cluster.scheduler_address,
                 "--noise", "fast"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lmdk: error: cannot read"), err
    assert "as CSV: " in err[0] and "EOF" in err[0]
    assert not (tmp_path / "o.csv").exists()
    assert not [p for p in tmp_path.iterdir() if ".buckets-" in p.name]
