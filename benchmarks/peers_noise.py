"""CPU µs per Laplace value of the peers, run in their own virtual environment.

The peers are not dependencies of this project (PipelineDP pins its own python-dp;
diffprivlib 0.6 needs scikit-learn < 1.7), so ``bench_noise.py`` runs this script with the
Python of a separate virtual environment (``benchmarks/README.md`` says how to make it)
and reads one JSON line from it:

* **python-dp** (Google's differential-privacy library, C++ behind Python):
  ``LaplaceMechanism(ε, Δf).add_noise(x)``, one call per value (it has no vector call);
* **diffprivlib** (IBM, Holohan et al. 2019): ``mechanisms.Laplace(epsilon, sensitivity)
  .randomise(x)``, one call per value (its mechanisms take one value);
* **PipelineDP** (Google / OpenMined): ``dp_computations.LaplaceMechanism
  .create_from_epsilon(ε, Δf).add_noise(x)``, one call per value, as its aggregations
  call it.

Each is timed over ``n`` values (ε = 1, Δf = 1, x = 0), the least CPU time of 3 runs
(``time.process_time``: what other processes on a shared machine do not add to). A peer
that is not installed is reported as missing, with its import error.

    PEERS/bin/python benchmarks/peers_noise.py [N]
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable
from importlib import metadata


def least_cpu(draw: Callable[[float], float], n: int, runs: int = 3) -> float:
    """Least CPU µs per value of ``runs`` loops of ``n`` calls of ``draw``."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        for _ in range(n):
            draw(0.0)
        best = min(best, time.process_time() - t0)
    return best / n * 1e6


def python_dp() -> Callable[[float], float]:
    from pydp._pydp import _mechanisms  # the public LaplaceMechanism of python-dp

    return _mechanisms.LaplaceMechanism(1.0, 1.0).add_noise


def diffprivlib() -> Callable[[float], float]:
    from diffprivlib.mechanisms import Laplace

    return Laplace(epsilon=1.0, sensitivity=1.0).randomise


def pipeline_dp() -> Callable[[float], float]:
    from pipeline_dp import dp_computations

    return dp_computations.LaplaceMechanism.create_from_epsilon(1.0, 1.0).add_noise


PEERS = {"python-dp": ("python-dp", python_dp), "diffprivlib": ("diffprivlib", diffprivlib),
         "PipelineDP": ("pipeline-dp", pipeline_dp)}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    out: dict[str, dict] = {"python": platform.python_version(), "n": n, "peers": {}}
    for name, (dist, make) in PEERS.items():
        try:
            draw = make()
            version = metadata.version(dist)
        except Exception as exc:  # noqa: BLE001 - a missing peer is reported, not fatal
            out["peers"][name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        out["peers"][name] = {"version": version, "us_per_value": least_cpu(draw, n)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
