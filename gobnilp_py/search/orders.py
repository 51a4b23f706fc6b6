"""Orders and DAGs: the building blocks of ordering-based search, SCIP-free.

Any family whose parents all precede the child in one fixed order can be
combined with any other such family into a DAG, so a variable order turns
structure learning into independent per-node choices.  Two functions work on
a :class:`~gobnilp_py.search.family_index.FamilyIndex`:

* :func:`sink_order` builds a DAG by choosing sinks last-to-first, guided by
  per-family values (an LP solution, or zeros for a greedy-by-score DAG);
* :func:`best_for_order` gives every node its best family consistent with the
  topological order of a DAG (optimal for that order, never worse).

The ILP engine's primal heuristic (:mod:`gobnilp_py.ilp.heuristic`) rounds LP
points with them; the order-graph engine and scoring use them for lower bounds.
"""

from __future__ import annotations

import numpy as np

from .family_index import FamilyIndex

__all__ = ["sink_order", "best_for_order"]


def sink_order(index: FamilyIndex, xval: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray | None:
    """Choose one family per node forming a DAG, guided by ``xval``.

    Parameters
    ----------
    index : FamilyIndex
    xval : numpy.ndarray, shape (F,)
        Guidance values (LP solution); zeros give a greedy-by-score DAG.
    allowed : numpy.ndarray of bool, shape (F,), optional
        Families that may be used (e.g. upper bound 1).

    Returns
    -------
    numpy.ndarray of int64, shape (n,) or None
        Flat family index chosen for every node, or ``None`` when some node
        has no allowed family avoiding the sinks already placed.
    """
    n = index.n
    F = index.F
    if allowed is None:
        allowed = np.ones(F, dtype=bool)
    # One global order: by child, then LP value desc, then score desc.
    order = np.lexsort((-index.score, -np.round(xval, 9), index.child))
    order = order[allowed[order]]
    bounds = np.searchsorted(index.child[order], np.arange(n + 1))
    ptr = bounds[:-1].copy()
    end = bounds[1:]
    blocked = np.zeros(F, dtype=bool)
    placed = np.zeros(n, dtype=bool)
    choice = np.full(n, -1, dtype=np.int64)
    for _ in range(n):
        best_v, best_key = -1, None
        for v in np.flatnonzero(~placed).tolist():
            p, e = int(ptr[v]), int(end[v])
            while p < e and blocked[order[p]]:
                p += 1
            ptr[v] = p
            if p == e:
                return None
            f = int(order[p])
            key = (round(float(xval[f]), 9), float(index.score[f]))
            if best_key is None or key > best_key:
                best_v, best_key = v, key
        f = int(order[ptr[best_v]])
        choice[best_v] = f
        placed[best_v] = True
        blocked[index.fams_with_parent[best_v]] = True
    return choice


def best_for_order(index: FamilyIndex, choice: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """Polish a DAG: keep its topological order, give every node its best family consistent with it.

    Any family whose parents all precede the child in one fixed order can be
    combined with any other such family into a DAG, so choosing each node's
    best-scoring such family is optimal for that order and never worse than
    ``choice`` (which is consistent with it).  Vectorised: the latest parent
    position of every family, then the first admissible family per node
    (families are stored best score first).
    """
    n = index.n
    parents = [index.parents[f] for f in choice.tolist()]
    # Topological order of the chosen DAG (Kahn): position of each node.
    indeg = np.array([len(p) for p in parents])
    kids: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(parents):
        for p in ps:
            kids[p].append(v)
    stack = [v for v in range(n) if indeg[v] == 0]
    pos = np.empty(n, dtype=np.int64)
    k = 0
    while stack:
        u = stack.pop()
        pos[u] = k
        k += 1
        for c in kids[u]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    if k != n:  # not a DAG: leave it alone (cannot happen for sink_order output)
        return choice
    last = np.full(index.F, -1, dtype=np.int64)
    np.maximum.at(last, index.inc_fam, pos[index.inc_par])
    ok = last < pos[index.child]
    if allowed is not None:
        ok &= allowed
    cand = np.flatnonzero(ok)
    kids_of = index.child[cand]
    first = np.searchsorted(kids_of, np.arange(n))
    better = choice.copy()
    for v in range(n):
        if first[v] < len(cand) and kids_of[first[v]] == v:
            f = int(cand[first[v]])
            if index.score[f] > index.score[better[v]]:
                better[v] = f
    return better
