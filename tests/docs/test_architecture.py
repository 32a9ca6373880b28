"""The folder list is the architecture (docs/architecture.md): every package of lmdk_core
imports only from its own layer or the layers below it, no module or package imports
itself back around a cycle, the app's shared code never imports a page, and the README's
"What is here" table and docs/architecture.md name every package and top-level folder."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "lmdk_core"

#: lmdk_core's packages from the bottom up; a package may import its own layer and below
LAYERS = [
    {"foundation"},
    {"mechanisms"},
    {"adaptive"},
    {"engine"},
    {"data"},
    {"leakage", "landmarks"},
    {"decision", "dummies", "teaching", "files"},
    {"population", "aggregate"},
    {"figures"},
    {"report"},
    {"cli"},
]
#: imports that go up a layer, each with its reason: none today
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}
#: private names one lmdk_core module imports from another (``importer imports
#: module._name`` as tools/measure_code.py prints them), each with its reason; the list
#: only shrinks
ALLOWED_PRIVATE: dict[str, str] = {}


def _layer(package: str) -> int:
    for i, layer in enumerate(LAYERS):
        if package in layer:
            return i
    raise AssertionError(f"lmdk_core/{package}/ is in no layer of {__file__}")


def core_packages() -> list[str]:
    return sorted(p.parent.name for p in CORE.glob("*/__init__.py"))


def _imports(path: Path, prefix: str) -> list[str]:
    """Every module below ``prefix`` that ``path`` imports (also inside functions)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == prefix:
                found += [f"{prefix}.{a.name}" for a in node.names]
            elif node.module.startswith(prefix + "."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith(prefix + ".")]
    return found


def test_every_package_has_a_layer_and_no_module_sits_flat():
    for package in core_packages():
        _layer(package)
    flat = sorted(p.name for p in CORE.glob("*.py")
                  if p.name not in ("__init__.py", "__main__.py"))
    assert not flat, f"modules directly in lmdk_core/ (put them in a package): {flat}"


def test_imports_go_down_the_layers():
    wrong = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE)
        if len(rel.parts) < 2:
            continue
        src = rel.parts[0]
        for module in _imports(path, "lmdk_core"):
            dst = module.split(".")[1]
            if dst == src or dst.startswith("__"):
                continue
            if _layer(dst) > _layer(src) and (src, dst) not in ALLOWED_UPWARD:
                wrong.append(f"lmdk_core/{rel} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle_between_modules_or_packages(measure):
    """No module imports itself back, directly or around a loop, even through an import
    inside a function or under TYPE_CHECKING (those hide a cycle from Python's import but
    not from a reader): tools/measure_code.py's import graph and its strongly connected
    components."""
    found = measure.cycles(measure.package_imports(CORE))["all"]
    assert not found["module_cycles"], f"module import cycles: {found['module_cycles']}"
    assert not found["package_cycles"], f"package import cycles: {found['package_cycles']}"


def test_the_cycle_check_finds_a_planted_cycle(measure):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert measure.strongly_connected(graph) == [["a", "b", "c"]]
    assert measure.strongly_connected({"a": {"b"}, "b": set()}) == []
    imports = [measure.Import("lmdk_core.x.m", "lmdk_core.y.n", "n", "function", 1),
               measure.Import("lmdk_core.y.n", "lmdk_core.x.k", "k", "top", 1)]
    assert measure.cycles(imports)["all"]["package_cycles"][0]["packages"] == [
        "lmdk_core.x", "lmdk_core.y"]
    assert measure.cycles(imports)["top_level"]["package_cycles"] == []


def test_no_private_name_is_imported_across_modules(measure):
    """No lmdk_core module imports a private (``_name``) function, class, constant or
    module of another: what two modules share is public — named, documented, in its
    module's ``__all__`` (CONTRIBUTING.md). The scan is tools/measure_code.py's (the
    ``private`` section; tests/docs/test_measure_code.py shows it finds a planted one).
    Tests are not scanned: a white-box test may import a module's private helper to
    check it on its own (tests/engine/test_exact_planar.py's irrational Bernoulli)."""
    imports = measure.package_imports(CORE)
    assert len(imports) > 500, "the scan found too few of lmdk_core's imports"
    found = {re.sub(r":\d+ imports ", " imports ", row)
             for rows in measure.private_imports(imports, CORE).values() for row in rows}
    wrong = sorted(found - set(ALLOWED_PRIVATE))
    assert not wrong, "private names imported from another module (make the name " \
        "public where it belongs, or move the user into its module):\n" + "\n".join(wrong)
    stale = sorted(set(ALLOWED_PRIVATE) - found)
    assert not stale, f"no longer imported, remove from ALLOWED_PRIVATE: {stale}"


def test_app_support_imports_no_page():
    wrong = [f"{p.name} imports {m}" for p in sorted((ROOT / "app_support").glob("*.py"))
             for m in _imports(p, "app_pages")]
    assert not wrong, wrong
    assert sorted(p.name for p in (ROOT / "app_pages").glob("*.py")
                  if p.name != "__init__.py") == sorted(
        f"{m.group(1)}.py" for m in re.finditer(r'st\.Page\("app_pages/(\w+)\.py"',
                                                (ROOT / "app.py").read_text())
    ), "app_pages/ holds the pages app.py routes to, and nothing else"


def _top_level_folders() -> list[str]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                             text=True, check=False).stdout.splitlines()
    if not tracked:
        pytest.skip("not a git checkout")
    return sorted({t.split("/", 1)[0] for t in tracked if "/" in t}
                  - {".streamlit", ".github", ".ci"})


def _what_is_here() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## What is here\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README.md has a '## What is here' section"
    return m.group(1)


def test_readme_table_names_every_package_and_folder():
    table = _what_is_here()
    missing = [f"lmdk_core/{p}/" for p in core_packages()
               if f"lmdk_core/{p}/" not in table and f"`{p}/`" not in table]
    missing += [f"{d}/" for d in _top_level_folders()
                if d != "lmdk_core" and f"`{d}/" not in table]
    assert not missing, f"README's 'What is here' table lacks {missing}"


def test_architecture_page_names_every_package():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [p for p in core_packages() if f"{p}/" not in text]
    missing += [d for d in ("app_pages", "app_support", "lmdk_app") if f"{d}/" not in text]
    assert not missing, missing
