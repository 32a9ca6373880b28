"""Check the declared lower bounds of the dependencies: install exactly the minimum
version of every dependency of ``pyproject.toml`` (``name>=X`` becomes ``name==X``) in a
fresh virtual environment, then run the documented CLI examples and the engine tests
there.

Not part of the default test run (it downloads about 1 GB from the package index and
takes several minutes). Run it whenever a lower bound changes:

    .venv/bin/python benchmarks/check_lower_bounds.py [--keep DIR] [--all] [-n 2]

``--all`` also runs the app's AppTest tests (not the browser tests). Exit status 0 when
everything passes at the minimum versions, 1 when a test fails, 2 when the minimum
versions cannot be installed together (pip's message says which bound is wrong).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: test files that need no Streamlit server, browser or package build: the engine, the
#: CLI and the documented command lines
_NOT_ENGINE = re.compile(r"^test_(explore_install|run_sh)")
#: the test folders of those layers (tests/app and tests/browser need the app or chromium)
_LAYERS = ("engine", "cli", "docs")
#: the test tools the tests need (playwright and ruff are not used here)
_TEST_TOOLS = ("pytest", "pytest-xdist", "hypothesis")


def minimum_pins(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """``name[extras]==X`` for every ``name[extras]>=X`` runtime dependency and test tool."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    specs += [s for s in project["optional-dependencies"]["test"]
              if re.split(r"[<>=\[ ;]", s, maxsplit=1)[0] in _TEST_TOOLS]
    pins = []
    for spec in specs:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+(?:\[[^\]]*\])?)\s*>=\s*([^,;\s]+)\s*", spec)
        if not m:
            raise SystemExit(f"check_lower_bounds: no plain lower bound in {spec!r}")
        pins.append(f"{m.group(1)}=={m.group(2)}")
    return pins


def engine_tests() -> list[str]:
    """The engine and CLI test files (relative paths)."""
    return sorted(f"tests/{layer}/{p.name}" for layer in _LAYERS
                  for p in (ROOT / "tests" / layer).glob("test_*.py")
                  if not _NOT_ENGINE.match(p.name))


def _step(title: str, cmd: list[str], **kw) -> int:
    print(f"\n== {title}\n$ {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    code = subprocess.call(cmd, **kw)
    print(f"== {title}: exit {code} after {time.monotonic() - t0:.0f} s", flush=True)
    return code


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--keep", type=Path, default=None,
                    help="create (or reuse) the virtual environment in this folder and keep "
                         "it; default: a temporary folder, removed at the end")
    ap.add_argument("--all", action="store_true",
                    help="also run the app's AppTest tests (not the browser tests)")
    ap.add_argument("-n", "--jobs", default="0",
                    help="pytest-xdist workers for the tests (0: one process)")
    args = ap.parse_args(argv)

    pins = minimum_pins()
    print("minimum versions:", " ".join(pins))
    with tempfile.TemporaryDirectory(prefix="lmdk-lower-bounds-") as tmp:
        env_dir = args.keep or Path(tmp) / "venv"
        py = env_dir / "bin" / "python"
        if not py.exists():
            code = _step("virtual environment", [sys.executable, "-m", "venv", str(env_dir)])
            if code:
                return 2
        pip = [str(py), "-m", "pip", "--disable-pip-version-check"]
        if _step("minimum versions", [*pip, "install", "-q", *pins]):
            print("check_lower_bounds: the declared minimum versions cannot be installed "
                  "together (see pip's message above)", file=sys.stderr)
            return 2
        if _step("the package (no dependencies)",
                 [*pip, "install", "-q", "--no-deps", "-e", str(ROOT)]):
            return 2
        _step("installed versions", [*pip, "freeze"])
        files = engine_tests()
        if args.all:
            files += sorted(f"tests/{p.name}" for p in (ROOT / "tests").glob("test_app_*.py"))
            files.append("tests/app/test_population_app.py")
        cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", args.jobs,
               "-m", "not browser and not slow", *files]
        code = _step("engine, CLI and documented commands at the minimum versions", cmd,
                     cwd=ROOT)
        return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
