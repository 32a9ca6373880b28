"""The writing commands never write through a symbolic link, and their CONFIDENTIAL files
and scratch folders are their owner's only (issue: ``lmdk batch --audit link`` overwrote
the link's target with the audit; the audit was 0644 and the raw-row scratch folders
0755). A link at an output path is **replaced** by the new file: the file it pointed to
is untouched (:mod:`lmdk_core.files.atomic_write`). Inputs are tiny."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk_core.cli import main
from lmdk_core.files.config import ViewConfig, config_to_json
from lmdk_core.population import dask_driver


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _victim(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A file someone else's link points to (e.g. ~/.bashrc), and its digest."""
    victim = tmp_path / name
    victim.write_text("# someone's precious file\n")
    return victim, _digest(victim)


def _link(tmp_path: Path, name: str, target: Path) -> Path:
    link = tmp_path / name
    link.symlink_to(target)
    return link


def _population_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(5)  # data, not noise
    src = tmp_path / "pop.csv"
    pd.DataFrame({"uid": np.repeat(np.arange(3), 5), "t": np.tile(np.arange(5), 3),
                  "kwh": rng.normal(10, 1, 15).round(3)}).to_csv(src, index=False)
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    return src, cfg


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_batch_replaces_links_at_audit_and_output_and_keeps_the_audit_private(
        tmp_path, capsys, monkeypatch, fmt):
    src, cfg = _population_files(tmp_path)
    victim_a, before_a = _victim(tmp_path, "victim_a.txt")
    victim_o, before_o = _victim(tmp_path, "victim_o.txt")
    audit = _link(tmp_path, f"audit.{fmt}", victim_a)
    out = _link(tmp_path, f"released.{fmt}", victim_o)
    scratch_modes: dict[str, int] = {}
    collect = dask_driver.collect_partitions

    def spy(futures, progress, *users_of):  # the scratch folders while the workers run
        scratch_modes.update({p.name: _mode(p) for p in tmp_path.iterdir()
                              if p.name.startswith(".")})
        return collect(futures, progress, *users_of)

    monkeypatch.setattr(dask_driver, "collect_partitions", spy)
    old = os.umask(0)  # the most permissive umask: the modes must not depend on it
    try:
        code = main(["batch", "--config", str(cfg), "--input", str(src), "--user-col", "uid",
                     "--time-col", "t", "--value-col", "kwh", "--output", str(out),
                     "--audit", str(audit), "--noise", "fast", "--workers", "1"])
    finally:
        os.umask(old)
    assert code == 0, capsys.readouterr().err
    assert _digest(victim_a) == before_a and _digest(victim_o) == before_o
    assert not audit.is_symlink() and _mode(audit) == 0o600
    assert not out.is_symlink()
    assert any(n.startswith(".released.") and ".tmp-" in n for n in scratch_modes)
    assert any(".buckets-" in n for n in scratch_modes)
    assert set(scratch_modes.values()) == {0o700}, scratch_modes
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def _release_argv(tmp_path: Path, command: str) -> list[str]:
    if command == "release":
        src = tmp_path / "s.csv"
        src.write_text("time,value\n0,1\n1,2\n2,3\n3,2\n")
        return ["release", "--input", str(src), "--landmarks", "1", "--epsilon", "1",
                "--sensitivity", "2", "--scheme", "event"]
    src = tmp_path / "t.csv"
    src.write_text("time,lat,lon\n0,48.85,2.35\n1,48.86,2.35\n2,48.87,2.35\n")
    return ["geo-release", "--noise", "fast",
            "--input", str(src), "--landmarks", "1", "--epsilon", "1",
            "--radius", "100", "--scheme", "event"]


@pytest.mark.parametrize("command", ["release", "geo-release"])
@pytest.mark.parametrize("ext", ["csv", "geojson"])
def test_release_commands_replace_links_and_write_the_audit_0600(tmp_path, capsys,
                                                                  command, ext):
    if command == "release" and ext == "geojson":
        pytest.skip("a series release is CSV only")
    victim_a, before_a = _victim(tmp_path, "victim_a.txt")
    victim_o, before_o = _victim(tmp_path, "victim_o.txt")
    audit = _link(tmp_path, f"audit.{ext}", victim_a)
    out = _link(tmp_path, f"out.{ext}", victim_o)
    code = main(_release_argv(tmp_path, command) + ["--output", str(out),
                                                    "--audit", str(audit)])
    assert code == 0, capsys.readouterr().err
    assert _digest(victim_a) == before_a and _digest(victim_o) == before_o
    assert not audit.is_symlink() and _mode(audit) == 0o600
    assert not out.is_symlink() and _mode(out) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("public", [False, True])
def test_report_replaces_a_link_and_the_internal_report_is_0600(tmp_path, capsys, public):
    cfg = tmp_path / "view.json"
    cfg.write_text(config_to_json(ViewConfig()))
    victim, before = _victim(tmp_path, "victim.html")
    out = _link(tmp_path, "report.html", victim)
    code = main(["report", "--config", str(cfg), "--output", str(out)]
                + (["--public"] if public else []))
    assert code == 0, capsys.readouterr().err
    assert _digest(victim) == before and not out.is_symlink()
    assert _mode(out) == (0o666 & ~_umask() if public else 0o600)
