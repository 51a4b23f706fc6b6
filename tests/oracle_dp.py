"""Exact optimal-DAG score by dynamic programming over node subsets (test oracle).

Silander & Myllymäki (2006): ``bps[v][S]`` is the best score of a candidate
parent set of ``v`` contained in ``S`` (a subset-maximum transform of the
table), and ``best[S] = max over sinks v in S of best[S - v] + bps[v][S - v]``.
It shares no code with the ILP solver, so agreement is real evidence.
Memory and time are ``O(n 2^n)``: fast up to n = 12 or so.
"""

from __future__ import annotations

import numpy as np

from gobnilp_py.scoring.table import ScoreTable

__all__ = ["best_parent_scores", "best_subset_scores", "optimal_dag"]


def best_parent_scores(table: ScoreTable) -> np.ndarray:
    """``bps[v, S]``: best score of a candidate parent set of ``v`` inside the node set ``S`` (bitmask)."""
    n = table.n
    full = 1 << n
    bps = np.full((n, full), -np.inf)
    for v, fams in enumerate(table.families):
        for ps, sc in fams:
            mask = sum(1 << p for p in ps)
            bps[v, mask] = max(bps[v, mask], sc)
        arr = bps[v]
        for b in range(n):  # subset maximum, one bit at a time
            a = arr.reshape(-1, 2, 1 << b)
            np.maximum(a[:, 1, :], a[:, 0, :], out=a[:, 1, :])
    return bps


def best_subset_scores(table: ScoreTable, bps: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``best[S]``: best score of a DAG on node set ``S`` (parents inside ``S``), and a best sink of each ``S``."""
    n = table.n
    full = 1 << n
    bps = best_parent_scores(table) if bps is None else bps
    best = np.full(full, -np.inf)
    sink = np.full(full, -1, dtype=np.int64)
    best[0] = 0.0
    masks = np.arange(full)
    popcount = np.array([bin(m).count("1") for m in range(full)])
    for k in range(1, n + 1):
        level = masks[popcount == k]
        for v in range(n):
            bit = 1 << v
            sel = level[(level & bit) != 0]
            rest = sel ^ bit
            cand = best[rest] + bps[v, rest]
            better = cand > best[sel]
            best[sel[better]] = cand[better]
            sink[sel[better]] = v
    return best, sink


def optimal_dag(table: ScoreTable) -> tuple[float, list[tuple[int, ...]]]:
    """Optimal total score and one optimal DAG (parent set of each node) of ``table``.

    Returns ``(-inf, [])`` when no DAG can be built from the candidate sets.
    """
    n = table.n
    full = 1 << n
    bps = best_parent_scores(table)
    best, sink = best_subset_scores(table, bps)
    opt = float(best[full - 1])
    if not np.isfinite(opt):
        return -np.inf, []
    parents: list[tuple[int, ...]] = [()] * n
    S = full - 1
    while S:
        v = int(sink[S])
        rest = S ^ (1 << v)
        target = bps[v, rest]
        parents[v] = min((ps for ps, sc in table.families[v]
                          if sc == target and all((rest >> p) & 1 for p in ps)), key=len)
        S = rest
    return opt, parents
