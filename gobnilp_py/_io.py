"""Atomic file writes: a failed or interrupted run never leaves a half-written file.

Everything is written to a temporary file in the destination folder and then
moved into place with :func:`os.replace`, which is atomic on POSIX and Windows.

The temporary file is created private (mode 0600, by :func:`tempfile.mkstemp`);
before the rename it gets the mode an ordinary ``open(path, "w")`` would have
given it: the existing file's mode when one is replaced, else ``0666`` minus
the process umask.  Results are meant to be shared like any other file the
user creates.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text", "atomic_write_bytes", "umask", "default_file_mode"]


def umask() -> int:
    """The process umask (read without changing it for longer than two system calls)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_file_mode(dest: str | os.PathLike[str]) -> int:
    """Mode a new file at ``dest`` gets: the mode of the file it replaces, else ``0666 & ~umask``."""
    try:
        return stat.S_IMODE(os.stat(dest).st_mode)
    except OSError:
        return 0o666 & ~umask()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then rename).

    Parameters
    ----------
    path : path
    data : bytes
    mode : int, optional
        Permission bits of the result (default: :func:`default_file_mode`).
    """
    dest = Path(path)
    folder = dest.parent if str(dest.parent) else Path(".")
    final_mode = default_file_mode(dest) if mode is None else mode
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, final_mode)
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)
