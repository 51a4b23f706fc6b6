"""BestParents: both backends equal a brute-force scan of the table, ties and empty answers included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from random_problems import random_table
from gobnilp_py import ScoreError, ScoreTable
from gobnilp_py.search.best_parents import BestParents


def brute(table: ScoreTable, v: int, mask: int) -> tuple[float, int]:
    """First family in table order inside ``mask`` with a finite score."""
    for j, (ps, sc) in enumerate(table.families[v]):
        if sc > -math.inf and all(mask >> p & 1 for p in ps):
            return sc, j
    return -math.inf, -1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), density=st.sampled_from([0.05, 0.3, 0.9]),
       ties=st.booleans(), empty=st.booleans(), neg_inf=st.booleans())
def test_backends_equal_brute_force(seed: int, n: int, density: float, ties: bool, empty: bool,
                                    neg_inf: bool) -> None:
    rng = np.random.default_rng(seed)
    table = random_table(rng, n, density=density, ties=ties, empty=True if empty else 0.5, neg_inf=neg_inf)
    masks = np.arange(1 << n, dtype=np.uint64)
    dense = BestParents(table, backend="dense")
    sparse = BestParents(table, backend="sparse")
    assert dense.backend == "dense" and sparse.backend == "sparse"
    for v in range(n):
        want = [brute(table, v, int(m)) for m in masks]
        ws = np.array([w[0] for w in want])
        wp = np.array([w[1] for w in want])
        for bp in (dense, sparse):
            s, p = bp.query(v, masks)
            assert np.array_equal(p, wp)
            assert np.array_equal(s, ws)
            assert np.array_equal(bp.scores(v, masks), ws)
            assert np.array_equal(bp.positions(v, masks), wp)
        # the forbidden-vector form and the Python-int bitset form
        for m in masks[:: max(1, len(masks) // 16)]:
            forb = np.array([not (int(m) >> p & 1) for p in range(n)])
            for bp in (dense, sparse):
                assert bp.query_forbidden(v, forb) == want[int(m)]
                bits = bp.inside(v, int(m))
                fit = [j for j, (ps, sc) in enumerate(table.families[v])
                       if sc > -math.inf and all(int(m) >> p & 1 for p in ps)]
                assert [j for j in range(bits.bit_length()) if bits >> j & 1] == fit
        best = [sc for _, sc in table.families[v] if sc > -math.inf]
        assert dense.best_overall()[v] == (best[0] if best else -math.inf)


def test_many_words_and_unanswered_rows() -> None:
    """More than 64 families (several bitset words); sets inside which nothing fits."""
    n = 9
    rng = np.random.default_rng(5)
    others = list(range(1, n))
    rows = [(tuple(others[b] for b in range(n - 1) if m >> b & 1), float(rng.normal()))
            for m in range(1, 1 << (n - 1))]  # no empty set: a set with no parent-set inside fits nothing
    table = ScoreTable([f"X{i}" for i in range(n)], [rows] + [[((), -1.0)]] * (n - 1))
    sparse = BestParents(table, backend="sparse")
    dense = BestParents(table, backend="dense")
    masks = np.arange(1 << n, dtype=np.uint64)
    want = [brute(table, 0, int(m)) for m in masks]
    for bp in (sparse, dense):
        s, p = bp.query(0, masks)
        assert [int(x) for x in p] == [w[1] for w in want]
        assert list(s) == [w[0] for w in want]
    assert (p == -1).sum() == 2  # the empty set and {0} itself
    # 2-d mask arrays keep their shape
    s2, p2 = sparse.query(0, masks.reshape(32, 16))
    assert p2.shape == (32, 16) and np.array_equal(p2.reshape(-1), p)


def test_query_forbidden_beyond_64_variables() -> None:
    n = 130
    fams = [[((), -10.0)] for _ in range(n)]
    fams[0] = [((), -10.0), ((100,), -3.0), ((100, 129), -1.0), ((5,), -2.0)]
    table = ScoreTable([f"X{i}" for i in range(n)], fams)
    bp = BestParents(table)
    assert bp.backend == "sparse"
    forb = np.zeros(n, dtype=bool)
    assert bp.query_forbidden(0, forb) == (-1.0, 0)
    forb[129] = True
    assert bp.query_forbidden(0, forb) == (-2.0, 1)
    forb[5] = True
    assert bp.query_forbidden(0, forb) == (-3.0, 2)
    forb[100] = True
    assert bp.query_forbidden(0, forb) == (-10.0, 3)
    with pytest.raises(ScoreError, match="at most 63"):
        bp.query(0, np.array([1], dtype=np.uint64))
    with pytest.raises(ScoreError, match="length 130"):
        bp.query_forbidden(0, forb[:5])


def test_auto_backend_and_memory_refusal() -> None:
    table = ScoreTable(["A", "B", "C"], [[((), -1.0)], [((), -1.0), ((0,), -0.5)], [((), -1.0)]])
    assert BestParents(table).backend == "dense"
    assert BestParents(table, memory_budget=BestParents.estimate_memory(table, "dense") + 10).backend == "sparse"
    with pytest.raises(ScoreError, match="over the memory budget"):
        BestParents(table, backend="dense", memory_budget=8)
    with pytest.raises(ScoreError, match="backend"):
        BestParents(table, backend="fast")


def test_inside_beyond_63_variables() -> None:
    """Python-int bitsets without uint64 masks (n > 63): the element-by-element build, same answers."""
    n = 70
    rng = np.random.default_rng(11)
    rows = [((), -9.0)]
    for _ in range(150):
        ps = tuple(sorted(int(p) for p in rng.choice(np.arange(1, n), size=int(rng.integers(1, 4)), replace=False)))
        rows.append((ps, float(rng.normal(-5, 2))))
    table = ScoreTable([f"X{i}" for i in range(n)], [list(dict(rows).items())] + [[((), -1.0)]] * (n - 1))
    bp = BestParents(table, backend="sparse")
    for _ in range(40):
        mask = int(sum(1 << int(p) for p in rng.choice(np.arange(n), size=int(rng.integers(0, 50)), replace=False)))
        bits = bp.inside(0, mask)
        fit = [j for j, (ps, _) in enumerate(table.families[0]) if all(mask >> p & 1 for p in ps)]
        assert [j for j in range(bits.bit_length()) if bits >> j & 1] == fit
