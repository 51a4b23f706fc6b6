"""Random small discrete data sets shared by the exhaustive tests."""

from __future__ import annotations

import numpy as np

__all__ = ["random_data", "noisy_columns"]


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
