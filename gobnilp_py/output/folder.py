"""Output folders and files: all or nothing, and never a file of the user's touched.

All or nothing
    Files are written into a hidden staging folder beside the destination;
    only when every file is complete is the staging folder renamed into place
    (a previous run's folder moved aside and deleted).  Renames within one
    parent folder are atomic, so readers see the old folder or the new one,
    never a mixture, and an error or an interrupt leaves nothing behind.

A folder whose parent is not writable, or a mount point
    The usual container mount (``-o /out``: a mount point, often with ``/``
    read-only) cannot be replaced as a whole, but it exists and can be
    written: the staging
    folder is then made *inside* it (``.gobnilp-staging-<pid>-<random>``)
    and the finished files are moved into place one by one, each atomically,
    with the marker last.  A reader may then briefly see new files beside
    old ones; every file is still complete, and an error or an interrupt
    before the moves still leaves the folder untouched.

Leftovers of a killed run
    Staging folders, folders moved aside and temporary files carry the
    writer's process id and are locked while in use
    (:mod:`gobnilp_py._io`); a run into the same place removes the stale
    ones of an earlier, killed run (only ours, only those whose writer is
    gone) and logs one warning saying so.

Never a file we did not write
    Every folder we write holds a marker file, :data:`RUN_MARKER`, listing the
    files of that run.  A later run may replace exactly those.  Any other file
    in the folder (one the user put there, or a folder that was never ours)
    blocks the run *before the work*, with one line naming the file, unless
    ``force`` is given: then our files are written into the folder one by one
    (each atomically), overwriting files with the same names, and every other
    file is left where it is.  A single output file (``score -o x.jkl``) is
    overwritten only if it is one of ours (a ``.jkl`` we wrote starts with our
    provenance lines) or with ``force``.

Checked before the work
    :func:`check_output_folder` and :func:`check_output_file` find a missing
    or read-only parent, a path that is a file where a folder is wanted (or
    the reverse), and foreign files, so a long run never ends in "cannot
    write".  Write errors that only appear later (a full disk) are one-line
    :class:`~gobnilp_py.errors.OutputError` messages, and still leave nothing.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from .._io import atomic_write_bytes, atomic_write_text, lock, remove_stale, umask
from .._version import __version__
from ..errors import OutputError

__all__ = ["StagedFolder", "RUN_MARKER", "check_output_folder", "check_output_file", "make_parent", "ours_in",
           "write_error"]

log = logging.getLogger(__name__)

#: Marker file in every output folder gobnilp-py writes: JSON with the list of its files.
RUN_MARKER = ".gobnilp-run"
#: Prefix of a staging folder made inside the output folder (when its parent is not writable).
INSIDE_STAGING = ".gobnilp-staging-"
#: Files a marker of an earlier version (plain text, no list) may have vouched for.
_LEGACY_NAMES = frozenset({"result.json", "networks.csv", "networks.txt", "scores.jkl", "modelstrings.txt",
                           "best.dot", "best_dag.png", "best_cpdag.png", "edge_probabilities.png",
                           "score_rank.png", "report.md", "report.html", "summary.json"})


def write_error(exc: OSError, what: str | os.PathLike[str]) -> OutputError:
    """A one-line :class:`OutputError` for an OS error while writing ``what``."""
    reason = exc.strerror or str(exc)
    return OutputError(f"cannot write {what}: {reason}")


def ours_in(folder: Path) -> frozenset[str] | None:
    """Names of the files our marker in ``folder`` vouches for (``None``: no marker, not our folder)."""
    marker = folder / RUN_MARKER
    if not marker.is_file():
        return None
    try:
        text = marker.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    try:
        data = json.loads(text)
    except ValueError:
        return _LEGACY_NAMES  # a marker of an earlier version: plain text
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return frozenset()
    return frozenset(str(f) for f in files if isinstance(f, str) and "/" not in f and f not in ("", ".", ".."))


def _foreign(folder: Path) -> list[str]:
    """Files in ``folder`` our marker does not list (our staging folders inside it are ours)."""
    ours = ours_in(folder) or frozenset()
    return sorted(p.name for p in folder.iterdir()
                  if p.name != RUN_MARKER and p.name not in ours and not p.name.startswith(INSIDE_STAGING))


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def check_output_folder(folder: str | os.PathLike[str], *, force: bool = False) -> None:
    """Refuse, before any work, an output folder that could not be written or holds foreign files.

    Raises
    ------
    OutputError
        ``folder`` is a file; its nearest existing ancestor is not a folder or
        not writable; it exists but is not writable; or it holds a file our
        marker does not list (naming it) and ``force`` is false.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} exists and is not a folder")
    if folder.is_dir():
        if not force:
            foreign = _foreign(folder)
            if foreign:
                more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
                raise OutputError(f"{folder} holds {foreign[0]!r}{more}, which gobnilp-py did not write; choose "
                                  "another folder, move it away, or pass --force (force = true) to write beside it")
        if not _writable(folder):
            raise OutputError(f"{folder} is not writable")
        return  # a parent that is not writable is fine: the files are then staged inside the folder
    ancestor = _nearest_existing(folder.parent if str(folder.parent) else Path("."))
    if not ancestor.is_dir():
        raise OutputError(f"{folder}: {ancestor} is not a folder")
    if not _writable(ancestor):
        raise OutputError(f"{folder}: {ancestor} is not writable")


def _jkl_is_ours(path: Path) -> bool:
    from ..scoring.table import jkl_written_by_us

    return jkl_written_by_us(path)


def check_output_file(path: str | os.PathLike[str], *, force: bool = False,
                      is_ours: Callable[[Path], bool] = _jkl_is_ours) -> None:
    """Refuse, before any work, an output file that could not be written or is not ours to overwrite.

    Raises
    ------
    OutputError
        The path is a folder; its nearest existing folder is not a folder or
        not writable (a missing folder is created when the file is written,
        as an output folder's missing parents are: :func:`make_parent`); or
        it exists, was not written by gobnilp-py (``is_ours``) and ``force``
        is false.
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"output {path} is a folder, expected a file name")
    ancestor = _nearest_existing(parent)
    if not ancestor.is_dir():
        raise OutputError(f"cannot write {path}: {ancestor} is not a folder")
    if not _writable(ancestor):
        raise OutputError(f"cannot write {path}: folder {ancestor} is not writable")
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise OutputError(f"output {path} exists and is not a regular file")
        if not force and not is_ours(path):
            raise OutputError(f"{path} exists and was not written by gobnilp-py; choose another name, or pass "
                              "--force to overwrite it")


def make_parent(path: str | os.PathLike[str]) -> None:
    """Create the missing folders above an output file, after the work (:func:`check_output_file`
    found the nearest existing one writable), as :class:`StagedFolder` creates an output folder's."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)


class StagedFolder:
    """Collect files in a staging folder; :meth:`commit` moves them into ``dest`` as a whole.

    Use as a context manager: leaving the block by an exception (or without
    :meth:`commit`) deletes the staging folder and leaves ``dest`` untouched.

    Parameters
    ----------
    dest : path
        The output folder.
    force : bool
        Write into a folder holding files we did not write (see the module docstring).
    """

    def __init__(self, dest: str | os.PathLike[str], *, force: bool = False) -> None:
        self.dest = Path(dest).resolve()
        self.force = force
        self.staging: Path | None = None
        self.files: list[str] = []
        self._created: list[Path] = []
        #: True when the staging folder is inside ``dest`` (its parent is not writable): files move one by one.
        self.inside = False
        self._lock_fd: int | None = None

    def __enter__(self) -> "StagedFolder":
        check_output_folder(self.dest, force=self.force)
        parent = self.dest.parent
        # A mount point cannot be renamed (EBUSY) even in a writable parent: stage inside it too.
        self.inside = self.dest.is_dir() and (not _writable(parent) or os.path.ismount(self.dest))
        self._remove_stale()
        missing = []
        p = parent
        while not p.exists():
            missing.append(p)
            p = p.parent
        try:
            if self.inside:
                where, prefix = self.dest, f"{INSIDE_STAGING}{os.getpid()}-"
            else:
                parent.mkdir(parents=True, exist_ok=True)
                self._created = missing  # removed again if the run fails, so a failure leaves nothing behind
                where, prefix = parent, f".{self.dest.name}.staging-{os.getpid()}-"
            self.staging = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
            self._lock_fd = os.open(self.staging, os.O_RDONLY)
            lock(self._lock_fd)  # held until the end: a later run sees a live staging folder, not a stale one
        except OSError as exc:
            self._release()
            if self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
                self.staging = None
            self._remove_created()
            raise write_error(exc, self.dest) from None
        return self

    def _remove_stale(self) -> None:
        """Delete what a killed earlier run into ``dest`` left: its staging folders and the folders it moved aside."""
        name = self.dest.name
        if _writable(self.dest.parent):
            remove_stale(self.dest.parent, (f".{name}.staging-", f".{name}.old-"), "staging folder")
        if self.dest.is_dir() and _writable(self.dest):
            remove_stale(self.dest, (INSIDE_STAGING,), "staging folder")

    def _release(self) -> None:
        if self._lock_fd is not None:
            try:
                os.close(self._lock_fd)
            except OSError:
                pass
            self._lock_fd = None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.staging is not None and self.staging.exists():
            shutil.rmtree(self.staging, ignore_errors=True)
            self._remove_created()
        self._release()

    def _remove_created(self) -> None:
        for d in self._created:  # deepest first
            try:
                d.rmdir()
            except OSError:
                break

    def path(self, name: str) -> Path:
        if self.staging is None:
            raise RuntimeError("use StagedFolder as a context manager")
        return self.staging / name

    def write_text(self, name: str, text: str) -> Path:
        return self.write_bytes(name, text.encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> Path:
        try:
            atomic_write_bytes(self.path(name), data, mode=0o666 & ~umask())
        except OSError as exc:
            raise write_error(exc, self.dest / name) from None
        self.files.append(name)
        return self.dest / name

    def _marker(self, note: str) -> str:
        return json.dumps({"written_by": f"gobnilp-py {__version__}", "note": note, "time": time.ctime(),
                           "files": list(dict.fromkeys(self.files))}, indent=1) + "\n"

    def commit(self, marker_text: str = "") -> list[Path]:
        """Move the staged files into place; returns their final paths.

        Raises
        ------
        OutputError
            A file we did not write appeared in ``dest`` during the run (and
            ``force`` is false), or a write failed; nothing is then changed.
        """
        if self.staging is None:
            raise RuntimeError("use StagedFolder as a context manager")
        try:
            os.chmod(self.staging, 0o777 & ~umask())
            atomic_write_text(self.staging / RUN_MARKER, self._marker(marker_text.strip()),
                              mode=0o666 & ~umask())
        except OSError as exc:
            raise write_error(exc, self.dest / RUN_MARKER) from None
        if self.dest.exists():
            if not self.dest.is_dir():
                raise OutputError(f"output folder {self.dest} exists and is not a folder; nothing was written")
            foreign = _foreign(self.dest)
            if foreign and not self.force:
                raise OutputError(f"output folder {self.dest} now holds {foreign[0]!r}, which gobnilp-py did not "
                                  "write; nothing was written")
            if foreign or self.inside:
                self._merge_into_dest()
                return [self.dest / f for f in self.files]
        self._swap_in()
        return [self.dest / f for f in self.files]

    def _swap_in(self) -> None:
        """Rename the staging folder to ``dest`` (moving an old folder of ours aside first)."""
        assert self.staging is not None
        old: Path | None = None
        old_fd: int | None = None
        try:
            if self.dest.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{self.dest.name}.old-{os.getpid()}-", dir=self.dest.parent))
                os.rmdir(old)
                os.replace(self.dest, old)
                old_fd = os.open(old, os.O_RDONLY)
                lock(old_fd)  # being deleted by a live process: not stale
            try:
                os.replace(self.staging, self.dest)
            except BaseException:
                if old is not None:
                    os.replace(old, self.dest)
                raise
        except OSError as exc:
            if old_fd is not None:
                os.close(old_fd)
            raise write_error(exc, self.dest) from None
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        if old_fd is not None:
            os.close(old_fd)

    def _merge_into_dest(self) -> None:
        """Replace our files one by one, leave every other file alone.

        For ``force`` with foreign files present, and for a folder whose parent is not writable (staged inside).
        """
        assert self.staging is not None
        previous = ours_in(self.dest) or frozenset()
        try:
            for name in dict.fromkeys(self.files):
                os.replace(self.staging / name, self.dest / name)
            for name in previous - set(self.files):  # stale outputs of our previous run
                stale = self.dest / name
                if stale.is_file():
                    stale.unlink()
            os.replace(self.staging / RUN_MARKER, self.dest / RUN_MARKER)
        except OSError as exc:
            raise write_error(exc, self.dest) from None
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging = None
