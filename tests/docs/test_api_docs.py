"""docs/api.md is generated from the engine's docstrings (tools/gen_api_docs.py) and the
committed page is the one the current docstrings give."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_api_docs",
                                                  ROOT / "tools" / "gen_api_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_page_is_up_to_date():
    gen = _generator()
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == gen.render(), (
        "docs/api.md is out of date: run python tools/gen_api_docs.py")


def test_api_page_covers_every_public_function_of_its_modules():
    gen = _generator()
    text = gen.render()
    for module in gen.MODULES:
        tree = ast.parse(gen._path(module).read_text(encoding="utf-8"))
        functions = {n.name for n in tree.body
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for name in gen._public_names(tree):
            if name in functions:
                assert f"### `{name}`" in text, f"{module}.{name} is missing from docs/api.md"
    for needed in ("lmdk_core.engine.verifier", "`verify`", "`allocate`", "`privacy_verdict`"):
        assert needed in text, needed


def test_every_public_function_and_class_of_the_engine_has_a_docstring():
    """What CONTRIBUTING.md promises: every module-level function and class of lmdk_core
    whose name has no leading underscore says what it computes."""
    missing = []
    for path in sorted((ROOT / "lmdk_core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        missing += [f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
                    for node in tree.body
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and not node.name.startswith("_") and not ast.get_docstring(node)]
    assert not missing, "public without a docstring:\n" + "\n".join(missing)
