"""The installed version of a distribution, as :func:`importlib.metadata.version` reads it,
without importing :mod:`importlib.metadata` where the answer is plain.

``importlib.metadata`` costs a process 35–40 ms of CPU to import (it loads ``email``,
``zipfile``, ``csv``) and 3 ms per lookup on the project's 2-core machine; ``lmdk
report`` needs five versions (the package's and numpy, scipy, pandas, plotly's, listed
for reproducibility) and nothing else from it. :func:`installed_version` walks
``sys.path`` as its path finder does (Python 3.11, ``MetadataPathFinder``): in each
directory in order, the ``*.dist-info`` / ``*.egg-info`` entries whose name before the
first ``-`` normalises (PEP 503, dashes as underscores) to the wanted name; the first
directory with one answers, with the ``Version`` header of its ``METADATA`` (of an
``.egg-info`` folder's ``PKG-INFO``, as a source checkout's editable install has it)
(``email``'s parsing of a header line: the text after the colon without leading blanks
and the line end). Whenever the layout is anything but plain — another finder that
finds distributions, a zip or ``.egg`` path entry, several matches in the directory, an
``.egg-info`` file or one with a ``METADATA``, a folded or missing header, a file that
cannot be read — the answer is :func:`importlib.metadata.version`'s, so it is that
function's in every case (tests/engine/test_installed_versions.py compares both on every
installed distribution and on made-up layouts).
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["installed_version"]

_SEPARATORS = re.compile(r"[-_.]+")
#: the line ends of email's parser, and one header line as its parser reads it: a name of
#: printable ASCII characters without a colon or a blank, a colon, the value
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_HEADER = re.compile(r"([\x21-\x39\x3b-\x7e]+):(.*)", re.DOTALL)


def _normalized(name: str) -> str:
    """PEP 503 normalisation with dashes as underscores (``Prepared.normalize``)."""
    return _SEPARATORS.sub("-", name).lower().replace("-", "_")


def installed_version(name: str, default: str | None = None) -> str:
    """``importlib.metadata.version(name)`` (see the module docstring); ``default`` when
    no distribution ``name`` is installed, if given.

    Raises
    ------
    importlib.metadata.PackageNotFoundError
        When no distribution ``name`` is installed and no ``default`` is given.
    """
    found = _plain_version(name)
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        if default is None:
            raise
        return default


def _other_distribution_finders() -> bool:
    """Whether a finder besides the standard path finder can find distributions."""
    from importlib.machinery import PathFinder

    return any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path)


def _plain_version(name: str) -> str | None:
    """The version read directly, or None when the layout is not plain."""
    if not name or _other_distribution_finders():
        return None
    wanted = _normalized(name)
    for entry in sys.path:
        root = entry or "."
        if os.path.basename(entry).lower().endswith(".egg"):
            return None
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.exists(root):  # a zip archive: importlib.metadata reads it
                return None
            continue
        except Exception:  # noqa: BLE001 - importlib.metadata also skips such entries
            return None
        matches = [c for c in children if c.lower().endswith((".dist-info", ".egg-info"))
                   and _normalized(c.lower().rpartition(".")[0].partition("-")[0]) == wanted]
        if not matches:
            continue
        if len(matches) > 1:
            return None
        found = os.path.join(root, matches[0])
        if matches[0].lower().endswith(".dist-info"):
            return _metadata_version(os.path.join(found, "METADATA"))
        # an .egg-info folder (a source checkout's editable install): its PKG-INFO, which
        # importlib.metadata reads when there is no METADATA beside it
        if not os.path.isdir(found) or os.path.exists(os.path.join(found, "METADATA")):
            return None
        return _metadata_version(os.path.join(found, "PKG-INFO"))
    return None


def _metadata_version(path: str) -> str | None:
    """The first ``Version`` header of a ``METADATA`` file, or None when the file or its
    headers are not plain (then :mod:`email` decides)."""
    try:
        with open(path, "rb") as f:  # the same text as open(..., encoding="utf-8",
            text = f.read().decode("utf-8")  # newline=""): line ends kept as they are
    except (OSError, UnicodeDecodeError):
        return None
    lines = _LINE_ENDS.split(text)
    for i, line in enumerate(lines):
        header = _HEADER.fullmatch(line)
        if header is None:
            return None  # the end of the headers (no Version), or not a plain header
        if header[1].lower() == "version":
            if i + 1 < len(lines) and lines[i + 1][:1] in (" ", "\t"):
                return None  # folded onto the next line
            return header[2].lstrip(" \t") or None
    return None
