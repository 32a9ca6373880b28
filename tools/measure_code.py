"""Print the code measures of issue 30: radon's average cyclomatic complexity of lmdk_core
(target ≤ 3.3), the modules over 500 lines and the functions over 80 lines.

    python tools/measure_code.py              # lmdk_core, app_pages, app_support
    python tools/measure_code.py lmdk_core    # one folder

The average is radon's own (``radon cc -a``: over every function, method and class
block); radon is not a dependency of the package: ``pip install radon``. Line counts
are physical lines; a function's lines run from its ``def`` (decorators excluded) to its
last line, docstring included (:mod:`ast`).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_MAX = 500
FUNCTION_MAX = 80
CC_TARGET = 3.3


def radon_average(folder: Path) -> tuple[str, float, int]:
    """(rank, average CC, blocks) as ``radon cc -a`` prints them."""
    out = subprocess.run([sys.executable, "-m", "radon", "cc", "-a", "-s", str(folder)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"(\d+) blocks \(classes, functions, methods\) analyzed\.\s*"
                  r"Average complexity: ([A-F]) \(([\d.]+)\)", out)
    if not m:
        raise SystemExit(f"measure_code: unexpected radon output:\n{out[-500:]}")
    return m.group(2), float(m.group(3)), int(m.group(1))


def long_modules(folder: Path) -> list[tuple[int, str]]:
    rows = []
    for p in sorted(folder.rglob("*.py")):
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > MODULE_MAX:
            rows.append((n, p.relative_to(ROOT).as_posix()))
    return sorted(rows, reverse=True)


def long_functions(folder: Path) -> list[tuple[int, str]]:
    rows = []
    for p in sorted(folder.rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        stack = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        n = child.end_lineno - child.lineno + 1
                        if n > FUNCTION_MAX:
                            doc = child.body[0]
                            has_doc = (isinstance(doc, ast.Expr)
                                       and isinstance(doc.value, ast.Constant)
                                       and isinstance(doc.value.value, str))
                            code = n - (doc.end_lineno - doc.lineno + 1 if has_doc else 0)
                            rows.append((n, f"{p.relative_to(ROOT).as_posix()}:{name}"
                                            f"  ({code} without the docstring)"))
                    stack.append((child, name + "."))
    return sorted(rows, reverse=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=["lmdk_core", "app_pages", "app_support"])
    args = ap.parse_args(argv)
    for name in args.folders:
        folder = ROOT / name
        rank, avg, blocks = radon_average(folder)
        flag = "" if name != "lmdk_core" else (
            f"  (target ≤ {CC_TARGET}: {'met' if avg <= CC_TARGET else 'NOT met'})")
        print(f"{name}: radon average CC {avg:.2f} ({rank}) over {blocks} blocks{flag}")
        mods = long_modules(folder)
        print(f"  modules over {MODULE_MAX} lines: {len(mods)}")
        for n, where in mods:
            print(f"    {n:5d}  {where}")
        funcs = long_functions(folder)
        print(f"  functions over {FUNCTION_MAX} lines: {len(funcs)}")
        for n, where in funcs:
            print(f"    {n:5d}  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
