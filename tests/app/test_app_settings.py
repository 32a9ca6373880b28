"""The app's settings are one typed object (app_support/app_settings.py): its fields are
exactly the settings that have a default, a misspelt name fails, and every read of a
field in the pages and helpers names a field that exists."""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from app_support.app_settings import SETTING_NAMES, AppSettings, set_setting
from app_support.correlation_state import CORRELATION_DEFAULTS
from app_support.session import DEFAULTS
from app_support.track_session import TRACK_DEFAULTS
from app_support.url_state import URL_SETTINGS
from lmdk_core.files.config import RESTORED_SETTINGS

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_default_is_a_field_and_every_field_has_a_default():
    groups = (DEFAULTS, CORRELATION_DEFAULTS, TRACK_DEFAULTS)
    names = [k for g in groups for k in g]
    assert len(names) == len(set(names)), "a setting with two defaults"
    assert set(names) == set(SETTING_NAMES)


def test_the_url_and_a_restored_configuration_set_fields():
    assert set(URL_SETTINGS.values()) <= set(SETTING_NAMES)
    assert {n for names in RESTORED_SETTINGS.values() for n in names} <= set(SETTING_NAMES)


def test_every_field_is_documented():
    source = (ROOT / "app_support" / "app_settings.py").read_text(encoding="utf-8")
    cls = next(n for n in ast.parse(source).body
               if isinstance(n, ast.ClassDef) and n.name == "AppSettings")
    documented = {a.target.id for a, doc in zip(cls.body, cls.body[1:], strict=False)
                  if isinstance(a, ast.AnnAssign) and isinstance(doc, ast.Expr)
                  and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)}
    assert documented == set(SETTING_NAMES)


def test_the_settings_cannot_be_changed_through_the_object():
    s = AppSettings(**{f.name: None for f in dataclasses.fields(AppSettings)})
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.epsilon = 2.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.epsilno  # type: ignore[attr-defined]  # noqa: B018


def test_a_misspelt_setting_is_refused():
    with pytest.raises(KeyError, match="epsilno"):
        set_setting("epsilno", 1.0)


def _settings_app():  # pragma: no cover - runs inside AppTest
    import streamlit as st

    from app_support.app_settings import current_settings, set_setting
    from app_support.session import init_state
    from app_support.track_session import init_track_state

    init_state()
    init_track_state()
    st.session_state["before"] = current_settings()
    set_setting("sensitivity", 3)  # an int, as a restored configuration may hold
    set_setting("window", 7.0)
    st.session_state["after"] = current_settings()


def test_the_session_reads_as_typed_settings():
    at = AppTest.from_function(_settings_app, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    before, after = at.session_state["before"], at.session_state["after"]
    expected = {**DEFAULTS, **CORRELATION_DEFAULTS, **TRACK_DEFAULTS}
    assert {k: v for k, v in dataclasses.asdict(before).items() if k != "seed"} == {
        k: v for k, v in expected.items() if k != "seed"}
    assert isinstance(before.seed, int) and before.seed >= 0  # a fresh seed, never None
    assert after.sensitivity == 3.0 and isinstance(after.sensitivity, float)
    assert after.window == 7 and isinstance(after.window, int)
    assert at.session_state["w_sensitivity"] == 3  # the widget's key holds what was set


# ---------------------------------------------------------------- every read names a field
def _is_read_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "current_settings")


def _scope_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one scope (a module or a function), without those of the functions,
    lambdas and classes defined inside it."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                              ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _assigned(nodes: list[ast.AST]) -> set[str]:
    """Names a scope binds itself (assignments, loops, arguments)."""
    out = {t.id for n in nodes if isinstance(n, (ast.Assign, ast.For, ast.comprehension))
           for t in ([n.target] if not isinstance(n, ast.Assign) else n.targets)
           if isinstance(t, ast.Name)}
    return out | {a.arg for n in nodes if isinstance(n, ast.arguments)
                  for a in (*n.posonlyargs, *n.args, *n.kwonlyargs)}


def field_reads(source: str) -> list[tuple[int, str]]:
    """(line, name) of every attribute read on the settings in ``source``:
    ``current_settings().x``, and ``y.x`` where ``y = current_settings()`` in the same
    function, or at module level and not bound again in the function."""
    tree = ast.parse(source)
    module_nodes = _scope_nodes(tree)

    def bound_in(nodes: list[ast.AST]) -> set[str]:
        return {t.id for n in nodes if isinstance(n, ast.Assign) and _is_read_call(n.value)
                for t in n.targets if isinstance(t, ast.Name)}

    module_bound = bound_in(module_nodes)
    reads = []
    for scope in [tree, *(n for n in ast.walk(tree)
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        nodes = module_nodes if scope is tree else [*_scope_nodes(scope), scope.args]
        bound = bound_in(nodes) | (module_bound - _assigned(nodes))
        reads += [(n.lineno, n.attr) for n in nodes if isinstance(n, ast.Attribute)
                  and (_is_read_call(n.value)
                       or (isinstance(n.value, ast.Name) and n.value.id in bound))]
    return reads


def test_the_check_finds_the_reads():
    src = ("s = current_settings()\nx = s.epsilon + s.epsilno\n"
           "y = current_settings().scheme\nz = other.radius\n"
           "def f():\n    s = stays[0]\n    return s.start\n"
           "def g():\n    s = current_settings()\n    return s.windw\n"
           "def h(s):\n    return s.label\n"
           "def i():\n    return s.radus\n")
    assert sorted(field_reads(src)) == [(2, "epsilno"), (2, "epsilon"), (3, "scheme"),
                                        (10, "windw"), (14, "radus")]


def test_every_read_of_a_setting_names_a_field():
    files = [*sorted((ROOT / "app_pages").glob("*.py")),
             *sorted((ROOT / "app_support").glob("*.py")), ROOT / "app.py"]
    reads = {p.relative_to(ROOT).as_posix(): field_reads(p.read_text(encoding="utf-8"))
             for p in files}
    wrong = [f"{path}:{line}: {name}" for path, found in reads.items()
             for line, name in found if name not in SETTING_NAMES]
    assert wrong == []
    assert sum(map(len, reads.values())) > 100  # the pages do read them this way
