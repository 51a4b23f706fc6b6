"""k-cluster cuts: valid for every DAG, stronger than cluster cuts, and harmless to exactness.

The k-cluster inequality of a node set C (|C| > k) says at most |C| - k nodes
of C have k or more parents in C.  Validity is checked against every DAG on 4
and 5 nodes; strength on the textbook point that satisfies every cluster
inequality; exactness by learning with the cuts forced on (every round, every
depth) against the exhaustive DP on random tables.
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
from test_learn_oracle import check_network, random_table  # noqa: E402

from gobnilp_py.ilp import cluster as cl  # noqa: E402
from gobnilp_py.search.family_index import FamilyIndex  # noqa: E402
from gobnilp_py.scoring.table import ScoreTable  # noqa: E402
from gobnilp_py.solve.learn import learn  # noqa: E402


def full_table(n: int) -> ScoreTable:
    """Every parent set of every node (scores irrelevant here)."""
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        fams.append([(ps, -float(len(ps))) for r in range(n) for ps in itertools.combinations(others, r)])
    return ScoreTable([f"V{i}" for i in range(n)], fams)


@pytest.mark.parametrize("n", [4, 5])
def test_every_dag_satisfies_every_k_cluster_inequality(n):
    table = full_table(n)
    index = FamilyIndex.from_table(table)
    where = {(int(index.child[f]), tuple(index.parents[f])): f for f in range(index.F)}
    clusters = [c for r in range(2, n + 1) for c in itertools.combinations(range(n), r)]
    rows = {(c, k): np.isin(np.arange(index.F), cl.counted_families(index, c, k))
            for c in clusters for k in range(1, len(c))}
    checked = 0
    for dag in all_dags(n):
        x = np.zeros(index.F)
        x[[where[(v, tuple(sorted(ps)))] for v, ps in enumerate(dag)]] = 1.0
        for (c, k), row in rows.items():
            assert x[row].sum() <= len(c) - k + 1e-12, (dag, c, k)
        checked += 1
    assert checked == {4: 543, 5: 29281}[n]


def _half_point(index: FamilyIndex) -> np.ndarray:
    """Each of 4 nodes takes the other three as parents with value 1/2, the empty set with 1/2."""
    x = np.zeros(index.F)
    for f in range(index.F):
        if len(index.parents[f]) in (0, 3):
            x[f] = 0.5
    return x


def test_k_cluster_cuts_separate_a_point_no_cluster_cut_separates():
    table = ScoreTable([f"V{i}" for i in range(4)],
                       [[((), -1.0), (tuple(u for u in range(4) if u != v), 0.0)] for v in range(4)])
    index = FamilyIndex.from_table(table)
    x = _half_point(index)
    for r in range(2, 5):
        for c in itertools.combinations(range(4), r):
            assert cl.cluster_violation(index, x, c) <= 1e-12
    assert cl.enumerate_clusters(index, x, min_violation=1e-3) == []
    two = cl.kcluster_cuts(index, x, 2)
    assert sorted(len(c) for c, _ in two) == [3, 3, 3, 3]
    assert all(v == pytest.approx(0.5) for _, v in two)
    three = cl.kcluster_cuts(index, x, 3)
    assert three == [(frozenset(range(4)), pytest.approx(1.0))]
    # The sub-IP path (exact: it finds a violated cluster iff one exists) finds some of the same ones.
    sub = cl.kcluster_cuts(index, x, 2, max_nodes=0)
    assert sub and {c for c, _ in sub} <= {c for c, _ in two}
    assert max(v for _, v in sub) == pytest.approx(0.5)


def test_learn_adds_k_cluster_cuts_and_stays_optimal_on_the_half_point_table():
    table = ScoreTable([f"V{i}" for i in range(4)],
                       [[((), -1.0), (tuple(u for u in range(4) if u != v), 0.0)] for v in range(4)])
    net = learn(table, model_options={"cycle_cuts": False})
    opt, _ = optimal_dag(table)
    assert net.status == "optimal" and net.score == pytest.approx(opt)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 8), st.integers(2, 8), st.integers(0, 10**6))
def test_learning_with_k_cluster_cuts_everywhere_is_exact(n, k, seed):
    table = random_table(seed, n, k, max_par=4)
    opt, _ = optimal_dag(table)
    net = learn(table, model_options={"kcluster_depth": 10**6, "kcluster_rounds": 10**6, "kcluster_max": 4})
    check_network(net, table, opt)


def test_k_cluster_cuts_fire_and_stay_exact_on_random_tables():
    """The property test above would prove little if the cuts never fired: here they must."""
    fired = 0
    for seed in range(40):
        table = random_table(seed, 7, 8, max_par=4)
        opt, _ = optimal_dag(table)
        net = learn(table, model_options={"kcluster_depth": 10**6, "kcluster_rounds": 10**6,
                                          "kcluster_max": 4, "cycle_cuts": False})
        check_network(net, table, opt)
        fired += net.stats["cuts_kcluster"]
    assert fired > 0
