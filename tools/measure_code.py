"""Print the code measures of issues 30 and 40 for lmdk_core (and the app's folders).

    python tools/measure_code.py                       # every section
    python tools/measure_code.py --section cycles      # one section (repeatable)
    python tools/measure_code.py --json > after.json   # the same figures, to diff
    python tools/measure_code.py --root /tmp/before    # another checkout (git worktree)

Sections:

``cc``       radon's average cyclomatic complexity (``radon cc -a``: over every function,
             method and class block; target ≤ 3.3 for lmdk_core). radon is not a
             dependency of the package (``pip install radon``); without it the section
             says so and the others are still printed.
``long``     modules over 500 lines and functions over 80 (physical lines; a function runs
             from its ``def``, decorators excluded, to its last line, docstring included).
``cycles``   import cycles of lmdk_core: the strongly connected components (more than one
             member) of the module graph and of the package graph (``lmdk_core/<package>``),
             once counting the imports run when a module is imported (module and class
             level, ``try``/``if`` included) and once counting also the imports inside
             functions and under ``if TYPE_CHECKING:``. ``import a.b.c`` is an edge to
             ``a.b.c``; ``from lmdk_core.p import name`` is an edge to the submodule
             ``lmdk_core.p.name`` when there is one, else to ``lmdk_core.p`` (its
             ``__init__``); relative imports are resolved the same way.
``params``   functions with more than 5 positional(-or-keyword) parameters (``self``/``cls``
             of a method and keyword-only parameters not counted), public ones and the
             worst 10; and functions with more than 5 parameters in all.
``private``  imports of a private name (one underscore, not a dunder) of lmdk_core by
             another module: ``from lmdk_core.x import _name``, ``import lmdk_core.x._mod``.
``tuples``   public functions with a ``return`` of a tuple display of 2 or more elements.

A function is *public* when it is not nested in a function and no part of its dotted
name (module path, classes, its own name) starts with ``_`` — dunder methods such as
``__init__`` are public. Only :mod:`ast` is used: nothing is imported.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_MAX = 500
FUNCTION_MAX = 80
CC_TARGET = 3.3
ARGS_MAX = 5
WORST = 10
SECTIONS = ("cc", "long", "cycles", "params", "private", "tuples")
FOLDERS = ("lmdk_core", "app_pages", "app_support")


# -- issue 30: complexity and length ------------------------------------------------------

def radon_average(folder: Path) -> tuple[str, float, int] | None:
    """(rank, average CC, blocks) as ``radon cc -a`` prints them; None without radon."""
    run = subprocess.run([sys.executable, "-m", "radon", "cc", "-a", "-s", str(folder)],
                         capture_output=True, text=True)
    if run.returncode != 0 and "No module named radon" in run.stderr:
        return None
    m = re.search(r"(\d+) blocks \(classes, functions, methods\) analyzed\.\s*"
                  r"Average complexity: ([A-F]) \(([\d.]+)\)", run.stdout)
    if not m:
        raise SystemExit(f"measure_code: unexpected radon output:\n{run.stdout[-500:]}"
                         f"{run.stderr[-500:]}")
    return m.group(2), float(m.group(3)), int(m.group(1))


def long_modules(folder: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    rows = []
    for p in sorted(folder.rglob("*.py")):
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > MODULE_MAX:
            rows.append((n, p.relative_to(root).as_posix()))
    return sorted(rows, reverse=True)


def long_functions(folder: Path, root: Path = ROOT) -> list[tuple[int, str]]:
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
                            rows.append((n, f"{p.relative_to(root).as_posix()}:{name}"
                                            f"  ({code} without the docstring)"))
                    stack.append((child, name + "."))
    return sorted(rows, reverse=True)


# -- issue 40: the modules of a package and their imports ---------------------------------

def package_modules(package_dir: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` below ``package_dir`` (a package's
    ``__init__.py`` is the package itself)."""
    modules = {}
    for p in sorted(package_dir.rglob("*.py")):
        parts = list(p.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = p
    return modules


@dataclass(frozen=True)
class Import:
    """One name brought in by an import statement of ``importer``.

    ``target`` is the module of the package the import runs (see the module docstring);
    ``name`` is the last name the statement names (``_x`` in ``from a import _x``);
    ``kind`` is ``"top"`` (runs when the importer is imported), ``"function"`` (inside a
    function) or ``"type_checking"`` (under ``if TYPE_CHECKING:``)."""

    importer: str
    target: str
    name: str
    kind: str
    line: int


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _statements(tree: ast.Module):
    """(import statement, kind) for every import of a module, at any depth."""
    stack: list[tuple[ast.AST, str]] = [(tree, "top")]
    while stack:
        node, kind = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
            continue
        inner = "function" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.Lambda)) else kind
        if isinstance(node, ast.If) and _is_type_checking(node.test) and kind == "top":
            stack += [(c, "type_checking") for c in node.body]
            stack += [(c, kind) for c in node.orelse]
            continue
        stack += [(c, inner) for c in ast.iter_child_nodes(node)]


def _known(dotted: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``dotted`` that is a module of the package."""
    parts = dotted.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def _from_base(node: ast.ImportFrom, importer: str, modules: dict[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    package = importer if modules[importer].name == "__init__.py" else \
        importer.rpartition(".")[0]
    base = package.split(".")[:len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def package_imports(package_dir: Path) -> list[Import]:
    """Every import, by a module of the package, of a module of the same package."""
    modules = package_modules(package_dir)
    found = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, kind in _statements(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _known(alias.name, modules)
                    if target:
                        found.append(Import(importer, target, alias.name.rpartition(".")[2],
                                            kind, node.lineno))
                continue
            base = _from_base(node, importer, modules)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in modules else _known(base, modules)
                if target:
                    found.append(Import(importer, target, alias.name, kind, node.lineno))
    return found


# -- cycles --------------------------------------------------------------------------------

def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def shortest_cycle(graph: dict[str, set[str]], start: str) -> list[str]:
    """A shortest path start → … → start (breadth first), or [] when there is none."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph.get(node, ())):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return [start] + path[::-1][1:] + [start] if node != start else [start, start]
            if child not in parent:
                parent[child] = node
                queue.append(child)
    return []


def package_of(module: str) -> str:
    """``lmdk_core.engine.release`` → ``lmdk_core.engine``; a module directly in the
    package root belongs to the root."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def import_graphs(imports: list[Import], kinds: set[str]) -> tuple[dict, dict]:
    """(module graph, package graph) of the imports of the given kinds, self-edges left
    out."""
    modules: dict[str, set[str]] = {}
    packages: dict[str, set[str]] = {}
    for imp in imports:
        if imp.kind not in kinds:
            continue
        if imp.target != imp.importer:
            modules.setdefault(imp.importer, set()).add(imp.target)
        src, dst = package_of(imp.importer), package_of(imp.target)
        if src != dst:
            packages.setdefault(src, set()).add(dst)
    return modules, packages


def _short(name: str) -> str:
    return name.partition(".")[2] or name


def cycles(imports: list[Import]) -> dict:
    """The import cycles, counting top-level imports only, and all imports."""
    out = {}
    for label, kinds in (("top_level", {"top"}),
                         ("all", {"top", "function", "type_checking"})):
        modules, packages = import_graphs(imports, kinds)
        module_sccs = strongly_connected(modules)
        package_sccs = strongly_connected(packages)
        out[label] = {
            "module_cycles": [
                {"modules": scc, "example": shortest_cycle(
                    {k: v & set(scc) for k, v in modules.items()}, scc[0])}
                for scc in module_sccs],
            "package_cycles": [
                {"packages": scc, "edges": _package_edges(imports, kinds, scc)}
                for scc in package_sccs],
        }
    return out


def _package_edges(imports: list[Import], kinds: set[str], scc: list[str]) -> list[str]:
    """``importer → target`` for each module import behind a package cycle's edges."""
    inside = set(scc)
    edges = {f"{_short(i.importer)} → {_short(i.target)}" for i in imports
             if i.kind in kinds and package_of(i.importer) in inside
             and package_of(i.target) in inside
             and package_of(i.importer) != package_of(i.target)}
    return sorted(edges)


# -- functions: parameters and results ----------------------------------------------------

@dataclass(frozen=True)
class Function:
    """A ``def`` of the package: dotted name, public or not, its parameter counts."""

    name: str
    public: bool
    positional: int
    total: int
    returns_tuple: bool


def _returns_tuple(func: ast.AST) -> bool:
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if (isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)
                and len(node.value.elts) >= 2):
            return True
        stack += ast.iter_child_nodes(node)
    return False


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_functions(package_dir: Path) -> list[Function]:
    """Every function and method of the package (nested ones too)."""
    found = []
    for module, path in package_modules(package_dir).items():
        module_public = not any(_private(part) for part in module.split("."))
        stack = [(ast.parse(path.read_text(encoding="utf-8")), module, module_public, "module")]
        while stack:
            node, prefix, public, where = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    stack.append((child, f"{prefix}.{child.name}",
                                  public and not _private(child.name), "class"))
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = child.args
                    positional = len(args.posonlyargs) + len(args.args)
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                 for d in child.decorator_list)
                    if where == "class" and not static and positional:
                        positional -= 1  # self / cls
                    total = (positional + len(args.kwonlyargs) + (args.vararg is not None)
                             + (args.kwarg is not None))
                    name = f"{prefix}.{child.name}"
                    is_public = public and where != "function" and not _private(child.name)
                    found.append(Function(name, is_public, positional, total,
                                          _returns_tuple(child)))
                    stack.append((child, name, False, "function"))
                else:
                    stack.append((child, prefix, public, where))
    return sorted(found, key=lambda f: f.name)


def parameters(functions: list[Function]) -> dict:
    """Counts of the functions with more than ``ARGS_MAX`` parameters."""
    many_positional = sorted((f for f in functions if f.public and f.positional > ARGS_MAX),
                             key=lambda f: (-f.positional, f.name))
    return {
        "public_functions": sum(f.public for f in functions),
        "all_functions": len(functions),
        "public_over_5_positional": len(many_positional),
        "worst_positional": [[f.positional, f.name] for f in many_positional[:WORST]],
        "all_over_5_positional": sum(f.positional > ARGS_MAX for f in functions),
        "public_over_5_parameters": sum(f.public and f.total > ARGS_MAX for f in functions),
        "all_over_5_parameters": sum(f.total > ARGS_MAX for f in functions),
    }


def _definition_kinds(package_dir: Path) -> dict[str, dict[str, str]]:
    """Module → {top-level name: "function" | "class" | "value"} of the package."""
    kinds = {}
    for module, path in package_modules(package_dir).items():
        names: dict[str, str] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[node.name] = "function"
            elif isinstance(node, ast.ClassDef):
                names[node.name] = "class"
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Name):
                        names[target.id] = "value"
        kinds[module] = names
    return kinds


def private_imports(imports: list[Import], package_dir: Path) -> dict[str, list[str]]:
    """``importer:line imports target._name`` for each private name imported from
    another module, by what the name is: ``function``, ``class``, ``value`` (a constant)
    or ``module`` (a private submodule)."""
    kinds = _definition_kinds(package_dir)
    rows: dict[str, set[str]] = {}
    for imp in imports:
        if not _private(imp.name) or imp.target == imp.importer:
            continue
        if imp.target.endswith("." + imp.name):
            kind, target = "module", imp.target
        else:
            kind = kinds.get(imp.target, {}).get(imp.name, "value")
            target = f"{imp.target}.{imp.name}"
        rows.setdefault(kind, set()).add(
            f"{_short(imp.importer)}:{imp.line} imports {_short(target)}")
    return {kind: sorted(found) for kind, found in sorted(rows.items())}


def tuple_returns(functions: list[Function]) -> list[str]:
    return [f.name for f in functions if f.public and f.returns_tuple]


# -- report ---------------------------------------------------------------------------------

def measure(root: Path, folders: list[str], sections: list[str]) -> dict:
    """Every figure of the chosen sections, as plain data (what ``--json`` prints)."""
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    out: dict = {"root": str(root), "commit": commit or None}
    for name in folders:
        folder = root / name
        entry = out.setdefault("folders", {}).setdefault(name, {})
        if "cc" in sections:
            cc = radon_average(folder)
            entry["radon"] = None if cc is None else {
                "rank": cc[0], "average_cc": cc[1], "blocks": cc[2]}
        if "long" in sections:
            entry["modules_over_500_lines"] = long_modules(folder, root)
            entry["functions_over_80_lines"] = long_functions(folder, root)
    package = root / "lmdk_core"
    imports = package_imports(package) if {"cycles", "private"} & set(sections) else []
    functions = package_functions(package) if {"params", "tuples"} & set(sections) else []
    if "cycles" in sections:
        out["cycles"] = cycles(imports)
    if "params" in sections:
        out["parameters"] = parameters(functions)
    if "private" in sections:
        out["private_imports"] = private_imports(imports, package)
    if "tuples" in sections:
        out["tuple_returns"] = tuple_returns(functions)
    return out


def _print_cycles(label: str, found: dict) -> None:
    print(f"  {label}: {len(found['module_cycles'])} module cycles, "
          f"{len(found['package_cycles'])} package cycles")
    for c in found["module_cycles"]:
        print(f"    modules ({len(c['modules'])}): {', '.join(map(_short, c['modules']))}")
        print(f"      e.g. {' → '.join(map(_short, c['example']))}")
    for c in found["package_cycles"]:
        print(f"    packages: {', '.join(map(_short, c['packages']))}")
        for edge in c["edges"]:
            print(f"      {edge}")


def report(figures: dict) -> None:
    """The figures as text."""
    for name, entry in figures.get("folders", {}).items():
        if "radon" in entry:
            cc = entry["radon"]
            if cc is None:
                print(f"{name}: radon is not installed (pip install radon): no average CC")
            else:
                flag = "" if name != "lmdk_core" else (
                    f"  (target ≤ {CC_TARGET}: "
                    f"{'met' if cc['average_cc'] <= CC_TARGET else 'NOT met'})")
                print(f"{name}: radon average CC {cc['average_cc']:.2f} ({cc['rank']}) "
                      f"over {cc['blocks']} blocks{flag}")
        for key, label in (("modules_over_500_lines", f"modules over {MODULE_MAX} lines"),
                           ("functions_over_80_lines", f"functions over {FUNCTION_MAX} lines")):
            if key in entry:
                print(f"{name}: {label}: {len(entry[key])}")
                for n, where in entry[key]:
                    print(f"    {n:5d}  {where}")
    if "cycles" in figures:
        print("lmdk_core import cycles (strongly connected components):")
        _print_cycles("counting top-level imports only", figures["cycles"]["top_level"])
        _print_cycles("counting imports inside functions and under TYPE_CHECKING too",
                      figures["cycles"]["all"])
    if "parameters" in figures:
        p = figures["parameters"]
        print(f"lmdk_core functions with more than {ARGS_MAX} positional parameters "
              f"(self/cls and keyword-only not counted): {p['public_over_5_positional']} "
              f"public of {p['public_functions']} ({p['all_over_5_positional']} of all "
              f"{p['all_functions']}); the worst:")
        for n, name in p["worst_positional"]:
            print(f"    {n:3d}  {_short(name)}")
        print(f"lmdk_core functions with more than {ARGS_MAX} parameters in all (self/cls "
              f"not counted, keyword-only, *args and **kwargs counted): "
              f"{p['all_over_5_parameters']} ({p['public_over_5_parameters']} public)")
    if "private_imports" in figures:
        by_kind = figures["private_imports"]
        plural = {"class": "classes", "function": "functions", "value": "constants",
                  "module": "modules"}
        counts = ", ".join(f"{len(rows)} {plural[kind]}" for kind, rows in by_kind.items())
        print(f"lmdk_core private names imported from another module: "
              f"{sum(map(len, by_kind.values()))} ({counts or 'none'})")
        for kind, rows in by_kind.items():
            for row in rows:
                print(f"    {kind:8s}  {row}")
    if "tuple_returns" in figures:
        rows = figures["tuple_returns"]
        print(f"lmdk_core public functions returning an unnamed tuple: {len(rows)}")
        for row in rows:
            print(f"    {_short(row)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=list(FOLDERS),
                    help="folders for the cc and long sections (default: %(default)s)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout to measure (default: this one)")
    ap.add_argument("--section", action="append", choices=SECTIONS,
                    help="print only this section (repeatable; default: all)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    figures = measure(args.root.resolve(), args.folders, args.section or list(SECTIONS))
    if args.json:
        print(json.dumps(figures, indent=1, ensure_ascii=False))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
