"""The Jinja2 environment of the report and the release note: templates in
``lmdk_core/report/templates`` (package data), autoescaping on.

Autoescaping spells entities as :func:`html.escape` does (``&#x27;``, ``&quot;``), so the
files are the same as those written before the templates: every value that is not
marked safe goes through :func:`html.escape` exactly once.

The compiled templates are kept beside them, in ``templates/__pycache__``, as Python
keeps its modules' bytecode (Jinja2's :class:`~jinja2.FileSystemBytecodeCache`: each
file is checked against its template's source and the Python version, and compiled
again when either changed). Compiling the report's templates costs a run 30–35 ms of
CPU; reading them back, under 1 ms. Nothing is written when Python writes no bytecode
(``PYTHONDONTWRITEBYTECODE``, ``-B``) or the folder is read-only (an installation
owned by another user): the templates are then compiled at every run, as before.
"""

from __future__ import annotations

import functools
import html
import math
import os
import pickle
import sys

from jinja2 import Environment, FileSystemBytecodeCache, PackageLoader
from jinja2.bccache import Bucket
from markupsafe import Markup

__all__ = ["num", "render_template"]


def _escape(value: object) -> object:
    """Escape what is not already markup (finalize runs before autoescape, which leaves
    Markup alone)."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value), quote=True))


#: where the compiled templates are kept (beside the templates, as Python's bytecode)
TEMPLATE_CACHE = os.path.join(os.path.dirname(__file__), "templates", "__pycache__")


class _TemplateBytecode(FileSystemBytecodeCache):
    """Jinja2's file cache of compiled templates that never fails a render: a file it
    cannot read is a miss, one it cannot write is skipped, and nothing is written when
    Python writes no bytecode (``sys.dont_write_bytecode``)."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            bucket.reset()  # unreadable or damaged: compiled again

    def dump_bytecode(self, bucket: Bucket) -> None:
        if sys.dont_write_bytecode:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass  # a read-only installation: compiled at every run


def template_environment(cache: str | None = TEMPLATE_CACHE) -> Environment:
    """A Jinja2 environment of the templates (autoescaping), keeping their compiled
    form in the folder ``cache`` (None: compiled at every first use)."""
    return Environment(loader=PackageLoader("lmdk_core.report", "templates"), autoescape=True,
                       finalize=_escape, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True,
                       bytecode_cache=None if cache is None else _TemplateBytecode(cache))


@functools.cache
def _environment() -> Environment:
    """The Jinja2 environment of the templates (built once)."""
    return template_environment()


def render_template(name: str, **context: object) -> str:
    """The template ``name`` rendered with ``context``."""
    return _environment().get_template(name).render(**context)


def num(x: float | None, fmt: str = ".4g") -> str:
    """``x`` formatted with ``fmt``; an em dash for None, NaN or ±inf."""
    return "—" if x is None or not math.isfinite(x) else format(float(x), fmt)
