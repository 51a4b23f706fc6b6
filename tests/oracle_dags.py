"""Brute-force oracle: every DAG on a few labelled nodes, for exhaustive checks.

Each DAG is yielded exactly once as a tuple of parent tuples
(``dag[v]`` = sorted parents of node ``v``).  Counts: 1, 1, 3, 25, 543,
29,281 for n = 0 .. 5 (OEIS A003024).

Enumeration is by *layers*: layer 0 is the set of sources; a node is in
layer ``L`` when its longest path from a source has length ``L``.  So a node
of layer ``L`` has all parents in layers ``< L`` and at least one in layer
``L - 1``.  Choosing the layers and then each node's parents under that rule
produces every DAG once (the layering of a DAG is unique), without any cycle
check.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations

import numpy as np

__all__ = ["all_dags", "all_dags_array", "count_dags"]


def _nonempty_subsets(items: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for k in range(1, len(items) + 1):
        yield from combinations(items, k)


def _subsets(items: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for k in range(len(items) + 1):
        yield from combinations(items, k)


def all_dags(n: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Yield every DAG on nodes ``0 .. n-1`` as a tuple of sorted parent tuples."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if n == 0:
        yield ()
        return
    parents: list[tuple[int, ...]] = [()] * n

    def place(remaining: tuple[int, ...], older: tuple[int, ...], last: tuple[int, ...]) -> Iterator[None]:
        # ``older``: nodes in layers before ``last``; ``last``: the previous layer.
        if not remaining:
            yield None
            return
        for layer in _nonempty_subsets(remaining):
            rest = tuple(v for v in remaining if v not in layer)
            yield from assign(list(layer), 0, rest, older, last, layer)

    def assign(layer: list[int], i: int, rest: tuple[int, ...], older: tuple[int, ...],
               last: tuple[int, ...], layer_t: tuple[int, ...]) -> Iterator[None]:
        if i == len(layer):
            yield from place(rest, tuple(sorted(older + last)), layer_t)
            return
        v = layer[i]
        for a in _nonempty_subsets(last):
            for b in _subsets(older):
                parents[v] = tuple(sorted(a + b))
                yield from assign(layer, i + 1, rest, older, last, layer_t)
        parents[v] = ()

    nodes = tuple(range(n))
    for sources in _nonempty_subsets(nodes):
        for v in sources:
            parents[v] = ()
        rest = tuple(v for v in nodes if v not in sources)
        for _ in place(rest, (), sources):
            yield tuple(parents)


@lru_cache(maxsize=8)
def all_dags_array(n: int) -> np.ndarray:
    """All DAGs on ``n`` nodes as an int array ``(D, n)`` of parent *bitmasks* (cached)."""
    rows = [[sum(1 << p for p in ps) for ps in dag] for dag in all_dags(n)]
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), n)
    arr.setflags(write=False)
    return arr


def count_dags(n: int) -> int:
    """Number of labelled DAGs on ``n`` nodes, by enumeration."""
    return sum(1 for _ in all_dags(n))


def dag_scores(full) -> tuple[np.ndarray, np.ndarray]:
    """(parent bitmasks of every DAG on ``full.n`` nodes, each DAG's score from the table; -inf if a family is missing)."""
    n = full.n
    dags = all_dags_array(n)
    lookup = np.full((n, 1 << n), -np.inf)
    for v, fams in enumerate(full.families):
        for ps, sc in fams:
            lookup[v, sum(1 << p for p in ps)] = sc
    scores = np.zeros(len(dags))
    for v in range(n):
        scores += lookup[v, dags[:, v]]
    return dags, scores
