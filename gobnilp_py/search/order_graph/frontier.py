"""Exact optimal network by frontier breadth-first branch and bound over the order graph.

The order graph (Yuan, Malone and Wu 2011) has one node per subset ``U`` of
the variables and an arc ``U -> U + {X}`` of weight ``BS(X, U)``, the best
local score of ``X`` with parents inside ``U``
(:class:`~gobnilp_py.search.best_parents.BestParents`).  A path from the
empty set to the full set is a variable order, its weight the score of the
best DAG consistent with it, so the best path is the optimal network (the
dynamic programme of Silander and Myllymäki 2006)::

    g(S) = max over X in S of  g(S - X) + BS(X, S - X),     g({}) = 0.

This module is Malone, Yuan, Hansen and Bridges (UAI 2011), Algorithm 1, in
our sign convention (scores are natural-log, **higher is better**) and with
the corrections of ``docs/order-graph.md``:

* **Layers.**  Subsets are visited by size; only the layer being expanded and
  the one being built are live (a *frontier* search).
* **Bound.**  ``f(U) = g(U) + h(U)`` with ``h(U) = sum over v not in U of
  B(v)``, ``B(v)`` the best score of ``v`` with any parents.  ``h`` never
  underestimates the best completion and is consistent (``h(U) >= BS(X, U) +
  h(U + X)``), so ``f`` is an upper bound on every network through ``U``.
  Layers store ``f`` (``f(U + X) = f(U) + BS(X, U) - B(X)``; the paper's
  "``- lb(X)``" term); duplicates compare ``f``, equivalent to ``g`` since
  ``h`` depends on the set only.
* **Pruning.**  A node is dropped when ``f < LB - slack`` with ``LB`` the score
  of a known network: a *strict* inequality, so a bound equal to the optimum
  keeps it (the public C++ port prunes on ``>=`` in 32-bit floats and loses
  it).  ``slack = 1e-9 * max(1, |LB|, sum |B(v)|)`` only absorbs the rounding
  of the ``f`` sums (at most ~``2n`` ulps of those magnitudes).  An ``LB``
  above the optimum prunes the goal: the result is ``"no_solution"``, never a
  worse network.  Without a given bound, the greedy DAG of
  :mod:`~gobnilp_py.search.order_graph._greedy` supplies one.
* **Exact best scores.**  ``BS(X, U)`` is always the exact best over *all*
  subsets of ``U``.  The paper instead builds parent graphs only over subsets
  present in the pruned order graph (``isPresent``), which loses the optimum
  (51 of 150 BIC instances in the notes' simulation); that step is not done.
* **Duplicate detection.**  Each layer is reduced to one row per subset (the
  largest ``f``; on ties the smallest leaf) either in a dense array indexed by
  colex rank (:mod:`~gobnilp_py.search.order_graph._colex`, no sort) or, when that does not
  fit the memory budget, by sorting chunk by chunk into runs, spilling runs to
  disk and merging them (:mod:`~gobnilp_py.search.order_graph._spill`).  The rule makes
  every layer bit-identical whichever way it was built.
* **Reconstruction.**  Each layer's rows ``(mask, leaf)`` are kept (in RAM or
  on disk); from the full set the leaf is read, its family is the best inside
  the rest, and the walk continues in the previous layer.

References
----------
B. Malone, C. Yuan, E. A. Hansen and S. Bridges, "Improving the scalability of
optimal Bayesian network learning with external-memory frontier breadth-first
branch and bound search", UAI 2011.
C. Yuan, B. Malone and X. Wu, "Learning optimal Bayesian networks using A*
search", IJCAI 2011.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._memory import format_bytes
from ...errors import ScoreError
from .._limits import check_bytes as _check_bytes
from .._limits import check_time_limit as _check_time_limit
from .._limits import peak_rss_bytes, stamp_end
from ...scoring.table import ScoreTable
from ._colex import Colex
from ._greedy import greedy_dag
from ._spill import ROW_BYTES, ColumnWriter, Columns, SpillDir, merge_runs, sort_reduce
from ..best_parents import DENSE_MAX_VARIABLES, BestParents, BuildStopped

__all__ = ["order_graph_optimum", "OrderGraphResult", "estimate_memory", "MAX_VARIABLES",
           "DEFAULT_MEMORY_BUDGET", "REL_SLACK"]

_log = logging.getLogger(__name__)

#: Largest number of variables (subsets are ``uint64`` bitmasks).
MAX_VARIABLES = 63
#: ``incumbent_search="auto"`` runs the ASOBS incumbent from this many variables on (see that argument).
INCUMBENT_MIN_VARIABLES = 20

#: Default memory budget (bytes): 4 GiB.
DEFAULT_MEMORY_BUDGET = 4 * 2**30

#: Relative slack of the pruning test (rounding of the f sums), see the module docstring.
REL_SLACK = 1e-9

# Work buffers of one chunk: about this many bytes per (node, variable) pair.
_PAIR_BYTES = 64
_MAX_WORK_BYTES = 256 * 2**20


@dataclass
class OrderGraphResult:
    """The answer of :func:`order_graph_optimum`.

    Attributes
    ----------
    status : str
        ``"optimal"``; ``"time_limit"`` or ``"interrupted"`` (``chosen`` is the best network known,
        if any, and ``upper_bound`` bounds the optimum); ``"no_solution"``
        (no network scores at least the lower bound: the bound exceeds the
        optimum, or the table admits no DAG; ``reason`` says which is known).
    score : float
        :func:`math.fsum` of the chosen local scores; ``-inf`` without a network.
    chosen : tuple of int or None
        ``chosen[v]`` indexes ``table.families[v]``.
    upper_bound : float
        No network of the table scores above this (``score`` itself when
        optimal; ``lower_bound`` when ``"no_solution"`` proves the bound too high).
    lower_bound : float
        The pruning bound used (``-inf`` for none).
    reason : str or None
        A sentence for any status but ``"optimal"``.
    stats : dict
        ``layers`` (per layer: ``generated`` successor pairs, ``kept`` after
        pruning, ``unique`` after duplicate detection, ``runs`` and
        ``spilled_runs``, ``mode``, ``on_disk``, ``seconds``), timings,
        memory estimate and peak resident memory, bytes spilled.
    """

    status: str
    score: float
    chosen: tuple[int, ...] | None
    upper_bound: float
    lower_bound: float
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: The best-parent lookups the search built, for a collection of the same table to reuse
    #: (:func:`~gobnilp_py.search.order_graph.collect.order_graph_epsilon_set`); ``None`` when none were built.
    #: They stay in memory as long as the result holds them (1.6 GiB at 25 variables): set it to
    #: ``None`` to free them while keeping the result.
    best_parents: BestParents | None = field(default=None, repr=False, compare=False)


def _work_bytes(memory_budget: int) -> int:
    return int(min(_MAX_WORK_BYTES, max(memory_budget // 8, 1 << 20)))


def estimate_memory(table: ScoreTable, memory_budget: int = DEFAULT_MEMORY_BUDGET, backend: str = "auto"
                    ) -> dict[str, int]:
    """RAM the search needs (bytes): ``fixed`` must fit; layers and records spill beyond their shares.

    Keys: ``best_parents`` (the lookup backend that ``auto`` would choose),
    ``work`` (one chunk's buffers), ``index`` (colex tables), ``fixed`` (their
    sum), ``layers_worst`` (the largest pair of consecutive layers held in RAM
    without pruning), ``records_worst`` (every layer's reconstruction rows) and
    ``disk_worst`` (everything spilled).
    """
    n = table.n
    dense = BestParents.estimate_memory(table, "dense")
    sparse = BestParents.estimate_memory(table, "sparse")
    if backend == "auto":
        backend = "dense" if n <= DENSE_MAX_VARIABLES and dense <= memory_budget // 2 else "sparse"
    bp = dense if backend == "dense" else sparse
    work = _work_bytes(memory_budget)
    index = sum((start + 1) * 4096 * 8 for start in range(0, max(n, 1), 12)) + 4096 * 8
    sizes = [math.comb(n, k) for k in range(n + 1)]
    layers = max((sizes[k] * ROW_BYTES + sizes[k + 1] * 17 for k in range(n)), default=0)
    records = sum(sizes) * 9
    return {"best_parents": bp, "work": work, "index": index, "fixed": bp + work + index,
            "layers_worst": layers, "records_worst": records, "disk_worst": sum(sizes) * (ROW_BYTES + 9)}


def order_graph_optimum(table: ScoreTable, *, lower_bound: float | None = None,
                        memory_budget: int = DEFAULT_MEMORY_BUDGET, spill_dir: str | None = None,
                        time_limit: float | None = None, progress: Callable[..., Any] | None = None,
                        stop: threading.Event | None = None,
                        backend: str = "auto", dedup: str = "auto", spill_threshold: int | None = None,
                        chunk_nodes: int | None = None, incumbent_search: bool | str = "auto") -> OrderGraphResult:
    """The optimal network of ``table`` by frontier breadth-first branch and bound (see the module docstring).

    Parameters
    ----------
    table : ScoreTable
        Candidate families; structural constraints already applied as filters.
        At most :data:`MAX_VARIABLES` variables.
    lower_bound : float, optional
        Score of some known network (or any value believed not above the
        optimum).  Nodes with ``f < lower_bound`` are pruned (strictly, with a
        rounding slack).  ``None``: the better of the greedy heuristic network
        and, with ``incumbent_search``, the ASOBS incumbent
        (:func:`~gobnilp_py.search.incumbent.quick_incumbent`; both are networks of the table,
        so no optimal path is pruned).  A bound above the optimum yields
        ``status="no_solution"``.
    memory_budget : int
        Bytes of RAM.  The fixed part of :func:`estimate_memory` must fit (else
        a one-line :class:`ScoreError`); layers and reconstruction records
        beyond their shares of the rest are spilled to disk.
    spill_dir : str, optional
        Where the private temporary directory for spills is made (default: the
        system's temporary directory).  It is removed before returning.
    time_limit : float, optional
        Seconds; checked between chunks.  On expiry ``status="time_limit"``.
    progress : callable, optional
        Called after each layer as ``progress("order graph", layer, n, nodes=...)``.
    backend : {"auto", "dense", "sparse"}
        :class:`BestParents` backend.
    dedup : {"auto", "dense", "sort"}
        Duplicate detection: ``dense`` (colex-indexed arrays, no sort) when the
        next layer's array fits the layer share, else ``sort`` (sorted runs,
        spilled and merged as needed).  ``auto`` decides per layer.
    spill_threshold : int, optional
        Bytes of RAM for layers and, separately, for reconstruction records
        before they spill (default: shares of the budget).  ``0`` spills every
        layer, run and record (for tests of the external-memory path).
    chunk_nodes : int, optional
        Nodes of the current layer expanded at a time (default: from the budget).
    incumbent_search : bool or "auto"
        Without ``lower_bound``, also run the ASOBS incumbent search (a
        deterministic budget of orders) and start from the better network.
        ``"auto"``: only with at least :data:`INCUMBENT_MIN_VARIABLES`
        variables, where the search is long enough for a better bound to pay
        (measured: insurance1000, 27 variables, proved in 106 s with it and not
        within 120 s without; letter and adult, 17 and 14 variables, are solved
        in under 0.5 s and the incumbent would cost more than it saves).

    Returns
    -------
    OrderGraphResult

    Raises
    ------
    ScoreError
        Bad arguments, more than :data:`MAX_VARIABLES` variables, or a memory
        estimate over the budget.

    Examples
    --------
    >>> t = ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)]])
    >>> r = order_graph_optimum(t)
    >>> r.status, r.score, r.chosen
    ('optimal', -3.0, (0, 0))
    """
    t_start = time.perf_counter()
    n = table.n
    if n > MAX_VARIABLES:
        raise ScoreError(f"the order-graph search handles at most {MAX_VARIABLES} variables; this table has {n}")
    if incumbent_search not in (True, False, "auto"):
        raise ScoreError(f"incumbent_search must be True, False or 'auto', got {incumbent_search!r}")
    if dedup not in ("auto", "dense", "sort"):
        raise ScoreError(f"dedup must be 'auto', 'dense' or 'sort', got {dedup!r}")
    time_limit = _check_time_limit(time_limit)
    memory_budget = _check_bytes(memory_budget, "memory_budget")
    if spill_threshold is not None:
        spill_threshold = _check_bytes(spill_threshold, "spill_threshold", allow_zero=True)
    if lower_bound is not None:
        try:
            lower_bound = float(lower_bound)
        except (TypeError, ValueError):
            raise ScoreError(f"lower_bound must be a number, got {lower_bound!r}") from None
        if math.isnan(lower_bound):
            raise ScoreError("lower_bound must be a number, got nan")
    est = estimate_memory(table, memory_budget, backend if backend in ("dense", "sparse") else "auto")
    if est["fixed"] > memory_budget:
        raise ScoreError(f"the order-graph search for n={n} needs about {format_bytes(est['fixed'])} "
                         f"(best-parent lookups {format_bytes(est['best_parents'])}), over the memory budget of "
                         f"{format_bytes(memory_budget)}")
    stats: dict[str, Any] = {"method": "ordergraph", "memory_estimate": est, "layers": []}
    if n == 0:
        return OrderGraphResult("optimal", 0.0, (), 0.0, -math.inf if lower_bound is None else lower_bound,
                                None, stats)

    t0 = time.perf_counter()
    lb = -math.inf if lower_bound is None else lower_bound
    try:
        bp = BestParents(table, backend=backend, memory_budget=memory_budget,
                         deadline=None if time_limit is None else t_start + time_limit, stop=stop)
    except BuildStopped as stopped:
        why = stopped.args[0]
        said = "time limit reached" if why == "time_limit" else "interrupted"
        stats["time_best_parents"] = time.perf_counter() - t0
        # each node's best family: no network of the table scores more
        ub = math.fsum(fams[0][1] for fams in table.families)
        return _finish(stats, t_start, OrderGraphResult(why, -math.inf, None, ub, lb,
                                                        f"{said} while building the best-parent lookups"))
    stats["backend"] = bp.backend
    stats["time_best_parents"] = time.perf_counter() - t0
    best = bp.best_overall()
    missing = [table.names[v] for v in range(n) if not best[v] > -math.inf]
    if missing:
        return _finish(stats, t_start, OrderGraphResult(
            "no_solution", -math.inf, None, -math.inf, lb,
            f"the table admits no network: {missing[0]!r} has no usable parent set"))

    incumbent: tuple[float, tuple[int, ...]] | None = None
    t0 = time.perf_counter()
    if lower_bound is None:
        heur = greedy_dag(bp)
        if heur is not None:
            incumbent = (heur[0], heur[1])
            lb = heur[0]
        stats["lower_bound_source"] = "heuristic" if heur is not None else "none"
        stats["heuristic_score"] = None if heur is None else heur[0]
        if incumbent_search is True or (incumbent_search == "auto" and n >= INCUMBENT_MIN_VARIABLES):
            from ..incumbent import quick_incumbent  # only from 20 variables: kept off small runs' import time

            inc = quick_incumbent(table)
            stats["asobs_score"] = None if inc is None else inc.score
            if inc is not None and inc.score > lb:
                incumbent, lb = (inc.score, inc.chosen), inc.score
                stats["lower_bound_source"] = "asobs"
    else:
        stats["lower_bound_source"] = "given"
    stats["time_heuristic"] = time.perf_counter() - t0

    search = _Search(table, bp, best, lb, memory_budget, est, spill_dir, time_limit, t_start, progress,
                     dedup, spill_threshold, chunk_nodes, stats, stop)
    try:
        result = search.run(incumbent)
    finally:
        search.close()
    result.best_parents = bp
    return _finish(stats, t_start, result)


class _Timeout(Exception):
    pass


class _Search:
    """One run's state: the bound, the memory shares, the spill directory and the layer records."""

    def __init__(self, table: ScoreTable, bp: BestParents, best: np.ndarray, lb: float, memory_budget: int,
                 est: dict[str, int], spill_dir: str | None, time_limit: float | None, t_start: float,
                 progress: Callable[..., Any] | None, dedup: str, spill_threshold: int | None,
                 chunk_nodes: int | None, stats: dict[str, Any], stop: threading.Event | None = None) -> None:
        self.table = table
        self.stop = stop
        self.n = table.n
        self.bp = bp
        self.best = best
        self.lb = lb
        self.root_f = math.fsum(best.tolist())
        scale = max(1.0, abs(lb) if math.isfinite(lb) else 0.0, math.fsum(np.abs(best).tolist()))
        self.slack = REL_SLACK * scale
        self.threshold = lb - self.slack if math.isfinite(lb) else lb  # +inf prunes all, -inf nothing
        self.time_limit = time_limit
        self.t_start = t_start
        self.progress = progress
        self.dedup = dedup
        self.stats = stats
        available = max(0, memory_budget - est["fixed"] + est["best_parents"] - bp.memory_bytes)
        if spill_threshold is None:
            self.ram_layers = available * 2 // 3
            self.ram_records = available - self.ram_layers
        else:
            self.ram_layers = self.ram_records = spill_threshold
        work = est["work"]
        self.chunk_nodes = int(chunk_nodes) if chunk_nodes else max(256, work // (_PAIR_BYTES * self.n))
        self.colex = Colex(self.n)
        self.spill = SpillDir(spill_dir)
        self.records: list[Columns | None] = [None] * (self.n + 1)
        self.records_ram = 0
        may_spill = est["layers_worst"] > self.ram_layers or est["records_worst"] > self.ram_records
        if may_spill:
            try:
                free = self.spill.free_bytes()
            except OSError:
                free = None
            if free is not None and est["disk_worst"] > free:
                _log.warning("order graph: without pruning the spill files could need %s, more than the %s free",
                             format_bytes(est["disk_worst"]), format_bytes(free))

    def close(self) -> None:
        for rec in self.records:
            if rec is not None:
                rec.delete()
        self.stats["spill_bytes_written"] = self.spill.bytes_written
        self.spill.cleanup()

    def check_time(self) -> None:
        if self.time_limit is not None and time.perf_counter() - self.t_start > self.time_limit:
            raise _Timeout("time_limit")
        if self.stop is not None and self.stop.is_set():
            raise _Timeout("interrupted")

    # ------------------------------------------------------------------ run
    def run(self, incumbent: tuple[float, tuple[int, ...]] | None) -> OrderGraphResult:
        n = self.n
        lb = self.lb
        if not self.root_f >= self.threshold:
            return self._no_solution()
        layer = Columns.in_ram(np.zeros(1, np.uint64), np.array([self.root_f]), np.array([-1], np.int8))
        layer_max = self.root_f
        try:
            for l in range(n):
                self.check_time()
                t0 = time.perf_counter()
                nxt, info, nxt_max = self._expand(layer, l)
                info["seconds"] = time.perf_counter() - t0
                self.stats["layers"].append(info)
                self._store_record(layer, l)
                layer, layer_max = nxt, nxt_max
                if self.progress is not None:
                    self.progress("order graph", l + 1, n, nodes=layer.size)
                _log.debug("order graph: layer %d/%d: %s", l + 1, n, info)
                if layer.size == 0:
                    return self._no_solution()
        except _Timeout as stopped:
            why = stopped.args[0] if stopped.args else "time_limit"
            said = "time limit reached" if why == "time_limit" else "interrupted"
            ub = max(layer_max + self.slack, lb) if math.isfinite(lb) else layer_max + self.slack
            layer.delete()
            if incumbent is not None:
                return OrderGraphResult(why, incumbent[0], incumbent[1], ub, lb,
                                        f"{said}; the network is the heuristic's, not proven optimal")
            return OrderGraphResult(why, -math.inf, None, ub, lb,
                                    f"{said} before the search reached the full set")
        self._store_record(layer, n)
        chosen = self._reconstruct()
        sc = math.fsum(self.table.families[v][chosen[v]][1] for v in range(n))
        return OrderGraphResult("optimal", sc, chosen, sc, lb)

    def _no_solution(self) -> OrderGraphResult:
        lb = self.lb
        if lb > -math.inf:
            why = (f"no network scores at least the lower bound {lb!r}: the bound exceeds the optimum "
                   "or the table admits no network")
            return OrderGraphResult("no_solution", -math.inf, None, lb, lb, why)
        return OrderGraphResult("no_solution", -math.inf, None, -math.inf, lb,
                                "the table admits no network (no variable order has a parent set for every node)")

    # -------------------------------------------------------------- layers
    def _expand(self, layer: Columns, l: int) -> tuple[Columns, dict[str, Any], float]:
        """Layer ``l + 1`` from layer ``l``: successors, pruning, duplicate detection."""
        n = self.n
        size_next = self.colex.size(l + 1)
        dense_bytes = size_next * 17
        cur_ram = layer.ram_bytes
        if self.dedup == "dense":
            mode = "dense"
        elif self.dedup == "sort":
            mode = "sort"
        else:
            mode = "dense" if dense_bytes + cur_ram <= self.ram_layers else "sort"
        info: dict[str, Any] = {"layer": l + 1, "mode": mode, "generated": 0, "kept": 0, "unique": 0,
                                "runs": 0, "spilled_runs": 0}
        if mode == "dense":
            bf = np.full(size_next, -np.inf)
            bl = np.full(size_next, -1, dtype=np.int8)
            bm = np.zeros(size_next, dtype=np.uint64)  # the masks themselves (cheaper than unranking)
        runs: list[Columns] = []
        runs_ram = 0
        for masks, f in layer.chunks(self.chunk_nodes, ("masks", "f")):
            parts = []
            for x in range(n):
                self.check_time()
                bit = np.uint64(1 << x)
                sel = (masks & bit) == 0
                ms = masks[sel]
                if ms.size == 0:
                    continue
                cand = (f[sel] + self.bp.scores(x, ms)) - self.best[x]
                ok = (cand >= self.threshold) & (cand > -np.inf)
                info["generated"] += int(ms.size)
                succ = ms[ok] | bit
                cf = cand[ok]
                info["kept"] += int(succ.size)
                if succ.size == 0:
                    continue
                if mode == "dense":
                    r = self.colex.rank(succ)
                    cur = bf[r]
                    upd = (cf > cur) | ((cf == cur) & (np.int8(x) < bl[r]))
                    r = r[upd]
                    bf[r] = cf[upd]
                    bl[r] = x
                    bm[r] = succ[upd]
                else:
                    parts.append((succ, cf, np.full(succ.size, x, dtype=np.int8)))
            if mode == "sort" and parts:
                run = Columns.in_ram(*sort_reduce(*(np.concatenate([p[k] for p in parts]) for k in range(3))))
                del parts
                info["runs"] += 1
                if runs_ram + run.ram_bytes + cur_ram > self.ram_layers:
                    run = run.to_disk(self.spill, f"run{l + 1}")
                    info["spilled_runs"] += 1
                else:
                    runs_ram += run.ram_bytes
                runs.append(run)
        if mode == "dense":
            idx = np.flatnonzero(bl >= 0)
            nxt = Columns.in_ram(bm[idx], bf[idx], bl[idx])
            del bf, bl, bm
            if nxt.ram_bytes + cur_ram > self.ram_layers:
                nxt = nxt.to_disk(self.spill, f"layer{l + 1}")
        elif len(runs) == 1 and not runs[0].on_disk and runs[0].ram_bytes + cur_ram <= self.ram_layers:
            nxt = runs[0]
        else:
            writer = ColumnWriter(self.spill, f"layer{l + 1}", max(0, self.ram_layers - cur_ram - runs_ram))
            merge_runs(runs, writer, max(1, self.chunk_nodes // max(1, len(runs))))
            for run in runs:
                run.delete()
            nxt = writer.finish()
        info["unique"] = nxt.size
        info["on_disk"] = nxt.on_disk
        nxt_max = -math.inf
        for (f,) in nxt.chunks(max(self.chunk_nodes, 1 << 16), ("f",)):
            if f.size:
                nxt_max = max(nxt_max, float(f.max()))
        return nxt, info, nxt_max

    def _store_record(self, layer: Columns, l: int) -> None:
        """Keep layer ``l``'s (mask, leaf) rows for reconstruction, spilling them beyond the records share."""
        layer.drop_f()
        if l == 0:
            layer.delete()
            return
        if not layer.on_disk:
            if self.records_ram + layer.ram_bytes > self.ram_records:
                disk = layer.to_disk(self.spill, f"record{l}")
                layer.delete()
                layer = disk
            else:
                self.records_ram += layer.ram_bytes
        self.records[l] = layer

    def _reconstruct(self) -> tuple[int, ...]:
        n = self.n
        chosen = [0] * n
        S = (1 << n) - 1
        for l in range(n, 0, -1):
            rec = self.records[l]
            masks = rec.field("masks")
            i = int(np.searchsorted(masks, np.uint64(S)))
            if i >= rec.size or int(masks[i]) != S:  # pragma: no cover - a bug, not a user error
                raise RuntimeError(f"order graph: subset {S:#x} missing from layer {l}")
            v = int(rec.field("leaf")[i])
            rest = S & ~(1 << v)
            pos = int(self.bp.positions(v, np.array([rest], dtype=np.uint64))[0])
            if pos < 0:  # pragma: no cover
                raise RuntimeError(f"order graph: no family of node {v} inside {rest:#x}")
            chosen[v] = pos
            S = rest
        return tuple(chosen)


def _finish(stats: dict[str, Any], t_start: float, result: OrderGraphResult) -> OrderGraphResult:
    stamp_end(stats, t_start)
    result.stats = stats
    _log.info("order graph: %s, score %s, %.2fs", result.status, result.score, stats["time_total"])
    return result


