"""Best parent set of a node inside a candidate set: the primitive every ordering-based search shares.

For a node ``v`` and a candidate set ``C`` (the nodes allowed to be parents),
``best(v, C)`` is the best family of ``v`` in a :class:`ScoreTable` whose
parents all lie in ``C``: its score (``-inf`` when none fits) and its position
in ``table.families[v]`` (``-1`` when none fits).

Families are stored best first (ties: fewer parents, then lexicographic; see
:class:`~gobnilp_py.scoring.table.ScoreTable`), so *the best family inside C is
the first one, in table order, that fits inside C*.  Both backends compute
exactly that position, so they agree bit for bit, ties included, and the
answer is the one a linear scan of the table would give.

Backends
--------
``dense``
    A subset-*minimum* transform of family positions over the ``2^(n-1)``
    subsets of the other nodes (Silander and Myllymäki 2006 use the
    equivalent subset-maximum of scores): ``pos[C]`` = smallest position of a
    family inside ``C``.  One ``int32`` per subset and node, built in
    ``(n-1) 2^(n-1)`` vectorised steps per node; a query is two gathers.
``sparse``
    The bitwise sparse parent graph of Yuan and Malone (2013), as in
    URLearning's ``sparse_parent_bitwise``: for every parent ``p`` occurring in
    ``v``'s families, a bitset over family positions of the families that do
    *not* contain ``p``.  The families inside ``C`` are the AND of the bitsets
    of every parent outside ``C``; the answer is its lowest set bit.  Memory is
    linear in the table; queries are answered 64 families (one word) at a
    time, and almost all are answered by the first word.  It works for any
    ``n`` through :meth:`BestParents.query_forbidden` (a boolean vector of
    forbidden parents), so searches over thousands of variables can use it.

``auto`` picks ``dense`` when ``n <= DENSE_MAX_VARIABLES`` and its estimate
fits half the memory budget (the rest is left to the search using it), else
``sparse``.  Families scored ``-inf`` are treated as absent.

References
----------
T. Silander and P. Myllymäki, "A simple approach for finding the globally
optimal Bayesian network structure", UAI 2006.
C. Yuan and B. Malone, "Learning optimal Bayesian networks: a shortest path
perspective", JAIR 48, 2013 (sparse parent graphs).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence

import numpy as np

from .._memory import format_bytes
from ..errors import ScoreError
from ..scoring.table import ScoreTable

__all__ = ["BestParents", "BuildStopped", "DENSE_MAX_VARIABLES", "MASK_MAX_VARIABLES", "DEFAULT_MEMORY_BUDGET"]

_log = logging.getLogger(__name__)

#: Largest ``n`` for which the dense backend is considered (``n 2^(n-1)`` int32: 64 GiB at 30).
DENSE_MAX_VARIABLES = 30

#: Largest ``n`` for bitmask queries (masks are ``uint64``; bit 63 is kept free).
MASK_MAX_VARIABLES = 63

#: Default memory budget (bytes) for the lookup structures: 4 GiB.
DEFAULT_MEMORY_BUDGET = 4 * 2**30


class BuildStopped(Exception):
    """The lookups were left unfinished: ``args[0]`` is ``"time_limit"`` (the deadline passed) or
    ``"interrupted"`` (the stop event was set).  The engines turn it into that status."""


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)


def _lowest_bit_index(words: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each nonzero ``uint64`` (undefined for 0).

    ``x & -x`` isolates the bit; a power of two converts to float64 exactly,
    and :func:`numpy.frexp` returns its exponent exactly.
    """
    low = words & (~words + _ONE)
    return np.frexp(low.astype(np.float64))[1].astype(np.int64) - 1


class _Node:
    """One node's usable families (finite scores), as arrays in table order."""

    __slots__ = ("count", "scores", "padded", "parents", "universe", "uindex", "bits", "valid", "pybits",
                 "masks")

    def __init__(self, v: int, fams: Sequence[tuple[tuple[int, ...], float]], n: int) -> None:
        usable = 0
        while usable < len(fams) and fams[usable][1] > -math.inf:
            usable += 1  # the table sorts -inf scores last
        self.count = usable
        self.parents = [fams[i][0] for i in range(usable)]
        self.scores = np.array([fams[i][1] for i in range(usable)], dtype=np.float64)
        # scores with a -inf sentinel at position `count`, for gathers of "no family"
        self.padded = np.append(self.scores, -np.inf)
        self.universe = np.array(sorted({p for ps in self.parents for p in ps}), dtype=np.int64)
        self.uindex = {int(p): i for i, p in enumerate(self.universe)}
        self.masks = (np.array([sum(1 << p for p in ps) for ps in self.parents], dtype=np.uint64)
                      if n <= MASK_MAX_VARIABLES else None)
        self.bits: np.ndarray | None = None
        self.valid: np.ndarray | None = None
        self.pybits: dict[int, int] | None = None

    def words(self) -> int:
        return max(1, -(-self.count // 64))

    def _without(self) -> np.ndarray:
        """bool ``(len(universe), count)``: family ``j`` does *not* contain parent ``universe[i]``.

        From the bitmasks in one vectorised step when ``n <= 63`` (mushroom's
        constant column has 4.2 million families: a loop over their parents
        took minutes); element by element otherwise.
        """
        if self.masks is not None:
            shifts = self.universe.astype(np.uint64)[:, None]
            return ((self.masks[None, :] >> shifts) & _ONE) == 0
        out = np.ones((len(self.universe), self.count), dtype=bool)
        for j, ps in enumerate(self.parents):
            for p in ps:
                out[self.uindex[p], j] = False
        return out

    def build_bits(self) -> None:
        """Per parent in the universe, the bitset of families *not* containing it (uint64 words)."""
        W = self.words()
        bits = np.zeros((len(self.universe), W * 64), dtype=bool)
        bits[:, :self.count] = self._without()
        self.bits = _pack_words(bits)
        valid = np.zeros((1, W * 64), dtype=bool)
        valid[0, :self.count] = True
        self.valid = _pack_words(valid)[0]

    def build_pybits(self) -> None:
        """The same bitsets as Python ints (for scalar searches: one AND per parent, any width).

        Read from the packed words (bit ``j`` of the int is family ``j``), in
        time linear in the number of families.
        """
        if self.bits is None:
            self.build_bits()
        assert self.bits is not None
        self.pybits = {int(p): int.from_bytes(self.bits[i].astype("<u8").tobytes(), "little")
                       for i, p in enumerate(self.universe)}


def _pack_words(bits: np.ndarray) -> np.ndarray:
    """Bool array ``(rows, 64 W)`` -> ``uint64`` array ``(rows, W)``, bit ``j`` of word ``w`` = column ``64 w + j``."""
    rows, cols = bits.shape
    packed = np.packbits(bits.reshape(rows, cols // 8, 8), axis=2, bitorder="little").reshape(rows, cols // 8)
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64).reshape(rows, cols // 64)


class BestParents:
    """Best family of each node inside a candidate set, for a :class:`ScoreTable`.

    Parameters
    ----------
    table : ScoreTable
        The candidate families (any pruning or structural filtering already applied).
    backend : {"auto", "dense", "sparse"}
        See the module docstring.
    memory_budget : int
        Bytes.  The chosen backend's :meth:`estimate_memory` must fit, else a
        one-line :class:`ScoreError` names the estimate and the budget.

    Notes
    -----
    Candidate sets are ``uint64`` bitmasks (bit ``p`` = node ``p``) for
    ``n <= 63``; :meth:`query_forbidden` takes a boolean vector instead and
    works for any ``n`` with the sparse backend.  A mask may contain ``v``
    itself: ``v`` is never its own parent, so the bit is ignored.

    Examples
    --------
    >>> t = ScoreTable(["A", "B", "C"], [[((), -5.0), ((1, 2), -1.0), ((1,), -2.0)],
    ...                                 [((), -1.0)], [((), -1.0)]])
    >>> bp = BestParents(t)
    >>> bp.best(0, 0b010)      # parents may come from {B}: A <- B
    (-2.0, 1)
    >>> bp.best(0, 0b110)      # from {B, C}: A <- B, C
    (-1.0, 0)
    """

    def __init__(self, table: ScoreTable, backend: str = "auto", memory_budget: int = DEFAULT_MEMORY_BUDGET,
                 *, deadline: float | None = None, stop: threading.Event | None = None) -> None:
        """``deadline`` (a :func:`time.perf_counter` time) and ``stop`` are checked before each node's
        lookups, raising :class:`BuildStopped`: the dense ones take seconds from about 24 variables
        (5.4 s at 25), which a search's time limit must cover."""
        if backend not in ("auto", "dense", "sparse"):
            raise ScoreError(f"best-parents backend must be 'auto', 'dense' or 'sparse', got {backend!r}")
        self.table = table
        self.n = n = table.n
        self._nodes = [_Node(v, fams, n) for v, fams in enumerate(table.families)]
        dense_est = self.estimate_memory(table, "dense")
        sparse_est = self.estimate_memory(table, "sparse")
        if backend == "auto":
            backend = "dense" if n <= DENSE_MAX_VARIABLES and dense_est <= memory_budget // 2 else "sparse"
        if backend == "dense" and n > DENSE_MAX_VARIABLES:
            raise ScoreError(f"the dense best-parents backend handles at most {DENSE_MAX_VARIABLES} variables; "
                             f"this table has {n} (use backend='sparse')")
        est = dense_est if backend == "dense" else sparse_est
        if est > memory_budget:
            raise ScoreError(f"best-parent lookups ({backend}) for {n} variables need about {format_bytes(est)}, "
                             f"over the memory budget of {format_bytes(memory_budget)}")
        self.backend = backend
        self.memory_bytes = est
        self._dense: list[np.ndarray] = []
        if backend == "dense":
            for v in range(n):
                _check_stop(deadline, stop)
                self._dense.append(self._build_dense(v))
        else:
            for node in self._nodes:
                _check_stop(deadline, stop)
                node.build_bits()
        best = np.array([nd.scores[0] if nd.count else -np.inf for nd in self._nodes], dtype=np.float64)
        self._best = best
        _log.debug("BestParents: %s backend, %d variables, %d families, %s", backend, n, len(table), format_bytes(est))

    # ------------------------------------------------------------- estimates
    @staticmethod
    def estimate_memory(table: ScoreTable, backend: str) -> int:
        """Bytes the lookup structures of ``backend`` ("dense" or "sparse") need for ``table``."""
        n = table.n
        fams = sum(len(f) for f in table.families)
        if backend == "dense":
            if n > DENSE_MAX_VARIABLES:
                return 2**63 - 1
            return n * (1 << max(n - 1, 0)) * 4 + fams * 24
        total = fams * 24
        for fs in table.families:
            universe = len({p for ps, _ in fs for p in ps})
            total += (universe + 1) * max(1, -(-len(fs) // 64)) * 8
        return total

    # ----------------------------------------------------------------- dense
    def _build_dense(self, v: int) -> np.ndarray:
        """``pos[c]``: smallest position of a family of ``v`` inside compressed set ``c`` (``count`` if none)."""
        n = self.n
        node = self._nodes[v]
        arr = np.full(1 << max(n - 1, 0), node.count, dtype=np.int32)
        if node.count:
            cm = self._compress(v, node.masks)
            # families are distinct parent sets, so positions land in distinct cells
            arr[cm.astype(np.int64)] = np.arange(node.count, dtype=np.int32)
        for b in range(n - 1):  # subset minimum, one bit at a time
            a = arr.reshape(-1, 2, 1 << b)
            np.minimum(a[:, 1, :], a[:, 0, :], out=a[:, 1, :])
        return arr

    @staticmethod
    def _compress(v: int, masks: np.ndarray) -> np.ndarray:
        """Remove bit ``v`` from ``uint64`` masks (bits above it move down one)."""
        low = np.uint64((1 << v) - 1)
        return (masks & low) | ((masks >> np.uint64(v + 1)) << np.uint64(v))

    # --------------------------------------------------------------- queries
    def best_overall(self) -> np.ndarray:
        """Best score of each node over all its families (``-inf`` for a node with none), shape ``(n,)``."""
        return self._best.copy()

    def count(self, v: int) -> int:
        """Number of usable (finite-score) families of node ``v``."""
        return self._nodes[v].count

    def scores_of(self, v: int) -> np.ndarray:
        """Scores of ``v``'s usable families in table order (read-only view)."""
        s = self._nodes[v].scores.view()
        s.flags.writeable = False
        return s

    def query(self, v: int, masks: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """Best family of ``v`` inside each candidate set of ``masks``.

        Returns ``(scores, positions)``: float64 (``-inf`` when none fits) and
        int64 positions into ``table.families[v]`` (``-1`` when none fits).
        """
        pos = self._raw_positions(v, masks)
        node = self._nodes[v]
        scores = node.padded[pos]
        return scores, np.where(pos == node.count, -1, pos)

    def scores(self, v: int, masks: np.ndarray | int) -> np.ndarray:
        """Only the scores of :meth:`query` (float64, ``-inf`` when none fits)."""
        return self._nodes[v].padded[self._raw_positions(v, masks)]

    def positions(self, v: int, masks: np.ndarray | int) -> np.ndarray:
        """Only the positions of :meth:`query` (int64, ``-1`` when none fits)."""
        pos = self._raw_positions(v, masks)
        return np.where(pos == self._nodes[v].count, -1, pos)

    def best(self, v: int, mask: int) -> tuple[float, int]:
        """Scalar form of :meth:`query`: ``(score, position)``."""
        s, p = self.query(v, np.array([mask], dtype=np.uint64))
        return float(s[0]), int(p[0])

    def query_forbidden(self, v: int, forbidden: np.ndarray) -> tuple[float, int]:
        """Best family of ``v`` using no parent ``p`` with ``forbidden[p]`` true (any ``n``).

        ``forbidden`` is a boolean vector of length ``n``.  Uses the sparse
        bitsets (built on first use if the backend is dense).
        """
        forbidden = np.asarray(forbidden, dtype=bool)
        if forbidden.shape != (self.n,):
            raise ScoreError(f"forbidden must be a boolean vector of length {self.n}, got shape {forbidden.shape}")
        node = self._nodes[v]
        if node.count == 0:
            return -math.inf, -1
        if node.bits is None:
            node.build_bits()
        sel = forbidden[node.universe] if len(node.universe) else np.zeros(0, dtype=bool)
        acc = node.valid.copy()
        if sel.any():
            acc &= np.bitwise_and.reduce(node.bits[sel], axis=0)
        nz = np.flatnonzero(acc)
        if nz.size == 0:
            return -math.inf, -1
        w = int(nz[0])
        pos = w * 64 + int(_lowest_bit_index(acc[w:w + 1])[0])
        return float(node.scores[pos]), pos

    def inside(self, v: int, mask: int) -> int:
        """All families of ``v`` inside candidate set ``mask`` as a Python-int bitset over positions.

        Bit ``j`` set means ``table.families[v][j]`` fits; iterate from the
        lowest bit to visit them best first.  Used by scalar searches that
        need every fitting family, not only the best.
        """
        node = self._nodes[v]
        if node.pybits is None:
            node.build_pybits()
        acc = (1 << node.count) - 1
        for p, b in node.pybits.items():
            if not (mask >> p) & 1:
                acc &= b
                if not acc:
                    break
        return acc

    def family_masks(self, v: int) -> np.ndarray:
        """Parent bitmasks (uint64) of ``v``'s usable families in table order (``n <= 63``)."""
        self._check_masks()
        return self._nodes[v].masks

    # ------------------------------------------------------------- internals
    def _check_masks(self) -> None:
        if self.n > MASK_MAX_VARIABLES:
            raise ScoreError(f"bitmask queries handle at most {MASK_MAX_VARIABLES} variables; this table has "
                             f"{self.n} (use query_forbidden)")

    def _raw_positions(self, v: int, masks: np.ndarray | int) -> np.ndarray:
        """Positions with ``count`` (not -1) meaning none, as int64."""
        self._check_masks()
        m = np.asarray(masks, dtype=np.uint64)
        if self.backend == "dense":
            return self._dense[v][self._compress(v, m).astype(np.int64)].astype(np.int64)
        return self._sparse_positions(v, m)

    def _sparse_positions(self, v: int, masks: np.ndarray) -> np.ndarray:
        node = self._nodes[v]
        shape = masks.shape
        masks = masks.reshape(-1)
        out = np.full(masks.shape, node.count, dtype=np.int64)
        if node.count == 0 or masks.size == 0:
            return out.reshape(shape)
        # per parent in the universe: all-ones where the parent is allowed, else the "avoids p" bitset
        allowed = [(-((masks >> np.uint64(p)) & _ONE)) for p in node.universe]  # 0 or 0xFFFF.. (wraps)
        active = np.arange(masks.size)
        for w in range(node.words()):
            acc = np.full(active.size, node.valid[w], dtype=np.uint64)
            for i in range(len(node.universe)):
                acc &= node.bits[i, w] | allowed[i][active] if w else node.bits[i, w] | allowed[i]
            hit = acc != 0
            if hit.any():
                out[active[hit]] = w * 64 + _lowest_bit_index(acc[hit])
            active = active[~hit]
            if active.size == 0:
                break
        return out.reshape(shape)


def _check_stop(deadline: float | None, stop: threading.Event | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise BuildStopped("time_limit")
    if stop is not None and stop.is_set():
        raise BuildStopped("interrupted")
