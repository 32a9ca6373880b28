"""Start-up time of the ``lmdk`` command: the whole process, from exec to exit.

Run: python benchmarks/bench_cli.py [--repeat 15] [--all] [--fixed] [--loss-curve]

Each command is run ``repeat`` times as a fresh process (the installed ``lmdk`` console
script next to this interpreter, else ``python -m lmdk_core``); the table gives the
best, median and worst wall time, the same for a bare ``python -c pass`` and
``python -c "import numpy"`` as the floor on this machine, and each command's median
over ``python -c pass`` ("over python"), in wall time and in CPU time (user + system of
the process: on a loaded machine the CPU figures move less than the wall times), with
the best CPU time beside the median. The commands run round robin (each once per
round), so a slow spell of the shared host slows every row alike; a fixed pure-Python
loop among them shows how much the host alone moves a CPU time. The
target is ≤ 0.3 s over python for the small-input sub-commands that need no pandas
(loss, leakage, supremum, calibrate, allocate, check on a 3-state matrix and a short
allocation). ``--all`` adds the commands that read a CSV or GPX file (release,
geo-release, solve-epsilon, attack, suggest, compose) on the small files of
``examples/``. The last column names the heavy libraries each command imports. The
1-minute load average is printed too: on a shared machine it explains slow runs. The
commands run with bytecode written and reused, as an installed package's are (with
``PYTHONDONTWRITEBYTECODE`` set, under a temporary ``PYTHONPYCACHEPREFIX``).
``--fixed`` prints only the floor and the fixed costs of issue 39 (``solve-epsilon`` on a
4-row file, ``report`` on the example view — each beside its target of 0.5 s CPU —
``lmdk loss`` at 48–300 states);
``--loss-curve`` the exact and pruned builds' cost per size behind the loss function's
choice of build (docs/performance.md, "Fixed costs").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _lmdk() -> list[str]:
    script = Path(sys.executable).with_name("lmdk")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lmdk_core"]


def _commands(d: Path) -> dict[str, list[str]]:
    p, eps = d / "P.csv", d / "eps.csv"
    p.write_text("0.8,0.2,0\n0.1,0.8,0.1\n0,0.3,0.7\n")
    eps.write_text("0.5\n0.5\n0.5\n")
    lmdk = _lmdk()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        REFERENCE: [sys.executable, "-c", "sum(range(10_000_000))"],
        "lmdk --help": [*lmdk, "--help"],
        "lmdk loss": [*lmdk, "loss", "--matrix", str(p), "--alpha", "1", "--json"],
        "lmdk leakage": [*lmdk, "leakage", "--backward", str(p), "--epsilon", "0.5",
                         "--length", "24", "--landmarks", "3,9", "--json"],
        "lmdk supremum": [*lmdk, "supremum", "--matrix", str(p), "--epsilon", "0.2",
                          "--json"],
        "lmdk calibrate": [*lmdk, "calibrate", "--matrix", str(p), "--target", "2",
                           "--json"],
        "lmdk allocate": [*lmdk, "allocate", "--length", "24", "--landmarks", "3,9",
                          "--epsilon", "1", "--json"],
        "lmdk check": [*lmdk, "check", "--allocation", str(eps), "--landmarks", "1",
                       "--epsilon", "1", "--json"],
        "lmdk dummies": [*lmdk, "dummies", "--length", "24", "--landmarks", "3,9",
                         "--epsilon", "1", "--seed", "1", "--json"],
    }


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _file_commands(d: Path) -> dict[str, list[str]]:
    """Commands that read the small example files (168-row series, 296-point track)."""
    lmdk = _lmdk()
    series, track = str(EXAMPLES / "series.csv"), str(EXAMPLES / "track.gpx")
    return {
        "lmdk compose": [*lmdk, "compose", "--releases", "52", "--epsilon", "0.5"],
        "lmdk release (168 rows)": [*lmdk, "release", "--input", series, "--landmarks",
                                    "3,7", "--epsilon", "1", "--scheme", "uniform",
                                    "--output", str(d / "r.csv")],
        "lmdk geo-release (296 points)": [*lmdk, "geo-release", "--input", track,
                                          "--landmarks", "0,215", "--epsilon", "1",
                                          "--output", str(d / "g.csv")],
        "lmdk solve-epsilon (168 rows)": [*lmdk, "solve-epsilon", "--input", series,
                                          "--landmarks", "3,7", "--within", "0.5",
                                          "--probability", "0.9", "--sensitivity", "2.9"],
        "lmdk attack (168 rows)": [*lmdk, "attack", "--input", series, "--landmarks", "3,7",
                                   "--epsilon", "1", "--sensitivity", "2.9"],
        "lmdk suggest (296 points)": [*lmdk, "suggest", "--input", track, "--json"],
    }


def _fixed_cost_commands(d: Path) -> dict[str, list[str]]:
    """Issue 39's fixed costs: ``solve-epsilon`` on a 4-row file (8,000 simulated
    Adaptive releases: 1,000 per ε, 8 ε), ``report`` on the example view, and ``lmdk
    loss`` on Dirichlet(1) matrices around the old fixed numba threshold (48 states)
    and up to where the pruned build pays in a fresh process (~250 states)."""
    lmdk = _lmdk()
    four = d / "four.csv"
    four.write_text("time,value\n" + "".join(
        f"2024-03-04T0{h}:00:00,{v}\n" for h, v in enumerate((0.31, 0.33, 0.48, 0.44))))
    cmds = {
        "lmdk solve-epsilon (4 rows)": [*lmdk, "solve-epsilon", "--input", str(four),
                                        "--landmarks", "1", "--within", "0.5",
                                        "--sensitivity", "2.9", "--seed", "4"],
        "lmdk report (example view)": [*lmdk, "report", "--config",
                                       str(EXAMPLES / "lmdk_view.json"), "--output",
                                       str(d / "report.html")],
    }
    import numpy as np

    for n in LOSS_STATES:
        m = d / f"P{n}.csv"
        P = np.random.default_rng(n).dirichlet(np.ones(n), n)
        np.savetxt(m, P / P.sum(axis=1, keepdims=True), delimiter=",", fmt="%.17g")
        cmds[f"lmdk loss ({n} states)"] = [*lmdk, "loss", "--matrix", str(m), "--alpha",
                                           "1", "--json"]
    return cmds


#: a fixed amount of pure-Python work: its CPU time over the rounds shows how much the
#: shared machine itself moves the figures
REFERENCE = "python: 10⁷ additions"

#: issue 39's targets, CPU seconds of the whole process (printed beside the rows)
TARGETS = {"lmdk solve-epsilon (4 rows)": 0.5, "lmdk report (example view)": 0.5}

#: matrix sizes of the ``--fixed`` rows of ``lmdk loss``
LOSS_STATES = (48, 50, 100, 200, 256, 300)


def loss_curve(sizes=(16, 32, 48, 56, 64, 96, 128, 192, 256, 320)) -> None:
    """In one process, numba's kernels loaded first: seconds of the exact and the
    pruned build of ``L_P`` per size (best of 2, Dirichlet(1) and Dirichlet(0.1) rows),
    and numba's import and the kernels' first load in a fresh process — the measurements
    behind ``lmdk_core.leakage.loss._prune_pays``."""
    probe = ("import time, numpy as np\n"
             "t0 = time.perf_counter(); import numba; t1 = time.perf_counter()\n"
             "from lmdk_core.leakage import LossFunction\n"
             "P = np.random.default_rng(0).dirichlet(np.ones(60), 60)\n"
             "t2 = time.perf_counter(); LossFunction(P, prune=True); t3 = time.perf_counter()\n"
             "LossFunction(P, prune=True); t4 = time.perf_counter()\n"
             "print(f'{t1 - t0:.3f} {(t3 - t2) - (t4 - t3):.3f}')\n")
    imp, load = subprocess.run([sys.executable, "-c", probe], capture_output=True,
                               text=True, check=True).stdout.split()
    print(f"fresh process: numba import {imp} s, pruning kernels' first load {load} s")
    import numpy as np

    from lmdk_core.leakage import LossFunction

    rng = np.random.default_rng(0)
    LossFunction(rng.dirichlet(np.ones(60), 60), prune=True)  # kernels loaded

    def best(P, prune):
        out = []
        for _ in range(2):
            t0 = time.perf_counter()
            LossFunction(P, prune=prune)
            out.append(time.perf_counter() - t0)
        return min(out)

    print(f"{'n':>4} {'rows':14} {'exact ms':>9} {'pruned ms':>10} {'exact/n³ ns':>12} "
          f"{'pruned/n³ ns':>13}")
    for n in sizes:
        for name, alpha in (("Dirichlet(1)", 1.0), ("Dirichlet(0.1)", 0.1)):
            P = rng.dirichlet(np.full(n, alpha), n)
            e, p = best(P, False), best(P, True)
            print(f"{n:4d} {name:14} {e * 1e3:9.2f} {p * 1e3:10.2f} {e / n**3 * 1e9:12.1f} "
                  f"{p / n**3 * 1e9:13.1f}")


HEAVY = ("numba", "scipy", "pandas", "pyarrow", "dask", "opendp", "plotly", "gpxpy",
         "pyproj", "streamlit")
_PROBE = ("import sys, json\n"
          "from lmdk_core.cli import main\n"
          "try:\n    main(sys.argv[2:])\nexcept SystemExit:\n    pass\n"
          "heavy = {m.split('.')[0] for m in sys.modules} & set(json.loads(sys.argv[1]))\n"
          "print(json.dumps(sorted(heavy)), file=sys.stderr)\n")


def _heavy(argv: list[str]) -> str:
    """The heavy libraries the command imports (run once more through ``main``)."""
    if argv[0] == sys.executable:
        return ""
    args = argv[1:] if Path(argv[0]).name == "lmdk" else argv[3:]
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(HEAVY), *args],
                          capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    return ", ".join(json.loads(lines[-1])) if lines else "?"


def _child_env(tmp: Path) -> dict[str, str]:
    """The commands' environment: with ``PYTHONDONTWRITEBYTECODE`` set, every run would
    compile the package's modules from source (0.3–0.4 s for ``report``), which an
    installed package never does (pip writes the bytecode); so the children write and
    reuse bytecode under ``tmp`` instead (the warm-up run fills it)."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (less sensitive than
    wall time to other load on a shared machine)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--all", action="store_true",
                    help="also the commands that read the example CSV / GPX files")
    ap.add_argument("--fixed", action="store_true",
                    help="only the floor and issue 39's fixed costs: solve-epsilon on 4 "
                         "rows, report, lmdk loss at 48–300 states")
    ap.add_argument("--loss-curve", action="store_true",
                    help="only the exact and pruned builds' cost per matrix size")
    args = ap.parse_args()
    if args.loss_curve:
        print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        loss_curve()
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        cmds = _commands(Path(tmp))
        if args.fixed:
            cmds = {k: cmds[k] for k in list(cmds)[:3]}
            cmds.update(_fixed_cost_commands(Path(tmp)))
        if args.all:
            cmds.update(_file_commands(Path(tmp)))
        env = _child_env(Path(tmp))
        for argv in cmds.values():  # warm the file cache (and the bytecode) once
            subprocess.run(argv, capture_output=True, check=True, env=env)
        print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
              f"{args.repeat} runs each")
        print(f"{'command':32} {'best s':>7} {'median s':>9} {'worst s':>8} "
              f"{'over python':>12} {'cpu s':>6} {'best cpu':>9} {'cpu over':>9}  "
              f"heavy imports")
        times: dict[str, list[float]] = {name: [] for name in cmds}
        cpus: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.repeat):  # round robin: the host's drift hits every row alike
            for name, argv in cmds.items():
                c0 = _children_cpu()
                t0 = time.perf_counter()
                subprocess.run(argv, capture_output=True, check=True, env=env)
                times[name].append(time.perf_counter() - t0)
                cpus[name].append(_children_cpu() - c0)
        floor = cpu_floor = None
        for name, argv in cmds.items():
            med, cpu = statistics.median(times[name]), statistics.median(cpus[name])
            if floor is None:  # the first row: python -c pass
                floor, cpu_floor = med, cpu
            target = (f"  [target ≤ {TARGETS[name]} s CPU: "
                      f"{'met' if cpu <= TARGETS[name] else 'NOT met'}]"
                      if name in TARGETS else "")
            print(f"{name:32} {min(times[name]):7.3f} {med:9.3f} {max(times[name]):8.3f} "
                  f"{med - floor:12.3f} {cpu:6.3f} {min(cpus[name]):9.3f} "
                  f"{cpu - cpu_floor:9.3f}  {_heavy(argv)}{target}")
        spread = cpus[REFERENCE]
        print(f"the machine's own spread: '{REFERENCE}' took {min(spread):.3f}–"
              f"{max(spread):.3f} s of CPU over the same rounds (the same work every time)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
