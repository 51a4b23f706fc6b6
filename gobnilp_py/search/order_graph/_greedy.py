"""A fast heuristic DAG: a greedy sink order improved by adjacent swaps (a lower bound for exact searches).

Any variable order gives a DAG: each node takes its best family among the
nodes before it (:class:`~gobnilp_py.search.best_parents.BestParents`).  The
order is built from the back: repeatedly make a *sink* of the node that loses
least against its unconstrained best family, when all remaining nodes are
available as parents.  Then adjacent nodes are swapped while that strictly
improves the score (only the two nodes' families change).  Its score is a
valid lower bound on the optimum; nothing about its quality is promised.
"""

from __future__ import annotations

import math

import numpy as np

from ..best_parents import BestParents

__all__ = ["greedy_dag"]


def greedy_dag(bp: BestParents, *, max_passes: int = 20) -> tuple[float, tuple[int, ...], list[int]] | None:
    """``(score, chosen, order)`` of the heuristic DAG, or ``None`` if the greedy order admits no DAG.

    ``chosen[v]`` indexes ``table.families[v]``; ``score`` is their
    :func:`math.fsum`; ``order`` is a topological order of the DAG.
    """
    n = bp.n
    best = bp.best_overall()
    if n == 0:
        return 0.0, (), []
    if not np.all(np.isfinite(best)):
        return None
    remaining = (1 << n) - 1
    sinks: list[int] = []
    while remaining:
        cand = [v for v in range(n) if remaining >> v & 1]
        loss = [bp.best(v, remaining & ~(1 << v))[0] - best[v] for v in cand]
        j = int(np.argmax(loss))
        if not loss[j] > -math.inf:
            return None
        sinks.append(cand[j])
        remaining &= ~(1 << cand[j])
    order = sinks[::-1]

    def local(v: int, before: int) -> float:
        return bp.best(v, before)[0]

    for _ in range(max_passes):
        improved = False
        before = 0
        for i in range(n - 1):
            a, b = order[i], order[i + 1]
            old = local(a, before) + local(b, before | 1 << a)
            new = local(b, before) + local(a, before | 1 << b)
            if new > old:
                order[i], order[i + 1] = b, a
                improved = True
            before |= 1 << order[i]
        if not improved:
            break
    chosen = [0] * n
    parts = []
    before = 0
    for v in order:
        sc, pos = bp.best(v, before)
        if pos < 0:
            return None
        chosen[v] = pos
        parts.append(sc)
        before |= 1 << v
    return math.fsum(parts), tuple(chosen), order
