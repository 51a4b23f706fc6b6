"""Counting and scoring of one lattice level's parent sets, serially or on workers.

The lattice walk (:mod:`.engine`) is level-synchronous: generating the
candidates of a level and applying the bound rules are cheap array
operations done by the driver, and the expensive part -- counting each
surviving parent set once for every child that wants it and scoring it -- is
a map over parent sets.  This module is that map:

* :func:`score_groups` does it in-process (``n_jobs=1``, and the reference);
* :class:`~gobnilp_py.scoring.pool.LevelScorer` (:mod:`.pool`) cuts a level into contiguous chunks of parent sets (in
  the lexicographic order the counting cache reuses prefixes in) and runs
  them on a ``concurrent.futures`` process pool (the dataset and the score
  are broadcast once per worker, through the pool initializer) or on a Dask
  cluster (``backend="dask"``: the payload is scattered to every worker once
  and tasks refer to it).

For the built-in scores the counting and scoring of a level runs either on
numpy blocks (:func:`_score_groups_blocks`) or, when numba is installed and
the level is big enough to pay for loading it, in the compiled kernel of
:mod:`._kernels_numba` (same numbers; see its docstring for the tolerance).
The choice is made once per level (:func:`use_kernel`) and sent with every
chunk, so every process scores a level with the same code.

Results are written back by position, every worker runs exactly the code of
:func:`score_groups` on the same inputs, and no floating-point sum crosses a
chunk boundary, so the table is bit-for-bit the serial one whatever the
number of workers.  Workers build their own
:class:`~gobnilp_py.scoring.counts.ParentConfigs` (its id for a parent set is
a function of the set alone, so caches do not change results).
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import pickle
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_choice
from ..data.dataset import Dataset
from . import atom_bounds as ab
from .counts import ParentConfigs, csr, distinct_small, find_sorted, ranges
from .local_scores import K2, BDeu, BDs, DirichletScore, LocalScore, PenalisedLL, _lgamma_cache

__all__ = ["Payload", "GroupResults", "FlatGroups", "score_groups", "BACKENDS", "check_backend", "KERNEL", "use_kernel",
           "kernel_available", "ScoringDeadline", "kernel_table_bytes"]

log = logging.getLogger(__name__)

#: Execution backends of :func:`gobnilp_py.scoring.score`.
BACKENDS = ("processes", "dask")


def check_backend(value: Any, name: str | None = "backend") -> str:
    """Where scoring runs: ``"serial"`` (in-process), ``"processes"`` (local cores) or ``"dask"`` (a cluster).

    The backends' own check (the registry validates its names), shared by the API, the config and the CLI.
    """
    return check_choice(value, name, ("serial",) + tuple(b for b in BACKENDS if b != "serial"))


#: A level goes to the worker pool only when it is big enough to pay for sending it.  The work
#: of a level is estimated as Σ (children of each parent set) x (data rows counted) "units":
#: counting and scoring cost about 10-60 ns per unit in-process (BIC and BDeu, measured on
#: wine, zoo, tic-tac-toe, hailfinder100 and nltcs), while the pool costs about 15-30 ms to
#: start and 10-40 µs per parent set to send and receive (measured the same way).  So a level
#: is scored in-process unless it has at least PARALLEL_MIN_GROUPS parent sets, at least
#: PARALLEL_MIN_UNITS units (about 0.2-1 s of serial work) and at least
#: PARALLEL_MIN_UNITS_PER_GROUP units per parent set (40-200 µs each, several times the cost
#: of sending one).  On wine, tic-tac-toe, zoo and hailfinder100 no level qualifies, so the
#: default never starts a pool there.  Tests set all three to 0 to force the pool.
PARALLEL_MIN_GROUPS = 4000
PARALLEL_MIN_UNITS = 20_000_000
PARALLEL_MIN_UNITS_PER_GROUP = 4000

#: Parent sets handed to one ``batch_many`` call.
BATCH = 64

#: Dirichlet scores count and score a block of parent sets at once (:func:`_score_block`): at most
#: this many sets, and at most :data:`BLOCK_ROW_PAIRS` (pair x data row) elements of joint codes.
#: Why 2**18 (was 2**20): a block's arrays (joint codes, counts, their masks) then stay within the
#: caches.  numpy path, one core, unlocked, best of 2-5 runs, 2**20 / 2**19 / 2**18: tic-tac-toe BDeu
#: 0.188 / 0.155 / 0.140 s, zoo BDeu 1.76 / 1.71 / 1.60 s, alarm1000 BDeu palim 3 3.65 / 3.66 / 3.82 s;
#: insurance1000 BIC palim 3 0.71 / 0.49 / 0.43 s.  Smaller blocks only pay because the ``ml_ceiling``
#: bound (:func:`_block_ceiling`) no longer loops over a block's children: with that loop alarm1000
#: took 5.44 s at 2**18.
#: Block boundaries never change a result (see :func:`_score_groups_blocks`).
BLOCK_SETS = 4096
BLOCK_ROW_PAIRS = 1 << 18

#: Penalised log-likelihoods and the Dirichlet scores with a built-in prior may be counted per variable
#: set (:func:`_score_groups_sets`) where :func:`counts_by_sets` finds it pays; ``False`` always counts
#: per pair (tests compare).
SET_COUNTING = True

#: Rows (after merging) below which per-pair counting stays (:func:`counts_by_sets`): measured on data
#: where every variable is determined by the others, per-set counting took 0.5x the time on
#: tic-tac-toe (958 rows) and 1.13x on hailfinder100 (100 rows, palim 2).
SET_COUNTING_MIN_ROWS = 512

#: The per-set path's block: (pair x data row) elements, as :data:`BLOCK_ROW_PAIRS`.  Larger than the
#: per-pair block because it holds only one id row per set (pairs share their family sets across a
#: block, so the bigger the block the more they share).
SET_BLOCK_ROW_PAIRS = 1 << 20

#: Which code counts and scores the built-in scores: ``"auto"`` (the numba kernel of
#: :mod:`._kernels_numba` for levels of at least :data:`KERNEL_MIN_UNITS` units when numba is
#: importable, numpy blocks otherwise), ``"numpy"`` (always numpy) or ``"numba"`` (the kernel for
#: every level, whatever its size; numpy when numba is missing).  Read from the environment variable
#: ``GOBNILP_SCORING_KERNEL`` at import; tests and benchmarks set this attribute (or the variable).
KERNEL = os.environ.get("GOBNILP_SCORING_KERNEL", "auto").strip().lower() or "auto"

#: In ``"auto"`` mode a scoring run switches to the kernel at the first level at which its work so
#: far (Σ over its levels, this one included, of children x rows counted: the units of
#: :data:`PARALLEL_MIN_UNITS`) reaches this, and stays on it.  Importing numba and loading the
#: cached kernel cost about 1-1.5 s in a fresh process when this was set (a first compile after
#: installation about 10 s; session 15 measured importing numba at 0.17-0.18 s on this machine),
#: while the kernel saves about 10-60 ns per unit (numpy blocks 15-100 ns, the kernel 3-15;
#: measured in ``benchmarks/results/counting-kernel-vs-numpy-and-pgmpy.md``): a run switches once it has shown about
#: a second or two of numpy work, so small problems never pay the load and big ones pay it once.
#: (On insurance1000, nltcs and alarm1000 numpy-only scoring took 2.9-4.3x as long, so the switch
#: pays there at once; session 15.)
#: The decision depends only on the run's own levels (never on what the process ran before), and is
#: sent with the level to every worker.
KERNEL_MIN_UNITS = 20_000_000

#: Bytes of family-set ``F`` values a process keeps for the next level (:meth:`_Context.keep_f`):
#: 16 bytes a set, so about four million sets.
F_CACHE_BYTES = 64 * 1024**2

#: Parent sets handed to one kernel call (bounds the per-pair input arrays).
KERNEL_SETS = 4096
#: ... and at most this many units (pairs x data rows, as :data:`PARALLEL_MIN_UNITS`) per call, so that the
#: deadline (looked at between calls) is seen within a few hundredths of a second (3-15 ns a unit in the
#: kernel): 4,096 parent sets of 30 children on 1,000 rows were 1.2e8 units, up to 1.8 s.  With 2^24 the
#: limit was overrun by 0.2-0.5 s on BDeu (26 variables, 600 rows), with 2^22 by 0.16-0.26 s.  A pair's
#: values never depend on the call it is in, so the split changes no result.
KERNEL_UNITS = 1 << 22

#: Memory of the per-process cache of mixed-atom penalties per (child, prior mass) before it is cleared.
PEN_CACHE_BYTES = 64 * 1024**2


@dataclass
class Payload:
    """Everything a worker needs, sent once: the data, the score and what to compute."""

    data: Dataset
    score: LocalScore
    want_ll: bool
    want_cells: bool
    want_ub: bool
    atom_weights: np.ndarray | None     # (n, rows): LL share of each row's atom, per child
    ub_children: np.ndarray | None = None  # bool (n,): children whose ml_ceiling can beat cell_bound
    atom_mixed: np.ndarray | None = None   # (n, rows) float 0/1: the row's atom holds >= 2 child states
    #: ml_ceiling: charge each mixed atom its own cost (``atom_bounds.atom_penalties``); False: the
    #: first version's one ``max(0, -ln a)`` per configuration holding a mixed atom (kept to measure)
    atom_penalty: bool = True
    #: count every pair per variable set (:func:`_score_groups_sets`); the engine decides (:func:`counts_by_sets`)
    by_sets: bool = False
    token: str = ""


class ScoringDeadline(Exception):
    """The time limit ran out while a block of parent sets was being counted (in this process or a worker).

    Raised between blocks (a few thousand parent sets, milliseconds of work), never per family; the
    lattice walk drops the level it was building (:func:`gobnilp_py.scoring.score`, ``time_limit``).
    """


def _check_deadline(ctx: "_Context") -> None:
    d = ctx.deadline
    if d is not None and time.time() >= d:
        raise ScoringDeadline("the time limit ran out while scoring")


@dataclass
class GroupResults:
    """Per (parent set, child) pair, in the order the groups were given."""

    scores: np.ndarray
    ll: np.ndarray        # NaN where the score has no log-likelihood
    cells: np.ndarray     # int64, non-empty (configuration, state) cells (0 when not wanted)
    ub: np.ndarray        # ml_ceiling bound for the set and all supersets (+inf when not wanted)


@dataclass
class FlatGroups:
    """Groups ``(parent set, children)`` as four arrays: what the lattice walk sends to a worker.

    ``set_el[set_ptr[g]:set_ptr[g + 1]]`` is group ``g``'s parent set (sorted)
    and ``children[ch_ptr[g]:ch_ptr[g + 1]]`` the children that want it.  Why:
    a piece of a wide level holds tens of thousands of groups, and pickling them
    as a list of ``(tuple, array)`` pairs took 13-16 % of the driver's time on
    spectf; four small-integer arrays pickle in microseconds, and the compiled
    kernel reads them as they are.  Every other path gets :meth:`to_list`.
    """

    set_ptr: np.ndarray   # int64 (G + 1,)
    set_el: np.ndarray    # small ints (S,)
    ch_ptr: np.ndarray    # int64 (G + 1,)
    children: np.ndarray  # small ints (P,)

    def __len__(self) -> int:
        return int(self.set_ptr.size - 1)

    @property
    def n_pairs(self) -> int:
        return int(self.ch_ptr[-1])

    def pair_counts(self) -> np.ndarray:
        """Children per group."""
        return np.diff(self.ch_ptr)

    def part(self, a: int, b: int) -> "FlatGroups":
        """Groups ``a:b`` (offsets rebased to 0)."""
        sp, cp = self.set_ptr, self.ch_ptr
        return FlatGroups(sp[a:b + 1] - sp[a], self.set_el[sp[a]:sp[b]], cp[a:b + 1] - cp[a],
                          self.children[cp[a]:cp[b]])

    def to_list(self) -> list[tuple[tuple[int, ...], np.ndarray]]:
        """The groups as ``(parent tuple, int64 children)`` pairs."""
        el = self.set_el.tolist()
        sp = self.set_ptr.tolist()
        cp = self.ch_ptr.tolist()
        ch = self.children.astype(np.int64)
        return [(tuple(el[sp[g]:sp[g + 1]]), ch[cp[g]:cp[g + 1]]) for g in range(len(sp) - 1)]

    @staticmethod
    def of(groups: list[tuple[tuple[int, ...], np.ndarray]]) -> "FlatGroups":
        """A list of groups as arrays (int64; plain numpy, so numba is not loaded)."""
        set_ptr, set_el = csr([g[0] for g in groups])
        ch_ptr = np.zeros(len(groups) + 1, dtype=np.int64)
        np.cumsum(np.fromiter((np.size(g[1]) for g in groups), dtype=np.int64, count=len(groups)), out=ch_ptr[1:])
        children = (np.concatenate([np.asarray(g[1], dtype=np.int64) for g in groups]) if ch_ptr[-1]
                    else np.zeros(0, dtype=np.int64))
        return FlatGroups(set_ptr, set_el, ch_ptr, children)


def n_pairs(groups: Any) -> int:
    """(parent set, child) pairs of ``groups`` (a list or :class:`FlatGroups`)."""
    if isinstance(groups, FlatGroups):
        return groups.n_pairs
    return sum(int(ch.size) for _, ch in groups)


class _Context:
    """Per-process state built from a :class:`Payload` (counting cache, ln r)."""

    def __init__(self, payload: Payload, counts: ParentConfigs | None = None) -> None:
        self.p = payload
        #: ``time.time()`` after which the call being run stops (:class:`ScoringDeadline`), checked once per
        #: block of parent sets: the wall clock, so that workers on other machines (Dask) read the same deadline
        self.deadline: float | None = None
        self.pc = counts if counts is not None and counts.data is payload.data else ParentConfigs(payload.data)
        self.lnr = np.log(np.maximum(np.asarray(payload.data.arities, dtype=np.float64), 1.0))
        self._mixed_rows: dict[int, np.ndarray] = {}
        self._mixed_csr: tuple[np.ndarray, np.ndarray] | None = None
        self._atoms: dict[int, Any] = {}
        self._pen: dict[tuple[int, float], tuple[np.ndarray, np.ndarray]] = {}
        self._pen_bytes = 0
        # F of the family sets scored lately, by set size: parts of (masks, F) (see known_f)
        self._f_sets: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def known_f(self, size: int, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(F, known)`` of the sets in ``masks`` (of ``size`` elements) that this process scored as
        family sets lately (:meth:`keep_f`; ``F`` is meaningless where ``known`` is False), or None
        when it holds none of that size.

        Why: a level's parent sets are the previous level's family sets and ``F`` depends on the
        set alone (it is summed in the set's configuration order), so reading it back gives the
        value recounting would, bit for bit, without counting the parent sets at all.
        """
        parts = self._f_sets.get(size)
        if not parts or masks.size == 0:
            return None
        if len(parts) > 1:                  # one sorted array for the level's look-ups
            km = np.concatenate([m for m, _ in parts])
            kf = np.concatenate([f for _, f in parts])
            order = np.argsort(km, kind="stable")
            parts[:] = [(km[order], kf[order])]
        km, kf = parts[0]
        pos, hit = find_sorted(km, masks)
        return kf[pos], hit

    def keep_f(self, size: int, masks: np.ndarray, f: np.ndarray) -> None:
        """Keep ``F`` of family sets of ``size`` elements (``masks`` sorted) for :meth:`known_f`; only the
        latest two sizes and at most :data:`F_CACHE_BYTES` are held."""
        for t in [t for t in self._f_sets if t not in (size - 1, size)]:
            del self._f_sets[t]
        held = sum(m.nbytes + v.nbytes for parts in self._f_sets.values() for m, v in parts)
        if held + masks.nbytes + f.nbytes <= F_CACHE_BYTES:
            self._f_sets.setdefault(size, []).append((masks, f))

    def atom_penalties(self, child: int, a: float) -> tuple[np.ndarray, np.ndarray]:
        """``(pen, dlt)`` per :meth:`mixed_rows` of ``child`` for prior mass ``a`` (cached; see
        :mod:`.atom_bounds`).  Both scoring paths read these same arrays, so they agree bit for bit."""
        key = (child, float(a))
        hit = self._pen.get(key)
        if hit is None:
            rows = self.mixed_rows(child)
            if not self.p.atom_penalty:
                hit = ab.lambda_penalties(rows.size, key[1])
            else:
                at = self._atoms.get(child)
                if at is None:
                    at = self._atoms[child] = ab.child_atoms(self.pc, child, rows)
                hit = ab.atom_penalties(at, key[1])
            if self._pen_bytes > PEN_CACHE_BYTES:
                self._pen.clear()
                self._pen_bytes = 0
            self._pen[key] = hit
            self._pen_bytes += 16 * rows.size + 64
        return hit

    def mixed_rows(self, child: int) -> np.ndarray:
        """Rows (of the counting) whose atom holds two or more states of ``child``."""
        hit = self._mixed_rows.get(child)
        if hit is None:
            mixed = self.p.atom_mixed
            if mixed is not None:
                hit = np.flatnonzero(mixed[child] > 0)
            else:
                assert self.p.atom_weights is not None
                hit = np.flatnonzero(self.p.atom_weights[child] != 0)
            self._mixed_rows[child] = hit
        return hit

    def mixed_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`mixed_rows` of every child that ``ub_children`` selects, as ``(ptr, rows)`` (cached)."""
        if self._mixed_csr is None:
            n = int(self.pc.arities.size)
            ubc = self.p.ub_children
            parts = [self.mixed_rows(c) if ubc is None or ubc[c] else np.zeros(0, dtype=np.int64)
                     for c in range(n)]
            ptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum([x.size for x in parts], out=ptr[1:])
            rows = np.concatenate(parts).astype(np.int64, copy=False) if ptr[-1] else np.zeros(0, dtype=np.int64)
            self._mixed_csr = (ptr, rows)
        return self._mixed_csr


def score_groups(ctx: _Context, groups: list[tuple[tuple[int, ...], np.ndarray]],
                 kernel: bool | None = None, deadline: float | None = None) -> GroupResults:
    """Count and score every ``(parent set, children)`` group; arrays concatenated in order.

    ``kernel``: use the compiled kernel for a built-in score (``None``: decide from these groups
    with :func:`use_kernel`; callers that split a level decide once for the whole level).
    ``deadline``: ``time.time()`` after which :class:`ScoringDeadline` is raised, looked at once per
    block of parent sets.
    """
    ctx.deadline = deadline
    p = ctx.p
    if _blocks_apply(p.score):
        if kernel is None:
            kernel = use_kernel(p.score, groups, ctx.pc.rows, pc=ctx.pc)
        if kernel:
            return _score_groups_kernel(ctx, groups)
        return _score_groups_blocks(ctx, groups)
    if isinstance(groups, FlatGroups):
        groups = groups.to_list()
    total = sum(int(ch.size) for _, ch in groups)
    scores = np.empty(total)
    lls = np.full(total, np.nan)
    cells = np.zeros(total, dtype=np.int64)
    ubs = np.full(total, np.inf)
    pos = 0
    for b in range(0, len(groups), BATCH):
        _check_deadline(ctx)
        block = groups[b:b + BATCH]
        fcs = []
        start = pos
        for x, ch in block:
            fc = ctx.pc.family_counts(x, ch)
            fcs.append(fc)
            k = int(ch.size)
            if p.want_cells or p.want_ub:
                # right after counting: the ids of x are still in the counting cache
                c, u = _cells_and_ceiling(ctx, x, fc, p.want_ub)
                cells[pos:pos + k] = c
                if u is not None:
                    ubs[pos:pos + k] = u
            pos += k
        pos = start
        for (x, ch), r in zip(block, p.score.batch_many(fcs)):
            k = int(ch.size)
            scores[pos:pos + k] = r.scores
            if r.ll is not None:
                lls[pos:pos + k] = r.ll
            pos += k
    return GroupResults(scores, lls, cells, ubs)


_KERNEL_AVAILABLE: list[bool] = []


def kernel_available() -> bool:
    """Whether numba can be imported (checked without importing it)."""
    if not _KERNEL_AVAILABLE:
        _KERNEL_AVAILABLE.append(importlib.util.find_spec("numba") is not None)
    return _KERNEL_AVAILABLE[0]


def _kernel_scores(sc: LocalScore) -> bool:
    """Scores the kernel computes: penalised LL with the built-in LL (any ``coef``), and the
    Dirichlet scores whose prior is BDeu's, K2's or BDs's own (``alpha_j`` and ``pair_alpha``
    both inherited unchanged from one of them).  Anything else stays on the numpy path."""
    if not _blocks_apply(sc):
        return False
    if isinstance(sc, PenalisedLL):
        return True
    return _builtin_prior(sc)


def _builtin_prior(sc: LocalScore) -> bool:
    """Whether a Dirichlet score's prior is BDeu's, K2's or BDs's own (``alpha_j`` and ``pair_alpha``
    both inherited unchanged from one of them): its ``pair_alpha`` reads only ``q``, ``pair_set`` and ``r``."""
    cls = type(sc)
    return isinstance(sc, DirichletScore) and any(
        cls.alpha_j is base.alpha_j and cls.pair_alpha is base.pair_alpha  # type: ignore[attr-defined]
        for base in (BDeu, K2, BDs))


#: Most bytes of the tables the compiled kernel allocates per call whatever it counts (a code table and a
#: count table, each ``8 * max(rows, dense limit) * largest arity`` bytes): above it the level goes to the numpy
#: blocks, whose tables grow with each family's own configurations.  Why: a column of 12,000 states on 12,000
#: rows made every kernel call allocate 2.3 GB.
KERNEL_TABLE_BYTES = 64 * 1024**2


def kernel_table_bytes(pc: ParentConfigs) -> int:
    """Bytes of the tables one call of the compiled kernel allocates on ``pc``'s data (see :data:`KERNEL_TABLE_BYTES`)."""
    return 16 * max(int(pc.dense_limit), int(pc.rows), 1) * max(1, int(pc.arities.max(initial=1)))


def use_kernel(sc: LocalScore, groups: list[tuple[tuple[int, ...], np.ndarray]], rows: int,
               units_before: int = 0, pc: ParentConfigs | None = None) -> bool:
    """Whether a level (``groups``) is scored by the compiled kernel (see :data:`KERNEL`).

    ``units_before``: work of the run's earlier levels (see :data:`KERNEL_MIN_UNITS`).  ``pc``: the data's
    counting (never the kernel when its fixed tables would exceed :data:`KERNEL_TABLE_BYTES`).
    """
    mode = KERNEL
    if mode == "numpy" or not len(groups) or not _kernel_scores(sc) or not kernel_available():
        return False
    if pc is not None and kernel_table_bytes(pc) > KERNEL_TABLE_BYTES:
        return False
    if mode == "numba":
        return True
    units = n_pairs(groups) * max(1, rows)
    return units_before + units >= KERNEL_MIN_UNITS


def _blocks_apply(sc: LocalScore) -> bool:
    """True when ``sc`` is a built-in family (Dirichlet or penalised LL) whose batch code it does not override.

    A subclass that overrides ``batch``/``batch_many`` (or ``log_likelihood``) is
    scored through its own code, never through the block path.
    """
    cls = type(sc)
    if isinstance(sc, DirichletScore):
        return cls.batch is DirichletScore.batch and cls.batch_many is DirichletScore.batch_many
    if isinstance(sc, PenalisedLL):
        return (cls.batch is PenalisedLL.batch and cls.batch_many is PenalisedLL.batch_many
                and cls.log_likelihood is PenalisedLL.log_likelihood
                and cls.block_scores is PenalisedLL.block_scores)
    return False


def counts_by_sets(sc: LocalScore, n: int, rows: int, determined: np.ndarray | None) -> bool:
    """Whether a run counts per variable set (:func:`_score_groups_sets`) rather than per pair.

    Possible for the package's own block arithmetic on at most 62 variables
    (sets are int64 bitmasks), where it was measured to pay:

    - penalised log-likelihoods (BIC, AIC) always: ``LL(c | W) = F(W ∪ {c}) -
      F(W)`` is a difference of two set functions, and the walk's families
      share their sets 2.7-4.1 times on the shared data (``determined`` is not
      read: pass ``None``);
    - the built-in Dirichlet priors (their ``pair_alpha`` reads only ``q``,
      ``pair_set`` and ``r``) when every variable is ``determined`` by the
      others (every atom pure, so no pair ever needs the ``ml_ceiling``
      tables and every child of a parent set shares its family sets) and
      there are at least :data:`SET_COUNTING_MIN_ROWS` (merged) rows.

    All properties of the data and the score, never of the pruning settings,
    so on the numpy paths a family's value does not depend on them.  (Levels
    that the compiled kernel scores, past :data:`KERNEL_MIN_UNITS` of a run's
    work, are summed per pair: the same values to ~1e-13.)
    """
    if not set_counting_possible(sc, n, rows):
        return False
    if not set_counting_reads_atoms(sc):
        return True
    if determined is None:
        raise ValueError("counts_by_sets: a Dirichlet score needs the determined variables")
    return bool(np.all(determined))


def set_counting_possible(sc: LocalScore, n: int, rows: int) -> bool:
    """:func:`counts_by_sets` before looking at the data's atoms (what the engine checks first, as
    finding the determined variables costs a pass over the data)."""
    if not (SET_COUNTING and n <= 62 and _blocks_apply(sc)):
        return False
    if isinstance(sc, PenalisedLL):
        return type(sc).set_block_scores is PenalisedLL.set_block_scores
    return bool(rows >= SET_COUNTING_MIN_ROWS and _builtin_prior(sc)
                and type(sc).block_scores is DirichletScore.block_scores)


def set_counting_reads_atoms(sc: LocalScore) -> bool:
    """Whether :func:`counts_by_sets` needs the determined variables (the Dirichlet scores only)."""
    return not isinstance(sc, PenalisedLL)


def _score_groups_sets(ctx: _Context, fg: FlatGroups) -> GroupResults:
    """:func:`_score_groups_blocks` with each parent set and family set counted once per block.

    See :class:`~gobnilp_py.scoring.counts.SetBlockCounts`,
    :meth:`~gobnilp_py.scoring.local_scores.DirichletScore.set_block_scores` and
    :meth:`~gobnilp_py.scoring.local_scores.PenalisedLL.set_block_scores` (which
    also gives the log-likelihoods).  Parent sets are taken size by size (a
    block's sets have one size), in blocks of about :data:`SET_BLOCK_ROW_PAIRS`.
    A pair's values depend only on its own two sets, so the blocks, the sizes
    met together and the split between workers never change a result.  No
    pair counted here has an ``ml_ceiling`` (penalised scores have none; for
    the Dirichlet ones every atom of the child is pure), so bounds stay ``+inf``.
    """
    p = ctx.p
    penalised = isinstance(p.score, PenalisedLL)
    total = fg.n_pairs
    scores = np.empty(total)
    lls = np.full(total, np.nan)
    cells = np.zeros(total, dtype=np.int64)
    sizes = np.diff(fg.set_ptr)
    per_set = np.diff(fg.ch_ptr)
    rows = max(1, ctx.pc.rows)
    for k in distinct_small(sizes):
        gs = np.flatnonzero(sizes == k)
        E = fg.set_el[(fg.set_ptr[gs][:, None] + np.arange(k, dtype=np.int64)).reshape(-1)]
        E = E.astype(np.int64).reshape(gs.size, k)
        cnt = per_set[gs]
        where = ranges(fg.ch_ptr[gs], cnt)
        kids = fg.children[where].astype(np.int64)
        cum = np.cumsum(cnt * rows)
        b, pos = 0, 0
        while b < gs.size:     # consecutive sets: at most BLOCK_SETS, about SET_BLOCK_ROW_PAIRS pair-rows
            _check_deadline(ctx)
            base = int(cum[b - 1]) if b else 0
            e = int(np.searchsorted(cum, base + SET_BLOCK_ROW_PAIRS, side="left")) + 1
            e = min(max(e, b + 1), gs.size, b + BLOCK_SETS)
            m = int(cnt[b:e].sum())
            at = where[pos:pos + m]
            if penalised:
                # the parent sets' F read back from the previous level where this process has it
                known = ctx.known_f(k, ctx.pc.set_masks(E[b:e])) if k else None
                sb = ctx.pc.set_block_counts(E[b:e], cnt[b:e], kids[pos:pos + m],
                                             count_sets=None if known is None else ~known[1])
                sums = p.score.set_sums(sb, None if known is None else known[0])  # type: ignore[attr-defined]
                scores[at], lls[at] = p.score.set_block_scores(sb, sums)  # type: ignore[attr-defined]
                ctx.keep_f(k + 1, sb.family_masks, sums[1])
                if p.want_cells:
                    cells[at] = sb.family_cells()
            else:
                sb = ctx.pc.set_block_counts(E[b:e], cnt[b:e], kids[pos:pos + m])
                s, c = p.score.set_block_scores(sb)  # type: ignore[attr-defined]
                scores[at] = s
                if p.want_cells or p.want_ub:
                    cells[at] = c
            pos += m
            b = e
    return GroupResults(scores, lls, cells, np.full(total, np.inf))


def _score_groups_blocks(ctx: _Context, groups: Any) -> GroupResults:
    """:func:`score_groups` for Dirichlet scores: blocks of parent sets counted and scored together,
    per variable set when the engine chose it (:attr:`Payload.by_sets`), else one table per pair."""
    if ctx.p.by_sets:
        return _score_groups_sets(ctx, groups if isinstance(groups, FlatGroups) else FlatGroups.of(groups))
    return _score_groups_blocks_pairs(ctx, groups.to_list() if isinstance(groups, FlatGroups) else groups)


def _score_groups_blocks_pairs(ctx: _Context, groups: list[tuple[tuple[int, ...], np.ndarray]]) -> GroupResults:
    """:func:`_score_groups_blocks` with one table per (parent set, child) pair (:class:`BlockCounts`).

    Every pair's values depend only on its own counts (see
    :meth:`~gobnilp_py.scoring.local_scores.DirichletScore.block_scores`), so
    the block boundaries -- which differ between in-process and worker runs --
    never change a result.
    """
    p = ctx.p
    total = sum(int(ch.size) for _, ch in groups)
    scores = np.empty(total)
    lls = np.full(total, np.nan)
    cells = np.zeros(total, dtype=np.int64)
    ubs = np.full(total, np.inf)
    rows = max(1, ctx.pc.rows)
    pos, b, G = 0, 0, len(groups)
    while b < G:
        _check_deadline(ctx)
        e, acc = b, 0
        while e < G and (e == b or (e - b < BLOCK_SETS and acc < BLOCK_ROW_PAIRS)):
            acc += int(groups[e][1].size) * rows
            e += 1
        bc = ctx.pc.block_counts(groups[b:e])
        k = bc.n_pairs
        if isinstance(p.score, PenalisedLL):
            s, ll = p.score.block_scores(bc)
            scores[pos:pos + k] = s
            lls[pos:pos + k] = ll
            pos += k
            b = e
            continue
        s, a, d = p.score.block_scores(bc, states=p.want_ub)  # type: ignore[attr-defined]
        scores[pos:pos + k] = s
        if (p.want_cells or p.want_ub) and k:
            cells[pos:pos + k] = bc.cells_per_pair()
            if p.want_ub:
                ubs[pos:pos + k] = _block_ceiling(ctx, bc, d, a)
        pos += k
        b = e
    return GroupResults(scores, lls, cells, ubs)


def _score_groups_kernel(ctx: _Context, groups: list[tuple[tuple[int, ...], np.ndarray]]) -> GroupResults:
    """:func:`_score_groups_blocks` in the compiled kernel (:mod:`._kernels_numba`).

    The per-pair inputs of the scores (the Dirichlet ``a_j`` and its table rows, the mixed-atom
    penalties of :meth:`_Context.atom_penalties`, the penalty per free parameter) are computed here
    with the numpy path's own expressions, so the kernel only counts, takes maxima and sums.
    """
    from . import _kernels_numba as kn

    if not kn.AVAILABLE:  # pragma: no cover - numba found but not importable
        return _score_groups_blocks(ctx, groups)
    p = ctx.p
    sc = p.score
    pc = ctx.pc
    dirichlet = isinstance(sc, DirichletScore)
    total = n_pairs(groups)
    scores = np.empty(total)
    lls = np.full(total, np.nan)
    cells = np.zeros(total, dtype=np.int64)
    ubs = np.full(total, np.inf)
    want_cells = dirichlet and (p.want_cells or p.want_ub)
    want_ub = dirichlet and p.want_ub
    n = pc.arities.size
    empty_f = np.zeros(0)
    empty_i = np.zeros(0, dtype=np.int64)
    if want_ub:
        mix_ptr, mix_rows = ctx.mixed_csr()
        assert p.atom_weights is not None
        atom_w = np.ascontiguousarray(p.atom_weights, dtype=np.float64)
        ub_children = (np.ones(n, dtype=np.bool_) if p.ub_children is None
                       else np.asarray(p.ub_children, dtype=np.bool_))
    else:
        mix_ptr, mix_rows = np.zeros(n + 1, dtype=np.int64), empty_i
        atom_w = np.zeros((n, 0))
        ub_children = np.zeros(n, dtype=np.bool_)
    xlogx = sc._xlogx if isinstance(sc, PenalisedLL) else empty_f
    ar = ctx.pc._ar_list
    flat = groups if isinstance(groups, FlatGroups) else FlatGroups.of(groups)
    pos = 0
    per_unit = max(1, pc.rows)
    G = len(flat)
    b = 0
    while b < G:
        _check_deadline(ctx)
        # at most KERNEL_SETS sets and about KERNEL_UNITS units (at least one set)
        e = int(np.searchsorted(flat.ch_ptr, flat.ch_ptr[b] + KERNEL_UNITS // per_unit, side="right")) - 1
        e = min(max(e, b + 1), G, b + KERNEL_SETS)
        chunk = flat.part(b, e)
        b = e
        set_ptr = chunk.set_ptr.astype(np.int64, copy=False)
        set_el = chunk.set_el.astype(np.int64, copy=False)
        ch_ptr = chunk.ch_ptr.astype(np.int64, copy=False)
        children = chunk.children.astype(np.int64, copy=False)
        k = int(ch_ptr[-1])
        pair_set = np.repeat(np.arange(len(chunk), dtype=np.int64), np.diff(ch_ptr))
        el, sp = set_el.tolist(), set_ptr.tolist()
        qs = [math.prod(map(ar.__getitem__, el[sp[g]:sp[g + 1]])) for g in range(len(sp) - 1)]
        r = pc.arities[children]
        if dirichlet:
            pen_set = empty_f
            # BDs's a_j needs each set's number of observed configurations before scoring
            n_obs = (kn.observed_configs(pc, set_ptr, set_el)[pair_set]
                     if type(sc).pair_alpha is BDs.pair_alpha else empty_i)  # type: ignore[attr-defined]
            light = _LightBlock(q=qs, pair_set=pair_set, r=r)
            a = np.asarray(sc.pair_alpha(light, n_obs), dtype=np.float64)  # type: ignore[attr-defined]
            a_cell = a / r.astype(np.float64)
            lg = _lgamma_cache()
            rows = lg.rows(np.concatenate([a, a_cell]))
            row_cfg, row_cell = rows[:k], rows[k:]
            tab, K = lg._tab, lg.K
            if want_ub and p.atom_mixed is not None:
                pen_flat, dl_flat, pen_off = _pair_penalties(ctx, children, a, ub_children)
            else:
                pen_flat, dl_flat, pen_off = empty_f, empty_f, np.full(k, -1, dtype=np.int64)
        else:
            pen_set = sc.coef * np.array([float(q) for q in qs], dtype=np.float64)  # type: ignore[attr-defined]
            a = a_cell = empty_f
            row_cfg = row_cell = empty_i
            tab, K = np.zeros((1, 1)), 0
            pen_flat, dl_flat, pen_off = empty_f, empty_f, np.full(k, -1, dtype=np.int64)
        s_, ll_, c_, u_ = kn.score_sets(
            pc, set_ptr, set_el, ch_ptr, children, dirichlet=dirichlet, xlogx=xlogx, pen_set=pen_set,
            a_cfg=a, a_cell=a_cell, row_cfg=row_cfg, row_cell=row_cell, tab=tab, K=K, want_cells=want_cells, want_ub=want_ub,
            ub_children=ub_children, lnr=ctx.lnr, pen_flat=pen_flat, dl_flat=dl_flat, pen_off=pen_off,
            atom_w=atom_w, mix_ptr=mix_ptr,
            mix_rows=mix_rows, use_mixed=p.atom_mixed is not None)
        scores[pos:pos + k] = s_
        lls[pos:pos + k] = ll_
        cells[pos:pos + k] = c_
        ubs[pos:pos + k] = u_
        pos += k
    return GroupResults(scores, lls, cells, ubs)


@dataclass
class _LightBlock:
    """The fields of a :class:`~gobnilp_py.scoring.counts.BlockCounts` that the built-in ``pair_alpha`` read."""

    q: list[int]
    pair_set: np.ndarray
    r: np.ndarray


def _pair_penalties(ctx: _Context, children: np.ndarray, a: np.ndarray,
                    ub_children: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mixed-atom ``(pen, dlt)`` of every pair whose child ``ub_children`` selects, for the kernel.

    Returns ``(pen_flat, dl_flat, off)``: the arrays of :meth:`_Context.atom_penalties` of each
    distinct (child, ``a``) concatenated, and per pair the offset of its own (``-1``: none); the
    ``e``-th mixed row of child ``c`` reads ``pen_flat[off + e]``.
    """
    off = np.full(children.size, -1, dtype=np.int64)
    pens: list[np.ndarray] = []
    dls: list[np.ndarray] = []
    at = 0
    for c in distinct_small(children):
        if not ub_children[c]:
            continue
        pc = np.flatnonzero(children == c)
        vals, inv = np.unique(a[pc], return_inverse=True)
        starts = np.empty(vals.size, dtype=np.int64)
        for u, av in enumerate(vals.tolist()):
            pen, dl = ctx.atom_penalties(c, av)
            starts[u] = at
            pens.append(pen)
            dls.append(dl)
            at += pen.size
        off[pc] = starts[inv]
    if not pens:
        return np.zeros(0), np.zeros(0), off
    return np.concatenate(pens), np.concatenate(dls), off


def _block_ceiling(ctx: _Context, bc: Any, d: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``ml_ceiling`` bound of every pair of a block (``+inf`` for children it cannot help).

    Same quantity as :func:`_cells_and_ceiling`, over all pairs at once.
    """
    out = np.full(bc.n_pairs, np.inf)
    ubc = ctx.p.ub_children
    sel = np.flatnonzero(ubc[bc.children]) if ubc is not None else np.arange(bc.n_pairs)
    if sel.size == 0:
        return out
    ms = bc.m[sel]
    off = np.zeros(sel.size + 1, dtype=np.int64)
    np.cumsum(ms, out=off[1:])
    ch = bc.children[sel]
    size = int(off[-1])
    w = ctx.p.atom_weights
    assert w is not None
    # Only rows of mixed atoms carry weight (a pure atom has LL 0) and only they can be mixed, so the
    # sums run over those rows alone: same terms, in the same (row) order, minus exact zeros.  All
    # pairs at once (no loop over the block's children: with small blocks and many children that loop
    # cost more than the sums): pair i contributes its child's mixed rows, in row order, to its own
    # configurations, so every bin of the ``bincount`` adds the same terms in the same order as a
    # child-by-child pass would.
    want_mixed = ctx.p.atom_mixed is not None
    mptr, mrows = ctx.mixed_csr()
    lens = mptr[ch + 1] - mptr[ch]
    total = int(lens.sum())
    pm = np.zeros(size)
    dm = np.zeros(size)
    if total:
        prep = np.repeat(np.arange(sel.size, dtype=np.int64), lens)
        first = np.zeros(sel.size, dtype=np.int64)
        np.cumsum(lens[:-1], out=first[1:])
        e = np.arange(total, dtype=np.int64) - np.repeat(first, lens)   # position among the child's mixed rows
        rows = mrows[np.repeat(mptr[ch], lens) + e]
        idx = bc.Z[bc.pair_set[sel][prep], rows] + off[:-1][prep]
        ml = np.bincount(idx, weights=w[ch[prep], rows], minlength=size)
        if want_mixed:
            # a configuration pays the dearest of its mixed atoms (maxima and minima are exact)
            pen_flat, dl_flat, poff = _pair_penalties(ctx, ch, a[sel], np.ones(int(w.shape[0]), dtype=bool))
            at = poff[prep] + e
            np.maximum.at(pm, idx, pen_flat[at])
            np.minimum.at(dm, idx, dl_flat[at])
    else:
        ml = np.zeros(size)
    gidx = np.repeat(bc.cfg_off[sel] - off[:-1], ms) + np.arange(size, dtype=np.int64)
    cell_ub = -d[gidx] * np.repeat(ctx.lnr[ch], ms) - pm
    # sequential sum per pair (configurations in order): the order of the compiled kernel, same bits
    out[sel] = np.bincount(np.repeat(np.arange(sel.size, dtype=np.int64), ms),
                           weights=np.minimum(ml + dm, cell_ub), minlength=sel.size)
    return out


def _cells_and_ceiling(ctx: _Context, x: tuple[int, ...], fc: Any,
                       want_ub: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Non-empty cells per child and, if wanted, the ``ml_ceiling`` bound per child.

    ``U(X) = Σ_j min(ML_j + Δ_j, -d_j ln r - Φ_j)`` over the configurations
    ``j`` of ``X``, with ``ML_j`` the summed maximised log-likelihood of the
    atoms (the configurations of all other variables) inside ``j``, ``d_j``
    the number of child states seen in ``j``, and ``Φ_j`` / ``Δ_j`` the largest
    ``pen`` / smallest ``dlt`` of the mixed atoms inside ``j`` at the prior
    mass ``a_X`` of ``X``, which only shrinks for supersets (:mod:`.atom_bounds`;
    ``docs/pruning.md``, ``ml_ceiling``).
    """
    if want_ub and ctx.p.ub_children is not None:
        want_ub = bool(ctx.p.ub_children[fc.children].any())
    if not want_ub:
        return fc.nonzero_cells(), None
    k = fc.children.size
    r = fc.child_arities
    m = fc.m
    nz = (fc.flat > 0).astype(np.int32)
    # child states seen per (child i, configuration j): rows of r_i consecutive cells of flat
    if (r == r[0]).all():
        d = nz.reshape(k * m, int(r[0])).sum(axis=1).reshape(k, m)
    else:
        rr = np.repeat(r, m)
        starts = np.zeros(rr.size, dtype=np.int64)
        np.cumsum(rr[:-1], out=starts[1:])
        d = np.add.reduceat(nz, starts).reshape(k, m)
    n_cells = d.sum(axis=1)
    z, m2 = ctx.pc.ids(x)
    assert m2 == m
    w = ctx.p.atom_weights
    assert w is not None
    idx = (np.arange(k, dtype=np.int64)[:, None] * m + z[None, :]).ravel()
    ml = np.bincount(idx, weights=w[fc.children].ravel(), minlength=k * m).reshape(k, m)
    pm = np.zeros((k, m))
    dm = np.zeros((k, m))
    if ctx.p.atom_mixed is not None:
        aj = np.asarray(ctx.p.score.alpha_j(fc), dtype=np.float64)  # type: ignore[attr-defined]
        for i, c in enumerate(fc.children.tolist()):
            rows_c = ctx.mixed_rows(c)
            if rows_c.size and (ctx.p.ub_children is None or ctx.p.ub_children[c]):
                pen, dl = ctx.atom_penalties(c, float(aj[i]))
                np.maximum.at(pm[i], z[rows_c], pen)
                np.minimum.at(dm[i], z[rows_c], dl)
    cell_ub = -d * ctx.lnr[fc.children][:, None] - pm
    ub = np.minimum(ml + dm, cell_ub).sum(axis=1)
    if ctx.p.ub_children is not None:
        ub[~ctx.p.ub_children[fc.children]] = np.inf
    return n_cells, ub
