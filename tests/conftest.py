"""Shared test helpers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new random examples on every developer run (that is how the
# subnormal d(S) case of the supremum was found); the test command of CI and the README
# (./run.sh test) loads the "ci" profile instead, so that a run on a clean clone is
# reproducible: the same examples every time, found failures shown, none hidden.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("LMDK_HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parents[1]
#: the test process's own main module: an ``AppTest.from_function`` run leaves its
#: temporary script as ``__main__``, and a worker process that multiprocessing spawns
#: later (a Dask ``LocalCluster``) would re-run that script and die
_MAIN_MODULE = sys.modules.get("__main__")
ASSETS = ROOT / "assets"
ARTIFACTS = ROOT / "tests" / "artifacts"


#: ``LMDK_CLI_SUBPROCESS=1`` runs every ``run_cli`` call as a real ``python -m lmdk_core``
#: process (slower: each one imports the engine again, 1-3 s on this machine).
CLI_SUBPROCESS = os.environ.get("LMDK_CLI_SUBPROCESS", "") not in ("", "0")

# warnings a fresh interpreter does not print (its default filters ignore them)
_SILENT_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                    ResourceWarning)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``lmdk ARGS`` and capture its exit status, stdout and stderr.

    By default the command runs in this process: ``lmdk_core.cli.main`` is exactly what
    the console script calls, with stdout/stderr captured, ``SystemExit`` (``--help``,
    ``--version``) turned into the exit status and every warning that a fresh interpreter
    would print written to stderr, so the "one line on stderr" checks see it. Real
    processes: ``LMDK_CLI_SUBPROCESS=1``, ``explore`` (it replaces its process), and
    tests/cli/test_cli_startup.py, which runs the console entry point in subprocesses.
    """
    argv = [sys.executable, "-m", "lmdk_core", *args]
    if CLI_SUBPROCESS or (args and args[0] == "explore"):
        return subprocess.run(argv, capture_output=True, text=True, cwd=cwd or ROOT,
                              timeout=120)
    import contextlib
    import io
    import warnings

    from lmdk_core.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            os.chdir(cwd or ROOT)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exc:  # what the interpreter does with it
                    if isinstance(exc.code, str):
                        print(exc.code, file=err)
                    code = exc.code if isinstance(exc.code, int) else (exc.code is not None)
        finally:
            os.chdir(old_cwd)
    for w in caught:
        if not issubclass(w.category, _SILENT_WARNINGS):
            err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno,
                                             w.line))
    return subprocess.CompletedProcess(argv, int(code), out.getvalue(), err.getvalue())


def assert_clean_error(proc: subprocess.CompletedProcess, fragment: str = "") -> None:
    """Exit 2, exactly one line on stderr, no traceback, optional fragment in it."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("lmdk: error:"), lines[0]
    assert fragment.lower() in lines[0].lower(), (fragment, lines[0])


def open_page(page: str, timeout: float = 90):
    """An AppTest of the whole app (entry point, navigation, sidebar) switched to
    ``app_pages/<page>.py``, checked to have run without an exception."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def _charts(at, key_part: str | None = None) -> list[tuple[str, object]]:
    """The chart elements of an AppTest page, in page order, as (kind, proto)."""
    found: list[tuple[str, object]] = []

    def walk(node) -> None:
        kind = getattr(node, "type", None)
        proto = getattr(node, "proto", None)
        if key_part is None or key_part in str(getattr(proto, "id", "")):
            if kind == "plotly_chart" or (kind == "bidi_component"
                                          and proto.component_name == "lmdk.live_chart"):
                found.append((kind, proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def chart_specs(at, key_part: str | None = None) -> list[dict]:
    """The plotly figures drawn on an AppTest page, in page order, each as its JSON
    dict: those of the live chart component (:mod:`app_support.live_chart`) and of any
    ``st.plotly_chart``; with ``key_part``, only the charts whose element id contains it."""
    return [json.loads(proto.spec) if kind == "plotly_chart"
            else json.loads(json.loads(proto.json)["figure"])
            for kind, proto in _charts(at, key_part)]


def chart_configs(at) -> list[dict]:
    """The plotly configuration (toolbar) of every live chart on an AppTest page."""
    return [json.loads(proto.json)["config"] for kind, proto in _charts(at)
            if kind == "bidi_component"]


def metric(at, label: str) -> str:
    """The value of the st.metric with this label on an AppTest page."""
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def cluster():
    """A real ``dask.distributed.LocalCluster`` with 2 worker processes (the population
    tests), one per test module."""
    from dask.distributed import LocalCluster

    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                     dashboard_address="127.0.0.1:0", silence_logs=40)
    yield c
    c.close()


@pytest.fixture(autouse=True)
def _restore_main_module():
    """Put the test process's main module back after every test (see
    :data:`_MAIN_MODULE`), so that the order of the test files does not matter."""
    yield
    if _MAIN_MODULE is not None and sys.modules.get("__main__") is not _MAIN_MODULE:
        sys.modules["__main__"] = _MAIN_MODULE


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def app_url():
    """``streamlit run app.py`` on a free port, started once per test process and shared
    by all its browser tests: one server in a plain run, one per pytest-xdist worker that
    draws a browser test. (Grouping every browser test on one worker with ``--dist
    loadgroup`` does not work with pytest 9.2: pytest-xdist issue #1386.)"""
    from tests.browser import require_chromium, streamlit_server

    require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with streamlit_server(ROOT) as url:
        yield url


@pytest.fixture
def page(app_url):
    """A headless chromium page (1500×1400) on Debian's chromium; any JavaScript error
    on the page fails the test."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1500, "height": 1400})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, errors


#: the code whose coverage ``./run.sh test`` reports (pyproject.toml: [tool.coverage.run])
COVERED = ("lmdk_core", "app_support", "app_pages")


def _package_of(path: Path) -> str:
    """``lmdk_core/engine`` for a module of a subpackage, else the top-level folder."""
    parts = path.relative_to(ROOT).parts
    return "/".join(parts[:2]) if parts[0] == "lmdk_core" and len(parts) > 2 else parts[0]


def pytest_terminal_summary(terminalreporter, config):
    """With ``--cov`` (``./run.sh test``): line coverage per package and in total, from
    the data pytest-cov has combined (also over pytest-xdist's workers). Files no test
    imported count with all their lines missed."""
    if not config.getoption("cov_source", None) or hasattr(config, "workerinput"):
        return
    import coverage
    from coverage.exceptions import NoDataError, NoSource

    cov = coverage.Coverage(config_file=str(ROOT / "pyproject.toml"))
    try:
        cov.load()
    except NoDataError:
        return
    totals: dict[str, list[int]] = {}
    for folder in COVERED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            try:
                _, statements, _, missing, _ = cov.analysis2(str(path))
            except NoSource:
                continue
            row = totals.setdefault(_package_of(path), [0, 0])
            row[0] += len(statements)
            row[1] += len(missing)
    if not totals:
        return
    tr = terminalreporter
    tr.write_sep("-", "line coverage by package")
    width = max(map(len, totals))

    def row(name: str, n: int, missed: int) -> str:
        return f"{name:<{width}}  {n:>6}  {missed:>6}  {100 * (n - missed) / max(n, 1):>5.1f}%"

    tr.write_line(f"{'package':<{width}}  {'lines':>6}  {'missed':>6}  {'cover':>6}")
    for name, (n, missed) in sorted(totals.items()):
        tr.write_line(row(name, n, missed))
    tr.write_line(row("TOTAL", sum(r[0] for r in totals.values()),
                      sum(r[1] for r in totals.values())))
