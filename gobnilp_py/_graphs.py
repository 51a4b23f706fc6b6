"""Acyclicity tests on parent lists: one home for the value objects, the engines and the ILP callbacks.

Two forms of the same peel (repeatedly remove the nodes with no parent left):

* :func:`acyclic_indices` on parent *index* lists, any number of nodes (Kahn's
  algorithm, ``O(n + arrows)``);
* :func:`cyclic_remainder` on parent *bitmasks* (``n`` small enough for Python
  ints to be cheap), which also says which nodes lie on or below a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["acyclic_indices", "cyclic_remainder"]


def acyclic_indices(parent_idx: Sequence[Sequence[int]]) -> bool:
    """True when the parent lists (``parent_idx[v]``: indices of ``v``'s parents) have no directed cycle."""
    n = len(parent_idx)
    indeg = [len(ps) for ps in parent_idx]
    children: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(parent_idx):
        for p in ps:
            children[p].append(v)
    todo = [v for v in range(n) if not indeg[v]]
    seen = 0
    while todo:
        u = todo.pop()
        seen += 1
        for c in children[u]:
            indeg[c] -= 1
            if not indeg[c]:
                todo.append(c)
    return seen == n


def cyclic_remainder(parent_masks: Sequence[int]) -> int:
    """Bitmask of the nodes left after peeling parentless nodes: ``0`` iff acyclic.

    ``parent_masks[v]`` has bit ``j`` set when ``j`` is a parent of ``v``.  A
    nonzero result holds every node on a directed cycle and every node below one.
    """
    pa = parent_masks
    left = (1 << len(pa)) - 1
    while left:
        free = 0
        m = left
        while m:
            low = m & -m
            m ^= low
            if not pa[low.bit_length() - 1] & left:
                free |= low
        if not free:
            return left
        left &= ~free
    return 0
