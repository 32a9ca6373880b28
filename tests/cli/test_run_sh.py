"""`./run.sh` names the Python it needs and the one it found, and stops (exit 2) before
creating a virtual environment with an interpreter that cannot install the explorer."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="run.sh is a bash script")

FAKE_PY310 = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "Python 3.10.12"; exit 0; fi
# any `python3 -c "…version_info < (3, 11)…"` check: answer as a 3.10 would (exit 1)
exit 1
"""


def _bin_without_python(tmp_path: Path) -> Path:
    """A PATH folder with the few tools run.sh needs and no python."""
    b = tmp_path / "bin"
    b.mkdir()
    for tool in ("bash", "sh", "dirname", "cat", "cksum", "id", "env"):
        found = shutil.which(tool)
        assert found, tool
        (b / tool).symlink_to(found)
    return b


def _run(tmp_path: Path, bindir: Path) -> subprocess.CompletedProcess:
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(ROOT / "run.sh", work)
    shutil.copy(ROOT / "pyproject.toml", work)
    env = {"PATH": str(bindir), "HOME": str(tmp_path)}
    return subprocess.run([str(bindir / "bash"), "./run.sh", "app"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=60)


def test_run_sh_names_the_python_it_needs_and_the_one_it_found(tmp_path):
    bindir = _bin_without_python(tmp_path)
    fake = bindir / "python3"
    fake.write_text(FAKE_PY310)
    fake.chmod(0o755)
    proc = _run(tmp_path, bindir)
    assert proc.returncode == 2, proc.stderr
    assert "needs Python >= 3.11" in proc.stderr
    assert "found Python 3.10.12" in proc.stderr
    assert not (tmp_path / "repo" / ".venv").exists()


def test_run_sh_without_any_python(tmp_path):
    proc = _run(tmp_path, _bin_without_python(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "needs Python >= 3.11" in proc.stderr
    assert "found no python3" in proc.stderr


def test_declared_python_matches_run_sh():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    text = (ROOT / "run.sh").read_text()
    assert "NEED_MAJOR=3" in text and "NEED_MINOR=11" in text
    assert "Python 3.11 or newer" in (ROOT / "README.md").read_text()


FAKE_VENV_PY = """#!/bin/sh
# a virtualenv's python that answers run.sh's version and pip checks, records each
# `-m` module it runs, and makes `-m mypy` pass or fail as MYPY_EXIT says
case "$1" in
  -c) exit 0 ;;
  -m) echo "$2" >> "$(dirname "$0")/../ran"; [ "$2" = mypy ] && exit "$MYPY_EXIT"; exit 0 ;;
esac
exit 0
"""


@pytest.mark.skipif(not Path("/usr/bin/chromium").is_file(),
                    reason="run.sh test would install chromium")
@pytest.mark.parametrize("mypy_exit", [0, 1])
def test_run_sh_test_type_checks_before_the_tests(tmp_path, mypy_exit):
    """`./run.sh test` runs mypy after ruff and before pytest; a mypy error fails the run
    and no test starts."""
    bindir = _bin_without_python(tmp_path)
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(ROOT / "run.sh", work)
    shutil.copy(ROOT / "pyproject.toml", work)
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    for name, text in (("python", FAKE_VENV_PY), ("ruff", "#!/bin/sh\nexit 0\n")):
        (venv_bin / name).write_text(text)
        (venv_bin / name).chmod(0o755)
    # the stamp of an up-to-date install: run.sh skips pip
    stamp = subprocess.run(["cksum"], input=(work / "pyproject.toml").read_bytes(),
                           capture_output=True, check=True).stdout
    (tmp_path / "venv" / ".lmdk-installed-test").write_bytes(stamp)
    env = {"PATH": str(bindir), "HOME": str(tmp_path), "LMDK_VENV": str(tmp_path / "venv"),
           "MYPY_EXIT": str(mypy_exit)}
    proc = subprocess.run([str(bindir / "bash"), "./run.sh", "test"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=60)
    ran = (tmp_path / "venv" / "ran").read_text().split()
    if mypy_exit:
        assert proc.returncode != 0
        assert ran == ["mypy"]
    else:
        assert proc.returncode == 0, proc.stderr
        assert ran == ["mypy", "pytest"]
