"""A fast lower bound for the global gap rule: a greedy DAG read off a score table.

The ``global_gap`` rule (``docs/pruning.md``) needs LB, the score of *some*
DAG.  Any DAG will do; a good one makes the rule strong.  This builds one by
the sink heuristic: repeatedly give every remaining variable its best family
among the other remaining variables, make the one that loses least against
its unconstrained best the sink (last in the order), and remove it.  Each
chosen family only uses variables still remaining, so the result is acyclic
by construction.  Cost O(n * table size) numpy operations.

It works on the walk's own lists of families, before a :class:`ScoreTable`
exists; the search package's stronger heuristics, which need one, are added
to it by :func:`gobnilp_py.search.lower_bound.heuristic_lower_bound`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["greedy_dag"]


def greedy_dag(families: list[list[tuple[tuple[int, ...], float]]]) -> tuple[float, list[tuple[int, ...]]]:
    """Score and parent sets of a DAG built by the sink heuristic from ``families``.

    ``families[v]`` lists ``(parents, score)``; each list must contain the
    empty parent set (a pruned table always does).  Returns ``(total, parents)``.
    """
    n = len(families)
    masks = []
    scores = []
    for fams in families:
        m = np.fromiter((sum(1 << p for p in ps) for ps, _ in fams), dtype=object if n > 62 else np.int64,
                        count=len(fams))
        s = np.fromiter((sc for _, sc in fams), dtype=np.float64, count=len(fams))
        order = np.argsort(-s, kind="stable")
        masks.append(m[order])
        scores.append(s[order])
    best = np.array([s[0] for s in scores])
    remaining = set(range(n))
    all_mask = (1 << n) - 1
    chosen: list[tuple[int, ...]] = [()] * n
    total = 0.0
    while remaining:
        rem_mask = 0
        for v in remaining:
            rem_mask |= 1 << v
        pick, pick_loss, pick_idx = -1, np.inf, -1
        for v in sorted(remaining):
            forbid = all_mask & ~(rem_mask & ~(1 << v))
            if n > 62:
                ok = np.fromiter((int(x) & forbid == 0 for x in masks[v]), dtype=bool, count=masks[v].size)
            else:
                ok = (masks[v] & np.int64(forbid)) == 0
            idx = int(np.argmax(ok))
            if not ok[idx]:
                raise ValueError(f"variable {v} has no family inside the remaining variables")
            loss = best[v] - scores[v][idx]
            if loss < pick_loss:
                pick, pick_loss, pick_idx = v, loss, idx
        total += float(scores[pick][pick_idx])
        mk = int(masks[pick][pick_idx])
        chosen[pick] = tuple(p for p in range(n) if mk >> p & 1)
        remaining.discard(pick)
    return total, chosen
