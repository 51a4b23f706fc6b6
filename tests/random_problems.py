"""Random small discrete data sets shared by the exhaustive tests."""

from __future__ import annotations

import numpy as np

__all__ = ["random_data"]


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
