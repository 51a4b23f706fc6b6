"""Cluster cuts for acyclicity: pure functions, testable without a running solver.

A DAG has, in every set ``C`` of at least two nodes, some node whose parents all
lie outside ``C`` (a "source" of the induced subgraph).  With one family
variable per (node, parent set) this is the *cluster inequality*

    sum over v in C of sum over families f of v whose parents meet C of x_f  <=  |C| - 1.

A family vector ``x`` (LP values) *violates* cluster ``C`` by
``counted(C) - |C| + 1`` where ``counted(C)`` is the left-hand side.  This module
finds violated clusters three ways, cheapest first:

* :func:`find_cycles` — for an integral point: a directed cycle of the chosen
  graph is a cluster violated by exactly 1;
* :func:`cycle_clusters` — for a fractional point: cycles of small "cost"
  ``1 - LP mass`` in the weighted arrow graph (Floyd–Warshall, vectorised);
* :func:`exact_clusters` — the separation sub-IP (a small SCIP model) that finds
  *every* violated cluster it meets during its search, so nothing is missed
  when the cheap heuristic fails.

All functions take a :class:`~gobnilp_py.model.index.FamilyIndex` and a dense
numpy vector of family values, and return node sets as ``frozenset[int]``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .._graphs import cyclic_remainder
from ..search.family_index import FamilyIndex

__all__ = [
    "chosen_parents",
    "find_cycles",
    "is_acyclic",
    "cluster_mask",
    "counted_families",
    "cluster_violation",
    "arrow_weights",
    "cycle_clusters",
    "enumerate_clusters",
    "exact_clusters",
]

_log = logging.getLogger(__name__)

#: SCIP settings of the separation sub-IP.  SCIP's own cutting planes cost more
#: than they save on these small problems: switching them off made the sub-IP
#: 3-4x faster on snapshots of tic-tac-toe and wine LPs (docs/solver.md).
SUBIP_PARAMS: dict[str, object] = {"separating/maxrounds": 0, "separating/maxroundsroot": 0}

#: LP values at or below this are treated as zero when building separation problems.
ZERO = 1e-9


def chosen_parents(index: FamilyIndex, xval: np.ndarray, threshold: float = 0.5) -> list[set[int]]:
    """Parents of every node in an integral point (union over families with value > ``threshold``).

    Using the union rather than "the" chosen family keeps the cycle test
    correct even on points that break the one-family-per-node constraint
    (another handler rejects those; this one must not accept a cycle because of it).
    """
    on = np.flatnonzero(xval > threshold)
    parents: list[set[int]] = [set() for _ in range(index.n)]
    for f in on.tolist():
        parents[int(index.child[f])].update(index.parents[f])
    return parents


def find_cycles(parents: Sequence[Iterable[int]]) -> list[list[int]]:
    """Node-disjoint directed cycles of the graph given by parent lists (``[]`` iff acyclic).

    Kahn's algorithm peels off nodes without remaining parents; every node left
    (the cyclic core) has a parent inside the core, so walking parent pointers
    from any core node must close a cycle.  Each walk starts at an unvisited
    core node, which yields disjoint cycles: one cluster cut per cycle.
    """
    n = len(parents)
    plist = [list(p) for p in parents]
    indeg = [len(p) for p in plist]
    children: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(plist):
        for p in ps:
            children[p].append(v)
    stack = [v for v in range(n) if indeg[v] == 0]
    removed = [False] * n
    while stack:
        u = stack.pop()
        removed[u] = True
        for c in children[u]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    core = [v for v in range(n) if not removed[v]]
    if not core:
        return []
    visited = [False] * n
    cycles = []
    for s in core:
        if visited[s]:
            continue
        pos: dict[int, int] = {}
        walk: list[int] = []
        v = s
        while not visited[v]:
            visited[v] = True
            pos[v] = len(walk)
            walk.append(v)
            v = next(p for p in plist[v] if not removed[p])
        if v in pos:  # closed a new cycle (else we ran into an earlier walk)
            cycles.append(walk[pos[v]:])
    return cycles


def chosen_acyclic(index: FamilyIndex, masks: np.ndarray, xval: np.ndarray, threshold: float = 0.5) -> bool:
    """True iff the parents chosen by ``xval`` form no directed cycle (parents as in :func:`chosen_parents`).

    The fast test of the enforcement callbacks, run on every integral point:
    ``masks`` are the families' parent bitmasks (int64, n <= 62,
    :func:`~gobnilp_py.ilp.class_nogood.family_masks`); the union per node
    is one scatter, then the nodes without a parent left are peeled off
    until none (acyclic) or a nonempty set where every node keeps a parent
    (a cycle).  :func:`find_cycles` is still what names the cycles.
    """
    on = np.flatnonzero(xval > threshold)
    pm = np.zeros(index.n, dtype=np.int64)
    np.bitwise_or.at(pm, index.child[on], masks[on])
    return cyclic_remainder(pm.tolist()) == 0


def is_acyclic(parents: Sequence[Iterable[int]]) -> bool:
    """True iff the graph given by parent lists has no directed cycle."""
    return not find_cycles(parents)


def cluster_mask(n: int, cluster: Iterable[int]) -> np.ndarray:
    """Boolean membership vector of ``cluster`` over ``n`` nodes."""
    m = np.zeros(n, dtype=bool)
    m[list(cluster)] = True
    return m


def counted_families(index: FamilyIndex, cluster: Iterable[int], k: int = 1) -> np.ndarray:
    """Flat indices of the families in the k-cluster inequality of ``cluster``.

    Those are the families whose child is in the cluster and which have at
    least ``k`` parents in it (``k = 1``: the parent set meets the cluster),
    found with one boolean gather over the family/parent incidence.
    """
    m = cluster_mask(index.n, cluster)
    hit = m[index.inc_par] & m[index.inc_child]
    if k == 1:
        out = np.zeros(index.F, dtype=bool)  # a scatter is much cheaper than np.unique here
        out[index.inc_fam[hit]] = True
        return np.flatnonzero(out)
    return np.flatnonzero(np.bincount(index.inc_fam[hit], minlength=index.F) >= k)


def sparse_row(index: FamilyIndex, cluster: Iterable[int], counted: np.ndarray,
               rhs: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The row ``sum(x[counted]) <= rhs`` with fewer nonzeros, equal on the convexity rows.

    Each member ``v`` of ``cluster`` has exactly one family (``sum of x[v] = 1`` is a row of
    the model), so its counted families can be replaced by ``1 - (its other families)``:
    ``-x`` on the families of ``v`` that are *not* counted, and ``rhs - 1``.  This is done for
    the members with fewer uncounted than counted families.  The two rows agree at every point
    that satisfies the convexity rows (every LP point, every solution), so the LP relaxation
    and the set of networks are unchanged; the row is shorter, which makes LPs cheaper.

    Returns ``(families, coefficients, rhs)``.
    """
    is_counted = np.zeros(index.F, dtype=bool)
    is_counted[counted] = True
    fams, coefs = [], []
    for v in sorted(set(int(c) for c in cluster)):
        a, b = int(index.start[v]), int(index.start[v + 1])
        mine = is_counted[a:b]
        n_in = int(mine.sum())
        if (b - a) - n_in < n_in:
            out = a + np.flatnonzero(~mine)
            fams.append(out)
            coefs.append(np.full(out.size, -1.0))
            rhs -= 1.0
        else:
            inn = a + np.flatnonzero(mine)
            fams.append(inn)
            coefs.append(np.ones(inn.size))
    if not fams:
        return np.zeros(0, dtype=np.int64), np.zeros(0), rhs
    return np.concatenate(fams), np.concatenate(coefs), rhs


def cluster_violation(index: FamilyIndex, xval: np.ndarray, cluster: Iterable[int], k: int = 1) -> float:
    """``counted_k(C) - |C| + k``: positive iff ``xval`` violates the k-cluster inequality of ``C``."""
    c = list(cluster)
    return float(np.sum(xval[counted_families(index, c, k)])) - len(c) + k


def arrow_weights(index: FamilyIndex, xval: np.ndarray) -> np.ndarray:
    """``w[u, v]`` = LP mass of the arrow ``u -> v`` (sum of values of v's families containing u)."""
    n = index.n
    w = np.bincount(index.inc_par * n + index.inc_child, weights=xval[index.inc_fam], minlength=n * n)
    return w.reshape(n, n)


def cycle_clusters(index: FamilyIndex, xval: np.ndarray, *, min_violation: float = 1e-3,
                   max_cuts: int | None = None) -> list[tuple[frozenset[int], float]]:
    """Violated clusters read off cheap cycles of the weighted arrow graph.

    Give arrow ``u -> v`` the cost ``1 - w[u, v]``.  For a cycle ``Z``,
    ``counted(Z) >= sum of its arrow masses``, so a cycle of total cost below 1
    is a violated cluster (its true violation is computed exactly before it is
    returned).  All-pairs shortest paths (Floyd–Warshall, one numpy sweep per
    pivot) give the cheapest cycle through every node at once.

    Returns
    -------
    list of (cluster, violation)
        Distinct clusters with violation > ``min_violation``, most violated first.
    """
    n = index.n
    w = arrow_weights(index, xval)
    arc = w > ZERO
    if not arc.any():
        return []
    # The tiny positive floor keeps every cycle's cost positive, so paths are simple.
    dist = np.where(arc, np.maximum(1.0 - w, 0.0) + 1e-9, np.inf)
    nxt = np.where(arc, np.arange(n)[None, :], -1)
    for k in range(n):
        alt = dist[:, k, None] + dist[None, k, :]
        better = alt < dist
        if better.any():
            dist = np.where(better, alt, dist)
            nxt = np.where(better, nxt[:, k, None], nxt)
    diag = np.diagonal(dist)
    cand = np.flatnonzero(diag < 1.0)
    found: dict[frozenset[int], float] = {}
    for s in cand[np.argsort(diag[cand], kind="stable")].tolist():
        cyc = [s]
        v = int(nxt[s, s])
        while v != s and len(cyc) <= n:
            cyc.append(v)
            v = int(nxt[v, s])
        if v != s:  # cannot happen with positive costs; be safe, not sorry
            continue
        key = frozenset(cyc)
        if key in found:
            continue
        viol = cluster_violation(index, xval, key)
        if viol > min_violation:
            found[key] = viol
            if max_cuts is not None and len(found) >= max_cuts:
                break
    return sorted(found.items(), key=lambda kv: (-kv[1], sorted(kv[0])))


def _relevant(index: FamilyIndex, xval: np.ndarray) -> tuple[np.ndarray, list[tuple[int, list[int]]]]:
    """Nodes and (family, parents) pairs that can matter in a violated cluster.

    ``violation(C) = 1 - sum over v in C of (1 - counted_C(v))`` when each node's
    values sum to 1, and ``counted_C(v) <= 1`` always; so a node with no positive
    family that has a relevant parent can never be in a violated cluster, and a
    parent outside the relevant nodes never makes a family count.  Iterate
    to a fixed point.
    """
    pos = np.flatnonzero((xval > ZERO) & (index.n_parents > 0))
    alive = np.zeros(index.n, dtype=bool)
    alive[index.child[pos]] = True
    while True:
        fams = []
        for f in pos.tolist():
            c = int(index.child[f])
            if not alive[c]:
                continue
            ps = [p for p in index.parents[f] if alive[p]]
            if ps:
                fams.append((f, ps))
        new = np.zeros(index.n, dtype=bool)
        for f, _ in fams:
            new[index.child[f]] = True
        if np.array_equal(new, alive):
            return alive, fams
        alive = new


def enumerate_clusters(index: FamilyIndex, xval: np.ndarray, *, min_violation: float = 1e-3,
                       max_nodes: int = 12, max_cuts: int = 20) -> list[tuple[frozenset[int], float]] | None:
    """Exact separation by enumerating every subset of the relevant nodes (small cases only).

    After the reduction of :func:`_relevant` the clusters worth testing live on
    ``m`` nodes; when ``m <= max_nodes`` all ``2^m`` subsets are scored with
    two boolean matrix products (subsets x families, :func:`_subset_violations`),
    which is much cheaper than building and solving a SCIP sub-IP.  Complete
    by construction.

    Returns
    -------
    list of (cluster, violation) or None
        The ``max_cuts`` most violated clusters (violation > ``min_violation``),
        or ``None`` when there are more than ``max_nodes`` relevant nodes.
    """
    alive, fams = _relevant(index, xval)
    nodes = np.flatnonzero(alive)
    if len(nodes) > max_nodes:
        return None
    if len(nodes) < 2:
        return []
    masks, viol = _subset_violations(index, xval, nodes.tolist(), fams, 1, min_violation)
    order = np.lexsort((masks, -viol))[:max_cuts]
    out = []
    for mask in masks[order].tolist():
        key = frozenset(nodes[(mask >> np.arange(len(nodes))) & 1 == 1].tolist())
        out.append((key, cluster_violation(index, xval, key)))
    return [(c, v) for c, v in out if v > min_violation]


def exact_clusters(index: FamilyIndex, xval: np.ndarray, *, min_violation: float = 1e-3,
                   time_limit: float | None = None, max_solutions: int = 100,
                   params: Mapping[str, object] | None = None) -> list[tuple[frozenset[int], float]]:
    """Every violated cluster the separation sub-IP meets (exact: finds one iff one exists).

    The sub-IP (:func:`_cluster_subip` with ``k = 1``) has a binary ``y_v``
    (v in the cluster) per relevant node and a binary ``z_f`` (family counted)
    per family with positive LP value, with ``z_f <= y_child(f)`` and
    ``z_f <= sum_{p in parents(f)} y_p``, and maximises ``sum x_f z_f - sum y_v``
    under the strict objective limit ``min_violation - 1``: every solution
    SCIP accepts is a cluster violated by more than ``min_violation``, and
    SCIP's own search proves none is left out of the optimum.  All stored
    solutions (not just the best) are returned, since each is a distinct
    violated cluster and a cut.

    Returns
    -------
    list of (cluster, violation)
        Distinct clusters with violation > ``min_violation``, most violated first.
    """
    alive, fams = _relevant(index, xval)
    nodes = np.flatnonzero(alive).tolist()
    if len(nodes) < 2:
        return []
    found: dict[frozenset[int], float] = {}
    for key in _cluster_subip(index, xval, nodes, fams, 1, min_violation, time_limit, params, max_solutions):
        if len(key) < 2 or key in found:
            continue
        viol = cluster_violation(index, xval, key)
        if viol > min_violation:
            found[key] = viol
    return sorted(found.items(), key=lambda kv: (-kv[1], sorted(kv[0])))


def _subset_violations(index: FamilyIndex, xval: np.ndarray, nodes: list[int], fams: list[tuple[int, list[int]]],
                       k: int, min_violation: float, block: int = 1 << 14) -> tuple[np.ndarray, np.ndarray]:
    """Bit masks over ``nodes`` and violations of every subset violating its k-cluster inequality.

    ``fams`` are ``(family, parents)`` pairs with every parent in ``nodes``;
    a family counts for a subset when its child and at least ``k`` of its
    parents are in it.  Subsets are scored in blocks of ``block`` rows, so
    memory stays bounded whatever the number of nodes.
    """
    m = len(nodes)
    where = np.full(index.n, -1, dtype=np.int64)
    where[nodes] = np.arange(m)
    fidx = np.fromiter((f for f, _ in fams), dtype=np.int64, count=len(fams))
    par = np.zeros((len(fams), m), dtype=np.float32)
    for r, (_, ps) in enumerate(fams):
        par[r, where[ps]] = 1.0
    child = where[index.child[fidx]]
    weight = xval[fidx]
    good_masks, good_viol = [], []
    for lo in range(1, 1 << m, block):
        masks = np.arange(lo, min(lo + block, 1 << m), dtype=np.int64)
        bits = ((masks[:, None] >> np.arange(m)) & 1).astype(bool)
        counted = (bits[:, child] & ((bits.astype(np.float32) @ par.T) > k - 0.5)) @ weight
        size = bits.sum(axis=1)
        viol = counted - size + k
        good = np.flatnonzero((viol > min_violation) & (size > k))
        good_masks.append(masks[good])
        good_viol.append(viol[good])
    return np.concatenate(good_masks), np.concatenate(good_viol)


def _cluster_subip(index: FamilyIndex, xval: np.ndarray, nodes: list[int], fams: list[tuple[int, list[int]]],
                   k: int, min_violation: float, time_limit: float | None,
                   params: Mapping[str, object] | None, max_solutions: int) -> list[frozenset[int]]:
    """Node sets of the solutions a SCIP sub-IP stores for the most violated k-cluster inequality.

    Binary ``y_v`` per node and ``z_f`` per family, ``z_f <= y_child(f)``,
    ``k z_f <= sum_{p in parents(f)} y_p``, ``sum y >= k + 1``; maximise
    ``sum x_f z_f - sum y_v`` under the strict objective limit
    ``min_violation - k``, so every stored solution is violated by more than
    ``min_violation``.
    """
    import pyscipopt

    m = pyscipopt.Model("cluster_separation")
    m.hideOutput()
    m.setParam("misc/catchctrlc", False)
    m.setParam("limits/maxsol", max(int(max_solutions), 1))
    m.setParam("limits/maxorigsol", max(int(max_solutions), 1))
    if time_limit is not None:
        m.setParam("limits/time", max(float(time_limit), 0.01))
    for key, value in {**SUBIP_PARAMS, **dict(params or {})}.items():
        m.setParam(key, value)
    y = {v: m.addVar(f"y{v}", vtype="B", obj=-1.0) for v in nodes}
    for f, ps in fams:
        z = m.addVar(f"z{f}", vtype="B", obj=float(xval[f]))
        m.addCons(z - y[int(index.child[f])] <= 0.0)
        m.addCons(pyscipopt.quicksum(y[p] for p in ps) - k * z >= 0.0)
    m.addCons(pyscipopt.quicksum(y.values()) >= k + 1)
    m.setMaximize()
    m.setObjlimit(min_violation - k)
    m.optimize()
    return [frozenset(v for v in nodes if m.getSolVal(sol, y[v]) > 0.5) for sol in m.getSols()]


def kcluster_cuts(index: FamilyIndex, xval: np.ndarray, k: int, *, min_violation: float = 1e-3,
                  max_nodes: int = 16, max_cuts: int = 20, time_limit: float | None = None,
                  params: Mapping[str, object] | None = None) -> list[tuple[frozenset[int], float]]:
    """Violated k-cluster inequalities (k >= 2) of ``xval``, most violated first.

    The k-cluster inequality of a node set ``C`` (``|C| > k``) says that at
    most ``|C| - k`` nodes of ``C`` have ``k`` or more parents inside ``C``.
    It holds for every DAG: in a topological order of ``C`` the ``i``-th node
    can only have parents among the ``i - 1`` before it, so the first ``k``
    nodes have fewer than ``k`` parents in ``C``.  It cuts no network, and so
    cannot change which networks are optimal or credible.  For ``k = 1`` it
    is the ordinary cluster inequality; for ``k >= 2`` it cuts LP points that
    no cluster inequality cuts (four nodes each taking the other three as
    parents with value 1/2 satisfy every cluster inequality, and break the
    3-cluster inequality of all four by 1).

    Only nodes in some positive family with at least ``k`` parents (as child or
    parent) can help a violation: any other node adds 1 to ``|C|`` and nothing
    to the left side.  Up to ``max_nodes`` such nodes every subset is scored
    (in blocks, vectorised); beyond, a SCIP sub-IP as in :func:`exact_clusters`
    with ``k * z_f <= sum of y over f's parents``.  Either way the search is
    exact over those nodes; this separation only strengthens the relaxation,
    so a time limit on it costs cuts, never correctness.
    """
    pos = np.flatnonzero((xval > ZERO) & (index.n_parents >= k))
    if pos.size == 0:
        return []
    fams = [(f, list(index.parents[f])) for f in pos.tolist()]
    nodes = sorted({int(index.child[f]) for f, _ in fams} | {p for _, ps in fams for p in ps})
    if len(nodes) <= k:
        return []
    if len(nodes) <= max_nodes:
        masks, _ = _subset_violations(index, xval, nodes, fams, k, min_violation)
        arr = np.asarray(nodes)
        keys = [frozenset(arr[(mask >> np.arange(len(nodes))) & 1 == 1].tolist()) for mask in masks.tolist()]
    else:
        keys = _cluster_subip(index, xval, nodes, fams, k, min_violation, time_limit, params, 100)
    found = [(c, cluster_violation(index, xval, c, k)) for c in keys]
    found = [(c, v) for c, v in found if v > min_violation and len(c) > k]
    return sorted(found, key=lambda kv: (-kv[1], sorted(kv[0])))[:max_cuts]
