"""The Jinja2 environment of the report and the release note: templates in
``lmdk_core/report/templates`` (package data), autoescaping on.

Autoescaping spells entities as :func:`html.escape` does (``&#x27;``, ``&quot;``), so the
files are the same as those written before the templates: every value that is not
marked safe goes through :func:`html.escape` exactly once.
"""

from __future__ import annotations

import functools
import html
import math

from jinja2 import Environment, PackageLoader
from markupsafe import Markup

__all__ = ["num", "render_template"]


def _escape(value: object) -> object:
    """Escape what is not already markup (finalize runs before autoescape, which leaves
    Markup alone)."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value), quote=True))


@functools.cache
def _environment() -> Environment:
    """The Jinja2 environment of the templates (autoescaping; built once)."""
    return Environment(loader=PackageLoader("lmdk_core.report", "templates"), autoescape=True,
                       finalize=_escape, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


def render_template(name: str, **context: object) -> str:
    """The template ``name`` rendered with ``context``."""
    return _environment().get_template(name).render(**context)


def num(x: float | None, fmt: str = ".4g") -> str:
    """``x`` formatted with ``fmt``; an em dash for None, NaN or ±inf."""
    return "—" if x is None or not math.isfinite(x) else format(float(x), fmt)
