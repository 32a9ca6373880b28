"""One path for every string into a Streamlit element:
:func:`lmdk_core.foundation.quoting.inert_markdown`.

Streamlit renders Markdown in far more places than ``st.markdown``: alert boxes,
captions, titles, the labels of buttons, uploaders, expanders and every widget (where an
image ``![x](url)`` is drawn as an icon, i.e. fetched), help tooltips and radio options.
Quoting user text as a code span (:func:`lmdk_core.foundation.quoting.quote_user_text`) keeps it
readable, but one forgotten call would be enough for a beacon: a matrix name in a
restored configuration, a GPX track name, a user id, a file name in a tooltip.

:func:`install` wraps, once per process, every Streamlit element method that takes
Markdown (the names in :data:`MARKDOWN_ELEMENTS`): its body or label (first argument),
its ``label``, ``body``, ``help``, ``caption``/``captions`` arguments and the labels
produced by ``format_func`` go through :func:`~lmdk_core.foundation.quoting.inert_markdown`, on the
``DeltaGenerator`` class (``st.sidebar.x``, ``column.x``, ``container.x``) and on the
``streamlit`` module (``st.x``). Every page imports :mod:`app_support.session`, which
installs it, so no page can bypass it. ``tests/app/test_markdown_guard.py`` checks that every
element method of the installed Streamlit that takes a ``label``, ``body`` or ``help``
is covered, and ``tests/browser/test_browser_security.py`` that no surface fetches a beacon.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from lmdk_core.foundation.quoting import inert_markdown

__all__ = ["MARKDOWN_ELEMENTS", "MARKDOWN_KEYWORDS", "NOT_MARKDOWN", "install", "installed"]

#: element methods whose first argument (body or label) is rendered as Markdown
MARKDOWN_ELEMENTS = (
    "markdown", "caption", "write", "title", "header", "subheader", "error", "warning",
    "info", "success", "exception", "toast", "latex",
    "button", "download_button", "link_button", "page_link", "form_submit_button",
    "file_uploader", "camera_input", "checkbox", "toggle", "radio", "selectbox",
    "multiselect", "select_slider", "slider", "number_input", "text_input", "text_area",
    "date_input", "time_input", "color_picker", "pills", "segmented_control", "feedback",
    "chat_input", "audio_input", "data_editor", "dataframe",
    "metric", "expander", "popover", "tabs", "status", "progress", "spinner", "form",
    "badge", "datetime_input", "menu_button",
)
#: element methods that take a ``body`` or ``label`` but show it verbatim (code, plain
#: text, JSON, a diagram) or as the app author's own HTML: not Markdown, not guarded
NOT_MARKDOWN = ("code", "text", "json", "html", "mermaid_chart")
#: keyword arguments rendered as Markdown (tooltips, labels, option captions)
MARKDOWN_KEYWORDS = ("label", "body", "help", "caption", "captions", "text")
#: elements whose first argument is not Markdown text (a key or a data object)
_FIRST_IS_DATA = {"form", "dataframe", "data_editor", "feedback", "exception", "latex"}
#: elements whose options are drawn as Markdown (their format_func output is guarded)
_MARKDOWN_OPTIONS = {"radio", "pills", "segmented_control"}

_MARK = "_lmdk_markdown_guard"


def _inert(value: Any) -> Any:
    if isinstance(value, str):
        return inert_markdown(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return type(value)(inert_markdown(v) for v in value)
    return value


#: set while a guarded element runs: an element that draws another one (``st.write`` →
#: ``markdown``) passes its text through the guard once, not twice
_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("lmdk_markdown_guard",
                                                               default=False)


def _guard(name: str, method: Callable) -> Callable:
    @functools.wraps(method)
    def guarded(*args, **kwargs):
        if _INSIDE.get():
            return method(*args, **kwargs)
        token = _INSIDE.set(True)
        try:
            return method(*_inert_arguments(name, list(args), kwargs), **kwargs)
        finally:
            _INSIDE.reset(token)

    setattr(guarded, _MARK, True)
    return guarded


def _inert_arguments(name: str, args: list, kwargs: dict) -> list:
    """The positional arguments with the Markdown ones made inert; ``kwargs`` in place."""
    # bound to the module (st.x): args[0] is the body; on the class: args[0] is self
    first = 1 if args and isinstance(args[0], DeltaGenerator) else 0
    last = len(args) if name == "write" else first + 1  # st.write(*texts)
    if name not in _FIRST_IS_DATA:
        args[first:last] = [_inert(a) for a in args[first:last]]
    for key in MARKDOWN_KEYWORDS:
        if key in kwargs:
            kwargs[key] = _inert(kwargs[key])
    if name in _MARKDOWN_OPTIONS:
        shown = kwargs.get("format_func") or str
        kwargs["format_func"] = lambda option, _f=shown: inert_markdown(str(_f(option)))
    return args


def installed(obj: object, name: str) -> bool:
    """Whether ``obj.name`` (a method of ``DeltaGenerator`` or a function of ``st``) is
    guarded."""
    return bool(getattr(getattr(obj, name, None), _MARK, False))


def install() -> None:
    """Guard every Markdown element (idempotent)."""
    for name in MARKDOWN_ELEMENTS:
        method = getattr(DeltaGenerator, name, None)
        if method is not None and not installed(DeltaGenerator, name):
            setattr(DeltaGenerator, name, _guard(name, method))
        func = getattr(st, name, None)
        if func is not None and not installed(st, name):
            setattr(st, name, _guard(name, func))
