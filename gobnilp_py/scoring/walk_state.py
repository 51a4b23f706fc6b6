"""The state one scoring walk shares (:class:`_Run`) and its budget checks.

Why a module of its own: both lattice walks (:mod:`.lattice_walk` on bitmasks, :mod:`.walk_python`
on tuples) and the batching that runs them (:mod:`.walk_batches`) read and update the same state
and stop on the same checks -- the time limit (:meth:`_Run.tick`), the candidate cap and the memory
estimates (:meth:`_Run.check_budget`, :meth:`_Run.check_join`), what the process really holds
(:meth:`_Run.check_measured`) and each family's count table (:meth:`_Run.check_tables`).  One
home for them keeps the two walks' stopping rules the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._memory import format_bytes, give_back_freed_memory, resident_bytes
from ..errors import ScoreError
from .local_scores import LocalScore
from .pool import LevelScorer


#: Bytes a cell of a family's count table costs while it is counted and scored (the counts, their offsets,
#: the score's temporaries): a family of ``m`` observed parent configurations and a child of ``r`` states
#: costs ``m * r`` cells.  Checked before counting (:meth:`_Run.check_tables`), as the issue that asked for it
#: measured: a column of thousands of states (a row id) costs about rows^2 x 48 bytes.
COUNT_BYTES_PER_CELL = 48

#: Below this many bytes for the largest table the data can give (rows x the largest arity x
#: :data:`COUNT_BYTES_PER_CELL`), the tables are not checked at all: the walk's hot path pays nothing.
TABLES_UNCHECKED_BYTES = 64 * 1024**2


def _bytes_per_pair(k: int) -> int:
    """Memory a kept (child, parent set of size k) pair costs while its level is processed."""
    return 16 * (k + 1) + 200


class _OverBudget(Exception):
    """The walk of the current batch of children would exceed ``memory_limit`` (message ready)."""


class _OutOfTime(Exception):
    """The time limit ran out during the walk (the level being built is dropped)."""


@dataclass
class _Run:
    """What both lattice walks share."""

    sc: LocalScore
    scorer: LevelScorer
    names: tuple[str, ...]
    ar: list[int]
    eps: float
    prune: bool
    keep_all: frozenset[int]
    rules: frozenset[str]
    coef: float
    kmax: list[int | None]
    vlim: list[int | None]
    llc: np.ndarray
    counters: list[dict[str, int]]
    kept: list[list[tuple[tuple[int, ...], float]]]
    max_candidates: int | None
    memory_limit: float
    t0: float
    progress: Callable[..., Any] | None = None
    caps: list[int | None] = field(default_factory=list)        # parent-count cap per child (_grows)
    unit_other: list[bool] = field(default_factory=list)        # some other variable has arity 1
    held_bytes: float = field(default=0.0)
    active: frozenset[int] = field(default_factory=frozenset)   # children walked in this batch
    level: int = 0                                               # parent-set size being walked (messages)
    # per-child parameters as arrays, for the generation of many children at once (_walk_numpy)
    vlim_arr: np.ndarray | None = None      # palim="auto" bound (None: no child has one)
    kmax_arr: np.ndarray | None = None      # parent_count bound (None: no child has one)
    pruned_arr: np.ndarray | None = None    # bool: the rules may prune this child (not in keep_all)
    deadline: float | None = None           # time.perf_counter() at which the time limit runs out
    rows: int = 0                           # rows counted (distinct rows when merged): bounds a set's configurations
    processes: int = 1                      # processes that may count a table at once (the workers, or this one)
    memory_total: float = 0.0               # memory_limit itself (the walk's share is memory_limit above)
    growing: frozenset[int] = field(default_factory=frozenset)  # children whose level ``level`` is being built
    truncated: dict[int, int] | None = None  # after a stop by the time limit: child -> largest size kept
    rss_base: float | None = None           # this process's resident bytes when the walk began (None: unknown)
    done_so_far: tuple[int, list[int]] = (0, [0])  # the walk's (families scored, per level) after its last level

    def tick(self) -> None:
        """Stop the walk (:class:`_OutOfTime`) once the time limit has passed: called per level and per piece,
        never per family, so the hot loops do not pay for it."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _OutOfTime

    def child_arrays(self) -> None:
        """Fill :attr:`vlim_arr`, :attr:`kmax_arr` and :attr:`pruned_arr` (no bound: a count never reached)."""
        n = len(self.names)
        never = np.iinfo(np.int64).max
        self.vlim_arr = (None if all(x is None for x in self.vlim)
                         else np.array([never if x is None else x for x in self.vlim], dtype=np.int64))
        self.kmax_arr = (None if all(x is None for x in self.kmax)
                         else np.array([never if x is None else x for x in self.kmax], dtype=np.int64))
        self.pruned_arr = np.array([v not in self.keep_all for v in range(n)], dtype=bool)

    def start_measuring(self) -> None:
        """Take this process's resident bytes now as the base :meth:`check_measured` counts growth from
        (called once, as the walk begins)."""
        base = resident_bytes()
        self.rss_base = None if base is None else float(base)

    def check_tables(self, child: np.ndarray, q: np.ndarray, parents: Callable[[int], tuple[int, ...]], k: int,
                     need: float) -> None:
        """One-line ScoreError when counting a pair's table would exceed the memory limit (before counting).

        A pair ``(child, parent set)`` is counted in a table of ``min(q, rows)`` configurations times the
        child's states (:data:`COUNT_BYTES_PER_CELL` a cell), in every process that counts at once;
        ``need`` is what the walk holds meanwhile.  Checked only on data whose widest possible table
        passes :data:`TABLES_UNCHECKED_BYTES` (a column of thousands of states).
        """
        if not child.size:
            return
        ar = np.asarray(self.ar, dtype=np.float64)
        cells = np.minimum(q, float(max(self.rows, 1))) * ar[child]
        i = int(np.argmax(cells))
        table = float(cells[i]) * COUNT_BYTES_PER_CELL
        if need + table * self.processes <= self.memory_limit:
            return
        v = int(child[i])
        ps = parents(i)
        wide = sorted((j for j in (v, *ps) if self.ar[j] >= 100), key=lambda j: -self.ar[j])
        shown = ", ".join(f"{self.names[j]!r} ({self.ar[j]:,} states)" for j in wide[:3])
        raise ScoreError(
            f"scoring variable {self.names[v]!r} with parents {{{','.join(self.names[p] for p in ps)}}} needs a count "
            f"table of {int(min(float(q[i]), self.rows)):,} x {self.ar[v]:,} cells, about {format_bytes(table)}"
            + (f" in each of {self.processes} processes" if self.processes > 1 else "")
            + f", over memory_limit {format_bytes(self.memory_total)}"
            + (f": {shown} look like row ids or continuous values; drop or discretise them" if wide else "")
            + ", set palim, or raise memory_limit")

    def check_budget(self, n_scored: int, per_child: np.ndarray, k: int, extra: float | None = None,
                     upcoming: float = 0.0) -> None:
        """One-line ScoreError when the candidate cap or the memory budget would be exceeded.

        ``extra``: bytes the level being built needs beyond :attr:`held_bytes`
        (default: every candidate counted in ``per_child`` held at once); ``upcoming``: the part of it
        not allocated yet, checked against what the process really holds (:meth:`check_measured`).
        """
        self.level = k
        n_pairs = int(per_child.sum())
        worst = int(np.argmax(per_child))
        if self.max_candidates is not None and n_scored + n_pairs > self.max_candidates:
            raise ScoreError(
                f"scoring would evaluate over {self.max_candidates} candidate parent sets (variable "
                f"{self.names[worst]!r} alone has {int(per_child[worst])} of size {k}); "
                f"set palim or raise max_candidates")
        need = (n_pairs * _bytes_per_pair(k) if extra is None else extra) + self.held_bytes
        if need > self.memory_limit:
            raise _OverBudget(
                f"scoring needs about {format_bytes(need)} at parent-set size {k} (variable {self.names[worst]!r} "
                f"alone has {int(per_child[worst]):,} candidate sets of that size), over memory_limit "
                f"{format_bytes(self.memory_limit)}; set palim or raise memory_limit")
        self.check_measured(upcoming, k)

    def check_measured(self, upcoming: float, k: int) -> None:
        """:class:`_OverBudget` when this process's growth since the walk began (its resident set, freed heap
        given back first), plus ``upcoming`` bytes about to be allocated, passes the walk's share.

        Why besides the estimates: they count the walk's arrays, not the interpreter's and the allocator's
        overheads, and the limit is judged by what the process tree holds.  Read only where the estimate
        already passed (once a piece), so the hot loops pay nothing.
        """
        if self.rss_base is None:
            return
        now = resident_bytes()
        if now is None or now - self.rss_base + upcoming <= self.memory_limit:
            return
        give_back_freed_memory()
        now = resident_bytes() or now
        grown = now - self.rss_base
        if grown + upcoming > self.memory_limit:
            raise _OverBudget(
                f"scoring holds {format_bytes(grown)} and needs {format_bytes(upcoming)} more at parent-set size "
                f"{k}, over memory_limit {format_bytes(self.memory_limit)}; set palim or raise memory_limit")

    def check_join(self, stored: float, k: int) -> None:
        """:class:`_OverBudget` when joining a level's pieces (:meth:`.lattice_level._Level.concat`) would pass the budget.

        The join holds the stored rows (``stored`` bytes, ``k + 45`` a row), the child ids and their stable
        order (8 bytes a row each) and, one field at a time, a field's joined and permuted copies.
        """
        rows = stored / (k + 45)
        upcoming = rows * (16 + 2 * max(8, k))
        if stored + upcoming > self.memory_limit:
            raise _OverBudget(
                f"scoring needs about {format_bytes(stored + upcoming)} to join the parent sets of size {k}, over "
                f"memory_limit {format_bytes(self.memory_limit)}; set palim or raise memory_limit")
        self.check_measured(upcoming, k)


def _tables_checked(run: _Run) -> bool:
    """Whether a count table of this data can be big enough to need :meth:`_Run.check_tables` (rarely)."""
    return float(max(run.rows, 1)) * max(run.ar, default=1) * COUNT_BYTES_PER_CELL > TABLES_UNCHECKED_BYTES


def _grows(run: _Run, v: int, k: int) -> bool:
    """Can child ``v`` have a candidate of size ``k + 1`` that the parent-count caps let through?

    Without parents of arity 1 every set of size ``k`` has ``k`` parents of
    arity >= 2, so once ``k`` reaches ``min(kmax, vlim)`` every superset is
    excluded by ``parent_count`` (or by ``palim="auto"``): the walk does not
    generate them at all.  The table is unchanged; only the ``parent_count``
    counter no longer counts those sets.
    """
    cap = run.caps[v]
    return cap is None or k < cap or run.unit_other[v]


def _count_capped(run: _Run, v: int, n_sets: int) -> None:
    """Credit ``parent_count`` with the ``n_sets`` sets at which child ``v``'s walk stops growing.

    The supersets of those sets are excluded by the cap without being
    generated; counting the sets keeps the counters honest (a table whose
    counters are all zero is taken to be unpruned, hence safe for every gap).
    """
    c = run.counters[v]
    if n_sets and "parent_count" in c:
        c["parent_count"] += n_sets


def _check_finite(scores: np.ndarray, names: tuple[str, ...], parents: list[tuple[int, ...]],
                  children: Any) -> None:
    bad = np.isnan(scores) | (scores == np.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        c = int(children[i])
        ps = ",".join(names[p] for p in parents[i]) or "{}"
        raise ScoreError(f"local score of {names[c]}<-{ps} is {scores[i]}, not a number below +inf")
