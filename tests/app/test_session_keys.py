"""The app's session-state keys are named once, in app_support/state_keys.py: no page or
helper reads or writes ``st.session_state`` with a bare string key."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEYS_MODULE = "state_keys.py"
METHODS = {"get", "pop", "setdefault", "keys", "items", "values", "update", "clear",
           "to_dict"}


def _app_files() -> list[pathlib.Path]:
    folders = [ROOT / "app_pages", ROOT / "app_support", ROOT / "app.py"]
    return sorted(p for f in folders for p in ([f] if f.is_file() else f.rglob("*.py"))
                  if p.name != KEYS_MODULE)


def _is_state(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "session_state":
        return True
    return isinstance(node, ast.Name) and node.id in aliases


def _bare(node: ast.AST) -> bool:
    """A key written in place: a string or an f-string."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, str))


def bare_keys(source: str) -> list[str]:
    """``line: text`` of every session-state access with a bare key in ``source``:
    ``st.session_state["k"]``, ``.get/.pop/.setdefault("k")``, ``st.session_state.k``,
    ``"k" in st.session_state``."""
    tree = ast.parse(source)
    aliases = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Attribute) and n.value.attr == "session_state"
               for t in n.targets if isinstance(t, ast.Name)}
    found = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and _is_state(n.value, aliases) and _bare(n.slice):
            found.append(n)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and n.func.attr in ("get", "pop", "setdefault")
              and _is_state(n.func.value, aliases) and n.args and _bare(n.args[0])):
            found.append(n)
        elif (isinstance(n, ast.Attribute) and _is_state(n.value, aliases)
              and n.attr not in METHODS):
            found.append(n)
        elif (isinstance(n, ast.Compare) and len(n.ops) == 1
              and isinstance(n.ops[0], (ast.In, ast.NotIn)) and _bare(n.left)
              and _is_state(n.comparators[0], aliases)):
            found.append(n)
    lines = source.splitlines()
    return [f"{n.lineno}: {lines[n.lineno - 1].strip()}" for n in found]


def test_the_check_finds_every_form_of_bare_key():
    src = ("import streamlit as st\nss = st.session_state\nst.session_state['a'] = 1\n"
           "st.session_state.get('b')\nss.pop(f'c_{x}')\nst.session_state.d = 2\n"
           "ss.setdefault('e', 0)\nst.session_state[K.A] = 1\nss.get(K.b(x))\n"
           "if 'f' not in ss: pass\nif K.F in ss: pass\n")
    assert [f.split(":")[0] for f in bare_keys(src)] == ["3", "4", "5", "6", "7", "10"]


def test_no_page_or_helper_uses_a_bare_session_state_key():
    found = {p.relative_to(ROOT).as_posix(): bare for p in _app_files()
             if (bare := bare_keys(p.read_text(encoding="utf-8")))}
    assert found == {}, "name these keys in app_support/state_keys.py"


def test_every_key_is_named_once():
    from app_support import state_keys

    text = (ROOT / "app_support" / KEYS_MODULE).read_text(encoding="utf-8")
    names = re.findall(r'^([A-Z_0-9]+) = "([^"]+)"$', text, re.M)
    values = [v for _, v in names]
    assert len(names) > 50 and len(set(values)) == len(values)
    assert all(getattr(state_keys, n) == v for n, v in names)
    assert state_keys.setting_key("epsilon") == state_keys.W_EPSILON
