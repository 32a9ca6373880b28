"""XML documents read with the standard library's parser, as the TCX and KML readers
need them: element names without their namespace, children and descendants by name,
an element's text, numbers that may be missing, and the document's root checked
against the format's (docs/data-formats.md)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["children", "descendants", "local_name", "number", "parse_root", "text_of"]


def local_name(tag: object) -> str:
    """An element's name without its XML namespace.

    >>> local_name("{http://www.opengis.net/kml/2.2}Placemark")
    'Placemark'
    """
    return str(tag).rsplit("}", 1)[-1]


def children(el: ET.Element, name: str) -> list[ET.Element]:
    """The direct children of ``el`` named ``name`` (any namespace)."""
    return [c for c in el if local_name(c.tag) == name]


def descendants(el: ET.Element, name: str) -> list[ET.Element]:
    """``el`` and every element below it named ``name`` (any namespace), in document
    order."""
    return [c for c in el.iter() if local_name(c.tag) == name]


def text_of(el: ET.Element | None, name: str) -> str | None:
    """The stripped text of ``el``'s first descendant named ``name`` (None when there
    is none, or it has no text)."""
    if el is None:
        return None
    found = next((c for c in el.iter() if local_name(c.tag) == name), None)
    return None if found is None or found.text is None else found.text.strip()


def parse_root(data: bytes, fmt: str, root_name: str) -> ET.Element:
    """The document's root element; InputError naming the format ``fmt`` when the bytes
    are not well-formed XML or the root is not ``<root_name>``."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise InputError(f"the {fmt} file is not well-formed XML ({exc}); it may be cut "
                         "short: export it again") from None
    if local_name(root.tag) != root_name:
        raise InputError(f"the file is not a {fmt} file: its root element is "
                         f"<{quote_user_text(local_name(root.tag), 40)}>, not <{root_name}>")
    return root


def number(text: str | None) -> float:
    """``text`` as a float; NaN when it is missing or not a number.

    >>> number("45.5"), number(None), number("north")
    (45.5, nan, nan)
    """
    try:
        return float(text) if text is not None else np.nan
    except ValueError:
        return np.nan
