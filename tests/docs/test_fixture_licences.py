"""The real test fixtures (tests/data/real/) carry their own licences — the GeoLife
trajectories are for non-commercial research use only — so they are said to be outside
the MIT licence and are never shipped: not in the wheel (packaging configuration) and not
in the source distribution (MANIFEST.in, and an sdist built from a copy of the tree)."""

from __future__ import annotations

import fnmatch
import os
import runpy
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "data" / "real"
GEOLIFE = [*sorted((REAL / "geolife").glob("*")), REAL / "gps" / "geolife-003-3days.plt",
           REAL / "gps" / "geolife-user004-recordings.gpx",
           REAL / "gps" / "movingpandas-geolife-semicolon.csv",
           REAL / "geolife-multiuser" / "geolife-11users-per-minute.csv"]


def test_the_licence_texts_say_the_fixtures_are_not_mit():
    readme = (REAL / "README.md").read_text(encoding="utf-8")
    assert "lead should confirm" not in readme
    assert "not covered by the project's MIT licence" in readme
    assert "non-commercial research use only" in readme
    for name in ("LICENSE", "README.md"):
        text = " ".join((ROOT / name).read_text(encoding="utf-8").split())
        assert "tests/data/real/" in text and "non-commercial research use only" in text, name
    assert all(p.exists() for p in GEOLIFE)  # kept as test data


def _package_files() -> list[Path]:
    """Every file the wheel takes from the packages of pyproject.toml and the app's files
    that setup.py copies into it."""
    from setuptools import find_namespace_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    st = conf["tool"]["setuptools"]
    packages = find_namespace_packages(str(ROOT), include=st["packages"]["find"]["include"])
    assert packages and not any(p.startswith("tests") for p in packages)
    files = []
    for pkg in packages:
        folder = ROOT.joinpath(*pkg.split("."))
        patterns = ["*.py", *st.get("package-data", {}).get(pkg, [])]
        for here, _dirs, names in os.walk(folder, followlinks=True):
            for name in names:
                path = Path(here) / name
                rel = path.relative_to(folder).as_posix()
                if any(fnmatch.fnmatch(rel, p) for p in patterns):
                    files.append(path.resolve())
    setup_py = runpy.run_path(str(ROOT / "setup.py"), run_name="listing")  # builds nothing
    files += [src.resolve() for src, _ in setup_py["app_files"]()]
    return files


def test_the_wheel_takes_nothing_from_the_fixtures():
    files = _package_files()
    assert any(f.name == "cerknicko-jezero.gpx" for f in files)  # the walk sees data files
    inside = [f for f in files if REAL.resolve() in f.parents]
    assert not inside, inside


def _tree_copy(dst: Path) -> Path:
    """The tracked files of the checkout (what a release is built from), in ``dst``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_symlink():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), dst / name)
        elif src.is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    return dst


def test_the_sdist_leaves_the_fixtures_out(tmp_path):
    """Build the source distribution from a copy of the tracked files with setuptools'
    own backend. setuptools older than 77 cannot read the SPDX licence string of
    pyproject.toml (PEP 639); the copy then spells it as the older ``{text = ...}`` table,
    which changes the metadata only, not which files go in."""
    assert "prune tests/data/real" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to list the tracked files")
    tree = _tree_copy(tmp_path / "tree")
    import setuptools

    if int(setuptools.__version__.split(".")[0]) < 77:
        conf = tree / "pyproject.toml"
        conf.write_text(conf.read_text(encoding="utf-8").replace(
            'license = "MIT"', 'license = {text = "MIT"}'), encoding="utf-8")
    code = ("import sys; from setuptools import build_meta as b; "
            "print(b.build_sdist(sys.argv[1]))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dist")], cwd=tree,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    name = proc.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / "dist" / name) as tar:
        names = tar.getnames()
    assert any(n.endswith("lmdk_core/__init__.py") for n in names)
    assert not [n for n in names if "tests/data/real" in n or "geolife" in n.lower()]
