"""Ordering-based search: OBS against brute force, the swap search, and the optimum over all orders.

Oracles: every DAG consistent with an order, enumerated here (all DAGs of
``oracle_dags`` filtered by the order for n <= 5; the product of each node's
order-consistent table families for n = 6, 7), and the subset DP of
``oracle_dp`` for the exact optimum.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

from gobnilp_py import ScoreTable, score
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.search.asobs import _numba as _asobs_numba
from gobnilp_py.search.asobs._lists import FamilyLists, NumpyKernels
from gobnilp_py.search.asobs.obs import SWAP_RTOL, OrderSearch
from oracle_dags import all_dags
from oracle_dp import optimal_dag
from random_problems import random_data, random_limited_table

BACKENDS = ["numpy"] + (["numba"] if _asobs_numba.AVAILABLE else [])


def sparse_table(rng: np.random.Generator, n: int, per_node: int = 8) -> ScoreTable:
    """Up to ``per_node`` random families of 1-3 parents per node, plus ∅ (for larger n)."""
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        rows = {}
        for _ in range(per_node):
            k = int(rng.integers(1, 4))
            ps = tuple(sorted(int(u) for u in rng.choice(others, size=k, replace=False)))
            rows[ps] = float(rng.normal(-10, 3))
        rows[()] = float(rng.normal(-16, 1))
        fams.append(list(rows.items()))
    return ScoreTable([f"v{i}" for i in range(n)], fams)


def data_table(rng: np.random.Generator, n: int) -> ScoreTable:
    codes = random_data(rng, n, int(rng.integers(40, 400)))
    ds = Dataset(tuple(f"x{i}" for i in range(n)), np.maximum(codes.max(axis=0) + 1, 1), codes)
    return score(ds)


@functools.lru_cache(maxsize=None)
def _dags(n: int) -> tuple:
    return tuple(all_dags(n))


def brute_force_for_order(table: ScoreTable, order: np.ndarray) -> float:
    """Best score over every DAG consistent with ``order`` whose families are all in the table."""
    n = table.n
    pos = {int(v): i for i, v in enumerate(order)}
    lookup = [dict(f) for f in table.families]
    best = -math.inf
    if n <= 5:
        for dag in _dags(n):
            if all(pos[p] < pos[v] for v in range(n) for p in dag[v]) and all(dag[v] in lookup[v] for v in range(n)):
                best = max(best, math.fsum(lookup[v][dag[v]] for v in range(n)))
        return best
    options = [[sc for ps, sc in table.families[v] if all(pos[p] < pos[v] for p in ps)] for v in range(n)]
    for combo in itertools.product(*options):
        best = max(best, math.fsum(combo))
    return best


def is_acyclic(search: OrderSearch, choice: np.ndarray) -> bool:
    try:
        search.topological_order(choice)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_obs_equals_brute_force_over_order_consistent_dags(n, backend):
    rng = np.random.default_rng(100 + n)
    for trial in range(4 if n <= 5 else 3):
        table = data_table(rng, n) if (trial % 2 == 0 and n <= 5) else random_limited_table(rng, n, 4 if n >= 6 else 8)
        search = OrderSearch(table, backend=backend)
        for _ in range(4):
            order = rng.permutation(n)
            choice = search.obs(order)
            assert choice is not None
            assert search.score(choice) == pytest.approx(brute_force_for_order(table, order), rel=1e-12)
            pos = search.inverse(order)
            for v in range(n):
                assert all(pos[p] < pos[v] for p in search.parents(choice[v]))


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_max_of_obs_over_all_orders_is_the_optimum(n):
    rng = np.random.default_rng(7 * n)
    for trial in range(2):
        table = data_table(rng, n) if trial == 0 else random_limited_table(rng, n, 10)
        opt, _ = optimal_dag(table)
        search = OrderSearch(table, backend="numpy")
        best = max(search.score(search.obs(np.array(p))) for p in itertools.permutations(range(n)))
        assert best == pytest.approx(opt, rel=1e-12, abs=1e-9)


def _swap_neighbours_gain(search: OrderSearch, order: np.ndarray) -> float:
    """Largest score gain over all adjacent swaps, by recomputing OBS from scratch."""
    base = search.score(search.obs(order))
    best = -math.inf
    for j in range(len(order) - 1):
        o = order.copy()
        o[j], o[j + 1] = o[j + 1], o[j]
        c = search.obs(o)
        if c is not None:
            best = max(best, search.score(c) - base)
    return best


@pytest.mark.parametrize("backend", BACKENDS)
def test_swaps_never_lower_the_score_and_end_in_a_local_optimum(backend):
    rng = np.random.default_rng(5)
    for trial in range(12):
        n = int(rng.integers(3, 9))
        table = random_limited_table(rng, n, 12) if trial % 2 else data_table(rng, min(n, 6))
        search = OrderSearch(table, backend=backend)
        order = rng.permutation(search.n)
        start = search.obs(order)
        new_order, choice, _ = search.swap_search(order, start)
        assert search.score(choice) >= search.score(start)
        # the returned choice is OBS on the returned order, acyclic, and no adjacent swap improves it
        assert np.array_equal(choice, search.obs(new_order))
        assert is_acyclic(search, choice)
        tol = SWAP_RTOL * max(1.0, 2 * float(np.abs(search.fl.score).max()))
        assert _swap_neighbours_gain(search, new_order) <= tol


def test_numpy_kernels_agree_with_a_plain_scan():
    rng = np.random.default_rng(11)
    table = sparse_table(rng, 9, 40)
    fl = FamilyLists.from_table(table)
    kern = NumpyKernels(fl)
    for _ in range(50):
        pos = rng.permutation(9)
        thr = int(rng.integers(0, 10))
        words = np.array([int(rng.integers(0, 1 << 9))], dtype=np.uint64)
        for v in range(9):
            fams = range(int(fl.fstart[v]), int(fl.fstart[v + 1]))
            want = next((f for f in fams if all(pos[p] < thr for p in fl.parents(f))), -1)
            assert kern.first_below(v, pos, thr) == want
            want = next((f for f in fams if all(not (int(words[0]) >> int(p)) & 1 for p in fl.parents(f))), -1)
            assert kern.first_avoiding(v, words) == want


@pytest.mark.skipif(not _asobs_numba.AVAILABLE, reason="numba is not installed")
def test_numba_kernels_agree_with_numpy():
    rng = np.random.default_rng(12)
    table = sparse_table(rng, 70, 30)
    fl = FamilyLists.from_table(table)
    a, b = NumpyKernels(fl), _asobs_numba.NumbaKernels(fl)
    for _ in range(30):
        pos = rng.permutation(70)
        assert np.array_equal(a.obs_choice(pos), b.obs_choice(pos))
        words = rng.integers(0, 2**63, size=2, dtype=np.int64).astype(np.uint64)
        thr = int(rng.integers(0, 71))
        for v in range(70):
            assert a.first_below(v, pos, thr) == b.first_below(v, pos, thr)
            assert a.first_avoiding(v, words) == b.first_avoiding(v, words)


def test_no_consistent_family_gives_none():
    table = ScoreTable(["a", "b"], [[((1,), -1.0)], [((), -2.0)]])
    search = OrderSearch(table, backend="numpy")
    assert search.obs(np.array([0, 1])) is None
    assert search.obs(np.array([1, 0])) is not None
