"""The compiled candidate generation (``scoring/_walk_numba.py``) gives the numpy walk's tables exactly.

Same candidates in the same order, same floating-point expressions: every rule
must fire on the same sets, so the families, the scores, every rule counter and
the per-level counts must be identical, on random problems with parents of
arity 1, parent limits, ``palim="auto"``, variables kept unpruned and
``prune=False``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import _walk_numba, score, walk_kernel

pytestmark = pytest.mark.skipif(not _walk_numba.AVAILABLE, reason="numba is not installed (pip install .[fast])")


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 10))
    n_rows = int(rng.integers(3, 300))
    arities = [int(a) for a in rng.choice([1, 2, 3, 4], size=n, p=[0.08, 0.5, 0.3, 0.12])]
    codes = np.column_stack([rng.integers(0, r, size=n_rows) for r in arities])
    for j in range(1, n):
        if arities[j] > 1 and rng.random() < 0.6:
            src = rng.choice(j, size=int(rng.integers(1, min(3, j) + 1)), replace=False)
            det = sum((int(s) + 1) * codes[:, s] for s in src) % arities[j]
            codes[:, j] = np.where(rng.random(n_rows) < float(rng.choice([0.6, 0.9, 1.0])), det, codes[:, j])
    ds = Dataset([f"V{j}" for j in range(n)], arities, codes)
    kind = str(rng.choice(["BIC", "AIC"]))
    eps = float(rng.choice([0.0, 0.5, 3.0, 8.0]))
    palim = [None, None, "auto", 2, 3][int(rng.integers(0, 5))]
    unpruned = (f"V{int(rng.integers(0, n))}",) if rng.random() < 0.2 else ()
    prune = bool(rng.random() < 0.9)
    return ds, kind, eps, palim, unpruned, prune


def _table(problem, mode):
    ds, kind, eps, palim, unpruned, prune = problem
    saved = walk_kernel.WALK_KERNEL
    walk_kernel.WALK_KERNEL = mode
    try:
        return score(ds, score=kind, epsilon=eps, palim=palim, unpruned=unpruned, prune=prune, n_jobs=1)
    finally:
        walk_kernel.WALK_KERNEL = saved


@settings(max_examples=120, derandomize=True, deadline=None, database=None)
@given(problems())
def test_compiled_generation_gives_the_numpy_table(problem):
    fast = _table(problem, "numba")
    ref = _table(problem, "numpy")
    assert fast.families == ref.families
    assert fast.pruning == ref.pruning
    assert fast.meta["families_scored_per_level"] == ref.meta["families_scored_per_level"]


def test_the_kernel_is_used_and_counts_rules(monkeypatch):
    """On a problem where every rule fires, the compiled path runs and its counters match."""
    calls = []
    real = walk_kernel.generate_compiled

    def spy(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(walk_kernel, "generate_compiled", spy)
    rng = np.random.default_rng(11)
    # mixed arities: a set whose every extension fails ll_ceiling is not extended (counted once
    # under ll_ceiling), so penalty_bound fires only where an extension's arity beats the least one
    ar = [2, 2, 3, 2, 4, 2, 3, 2, 4]
    codes = np.stack([rng.integers(0, a, size=60) for a in ar], axis=1)
    codes[:, 1] = codes[:, 0] ^ (rng.random(60) < 0.1)
    ds = Dataset([f"V{j}" for j in range(9)], ar, codes)
    problem = (ds, "BIC", 1.0, None, (), True)
    fast = _table(problem, "numba")
    ref = _table(problem, "numpy")
    assert calls
    assert fast.families == ref.families and fast.pruning == ref.pruning
    fired = {r: sum(c[r] for c in ref.pruning.values()) for r in _walk_numba.RULES}
    assert all(fired[r] > 0 for r in _walk_numba.RULES), fired


def test_auto_mode_loads_the_kernel_by_ski_rental(monkeypatch):
    """``"auto"``: levels under WALK_KERNEL_MIN never go to the kernel; bigger ones stay on numpy
    (counted as rent) until the process's rent, the current level included, reaches
    WALK_KERNEL_LOAD; from then on, and for every later level of at least WALK_KERNEL_MIN, the kernel."""
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL_MIN", 100)
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL_LOAD", 1000)
    monkeypatch.setattr(walk_kernel, "_walk_rent", 0)
    monkeypatch.setattr(walk_kernel, "_walk_loaded", False)
    monkeypatch.setattr(walk_kernel, "_numba_imported", lambda: False)
    assert [walk_kernel.walk_kernel_pays(s) for s in (99, 400, 99, 500)] == [False, False, False, False]
    assert walk_kernel._walk_rent == 900          # only the levels the kernel would have taken
    assert walk_kernel.walk_kernel_pays(100)     # 900 + 100 reaches the load
    monkeypatch.setattr(walk_kernel, "_walk_loaded", True)
    assert not walk_kernel.walk_kernel_pays(99) and walk_kernel.walk_kernel_pays(100)
    monkeypatch.setattr(walk_kernel, "_walk_loaded", False)
    monkeypatch.setattr(walk_kernel, "_walk_rent", 0)
    monkeypatch.setattr(walk_kernel, "_numba_imported", lambda: True)   # only the kernel's cache is left to load
    assert not walk_kernel.walk_kernel_pays(99) and walk_kernel.walk_kernel_pays(100)


def test_auto_mode_gives_the_same_table_on_either_side_of_the_load(monkeypatch):
    """The same problem scored in "auto" mode before and after the load: identical tables."""
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 2, size=(80, 10))
    codes[:, 1] = codes[:, 0] ^ (rng.random(80) < 0.1)
    ds = Dataset([f"V{j}" for j in range(10)], [2] * 10, codes)
    calls = []
    real = walk_kernel.generate_compiled
    monkeypatch.setattr(walk_kernel, "generate_compiled", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL", "auto")
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL_MIN", 1)
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL_LOAD", 10**12)
    monkeypatch.setattr(walk_kernel, "_walk_rent", 0)
    monkeypatch.setattr(walk_kernel, "_walk_loaded", False)
    monkeypatch.setattr(walk_kernel, "_numba_imported", lambda: False)
    before = score(ds, score="BIC", epsilon=1.0, n_jobs=1)
    assert not calls and walk_kernel._walk_rent > 0
    monkeypatch.setattr(walk_kernel, "WALK_KERNEL_LOAD", 1)
    after = score(ds, score="BIC", epsilon=1.0, n_jobs=1)
    assert calls and walk_kernel._walk_loaded
    assert after.families == before.families and after.pruning == before.pruning
