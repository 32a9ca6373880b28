"""JSON read from a file a person gave the tool: a key given twice is refused.

Python's :func:`json.loads` keeps the *last* of two equal keys of an object, so a
configuration holding ``"epsilon": 1.0, …, "epsilon": 50`` would silently release at
ε = 50 while a reader of the file (or another JSON parser, which may keep the first) sees
1.0. RFC 8259 §4 says names "SHOULD be unique" and leaves the behaviour with duplicates
to the parser; this one refuses them with an :class:`InputError` naming the key and the
object that holds it twice.

Every JSON document the tool reads from outside (configurations for the app,
``lmdk report --config`` and ``lmdk batch --config``, data references, GeoJSON tracks)
is parsed by :func:`loads_strict`.
"""

from __future__ import annotations

import json

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["loads_strict"]


def _refuse_duplicates(what: str):
    """The ``object_pairs_hook``: the object as a dict, InputError on a repeated key."""
    def hook(pairs: list[tuple[str, object]]) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key in out:
                raise InputError(f"{what} gives the key {quote_user_text(key)} twice in one "
                                 "object; keep one (JSON readers disagree on which one "
                                 "counts)")
            out[key] = value
        return out
    return hook


def loads_strict(text: str | bytes, what: str = "the JSON file") -> object:
    """:func:`json.loads` of ``text`` that raises InputError (naming ``what`` and the key)
    when an object gives a key twice. Syntax errors are :class:`json.JSONDecodeError`,
    as with :func:`json.loads`."""
    return json.loads(text, object_pairs_hook=_refuse_duplicates(what))
