"""The subset DP's optimum (Silander and Myllymäki, lists of length one): against brute force over
every DAG, against the k-best DP with k = 1, and its limits.

It is the second method ``verify=True`` uses after the order graph, so it must share none of the
order graph's code and be exact on its own: ties, missing empty sets, nodes with no usable family.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import Network, ScoreError, ScoreTable
from gobnilp_py.search import subset_dp
from gobnilp_py.solve.results import network_of
from oracle_dp import optimal_dag
from test_order_graph import HYP, all_networks, random_table, tolerance


def _network(table: ScoreTable, chosen) -> Network:
    return network_of(table, chosen)               # refuses a cycle


@settings(HYP, max_examples=250)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), ties=st.booleans(),
       density=st.sampled_from([0.1, 0.4, 0.8, 1.0]), empty=st.sampled_from([1.0, 0.7]))
def test_the_optimum_equals_brute_force(seed, n, ties, density, empty) -> None:
    table = random_table(np.random.default_rng(seed), n, ties=ties, density=density, empty=empty)
    sol = subset_dp.optimum(table)
    nets = all_networks(table) if n <= 5 else None
    best = nets[0][0] if nets else (optimal_dag(table)[0] if nets is None else -math.inf)
    if not math.isfinite(best):
        assert sol.status == "infeasible" and sol.chosen is None
        return
    assert sol.status == "optimal" and abs(sol.score - best) <= tolerance(best)
    assert sol.score == math.fsum(table.families[v][c][1] for v, c in enumerate(sol.chosen))
    _network(table, sol.chosen)
    if nets:                           # one of the optimal networks the enumeration lists
        assert any(c == sol.chosen for s, c in nets if abs(s - best) <= tolerance(best))


@pytest.mark.parametrize("seed", range(6))
def test_the_optimum_equals_the_k_best_dp_on_wider_tables(seed) -> None:
    rng = np.random.default_rng(100 + seed)
    n = 7 + seed % 4
    fams = []
    for v in range(n):                 # up to three parents each, about 40 families a node
        others = [u for u in range(n) if u != v]
        rows = {(): float(rng.normal(-20, 3))}
        for _ in range(40):
            size = int(rng.integers(1, 4))
            ps = tuple(sorted(rng.choice(others, size=size, replace=False).tolist()))
            rows[ps] = float(rng.normal(-15, 4))
        fams.append(list(rows.items()))
    table = ScoreTable([f"V{i}" for i in range(n)], fams)
    fast, ref = subset_dp.optimum(table), subset_dp.kbest(table, k=1)
    assert fast.status == "optimal" and abs(fast.score - ref.entries[0][0]) <= tolerance(fast.score)
    _network(table, fast.chosen)


def test_limits() -> None:
    table = random_table(np.random.default_rng(1), 5)
    assert subset_dp.optimum(table, time_limit=1e-12).status == "time_limit"
    with pytest.raises(ScoreError, match=r"dynamic programming for n=5 needs about \d+ MiB, over the memory budget"):
        subset_dp.optimum(table, memory_budget=1)
    assert subset_dp.estimate_memory_optimum(24) < subset_dp.DEFAULT_MEMORY_BUDGET
    wide = ScoreTable([f"V{i}" for i in range(25)], [[((), -1.0)] for _ in range(25)])
    with pytest.raises(ScoreError, match="at most 24 variables"):
        subset_dp.optimum(wide)


def test_trace_memory_reports_the_peak_through_learn() -> None:
    from gobnilp_py import learn

    table = random_table(np.random.default_rng(2), 6)
    net = learn(table, method="dp", engine_options={"trace_memory": True})
    assert net.status == "optimal" and net.stats["memory_peak_bytes"] > 0
    assert learn(table, method="dp").stats["memory_peak_bytes"] is None


def test_the_empty_table_and_a_reordered_list() -> None:
    from gobnilp_py import learn

    empty = subset_dp.optimum(ScoreTable([], []))
    assert empty.status == "optimal" and empty.score == 0.0 and empty.chosen == ()
    assert learn(ScoreTable([], []), method="ordergraph", verify=True).stats["verified_by"] == "dp"
    t = ScoreTable(["A", "B"], [[((), -10.0), ((1,), -1.0)], [((), -5.0), ((0,), -6.0)]])
    assert subset_dp.optimum(t).score == -6.0
    t.families[0].reverse()                      # mutable: the DP restores best first itself
    sol = subset_dp.optimum(t)
    assert sol.score == -6.0 and t.families[0][sol.chosen[0]] == ((1,), -1.0)


def test_the_memory_estimate_covers_the_peak_on_a_full_table() -> None:
    """Every parent set of every node (the families dominate the arrays at this size)."""
    from itertools import combinations

    n = 11
    rng = np.random.default_rng(4)
    fams = [[(ps, float(rng.normal(-20, 3))) for r in range(n) for ps in combinations([u for u in range(n) if u != v], r)]
            for v in range(n)]
    table = ScoreTable([f"V{i}" for i in range(n)], fams)
    sol = subset_dp.optimum(table, trace_memory=True)
    assert sol.status == "optimal"
    assert sol.stats["memory_peak_bytes"] <= sol.stats["memory_estimate_bytes"]
