"""The numpy walk's look-ups beyond 57 variables (one binary search per child, ``_LevelKeys.find``).

From 58 to 62 variables a ``(child, mask)`` pair no longer packs into one
int64, so the walk searches each child's sorted masks.  That branch once
failed on every level of two or more parents (a column of children against a
row of subsets: carpo100 with ``palim=3`` raised an IndexError).  It is
checked two ways: on real width (59 variables) against the plain Python walk,
and the compiled walk (``_walk_numba``), which share none of the numpy look-ups,
and on random small problems with the per-child search forced, against the
default look-ups.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import engine, lattice_level, score, walk_kernel


def _signature(table):
    return table.families, table.pruning, table.meta["families_scored_per_level"]


def _wide(n_rows: int) -> Dataset:
    """59 binary variables, noisy copies of 6 hidden ones (so sets of 2-3 parents survive the bounds)."""
    rng = np.random.default_rng(1)
    n = 59
    base = rng.integers(0, 2, size=(n_rows, 6))
    codes = np.stack([base[:, j % 6] ^ (rng.random(n_rows) < 0.15) for j in range(n)], axis=1).astype(np.int64)
    assert lattice_level.COMBINED_KEY_MAX_N < n <= engine.VECTORISE_MAX_N
    return Dataset([f"V{j}" for j in range(n)], [2] * n, codes)


def test_59_variables_equal_the_python_walk(monkeypatch):
    ds = _wide(40)
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL", "numpy")
    wide = score(ds, palim=2, n_jobs=1)
    monkeypatch.setattr(engine, "VECTORISE_MAX_N", None)       # the Python walk
    plain = score(ds, palim=2, n_jobs=1)
    assert wide.meta["families_scored"] == plain.meta["families_scored"] > 100_000
    assert _signature(wide) == _signature(plain)


def test_59_variables_three_parents_equal_the_compiled_walk(monkeypatch):
    """Three parents: each candidate looks up two subsets, the shape that used to fail."""
    from gobnilp_py.scoring import _walk_numba

    if not _walk_numba.AVAILABLE:
        pytest.skip("numba is not installed (pip install .[fast]): no compiled walk to compare with")
    ds = _wide(16)
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL", "numpy")
    wide = score(ds, palim=3, n_jobs=1)
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL", "numba")
    compiled = score(ds, palim=3, n_jobs=1)
    assert wide.meta["families_scored_per_level"][3] > 1_000_000
    assert _signature(wide) == _signature(compiled)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), palim=st.sampled_from([None, 2, 3]), kind=st.sampled_from(["BIC", "BDeu"]))
def test_per_child_search_equals_the_packed_keys(seed, palim, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    n_rows = int(rng.integers(5, 200))
    arities = [int(a) for a in rng.choice([1, 2, 3], size=n, p=[0.1, 0.6, 0.3])]
    codes = np.column_stack([rng.integers(0, r, size=n_rows) for r in arities])
    for j in range(1, n):
        if arities[j] > 1 and rng.random() < 0.6:
            src = int(rng.integers(0, j))
            codes[:, j] = np.where(rng.random(n_rows) < 0.8, codes[:, src] % arities[j], codes[:, j])
    ds = Dataset([f"V{j}" for j in range(n)], arities, codes)
    want = score(ds, score=kind, palim=palim, bayes_factor=3, n_jobs=1)
    mp = pytest.MonkeyPatch()    # hypothesis cannot take the monkeypatch fixture
    try:
        mp.setattr(lattice_level, "COMBINED_KEY_MAX_N", 0)    # no packed keys ...
        mp.setattr(lattice_level, "DENSE_KEY_SLOTS", 0)       # ... and no dense table: the per-child search
        mp.setattr(walk_kernel, "WALK_KERNEL", "numpy")
        got = score(ds, score=kind, palim=palim, bayes_factor=3, n_jobs=1)
    finally:
        mp.undo()
    assert _signature(got) == _signature(want)
