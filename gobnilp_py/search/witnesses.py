"""A certified gap for k: k distinct DAGs certify ``ε_k = OPT - (the worst of their scores)``.

**The certificate.**  Let ``s_(1) >= s_(2) >= ...`` be the scores of all DAGs a
table allows, ``OPT = s_(1)``.  If ``G_1 .. G_k`` are *any* ``k`` distinct DAGs
of the table, at least ``k`` DAGs score ``>= w = min_i score(G_i)``, so the
k-th best score satisfies ``s_(k) >= w``.  Every network of any k-best list,
and every network *tied* with the k-th, scores ``>= s_(k) >= w``, i.e. lies
within ``ε_k = OPT - w`` of the optimum.  So a table pruned by any ε-safe rule
at ``ε_k`` (one that keeps every family of every network scoring
``>= OPT - ε_k``) still holds every such network, and any k-best method run on
it returns the true k best with all their ties: ε-safe becomes k-best-safe,
up front, with no guess and no rescoring.

**Cheap witnesses after one optimum.**  Take the optimal DAG ``G*`` and a
topological order ``σ`` of it.  Give every node ``v`` any candidate family
``W_v`` of the table whose parents all precede ``v`` in ``σ`` (``pa*(v)`` and,
when the table holds them, its subsets among them).  Every combination is
consistent with ``σ``, hence acyclic, and distinct combinations are distinct
DAGs (they differ in some node's parent set).  Its score is
``OPT - sum_v δ_v(W_v)`` with the deficit ``δ_v(W) = s(v, pa*(v)) - s(v, W)``.

*Deficits are >= 0*: replacing only ``v``'s family by ``W`` gives a DAG still
consistent with ``σ``, so its score ``OPT - δ_v(W)`` is at most ``OPT``.  (The
code measures deficits from the best ``σ``-consistent family of ``v``, which is
``pa*(v)`` or ties with it when ``G*`` is optimal; a strictly better one proves
``G*`` is not optimal and raises.)

*The k smallest total deficits* are the classic k best sums of one entry per
sorted list.  Lists with a single entry are fixed; the others are ordered by
their second entry, and a state ``(B, p, j)`` (entries chosen in lists before
``p`` frozen in ``B``, list ``p`` at entry ``j >= 1``, later lists at 0) has at
most three successors: ``(B, p, j+1)``; ``(B + j e_p, p+1, 1)``; and, when
``j = 1``, ``(B, p+1, 1)``.  Every selection other than all-zeros has exactly one
parent, and no successor has a smaller sum (lists are sorted; the third move
swaps list ``p``'s second entry for list ``p+1``'s, which is no smaller), so a
heap pops the selections in order: ``O(k log k)`` after sorting.

**More orders.**  Any set of orders gives valid witnesses: the pooled,
deduplicated ``k`` best of several orders are still ``k`` distinct DAGs of the
table.  Used here: two topological orders (smallest index first, largest
first) of ``G*`` and of up to ``equivalent`` networks reached from ``G*`` by
*covered edge reversals* (``u -> v`` with ``pa(v) = pa(u) + {u}``; Chickering
1995) whose families are in the table.  For a score-equivalent score (BIC,
AIC, BDeu) these are members of ``G*``'s equivalence class and score ``OPT``
too, so when the class has at least ``k`` members ``ε_k`` drops from the
cost of dropping an edge to rounding; for other scores they are simply more
DAGs.  The sub-DAG witnesses of one order cannot see them (a reversed edge
breaks the order).

**Floating point.**  Witness scores are ``math.fsum`` of their local scores,
as every engine scores a network, so ``s_(k) >= w`` holds exactly for the
floats the engines compare; ``ε_k`` is rounded up by one ulp so that
``OPT - s_(k) <= ε_k`` holds for the float subtraction too.

**Ties.**  Nothing above depends on how ties are broken: ``ε_k`` bounds the gap
of every network scoring at least ``s_(k)``, however many tie with it.
"""

from __future__ import annotations

import functools
import heapq
import logging
import math
import operator
from collections.abc import Sequence
import numpy as np

from ..errors import ConfigError, ScoreError
from ..scoring.table import ScoreTable
from .results import Entry

__all__ = ["topological_orders", "equivalent_networks", "count_witnesses", "witnesses", "certified_gap"]

_log = logging.getLogger(__name__)

#: Relative tolerance within which a σ-consistent family beating the given optimum is read
#: as a tie (the package's "same score"); beyond it the network is not optimal.
_RTOL = 1e-9


def _check_chosen(table: ScoreTable, chosen: Sequence[int]) -> tuple[int, ...]:
    if len(chosen) != table.n:
        raise ScoreError(f"chosen gives {len(chosen)} family positions for {table.n} variables")
    out = []
    for v, c in enumerate(chosen):
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= int(c) < len(table.families[v]):
            raise ScoreError(f"chosen family position {c!r} of {table.names[v]!r} is not in the table "
                             f"({len(table.families[v])} candidates)")
        out.append(int(c))
    return tuple(out)


def _parents(table: ScoreTable, chosen: Sequence[int]) -> list[tuple[int, ...]]:
    return [table.families[v][c][0] for v, c in enumerate(chosen)]


def topological_orders(table: ScoreTable, chosen: Sequence[int]) -> list[list[int]]:
    """Two topological orders (parents first) of the network ``chosen``: smallest and largest index first.

    Raises :class:`ScoreError` when the chosen families form a cycle.  The
    list holds one order when both coincide.
    """
    chosen = _check_chosen(table, chosen)
    pa = _parents(table, chosen)
    n = table.n
    out: list[list[int]] = []
    for sign in (1, -1):
        indeg = [len(p) for p in pa]
        kids: list[list[int]] = [[] for _ in range(n)]
        for v, ps in enumerate(pa):
            for p in ps:
                kids[p].append(v)
        ready = [sign * v for v in range(n) if indeg[v] == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            v = sign * heapq.heappop(ready)
            order.append(v)
            for c in kids[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    heapq.heappush(ready, sign * c)
        if len(order) != n:
            raise ScoreError("the chosen families form a directed cycle: not a network")
        if order not in out:
            out.append(order)
    return out


def _consistent(table: ScoreTable, allowed: Sequence[int]) -> list[np.ndarray]:
    """Per node, positions of the families whose parents all lie in ``allowed[v]`` (a bitmask), best first."""
    out = []
    for v, fams in enumerate(table.families):
        a = int(allowed[v])
        if table.n <= 62:
            masks = np.fromiter((sum(1 << p for p in ps) for ps, _ in fams), dtype=np.int64, count=len(fams))
            out.append(np.flatnonzero((masks & ~np.int64(a)) == 0))
        else:
            out.append(np.array([i for i, (ps, _) in enumerate(fams) if all(a >> p & 1 for p in ps)],
                                dtype=np.int64))
    return out


def _pred_masks(order: Sequence[int]) -> list[int]:
    pred = [0] * len(order)
    seen = 0
    for v in order:
        pred[v] = seen
        seen |= 1 << v
    return pred


def count_witnesses(table: ScoreTable, chosen: Sequence[int], orders: Sequence[Sequence[int]] | None = None) -> int:
    """Number of distinct witness DAGs: families consistent with at least one of the orders.

    Inclusion-exclusion over the orders (one or two in practice): the DAGs
    consistent with every order of a subset ``O`` are the products of the
    families fitting inside the intersection of predecessor sets.
    """
    chosen = _check_chosen(table, chosen)
    orders = topological_orders(table, chosen) if orders is None else [list(o) for o in orders]
    preds = [_pred_masks(o) for o in orders]
    total = 0
    m = len(preds)
    for subset in range(1, 1 << m):
        members = [preds[i] for i in range(m) if subset >> i & 1]
        allowed = [functools.reduce(operator.and_, (p[v] for p in members)) for v in range(table.n)]
        prod = 1
        for fits in _consistent(table, allowed):
            prod *= int(fits.size)
        total += prod if bin(subset).count("1") % 2 else -prod
    return total


def _kbest_sums(lists: list[np.ndarray], k: int) -> list[list[tuple[int, int]]]:
    """The ``k`` selections (one index per list, as sparse ``(list, index)`` pairs) with the smallest sums.

    ``lists[i]`` is sorted ascending with ``lists[i][0] == 0``.  All-zeros comes first.
    """
    active = [i for i, L in enumerate(lists) if L.size >= 2]
    active.sort(key=lambda i: (float(lists[i][1]), i))
    L = [lists[i] for i in active]
    out: list[list[tuple[int, int]]] = [[]]
    if k <= 1 or not L:
        return out[:k]
    # bases[b] = (parent base, list position p, index j, sum): the frozen selection B
    bases: list[tuple[int, int, int, float]] = []

    def base_sum(b: int) -> float:
        return bases[b][3] if b >= 0 else 0.0

    heap: list[tuple[float, int, int, int, int]] = []
    tick = 0

    def push(b: int, p: int, j: int) -> None:
        nonlocal tick
        heapq.heappush(heap, (base_sum(b) + float(L[p][j]), tick, b, p, j))
        tick += 1

    push(-1, 0, 1)
    while heap and len(out) < k:
        total, _, b, p, j = heapq.heappop(heap)
        sel = [(active[p], j)]
        bb = b
        while bb >= 0:
            parent, pp, jj, _s = bases[bb]
            sel.append((active[pp], jj))
            bb = parent
        out.append(sel)
        if j + 1 < L[p].size:
            push(b, p, j + 1)
        if p + 1 < len(L):
            bases.append((b, p, j, total))
            push(len(bases) - 1, p + 1, 1)
            if j == 1:
                push(b, p + 1, 1)
    return out


def _order_witnesses(table: ScoreTable, order: Sequence[int], k: int) -> list[tuple[int, ...]]:
    """Positions of the ``k`` best DAGs consistent with ``order`` (best first by deficit sum)."""
    fits = _consistent(table, _pred_masks(order))
    lists = []
    for v, idx in enumerate(fits):
        if idx.size == 0:
            return []
        sc = np.array([table.families[v][i][1] for i in idx], dtype=np.float64)
        lists.append(sc[0] - sc)  # table order is best first, so deficits ascend from 0
    base = [int(idx[0]) for idx in fits]
    out = []
    for sel in _kbest_sums(lists, k):
        pos = list(base)
        for v, j in sel:
            pos[v] = int(fits[v][j])
        out.append(tuple(pos))
    return out


def _score(table: ScoreTable, pos: Sequence[int]) -> float:
    return math.fsum(table.families[v][c][1] for v, c in enumerate(pos))


def equivalent_networks(table: ScoreTable, chosen: Sequence[int], limit: int) -> list[tuple[int, ...]]:
    """Up to ``limit`` networks (family positions) reached from ``chosen`` by covered edge reversals.

    Breadth first, in a deterministic order, ``chosen`` first; a reversal is
    followed only when both new families are candidates of the table.
    Reversing a covered edge keeps the DAG acyclic and Markov equivalent
    (Chickering 1995), and every member of the class is reachable that way.
    """
    chosen = _check_chosen(table, chosen)
    where = [{ps: i for i, (ps, _) in enumerate(fams)} for fams in table.families]
    start = tuple(_parents(table, chosen))
    seen = {start: chosen}
    queue = [start]
    head = 0
    while head < len(queue) and len(seen) < limit:
        pa = queue[head]
        head += 1
        for v in range(table.n):
            for u in pa[v]:
                if set(pa[v]) != set(pa[u]) | {u}:
                    continue
                new_v = tuple(p for p in pa[v] if p != u)
                new_u = tuple(sorted(pa[u] + (v,)))
                if new_v not in where[v] or new_u not in where[u]:
                    continue
                nxt = list(pa)
                nxt[v], nxt[u] = new_v, new_u
                key = tuple(nxt)
                if key in seen:
                    continue
                seen[key] = tuple(where[w][ps] for w, ps in enumerate(key))
                queue.append(key)
                if len(seen) >= limit:
                    break
            if len(seen) >= limit:
                break
    return [seen[key] for key in queue]


def _witness_orders(table: ScoreTable, chosen: tuple[int, ...], equivalent: int) -> list[list[int]]:
    orders: list[list[int]] = []
    for net in equivalent_networks(table, chosen, max(1, equivalent)):
        for order in topological_orders(table, net):
            if order not in orders:
                orders.append(order)
    return orders


def _check_equivalent(equivalent: object) -> int:
    if isinstance(equivalent, bool) or not isinstance(equivalent, (int, np.integer)) or equivalent < 0:
        raise ConfigError(f"equivalent must be an integer >= 0, got {equivalent!r}")
    return int(equivalent)


def _pool(table: ScoreTable, orders: Sequence[Sequence[int]], k: int) -> list[Entry]:
    pool: dict[tuple[int, ...], float] = {}
    for order in orders:
        for pos in _order_witnesses(table, order, k):
            if pos not in pool:
                pool[pos] = _score(table, pos)
    ranked = sorted(pool.items(), key=lambda t: (-t[1], t[0]))
    return [(sc, pos) for pos, sc in ranked[:k]]


def witnesses(table: ScoreTable, chosen: Sequence[int], k: int, *, equivalent: int = 64) -> list[Entry]:
    """The ``k`` best witness DAGs of the optimum ``chosen``, best first (fewer if fewer exist).

    Witnesses are the DAGs whose every family is consistent with one of the
    :func:`topological_orders` of ``chosen`` or of one of the first
    ``equivalent`` networks of :func:`equivalent_networks` (0: ``chosen``
    alone); each is returned as ``(fsum score, family positions)``, ties in
    position order.  They are distinct DAGs of the table.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigError(f"k must be a positive integer, got {k!r}")
    chosen = _check_chosen(table, chosen)
    return _pool(table, _witness_orders(table, chosen, _check_equivalent(equivalent)), int(k))


def certified_gap(table: ScoreTable, chosen: Sequence[int], k: int, *,
                  upper_bound: float | None = None, equivalent: int = 64) -> tuple[float, int]:
    """A gap ``ε_k`` within which every network of any k-best list (ties with the k-th included) lies.

    Parameters
    ----------
    table : ScoreTable
        The table the networks are drawn from (any decomposable score).
    chosen : sequence of int
        Family position per node (in ``table.families[v]``) of an optimal
        network of ``table``, as engines return it.
    k : int
        Number of best networks (>= 1).
    upper_bound : float, optional
        A proven upper bound on the optimum (e.g. an engine's dual bound when
        ``chosen`` is optimal only within a gap).  Default: the score of
        ``chosen``, which must then be optimal.
    equivalent : int
        How many networks reached by covered edge reversals lend their orders
        to the witnesses (see :func:`witnesses`; 0: ``chosen`` alone).

    Returns
    -------
    (float, int)
        ``ε_k = OPT - w`` with ``w`` the worst score of the ``k`` best
        witnesses (see the module docstring), and how many distinct witness
        DAGs there are: exact when fewer than ``k`` (then no gap is certified
        this way and ``ε_k`` is ``math.inf``), otherwise a lower bound (at
        least ``k``; the largest single-order count).  ``ε_1 = 0``.

    Raises
    ------
    ScoreError
        ``chosen`` is not a network of the table, or a witness beats it (so it
        is not optimal) by more than the package's 1e-9 relative tolerance,
        or ``upper_bound`` is below a witness.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigError(f"k must be a positive integer, got {k!r}")
    chosen = _check_chosen(table, chosen)
    s_star = _score(table, chosen)
    orders = _witness_orders(table, chosen, _check_equivalent(equivalent))
    wit = _pool(table, orders, int(k))
    if len(wit) < k:
        n_wit = len(wit)  # every order listed all its DAGs: the pool is the whole union
    else:
        n_wit = max(count_witnesses(table, chosen, [o]) for o in orders)
        n_wit = max(n_wit, len(wit))
    top = wit[0][0]
    if upper_bound is None:
        if top > s_star + _RTOL * max(1.0, abs(s_star)):
            raise ScoreError(f"the given network (score {s_star!r}) is not optimal: a network consistent with "
                             f"its order scores {top!r}; pass an optimal network or an upper_bound")
        ref = max(s_star, top)
    else:
        try:
            ref = float(upper_bound)
        except (TypeError, ValueError):
            raise ScoreError(f"upper_bound must be a number, got {upper_bound!r}") from None
        if math.isnan(ref) or ref < top:
            raise ScoreError(f"upper_bound {upper_bound!r} is below a network of the table scoring {top!r}")
    if len(wit) < k:
        _log.info("only %d witness networks for k=%d: no gap certified", n_wit, k)
        return math.inf, n_wit
    w = wit[-1][0]
    if ref == math.inf:
        return math.inf, n_wit
    eps = ref - w
    if eps > 0:
        eps = math.nextafter(eps, math.inf)
    return max(eps, 0.0), n_wit
