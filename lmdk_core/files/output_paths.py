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

from lmdk_core.engine.quoting import quote_user_text
from lmdk_core.engine.validation import InputError

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


def check_outputs(inputs: Mapping[str, str | os.PathLike | None],
                  outputs: Mapping[str, str | os.PathLike | None],
                  allow_folder: frozenset[str] = frozenset()) -> None:
    """Refuse (InputError) any output that would write over an input, another output or
    a folder, or whose folder does not exist (see the module docstring). ``inputs`` and
    ``outputs`` map an option name (``"--input"``) to its path; None and ``"-"`` (stdin /
    stdout) are skipped."""
    ins = {k: Path(v) for k, v in inputs.items() if v not in (None, STDOUT)}
    outs = {k: Path(v) for k, v in outputs.items() if v not in (None, STDOUT)}
    seen: dict[str, Path] = {}
    for name, out in outs.items():
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
        for other, path in seen.items():
            if _same(out, path) or _inside(out, path) or _inside(path, out):
                raise InputError(f"{name} and {other} name the same file {shown}; give each "
                                 "its own file name")
        seen[name] = out
        if out.is_dir() and name not in allow_folder:
            raise InputError(f"cannot write {name} {shown}: it is a folder; give a file name")
        if not out.parent.exists():
            raise InputError(f"cannot write {name} {shown}: folder "
                             f"{quote_user_text(str(out.parent))} does not exist")
