"""External-memory pieces of the order-graph search: sorted runs, k-way merge, spilled layers.

An order-graph layer is a table of rows ``(mask, f, leaf)``: the node set as a
``uint64`` bitmask, its best ``f = g + h`` (float64) and the last node added
on the best path to it (int8).  Layers are kept **sorted by mask with one row
per mask** ("reduced").  Two rows with the same mask are reduced to one by the
canonical rule of :func:`reduce_sorted`: the larger ``f``, and on equal ``f``
the smaller ``leaf``.  Because ``max`` and ``min`` are associative and
commutative and every ``f`` is computed by the same floating-point
expression whichever chunk produced it, reducing chunk by chunk, run by run
or all at once gives bit-identical layers: the search's result and its
per-layer counts do not depend on how much was spilled (delayed duplicate
detection, Korf 2008; Malone et al. 2011 §4).

:class:`Columns` holds such a table in RAM or in three raw files on disk;
:class:`ColumnWriter` appends reduced, sorted blocks and moves to disk when
its RAM share is exceeded; :func:`merge_runs` is a blocked k-way merge of
sorted runs (each run read a block at a time, so memory is ``k`` blocks).
:class:`SpillDir` owns a private temporary directory and removes it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ...errors import ScoreError

__all__ = ["SpillDir", "Columns", "ColumnWriter", "reduce_sorted", "sort_reduce", "merge_runs", "ROW_BYTES"]

_log = logging.getLogger(__name__)

#: Bytes per row of a layer table: mask (8), f (8), leaf (1).
ROW_BYTES = 17

_FIELDS = (("masks", np.uint64), ("f", np.float64), ("leaf", np.int8))


class SpillDir:
    """A private temporary directory under ``parent`` (default: the system's), removed by :meth:`cleanup`."""

    def __init__(self, parent: str | os.PathLike[str] | None = None) -> None:
        self._parent = None if parent is None else Path(parent)
        self._path: Path | None = None
        self._count = 0
        self.bytes_written = 0

    @property
    def path(self) -> Path:
        if self._path is None:
            if self._parent is not None:
                try:
                    self._parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise ScoreError(f"cannot create spill directory {self._parent}: {exc.strerror or exc}") from None
            self._path = Path(tempfile.mkdtemp(prefix="gobnilp-ordergraph-", dir=self._parent))
        return self._path

    @property
    def used(self) -> bool:
        return self._path is not None

    def new_stem(self, name: str) -> Path:
        self._count += 1
        return self.path / f"{name}-{self._count:06d}"

    def free_bytes(self) -> int:
        target = self._parent if self._parent is not None else Path(tempfile.gettempdir())
        while not target.exists() and target != target.parent:
            target = target.parent
        return shutil.disk_usage(target).free

    def cleanup(self) -> None:
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None

    def __enter__(self) -> "SpillDir":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


class Columns:
    """A reduced, mask-sorted table ``(masks, f, leaf)`` held in RAM or in raw files on disk."""

    def __init__(self, size: int, arrays: dict[str, np.ndarray] | None = None, stem: Path | None = None) -> None:
        self.size = int(size)
        self._arrays = arrays
        self._stem = stem

    # ---------------------------------------------------------------- build
    @classmethod
    def in_ram(cls, masks: np.ndarray, f: np.ndarray, leaf: np.ndarray) -> "Columns":
        return cls(len(masks), {"masks": masks, "f": f, "leaf": leaf})

    @classmethod
    def empty(cls) -> "Columns":
        return cls.in_ram(np.zeros(0, np.uint64), np.zeros(0, np.float64), np.zeros(0, np.int8))

    @property
    def on_disk(self) -> bool:
        return self._arrays is None

    @property
    def ram_bytes(self) -> int:
        if self._arrays is None:
            return 0
        return sum(a.nbytes for a in self._arrays.values())

    def to_disk(self, spill: SpillDir, name: str) -> "Columns":
        """This table written to ``spill`` (a new on-disk :class:`Columns`); a no-op if already on disk."""
        if self.on_disk:
            return self
        stem = spill.new_stem(name)
        for field, _ in _FIELDS:
            arr = self._arrays[field] if field in self._arrays else None
            if arr is None:
                continue
            _write(stem, field, arr, spill, append=False)
        return Columns(self.size, None, stem)

    # ----------------------------------------------------------------- read
    def field(self, name: str) -> np.ndarray:
        """The whole column (an array in RAM, or a read-only memory map of the file)."""
        if self._arrays is not None:
            return self._arrays[name]
        dtype = dict(_FIELDS)[name]
        if self.size == 0:
            return np.zeros(0, dtype)
        return np.memmap(_file(self._stem, name), dtype=dtype, mode="r", shape=(self.size,))

    def read(self, start: int, stop: int, fields: tuple[str, ...] = ("masks", "f", "leaf")
             ) -> tuple[np.ndarray, ...]:
        """Rows ``start:stop`` of the given columns, as in-RAM arrays."""
        stop = min(stop, self.size)
        out = []
        for name in fields:
            if self._arrays is not None:
                out.append(self._arrays[name][start:stop])
            else:
                dtype = np.dtype(dict(_FIELDS)[name])
                with open(_file(self._stem, name), "rb") as fh:
                    fh.seek(start * dtype.itemsize)
                    out.append(np.fromfile(fh, dtype=dtype, count=max(0, stop - start)))
        return tuple(out)

    def chunks(self, rows: int, fields: tuple[str, ...] = ("masks", "f", "leaf")
               ) -> Iterator[tuple[np.ndarray, ...]]:
        for start in range(0, self.size, max(1, rows)):
            yield self.read(start, start + rows, fields)

    def drop_f(self) -> None:
        """Forget the ``f`` column (reconstruction needs only masks and leaves)."""
        if self._arrays is not None:
            self._arrays.pop("f", None)
        elif self._stem is not None:
            try:
                os.remove(_file(self._stem, "f"))
            except OSError:
                pass

    def delete(self) -> None:
        """Release the RAM or remove the files."""
        if self._stem is not None:
            for name, _ in _FIELDS:
                try:
                    os.remove(_file(self._stem, name))
                except OSError:
                    pass
        self._arrays = None
        self._stem = None
        self.size = 0


def _file(stem: Path, field: str) -> str:
    return f"{stem}.{field}"


def _write(stem: Path, field: str, arr: np.ndarray, spill: SpillDir, *, append: bool) -> None:
    try:
        with open(_file(stem, field), "ab" if append else "wb") as fh:
            np.ascontiguousarray(arr).tofile(fh)
    except OSError as exc:
        raise ScoreError(f"order-graph search could not write its spill file in {spill.path}: "
                         f"{exc.strerror or exc} (free disk space or choose another spill_dir)") from None
    spill.bytes_written += arr.nbytes


class ColumnWriter:
    """Appends reduced, sorted blocks (masks strictly increasing across blocks); RAM up to ``ram_limit`` bytes."""

    def __init__(self, spill: SpillDir, name: str, ram_limit: int) -> None:
        self._spill = spill
        self._name = name
        self._ram_limit = ram_limit
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._ram = 0
        self._stem: Path | None = None
        self.size = 0

    def append(self, masks: np.ndarray, f: np.ndarray, leaf: np.ndarray) -> None:
        if len(masks) == 0:
            return
        self.size += len(masks)
        if self._stem is None:
            self._parts.append((masks, f, leaf))
            self._ram += masks.nbytes + f.nbytes + leaf.nbytes
            if self._ram > self._ram_limit:
                self._stem = self._spill.new_stem(self._name)
                for part in self._parts:
                    self._write(part)
                self._parts = []
                self._ram = 0
        else:
            self._write((masks, f, leaf))

    def _write(self, part: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        for (field, _), arr in zip(_FIELDS, part):
            _write(self._stem, field, arr, self._spill, append=True)

    def finish(self) -> Columns:
        if self._stem is not None:
            return Columns(self.size, None, self._stem)
        if not self._parts:
            return Columns.empty()
        if len(self._parts) == 1:
            return Columns.in_ram(*self._parts[0])
        return Columns.in_ram(*(np.concatenate([p[i] for p in self._parts]) for i in range(3)))


def reduce_sorted(masks: np.ndarray, f: np.ndarray, leaf: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per mask of rows sorted by mask: the largest ``f``, on ties the smallest ``leaf``."""
    if len(masks) <= 1:
        return masks, f, leaf
    starts = np.flatnonzero(np.concatenate(([True], masks[1:] != masks[:-1])))
    if len(starts) == len(masks):
        return masks, f, leaf
    best = np.maximum.reduceat(f, starts)
    sizes = np.diff(np.append(starts, len(masks)))
    at_best = f == np.repeat(best, sizes)
    lf = np.minimum.reduceat(np.where(at_best, leaf, np.int8(127)), starts).astype(np.int8)
    return masks[starts], best, lf


def sort_reduce(masks: np.ndarray, f: np.ndarray, leaf: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort rows by mask (stable; runs already sorted are merged cheaply by timsort) and reduce."""
    order = np.argsort(masks, kind="stable")
    return reduce_sorted(masks[order], f[order], leaf[order])


def merge_runs(runs: list[Columns], writer: ColumnWriter, block_rows: int) -> None:
    """k-way merge of reduced sorted runs into ``writer``, reducing equal masks across runs.

    Each run is read ``block_rows`` at a time.  In every round the *boundary*
    is the smallest last mask among the buffers of runs not yet fully read;
    every row ``<= boundary`` of every buffer can be merged now, because the
    rows still unread in any run are larger than their buffer's last mask,
    hence larger than the boundary.  The run defining the boundary empties its
    buffer, so every round makes progress.
    """
    runs = [r for r in runs if r.size]
    if not runs:
        return
    if len(runs) == 1:
        for part in runs[0].chunks(block_rows):
            writer.append(*part)
        return
    block_rows = max(1, block_rows)
    pos = [0] * len(runs)  # next unread row of each run
    bufs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = [runs[i].read(0, 0) for i in range(len(runs))]

    def refill(i: int) -> None:
        if pos[i] < runs[i].size and len(bufs[i][0]) < block_rows:
            new = runs[i].read(pos[i], pos[i] + block_rows)
            pos[i] += len(new[0])
            bufs[i] = tuple(np.concatenate((a, b)) for a, b in zip(bufs[i], new))  # type: ignore[assignment]

    for i in range(len(runs)):
        refill(i)
    while True:
        live = [i for i in range(len(runs)) if len(bufs[i][0]) or pos[i] < runs[i].size]
        if not live:
            break
        partial = [int(bufs[i][0][-1]) for i in live if pos[i] < runs[i].size]
        boundary = min(partial) if partial else None
        parts = []
        for i in live:
            m = bufs[i][0]
            cut = len(m) if boundary is None else int(np.searchsorted(m, np.uint64(boundary), side="right"))
            if cut:
                parts.append(tuple(a[:cut] for a in bufs[i]))
                bufs[i] = tuple(a[cut:] for a in bufs[i])  # type: ignore[assignment]
        if parts:
            writer.append(*sort_reduce(*(np.concatenate([p[k] for p in parts]) for k in range(3))))
        for i in live:
            refill(i)
