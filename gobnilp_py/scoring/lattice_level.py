"""The numpy lattice walk's level structures: a level of every child's scored sets as arrays
(:class:`_Level`), its per-child views (:class:`_LevelViews`) and its ``(child, mask)`` look-ups
(:class:`_LevelKeys`).

Why apart from the walk (:mod:`.lattice_walk`) and the generation (:mod:`.lattice_generate`):
both read a level through these, and their layout (bytes a row, the key layouts by the number
of variables) is a decision of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._memory import give_back_freed_memory
from .counts import distinct_small, find_sorted as _lookup, segment_ids


#: Most variables for which a (child, mask) pair packs into one int64 key ``child << n | mask``
#: (children below 2^6 take the bits above the mask's n): the walk's sorted look-up keys and its
#: child-then-mask sorts.
COMBINED_KEY_MAX_N = 57


@dataclass
class _Level:
    """One child's scored sets of one size, as arrays sorted by bitmask."""

    masks: np.ndarray      # int64 (M,)
    elems: np.ndarray      # int8 (M, k), each row sorted (n <= 62: masks are int64)
    ll: np.ndarray         # float (M,), NaN when the score has no LL
    best: np.ndarray       # float (M,): best score of the set or any subset
    q: np.ndarray          # float (M,): declared number of parent configurations
    nnu: np.ndarray        # int8 (M,): parents of arity >= 2
    cells: np.ndarray      # int32 (M,): cells with N_jk > 0 (cell_bound; zeros otherwise)
    ub: np.ndarray         # float (M,): ml_ceiling bound of the set and its supersets (+inf otherwise)

    # k + 45 bytes a row (was 8k + 56 with int64 elements, counts and cells): the stored level is
    # what a wide walk holds (spectf: 48.9 million rows of size 5), so small integers are kept small.

    #: The fields, in constructor order.
    FIELDS: ClassVar[tuple[str, ...]] = ("masks", "elems", "ll", "best", "q", "nnu", "cells", "ub")

    def nbytes(self) -> int:
        return sum(getattr(self, f).nbytes for f in self.FIELDS)

    def views(self, off: np.ndarray) -> "_LevelViews":
        """Child ``v``'s rows ``off[v]:off[v + 1]`` as a :class:`_Level` of views (no copy), made when asked for."""
        return _LevelViews(self, off)

    @staticmethod
    def concat(parts: list["_Level"], k: int, consume: bool = False, order: np.ndarray | None = None) -> "_Level":
        """The parts one after the other (rows then permuted by ``order`` when given).  ``consume``:
        each field of the parts is released as soon as it is joined (the parts are unusable
        afterwards), so the join holds one field's copies at most."""
        if not parts:
            e = np.zeros(0, dtype=np.int64)
            f = np.zeros(0)
            return _Level(e, np.zeros((0, k), dtype=np.int8), f, f, f, np.zeros(0, dtype=np.int8),
                          np.zeros(0, dtype=np.int32), f)
        if len(parts) == 1 and order is None:
            return parts[0]
        joined = []
        for name in _Level.FIELDS:
            field_ = np.concatenate([getattr(p, name) for p in parts])
            joined.append(field_ if order is None else field_[order])
            del field_
            if consume:
                for p in parts:
                    setattr(p, name, None)
                give_back_freed_memory()     # the parts' field, freed in the heap's middle
        return _Level(*joined)


class _LevelViews:
    """Every child's rows of a level (:meth:`_Level.views`): ``views[v]`` is a :class:`_Level` of
    views, made on first use; :meth:`size` and :meth:`masks` read the level directly.

    Why lazy: the numpy generation reads only each child's masks, and making eight views per
    child and level was 2% of a small dataset's scoring (wine: 14 children, 6 levels).
    """

    def __init__(self, cat: _Level, off: np.ndarray) -> None:
        self.cat = cat
        self.bounds = list(zip(off[:-1].tolist(), off[1:].tolist()))
        self._made: dict[int, _Level] = {}

    def __len__(self) -> int:
        return len(self.bounds)

    def __getitem__(self, v: int) -> _Level:
        lv = self._made.get(v)
        if lv is None:
            a, b = self.bounds[v]
            lv = self._made[v] = _Level(*(getattr(self.cat, f)[a:b] for f in _Level.FIELDS))
        return lv

    def size(self, v: int) -> int:
        """Child ``v``'s number of rows."""
        a, b = self.bounds[v]
        return b - a

    def masks(self, v: int) -> np.ndarray:
        """Child ``v``'s masks (a view, sorted)."""
        a, b = self.bounds[v]
        return self.cat.masks[a:b]


class _LevelKeys:
    """Look-ups of ``(child, mask)`` in a level stored child by child (:class:`_Level`, ``off``).

    Why: the generation of a level is done for all children at once, and its
    Apriori and entropy look-ups ask for sets of many children in one call.
    Three layouts, by the number of variables ``n``:

    - ``n * 2^n <=`` :data:`DENSE_KEY_SLOTS`: a table of every ``(child, mask)``
      holding the row plus one, or 0, so a look-up is one gather (binary searches of
      random queries were a third of the generation on zoo);
    - up to 57 variables, ``child << n | mask`` fits an int64 and is sorted
      over the whole level (children ascending, masks sorted inside each): one
      binary search;
    - beyond, one binary search per child asked for.
    """

    def __init__(self, cat: _Level, off: np.ndarray, n: int, table: np.ndarray | None = None) -> None:
        """``table``: the walk's dense table (:meth:`dense_table`, all 0), filled here and emptied
        by :meth:`clear` -- allocated once and kept between walks (:meth:`give_back`), as filling
        2^n slots per level would cost more than the look-ups save."""
        self.masks, self.off, self.n = cat.masks, off, n
        self.keys: np.ndarray | None = None
        self.table = table
        if n <= COMBINED_KEY_MAX_N:
            self.keys = np.left_shift(segment_ids(off), n) | cat.masks
            if table is not None:
                table[self.keys] = np.arange(1, self.keys.size + 1, dtype=table.dtype)

    #: The spare dense table (all 0) a finished walk hands back for the next one: allocating and
    #: filling n 2^n slots per call cost zoo (8.5 MiB) about 2-3 ms of its 20-25 ms, most of it
    #: page faults on the fresh memory.  At most one table, at most DENSE_KEY_SLOTS int16 or int32
    #: slots (8 or 16 MiB, see :meth:`fit`), is kept; a walk that stops on an exception does not
    #: hand its table back.  Empty slots hold 0
    #: (rows are stored plus one) so that a new table is ``np.zeros``: the allocator hands over
    #: zeroed pages that fault only where the walk touches them, where ``np.full(-1)`` wrote all
    #: of them (1.4-4.6 ms of a first call on zoo, measured in session 17).
    _spare: ClassVar[list[np.ndarray]] = []

    @staticmethod
    def dense_table(n: int) -> np.ndarray | None:
        """An empty dense table for ``n`` variables, or None when ``n * 2^n`` exceeds :data:`DENSE_KEY_SLOTS`."""
        if n * (1 << n) > DENSE_KEY_SLOTS:
            return None
        try:
            spare = _LevelKeys._spare.pop()      # atomic: two threads never get the same table
        except IndexError:
            spare = None
        if spare is not None and spare.size == n << n:
            return spare
        return np.zeros(n << n, dtype=np.int16)

    @staticmethod
    def fit(table: np.ndarray | None, rows: int) -> np.ndarray | None:
        """``table``, or an empty int32 one of its size when a level of ``rows`` rows (stored plus
        one) would not fit in its slots.

        Why int16 first: the look-ups are random gathers from the table, and half the bytes is
        half the cache it needs (wine: 458 KiB instead of 917 KiB, warm calls 17.3 -> 15.2 ms,
        session 19).  A level of 32,767 rows or more (beyond small data) moves to int32 for the
        rest of the walk, and the wider table is the one kept for the next walk.
        """
        if table is None or rows < np.iinfo(table.dtype).max:
            return table
        return np.zeros(table.size, dtype=np.int32)

    @staticmethod
    def give_back(table: np.ndarray | None) -> None:
        """Keep ``table`` (all 0 again) for the next walk, in place of any spare held."""
        if table is not None:
            _LevelKeys._spare[:] = [table]

    def clear(self) -> None:
        """Empty the dense table again (only the slots this level filled)."""
        if self.table is not None and self.keys is not None:
            self.table[self.keys] = 0

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.keys, self.table) if a is not None)

    def find(self, child: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the level holding ``(child[i], masks[i])`` (any shape) and whether each is there
        (the row is meaningless where it is not)."""
        if self.table is not None:
            pos = self.table[np.left_shift(child, self.n) | masks]     # int32: a valid index as it is
            hit = pos > 0
            pos -= 1                                                    # -1 where absent, as below
            return pos, hit
        if self.keys is not None:
            return _lookup(self.keys, np.left_shift(child, self.n) | masks)
        # ``child`` broadcasts against ``masks`` (a column of children for a row of subsets) above;
        # the boolean selections below need it at the masks' shape
        child = np.broadcast_to(child, masks.shape)
        pos = np.zeros(masks.shape, dtype=np.int64)
        hit = np.zeros(masks.shape, dtype=bool)
        for c in distinct_small(child):
            sel = child == c
            a, b = int(self.off[c]), int(self.off[c + 1])
            if b > a:
                p_, h_ = _lookup(self.masks[a:b], masks[sel])
                pos[sel], hit[sel] = p_ + a, h_
        return pos, hit


#: Largest ``n * 2^n`` for which :class:`_LevelKeys` uses a dense table (int16 or int32 slots:
#: 8 or 16 MB at n = 18).
DENSE_KEY_SLOTS = 1 << 22
