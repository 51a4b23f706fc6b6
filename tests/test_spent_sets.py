"""Sets the walk does not extend because every one-larger superset fails ``ll_ceiling``.

The skip must change nothing but the time and the counters: the same families with the same
scores, the same number of families scored per level, in the numpy walk, the tuple walk and the
compiled generation.  Compared here against the same walks with the skip switched off; the
brute-force safety tests (``test_pruning_safety.py``, ``test_pruning_rules_safety.py``) run with
the skip on.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import engine, lattice_generate, score, walk_kernel, walk_python

from random_problems import noisy_columns

RULES = ("parent_count", "penalty_bound", "ll_ceiling", "entropy")


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    n_rows = int(rng.choice([5, 12, 30, 80, 200]))
    arities = [int(a) for a in rng.choice([1, 2, 3, 4], size=n, p=[0.05, 0.55, 0.25, 0.15])]
    codes = noisy_columns(rng, n_rows, arities, float(rng.choice([0.02, 0.1, 0.3, 0.6])), 2)
    ds = Dataset([f"X{j}" for j in range(n)], arities, codes)
    eps = 0.0 if rng.random() < 0.15 else float(rng.uniform(0.0, 6.0))
    kind = str(rng.choice(["BIC", "AIC"]))
    palim = [None, None, None, 2, 3][int(rng.integers(0, 5))]
    return ds, eps, kind, palim


def _run(problem, *, skip: bool, walk: str, monkeypatch):
    ds, eps, kind, palim = problem
    with monkeypatch.context() as m:
        if not skip:
            m.setattr(lattice_generate, "_spent_rows", lambda *a, **k: None)
            m.setattr(walk_python, "_spent_sets", lambda *a, **k: set())
        if walk == "python":
            m.setattr(engine, "VECTORISE_MAX_N", None)
        else:
            m.setattr(walk_kernel, "WALK_KERNEL", walk)
        return score(ds, score=kind, epsilon=eps, palim=palim, n_jobs=1)


def _bound_total(t) -> int:
    return sum(c.get(r, 0) for c in t.pruning.values() for r in RULES)


@settings(max_examples=150, derandomize=True, deadline=None, database=None)
@given(problems())
def test_skipping_spent_sets_keeps_the_table(problem):
    with pytest.MonkeyPatch.context() as mp:
        on = _run(problem, skip=True, walk="numpy", monkeypatch=mp)
        off = _run(problem, skip=False, walk="numpy", monkeypatch=mp)
        ref = _run(problem, skip=True, walk="python", monkeypatch=mp)
    assert on.families == off.families
    assert on.meta["families_scored_per_level"] == off.meta["families_scored_per_level"]
    # the skipped supersets were bound-pruned (or failed Apriori) before; now each spent set
    # with a superset to generate counts once instead, so "unpruned" is never gained
    assert (_bound_total(on) == 0) == (_bound_total(off) == 0)
    for v, c in on.pruning.items():
        assert c.get("dominated", 0) == off.pruning[v].get("dominated", 0)
    # the tuple walk marks and counts the same sets
    assert ref.families == on.families and ref.pruning == on.pruning


def test_compiled_generation_skips_the_same_sets(monkeypatch):
    pytest.importorskip("numba")
    rng = np.random.default_rng(5)
    ar = [2, 2, 3, 2, 4, 2, 3, 2, 2, 2]
    codes = np.stack([rng.integers(0, a, size=80) for a in ar], axis=1)
    codes[:, 1] = codes[:, 0] ^ (rng.random(80) < 0.1)
    ds = Dataset([f"V{j}" for j in range(len(ar))], ar, codes)
    problem = (ds, 1.0, "BIC", None)
    fast = _run(problem, skip=True, walk="numba", monkeypatch=monkeypatch)
    ref = _run(problem, skip=True, walk="numpy", monkeypatch=monkeypatch)
    off = _run(problem, skip=False, walk="numba", monkeypatch=monkeypatch)
    assert fast.families == ref.families == off.families
    assert fast.pruning == ref.pruning
    assert _bound_total(fast) < _bound_total(off)          # sets were skipped


def test_spent_sets_are_counted_once_under_ll_ceiling():
    """Hand-checkable: A is a copy of B (N = 40 rows, c = ln(40)/2).  s_A({B}) = -2c and the
    ceiling is L_A = 0, so every superset of {B} scores at most -4c, below {B} by 2c = 3.69 > ln 3:
    {B} is spent (counted once under ll_ceiling) and none of its supersets is generated."""
    rng = np.random.default_rng(0)
    b = rng.integers(0, 2, size=40)
    codes = np.column_stack([b, b] + [rng.integers(0, 2, size=40) for _ in range(2)])
    ds = Dataset(["A", "B", "C", "D"], [2, 2, 2, 2], codes)
    t = score(ds, score="BIC", bayes_factor=3, n_jobs=1)
    sets = [ps for ps, _ in t.families[0]]
    assert (1,) in sets and not any(1 in ps and len(ps) > 1 for ps in sets)
    assert dict(t.families[0])[(1,)] == pytest.approx(-np.log(40))
    assert t.pruning["A"]["ll_ceiling"] == 1


@settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(problems())
def test_levels_tested_in_chunks_give_the_same_counters(problem):
    """Levels of millions of rows are tested SPENT_CHUNK_ROWS at a time: chunks of 3 rows change nothing."""
    with pytest.MonkeyPatch.context() as mp:
        whole = _run(problem, skip=True, walk="numpy", monkeypatch=mp)
        mp.setattr(lattice_generate, "SPENT_CHUNK_ROWS", 3)
        chunked = _run(problem, skip=True, walk="numpy", monkeypatch=mp)
    assert chunked.families == whole.families and chunked.pruning == whole.pruning
