#!/usr/bin/env bash
# Every figure of the exact-noise and population work measured in ONE run, each beside its
# floor or peer, into one dated log (benchmarks/README.md lists what each part prints).
#   benchmarks/run_noise_and_population.sh            # the whole set (about 5-10 min)
#   QUICK=1 benchmarks/run_noise_and_population.sh    # smaller inputs (about 5 min)
# PY picks the interpreter (default: the project's .venv); PEERS the peers' interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
PEERS="${PEERS:-benchmarks/.peers-venv/bin/python}"
export PYTHONPATH="$PWD"
log="benchmarks/results-$(date -u +%Y%m%dT%H%MZ).log"
if [ -n "${QUICK:-}" ]; then
  noise=(--n 200000 --n-planar 20000 --readings 50000 --runs 1)
  batch=(--users 200 --one-row-users 10000 --million-users 100000 --exact-users 50 --repeats 1)
  adaptive=(--max-t 100000 --users 5)
  cli=(--repeat 5)
else
  noise=()
  batch=(--users 1000 --repeats 5)  # the leakage ratio: one batch varies by ±15 %
  adaptive=(--max-t 400000)
  cli=(--repeat 15)  # the fixed costs' medians: one run varies by ±30 % on this machine
fi
{
  echo "== $(date -u +%FT%TZ) $(git rev-parse --short HEAD) — $(uptime)"
  "$PY" benchmarks/bench_noise.py ${noise[@]+"${noise[@]}"} --peers "$PEERS"
  "$PY" benchmarks/bench_adaptive.py --sections curve,exact --kinds series "${adaptive[@]}"
  "$PY" benchmarks/bench_cli.py --fixed "${cli[@]}"
  "$PY" benchmarks/bench_large.py --only engine
  "$PY" benchmarks/bench_batch.py --sections leakage,per_user,million,exact "${batch[@]}"
  echo "== done $(date -u +%FT%TZ) — $(uptime)"
} 2>&1 | tee "$log"
echo "written: $log"
