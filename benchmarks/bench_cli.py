"""Start-up time of the ``lmdk`` command: the whole process, from exec to exit.

Run: python benchmarks/bench_cli.py [--repeat 15]

Each command is run ``repeat`` times as a fresh process (the installed ``lmdk`` console
script next to this interpreter, else ``python -m lmdk_core``); the table gives the
best, median and worst wall time, and the same for a bare ``python -c pass`` and
``python -c "import numpy"`` as the floor on this machine. The target is ≤ 0.3 s for
the sub-commands that need no pandas. The 1-minute load average is printed too:
on a shared machine it explains slow runs.
"""

from __future__ import annotations

import argparse
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
        "lmdk dummies (pandas, scipy)": [*lmdk, "dummies", "--length", "24", "--landmarks",
                                         "3,9", "--epsilon", "1", "--seed", "1", "--json"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cmds = _commands(Path(tmp))
        for argv in cmds.values():  # warm the file cache once
            subprocess.run(argv, capture_output=True, check=True)
        print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
              f"{args.repeat} runs each")
        print(f"{'command':32} {'best s':>7} {'median s':>9} {'worst s':>8}")
        for name, argv in cmds.items():
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                subprocess.run(argv, capture_output=True, check=True)
                times.append(time.perf_counter() - t0)
            print(f"{name:32} {min(times):7.3f} {statistics.median(times):9.3f} "
                  f"{max(times):8.3f}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
