"""Acyclic selection on one order (ASOBS's pass, Scanagatta et al. 2015 §4) and its descendant bookkeeping.

A module of its own so that the restarts (:mod:`.restarts`) and the search (:mod:`.engine`) both use it
without importing each other; :mod:`.engine`'s docstring explains the pass and the bitset closure.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .obs import OrderSearch

__all__ = ["DescendantClosure", "asobs_for_order"]


class DescendantClosure:
    """Ancestor and descendant bitsets of a DAG built one node's parents at a time.

    ``desc[x]`` / ``anc[x]`` are rows of ``uint64`` words; bit ``u`` of
    ``desc[x]`` is set when ``u`` is a (proper) descendant of ``x``.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.W = max(1, (n + 63) // 64)
        self.desc = np.zeros((n, self.W), dtype=np.uint64)
        self.anc = np.zeros((n, self.W), dtype=np.uint64)

    def _bit_row(self, u: int) -> np.ndarray:
        row = np.zeros(self.W, dtype=np.uint64)
        row[u >> 6] = np.uint64(1) << np.uint64(u & 63)
        return row

    def members(self, row: np.ndarray) -> np.ndarray:
        """Node ids whose bit is set in ``row``."""
        bits = np.unpackbits(row.view(np.uint8), bitorder="little")[:self.n]
        return np.flatnonzero(bits)

    def is_descendant(self, x: int, u: int) -> bool:
        """True when ``u`` is a proper descendant of ``x``."""
        return bool((int(self.desc[x, u >> 6]) >> (u & 63)) & 1)

    def add_parents(self, v: int, parents: list[int] | np.ndarray) -> None:
        """Record arcs ``p -> v`` for every ``p`` in ``parents`` (none may be a descendant of ``v``)."""
        if len(parents) == 0:
            return
        A = np.zeros(self.W, dtype=np.uint64)
        for p in parents:
            p = int(p)
            A |= self.anc[p]
            A[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        D = self.desc[v] | self._bit_row(v)
        a_rows = self.members(A)
        d_rows = self.members(D)
        self.desc[a_rows] |= D
        self.anc[d_rows] |= A

    def matrix(self) -> np.ndarray:
        """Dense bool matrix ``m[x, u]`` = ``u`` is a descendant of ``x`` (for tests)."""
        return np.unpackbits(self.desc.view(np.uint8), axis=1, bitorder="little")[:, :self.n].astype(bool)


def asobs_for_order(search: OrderSearch, order: np.ndarray,
                    on_step: Callable[[int, int, DescendantClosure], None] | None = None) -> np.ndarray | None:
    """ASOBS on one order: flat family ids per node, or ``None`` when some node has no acceptable family.

    ``on_step(v, f, closure)`` is called after node ``v`` took family ``f``
    (tests compare the closure with one recomputed from scratch).
    """
    n = search.n
    order = np.asarray(order, dtype=np.int64)
    kern = search.kern
    if on_step is None and hasattr(kern, "asobs_pass"):
        return kern.asobs_pass(order)  # the same loop, compiled
    closure = DescendantClosure(n)
    choice = np.full(n, -1, dtype=np.int64)
    for j in range(n - 1, -1, -1):
        v = int(order[j])
        f = kern.first_avoiding(v, closure.desc[v])
        if f < 0:
            return None
        choice[v] = f
        closure.add_parents(v, search.fl.parents(f))
        if on_step is not None:
            on_step(v, f, closure)
    return choice
