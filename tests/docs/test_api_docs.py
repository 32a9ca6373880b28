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
