"""Four-node cuts: a face of the family-variable polytope on four nodes that cluster cuts miss.

For four distinct nodes in the roles ``a, b, c, d`` (``a`` and ``d`` the *ends*, ``b`` and ``c``
the *middles*) count these families (``P`` is the family's parent set):

* a family of ``a`` when ``d`` is in ``P`` and ``P`` meets ``{b, c}``;
* a family of ``d`` when ``a`` is in ``P`` and ``P`` meets ``{b, c}``;
* a family of ``b`` when ``P`` meets ``{a, c}`` and meets ``{c, d}``, i.e. ``c`` in ``P`` or both ``a``
  and ``d`` in ``P``;
* a family of ``c`` when ``b`` in ``P`` or both ``a`` and ``d`` in ``P``.

In every DAG at most two of the four nodes have a counted family:

    sum of x over the counted families  <=  2.

Why it holds (and why the proof is finite): each condition reads only ``P ∩ {a, b, c, d}``, so the
left-hand side of a DAG on any number of nodes equals that of its induced subgraph on the four nodes,
itself a DAG; ``tests/test_four_node_cuts.py`` checks all 543 DAGs on four nodes (the maximum is 2,
reached by 159 of them).  So the row removes no network: it is exact under objective limits and in the
collecting searches, like the cluster cuts.  It is the family GOBNILP calls ``convex4`` "B" (from the
convex hull of the four-node polytope, Cussens, Järvisalo, Korhonen and Bartlett, JAIR 2017); written
here from that description and re-derived by the exhaustive check above.  Unlike the 2-cluster
inequality of the same four nodes, it counts one-parent families (``b <- c``), so neither implies the other.

The row is symmetric under swapping ``a`` with ``d`` and ``b`` with ``c``, so each 4-set has 6 distinct
rows (the unordered end pair, then the unordered middle pair).

Separation (:func:`violated_quadruples`) is exact for the family: since each member's counted families
sum to at most 1, a row is violated by more than ``m`` only if the ends' counted mass exceeds ``m``, and
that mass is at most the LP weight of the arrows ``d -> a`` and ``a -> d`` together.  So only end pairs
with more than ``m`` arrow weight between them are examined, and for each of them every middle pair at
once, with numpy.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..search.family_index import FamilyIndex

__all__ = ["Quadruple", "canonical", "counted_families", "lhs", "violated_quadruples", "RHS"]

#: Right-hand side of every four-node row.
RHS = 2.0

#: LP values at or below this are treated as zero in separation (as in :mod:`.cluster`).
ZERO = 1e-9

#: ``(a, b, c, d)``: ends ``a < d``, middles ``b < c``.
Quadruple = tuple[int, int, int, int]


def canonical(a: int, b: int, c: int, d: int) -> Quadruple:
    """The one name of the row shared by ``(a, b, c, d)`` and ``(d, c, b, a)`` and the middle swap."""
    if a > d:
        a, d = d, a
    if b > c:
        b, c = c, b
    return (a, b, c, d)


def _counts(role: str, parents: Iterable[int], a: int, b: int, c: int, d: int) -> bool:
    p = set(parents)
    if role == "a":
        return d in p and bool(p & {b, c})
    if role == "d":
        return a in p and bool(p & {b, c})
    if role == "b":
        return c in p or (a in p and d in p)
    return b in p or (a in p and d in p)  # role "c"


def counted_families(index: FamilyIndex, quad: Quadruple) -> np.ndarray:
    """Flat indices of the families counted by the row of ``quad`` (sorted)."""
    a, b, c, d = quad
    out: list[int] = []
    for role, v in (("a", a), ("b", b), ("c", c), ("d", d)):
        for f in range(int(index.start[v]), int(index.start[v + 1])):
            if _counts(role, index.parents[f], a, b, c, d):
                out.append(f)
    return np.array(sorted(out), dtype=np.int64)


def lhs(index: FamilyIndex, xval: np.ndarray, quad: Quadruple) -> float:
    """Left-hand side of the row of ``quad`` at ``xval``."""
    return float(np.sum(xval[counted_families(index, quad)]))


def violated_quadruples(index: FamilyIndex, xval: np.ndarray, *, min_violation: float = 0.05,
                        max_cuts: int = 200) -> list[tuple[float, Quadruple]]:
    """Every row violated by more than ``min_violation`` (most violated first, at most ``max_cuts``).

    Returns ``[(violation, (a, b, c, d)), ...]`` with canonical quadruples; ties are broken by the
    quadruple so the answer is deterministic.
    """
    n = index.n
    if n < 4:
        return []
    pos = np.flatnonzero(xval > ZERO)
    if pos.size == 0:
        return []
    x = xval[pos]
    child = index.child[pos]
    # membership of the positive families: M[i, u] = u is a parent of family pos[i]
    local = np.full(index.F, -1, dtype=np.int64)
    local[pos] = np.arange(pos.size)
    sel = local[index.inc_fam] >= 0
    M = np.zeros((pos.size, n), dtype=np.float64)
    M[local[index.inc_fam[sel]], index.inc_par[sel]] = 1.0
    xM = M * x[:, None]
    # Y[v, u]: LP weight of the arrow u -> v
    Y = np.zeros((n, n))
    np.add.at(Y, child, xM)
    W = Y + Y.T
    ends = [(a, d) for a, d in zip(*np.nonzero(np.triu(W, 1) > min_violation))]
    if not ends:
        return []
    onehot_child = np.zeros((pos.size, n))
    onehot_child[np.arange(pos.size), child] = 1.0
    idx = np.arange(n)
    found: list[tuple[float, Quadruple]] = []
    for a, d in ends:
        a, d = int(a), int(d)
        both = (M[:, a] > 0) & (M[:, d] > 0)
        # middle terms: Mid[b, c] = weight of b's families with c, or with both a and d
        U = onehot_child[both].T @ xM[both]        # U[b, c]: b's families with a, d and c
        T = onehot_child[both].T @ x[both]          # T[b]: b's families with a and d
        mid = Y + T[:, None] - U
        total = mid + mid.T
        for end, other in ((a, d), (d, a)):
            rows = (child == end) & (M[:, other] > 0)
            if not rows.any():
                continue
            Me, xe = M[rows], x[rows]
            s = xe @ Me                              # s[b]: end's families with other and b
            pair = (Me * xe[:, None]).T @ Me         # pair[b, c]: ... with other, b and c
            total += s[:, None] + s[None, :] - pair
        viol = total - RHS
        ok = (viol > min_violation) & (idx[:, None] < idx[None, :])
        ok[[a, d], :] = False
        ok[:, [a, d]] = False
        for b, c in zip(*np.nonzero(ok)):
            found.append((float(viol[b, c]), (a, int(b), int(c), d)))
    found.sort(key=lambda t: (-t[0], t[1]))
    return found[:max_cuts]
