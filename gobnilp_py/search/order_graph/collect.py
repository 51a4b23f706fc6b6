"""Every network within ε of the optimum, or the k best, by best-first branch and bound on the order graph.

Generation (each DAG exactly once)
----------------------------------
Every DAG ``G`` on a node set ``S`` has a *largest-index sink* ``w``; removing
it leaves a DAG on ``S - w``.  Repeating gives one canonical removal sequence
``w_1, w_2, ...`` per DAG (the rule :mod:`gobnilp_py.baselines.dp` uses bottom
up: ``G = G' + w`` has ``w`` as largest sink iff every sink of ``G'`` above
``w`` is a parent of ``w``).  The search builds networks *top down* along that
sequence: a state is ``(S, R, P)`` with ``S`` the nodes not yet removed, ``P``
the summed scores of the removed nodes' families, and ``R`` the nodes of ``S``
that must **not** be sinks of the network still to be chosen on ``S``.
Removing ``w`` with parents ``pa`` (inside ``S - w``) is allowed iff
``w not in R``, and leads to::

    R' = ((R - {w}) | {u in S - w : u > w}) - pa.

(``w`` is the largest sink of ``G[S]`` iff every larger node of ``S - w`` is a
non-sink of ``G[S]``, i.e. a parent of ``w`` or a non-sink of ``G[S - w]``;
and a node required to be a non-sink of ``G[S]`` is a parent of ``w`` or a
non-sink of ``G[S - w]``.)  So a removal sequence survives to ``S = {}``
exactly when every ``w_i`` was the largest sink of ``G[S_i]``: each DAG is
produced once, by its canonical sequence, and no output needs deduplication.
A state with ``R = S`` (every remaining node must have a child inside ``S``)
has no completion and is dropped.

Bound
-----
``bound(S, R) = P + gstar(S)`` with ``gstar(S)`` the best score of a DAG on
``S`` with parents inside ``S`` (the subset dynamic programme, computed for
every ``S`` first).  It is an upper bound on every completion and it is
*exact* when ``R`` is empty: the optimal DAG on ``S`` followed by its own
canonical sequence completes the state.  With ``R`` nonempty it can only
overestimate, which costs time, never answers.

Search order and what a cut-short run certifies
-----------------------------------------------
States are expanded best first by bound (ties: first generated first).  A
complete network is popped only when no open state has a higher bound, so
networks are listed in nonincreasing score order (up to the rounding slack
below) and, whenever the search stops, every network scoring at least
``threshold = (largest open bound) + 2 slack`` has been listed.  That is the
certificate of a run stopped by ``max_networks``, ``time_limit`` or the memory
budget.

Tolerances (as the ILP collector, :mod:`gobnilp_py.solve.enumerate`)
------------------------------------------------------------------------
``OPT`` is the :func:`math.fsum` score of the first network listed (an optimal
one), ``tol = 1e-9 * max(1, |OPT|)``; members of the ε-set are the networks
with ``fsum score >= OPT - ε - tol`` (the boundary is kept).  For k-best, the
members are the k best and every network within ``tol`` of the k-th.  States
are pruned only when their bound is below the membership threshold by more
than ``slack = 1e-9 * max(1, |gstar(V)|, sum_v max |local score|)``, which
exceeds the rounding of the bound's float sums by orders of magnitude, so no
member is ever pruned.
"""

from __future__ import annotations

import heapq
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._memory import format_bytes, memory_room
from ..._tolerance import REL_TOL
from ...errors import ScoreError
from .._limits import check_time_limit as _check_time_limit
from .._limits import peak_rss_bytes, stamp_end
from ...scoring.table import ScoreTable
from ..best_parents import DENSE_MAX_VARIABLES, BestParents, BuildStopped

__all__ = ["order_graph_epsilon_set", "order_graph_kbest", "CollectResult", "subset_dp", "estimate_memory",
           "MAX_VARIABLES", "DEFAULT_MEMORY_BUDGET", "DEFAULT_MAX_NETWORKS", "REL_TOL", "REL_SLACK",
           "STATE_BYTES"]

_log = logging.getLogger(__name__)

#: Largest number of variables (the subset DP keeps a float64 per subset: 8 GiB at 30).
MAX_VARIABLES = 30

#: Default memory budget (bytes): 4 GiB.
DEFAULT_MEMORY_BUDGET = 4 * 2**30

#: Default network cap of the ε-set (the ILP collector's).
DEFAULT_MAX_NETWORKS = 150_000


#: A search split in ``k`` parts (``root_part``) shares its first states until this many times ``k`` are open:
#: dealing out the root's children alone left one part with most of the work (wine, BF 20: 0.24 s beside 0.10 s).
SPLIT_OPEN_PER_PART = 64

#: Relative slack of the pruning test (absorbs the rounding of the bounds' float sums).
REL_SLACK = 1e-9

# Entries of the memo of fitting-family bitsets (about 100-200 bytes each).
_INSIDE_CACHE = 1 << 20

#: Bytes one open state costs (heap entry, its floats and ints, the parent-pointer record): measured ~250.
STATE_BYTES = 320

#: Share of the memory still free when the search starts (:func:`gobnilp_py._memory.memory_room`)
#: that the open states may take, whatever ``memory_budget`` allows.
ROOM_SHARE = 0.8

#: Bitsets of more families than this are walked in pieces of this many bits (:func:`_pieces`):
#: peeling the lowest bit off a Python int costs time proportional to its length, so a node with
#: millions of fitting families (mushroom's constant column: 4.2 million tied parent sets) made one
#: expansion quadratic.
_BIG_BITSET = 1 << 12

#: Inside one expansion, the time limit, the stop event and the state budget are checked every
#: this many children pushed (an expansion can push millions).
_CHECK_CHILDREN = 1 << 16


def _pieces(bits: int) -> Iterator[tuple[int, int]]:
    """``(offset, piece)``: the set bits of ``bits`` in pieces of at most :data:`_BIG_BITSET` bits, lowest
    first (bit ``i`` of ``piece`` is bit ``offset + i`` of ``bits``), so that peeling bits off each
    piece costs time linear in the length of ``bits`` overall.  A small bitset is one piece."""
    if bits.bit_length() <= _BIG_BITSET:
        if bits:
            yield 0, bits
        return
    raw = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    step = _BIG_BITSET // 8
    for off in range(0, len(raw), step):
        piece = int.from_bytes(raw[off:off + step], "little")
        if piece:
            yield 8 * off, piece

@dataclass
class CollectResult:
    """Networks found by :func:`order_graph_epsilon_set` or :func:`order_graph_kbest`.

    Attributes
    ----------
    entries : list of (float, tuple of int)
        ``(score, chosen)`` with ``chosen[v]`` indexing ``table.families[v]``
        and ``score`` the :func:`math.fsum` of those local scores; best first,
        ties by the tuple of parent tuples.
    optimum : float
        OPT (``-inf`` if the table admits no network; ``nan`` if the run
        stopped before finding any network).
    status : str
        ``"complete"``, ``"no_solution"`` (the table admits no network; also
        complete), or why the run stopped early: ``"max_networks"``,
        ``"time_limit"``, ``"memory_limit"``, ``"interrupted"`` (the ``stop``
        event was set, e.g. by Ctrl-C).
    threshold : float
        Certificate: every network with score ``>= threshold`` is listed (for
        a complete ε run, ``OPT - ε - tol``; for a complete k-best run, the
        k-th score minus ``tol``).
    tolerance : float
        ``tol = 1e-9 * max(1, |OPT|)``.
    stats : dict
        Timings, states expanded and pushed, peak open states, memory.
    """

    entries: list[tuple[float, tuple[int, ...]]]
    optimum: float
    status: str
    threshold: float
    tolerance: float
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when the listed networks are all the networks asked for."""
        return self.status in ("complete", "no_solution")

    @property
    def reason(self) -> str | None:
        """Why the run is incomplete (``None`` when complete)."""
        return None if self.complete else self.status


def estimate_memory(table: ScoreTable, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> dict[str, int]:
    """Fixed RAM (bytes) of a collection: the best-parent lookups and the subset DP's array."""
    n = table.n
    dense = BestParents.estimate_memory(table, "dense")
    sparse = BestParents.estimate_memory(table, "sparse")
    bp = dense if n <= DENSE_MAX_VARIABLES and dense <= memory_budget // 2 else sparse
    dp = (1 << n) * 9 + (1 << max(n - 1, 0)) * 24  # gstar and popcounts, plus one layer's work arrays
    return {"best_parents": bp, "subset_dp": dp, "fixed": bp + dp}


def subset_dp(bp: BestParents, *, deadline: float | None = None,
              stop: threading.Event | None = None) -> np.ndarray | None:
    """``gstar[S]``: best score of a DAG on node set ``S`` (bitmask index), parents inside ``S``.

    The Silander–Myllymäki recurrence, layer by layer and one variable at a
    time (for a fixed variable ``X`` the map ``S -> S + X`` is injective, so
    each step is a plain vectorised gather and scatter).  ``-inf`` marks sets
    with no DAG.  Returns ``None`` if ``deadline`` (a ``perf_counter`` time)
    passes or ``stop`` is set.
    """
    n = bp.n
    g = np.full(1 << n, -np.inf)
    g[0] = 0.0
    popcount = np.zeros(1 << n, dtype=np.uint8)
    for b in range(n):
        popcount.reshape(-1, 2, 1 << b)[:, 1, :] += 1
    for l in range(n):
        masks = np.flatnonzero(popcount == l).astype(np.uint64)
        gm = g[masks.astype(np.int64)]
        live = gm > -np.inf
        masks, gm = masks[live], gm[live]
        for x in range(n):
            if (deadline is not None and time.perf_counter() > deadline) or (stop is not None and stop.is_set()):
                return None
            bit = np.uint64(1 << x)
            sel = (masks & bit) == 0
            ms = masks[sel]
            if ms.size == 0:
                continue
            cand = gm[sel] + bp.scores(x, ms)
            tgt = (ms | bit).astype(np.int64)
            np.maximum(g[tgt], cand, out=cand)
            g[tgt] = cand
    return g


def order_graph_epsilon_set(table: ScoreTable, epsilon: float, *, max_networks: int | None = DEFAULT_MAX_NETWORKS,
                            time_limit: float | None = None, memory_budget: int = DEFAULT_MEMORY_BUDGET,
                            progress: Callable[..., Any] | None = None,
                            stop: threading.Event | None = None,
                            best_parents: BestParents | None = None,
                            floor: float | None = None,
                            root_part: tuple[int, int] | None = None) -> CollectResult:
    """Every network of ``table`` with score ``>= OPT - epsilon`` (boundary kept, ``tol`` above), each once.

    Parameters
    ----------
    table : ScoreTable
        Candidate families (pruned safely for ``epsilon`` or more, and any
        structural constraints applied as filters).  At most
        :data:`MAX_VARIABLES` variables.
    epsilon : float
        The gap, ``>= 0`` (``ln BF`` for a Bayes factor BF).
    max_networks : int or None
        Stop after this many networks (``status="max_networks"``; they are the
        best ones, see ``threshold``).  ``None``: no cap.
    time_limit : float, optional
        Seconds for the whole call (DP and search).  ``status="time_limit"``.
    memory_budget : int
        Bytes.  The fixed part (:func:`estimate_memory`) must fit, else a
        one-line :class:`ScoreError`; the open states may use the rest, beyond
        which the run stops with ``status="memory_limit"``.
    progress : callable, optional
        Called every few thousand expansions as
        ``progress("collecting", found, max_networks, bound=..., elapsed=...)``.
    best_parents : BestParents, optional
        Lookups already built for this very table (by the optimum search,
        :attr:`OrderGraphResult.best_parents <gobnilp_py.search.order_graph.frontier.OrderGraphResult.best_parents>`):
        used instead of building them again, which costs seconds from about
        24 variables.  Lookups of another table are ignored.
    floor : float, optional
        The membership threshold itself (``OPT - epsilon - tol`` of a larger
        table), for one part of a split collection (:mod:`gobnilp_py.solve.split`):
        the networks scoring ``>= floor`` are listed, whatever this table's own
        optimum (there may be none: an empty, complete answer).  ``epsilon`` is
        then not used.
    root_part : (i, k), optional
        Search only part ``i`` of ``k`` of the tree.  Every part runs the same
        best-first prefix until :data:`SPLIT_OPEN_PER_PART` ``* k`` states are
        open (the networks completed in it are dealt in turn: the j-th to part
        ``j mod k``), then keeps the open states whose push number is ``i``
        modulo ``k``.  The search is a tree (every network has one canonical
        removal sequence, so one path from the root), so the subtrees of the
        open states are disjoint and cover every network not yet completed:
        the ``k`` parts list disjoint sets whose union is the whole answer,
        and past the prefix no state is searched twice.  The prefix depends on
        the table and ``floor`` only, so every worker runs the same one.
        Needs ``floor``.

    Returns
    -------
    CollectResult

    Examples
    --------
    >>> t = ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)]])
    >>> r = order_graph_epsilon_set(t, 1.2)   # A <- B (-3.0) and the empty network (-4.0); B <- A is -4.5
    >>> r.entries, r.status
    ([(-3.0, (0, 0)), (-4.0, (1, 0))], 'complete')
    """
    eps = _check_epsilon(epsilon)
    if max_networks is not None and (isinstance(max_networks, bool) or not isinstance(max_networks, int)
                                     or max_networks < 1):
        raise ScoreError(f"max_networks must be a positive integer or None, got {max_networks!r}")
    return _collect(table, eps=eps, k=None, max_networks=max_networks, time_limit=time_limit,
                    memory_budget=memory_budget, progress=progress, stop=stop, best_parents=best_parents,
                    floor=floor, root_part=root_part)


def order_graph_kbest(table: ScoreTable, k: int, *, max_networks: int | None = None,
                      time_limit: float | None = None, memory_budget: int = DEFAULT_MEMORY_BUDGET,
                      progress: Callable[..., Any] | None = None,
                      stop: threading.Event | None = None,
                      best_parents: BestParents | None = None,
                      root_part: tuple[int, int] | None = None) -> CollectResult:
    """The ``k`` best networks of ``table`` and every network tied with the k-th (within ``tol``), each once.

    Fewer than ``k`` are returned (complete) when the table admits fewer
    networks.  ``max_networks`` caps the output when ties are many; the other
    parameters are as :func:`order_graph_epsilon_set` (``root_part``: one part of a split search; its
    k-th best bound also counts the networks of the shared prefix the other parts keep, which is safe:
    the k-th best of some networks is at most the k-th best of all).

    Examples
    --------
    >>> t = ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)]])
    >>> [s for s, _ in order_graph_kbest(t, 3).entries]
    [-3.0, -4.0, -4.5]
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ScoreError(f"k must be a positive integer, got {k!r}")
    if max_networks is not None and (isinstance(max_networks, bool) or not isinstance(max_networks, int)
                                     or max_networks < 1):
        raise ScoreError(f"max_networks must be a positive integer or None, got {max_networks!r}")
    return _collect(table, eps=None, k=k, max_networks=max_networks, time_limit=time_limit,
                    memory_budget=memory_budget, progress=progress, stop=stop, best_parents=best_parents,
                    root_part=root_part)


def _collect(table: ScoreTable, *, eps: float | None, k: int | None, max_networks: int | None,
             time_limit: float | None, memory_budget: int, progress: Callable[..., Any] | None,
             stop: threading.Event | None = None, best_parents: BestParents | None = None,
             floor: float | None = None, root_part: tuple[int, int] | None = None) -> CollectResult:
    t_start = time.perf_counter()
    n = table.n
    time_limit = _check_time_limit(time_limit)
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, np.integer)) or memory_budget < 1:
        raise ScoreError(f"memory_budget must be a positive number of bytes, got {memory_budget!r}")
    if n > MAX_VARIABLES:
        raise ScoreError(f"the order-graph collection handles at most {MAX_VARIABLES} variables; "
                         f"this table has {n}")
    est = estimate_memory(table, memory_budget)
    if est["fixed"] > memory_budget:
        raise ScoreError(f"the order-graph collection for n={n} needs about {format_bytes(est['fixed'])} "
                         f"(subset DP {format_bytes(est['subset_dp'])}), over the memory budget of {format_bytes(memory_budget)}")
    stats: dict[str, Any] = {"method": "ordergraph", "memory_estimate": est}
    deadline = None if time_limit is None else t_start + time_limit

    t0 = time.perf_counter()
    if best_parents is not None and best_parents.table is table:
        bp: BestParents | None = best_parents
    else:
        try:
            bp = BestParents(table, memory_budget=memory_budget, deadline=deadline, stop=stop)
        except BuildStopped:
            bp = None
    stats["best_parents_reused"] = bp is not None and bp is best_parents
    g = None if bp is None else subset_dp(bp, deadline=deadline, stop=stop)
    stats["backend"] = None if bp is None else bp.backend
    stats["time_dp"] = time.perf_counter() - t0
    if g is None:
        why = "interrupted" if stop is not None and stop.is_set() else "time_limit"
        return _done(stats, t_start, CollectResult([], math.nan, why, math.inf, math.nan))
    gfull = float(g[-1])
    if not gfull > -math.inf:
        return _done(stats, t_start, CollectResult([], -math.inf, "no_solution", -math.inf, 0.0))
    maxabs = math.fsum(max(abs(s) for s in bp.scores_of(v).tolist()) for v in range(n))
    slack = REL_SLACK * max(1.0, abs(gfull), maxabs)
    tol_est = REL_TOL * max(1.0, abs(gfull))
    state_budget = max(0, memory_budget - est["fixed"] + est["best_parents"] - bp.memory_bytes)
    room = memory_room()
    if room is not None:
        # the budget is what the caller allows; the machine may have less free (the table itself can
        # take gigabytes): stop cleanly with a certificate rather than meet the out-of-memory killer
        state_budget = min(state_budget, int(ROOM_SHARE * room))
    searcher = _BestFirst(table, bp, g, slack, deadline, state_budget, progress, max_networks or k, stop)
    t0 = time.perf_counter()
    if floor is not None:
        # a part of a split collection: the threshold is the whole table's, fixed by the caller
        status = searcher.run(fixed_threshold=floor - 2 * slack, k=None, cap=max_networks, root_part=root_part)
    elif eps is not None:
        # prune below the membership threshold OPT - eps - tol, with OPT's float estimate and the slack
        status = searcher.run(fixed_threshold=gfull - eps - tol_est - 2 * slack, k=None, cap=max_networks)
    else:
        status = searcher.run(fixed_threshold=-math.inf, k=k, cap=max_networks, tie_tol=tol_est + 2 * slack,
                              root_part=root_part)
    stats["time_search"] = time.perf_counter() - t0
    stats.update(searcher.stats())
    found = searcher.found
    if not found:
        # only a stop before the first network can leave nothing (the optimum is always within any bound)
        return _done(stats, t_start, CollectResult([], math.nan, status, searcher.certified(), math.nan))
    names_key = [[ps for ps, _ in fams] for fams in table.families]
    entries = sorted(found, key=lambda e: (-e[0], tuple(names_key[v][c] for v, c in enumerate(e[1]))))
    opt = entries[0][0]
    tol = REL_TOL * max(1.0, abs(opt))
    if floor is not None:
        limit = floor
    elif eps is not None:
        limit = opt - eps - tol
    else:
        kth = entries[min(k, len(entries)) - 1][0]
        limit = kth - tol
    members = [e for e in entries if e[0] >= limit]
    threshold = limit if status == "complete" else max(limit, searcher.certified())
    return _done(stats, t_start, CollectResult(members, opt, status, threshold, tol))


class _BestFirst:
    """The best-first search over canonical removal sequences (see the module docstring)."""

    def __init__(self, table: ScoreTable, bp: BestParents, g: np.ndarray, slack: float, deadline: float | None,
                 state_budget: int, progress: Callable[..., Any] | None, report_total: int | None,
                 stop: threading.Event | None = None) -> None:
        self.n = table.n
        self.bp = bp
        self.g = g
        self.slack = slack
        self.deadline = deadline
        self.stop = stop
        self.max_states = max(1, state_budget // STATE_BYTES)
        self.progress = progress
        self.report_total = report_total
        self.scores = [bp.scores_of(v).tolist() for v in range(self.n)]
        self.pmask = [[int(m) for m in bp.family_masks(v)] for v in range(self.n)]
        self.found: list[tuple[float, tuple[int, ...]]] = []
        self.heap: list[tuple[float, int, int, int, float, Any]] = []
        self.expanded = 0
        self.pushed = 0
        self.peak_open = 0
        self.dead = 0
        self.t0 = time.perf_counter()

    def certified(self) -> float:
        """Every network scoring at least this has been listed (the largest open bound plus 2 slack)."""
        if not self.heap:
            return -math.inf
        return -self.heap[0][0] + 2 * self.slack

    def stats(self) -> dict[str, Any]:
        return {"states_expanded": self.expanded, "states_pushed": self.pushed, "peak_open_states": self.peak_open,
                "dead_states": self.dead, "networks_found": len(self.found)}

    def _push_many(self, bits: int, sw: list[float], mw: list[int], need: float, base: float, baseR: int,
                   Sw: int, P: float, w: int, rec: Any, seq: int) -> tuple[int, int, str | None]:
        """The inner loop of :meth:`_run` for a bitset of more than :data:`_BIG_BITSET` families.

        The same pushes, with the bitset walked in pieces (:func:`_pieces`: linear, where peeling bits
        off one huge int is quadratic) and the limits checked every :data:`_CHECK_CHILDREN` children
        (one such expansion can push millions).  Kept apart so the common loop pays for neither.
        Returns ``(seq, children pushed, limit reached or None)``.
        """
        heap, push = self.heap, heapq.heappush
        children = 0
        for off, piece in _pieces(bits):
            while piece:
                low = piece & -piece
                j = off + low.bit_length() - 1
                piece ^= low
                s = sw[j]
                if s < need:
                    return seq, children, None  # families are best first: the rest score less
                R2 = baseR & ~mw[j]
                if R2 == Sw and Sw:
                    continue
                seq += 1
                push(heap, (-(base + s), seq, Sw, R2, P + s, (w, j, rec)))
                children += 1
                if children % _CHECK_CHILDREN == 0:
                    why = self._limit_reached(len(heap))
                    if why is not None:
                        return seq, children, why
        return seq, children, None

    def _limit_reached(self, open_states: int) -> str | None:
        """``"time_limit"``, ``"interrupted"`` or ``"memory_limit"`` when the search must stop now, else None."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return "time_limit"
        if self.stop is not None and self.stop.is_set():
            return "interrupted"
        if open_states > self.max_states:
            return "memory_limit"
        return None

    def run(self, *, fixed_threshold: float, k: int | None, cap: int | None, tie_tol: float = 0.0,
            root_part: tuple[int, int] | None = None) -> str:
        status = self._run(fixed_threshold, k, cap, tie_tol, root_part)
        if self.progress is not None:
            self.progress("collecting", len(self.found), self.report_total, bound=self.certified(),
                          elapsed=time.perf_counter() - self.t0)
        return status

    def _run(self, fixed_threshold: float, k: int | None, cap: int | None, tie_tol: float,
             root_part: tuple[int, int] | None = None) -> str:
        n = self.n
        g = self.g
        scores, pmask = self.scores, self.pmask
        bp = self.bp
        full = (1 << n) - 1
        heap = self.heap
        push, pop = heapq.heappush, heapq.heappop
        seq = 0
        threshold = fixed_threshold
        kbest: list[float] = []  # min-heap of the k best scores found (k-best mode)
        heap.append((-float(g[full]), 0, full, 0, 0.0, None))
        found = self.found
        # a part of a split search (``root_part``): every part runs the same best-first prefix, until
        # SPLIT_OPEN_PER_PART * k states are open, then keeps those numbered i mod k
        part_i, n_parts = root_part if root_part is not None else (0, 1)
        split_at = None if root_part is None or n_parts == 1 else SPLIT_OPEN_PER_PART * n_parts
        prefix_found = 0
        check_every = 256
        inside: dict[int, int] = {}  # (S - w, w) -> bitset of w's families inside S - w
        while heap:
            negpri, _, S, R, P, rec = heap[0]
            if -negpri < threshold:
                break
            pop(heap)
            self.expanded += 1
            if self.expanded % check_every == 0:
                why = self._limit_reached(len(heap))
                if why is not None:
                    heap.append((negpri, -1, S, R, P, rec))  # put it back: it is still open
                    heapq.heapify(heap)
                    return why
                if self.progress is not None and self.expanded % (check_every * 64) == 0:
                    self.progress("collecting", len(found), self.report_total, bound=-negpri,
                                  elapsed=time.perf_counter() - self.t0)
            if S == 0:
                chosen = [0] * n
                node = rec
                parts = []
                while node is not None:
                    w, j, node = node
                    chosen[w] = j
                    parts.append(scores[w][j])
                sc = math.fsum(parts)
                if k is not None:
                    # in a split search's prefix every network counts here, so that the prefix stays the same in
                    # every part (the k-th best of some networks is at most the k-th best of all: no loss)
                    if len(kbest) < k:
                        heapq.heappush(kbest, sc)
                    elif sc > kbest[0]:
                        heapq.heapreplace(kbest, sc)
                    if len(kbest) == k:
                        threshold = max(threshold, kbest[0] - tie_tol)
                if split_at is not None:  # still in the prefix every part searches: the parts take its networks in turn
                    prefix_found += 1
                    if (prefix_found - 1) % n_parts != part_i:
                        continue
                found.append((sc, tuple(chosen)))
                if cap is not None and len(found) >= cap and heap and -heap[0][0] >= threshold:
                    return "max_networks"
                continue
            children = 0
            avail = S & ~R
            while avail:
                low = avail & -avail
                w = low.bit_length() - 1
                avail ^= low
                Sw = S ^ low
                gs = float(g[Sw])
                if gs == -math.inf:
                    continue
                base = P + gs
                need = threshold - base  # a family of w must score at least this
                higher = Sw >> (w + 1) << (w + 1)
                baseR = (R | higher) & Sw
                key = Sw << 6 | w
                bits = inside.get(key)
                if bits is None:
                    bits = bp.inside(w, Sw)
                    if len(inside) < _INSIDE_CACHE:
                        inside[key] = bits
                sw, mw = scores[w], pmask[w]
                if bits.bit_length() > _BIG_BITSET:
                    seq, pushed, why = self._push_many(bits, sw, mw, need, base, baseR, Sw, P, w, rec, seq)
                    children += pushed
                    if why is not None:
                        # the state is still open (only some children are): put it back, so the largest
                        # open bound -- the certificate -- still bounds every network not listed
                        heap.append((negpri, -1, S, R, P, rec))
                        heapq.heapify(heap)
                        return why
                    continue
                while bits:
                    lowj = bits & -bits
                    j = lowj.bit_length() - 1
                    bits ^= lowj
                    s = sw[j]
                    if s < need:
                        break  # families are best first: the rest score less
                    R2 = baseR & ~mw[j]
                    if R2 == Sw and Sw:
                        continue
                    seq += 1
                    push(heap, (-(base + s), seq, Sw, R2, P + s, (w, j, rec)))
                    children += 1
            if split_at is not None and len(heap) >= split_at:
                # one part of a split search: the shared prefix ends; keep the open states numbered i mod k
                heap[:] = [e for e in heap if e[1] % n_parts == part_i]
                heapq.heapify(heap)
                split_at = None
            self.pushed += children
            if not children:
                self.dead += 1
            if len(heap) > self.peak_open:
                self.peak_open = len(heap)
        return "complete"


def _done(stats: dict[str, Any], t_start: float, result: CollectResult) -> CollectResult:
    stamp_end(stats, t_start)
    result.stats = stats
    return result


def _check_epsilon(epsilon: Any) -> float:
    try:
        e = float(epsilon)
    except (TypeError, ValueError):
        raise ScoreError(f"epsilon must be a finite number >= 0, got {epsilon!r}") from None
    if not (e >= 0.0) or math.isinf(e):
        raise ScoreError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return e

