"""Set-packing rows of small clusters: valid for every DAG, and learning with them stays exact.

The row of a node set C (3 <= |C| <= max_size) adds up, over the members v of C, the
families of v whose parents contain all of C - {v}; at most one such family can be chosen
(two members each having the other as a parent is a 2-cycle).  Checked here: the rows
never cut off any DAG of a complete table on 4 and 5 nodes (brute force over every DAG);
the clusters chosen are the expected ones; learning with the rows (and with the cluster
separation weakened so the rows matter) gives the DP oracle's optimum, the same as without.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle_dags import all_dags  # noqa: E402
from oracle_dp import optimal_dag  # noqa: E402
from test_kcluster_cuts import full_table  # noqa: E402
from test_learn_oracle import check_network, random_table  # noqa: E402

from gobnilp_py.ilp.packing import packing_clusters  # noqa: E402
from gobnilp_py.search.family_index import FamilyIndex  # noqa: E402
from gobnilp_py.scoring.table import ScoreTable  # noqa: E402
from gobnilp_py.solve.learn import learn  # noqa: E402


@pytest.mark.parametrize("n", [4, 5])
def test_no_dag_breaks_a_packing_row(n):
    table = full_table(n)
    index = FamilyIndex.from_table(table)
    where = {(int(index.child[f]), tuple(index.parents[f])): f for f in range(index.F)}
    rows = packing_clusters(index, n)
    assert len(rows) == sum(1 for s in range(3, n + 1) for _ in itertools.combinations(range(n), s))
    checked = 0
    for dag in all_dags(n):
        x = np.zeros(index.F)
        x[[where[(v, tuple(sorted(ps)))] for v, ps in enumerate(dag)]] = 1.0
        for cluster, fams in rows.items():
            assert x[fams].sum() <= 1.0, (dag, cluster)
        checked += 1
    assert checked == {4: 543, 5: 29281}[n]


def test_packing_rows_are_tight_somewhere():
    """Not vacuous: on the complete 4-node table each row is met with equality by some DAG."""
    table = full_table(4)
    index = FamilyIndex.from_table(table)
    where = {(int(index.child[f]), tuple(index.parents[f])): f for f in range(index.F)}
    rows = packing_clusters(index, 4)
    tight = set()
    for dag in all_dags(4):
        x = np.zeros(index.F)
        x[[where[(v, tuple(sorted(ps)))] for v, ps in enumerate(dag)]] = 1.0
        tight |= {c for c, fams in rows.items() if x[fams].sum() == 1.0}
    assert tight == set(rows)


def test_packing_clusters_keep_only_rows_every_member_can_meet():
    # V0 may take {V1, V2}; V1 may take {V0, V2}; V2 only {V0}: the triple's row holds V0's and V1's
    # families only, which the pair row of {V0, V1} already implies, so it is left out.
    table = ScoreTable(["V0", "V1", "V2"], [[((), -1.0), ((1, 2), 0.0)], [((), -1.0), ((0, 2), 0.0)],
                                            [((), -1.0), ((0,), 0.0)]])
    index = FamilyIndex.from_table(table)
    assert packing_clusters(index, 3) == {}
    table = ScoreTable(["V0", "V1", "V2"], [[((), -1.0), ((1, 2), 0.0)], [((), -1.0), ((0, 2), 0.0), ((0,), 0.0)],
                                            [((), -1.0), ((0, 1), 0.0)]])
    index = FamilyIndex.from_table(table)
    rows = packing_clusters(index, 3)
    assert list(rows) == [(0, 1, 2)]
    assert [(int(index.child[f]), tuple(index.parents[f])) for f in rows[(0, 1, 2)]] == [(0, (1, 2)), (1, (0, 2)),
                                                                                       (2, (0, 1))]


def _learn(table: ScoreTable, **options):
    return learn(table, method="ilp", model_options=options)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 8), st.integers(2, 10), st.integers(0, 10**6), st.sampled_from([3, 4]))
def test_learning_with_packing_rows_is_exact(n, k, seed, size):
    table = random_table(seed, n, k, max_par=4)
    opt, _ = optimal_dag(table)
    with_rows = _learn(table, packing=size)
    check_network(with_rows, table, opt)
    # The rows alone (no cycle heuristic, no pair cuts) must not change the answer either.
    check_network(_learn(table, packing=size, cycle_cuts=False), table, opt)
    assert with_rows.score == pytest.approx(_learn(table).score, abs=1e-6)


def test_packing_rows_are_added_on_random_tables():
    """The property above would prove little if no table had a row: here they must exist."""
    added = 0
    for seed in range(20):
        table = random_table(seed, 6, 10, max_par=4)
        opt, _ = optimal_dag(table)
        net = _learn(table, packing=4)
        check_network(net, table, opt)
        added += net.stats["extra"].get("packing_rows", 0)
    assert added > 0


@pytest.mark.parametrize("bad", [1, 2, -3, True, 2.5, "3"])
def test_a_packing_size_below_three_is_refused(bad):
    from gobnilp_py.errors import ConfigError

    with pytest.raises(ConfigError, match="packing"):
        _learn(random_table(0, 4, 3), packing=bad)
