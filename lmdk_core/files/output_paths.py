"""Where a command may write: never over one of its inputs, never one output over another.

Every command that writes files calls :func:`check_outputs` before any work, with all the
files it reads (``--input``, ``--config``, ``--data`` …) and all the files it writes
(``--output``, ``--audit`` …). An output is refused when it

* is an input, compared by resolved path and, when both exist, by device and inode
  (:func:`os.path.samefile`: a hard link or a symbolic link to the input is the input);
* lies inside an input folder (a Parquet folder given as ``--input``), or an input lies
  inside it (a folder output is replaced as a whole);
* is another output of the same command;
* is an existing folder (``allow_folder`` for outputs that are written as a folder of
  parts), or its folder does not exist.

So ``lmdk batch --audit <the input file>`` fails with exit status 2 before anything is
read or written, instead of replacing the raw data with the audit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["check_outputs"]

#: what names standard output on the command line
STDOUT = "-"


def _same(a: Path, b: Path) -> bool:
    """``a`` and ``b`` name the same file or folder (path, or device and inode)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _inside(child: Path, folder: Path) -> bool:
    """``child`` lies strictly inside ``folder`` (resolved paths)."""
    try:
        child.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return child.resolve() != folder.resolve()


def _paths(named: Mapping[str, str | os.PathLike | None]) -> dict[str, Path]:
    """The named paths, without None and ``"-"`` (stdin / stdout)."""
    return {k: Path(v) for k, v in named.items() if v not in (None, STDOUT)}


def _check_not_input(name: str, out: Path, ins: dict[str, Path]) -> None:
    """InputError when output ``out`` is an input, lies inside an input folder or is a
    folder holding an input."""
    shown = quote_user_text(str(out))
    for in_name, src in ins.items():
        if _same(out, src):
            raise InputError(f"{name} {shown} is the {in_name} file: a command never "
                             f"writes over its input; give {name} a new file name")
        if _inside(out, src):
            raise InputError(f"{name} {shown} lies inside the {in_name} folder; write it "
                             "somewhere else")
        if _inside(src, out):
            raise InputError(f"{name} {shown} is a folder that holds the {in_name} "
                             f"{quote_user_text(str(src))}; give {name} a new name")


def _overlaps(a: Path, b: Path) -> bool:
    """``a`` and ``b`` are the same path or one lies inside the other."""
    return _same(a, b) or _inside(a, b) or _inside(b, a)


def _check_not_other_output(name: str, out: Path, seen: dict[str, Path]) -> None:
    """InputError when output ``out`` overlaps an output already checked."""
    for other, path in seen.items():
        if _overlaps(out, path):
            raise InputError(f"{name} and {other} name the same file {quote_user_text(str(out))}; "
                             "give each its own file name")


def _check_writable(name: str, out: Path, allow_folder: frozenset[str]) -> None:
    """InputError when ``out`` is an existing folder (unless allowed) or its folder is
    missing."""
    shown = quote_user_text(str(out))
    if out.is_dir() and name not in allow_folder:
        raise InputError(f"cannot write {name} {shown}: it is a folder; give a file name")
    if not out.parent.exists():
        raise InputError(f"cannot write {name} {shown}: folder "
                         f"{quote_user_text(str(out.parent))} does not exist")


def check_outputs(inputs: Mapping[str, str | os.PathLike | None],
                  outputs: Mapping[str, str | os.PathLike | None],
                  allow_folder: frozenset[str] = frozenset()) -> None:
    """Refuse (InputError) any output that would write over an input, another output or
    a folder, or whose folder does not exist (see the module docstring). ``inputs`` and
    ``outputs`` map an option name (``"--input"``) to its path; None and ``"-"`` (stdin /
    stdout) are skipped."""
    ins = _paths(inputs)
    seen: dict[str, Path] = {}
    for name, out in _paths(outputs).items():
        _check_not_input(name, out, ins)
        _check_not_other_output(name, out, seen)
        seen[name] = out
        _check_writable(name, out, allow_folder)
