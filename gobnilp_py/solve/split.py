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

Collecting by class is split on *class-invariant* quantities instead (:func:`plan_class_split`): a
Markov equivalence class has members with different parent sets for any ``v``, so a row split would
find it in several parts, but every member of a class has the same skeleton.  So the parts are the
``2^m`` patterns of ``m`` chosen pairs ``(a, b)`` being adjacent or not: part "``a - b`` not adjacent"
is the table without ``a``'s rows holding ``b`` and ``b``'s rows holding ``a``; part "``a - b``
adjacent" keeps the table and adds the required adjacency as a row of the ILP.  Every class lies in
exactly one part, each part's class search is exact for its networks, and the parts' classes are
disjoint, so their union is the serial answer.  Which pairs: the parts' times follow their classes, so
the pairs should divide the classes evenly, and the row bound does not tell which do (zoo BF 150: the
three pairs of smallest row-bound loss left one of 8 parts 4,329 of the 4,977 classes and 71 % of the
parts' time, so 2 workers could not pass 1.42x; ``benchmarks/class_split_part_times.py``).  So the
driver first runs a short *probe*, the whole class search stopped after its first classes
(:func:`gobnilp_py.solve.dask_collect.collect_on_dask`), and the parts are the leaves of a binary tree of
adjacencies grown on the probe's classes (:func:`_probe_tree`): the leaf holding most of them is split on
the pair that divides them most evenly.  The two children of a node are the two sides of one pair, so
every class lies in exactly one leaf whatever the probe held; the probe only steers the balance.  Without
a probe the parts are the ``2^m`` adjacency patterns of the ``m`` pairs whose two sides both reach
``floor`` under the row bound with the smallest loss on the costlier side.  A part's ceiling is the
whole bound less the dearest of its sides' losses; a part whose ceiling is below ``floor`` holds no
class and is not run.  Which member a part
records for a class may differ from the serial search's choice; the driver lists and scores every
class from a canonical member (:func:`gobnilp_py.solve.classes.expand_classes`), so the output is
the serial run's bytes.  k-best by class is split the same way: each part lists its own k best classes and
their ties, and :func:`top_k` keeps the k best of the union (a class lies in one part, so the argument for
networks holds for classes).

The merge (:func:`merge_parts`) is deterministic: the entries are mapped back to the whole table's
positions and handed to the driver, which sorts every collection the same way (score, then key:
:func:`gobnilp_py.solve.collect._networks_best_first`), so the output does not depend on which part
finished first.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._tolerance import REL_TOL
from ..scoring.table import ScoreTable
from ..search.results import Collection

__all__ = ["Part", "PartResult", "plan_split", "plan_class_split", "part_table", "run_part", "merge_parts", "top_k",
           "BOUND_SLACK", "LOST_REASON", "ROOT_SPLIT_METHODS"]

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
    #: A class part (:func:`plan_class_split`): ``(a, b, adjacent)`` for each chosen pair.
    adjacency: tuple[tuple[int, int, bool], ...] = ()

    @property
    def by_class(self) -> bool:
        """A part of a collection by class (:func:`plan_class_split`; its one-part fallback has no pairs)."""
        return self.var < 0 and self.root is None


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


#: Pairs chosen by :func:`plan_class_split` at most (2^5 = 32 parts).
MAX_CLASS_SPLIT_PAIRS = 5


def plan_class_split(table: ScoreTable, floor: float, n_parts: int,
                     probe: Sequence[tuple[int, ...]] | None = None) -> list[Part]:
    """The parts of a collection *by class* of ``table`` above ``floor``, the parts that can hold no class
    left out.

    With ``probe`` (the representatives, as positions in ``table``, of some classes of the collection: the
    first ones a short search met, :func:`gobnilp_py.solve.dask_collect.collect_on_dask`) and at least
    two of them: the leaves of a tree of adjacencies grown by :func:`_probe_tree`, heaviest first.
    Without: the ``2^m`` adjacency patterns of ``m = ceil(log2(n_parts))`` pairs chosen by their row bounds.

    Row bound of a side: ``a - b`` adjacent loses at least ``min(best_a - best_a(b in W),
    best_b - best_b(a in W))`` against the sum of the best rows, not adjacent at least
    ``(best_a - best_a(b not in W)) + (best_b - best_b(a not in W))``; acyclicity ignored, so each is
    a bound on every network of that side.  One part (the whole table) when no pair has both sides
    above ``floor``.
    """
    best = [rows[0][1] for rows in table.families]
    total = math.fsum(best)
    slack = _slack(table)
    cost_adj, cost_non = _side_losses(table)

    def reachable(all_sides: Iterable[tuple[tuple[int, int, bool], ...]]) -> list[Part]:
        """One part per side pattern whose ceiling (the whole bound less its dearest side's loss) reaches floor."""
        parts: list[Part] = []
        for sides in all_sides:
            loss = max((cost_adj[a, b] if adj else cost_non[a, b] for a, b, adj in sides), default=0.0)
            ceiling = total - float(loss) + slack
            if ceiling >= floor - slack:
                parts.append(Part(len(parts), -1, (), ceiling, adjacency=sides))
        return parts

    if probe is not None and len(probe) >= 2:
        return reachable(sides for sides, _ in _probe_tree(table, probe, max(1, int(n_parts))))
    m = 0
    while (1 << m) < max(1, int(n_parts)) and m < MAX_CLASS_SPLIT_PAIRS:
        m += 1
    candidates: list[tuple[float, int, int]] = []
    for a in range(table.n):
        for b in range(a + 1, table.n):
            c_adj, c_non = float(cost_adj[a, b]), float(cost_non[a, b])
            if total - c_adj >= floor - slack and total - c_non >= floor - slack:
                candidates.append((max(c_adj, c_non), a, b))
    candidates.sort()
    chosen = candidates[:m]
    if not chosen:
        return [Part(0, -1, (), total + slack, adjacency=())]
    return reachable(tuple((a, b, bool(pattern >> i & 1)) for i, (_, a, b) in enumerate(chosen))
                     for pattern in range(1 << len(chosen)))


def _side_losses(table: ScoreTable) -> tuple[Any, Any]:
    """``(cost_adj, cost_non)``, ``n x n`` (symmetric): the row bound's loss of ``a - b`` adjacent, and
    of ``a``, ``b`` not adjacent, against the sum of the best rows (:func:`plan_class_split`)."""
    import numpy as np

    n = table.n
    best = np.array([rows[0][1] for rows in table.families])
    inside = np.full((n, n), -np.inf)     # inside[v, u]: best row of v holding u
    outside = np.full((n, n), -np.inf)    # outside[v, u]: best row of v without u
    for v, rows in enumerate(table.families):
        scores = np.fromiter((sc for _, sc in rows), dtype=np.float64, count=len(rows))
        holds = np.zeros((len(rows), n), dtype=bool)
        for j, (parents, _) in enumerate(rows):
            holds[j, list(parents)] = True
        inside[v] = np.where(holds, scores[:, None], -np.inf).max(axis=0)
        outside[v] = np.where(holds, -np.inf, scores[:, None]).max(axis=0)
    lose_in = best[:, None] - inside      # lose_in[a, b]: a's loss for holding b
    lose_out = best[:, None] - outside
    return np.minimum(lose_in, lose_in.T), lose_out + lose_out.T


def _probe_tree(table: ScoreTable, probe: Sequence[tuple[int, ...]],
                n_parts: int) -> list[tuple[tuple[tuple[int, int, bool], ...], int]]:
    """The leaves of a binary tree of adjacencies, ``(sides, probe classes in the leaf)``, heaviest first.

    Why: the parts' times follow their classes, and pairs chosen by the row bound split them unevenly
    (zoo BF 150, 8 parts: one part held 4,329 of 4,977 classes and 71 % of the parts' time, so 2 workers
    could not pass 1.42x; ``benchmarks/class_split_part_times.py``).  The probe's classes stand for the
    collection's: the leaf holding most of them is split on the pair whose adjacency divides them most
    evenly (ties: the lowest pair), until there are ``n_parts`` leaves or no leaf's probe classes
    differ on any pair.  A leaf is the conjunction of the sides on its path, and the two children of a
    node are the two sides of one pair, so every class lies in exactly one leaf, whatever the probe.
    """
    import numpy as np

    n = table.n
    adj = np.zeros((len(probe), n, n), dtype=bool)
    for i, chosen in enumerate(probe):
        for v, j in enumerate(chosen):
            ps = list(table.families[v][j][0])
            adj[i, v, ps] = True
            adj[i, ps, v] = True
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    leaves: list[tuple[tuple[tuple[int, int, bool], ...], Any]] = [((), np.ones(len(probe), dtype=bool))]
    while len(leaves) < n_parts:
        order = sorted(range(len(leaves)), key=lambda i: (-int(leaves[i][1].sum()), leaves[i][0]))
        for i in order:
            sides, mask = leaves[i]
            w = int(mask.sum())
            count = adj[mask].sum(axis=0)
            even = np.where(upper, np.minimum(count, w - count), 0)
            for a, b, _ in sides:
                even[a, b] = 0
            if even.max() > 0:
                a, b = (int(x) for x in np.unravel_index(int(np.argmax(even)), even.shape))
                break
        else:
            break
        leaves[i:i + 1] = [(sides + ((a, b, True),), mask & adj[:, a, b]),
                           (sides + ((a, b, False),), mask & ~adj[:, a, b])]
    out = [(sides, int(mask.sum())) for sides, mask in leaves]
    out.sort(key=lambda leaf: (-leaf[1], leaf[0]))
    return out


def _class_part(table: ScoreTable, part: Part, constraints: Any) -> tuple[ScoreTable, Any, list[list[int]]] | None:
    """The table and constraints of a class part, and each variable's row positions in ``table``; None when
    the part holds no network (a side contradicts the caller's constraints, or leaves a variable no row)."""
    from ..constraints.structural import StructuralConstraints
    from ..errors import ConstraintError

    cut: dict[int, set[int]] = {}                     # variable -> parents its rows must not hold
    required: list[tuple[str, str]] = []
    for a, b, adjacent in part.adjacency:
        if adjacent:
            required.append((table.names[a], table.names[b]))
        else:
            cut.setdefault(a, set()).add(b)
            cut.setdefault(b, set()).add(a)
    keep = [[j for j, (ps, _) in enumerate(rows) if not cut.get(v, set()).intersection(ps)]
            for v, rows in enumerate(table.families)]
    if any(not k for k in keep):
        return None
    cons = constraints
    if required:
        d = constraints.to_dict() if constraints is not None else {}
        d["required_adjacencies"] = [list(p) for p in d.get("required_adjacencies", [])] + [list(p) for p in required]
        forbidden = {frozenset(p) for p in d.get("forbidden_adjacencies", [])}
        if any(frozenset(p) in forbidden for p in required):
            return None
        try:
            cons = StructuralConstraints.from_dict(d).validate(table.names)
        except ConstraintError:
            return None
    fams = [[table.families[v][j] for j in k] for v, k in enumerate(keep)]
    sub = ScoreTable(table.names, fams, epsilon=table.epsilon, score_name=table.score_name,
                     pruning={k: dict(v) for k, v in table.pruning.items()}, meta=dict(table.meta))
    return sub, cons, keep


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
    if part.by_class:
        return _run_class_part(engine, table, part, opt=opt, epsilon=epsilon, max_networks=max_networks,
                               left=left, options=options, constraints=constraints, k=k)
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


def _run_class_part(engine: Any, table: ScoreTable, part: Part, *, opt: float, epsilon: float,
                    max_networks: int | None, left: float | None, options: dict[str, Any],
                    constraints: Any, k: int | None = None) -> PartResult:
    """A class part: its table and constraints (:func:`_class_part`), the engine's class collection there
    (with ``k``: its ``k`` best classes and every class tied with the k-th, within ``ε`` of OPT as in
    :func:`run_part`), the classes' representatives mapped back to ``table``'s positions."""
    from ..errors import ConstraintError

    made = _class_part(table, part, constraints)
    if made is None:
        return PartResult(part.index, [], None, None, stats={"parts_empty": 1})
    sub, cons, keep = made
    try:
        if k is not None:
            hint = epsilon if math.isfinite(epsilon) else None
            col = engine.kbest(sub, k=k, opt=opt, epsilon_hint=hint, constraints=cons, time_limit=left,
                               widen=False, by_class=True, **options)
        else:
            col = engine.epsilon_set(sub, opt=opt, epsilon=epsilon, constraints=cons, max_networks=max_networks,
                                     time_limit=left, subproblem=True, by_class=True, **options)
    except ConstraintError:       # no network of the part meets its rows (e.g. InfeasibleConstraints)
        return PartResult(part.index, [], None, None, stats={"parts_empty": 1})
    entries = [(sc, tuple(keep[v][c] for v, c in enumerate(chosen))) for sc, chosen in col.entries]
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
    by_class = bool(parts) and parts[0].by_class
    if by_class:
        pairs = sorted({(a, b) for part in parts for a, b, _ in part.adjacency})
        split = f"adjacency of {', '.join(f'{a}-{b}' for a, b in pairs)}" if pairs else "none (one part)"
    else:
        split = "search tree at its root" if root else f"parent sets of {parts[0].var}" if parts else None
    stats.update({"parts": len(parts), "parts_lost": len(lost), "split": split})
    return Collection(entries, reason, near_boundary=near, threshold=threshold if reason is not None else None,
                      opt=new_opt, by_class=by_class, stats=stats)


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
