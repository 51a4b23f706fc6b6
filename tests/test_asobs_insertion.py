"""The insertion moves of the ASOBS restarts (OrderSearch.insertion_search): never lower the score, end in a
local optimum checked by brute force over every move, keep the OBS choice of their order, and the numba and
numpy paths agree move by move."""

from __future__ import annotations

import numpy as np
import pytest

from gobnilp_py import ScoreTable
from gobnilp_py.search.asobs import _numba as _asobs_numba
from gobnilp_py.search.asobs.obs import SWAP_RTOL, OrderSearch
from test_obs import data_table, sparse_table

BACKENDS = ["numpy"] + (["numba"] if _asobs_numba.AVAILABLE else [])


def _moved(order: np.ndarray, i: int, j: int) -> np.ndarray:
    """``order`` with the node at position ``i`` taken out and put at position ``j``."""
    rest = [int(x) for k, x in enumerate(order) if k != i]
    rest.insert(j, int(order[i]))
    return np.array(rest, dtype=np.int64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_insertions_end_in_a_local_optimum_and_keep_the_obs_choice(backend) -> None:
    rng = np.random.default_rng(21)
    for trial in range(12):
        n = int(rng.integers(4, 9))
        table = data_table(rng, n) if trial % 2 else sparse_table(rng, n, per_node=5)
        search = OrderSearch(table, backend=backend)
        order = rng.permutation(n)
        choice = search.obs(order)
        if choice is None:
            continue
        before = search.score(choice)
        new_order, new_choice, _ = search.insertion_search(order, choice)
        after = search.score(new_choice)
        assert after >= before - 1e-9
        assert np.array_equal(new_choice, search.obs(new_order))       # the OBS choice of its order
        for i in range(n):                                              # no move gains beyond the tolerance
            for j in range(n):
                c = search.obs(_moved(new_order, i, j))
                if c is not None:
                    assert search.score(c) <= after + SWAP_RTOL * max(1.0, abs(after)) + 1e-9


@pytest.mark.skipif(not _asobs_numba.AVAILABLE, reason="numba is not installed")
def test_numba_and_numpy_insertions_agree() -> None:
    rng = np.random.default_rng(5)
    table = sparse_table(rng, 30)
    a, b = OrderSearch(table, backend="numpy"), OrderSearch(table, backend="numba")
    for _ in range(5):
        order = rng.permutation(30)
        choice = a.obs(order)
        if choice is None:
            continue
        ra = a.insertion_search(order, choice)
        rb = b.insertion_search(order, choice)
        assert np.array_equal(ra[0], rb[0]) and np.array_equal(ra[1], rb[1]) and ra[2] == rb[2]


@pytest.mark.skipif(not _asobs_numba.AVAILABLE, reason="numba is not installed")
def test_compiled_topological_order_is_the_python_one() -> None:
    rng = np.random.default_rng(8)
    table = sparse_table(rng, 40)
    a, b = OrderSearch(table, backend="numpy"), OrderSearch(table, backend="numba")
    for _ in range(20):
        prefer = rng.permutation(40)
        choice = a.obs(rng.permutation(40))
        if choice is None:
            continue
        assert np.array_equal(a.topological_order(choice, prefer=prefer), b.topological_order(choice, prefer=prefer))
    cyclic = ScoreTable(["a", "b"], [[((1,), -1.0)], [((0,), -1.0)]])
    with pytest.raises(ValueError, match="acyclic"):
        OrderSearch(cyclic, backend="numba").topological_order(np.array([0, 1]))
