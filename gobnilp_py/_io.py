"""Atomic file writes: a failed or interrupted run never leaves a half-written file.

Everything is written to a temporary file in the destination folder and then
moved into place with :func:`os.replace`, which is atomic on POSIX and Windows.

The temporary file is created private (mode 0600, by :func:`tempfile.mkstemp`);
before the rename it gets the mode an ordinary ``open(path, "w")`` would have
given it: the existing file's mode when one is replaced, else ``0666`` minus
the process umask.  Results are meant to be shared like any other file the
user creates.

Leftovers of a killed run
    SIGKILL (or a power cut) gives no chance to clean up, so a temporary
    file (``.NAME.tmp-<pid>-<random>.part``) or a staging folder of
    :mod:`gobnilp_py.output.folder` can stay behind.  Each carries the
    writer's process id in its name and is locked (``flock``) by the writer
    while it exists, so the next write into the same place can tell a stale
    one from a live one: it is stale when no process holds its lock and its
    process is gone (or is the current one: a container restarts at the same
    pid).  :func:`remove_stale` deletes only those, only with our names, and
    the write logs one warning naming what it removed.  Without ``fcntl``
    (Windows) nothing is removed.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from ._wording import count, printable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["atomic_write_text", "atomic_write_bytes", "umask", "default_file_mode", "lock", "remove_stale",
           "owner_pid"]

log = logging.getLogger("gobnilp_py")

#: The writer's process id inside a leftover's name: ``...-<pid>-<random>`` (``.part`` files, staging folders).
_PID_RE = re.compile(r"-(\d+)-[A-Za-z0-9_]+(\.part)?$")


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


def owner_pid(name: str) -> int | None:
    """The process id a leftover's name carries, or ``None`` (not a name we give)."""
    m = _PID_RE.search(name)
    return int(m.group(1)) if m else None


def lock(fd: int) -> None:
    """Hold an exclusive ``flock`` on ``fd`` (released when the process ends, however it ends)."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a file system without locks: the pid alone then tells live from stale
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # our own pid on a leftover: an earlier process that had it (a restarted container)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by another user
        return True
    return True


def _stale(path: Path) -> bool:
    """True when ``path`` (one of our leftovers) has no live writer: its process is gone and no one holds its lock."""
    pid = owner_pid(path.name)
    if fcntl is None or pid is None or _alive(pid):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # someone holds it: a live writer
    finally:
        os.close(fd)
    return True


def remove_stale(folder: str | os.PathLike[str], prefixes: tuple[str, ...], what: str, *,
                 suffix: str = "") -> list[str]:
    """Delete the stale leftovers in ``folder`` whose names start with one of ``prefixes``; log what was removed.

    ``what`` names one leftover (``"staging folder"``), for the warning.

    Only names that carry a process id (:func:`owner_pid`) are considered,
    and only those whose writer is gone (see the module docstring).  Errors
    are ignored: cleaning up is a courtesy, never a reason to fail a run.
    """
    if fcntl is None:
        return []
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefixes) and e.name.endswith(suffix)]
    except OSError:
        return []
    removed = []
    for entry in entries:
        path = Path(entry.path)
        if entry.is_symlink() or not _stale(path):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(entry.name)
    if removed:
        shown = ", ".join(removed[:3]) + (f" and {len(removed) - 3} more" if len(removed) > 3 else "")
        log.warning("removed %s left in %s by an earlier run that was killed: %s",
                    count(len(removed), f"stale {what}"), folder, shown)
    return removed


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
    remove_stale(folder, (f".{dest.name}.tmp-",), "temporary file", suffix=".part")
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.tmp-{os.getpid()}-", suffix=".part", dir=folder)
    lock(fd)
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


def read_input_bytes(path: str | os.PathLike[str], what: str, error: type[Exception]) -> bytes:
    """The bytes of an input file (``what``: "data", "score", ...), or one ``error`` line naming the problem.

    Shared by every reader of a user's file, so a missing file, a folder, a device or an unreadable
    file is told the same way whatever the file is for: ``{what} file not found: PATH``, ``{what}
    file PATH is a folder, not a file``, ... (a FIFO is read: ``<(zcat data.gz)`` works).
    """
    shown = printable(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} file not found: {shown}") from None
    except OSError as exc:
        raise error(f"cannot read {what} file {shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{what} file {shown} is a folder, not a file")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise error(f"{what} file {shown} is not a regular file (a device or socket)")
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} file {shown}: {exc.strerror or exc}") from None


def decode_input_text(raw: bytes, what: str, shown: str, error: type[Exception], *, sniff_utf16: bool = False,
                      note: str = "") -> str:
    """The UTF-8 text of an input file's bytes (a BOM dropped), or one ``error`` line naming the problem.

    Shared by every text reader of a user's file (data, score tables, constraints), so UTF-16, binary
    data and another encoding are told the same way whatever the file is for.  ``sniff_utf16``: also
    take a file without a BOM whose every other byte is mostly zero for UTF-16 (hand-written files);
    ``note`` ends the binary-data line (``"; a .jkl score file is text"``).
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or (sniff_utf16 and len(raw) >= 4 and (
            raw[1::2].count(0) > len(raw) // 4 or raw[0::2].count(0) > len(raw) // 4)):
        raise error(f"{what} file {shown} is UTF-16 text; save it as UTF-8")
    nul = raw.find(b"\0")
    if nul >= 0:
        raise error(f"{what} file {shown} is not a text file (binary data at byte {nul}){note}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{what} file {shown} is not UTF-8 text (invalid byte 0x{raw[exc.start]:02x} at offset "
                    f"{exc.start}: Latin-1 or another encoding?); save it as UTF-8") from None
