"""Vectorised counting of parent configurations and family contingency tables.

Every local score in this package is a function of the counts ``N_jk`` (rows
where the parents take configuration ``j`` and the child takes state ``k``).
Counting dominates scoring time, so it is done with whole-column numpy
arithmetic, never with a per-row Python loop:

* a parent configuration is a mixed-radix number over the parent columns;
  the code of ``W + (j,)`` is built from the (cached) code of ``W`` as
  ``code(W) * r_j + x_j``, so a lattice walk in lexicographic order pays one
  multiply-add per new parent set;
* when the code range grows past the number of rows it is compressed to dense
  ids of the *observed* configurations (one ``bincount`` + ``cumsum``), which
  keeps every later ``bincount`` small;
* one parent set is counted for many children at once: the joint codes of all
  children are laid side by side and counted with a single ``np.bincount``;
* identical rows are merged first and counted with weights when that shrinks
  the data noticeably (30,162 rows of ``adult`` are 3,414 distinct ones).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..data.dataset import Dataset

__all__ = ["ParentConfigs", "FamilyCounts", "BlockCounts", "SetBlockCounts", "xlogx_table"]


def xlogx_table(n_max: int) -> np.ndarray:
    """``t[c] = c * ln(c)`` for ``c = 0 .. n_max`` (with ``0 ln 0 = 0``).

    Counts are integers bounded by N, so a lookup table replaces a ``log``
    per cell and makes log-likelihoods exact to the last bit across calls.
    """
    c = np.arange(n_max + 1, dtype=np.float64)
    out = np.zeros_like(c)
    out[1:] = c[1:] * np.log(c[1:])
    return out


@dataclass(frozen=True)
class FamilyCounts:
    """Counts of one parent set for several children, computed together.

    Attributes
    ----------
    parents : tuple of int
        The parent set (sorted variable indices).
    children : numpy.ndarray of int64
        The children counted, in order.
    child_arities : numpy.ndarray of int64
        Declared arity ``r`` of each child.
    q : int
        Declared number of parent configurations (product of declared parent
        arities; 1 for the empty set).  Python int: it can exceed 2**63.
    config_counts : numpy.ndarray of int64
        ``N_j`` for every *observed* parent configuration (all > 0).
    flat : numpy.ndarray of int64
        Child ``i``'s table ``N_jk`` is ``flat[offsets[i]:offsets[i+1]]``
        reshaped to ``(m, r_i)``, rows indexed by configuration id ``0 .. m-1``
        (ids may include unobserved configurations, whose rows are zero).
    offsets : numpy.ndarray of int64
        Segment boundaries in ``flat``, length ``len(children) + 1``.
    m : int
        Range of configuration ids used in ``flat``.
    """

    parents: tuple[int, ...]
    children: np.ndarray
    child_arities: np.ndarray
    q: int
    config_counts: np.ndarray
    flat: np.ndarray
    offsets: np.ndarray
    m: int

    @property
    def n_configs(self) -> int:
        """Number of parent configurations observed in the data."""
        return int(self.config_counts.size)

    def nonzero_cells(self) -> np.ndarray:
        """Per child, the number of cells with ``N_jk > 0`` (observed (configuration, state) pairs).

        Never decreases when parents are added (cells only split), which makes
        it the basis of the BDeu bound in :mod:`.pruning`.
        """
        if self.children.size == 0:
            return np.zeros(0, dtype=np.int64)
        return np.add.reduceat((self.flat > 0).astype(np.int64), self.offsets[:-1])

    def table(self, i: int) -> np.ndarray:
        """``N_jk`` of the ``i``-th child, one row per *observed* parent configuration.

        This is the view handed to user-defined scores: unobserved
        configurations are dropped (every standard decomposable score gives
        them zero weight) and rows follow the order of the configuration ids.
        """
        r = int(self.child_arities[i])
        tab = self.flat[self.offsets[i]:self.offsets[i + 1]].reshape(self.m, r)
        return tab[tab.sum(axis=1) > 0]


@dataclass(frozen=True)
class BlockCounts:
    """Counts of several parent sets, each for several children, in one flat array.

    Why: on small and wide data a parent set has few cells, and the numpy
    calls made per set (one ``bincount`` each, then the score's own calls)
    cost more than the arithmetic.  A block lays the joint codes of every
    (parent set, child) *pair* side by side and counts them with a single
    ``bincount``; scores then work on whole arrays (see
    :meth:`~gobnilp_py.scoring.local_scores.DirichletScore.block_scores`).
    Each pair's counts are those :meth:`ParentConfigs.family_counts` gives,
    in the same layout, so a pair's values never depend on the rest of the block.

    Attributes
    ----------
    sets : list of tuple of int
        The parent sets of the block, in order.
    q : list of int
        Declared number of parent configurations of each set (exact Python ints).
    pair_set : numpy.ndarray of int64, shape (P,)
        Index into ``sets`` of each pair.
    children : numpy.ndarray of int64, shape (P,)
        Child of each pair (pairs of one set are consecutive).
    r : numpy.ndarray of int64, shape (P,)
        Declared arity of each pair's child.
    m : numpy.ndarray of int64, shape (P,)
        Range of configuration ids of each pair's parent set.
    flat : numpy.ndarray of int64
        Pair ``p``'s table ``N_jk`` is ``flat[cell_off[p]:cell_off[p+1]]`` reshaped to ``(m[p], r[p])``.
    cell_off : numpy.ndarray of int64, shape (P + 1,)
    cfg_off : numpy.ndarray of int64, shape (P + 1,)
        Exclusive prefix sums of ``m`` (one slot per (pair, configuration id)).
    Z : numpy.ndarray of int64, shape (len(sets), rows)
        Configuration id of every (merged) row, per set.
    """

    sets: list[tuple[int, ...]]
    q: list[int]
    pair_set: np.ndarray
    children: np.ndarray
    r: np.ndarray
    m: np.ndarray
    flat: np.ndarray
    cell_off: np.ndarray
    cfg_off: np.ndarray
    Z: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(self.children.size)

    @cached_property
    def _nonzero(self) -> tuple[np.ndarray, np.ndarray]:
        cell = np.flatnonzero(self.flat)
        return cell, np.diff(np.searchsorted(cell, self.cell_off))

    def nonempty_cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The non-empty cells of the block, in ``flat`` order: ``(cell, pair, per_pair)``.

        ``cell`` indexes ``flat``, ``pair`` is each cell's pair and
        ``per_pair`` the number of non-empty cells of each pair.  Why: past a
        few parents most cells of a table are empty (a configuration seen once
        fills one of its ``r`` cells), and every term of the standard scores
        vanishes on an empty cell, so work over the non-empty cells alone does
        the same sums in the same order with fewer elements.  Computed once
        per block.
        """
        cell, per_pair = self._nonzero
        return cell, np.repeat(np.arange(self.n_pairs, dtype=np.int64), per_pair), per_pair

    def cells_per_pair(self) -> np.ndarray:
        """The number of non-empty cells of each pair (``nonempty_cells()[2]`` without the per-cell arrays)."""
        return self._nonzero[1]

    def _slots(self, cell: np.ndarray, pairs: np.ndarray, lens: np.ndarray, slot_off: np.ndarray) -> np.ndarray:
        """Configuration slot of each cell: its configuration id plus its group's ``slot_off``.

        ``cell`` runs over groups of cells, group ``i`` holding ``lens[i]``
        cells of pair ``pairs[i]``.
        """
        r = self.r
        within = cell - np.repeat(self.cell_off[pairs], lens)
        if r.size and bool((r == r[0]).all()):
            within //= int(r[0])
        else:
            within //= np.repeat(r[pairs], lens)
        within += np.repeat(slot_off, lens)
        return within

    def states_seen(self) -> np.ndarray:
        """``d_j``: child states seen per (pair, configuration id) slot (length ``cfg_off[-1]``)."""
        cell, per_pair = self._nonzero
        slot = self._slots(cell, np.arange(self.n_pairs, dtype=np.int64), per_pair, self.cfg_off[:-1])
        return np.bincount(slot, minlength=int(self.cfg_off[-1]))

    def set_config_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``N_j`` of each parent set of the block, counted once per set, not once per child.

        Returns ``(first, nj, off)``: ``first[k]`` is the first pair of the
        block's ``k``-th parent set (pairs of a set are consecutive), and that
        set's totals are ``nj[off[k]:off[k + 1]]``, one per configuration id
        (unobserved ids give 0).  Read from the non-empty cells of each set's
        first pair: every child of a set sees the same configurations.
        """
        P = self.n_pairs
        if P == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
        first = np.flatnonzero(np.r_[True, self.pair_set[1:] != self.pair_set[:-1]])
        cell, per_pair = self._nonzero
        start = np.zeros(P + 1, dtype=np.int64)
        np.cumsum(per_pair, out=start[1:])
        lens = per_pair[first]
        ends = np.cumsum(lens)
        idx = np.arange(int(ends[-1]), dtype=np.int64)
        idx += np.repeat(start[first] - (ends - lens), lens)
        off = np.zeros(first.size + 1, dtype=np.int64)
        np.cumsum(self.m[first], out=off[1:])
        cells = cell[idx]
        slot = self._slots(cells, first, lens, off[:-1])
        # integer totals summed in float64: exact below 2**53
        nj = np.bincount(slot, weights=self.flat[cells], minlength=int(off[-1])).astype(np.int64)
        return first, nj, off

    def config_totals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per (pair, configuration id): ``N_j`` and the number of child states seen ``d_j``.

        Arrays of length ``cfg_off[-1]``; unobserved configuration ids give 0 and 0.
        """
        r = self.r
        if r.size and bool((r == r[0]).all()):
            cells = self.flat.reshape(-1, int(r[0]))
            if cells.shape[1] > 16:
                return cells.sum(axis=1), np.count_nonzero(cells, axis=1)
            # column by column: numpy reductions over a short last axis are slow
            nj = cells[:, 0].copy()
            d = (cells[:, 0] > 0).astype(np.int64)
            for t in range(1, cells.shape[1]):
                col = cells[:, t]
                nj += col
                d += col > 0
            return nj, d
        starts = np.zeros(int(self.cfg_off[-1]), dtype=np.int64)
        rr = np.repeat(r, self.m)
        np.cumsum(rr[:-1], out=starts[1:])
        return (np.add.reduceat(self.flat, starts),
                np.add.reduceat((self.flat > 0).astype(np.int64), starts))


@dataclass(frozen=True)
class SetBlockCounts:
    """A block's counts per *variable set*: each parent set ``W`` and each family ``W ∪ {c}`` once.

    Why: the cells ``N_jk`` of a pair ``(W, c)`` are the configuration counts
    of the variable set ``W ∪ {c}``, which every pair with the same union
    shares (a level of ``k`` parents reaches each ``(k + 1)``-set from up to
    ``k + 1`` pairs), and ``N_j`` are those of ``W``.  Scores whose terms
    depend on the cells only through those counts (the Dirichlet scores'
    cell terms, with the pair's ``a_jk``) need no per-pair table: counting
    and summing once per set does the same arithmetic on up to ``k + 1``
    times fewer rows.  Per-configuration details of a pair (the child
    states seen in each ``j``) are not available from it.

    Attributes
    ----------
    q, pair_set, children, r
        As in :class:`BlockCounts` (``q`` per parent set, the rest per pair).
    q_float : numpy.ndarray of float64
        ``float(q)`` of every parent set (the penalties read it; converting ``q`` there cost
        2% of a small dataset's scoring).
    family : numpy.ndarray of int64, shape (P,)
        Index of each pair's family set ``W ∪ {c}`` (distinct over the block).
    set_counts, set_off : numpy.ndarray of int64
        ``N_j`` of set ``b`` by configuration id: ``set_counts[set_off[b]:set_off[b + 1]]``;
        when only some parent sets were counted (``counted`` is not None), ``b`` runs over those.
    counted : numpy.ndarray of int64, or None
        The parent sets counted, when the caller asked for some only.
    family_counts, family_off : numpy.ndarray of int64
        The same for the family sets.
    family_masks : numpy.ndarray of int64
        Bitmasks of the family sets (sorted, distinct), the order of ``family_counts``.
    """

    q: list[int]
    q_float: np.ndarray
    pair_set: np.ndarray
    children: np.ndarray
    r: np.ndarray
    family: np.ndarray
    set_counts: np.ndarray
    set_off: np.ndarray
    family_counts: np.ndarray
    family_off: np.ndarray
    family_masks: np.ndarray
    counted: np.ndarray | None = None

    @property
    def n_pairs(self) -> int:
        return int(self.children.size)

    def family_cells(self) -> np.ndarray:
        """Non-empty cells of every pair: the observed configurations of its family set."""
        seen = np.bincount(segment_ids(self.family_off)[self.family_counts > 0], minlength=self.family_off.size - 1)
        return seen[self.family]


def csr(seqs: list) -> tuple[np.ndarray, np.ndarray]:
    """``(ptr, elements)`` of a list of int sequences (tuples or arrays), as int64."""
    ptr = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs)), out=ptr[1:])
    el = np.fromiter(itertools.chain.from_iterable(seqs), dtype=np.int64, count=int(ptr[-1]))
    return ptr, el


def ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + l) for s, l in zip(starts, lens)])`` without the loop."""
    ends = np.cumsum(lens)
    out = np.arange(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    out += np.repeat(starts - (ends - lens), lens)
    return out


def segment_ids(off: np.ndarray) -> np.ndarray:
    """Segment of every element for the offsets ``off`` (``i`` repeated ``off[i + 1] - off[i]`` times)."""
    return np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))


def distinct_small(x: np.ndarray) -> list[int]:
    """Sorted distinct values of an array of small non-negative integers (children, set sizes).

    Why not ``np.unique``: its plain form asks ``np.ma.is_masked`` (numpy
    2.4), which imports ``numpy.ma`` -- 7-20 ms on a process's first call,
    as much as scoring a small dataset.
    """
    return np.flatnonzero(np.bincount(np.asarray(x, dtype=np.int64).ravel())).tolist() if np.size(x) else []


#: :func:`unique_inverse` marks values in a table instead of sorting while ``bound`` is at most this
#: (1 MiB of flags) and at most :data:`DENSE_UNIQUE_RATIO` times the number of elements.
DENSE_UNIQUE_SLOTS = 1 << 20       # below 2^31: the tables index with int32
DENSE_UNIQUE_RATIO = 32


def _dense_fits(bound: int, size: int) -> bool:
    """Whether values below ``bound`` are placed in a table rather than sorted (``size`` of them, at least one)."""
    return size > 0 and bound <= min(DENSE_UNIQUE_SLOTS, DENSE_UNIQUE_RATIO * size)


def unique_inverse(x: np.ndarray, bound: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, index, inverse)`` of a 1-d array: its sorted distinct values, the position of *an*
    occurrence of each, and each element's value number (``values[inverse] == x``).

    Why not ``np.unique(x, return_index=True, return_inverse=True)``: it must return the *first*
    occurrences, so it sorts stably (mergesort), and it costs about three times this on the
    walk's arrays of 10^3-10^5 masks.  Callers read only values that depend on the value alone
    at ``index``, so which occurrence it names does not matter (the result is deterministic anyway).

    ``bound``: every value is in ``0 .. bound - 1`` (bitmasks of ``n`` variables: ``2^n``).  While
    the range is small beside the array (:data:`DENSE_UNIQUE_SLOTS`, :data:`DENSE_UNIQUE_RATIO`),
    the values are marked in a table of flags and numbered in one pass, without a sort: 8 times
    faster on 7,800 masks of 14 variables (the walk's level 4 on wine), where the sorts were a
    tenth of the scoring.  Values and inverse are those of the sort; the index may name another
    occurrence.
    """
    if bound is not None and _dense_fits(bound, x.size):
        seen = np.zeros(bound, dtype=bool)
        seen[x] = True
        values = np.flatnonzero(seen).astype(x.dtype, copy=False)
        # read only where written (the values); int32 halves the table, which is fresh memory
        # on every call (allocations of 128 KiB and more are mapped and unmapped each time)
        rank = np.empty(bound, dtype=np.int32)
        rank[values] = np.arange(values.size, dtype=np.int32)
        inverse = rank[x].astype(np.int64)
        index = np.empty(values.size, dtype=np.int64)
        index[inverse] = np.arange(x.size, dtype=np.int64)
        return values, index, inverse
    order = np.argsort(x)
    s = x[order]
    new = np.empty(s.size, dtype=bool)
    if s.size:
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
    inverse = np.empty(s.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return s[new], order[new], inverse


def argsort_distinct(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.argsort(keys)`` of *distinct* non-negative keys below ``bound`` (any sort gives that order).

    While the range is small beside the array (the limits of :func:`unique_inverse`) the keys are
    placed in a table and read back in order, without a sort: 2-3 times faster on the walk's
    pieces of a few thousand pairs.
    """
    if _dense_fits(bound, keys.size):
        seen = np.zeros(bound, dtype=bool)
        seen[keys] = True
        at = np.empty(bound, dtype=np.int32)            # read only where written (the keys)
        at[keys] = np.arange(keys.size, dtype=np.int32)
        return at[np.flatnonzero(seen)].astype(np.int64)
    return np.argsort(keys)


def lex_order(rows: np.ndarray, base: int) -> np.ndarray:
    """``np.lexsort(rows.T[::-1])`` (first column most significant) of *distinct* rows of integers
    in ``0 .. base - 1``: one key per row while ``base ** k`` fits in an int64, then
    :func:`argsort_distinct`."""
    k = rows.shape[1]
    if k and k * math.log2(max(base, 2)) < 62:
        key = rows[:, 0].astype(np.int64)
        for t in range(1, k):
            key *= base
            key += rows[:, t]
        return argsort_distinct(key, base ** k)
    return np.lexsort(rows.T[::-1])


def _unique_rows(codes: np.ndarray, arities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, axis=0, return_counts=True)``: the distinct rows in lexicographic order and
    their multiplicities.  Rows are packed into one mixed-radix int64 key (first column most
    significant, so key order is lexicographic order) while the arities allow: one sort of a
    1-d array instead of numpy's structured-row sort, a few times faster."""
    ar = np.maximum(np.asarray(arities, dtype=np.int64), 1)
    if codes.shape[1] == 0 or float(np.log2(ar).sum()) >= 62:
        return np.unique(codes, axis=0, return_counts=True)
    radix = np.ones(ar.size, dtype=np.int64)
    radix[:-1] = np.cumprod(ar[::-1])[::-1][1:]             # product of the arities to the right
    _, first, inverse = unique_inverse(codes.astype(np.int64) @ radix)
    return codes[first], np.bincount(inverse, minlength=first.size)


def _insert_sorted(E: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Rows of ``E`` (each sorted, ``(U, k)``) with ``c[i]`` (not in row ``i``) inserted in order."""
    U, k = E.shape
    out = np.empty((U, k + 1), dtype=np.int64)
    at = (E < c[:, None]).sum(axis=1) if k else np.zeros(U, dtype=np.int64)   # c's position in its row
    cols = np.arange(k + 1, dtype=np.int64)
    before = cols[None, :] < at[:, None]
    out[:, :k] = E
    out[:, 1:] = np.where(before[:, 1:], out[:, 1:], E)      # elements after c move one to the right
    out[np.arange(U), at] = c
    return out


def find_sorted(sorted_keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``queries`` in ``sorted_keys`` and whether each is there."""
    if sorted_keys.size == 0:
        return np.zeros(queries.shape, dtype=np.int64), np.zeros(queries.shape, dtype=bool)
    pos = np.searchsorted(sorted_keys, queries)
    np.minimum(pos, sorted_keys.size - 1, out=pos)
    return pos, sorted_keys[pos] == queries


class ParentConfigs:
    """Configuration ids of parent sets, with reuse of the previous level's codes.

    ``ids(W)`` returns an int64 array ``z`` with ``z[row]`` identifying the
    configuration of the parents ``W`` in that row, and a bound ``m`` with
    ``0 <= z < m``.  Codes are derived from the prefix ``W[:-1]`` (cached), so
    asking for parent sets in lexicographic order — as the level-wise
    candidate generator does — costs one multiply-add per set.  Only the
    prefixes of the most recent request are kept, so memory stays at
    ``O(|W| * N)`` however many sets are counted.

    Parameters
    ----------
    data : Dataset
        The data.
    dense_limit : int, optional
        Compress codes to dense ids of observed configurations when the code
        range would exceed this (default: the number of distinct rows, at least 64).
    merge_rows : bool, optional
        Merge identical rows and count with weights.  Default: when distinct
        rows are fewer than 60% of the rows (a weighted count costs more per
        row).  Counts are exact either way.

    Notes
    -----
    ``ids`` are per *distinct* row when rows are merged; ``weights`` then
    holds each distinct row's multiplicity.
    """

    def __init__(self, data: Dataset, dense_limit: int | None = None,
                 merge_rows: bool | None = None) -> None:
        self.data = data
        self.N = data.N
        self.arities = np.asarray(data.arities, dtype=np.int64)
        codes = data.codes
        self.weights: np.ndarray | None = None
        if merge_rows is None or merge_rows:
            uniq, mult = _unique_rows(codes, self.arities)
            if merge_rows or uniq.shape[0] < 0.6 * codes.shape[0]:
                codes = uniq
                self.weights = mult.astype(np.float64)
        self.rows = int(codes.shape[0])
        # Row-major (n, rows): the codes of all children are sliced at once.
        self.X = np.ascontiguousarray(codes.T)
        self.dense_limit = int(dense_limit) if dense_limit is not None else max(64, self.rows)
        # The block builds (set_ids, _ids_of) keep ids in the narrowest of int16, int32 and int64
        # that provably holds them: an id is below its range m <= max(dense_limit, rows) before a
        # step and below m * r inside one.  Why: the ids of a block's sets are its largest arrays
        # (sets x rows); half the bytes is half the memory traffic of the gathers and steps, and
        # half the fresh memory touched (int16 on small data: wine's first call 19.9 -> 19.2 ms,
        # zoo's 23.2 -> 22.7 ms, session 18).  Every use widens them before adding offsets.
        wide = max(self.dense_limit, self.rows) * max(1, int(self.arities.max(initial=1)))
        self.id_dtype = np.dtype(np.int16 if wide < 2**15 else np.int32 if wide < 2**31 else np.int64)
        self._X_ids = self.X.astype(self.id_dtype, copy=False)
        self._ar_ids = self.arities.astype(self.id_dtype, copy=False)
        self._bit: np.ndarray | None = None
        self._cache: dict[tuple[int, ...], tuple[np.ndarray, int]] = {
            (): (np.zeros(self.rows, dtype=np.int64), 1)
        }
        self._tiles: dict[int, np.ndarray] = {}
        self._ar_list = [int(a) for a in self.arities]
        # set_ids: (sorted masks, ids, ranges) of the sets built lately, per set size
        self._set_ids: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}

    def _extend(self, z: np.ndarray, m: int, p: int) -> tuple[np.ndarray, int]:
        """Ids of a set extended by variable ``p`` (no caching)."""
        r = int(self.arities[p])
        if r > 1:
            z = z * r + self.X[p]
            m = m * r
            if m > self.dense_limit:
                z, m = self._compress(z, m)
        return z, m

    def ids(self, parents: tuple[int, ...]) -> tuple[np.ndarray, int]:
        """Configuration ids of ``parents`` (sorted tuple) and their range ``m``."""
        hit = self._cache.get(parents)
        if hit is not None:
            return hit
        prefix, last = parents[:-1], parents[-1]
        if len(prefix) > 64 and prefix not in self._cache:
            # Long sets (the ceilings over all other variables of wide data): build the prefix
            # iteratively instead of recursing once per variable.
            z, m = self._cache[()]
            for p in prefix:
                z, m = self._extend(z, m, p)
        else:
            z, m = self.ids(prefix)
        r = int(self.arities[last])
        if r > 1:
            z = z * r + self.X[last]
            m = m * r
            if m > self.dense_limit:
                z, m = self._compress(z, m)
        res = (z, m)
        # Keep only prefixes of this request: a lexicographic walk reuses them next.
        if len(self._cache) > len(parents) + 1:
            keep = {parents[:i] for i in range(len(parents))}
            self._cache = {k: v for k, v in self._cache.items() if k in keep}
        self._cache[parents] = res
        return res

    @staticmethod
    def _compress(z: np.ndarray, m: int) -> tuple[np.ndarray, int]:
        """Map codes to ``0 .. (#observed - 1)`` preserving order (O(N + m))."""
        if m <= 64 * z.size + 1024:
            present = np.bincount(z, minlength=m) > 0
            remap = np.cumsum(present) - 1
            return remap[z], int(remap[-1] + 1)
        uniq, inv = np.unique(z, return_inverse=True)
        return inv.astype(np.int64, copy=False), int(uniq.size)

    def _count(self, codes: np.ndarray, size: int, weights: np.ndarray | None = None) -> np.ndarray:
        """Integer ``bincount`` of ``codes``, weighted by row multiplicities when rows are merged."""
        if self.weights is None:
            return np.bincount(codes, minlength=size)
        w = self.weights if weights is None else weights
        # Weighted sums of integers below 2**53 are exact in float64.
        return np.bincount(codes, weights=w, minlength=size).astype(np.int64)

    #: Bytes of tiled row multiplicities :meth:`_tiled` keeps.  Why a byte cap: per-set counting tiles
    #: them for whole blocks of sets (up to 4,096 x rows), and a cap of 64 entries alone let the cache
    #: hold hundreds of megabytes on merged data (letter, adult).
    TILE_CACHE_BYTES = 16 * 1024**2

    def _tiled(self, k: int) -> np.ndarray | None:
        """Row multiplicities repeated for ``k`` children or sets (cached while small: the same k recurs)."""
        if self.weights is None:
            return None
        hit = self._tiles.get(k)
        if hit is None:
            hit = np.tile(self.weights, k)
            if hit.nbytes <= self.TILE_CACHE_BYTES:
                if sum(t.nbytes for t in self._tiles.values()) + hit.nbytes > self.TILE_CACHE_BYTES:
                    self._tiles.clear()
                self._tiles[k] = hit
        return hit

    def declared_q(self, parents: tuple[int, ...]) -> int:
        """Product of the declared arities of ``parents`` (exact Python int)."""
        q = 1
        for p in parents:
            q *= int(self.arities[p])
        return q

    def _block_ids(self, sets: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`ids` of many sets at once: ``(Z, m)`` with ``Z[i]`` the ids of ``sets[i]``.

        Why: a lattice level holds tens of thousands of sets and the per-set
        calls (one multiply-add and one ``bincount``/``cumsum`` compression per
        step) cost more than their arithmetic.  Here every set of a size is
        built from scratch, one parent position at a time over the whole
        block (:meth:`_step`), compressing every row whose code range exceeds
        ``dense_limit`` with one ``bincount`` for all of them.  The steps and
        the compression condition are those of :meth:`ids` and compression
        keeps the order of the codes, so ``Z[i]`` equals ``ids(sets[i])[0]`` exactly.
        """
        B = len(sets)
        Z = np.zeros((B, self.rows), dtype=np.int64)
        M = np.ones(B, dtype=np.int64)
        by_k: dict[int, list[int]] = {}
        for i, x in enumerate(sets):
            by_k.setdefault(len(x), []).append(i)
        for k, idx in by_k.items():
            if k == 0:
                continue
            E = np.array([sets[i] for i in idx], dtype=np.int64).reshape(len(idx), k)
            Z[idx], M[idx] = self._ids_of(E)
        return Z, M

    def _ids_of(self, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ids of the sets given as the rows of ``E`` (``(B, k)``, each row sorted), built from scratch
        (dtype :attr:`id_dtype`)."""
        z = np.zeros((E.shape[0], self.rows), dtype=self.id_dtype)
        m = np.ones(E.shape[0], dtype=np.int64)
        for t in range(E.shape[1]):
            self._step(z, m, E[:, t])
        return z, m

    def _step(self, z: np.ndarray, m: np.ndarray, col: np.ndarray) -> None:
        """One position of the id build, in place: row ``i`` of ``z`` extended by variable ``col[i]``.

        ``z <- z * r + x`` and ``m <- m * r`` (a variable of arity 1 changes
        nothing), then the rows whose range exceeds ``dense_limit`` are
        compressed.  Every id in the package is built by these steps, so ids
        built from a stored prefix equal ids built from scratch.
        """
        r = self._ar_ids[col]          # z's dtype: the arithmetic stays in it (no overflow, see __init__)
        act = r > 1
        if act.all():
            z *= r[:, None]
            z += self._X_ids[col]
            m *= r
        elif act.any():
            z[act] = z[act] * r[act, None] + self._X_ids[col[act]]
            m[act] *= r[act]
        need = np.flatnonzero(act & (m > self.dense_limit))
        if need.size:
            z[need], m[need] = self._compress_rows(z[need], m[need])

    #: Bytes of ids :meth:`set_ids` keeps for the next level (the sets of the two latest sizes).
    SET_IDS_CACHE_BYTES = 64 * 1024**2

    def set_ids(self, E: np.ndarray, masks: np.ndarray,
                prefixes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Ids of the variable sets given as rows of ``E`` (``(U, s)``, sorted) with bitmasks ``masks``.

        Why: in a lattice walk the sets of one level are the extensions of the
        previous level's, so each set is built from an already built one: a
        set met before (as a family set of the previous level) is read back,
        and a set whose prefix (itself minus its largest element) is known --
        kept from the previous level, or given in ``prefixes`` as ``(masks,
        Z, m)`` -- costs one :meth:`_step`; only the rest are built from
        scratch.  Every route applies the same steps to the same prefixes, so
        the ids equal :meth:`_block_ids`'s exactly.  The sets built here are
        kept (up to :data:`SET_IDS_CACHE_BYTES`, the two latest sizes) for the
        next call -- the very arrays returned, so callers must not write into
        them.  Needs ``n <= 62`` (masks are int64).
        """
        U, s = E.shape
        if s == 0:
            return np.zeros((U, self.rows), dtype=self.id_dtype), np.ones(U, dtype=np.int64)
        Z: np.ndarray | None = None      # allocated only when the sets come from more than one route
        m = np.empty(U, dtype=np.int64)
        todo = np.ones(U, dtype=bool)
        for km, kz, kmm in self._set_ids.get(s, []):
            idx = np.flatnonzero(todo)
            pos, hit = find_sorted(km, masks[idx])
            if hit.any():
                i, r = idx[hit], pos[hit]
                if Z is None:
                    if i.size == U:          # every set met before: one gather
                        return kz[r], kmm[r]
                    Z = np.empty((U, self.rows), dtype=self.id_dtype)
                Z[i], m[i] = kz[r], kmm[r]
                todo[i] = False
        built = np.flatnonzero(todo)
        if Z is not None and not built.size:
            return Z, m
        last = E[built, -1]
        pre = masks[built] ^ (np.int64(1) << last)
        # where each prefix is: (source, row in it); source -1 = not found
        src = np.full(built.size, -1, dtype=np.int64)
        row = np.zeros(built.size, dtype=np.int64)
        # (sorted masks, ids, ranges, row of each sorted mask): kept sets are stored sorted;
        # the given prefixes are searched through their sort order, without copying their ids
        sources = [(km, kz, kmm, None) for km, kz, kmm in self._set_ids.get(s - 1, [])]
        if prefixes is not None:
            order = np.argsort(prefixes[0], kind="stable")
            sources.append((prefixes[0][order], prefixes[1], prefixes[2], order))
        if s > 1:
            for t, (km, _, _, rows_of) in enumerate(sources):
                idx = np.flatnonzero(src < 0)
                if not idx.size:
                    break
                pos, hit = find_sorted(km, pre[idx])
                i, r = idx[hit], pos[hit]
                src[i] = t
                row[i] = r if rows_of is None else rows_of[r]
        if s == 1:                               # the prefix is the empty set: ids 0, range 1
            zb = np.zeros((built.size, self.rows), dtype=self.id_dtype)
            mb = np.ones(built.size, dtype=np.int64)
        elif src.size and src[0] >= 0 and bool((src == src[0]).all()):   # one source: one gather
            zb, mb = sources[int(src[0])][1][row], sources[int(src[0])][2][row]
        else:
            zb = np.empty((built.size, self.rows), dtype=self.id_dtype)
            mb = np.empty(built.size, dtype=np.int64)
            for t, (_, kz, kmm, _) in enumerate(sources):
                i = np.flatnonzero(src == t)
                if i.size:
                    zb[i], mb[i] = kz[row[i]], kmm[row[i]]
            rest = np.flatnonzero(src < 0)
            if rest.size:                        # no known prefix: from scratch, minus the last step
                zb[rest], mb[rest] = self._ids_of(E[built[rest], :-1])
        self._step(zb, mb, last)
        self._keep_set_ids(s, masks[built], zb, mb)
        if Z is None:
            return zb, mb
        Z[built], m[built] = zb, mb
        return Z, m

    def _keep_set_ids(self, s: int, masks: np.ndarray, Z: np.ndarray, m: np.ndarray) -> None:
        """Keep the ids of sets of size ``s`` for the next :meth:`set_ids` (sizes ``s - 1`` and ``s`` only)."""
        for t in [t for t in self._set_ids if t not in (s - 1, s)]:
            del self._set_ids[t]
        held = sum(z.nbytes for chunks in self._set_ids.values() for _, z, _ in chunks)
        if held + Z.nbytes > self.SET_IDS_CACHE_BYTES:
            return
        if masks.size > 1 and not bool((masks[1:] > masks[:-1]).all()):
            order = np.argsort(masks, kind="stable")
            masks, Z, m = masks[order], Z[order], m[order]
        # Held as given when already sorted: callers must not write into the arrays set_ids returns.
        self._set_ids.setdefault(s, []).append((masks, Z, m))

    #: :meth:`_compress_rows` handles at most this many code slots per ``bincount``.
    BLOCK_CODE_SLOTS = 1 << 20

    def _compress_rows(self, z: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_compress` of every row of ``z`` (codes ``< m[row]``), merged into few ``bincount`` calls.

        A row whose range is wide for its length (as :meth:`_compress` decides: more than
        ``64 * rows + 1024`` codes) is ranked by sorting its codes instead: a table of its range would
        cost memory quadratic in the rows (two 12,000-state columns of 12,000 rows: 1.4e8 slots, 2.4 GB
        of temporaries against 0.3 MB sorted).  Both give each code its rank among the observed ones.
        """
        out = np.empty_like(z)
        mo = np.empty_like(m)
        a, n = 0, m.size
        wide = 64 * z.shape[1] + 1024
        for i in np.flatnonzero(m > wide).tolist():
            uniq, inv = np.unique(z[i], return_inverse=True)
            out[i] = inv
            mo[i] = uniq.size
        if bool((m > wide).all()):
            return out, mo
        if bool((m > wide).any()):
            keep = np.flatnonzero(m <= wide)
            out[keep], mo[keep] = self._compress_rows(z[keep], m[keep])
            return out, mo
        csum = np.cumsum(m)
        while a < n:
            start = csum[a - 1] if a > 0 else 0
            b = int(np.searchsorted(csum, start + self.BLOCK_CODE_SLOTS, side="right"))
            b = min(max(b, a + 1), n)
            off = np.zeros(b - a + 1, dtype=np.int64)
            np.cumsum(m[a:b], out=off[1:])
            codes = z[a:b] + off[:-1, None]
            present = np.bincount(codes.ravel(), minlength=int(off[-1])) > 0
            cum = np.zeros(int(off[-1]) + 1, dtype=np.int64)
            np.cumsum(present, out=cum[1:])
            base = cum[off]                       # observed codes before each row's range
            out[a:b] = cum[codes + 1] - 1 - base[:-1, None]
            mo[a:b] = base[1:] - base[:-1]
            a = b
        return out, mo

    def block_counts(self, groups: list[tuple[tuple[int, ...], np.ndarray]]) -> BlockCounts:
        """Counts of every ``(parent set, children)`` group in one ``bincount``.

        Groups are best given in lexicographic order of the parent sets (the
        id cache reuses prefixes).  The layout per pair is that of
        :meth:`family_counts` for the same set and child.
        """
        Z, ms = self._block_ids([g[0] for g in groups])
        ar = self._ar_list
        qs = [math.prod([ar[p] for p in parents]) for parents, _ in groups]
        chs = [np.asarray(ch, dtype=np.int64) for _, ch in groups]
        sizes = np.fromiter((c.size for c in chs), dtype=np.int64, count=len(chs))
        pair_set = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
        children = np.concatenate(chs) if chs else np.zeros(0, dtype=np.int64)
        r = self.arities[children]
        m = ms[pair_set]
        cell_off = np.zeros(children.size + 1, dtype=np.int64)
        np.cumsum(m * r, out=cell_off[1:])
        cfg_off = np.zeros(children.size + 1, dtype=np.int64)
        np.cumsum(m, out=cfg_off[1:])
        joint = Z[pair_set] * r[:, None]
        joint += self.X[children]
        joint += cell_off[:-1, None]
        # Row multiplicities for every pair (not cached: the number of pairs changes from block to block).
        w = None if self.weights is None else np.tile(self.weights, children.size)
        flat = self._count(joint.ravel(), int(cell_off[-1]), w)
        return BlockCounts(sets=[g[0] for g in groups], q=qs, pair_set=pair_set, children=children, r=r,
                           m=m, flat=flat, cell_off=cell_off, cfg_off=cfg_off, Z=Z)

    def _bits(self) -> np.ndarray:
        """``1 << v`` for every variable (int64; the set paths need ``n <= 62``), built once."""
        if self._bit is None:
            self._bit = np.left_shift(np.int64(1), np.arange(self.arities.size, dtype=np.int64))
        return self._bit

    def set_masks(self, E: np.ndarray) -> np.ndarray:
        """Bitmasks of the sets given as the rows of ``E`` (``(B, k)``, distinct elements)."""
        if E.shape[1] == 0:
            return np.zeros(E.shape[0], dtype=np.int64)
        return self._bits()[E].sum(axis=1)           # distinct bits: the sum is the OR

    def set_block_counts(self, E: np.ndarray, per_set: np.ndarray, children: np.ndarray,
                         count_sets: np.ndarray | None = None) -> SetBlockCounts:
        """:class:`SetBlockCounts` of parent sets of one size: set ``b`` is ``E[b]`` (sorted) and wants
        ``per_set[b]`` consecutive entries of ``children``.  ``count_sets``: the parent sets whose own
        counts are wanted (a boolean mask; default all) -- the caller may know what it needs of the others.

        Ids come from :meth:`set_ids` (the block's parent sets are the
        prefixes of most family sets), and each set's configurations are
        counted with one ``bincount`` for the whole block.  Needs ``n <= 62``.
        """
        B, k = E.shape
        pair_set = np.repeat(np.arange(B, dtype=np.int64), per_set)
        wmask = self.set_masks(E)
        fmask, first, family = unique_inverse(wmask[pair_set] | self._bits()[children], 1 << self.arities.size)
        FE = _insert_sorted(E[pair_set[first]], children[first])
        counted = None if count_sets is None or bool(count_sets.all()) else np.flatnonzero(count_sets)
        if counted is not None and counted.size == 0:
            # no parent set to count: their ids serve only as prefixes, and set_ids finds those
            # kept from the previous level (or builds the family sets from scratch)
            ZF, mF = self.set_ids(FE, fmask)
            set_counts, set_off = np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
        else:
            ZW, mW = self.set_ids(E, wmask)
            ZF, mF = self.set_ids(FE, fmask, prefixes=(wmask, ZW, mW))
            set_counts, set_off = self._count_sets(ZW, mW) if counted is None else \
                self._count_sets(ZW[counted], mW[counted])
        family_counts, family_off = self._count_sets(ZF, mF)
        qs, q_float = self._declared_qs(E)
        return SetBlockCounts(q=qs, q_float=q_float, pair_set=pair_set,
                              children=children, r=self.arities[children], family=family, set_counts=set_counts,
                              set_off=set_off, family_counts=family_counts, family_off=family_off,
                              family_masks=fmask, counted=counted)

    #: Elements (sets x rows) counted per ``bincount`` by :meth:`_count_sets`.
    COUNT_CHUNK_ELEMS = 1 << 15

    def _count_sets(self, Z: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Configuration counts of every set (row of ``Z``, ids below ``m``), one after the other, and
        their offsets."""
        U = m.size
        off = np.zeros(U + 1, dtype=np.int64)
        np.cumsum(m, out=off[1:])
        out = np.empty(int(off[-1]), dtype=np.int64)
        step = max(1, self.COUNT_CHUNK_ELEMS // max(1, self.rows))
        for a in range(0, U, step):
            b = min(U, a + step)
            lo = off[a]
            # not in place: set_ids may hand out the arrays it keeps for the next level
            codes = Z[a:b] + (off[a:b] - lo)[:, None]
            out[lo:off[b]] = self._count(codes.ravel(), int(off[b] - lo), self._tiled(b - a))
        return out, off

    def _declared_qs(self, E: np.ndarray) -> tuple[list[int], np.ndarray]:
        """:meth:`declared_q` of every row of ``E``: exact Python ints (vectorised while they fit in
        int64), and the same as float64 (each int rounded once, as ``float(q)``)."""
        if E.shape[1] == 0:
            return [1] * E.shape[0], np.ones(E.shape[0])
        ar = self.arities
        if float(np.log2(np.maximum(ar, 1)).max(initial=0.0)) * E.shape[1] < 62:
            qs = np.prod(ar[E], axis=1)
            return qs.tolist(), qs.astype(np.float64)
        lst = self._ar_list
        exact = [math.prod([lst[p] for p in row]) for row in E.tolist()]
        return exact, np.array([float(q) for q in exact], dtype=np.float64)

    def family_counts(self, parents: tuple[int, ...], children: np.ndarray) -> FamilyCounts:
        """Contingency tables of ``parents`` against every child in ``children``.

        One ``bincount`` over the stacked joint codes ``offset_c + z * r_c + x_c``
        counts all children together.
        """
        children = np.asarray(children, dtype=np.int64)
        z, m = self.ids(parents)
        nj = self._count(z, m)
        config_counts = nj[nj > 0]
        r = self.arities[children]
        sizes = m * r
        offsets = np.zeros(children.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        joint = z[None, :] * r[:, None]
        joint += self.X[children]
        joint += offsets[:-1, None]
        flat = self._count(joint.ravel(), int(offsets[-1]), self._tiled(children.size))
        return FamilyCounts(parents=parents, children=children, child_arities=r,
                            q=self.declared_q(parents), config_counts=config_counts,
                            flat=flat, offsets=offsets, m=m)
