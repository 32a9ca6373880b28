"""Quoting text that came from a user's data or files before it goes into a message.

Messages are shown as Markdown in the app (``st.error``, ``st.caption`` …) and as one
line on stderr by the CLI. A CSV cell, a column name, a file name or a GPX waypoint
name echoed verbatim could otherwise render as Markdown — an image
``![x](http://host/beacon.png)`` that the browser fetches, a link, a heading — or flood
the screen (a 5 MB cell). :func:`quote_user_text` makes such text inert and short: one
line, at most ``limit`` characters (then "…"), inside a Markdown code span, which
neither Markdown nor Streamlit's directives (``:red[…]``, ``$…$``) interpret.

Every message that echoes user data (engine ``InputError`` messages and the pages'
captions and error boxes) uses this one function; HTML destined for Leaflet or a report
is escaped with :func:`html.escape` instead.
"""

from __future__ import annotations

import json
import re
import reprlib

__all__ = ["MAX_QUOTED_CHARS", "quote_user_text", "quote_user_value", "shorten_user_text"]

#: longest echoed piece of user text (characters), "…" appended when cut
MAX_QUOTED_CHARS = 80

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
_BACKTICKS = re.compile(r"`+")


def shorten_user_text(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """``str(value)`` on one line (control characters and line breaks become one space),
    cut to ``limit`` characters with "…" appended when longer."""
    text = value if isinstance(value, str) else str(value)
    # cut before cleaning so that a 5 MB cell costs no more than a short one
    cut = len(text) > limit
    text = _CONTROL.sub(" ", text[: limit + 1])
    if cut or len(text) > limit:
        text = text[:limit] + "…"
    return text


def quote_user_text(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """``value`` as an inert Markdown code span: `` `text` ``, shortened by
    :func:`shorten_user_text`. Backticks inside are kept: the span's fence is one
    backtick longer than the longest run inside (CommonMark), padded with spaces when
    the text starts or ends with a backtick. The empty string is shown as ``""``."""
    text = shorten_user_text(value, limit)
    if text == "":
        return '`""`'
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if text[0] == "`" or text[-1] == "`" or (text[0] == " " == text[-1] and text.strip()):
        text = f" {text} "
    return f"{fence}{text}{fence}"


_REPR = reprlib.Repr()  # bounded depth and width (keyword arguments need Python 3.12)
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 3, 6, 6, 4
_REPR.maxstring = _REPR.maxother = MAX_QUOTED_CHARS


def quote_user_value(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """A value read from a file or typed by a user (a JSON field, a CLI argument) as an
    inert code span: numbers, booleans, null and text in their JSON spelling (``true``,
    ``"5"``), anything else as a bounded ``reprlib`` rendering (safe for deeply nested
    or huge lists)."""
    if value is None or isinstance(value, (bool, int, float)):
        text = json.dumps(value)
    elif isinstance(value, str):
        text = json.dumps(value[: limit + 1], ensure_ascii=False)
    else:
        text = _REPR.repr(value)
    return quote_user_text(text, limit)
