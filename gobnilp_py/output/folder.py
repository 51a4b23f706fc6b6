"""All-or-nothing output folders: a failed or interrupted run leaves no output files.

Files are written into a hidden staging folder beside the destination; only
when every file is complete is the staging folder renamed into place (and a
previous run's folder, recognised by its marker file, moved aside and
deleted).  Renames within one parent folder are atomic, so readers see the
old folder or the new one, never a mixture.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from types import TracebackType

from .._io import atomic_write_bytes, atomic_write_text
from ..config import RUN_MARKER
from ..errors import ConfigError

__all__ = ["StagedFolder"]

log = logging.getLogger("gobnilp_py")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class StagedFolder:
    """Collect files in a staging folder; :meth:`commit` moves them into ``dest`` as a whole.

    Use as a context manager: leaving the block by an exception (or without
    :meth:`commit`) deletes the staging folder and leaves ``dest`` untouched.
    """

    def __init__(self, dest: str | os.PathLike[str]) -> None:
        self.dest = Path(dest).resolve()
        self.staging: Path | None = None
        self.files: list[str] = []

    def __enter__(self) -> "StagedFolder":
        parent = self.dest.parent
        missing = []
        p = parent
        while not p.exists():
            missing.append(p)
            p = p.parent
        if not p.is_dir():
            raise ConfigError(f"output folder {self.dest}: {p} is not a folder")
        parent.mkdir(parents=True, exist_ok=True)
        self._created = missing  # removed again if the run fails, so a failure leaves nothing behind
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.dest.name}.staging-", dir=parent))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.staging is not None and self.staging.exists():
            shutil.rmtree(self.staging, ignore_errors=True)
            for d in getattr(self, "_created", []):  # deepest first
                try:
                    d.rmdir()
                except OSError:
                    break

    def path(self, name: str) -> Path:
        assert self.staging is not None, "use StagedFolder as a context manager"
        return self.staging / name

    def write_text(self, name: str, text: str) -> Path:
        return self.write_bytes(name, text.encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> Path:
        atomic_write_bytes(self.path(name), data)
        os.chmod(self.path(name), 0o666 & ~_umask())  # temp files are private; results are not
        self.files.append(name)
        return self.dest / name

    def commit(self, marker_text: str = "") -> list[Path]:
        """Move the staged files into place; returns their final paths."""
        assert self.staging is not None
        os.chmod(self.staging, 0o777 & ~_umask())
        atomic_write_text(self.staging / RUN_MARKER, marker_text or f"written by gobnilp-py run at {time.ctime()}\n")
        old: Path | None = None
        if self.dest.exists():
            if not self.dest.is_dir():
                raise ConfigError(f"output folder {self.dest} exists and is not a folder")
            if any(self.dest.iterdir()) and not (self.dest / RUN_MARKER).is_file():
                raise ConfigError(f"output folder {self.dest} now holds files not written by gobnilp-py run; "
                                  "nothing was written")
            old = Path(tempfile.mkdtemp(prefix=f".{self.dest.name}.old-", dir=self.dest.parent))
            os.rmdir(old)
            os.replace(self.dest, old)
        try:
            os.replace(self.staging, self.dest)
        except BaseException:
            if old is not None:
                os.replace(old, self.dest)
            raise
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return [self.dest / f for f in self.files]
