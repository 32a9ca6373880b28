"""Every file and scratch folder the tool writes: whole or not at all, never through a link.

A file is written to a new temporary file in its destination's folder (created by
:func:`tempfile.mkstemp`: ``O_CREAT | O_EXCL``, so never an existing file or a planted
link), flushed to disk, given its mode, then moved over the destination with
:func:`os.replace` (``rename(2)``: atomic on one file system). Hence

* a reader never sees half a file: a crash, an error or Ctrl-C mid-write leaves the
  earlier file (or none) in place, never a partial one (the temporary file is removed on
  an error; a killed process can leave one ``.<name>.<random>.part`` beside it);
* **a symbolic link at the destination is replaced, not followed**: the link itself
  becomes the new file and the file it pointed to is untouched (``lmdk batch --audit
  link`` once overwrote the link's target with the CONFIDENTIAL audit);
* **CONFIDENTIAL files get mode 0600** (read and write by their owner only) whatever the
  umask; publishable files get the usual ``0666 & ~umask`` (0644 with umask 022);
* **scratch folders** (raw rows of a batch, parts before they are published) are created
  new with mode 0700 (:func:`private_folder`); a folder of parts is published by
  :func:`replace_folder`.

Every writer of ``lmdk_core`` goes through this module
(``tests/files/test_atomic_write.py`` checks the sources for other writers).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import IO

__all__ = ["CONFIDENTIAL_MODE", "PRIVATE_FOLDER_MODE", "AtomicFile", "private_folder",
           "public_file_mode", "public_folder_mode", "replace_folder", "write_atomically"]

#: mode of a CONFIDENTIAL file: its owner reads and writes it, nobody else
CONFIDENTIAL_MODE = 0o600
#: mode of a scratch folder: its owner only
PRIVATE_FOLDER_MODE = 0o700


def _current_umask() -> int:
    """The process's umask, read from ``/proc/self/status`` (Linux) so that no other
    thread ever runs with a changed umask; elsewhere set and restored at once."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def public_file_mode() -> int:
    """The mode of a publishable file: ``0666 & ~umask``, as :func:`open` would make."""
    return 0o666 & ~_current_umask()


def public_folder_mode() -> int:
    """The mode of a published folder: ``0777 & ~umask``, as :func:`os.mkdir` would make."""
    return 0o777 & ~_current_umask()


class AtomicFile:
    """A file written whole or not at all (see the module docstring)::

        with AtomicFile("audit.csv", "w", confidential=True) as fh:
            fh.write(...)

    On a normal exit the temporary file is flushed, given its mode and moved over
    ``path``; on an exception it is removed and ``path`` is unchanged. :meth:`commit`
    and :meth:`discard` do the same outside a ``with`` block (a writer that stays open
    across calls)."""

    def __init__(self, path: str | os.PathLike, mode: str = "w", *, confidential: bool):
        if mode not in ("w", "wb"):
            raise ValueError(f"AtomicFile writes new files: mode 'w' or 'wb', got {mode!r}")
        self.path = Path(path)
        self.confidential = confidential
        fd, tmp = tempfile.mkstemp(dir=self.path.parent or ".",
                                   prefix=f".{self.path.name}.", suffix=".part")
        self.tmp = Path(tmp)
        try:
            self.file: IO = (os.fdopen(fd, "wb") if mode == "wb" else
                             os.fdopen(fd, "w", encoding="utf-8", newline=""))
        except BaseException:
            os.close(fd)
            self.tmp.unlink(missing_ok=True)
            raise
        self.done = False

    def commit(self) -> Path:
        """Flush, set the mode (0600 when confidential) and move the file into place."""
        if self.done:
            return self.path
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            os.fchmod(self.file.fileno(),
                      CONFIDENTIAL_MODE if self.confidential else public_file_mode())
            self.file.close()
            os.replace(self.tmp, self.path)
        except BaseException:
            self.discard()
            raise
        self.done = True
        return self.path

    def discard(self) -> None:
        """Close and remove the temporary file; ``path`` is left as it was."""
        with contextlib.suppress(OSError):
            self.file.close()
        self.tmp.unlink(missing_ok=True)
        self.done = True

    def __enter__(self) -> IO:
        return self.file

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def write_atomically(path: str | os.PathLike, content: str | bytes, *,
                     confidential: bool) -> Path:
    """Write ``content`` (text as UTF-8, or bytes) to ``path`` through :class:`AtomicFile`."""
    with AtomicFile(path, "wb" if isinstance(content, bytes) else "w",
                    confidential=confidential) as fh:
        fh.write(content)
    return Path(path)


def private_folder(path: str | os.PathLike, *, exist_ok: bool = False) -> Path:
    """Create the scratch folder ``path`` with mode 0700 (its owner only). A new folder
    unless ``exist_ok``; an existing one must be a real folder (not a link) owned by this
    user, else OSError."""
    p = Path(path)
    try:
        os.mkdir(p, PRIVATE_FOLDER_MODE)
    except FileExistsError:
        if not exist_ok:
            raise
        st = os.lstat(p)
        if not os.path.isdir(p) or os.path.islink(p) or st.st_uid != os.getuid():
            raise FileExistsError(f"{p} exists and is not this user's own folder") from None
        return p
    os.chmod(p, PRIVATE_FOLDER_MODE)  # whatever the umask
    return p


def _remove(path: Path) -> None:
    """Remove a file, a link (not its target) or a folder."""
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)


def replace_folder(folder: str | os.PathLike, dest: str | os.PathLike) -> Path:
    """Publish the scratch ``folder`` as ``dest``: mode ``0777 & ~umask`` (the folder and
    what it holds stay as written), an earlier ``dest`` (a folder, a file or a link —
    never the link's target) moved aside first and removed after, so ``dest`` names
    either the old or the new folder at every moment but the rename in between."""
    src, dst = Path(folder), Path(dest)
    os.chmod(src, public_folder_mode())
    aside = None
    if dst.is_symlink() or dst.exists():
        aside = dst.parent / f".{dst.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(dst, aside)
    try:
        os.replace(src, dst)
    except BaseException:
        if aside is not None:
            os.replace(aside, dst)
        raise
    if aside is not None:
        _remove(aside)
    return dst

