"""The ``lmdk`` command starts fast: sub-commands that need no pandas do not import it.

Whole-process start-up times are printed by ``benchmarks/bench_cli.py`` (no wall-clock
assertion here); the deterministic proxy tested here is ``sys.modules``: importing
``lmdk_core.cli``, building the parser and parsing any command line loads none of
pandas, scipy, numba, streamlit or plotly, and running ``loss``, ``leakage``,
``supremum``, ``calibrate``, ``allocate`` and ``check`` on small inputs loads none of
pandas, scipy, numba (its kernels pay only for large matrices and long recursions),
dask, opendp, streamlit or plotly; ``dummies`` and ``compose`` none of these nor pyproj
and gpxpy, and ``release`` / ``attack`` on a small series CSV none of the track
libraries (pyproj, gpxpy), numba or scipy; ``solve-epsilon`` on a 4-row series none of
scipy.stats, numba, OpenDP, plotly or the track libraries; ``report`` on the example
view none of pandas, pyarrow, scipy, plotly, numba (nor the others). numpy is loaded
with one OpenBLAS thread unless the caller chose a count.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tomllib

import pytest

from tests.conftest import ROOT

HEAVY = ("pandas", "scipy", "numba", "llvmlite", "dask", "distributed", "opendp",
         "streamlit", "plotly", "gpxpy", "pyproj")

# One argv per sub-command that must start without pandas (and one per other command,
# which must at least *parse* without it).
FAST_COMMANDS = {
    "loss": ["loss", "--matrix", "{P}", "--alpha", "0.5,1", "--json"],
    "leakage": ["leakage", "--backward", "{P}", "--epsilon", "0.5", "--length", "6",
                "--landmarks", "1,4", "--json"],
    "leakage --allocation": ["leakage", "--backward", "{P}", "--allocation", "{EPS_TABLE}",
                             "--json"],
    "supremum": ["supremum", "--matrix", "{P}", "--epsilon", "0.2", "--json"],
    "calibrate": ["calibrate", "--matrix", "{P}", "--target", "2", "--json"],
    "calibrate --scheme": ["calibrate", "--matrix", "{P}", "--target", "2", "--length", "6",
                           "--landmarks", "1,4", "--scheme", "uniform", "--json"],
    "allocate": ["allocate", "--length", "6", "--landmarks", "1,4", "--epsilon", "1",
                 "--json"],
    "check": ["check", "--allocation", "{EPS}", "--landmarks", "1", "--epsilon", "1",
              "--json"],
    "check (table)": ["check", "--allocation", "{EPS_TABLE}", "--landmarks", "1",
                      "--epsilon", "1", "--json"],
}
PARSE_ONLY = [
    ["release", "--input", "x.csv", "--epsilon", "1"],
    ["geo-release", "--noise", "fast", "--input", "x.gpx", "--epsilon", "1", "--output", "o.csv"],
    ["dummies", "--length", "10", "--epsilon", "1"],
    ["suggest", "--input", "x.csv"],
    ["report", "--config", "c.json", "--output", "r.html"],
    ["explore", "--headless"],
]

_PROBE = textwrap.dedent("""
    import json, sys
    import lmdk_core.cli as cli
    argvs = json.loads(sys.argv[1])
    run = sys.argv[2] == "run"
    parser = cli.build_parser()
    codes = []
    for argv in argvs:
        if run:
            codes.append(cli.main(argv))
        else:
            parser.parse_args(argv)
    heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[3])))
    print(json.dumps({"codes": codes, "heavy": heavy}))
""")


def _probe(argvs: list[list[str]], mode: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argvs), mode, json.dumps(HEAVY)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("startup")
    (d / "P.csv").write_text("0.8,0.2,0\n0.1,0.8,0.1\n0,0.3,0.7\n")
    (d / "eps.csv").write_text("0.5\n0.5\n0.5\n")
    (d / "eps_table.csv").write_text(
        "t,epsilon_t\n0,0.25\n1,0.25\n2,0.25\n3,0.25\n4,0.25\n5,0.25\n")
    return {"P": str(d / "P.csv"), "EPS": str(d / "eps.csv"),
            "EPS_TABLE": str(d / "eps_table.csv")}


def _fill(argv: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) for a in argv]


def test_parsing_every_command_imports_no_heavy_library(files):
    argvs = [_fill(a, files) for a in FAST_COMMANDS.values()] + PARSE_ONLY
    out = _probe(argvs, "parse")
    assert out["heavy"] == [], f"parsing the lmdk command line imported {out['heavy']}"


@pytest.mark.parametrize("name", list(FAST_COMMANDS))
def test_fast_command_runs_without_heavy_libraries(name, files):
    out = _probe([_fill(FAST_COMMANDS[name], files)], "run")
    assert out["codes"] == [0], out
    assert out["heavy"] == [], f"lmdk {name} imported {out['heavy']}"


@pytest.mark.parametrize("argv", [
    ["dummies", "--length", "24", "--landmarks", "3,9", "--epsilon", "1", "--seed", "1",
     "--json"],
    ["compose", "--releases", "52", "--epsilon", "0.5"],
])
def test_commands_without_a_file_skip_pandas_scipy_and_numba(argv):
    """No input file, no table: scipy (needed only for the Planar Laplace quantile),
    pandas and numba stay unloaded."""
    out = _probe([argv], "run")
    assert out["codes"] == [0], out
    loaded = set(out["heavy"]) & {"pandas", "scipy", "numba", "dask", "opendp",
                                  "streamlit", "plotly", "pyproj", "gpxpy"}
    assert not loaded, f"lmdk {argv[0]} imported {sorted(loaded)}"


@pytest.mark.parametrize("argv", [
    ["release", "--input", "{SERIES}", "--landmarks", "3,7", "--epsilon", "1", "--scheme",
     "uniform", "--output", "{OUT}"],
    ["attack", "--input", "{SERIES}", "--landmarks", "3,7", "--epsilon", "1",
     "--sensitivity", "2.9"],
])
def test_series_commands_load_no_track_or_compiled_libraries(argv, tmp_path):
    """A series command on a small CSV reads it with pandas (and release draws with the
    exact sampler's Python reference), but loads neither the track libraries (gpxpy,
    pyproj: imported where a GPX file is parsed or a geodesic is solved) nor numba,
    scipy, dask, streamlit, plotly."""
    series = ROOT / "examples" / "series.csv"
    args = [a.format(SERIES=series, OUT=tmp_path / "r.csv") for a in argv]
    out = _probe([args], "run")
    assert out["codes"] == [0], out
    loaded = set(out["heavy"]) & {"gpxpy", "pyproj", "numba", "llvmlite", "scipy", "dask",
                                  "streamlit", "plotly"}
    assert not loaded, f"lmdk {argv[0]} imported {sorted(loaded)}"


def test_solve_epsilon_loads_only_what_it_computes_with(tmp_path):
    """``solve-epsilon`` on a plain 4-row series loads no heavy library: the file is read
    without pandas (lmdk_core.data.plain_series_csv), Adaptive's Clopper–Pearson
    comparison is decided without scipy (lmdk_core.decision.clopper_pearson), its
    simulated releases run together as arrays (lmdk_core.adaptive.simulations: no
    numba); nor OpenDP, plotly, the track libraries, dask or streamlit."""
    four = tmp_path / "four.csv"
    four.write_text("time,value\n" + "".join(
        f"2024-03-04T0{h}:00:00,{v}\n" for h, v in enumerate((0.31, 0.33, 0.48, 0.44))))
    probe = textwrap.dedent("""
        import json, sys
        from lmdk_core.cli import main
        code = main(sys.argv[1:])
        names = {"scipy", "pandas", "pyarrow", "numba", "llvmlite", "opendp", "plotly",
                 "pyproj", "gpxpy", "dask", "streamlit"}
        print(json.dumps([code, sorted(names & set(sys.modules))]))
    """)
    proc = subprocess.run([sys.executable, "-c", probe, "solve-epsilon", "--input", str(four),
                           "--landmarks", "1", "--within", "0.5", "--sensitivity", "2.9",
                           "--seed", "4"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    code, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert code == 0 and not loaded, f"lmdk solve-epsilon imported {loaded}"


@pytest.mark.parametrize("public", [False, True])
def test_report_loads_only_what_it_computes_with(tmp_path, public):
    """``lmdk report`` (and ``--public``) on the example view loads no heavy library:
    the calibration advice's few landmark-TPL problems take the one-user path
    (lmdk_core.leakage.tpl_many.KERNEL_MIN_PROBLEMS: no numba and its kernels, 0.5–0.9
    s of CPU); the charts are plain plotly JSON drawn as SVG (lmdk_core.report.charts:
    no plotly, narwhals); the tables, the demo's times, the hover labels and the
    landmark baseline's medians are computed without pandas (render.Grid,
    data.demo.demo_series_times, figures.common, landmarks.robust_medians: no pandas,
    pyarrow); the versions are read from the libraries' metadata (no scipy), directly
    (lmdk_core.foundation.installed_versions: no importlib.metadata, email); nor OpenDP,
    the track libraries, dask or streamlit; the parser has only the report's group
    (lmdk_core.cli.build_parser(command): not the other groups' modules, tomllib,
    subprocess); numpy.polynomial loads only for the planar mean's quadrature
    (decision.noise_laws)."""
    probe = textwrap.dedent("""
        import json, sys
        from lmdk_core.cli import main
        code = main(sys.argv[1:])
        names = {"numba", "llvmlite", "pandas", "pyarrow", "scipy", "plotly", "narwhals",
                 "opendp", "pyproj", "gpxpy", "dask", "streamlit", "importlib.metadata",
                 "email", "lmdk_core.cli.explore_command", "lmdk_core.cli.batch_commands",
                 "lmdk_core.cli.choose_commands", "tomllib", "subprocess",
                 "numpy.polynomial"}
        print(json.dumps([code, sorted(names & {m.split(".")[0] for m in sys.modules}
                                       | names & set(sys.modules))]))
    """)
    proc = subprocess.run([sys.executable, "-c", probe, "report", "--config",
                           str(ROOT / "examples" / "lmdk_view.json"), "--output",
                           str(tmp_path / "report.html"), *(["--public"] if public else [])],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    code, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert code == 0 and not loaded, f"lmdk report imported {loaded}"


def test_the_ellipsoid_is_made_on_first_use():
    """Importing the engine's geodesy and Planar Laplace loads no pyproj; the first
    distance does, and ``geodesy.WGS84`` is the solver it uses."""
    probe = textwrap.dedent("""
        import json, sys
        from lmdk_core.foundation import geodesy
        from lmdk_core.mechanisms import planar_laplace  # noqa: F401
        before = "pyproj" in sys.modules
        d = float(geodesy.distance_m(48.85, 2.35, 48.86, 2.35)[()])
        print(json.dumps([before, "pyproj" in sys.modules, d,
                          geodesy.WGS84 is geodesy.wgs84()]))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    before, after, d, same = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not before and after and same
    assert abs(d - 1111.95) < 1.0  # 0.01° of latitude at 48.85° N on WGS84


def test_numba_is_imported_only_where_a_kernel_runs():
    """A 3-state loss function and a short recursion do not load numba, nor does a
    fresh process's 100-state matrix (the exact build finishes before numba would have
    loaded); a 300-state matrix (the pruned build) and a 2,000-step recursion do, and
    then use it."""
    probe = textwrap.dedent("""
        import json, sys
        import numpy as np
        from lmdk_core.leakage import LossFunction, smoothed_matrix, tpl
        small = LossFunction(smoothed_matrix(3, 0.1))
        tpl(np.full(1999, 0.1), small)
        after_small = "numba" in sys.modules
        mid = LossFunction(smoothed_matrix(100, 0.1, "random", seed=1))
        after_mid = "lmdk_core.leakage.kernels" in sys.modules
        tpl(np.full(2000, 0.1), small)
        after_long = "numba" in sys.modules
        big = LossFunction(smoothed_matrix(300, 0.1, "random", seed=1))
        kernels = sys.modules["lmdk_core.leakage.kernels"]
        print(json.dumps([after_small, after_long, mid.stats.pairs_sorted == 100 * 99
                          and not after_mid, big.stats.pairs_sorted < 300 * 299,
                          hasattr(kernels.scan_rows, "py_func")]))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    after_small, after_long, exact_mid, pruned, compiled = json.loads(
        proc.stdout.strip().splitlines()[-1])
    assert not after_small, "a 3-state loss function or a short recursion imported numba"
    assert exact_mid, "a fresh process's 100-state matrix loaded the pruning kernels"
    assert after_long, "a 2,000-step recursion no longer runs compiled"
    assert pruned and compiled, "the 300-state build did not prune with compiled kernels"


def test_importing_the_engine_package_imports_nothing_heavy():
    proc = subprocess.run(
        [sys.executable, "-c",
         "import json, sys, lmdk_core; print(json.dumps(sorted({m.split('.')[0] "
         "for m in sys.modules})))"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert not loaded & {"numpy", *HEAVY}, loaded & {"numpy", *HEAVY}


def test_version_is_the_projects_and_loads_nothing_heavy(monkeypatch):
    """``lmdk --version`` prints pyproject.toml's version (the installed metadata's, or the
    source tree's fallback ``<version>+src``), exits 0 and loads none of the heavy
    libraries; the fallback follows pyproject.toml too."""
    import importlib.metadata

    import lmdk_core

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    probe = textwrap.dedent("""
        import json, sys
        from lmdk_core.cli import main
        try:
            main(["--version"])
        except SystemExit as stop:
            code = stop.code
        print(json.dumps([code, sorted({m.split(".")[0] for m in sys.modules})]))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    printed, last = proc.stdout.strip().splitlines()
    assert printed in (f"lmdk {declared}", f"lmdk {declared}+src"), printed
    code, loaded = json.loads(last)
    assert code in (0, None) and not set(loaded) & set(HEAVY), (code, set(loaded) & set(HEAVY))

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    from lmdk_core.foundation import installed_versions

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    # the direct read of the metadata finds nothing either
    monkeypatch.setattr(installed_versions, "_plain_version", lambda name: None)
    monkeypatch.setitem(vars(lmdk_core), "__version__", "cached")  # undone after the test
    monkeypatch.delitem(vars(lmdk_core), "__version__")
    assert lmdk_core.__version__ == f"{declared}+src"


def test_parser_choices_and_defaults_match_the_engine():
    """dummy_commands spells out the engine's choices and defaults so that the parser
    does not import the engine; they must stay equal."""
    from lmdk_core import dummies
    from lmdk_core.cli import dummy_commands as dc
    from lmdk_core.landmarks import discovery

    assert tuple(dc.METHODS) == tuple(dummies.METHODS)
    assert tuple(dc.METRICS) == tuple(dummies.METRICS)
    assert dc.DEFAULT_STAY_DISTANCE_M == discovery.DEFAULT_STAY_DISTANCE_M
    assert dc.DEFAULT_STAY_MINUTES == discovery.DEFAULT_STAY_MINUTES
    assert dc.DEFAULT_DEVIATION_WINDOW == discovery.DEFAULT_DEVIATION_WINDOW
    assert dc.DEFAULT_DEVIATION_K == discovery.DEFAULT_DEVIATION_K
    assert dc.DEFAULT_MAX_SUGGESTED_EVENTS == discovery.DEFAULT_MAX_SUGGESTED_EVENTS


@pytest.mark.parametrize("argv", [
    ["allocate", "--length", "5", "--landmarks", "1,3", "--epsilon", "1", "--json"],
    ["allocate", "--length", "5", "--landmarks", "1", "--epsilon", "1", "--scheme", "event"],
    ["check", "--allocation", "{EPS}", "--landmarks", "0,1,2", "--epsilon", "1"],
    ["check", "--allocation", "no-such-file.csv", "--epsilon", "1"],
    ["loss", "--matrix", "{P}", "--alpha", "-1"],
    ["allocate", "--length", "5", "--epsilon", "1", "--scheme", "nope"],
    ["--version"],
    [],
])
def test_in_process_runner_matches_a_real_process(argv, files, monkeypatch):
    """``run_cli`` (used by the CLI tests) runs ``main`` in the test process; it must
    give the same exit status, stdout and stderr as a real ``python -m lmdk_core``."""
    from tests import conftest

    args = _fill(argv, files)
    monkeypatch.setattr(conftest, "CLI_SUBPROCESS", False)
    fast = conftest.run_cli(*args)
    monkeypatch.setattr(conftest, "CLI_SUBPROCESS", True)
    real = conftest.run_cli(*args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        real.returncode, real.stdout, real.stderr)


def test_a_real_process_reports_bad_input_on_one_line():
    from tests.conftest import assert_clean_error

    proc = subprocess.run([sys.executable, "-m", "lmdk_core", "check", "--allocation",
                           "no-such-file.csv", "--epsilon", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert_clean_error(proc, "no such file")


_BLAS_PROBE = textwrap.dedent("""
    import ctypes, json, os, sys
    if sys.argv[1] == "lmdk":
        from lmdk_core.cli import main
        code = main(["allocate", "--length", "6", "--landmarks", "1,4", "--epsilon", "1"])
    else:
        import numpy
        code = 0
    libs = [line.split()[-1] for line in open("/proc/self/maps")
            if "openblas" in line.lower() and ".so" in line.split()[-1]]
    threads = None
    if libs:
        lib = ctypes.CDLL(libs[0])
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):
            if hasattr(lib, name):
                threads = getattr(lib, name)()
                break
    print(json.dumps([code, threads, os.environ.get("OPENBLAS_NUM_THREADS")]))
""")


def _blas_threads(kind: str, env: dict[str, str]) -> list:
    proc = subprocess.run([sys.executable, "-c", _BLAS_PROBE, kind], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_command_loads_numpy_with_one_blas_thread_and_leaves_the_environment():
    """``lmdk`` loads numpy with OpenBLAS limited to one thread (its worker threads'
    start-up cost ``import numpy`` 0.07 s of CPU on the 2-core machine:
    lmdk_core.cli._load_numpy_with_one_blas_thread), and removes the variable again (a
    process the command starts gets the caller's environment); a thread count the
    caller chose is kept."""
    import os

    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    code, threads, left = _blas_threads("lmdk", env)
    if threads is None:
        pytest.skip("numpy's BLAS here is not OpenBLAS")
    assert (code, threads, left) == (0, 1, None)
    chosen = {**env, "OPENBLAS_NUM_THREADS": "2"}
    plain_numpy = _blas_threads("numpy", chosen)
    assert _blas_threads("lmdk", chosen) == [0, plain_numpy[1], "2"]


def _subcommands(parser) -> dict:
    import argparse

    return next(a for a in parser._actions
                if isinstance(a, argparse._SubParsersAction)).choices


def test_the_command_groups_table_is_what_the_groups_register():
    """lmdk_core.cli.COMMAND_GROUPS (which module to import for a command) names each
    group's commands, in the full parser's order."""
    import argparse
    import importlib

    from lmdk_core.cli import COMMAND_GROUPS, build_parser

    for module, commands in COMMAND_GROUPS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"lmdk_core.cli.{module}").register(sub)
        assert tuple(sub.choices) == commands, module
    assert list(_subcommands(build_parser())) == [c for cs in COMMAND_GROUPS.values()
                                                  for c in cs]


@pytest.mark.parametrize("argv, command", [
    (["report", "--config", "c.json"], "report"), (["--debug", "loss", "--help"], "loss"),
    (["--help"], None), (["--version"], None), (["-h", "report"], None),
    (["--deb", "report"], None), (["reprot"], None), ([], None), (["--debug"], None),
])
def test_requested_command(argv, command):
    from lmdk_core.cli import requested_command

    assert requested_command(argv) == command


def test_one_commands_parser_parses_and_helps_as_the_full_parser(files):
    """``build_parser(command)`` registers only that command's group: every command line
    of these tests parses to the same namespace, and each command's help and usage
    errors read the same, as with the full parser."""
    from lmdk_core.cli import COMMAND_GROUPS, build_parser
    from lmdk_core.foundation.errors import InputError

    full = build_parser()
    lines = [_fill(a, files) for a in FAST_COMMANDS.values()] + PARSE_ONLY
    for argv in lines:
        one = build_parser(argv[0])
        assert list(_subcommands(one)) == next(list(cs) for cs in COMMAND_GROUPS.values()
                                               if argv[0] in cs)
        assert vars(one.parse_args(argv)) == vars(full.parse_args(argv)), argv
    for command in (c for cs in COMMAND_GROUPS.values() for c in cs):
        one = build_parser(command)
        assert _subcommands(one)[command].format_help() == \
            _subcommands(full)[command].format_help()
        for bad in ([command, "--no-such-option"], [command, "--debug", "x", "--json=1"]):
            messages = []
            for parser in (one, full):
                try:
                    parser.parse_args(bad)
                    messages.append(None)
                except InputError as exc:
                    messages.append(str(exc))
            assert messages[0] == messages[1], bad
