"""Every file the tool writes goes through :mod:`lmdk_core.files.atomic_write`: written
whole or not at all, a link at the destination replaced (its target untouched),
CONFIDENTIAL files 0600, scratch folders 0700 (issue: ``lmdk batch --audit`` followed a
symbolic link and overwrote its target; the audit and the raw-row scratch folders were
0644 / 0755)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from lmdk_core.files.atomic_write import (
    AtomicFile,
    private_folder,
    public_file_mode,
    replace_folder,
    write_atomically,
)
from lmdk_core.population.buckets import Buckets, read_bucket, scatter_frame

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def umask_000():
    """The most permissive umask: modes must not depend on it."""
    old = os.umask(0)
    yield
    os.umask(old)


@pytest.mark.parametrize("confidential", [True, False])
def test_a_link_at_the_destination_is_replaced_and_its_target_untouched(tmp_path,
                                                                          confidential):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "audit.csv"
    link.symlink_to(victim)
    write_atomically(link, "raw,data\n", confidential=confidential)
    assert victim.read_text() == "precious"
    assert not link.is_symlink() and link.read_text() == "raw,data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.csv", "victim.txt"]


def test_a_dangling_link_is_replaced_not_followed(tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    write_atomically(link, b"x", confidential=True)
    assert not (tmp_path / "elsewhere.csv").exists() and link.read_bytes() == b"x"


def test_confidential_files_are_0600_and_public_ones_follow_the_umask(tmp_path, umask_000):
    write_atomically(tmp_path / "audit.csv", "secret", confidential=True)
    write_atomically(tmp_path / "release.csv", "public", confidential=False)
    assert _mode(tmp_path / "audit.csv") == 0o600
    assert _mode(tmp_path / "release.csv") == 0o666 == public_file_mode()
    os.umask(0o022)
    write_atomically(tmp_path / "release.csv", "public", confidential=False)
    assert _mode(tmp_path / "release.csv") == 0o644


def test_an_existing_public_file_rewritten_as_confidential_becomes_0600(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("old")
    path.chmod(0o644)
    write_atomically(path, "new", confidential=True)
    assert _mode(path) == 0o600 and path.read_text() == "new"


def test_an_error_mid_write_leaves_the_earlier_file_and_no_temporary(tmp_path):
    path = tmp_path / "audit.csv"
    path.write_text("earlier, complete")
    with pytest.raises(RuntimeError), AtomicFile(path, "w", confidential=True) as fh:
        fh.write("half of the ")
        raise RuntimeError("disk full")
    assert path.read_text() == "earlier, complete"
    assert [p.name for p in tmp_path.iterdir()] == ["audit.csv"]


def test_a_process_killed_mid_write_leaves_no_partial_file(tmp_path):
    """SIGKILL between two writes: no ``finally`` runs, yet the destination holds the
    earlier file whole (the half-written bytes are only in a ``.part`` file)."""
    path = tmp_path / "audit.csv"
    path.write_text("earlier, complete")
    code = ("import os, signal, sys\n"
            "from lmdk_core.files.atomic_write import AtomicFile\n"
            "f = AtomicFile(sys.argv[1], 'w', confidential=True)\n"
            "f.file.write('half of the new audit'); f.file.flush()\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT)
    assert proc.returncode == -9
    assert path.read_text() == "earlier, complete"
    leftovers = [p for p in tmp_path.iterdir() if p.name != "audit.csv"]
    assert [p.name for p in leftovers] and all(
        re.fullmatch(r"\.audit\.csv\..+\.part", p.name) and _mode(p) == 0o600
        for p in leftovers)


def test_scratch_folders_are_0700_whatever_the_umask(tmp_path, umask_000):
    assert _mode(private_folder(tmp_path / "scratch")) == 0o700
    with pytest.raises(FileExistsError):
        private_folder(tmp_path / "scratch")
    (tmp_path / "real").mkdir()
    (tmp_path / "planted").symlink_to(tmp_path / "real", target_is_directory=True)
    with pytest.raises(FileExistsError):
        private_folder(tmp_path / "planted", exist_ok=True)


def test_raw_rows_scattered_to_buckets_are_0600_in_0700_folders(tmp_path, umask_000):
    root = private_folder(tmp_path / ".out.buckets-x")
    frame = pd.DataFrame({"u": ["a", "b", "c", "d"], "t": ["1", "2", "3", "4"]})
    rows = scatter_frame(frame, 0, Buckets("u", ["u", "t"], 3, str(root)))
    assert sum(rows.values()) == 4
    folders = sorted(root.iterdir())
    assert folders and all(_mode(f) == 0o700 for f in folders)
    files = [p for f in folders for p in f.iterdir()]
    assert files and all(_mode(p) == 0o600 and not p.name.startswith(".") for p in files)
    assert sorted(pd.concat([read_bucket(f) for f in folders])["u"]) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("earlier", ["folder", "file", "link"])
def test_replace_folder_publishes_and_never_touches_a_links_target(tmp_path, earlier):
    new = private_folder(tmp_path / ".out.tmp-x")
    (new / "part-00000.csv").write_text("new")
    dest = tmp_path / "out.parquet"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep")
    if earlier == "folder":
        dest.mkdir()
        (dest / "part-00000.csv").write_text("old")
    elif earlier == "file":
        dest.write_text("old")
    else:
        dest.symlink_to(victim, target_is_directory=True)
    replace_folder(new, dest)
    assert not dest.is_symlink() and (dest / "part-00000.csv").read_text() == "new"
    assert (victim / "keep.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet", "victim"]


_WRITER = re.compile(r"\bopen\(|\.write_text\(|\.write_bytes\(|\.to_csv\(|\.to_parquet\(|"
                     r"\.mkdir\(|mkdtemp\(|mkstemp\(|write_table\(|ParquetWriter\(|"
                     r"os\.replace\(|os\.rename\(|json\.dump\(")
#: the lines allowed to match :data:`_WRITER` outside atomic_write.py: reads, writes into
#: an in-memory buffer, and writes into an AtomicFile's open file object
_ALLOWED = (re.compile(r"open\([^)]*\"rb\"\)|open\(p, encoding=\"utf-8\"\)"),  # reading
            re.compile(r"to_(csv|parquet)\((buf|fh)?,? ?index=False"),  # buffer / AtomicFile
            re.compile(r"write_table\(table\.replace_schema_metadata\(meta\), fh\)"),
            re.compile(r"ParquetWriter\(sink\.file"),
            re.compile(r"\]\[0\]\.write_table\(table\)"),
            re.compile(r"os\.open\(os\.devnull"))


def test_no_writer_in_lmdk_core_bypasses_atomic_write():
    """A grep over the engine and the app: every file or folder it creates goes through
    :mod:`lmdk_core.files.atomic_write` (fails on a new ``Path.write_text`` or
    ``open(..., "w")`` elsewhere)."""
    found = []
    sources = [p for d in ("lmdk_core", "lmdk_app", "app_support", "app_pages")
               for p in (ROOT / d).rglob("*.py")]
    for src in sorted(sources + [ROOT / "app.py"]):
        if src.name == "atomic_write.py":
            continue
        for no, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _WRITER.search(code) and not any(a.search(code) for a in _ALLOWED):
                found.append(f"{src.relative_to(ROOT)}:{no}: {line.strip()}")
    assert found == []
