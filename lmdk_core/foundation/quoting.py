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
is escaped with :func:`html.escape` instead, and text for a plotly chart with
:func:`plotly_text`.

:func:`inert_markdown` is the second, structural line of defence: the app passes every
string it hands to a Streamlit element (bodies, labels, help tooltips, option labels)
through it (``app_support/markdown_guard.py``), so that text which was *not* quoted still
cannot become a link, an image or a formula: outside code spans it backslash-escapes the
characters that open them (``[ ] < \\ $``), URL and e-mail autolinks (``http://``,
``www.``, ``@``). The app's own text uses none of these as Markdown, so it is unchanged
on screen.
"""

from __future__ import annotations

import json
import re
import reprlib

__all__ = ["MAX_QUOTED_CHARS", "inert_markdown", "plotly_text", "plotly_texts",
           "quote_user_text", "quote_user_value", "shorten_user_text"]

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


#: plotly.js reads ``<a href>``, ``<span style>``, ``<b>`` … in any text it draws (titles,
#: legend names, hover text, axis and tick titles, annotations) and ``%{…}`` inside a
#: hover template; it turns ``&lt;`` ``&gt;`` ``&amp;`` ``&#37;`` back into characters
#: only *after* it has split the text into tags (``svg_text_utils.convertEntities``)
_PLOTLY_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "%": "&#37;"})


def plotly_text(value: object) -> str:
    """``str(value)`` for plotly text: ``&``, ``<``, ``>`` and ``%`` as character
    references, so that a user id ``<a href=x>u</a>`` is drawn as those characters, not
    as a live link, ``<span style=…>`` styles nothing and ``%{y}`` in a name put into a
    hover template stays text. Every figure builder passes user text (user ids, file
    and column names, units, state labels) through this function or
    :func:`plotly_texts`."""
    return (value if isinstance(value, str) else str(value)).translate(_PLOTLY_ESCAPES)


def plotly_texts(values) -> list[str]:
    """:func:`plotly_text` of every item of ``values`` (a sequence, array or Series);
    20,000 hover labels without any of ``& < > %`` (times, numbers) are one scan."""
    texts = [v if isinstance(v, str) else str(v) for v in values]
    joined = "\x00".join(texts)
    if not any(c in joined for c in "&<>%"):
        return texts
    return [t.translate(_PLOTLY_ESCAPES) for t in texts]


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


_BACKTICK_RUN = re.compile(r"`+")
#: characters that open a link, an image, an autolink, raw HTML or a formula
_ACTIVE = re.compile(r"[\\\[\]<$@]|(?i:(?<=https)|(?<=http)|(?<=ftp)|(?<=mailto)):|(?i:(?<=www))\.")


def _escape_active(text: str) -> str:
    return _ACTIVE.sub(lambda m: "\\" + m.group(0), text)


def inert_markdown(text: str) -> str:
    """``text`` with every Markdown construct that could fetch or link made literal,
    code spans left as they are (CommonMark: a run of n backticks opens a span closed by
    the next run of exactly n; an unmatched run is literal text).

    Outside code spans ``\\ [ ] < $ @`` are backslash-escaped, and so are the colon of
    ``http:``, ``https:``, ``ftp:``, ``mailto:`` and the dot of ``www.`` (GitHub-flavoured
    autolinks): ``![x](http://h/b.png)`` shows as that text and fetches nothing.
    """
    if not isinstance(text, str):
        return text
    out: list[str] = []
    pos = 0
    runs = list(_BACKTICK_RUN.finditer(text))
    i = 0
    while i < len(runs):
        opening = runs[i]
        closing = next((j for j in range(i + 1, len(runs))
                        if len(runs[j].group(0)) == len(opening.group(0))), None)
        if closing is None:
            i += 1
            continue
        out.append(_escape_active(text[pos:opening.start()]))
        out.append(text[opening.start():runs[closing].end()])
        pos = runs[closing].end()
        i = closing + 1
    out.append(_escape_active(text[pos:]))
    return "".join(out)
