"""tools/measure_code.py finds what issue 40 measures — import cycles (top-level and
inside functions), functions with many positional parameters, private names imported
across modules, tuples returned — on a small package planted with one of each (the
``measure`` fixture, the tool loaded as a module, is in tests/docs/conftest.py)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

FILES = {
    "__init__.py": "",
    "low/__init__.py": "",
    # a top-level cycle through relative imports: low.p ↔ low.q
    "low/p.py": "from . import q\n",
    "low/q.py": "from .p import q as _unused_alias\n",
    # low.x → high.y at import time; high.y → low.x only inside a function
    "low/x.py": '''
        from typing import TYPE_CHECKING

        from lmdk_core.high import y

        if TYPE_CHECKING:
            from lmdk_core.high.z import Z


        def _helper(v):
            return v


        def wide(a, b, c, d, e, f, g, *, h=1):
            return a


        def pair(a):
            if a:
                return a, a
            return None


        class Box:
            def method(self, a, b, c, d, e):
                return (a,)

            @staticmethod
            def still(a, b, c, d, e, f):
                return a


        def _private_wide(a, b, c, d, e, f):
            def inner(a, b, c, d, e, f, g, h):
                return a, b
            return inner
    ''',
    "high/__init__.py": "",
    "high/y.py": '''
        def late():
            from lmdk_core.low.x import _helper
            return _helper
    ''',
    "high/z.py": "import lmdk_core.high._secret as s\nZ = s\n",
    "high/_secret.py": "",
}


@pytest.fixture
def package(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / "lmdk_core" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return tmp_path / "lmdk_core"


def test_imports_are_resolved_to_modules_with_their_kind(measure, package):
    found = {(i.importer, i.target, i.kind) for i in measure.package_imports(package)}
    assert ("lmdk_core.low.p", "lmdk_core.low.q", "top") in found
    assert ("lmdk_core.low.q", "lmdk_core.low.p", "top") in found
    assert ("lmdk_core.low.x", "lmdk_core.high.y", "top") in found
    assert ("lmdk_core.low.x", "lmdk_core.high.z", "type_checking") in found
    assert ("lmdk_core.high.y", "lmdk_core.low.x", "function") in found
    assert ("lmdk_core.high.z", "lmdk_core.high._secret", "top") in found


def test_cycles_top_level_and_inside_functions(measure, package):
    found = measure.cycles(measure.package_imports(package))
    top, every = found["top_level"], found["all"]
    assert [c["modules"] for c in top["module_cycles"]] == [["lmdk_core.low.p",
                                                             "lmdk_core.low.q"]]
    assert top["package_cycles"] == []
    assert ["lmdk_core.high.y", "lmdk_core.low.x"] in [c["modules"]
                                                       for c in every["module_cycles"]]
    assert [c["packages"] for c in every["package_cycles"]] == [["lmdk_core.high",
                                                                 "lmdk_core.low"]]
    example = next(c["example"] for c in every["module_cycles"]
                   if "lmdk_core.low.x" in c["modules"])
    assert example[0] == example[-1] and len(example) == 3


def test_strongly_connected_components(measure):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert measure.strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]
    assert measure.strongly_connected({"a": {"b"}, "b": set()}) == []
    assert measure.shortest_cycle(graph, "a") == ["a", "b", "c", "a"]


def test_parameters_count_positional_and_all(measure, package):
    functions = {f.name.removeprefix("lmdk_core.low.x."): f
                 for f in measure.package_functions(package)}
    assert (functions["wide"].positional, functions["wide"].total) == (7, 8)
    assert functions["Box.method"].positional == 5  # self not counted
    assert functions["Box.still"].positional == 6  # a staticmethod has no self
    assert not functions["_private_wide"].public
    assert not functions["_private_wide.inner"].public
    p = measure.parameters(list(functions.values()))
    assert p["worst_positional"] == [[7, "lmdk_core.low.x.wide"],
                                     [6, "lmdk_core.low.x.Box.still"]]
    assert p["public_over_5_positional"] == 2
    assert p["all_over_5_positional"] == 4
    assert p["all_over_5_parameters"] == 4


def test_private_imports_and_tuple_returns(measure, package):
    private = measure.private_imports(measure.package_imports(package), package)
    assert private == {"function": ["high.y:2 imports low.x._helper"],
                       "module": ["high.z:1 imports high._secret"]}
    # an alias to a private name is not an import of a private name
    assert "low.q" not in json.dumps(private)
    assert measure.tuple_returns(measure.package_functions(package)) == [
        "lmdk_core.low.x.pair"]


def test_command_prints_json_and_text(measure, package, capsys):
    root = str(package.parent)
    sections = ["--section", "cycles", "--section", "params", "--section", "private",
                "--section", "tuples"]
    assert measure.main(["--root", root, "--json", *sections]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["parameters"]["public_over_5_positional"] == 2
    assert len(figures["cycles"]["all"]["module_cycles"]) == 2
    assert measure.main(["--root", root, *sections]) == 0
    text = capsys.readouterr().out
    assert "counting top-level imports only: 1 module cycles, 0 package cycles" in text
    assert "private names imported from another module: 2 (1 functions, 1 modules)" in text
    assert "      7  low.x.wide" in text
