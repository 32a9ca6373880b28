"""Rewrite the golden outputs of tests/cli/test_golden_outputs.py (tests/data/golden/).

Run this only when an output changes on purpose, and say in the commit message which
output changed and why (CONTRIBUTING.md):

    PYTHONPATH=. python benchmarks/regenerate_golden.py            # every case
    PYTHONPATH=. python benchmarks/regenerate_golden.py cli_report  # some cases
    PYTHONPATH=. python benchmarks/regenerate_golden.py --check     # compare only

Each case runs a CLI command or a page download's engine function with fixed seeds
(tests/golden_cases.py); the normalised texts are stored gzipped, one JSON object of
{output name: text} per case.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.golden_cases import (  # noqa: E402 - after the path set-up
    CASES,
    Context,
    compare_texts,
    read_golden,
    run_case,
    write_golden,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help=f"case names (default: all {len(CASES)})")
    ap.add_argument("--check", action="store_true",
                    help="compare with the stored golden data instead of writing it")
    args = ap.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    ctx = Context(work=Path("."))
    failed = 0
    try:
        for name in args.cases or list(CASES):
            t0 = time.perf_counter()
            out = run_case(name, ctx)
            took = time.perf_counter() - t0
            if args.check:
                want = read_golden(name)
                problems = [f"{k}: {d}" for k in sorted(set(out) | set(want))
                            if (d := compare_texts(out.get(k, "<absent>"),
                                                   want.get(k, "<absent>")))]
                failed += bool(problems)
                print(f"{name:36s} {took:6.2f} s  {'DIFFERS' if problems else 'same'}")
                for p in problems[:5]:
                    print("    " + p)
            else:
                path = write_golden(name, out)
                print(f"{name:36s} {took:6.2f} s  {path.stat().st_size:7,d} bytes  "
                      f"({len(out)} outputs)")
    finally:
        ctx.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
