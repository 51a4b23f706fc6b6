"""The class nogood: one linear inequality that excludes every DAG of a Markov equivalence class.

Class-level collection (``docs/enumeration.md``) finds one DAG per credible
equivalence class and lists the other members combinatorially; after a class is
found, the search must never return another of its members.  This module builds
the inequality that does it, as plain arrays (no SCIP), so it is tested on its
own against every DAG on up to 5 nodes.

Derivation.  Let the class ``C`` have essential graph (CPDAG) with compelled
parents ``D(v)`` and undirected neighbours ``U(v)`` of every node ``v``, and
let ``A(v)`` be ``v``'s neighbours in the skeleton.  A DAG ``G`` of the class
gives ``v`` the parents ``D(v)`` plus some of ``U(v)``, and those undirected
parents are pairwise adjacent (two non-adjacent ones would form a v-structure
the class does not have).  Call a family ``(v, W)`` *of the class* when

    D(v) ⊆ W ⊆ D(v) ∪ U(v)   and   W ∩ U(v) is a clique of the skeleton,

and let ``u(v, W) = |W ∩ U(v)|``.  Conversely, an acyclic ``G`` all of whose
families are of the class has edges only inside the skeleton, uses each
undirected edge at most once (two uses would be a 2-cycle), and has exactly
the class's v-structures provided it has *all* the skeleton's edges, i.e.
``Σ_v u(v, W_v) = |U|`` (``|U|`` the number of undirected edges): every
non-adjacent parent pair of ``v`` then lies in ``D(v)``, hence is a v-structure
of ``C`` (a compelled parent ``d`` and an undirected neighbour ``u`` of ``v`` are
always adjacent in a CPDAG, else Meek's rule R1 would orient ``v - u``).  So

    G ∈ C   ⟺   every family of G is of the class  and  Σ_v u(v, W_v) = |U|.

With ``y = Σ_{(v,W) of the class} x_{v,W}`` and ``z = Σ_{(v,W) of the class}
u(v, W) x_{v,W}``, every acyclic integral point has ``y <= n`` (one family per
node) and ``z <= |U|`` (an undirected edge ``a - b`` adds 1 to ``z`` when
``a ∈ W_b`` or ``b ∈ W_a``, never both: that would be a 2-cycle).  Hence

    y + z  <=  n + |U| − 1

is violated by an acyclic point exactly when ``y = n`` and ``z = |U|`` (both
are integers at their maxima), i.e. exactly by the DAGs of ``C``: every other
acyclic network satisfies it, so no network outside ``C`` is lost.  With
``|U| = 0`` (a class of one DAG) it is the ordinary nogood ``y <= n - 1``.

Why these weights (and not ``(|U| + 1) · y + z <= (|U| + 1) · n + |U| − 1``,
which excludes the same integral points and was used before): the
inequality is also a row of every LP in the search, and its strength there is
what lets the search's bound fall below a class once it is found.  From a
member's point an LP can satisfy the row by moving a fraction ``δ`` of one
node's mass from a family with ``u`` undirected parents to a family outside
the class; it needs ``δ (1 + u) >= 1`` here, but only
``δ (|U| + 1 + u) >= 1`` with the ``|U| + 1`` weights, i.e. ``δ`` of about
``1 / |U|``: on classes with many undirected edges (hailfinder100: thousands of
members per class) the LP bound then barely moves below the class's score,
and the collecting search's global bound stayed at the optimum for 300 s
(``benchmarks/results/hailfinder-class-collection.md``).  Among inequalities in
``(y, z)`` alone, ``y + z`` is the one through the two integral points
nearest the class that it must keep: ``(n, |U| − 1)`` (a member with one
undirected edge dropped, a DAG of another class) and ``(n − 1, |U|)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..search.family_index import FamilyIndex

__all__ = ["family_masks", "class_nogood"]


def family_masks(index: FamilyIndex) -> np.ndarray | list[int]:
    """The parent set of every family as a bitmask: an int64 array up to 62 nodes, else Python ints."""
    if index.n <= 62:
        masks = np.zeros(index.F, dtype=np.int64)
        np.bitwise_or.at(masks, index.inc_fam, np.left_shift(np.int64(1), index.inc_par.astype(np.int64)))
        return masks
    return [sum(1 << p for p in ps) for ps in index.parents]


def class_nogood(index: FamilyIndex, masks: np.ndarray | Sequence[int], directed: Sequence[int],
                 undirected: Sequence[int]) -> tuple[np.ndarray, np.ndarray, float]:
    """The class nogood of the class with compelled parents ``directed[v]`` and undirected neighbours ``undirected[v]``.

    Parameters
    ----------
    index : FamilyIndex
        The families of the model.
    masks : numpy.ndarray of int64 or sequence of int
        :func:`family_masks` of ``index``.
    directed, undirected : sequence of int
        Per node, the bitmask of its compelled parents and of its undirected
        neighbours in the CPDAG.

    Returns
    -------
    (families, coefficients, rhs)
        The inequality ``Σ coefficients[i] · x[families[i]] <= rhs`` over flat family indices.
    """
    n = index.n
    children = [0] * n
    for v in range(n):
        m = directed[v]
        while m:
            low = m & -m
            children[low.bit_length() - 1] |= 1 << v
            m ^= low
    adj = [directed[v] | children[v] | undirected[v] for v in range(n)]
    n_und = sum(bin(u).count("1") for u in undirected) // 2
    big = 1  # weight of y (see the module docstring)
    rhs = float(n + n_und - 1)
    if isinstance(masks, np.ndarray):
        return _vectorised(index, masks, directed, undirected, adj, big) + (rhs,)
    fams: list[int] = []
    coefs: list[float] = []
    start = index.start
    for v in range(n):
        d, u = directed[v], undirected[v]
        allowed = d | u
        for f in range(int(start[v]), int(start[v + 1])):
            w = masks[f]
            if w & d != d or w & ~allowed:
                continue
            part = w & u
            if not _is_clique(part, adj):
                continue
            fams.append(f)
            coefs.append(float(big + bin(part).count("1")))
    return np.asarray(fams, dtype=np.int64), np.asarray(coefs, dtype=np.float64), rhs


def _vectorised(index: FamilyIndex, masks: np.ndarray, directed: Sequence[int], undirected: Sequence[int],
                adj: Sequence[int], big: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`class_nogood`'s selection on int64 masks (n <= 62), in a few numpy passes over all families.

    First the families with ``D(v) ⊆ W ⊆ D(v) ∪ U(v)`` (one pass, every node
    at once: usually a handful of families remain), then the clique test of
    ``W ∩ U(v)`` on those only, one pass per node that has undirected
    neighbours.  Called once per class found (it was 25 ms per class on
    hailfinder100 with a per-node loop and a bit-by-bit popcount).
    """
    d_of = np.asarray(directed, dtype=np.int64)[index.child]
    u_of = np.asarray(undirected, dtype=np.int64)[index.child]
    ok = ((masks & d_of) == d_of) & ((masks & ~(d_of | u_of)) == 0)
    sel = np.flatnonzero(ok)
    if not sel.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    part = masks[sel] & u_of[sel]
    keep = np.ones(sel.size, dtype=bool)
    rest = 0
    for u in undirected:
        rest |= int(u)
    while rest:  # every node i that is some undirected parent: it must be adjacent to the others of its part
        low = rest & -rest
        i = low.bit_length() - 1
        rest ^= low
        has_i = (part & np.int64(low)) != 0
        keep &= ~has_i | ((part & ~np.int64(adj[i] | low)) == 0)
    sel, part = sel[keep], part[keep]
    return sel.astype(np.int64), (big + _popcount(part)).astype(np.float64)


def _popcount(a: np.ndarray) -> np.ndarray:
    """Number of set bits of every int64 (non-negative) entry."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(a).astype(np.int64)
    x = a.astype(np.uint64)  # SWAR: bits per 2, 4, 8, then the byte sums gathered by one multiplication
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def _is_clique(mask: int, adj: Sequence[int]) -> bool:
    """True when the nodes of ``mask`` are pairwise adjacent in the skeleton ``adj``."""
    rest = mask
    while rest:
        low = rest & -rest
        i = low.bit_length() - 1
        rest ^= low
        if rest & ~adj[i]:
            return False
    return True
