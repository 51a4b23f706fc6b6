"""Random small discrete data sets shared by the exhaustive tests."""

from __future__ import annotations

import itertools

import numpy as np

from gobnilp_py.scoring.table import ScoreTable

__all__ = ["random_data", "noisy_columns", "random_table", "random_sparse_table", "random_limited_table"]


def random_data(rng: np.random.Generator, n: int, n_rows: int) -> np.ndarray:
    """Discrete data with dependencies (columns partly copied from earlier ones), so scores differ and pruning fires."""
    cols = []
    for j in range(n):
        r = int(rng.integers(2, 4))
        base = rng.integers(0, r, n_rows)
        if j and rng.random() < 0.7:
            src = cols[int(rng.integers(0, j))]
            copy = rng.random(n_rows) < rng.uniform(0.4, 0.9)
            base = np.where(copy, src % r, base)
        cols.append(base)
    return np.column_stack(cols)


def noisy_columns(rng: np.random.Generator, n_rows: int, arities: list[int], noise: float,
                  max_sources: int) -> np.ndarray:
    """Columns of the given arities, each (past the first) a noisy function of up to ``max_sources`` earlier ones.

    Column ``j`` is ``sum((t + 1) * col_t) mod r`` over a random set of earlier columns ``t``, replaced
    by a uniform value in a ``noise`` share of the rows; arity-1 columns are constant.  Shared by the
    pruning-safety tests (the draws from ``rng`` are theirs, in their order).
    """
    cols: list[np.ndarray] = []
    for j, r in enumerate(arities):
        col = rng.integers(0, r, size=n_rows)
        if j > 0 and r > 1:
            k = int(rng.integers(1, min(max_sources, j) + 1))
            src = rng.choice(j, size=k, replace=False)
            det = sum((t + 1) * cols[t] for t in src) % r
            col = np.where(rng.random(n_rows) >= noise, det, col)
        cols.append(col)
    return np.column_stack(cols)


# ------------------------------------------------------------------ random score tables (one copy each)
def random_table(rng: np.random.Generator, n: int, *, ties: bool = False, density: float = 0.6,
                 empty: bool | float = 1.0, neg_inf: bool = False) -> ScoreTable:
    """Families drawn over every parent set: each non-empty set kept with probability ``density``.

    ``ties`` draws small integers (many tied networks) instead of normal scores.  ``empty`` is whether a
    node has the empty set: ``True`` always (no draw), or a probability (one draw per node, even at
    1.0); a node left with nothing gets one non-empty family, so some candidate sets fit nothing.
    ``neg_inf`` drops one family at random from half the nodes (an impossible family is simply absent:
    a ScoreTable refuses -inf scores).  Shared by the engine tests; the draws are theirs, in order.
    """
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        rows = []
        if empty is True or (empty is not False and rng.random() < empty):
            rows.append(((), float(rng.integers(-6, 0)) if ties else float(rng.normal(-10, 3))))
        for mask in range(1, 1 << (n - 1)):
            if rng.random() < density:
                ps = tuple(others[b] for b in range(n - 1) if mask >> b & 1)
                rows.append((ps, float(rng.integers(-8, 1)) if ties else float(rng.normal(-10, 3))))
        if not rows:
            rows.append(((others[0],), -3.0) if others else ((), -3.0))
        if neg_inf and len(rows) > 1 and rng.random() < 0.5:
            drop = int(rng.integers(0, len(rows)))
            rows = [r for j, r in enumerate(rows) if j != drop]
        fams.append(rows)
    return ScoreTable([f"V{i}" for i in range(n)], fams)


def random_sparse_table(rng: np.random.Generator, n: int, k: int = 5, max_par: int = 3) -> ScoreTable:
    """``k`` random parent sets of up to ``max_par`` parents per node, plus the empty set.

    Larger sets tend to score better, so cycles tempt the LP relaxation (the ILP tests' generator).
    """
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        sets = {(): float(-10.0 * rng.random() - 5.0)}
        for _ in range(k):
            if not others:
                break
            m = int(rng.integers(1, min(max_par, len(others)) + 1))
            ps = tuple(sorted(rng.choice(others, size=m, replace=False).tolist()))
            sets[ps] = float(-10.0 * rng.random() + 2.0 * m - 5.0)
        fams.append(list(sets.items()))
    return ScoreTable([f"V{i}" for i in range(n)], fams)


def random_limited_table(rng: np.random.Generator, n: int, max_fams: int, *, empty: bool = True) -> ScoreTable:
    """At most ``max_fams`` non-empty families per node, drawn among all subsets; ∅ (scored low) when ``empty``."""
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        subsets = [s for k in range(1, n) for s in itertools.combinations(others, k)]
        pick = rng.choice(len(subsets), size=min(max_fams, len(subsets)), replace=False)
        rows = [(subsets[i], float(rng.normal(-10, 3))) for i in pick]
        if empty:
            rows.append(((), float(rng.normal(-14, 2))))
        fams.append(rows)
    return ScoreTable([f"v{i}" for i in range(n)], fams)
