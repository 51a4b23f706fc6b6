"""An ε-collection split into disjoint parts whose union is exactly the answer (for ``backend="dask"``).

Why this split.  Once OPT is proven the membership threshold ``floor = OPT - ε - tol`` is fixed, and
every network has exactly one parent set for each variable.  Pick one variable ``v`` (the *split
variable*) and deal its candidate parent sets into groups; part ``i`` is the table with ``v``'s rows
restricted to group ``i`` (every other variable's rows unchanged).  A network of the table lies in
exactly one part (the one holding its parent set of ``v``), and its score is the same there, so the
networks scoring ``>= floor`` in the parts are disjoint and their union is the whole ε-set -- provided
every part collects against the *global* ``floor``, not its own optimum (the engines' ``subproblem``
mode: :func:`gobnilp_py.ilp.engine.epsilon_set`, :func:`gobnilp_py.search.order_graph.engine.epsilon_set`).

Rows of ``v`` that no network scoring ``>= floor`` can use are left out of every part: with ``best_w``
the best local score of each other variable, a network using row ``r`` of ``v`` scores at most
``score(r) + sum_w best_w`` (acyclicity ignored), so a row with that bound below ``floor`` (less a slack
far above rounding, :data:`BOUND_SLACK`) holds no member.  The same bound over a part's best row is the
part's *ceiling*: no network of the part scores above it, which is what a lost part certifies
(:func:`merge_parts`).

Which variable: the one with the most surviving rows (ties: lowest index), so the parts can be many
and even; the rows, best first, are dealt round-robin (row ``j`` to part ``j mod k``), so that each part
holds some of the best rows (the networks near OPT, where the search spends its time).  The ILP's parts
together cost about what one search does (wine, BF 20, by DAG: 5.3 s in 2 parts, 6.6 s in 8, against 5.9 s).

The order graph is split on its search tree instead (:data:`ROOT_SPLIT_METHODS`): its best-first
search expands every state whose bound reaches ``floor``, and a state where ``v`` is not yet placed is
the same whatever ``v``'s rows, so each row part searched nearly all of them again (wine, BF 20:
232,366 states in 2 parts, 377,370 in 4, against 125,330 in one search).  Its search is a tree (a
network has one canonical removal sequence), so every part runs the same short prefix and then keeps
every k-th open state (:func:`gobnilp_py.search.order_graph.collect.order_graph_epsilon_set`,
``root_part``): disjoint subtrees covering the rest, 125,450 states in 4 parts.  Such a part's ceiling
is the whole table's bound (the sum of the best rows).

k-best (:func:`top_k`): each part lists its own k best and their ties (within the certified gap of
the whole table's k-th best, when known), and the union is cut to the k best and their ties.

Collecting by class is not split: a Markov equivalence class has members with different parent sets
for ``v``, so it would be found in several parts, each time with another representative -- whose score
(a float sum, equal only up to rounding) and position decide the class's reported score and order, so
the answer would not be the serial run's bytes.  Collecting the DAGs in parts and grouping them at the
merge would be exact but gives up what the class search is for (hailfinder100 at BF 150: 735 million
DAGs in 40,344 classes).  The driver therefore runs a class collection in-process, as serially, and
splits collections by DAG (``docs/enumeration.md``).

The merge (:func:`merge_parts`) is deterministic: the entries are mapped back to the whole table's
positions and handed to the driver, which sorts every collection the same way (score, then key:
:func:`gobnilp_py.solve.collect._networks_best_first`), so the output does not depend on which part
finished first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from .._tolerance import REL_TOL
from ..scoring.table import ScoreTable
from ..search.results import Collection

__all__ = ["Part", "PartResult", "plan_split", "part_table", "run_part", "merge_parts", "top_k", "BOUND_SLACK",
           "LOST_REASON", "ROOT_SPLIT_METHODS"]

#: Relative slack of the row bound (far above the rounding of a sum of local scores, 1e-16 relative each).
BOUND_SLACK = 1e-7

#: The reason a merged result gives when a part could not be run to its end on any worker.
LOST_REASON = "worker_lost"

#: Which reason a merged result gives when several parts stopped, most telling first.
_REASON_ORDER = ("interrupted", LOST_REASON, "time_limit", "memory_limit", "max_networks")


#: Methods whose search tree is split at its root instead of by a variable's rows (see the module doc).
ROOT_SPLIT_METHODS = frozenset({"ordergraph"})


@dataclass(frozen=True)
class Part:
    """One subproblem: ``var``'s rows restricted to ``rows`` (positions in the whole table, best first),
    or, with ``root`` ``(i, k)``, the whole table with part ``i`` of ``k`` of the search tree."""

    index: int
    var: int
    rows: tuple[int, ...]
    #: No network of the part scores above this (the row bound of its best row).
    ceiling: float
    root: tuple[int, int] | None = None


@dataclass
class PartResult:
    """What a part's collection returns, in the whole table's positions."""

    index: int
    entries: list[tuple[float, tuple[int, ...]]]
    reason: str | None
    threshold: float | None
    near_boundary: int = 0
    opt: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def _slack(table: ScoreTable) -> float:
    return BOUND_SLACK * max(1.0, math.fsum(max(abs(sc) for _, sc in rows) for rows in table.families))


def plan_split(table: ScoreTable, floor: float, n_parts: int, method: str = "ilp") -> list[Part]:
    """The parts of the collection of ``table`` above ``floor``: at most ``n_parts``, disjoint, covering it.

    A method of :data:`ROOT_SPLIT_METHODS` gets ``n_parts`` parts of its search tree; any other, parts of
    one variable's rows: one part (the whole table) when no variable has two rows that can reach ``floor``.
    """
    best = [rows[0][1] for rows in table.families]      # rows are stored best first
    total = math.fsum(best)
    slack = _slack(table)
    if method in ROOT_SPLIT_METHODS:
        k = max(1, int(n_parts))
        return [Part(i, -1, (), total + slack, (i, k)) for i in range(k)]
    surviving: list[list[int]] = []
    for v, rows in enumerate(table.families):
        rest = total - best[v]
        surviving.append([j for j, (_, sc) in enumerate(rows) if rest + sc >= floor - slack])
    v = max(range(table.n), key=lambda u: (len(surviving[u]), -u))
    rows = surviving[v]
    k = max(1, min(int(n_parts), len(rows)))
    if k == 1:
        return [Part(0, v, tuple(rows) if rows else tuple(range(len(table.families[v]))), total + slack)]
    rest = total - best[v]
    parts = []
    for i in range(k):
        mine = tuple(rows[i::k])
        parts.append(Part(i, v, mine, rest + table.families[v][mine[0]][1] + slack))
    return parts


def part_table(table: ScoreTable, part: Part) -> ScoreTable:
    """``table`` with ``part.var``'s rows restricted to ``part.rows`` (their order, best first, kept)."""
    fams = [list(rows) for rows in table.families]
    fams[part.var] = [table.families[part.var][j] for j in part.rows]
    return ScoreTable(table.names, fams, epsilon=table.epsilon, score_name=table.score_name,
                      pruning={k: dict(v) for k, v in table.pruning.items()}, meta=dict(table.meta))


def run_part(table: ScoreTable, part: Part, *, method: str, opt: float, epsilon: float, max_networks: int | None,
             deadline: float | None, options: dict[str, Any], constraints: Any = None,
             k: int | None = None) -> PartResult:
    """Collect one part (on a worker): every network of the part scoring ``>= OPT - ε - tol``; with ``k``, the
    part's ``k`` best and every network tied with its k-th, within ``ε`` (the certified gap of the whole
    table's k-th best, ``inf`` when unknown) of OPT.

    ``deadline`` is a wall-clock time (:func:`time.time`, comparable across the processes and machines
    of a cluster, unlike :func:`time.perf_counter`): the part gets what is left of it when it starts.
    """
    from .methods import engine_module, get_method

    left = None if deadline is None else deadline - time.time()
    if left is not None and left <= 0:
        return PartResult(part.index, [], "time_limit", None, stats={"parts_started_late": 1})
    engine = engine_module(get_method(method))
    sub = table if part.root is not None else part_table(table, part)
    where = {"root_part": part.root} if part.root is not None else {}
    if k is not None:
        # the ILP searches under OPT - ε and never widens: the whole table's k best lie within ε (certified),
        # so a part with fewer than k there holds no more of them
        hint = epsilon if math.isfinite(epsilon) else None
        col = engine.kbest(sub, k=k, opt=opt, epsilon_hint=hint, constraints=constraints, time_limit=left,
                           widen=False, **where, **options)
    else:
        col = engine.epsilon_set(sub, opt=opt, epsilon=epsilon, constraints=constraints,
                                 max_networks=max_networks, time_limit=left, subproblem=True, **where, **options)
    if part.root is not None:
        entries = [(sc, tuple(chosen)) for sc, chosen in col.entries]
        return PartResult(part.index, entries, col.reason, col.threshold, col.near_boundary, col.opt,
                          dict(col.stats))
    back = part.rows
    v = part.var
    entries = []
    for sc, chosen in col.entries:
        c = list(chosen)
        c[v] = back[c[v]]
        entries.append((sc, tuple(c)))
    return PartResult(part.index, entries, col.reason, col.threshold, col.near_boundary, col.opt, dict(col.stats))


def merge_parts(parts: list[Part], results: dict[int, PartResult], lost: dict[int, str], *, opt: float,
                epsilon: float, max_networks: int | None) -> Collection:
    """One :class:`~gobnilp_py.search.results.Collection` from the parts' results, as the serial search gives.

    ``lost``: the parts with no result (part index -> why: ``"time_limit"``, ``"interrupted"``,
    :data:`LOST_REASON`).  A part cut short certifies its own threshold (every member of the part
    scoring at least that is listed); a lost one its ceiling (no network of the part scores above it)
    plus the tolerance.  The merged threshold is the largest of these, so every member scoring at least
    it is listed, whichever parts were cut.  Over ``max_networks`` the best ones are kept (score, then
    the whole table's positions) and the threshold raised above the first left out.
    """
    tol = REL_TOL * max(1.0, abs(opt))
    limit = opt - epsilon - tol
    entries: list[tuple[float, tuple[int, ...]]] = []
    reasons: list[str] = []
    thresholds: list[float | None] = []
    near = 0
    new_opt: float | None = None
    stats: dict[str, Any] = {}
    for part in parts:
        if part.index in lost:
            reasons.append(lost[part.index])
            thresholds.append(max(part.ceiling + tol, limit))
            continue
        r = results[part.index]
        entries.extend(r.entries)
        near += r.near_boundary
        if r.opt is not None:
            new_opt = r.opt if new_opt is None else max(new_opt, r.opt)
        for key, value in r.stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                stats[key] = stats.get(key, 0) + value
        if r.reason is not None:
            reasons.append(r.reason)
            own = r.threshold if r.threshold is not None else math.inf
            thresholds.append(max(min(own, part.ceiling + tol), limit))
    reason = None
    if reasons:
        reason = min(reasons, key=lambda w: _REASON_ORDER.index(w) if w in _REASON_ORDER else len(_REASON_ORDER))
    threshold = max(thresholds) if thresholds else None
    if max_networks is not None and len(entries) > max_networks:
        entries.sort(key=lambda e: (-e[0], e[1]))
        first_left = entries[max_networks][0]
        entries = entries[:max_networks]
        reason = reason or "max_networks"
        threshold = max(threshold if threshold is not None else -math.inf, first_left + tol, limit)
    root = bool(parts) and parts[0].root is not None
    stats.update({"parts": len(parts), "parts_lost": len(lost),
                  "split": "search tree at its root" if root else f"parent sets of {parts[0].var}" if parts else None})
    return Collection(entries, reason, near_boundary=near, threshold=threshold if reason is not None else None,
                      opt=new_opt, stats=stats)


def top_k(col: Collection, k: int, opt: float) -> Collection:
    """The merged k-best lists cut to the ``k`` best and every entry tied with the k-th, as one search gives.

    Every part listed its own k best and their ties, so the union holds the whole table's ``k`` best and
    every network tied with the k-th (a network tied with the k-th best of all that its part left out
    would lie below ``k`` networks of that part, all better than the k-th best of all).
    """
    if len(col.entries) <= k:
        return col
    kth = sorted((sc for sc, _ in col.entries), reverse=True)[k - 1]
    tol = REL_TOL * max(1.0, abs(opt))
    col.entries = [e for e in col.entries if e[0] >= kth - tol]
    return col
