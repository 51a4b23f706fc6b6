"""Four-node cuts (:mod:`gobnilp_py.ilp.four_node`): valid for every DAG, exactly separated, and exact in use.

* validity: every DAG on 4 and 5 nodes satisfies every row (brute force; 4 nodes is the whole proof,
  since a row reads only the parents inside its four nodes, and 5 nodes checks that reading);
* strength: the rows are tight (some DAG meets each with equality) and cut off a point that satisfies
  every cluster inequality, so they are not implied by the cluster cuts;
* separation: :func:`violated_quadruples` returns exactly the rows a brute-force scan over every ordered
  quadruple finds violated, with the same violations;
* exactness: learning and collecting with the cuts (every round, every depth) give the DP oracle's
  optimum and brute force's set.
"""

from __future__ import annotations

import itertools
import math
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

from gobnilp_py.ilp import cluster as cl  # noqa: E402
from gobnilp_py.ilp import four_node as fn  # noqa: E402
from gobnilp_py.search.family_index import FamilyIndex  # noqa: E402
from gobnilp_py.solve.learn import learn  # noqa: E402


def _rows(n: int) -> list[fn.Quadruple]:
    """Every distinct row on ``n`` nodes (6 per 4-set)."""
    return sorted({fn.canonical(*q) for q in itertools.permutations(range(n), 4)})


def _dag_points(n: int):
    table = full_table(n)
    index = FamilyIndex.from_table(table)
    where = {(int(index.child[f]), tuple(index.parents[f])): f for f in range(index.F)}
    for dag in all_dags(n):
        x = np.zeros(index.F)
        x[[where[(v, tuple(sorted(ps)))] for v, ps in enumerate(dag)]] = 1.0
        yield index, dag, x


def test_six_distinct_rows_per_four_set():
    assert len(_rows(4)) == 6
    assert len(_rows(5)) == 6 * 5


@pytest.mark.parametrize("n", [4, 5])
def test_no_dag_breaks_a_four_node_row(n):
    index = FamilyIndex.from_table(full_table(n))
    rows = {q: fn.counted_families(index, q) for q in _rows(n)}
    checked, best = 0, 0.0
    for _, dag, x in _dag_points(n):
        for q, fams in rows.items():
            value = x[fams].sum()
            assert value <= fn.RHS, (dag, q)
            best = max(best, value)
        checked += 1
    assert checked == {4: 543, 5: 29281}[n]
    assert best == fn.RHS


def test_every_row_is_tight_for_some_dag():
    index = FamilyIndex.from_table(full_table(4))
    rows = {q: fn.counted_families(index, q) for q in _rows(4)}
    tight = {q for _, _, x in _dag_points(4) for q, fams in rows.items() if x[fams].sum() == fn.RHS}
    assert tight == set(rows)


def test_counted_families_follow_the_definition():
    index = FamilyIndex.from_table(full_table(4))
    a, b, c, d = 0, 1, 2, 3
    got = {(int(index.child[f]), tuple(index.parents[f])) for f in fn.counted_families(index, (a, b, c, d))}
    assert (b, (c,)) in got and (c, (b,)) in got            # one-parent families of the middles count
    assert (b, (a, d)) in got and (b, (a,)) not in got        # a middle with both ends, not with one
    assert (a, (b, d)) in got and (a, (d,)) not in got        # an end with the other end and a middle
    assert (d, (a, c)) in got and (d, (b, c)) not in got
    assert all(len(ps) > 0 for _, ps in got)


def test_the_rows_are_not_implied_by_the_cluster_inequalities():
    """An LP over the four-node polytope's relaxation by every cluster and k-cluster row exceeds 2.

    So the row cuts off points the cluster cuts (even the k-cluster cuts) leave: it is a new family, not
    a rewording.  The LP's optimal point is then found violated by the separation.
    """
    from scipy.optimize import linprog

    index = FamilyIndex.from_table(full_table(4))
    quad = (0, 1, 2, 3)
    c = np.zeros(index.F)
    c[fn.counted_families(index, quad)] = -1.0
    rows, rhs = [], []
    for r in range(2, 5):
        for cluster in itertools.combinations(range(4), r):
            for k in range(1, r):
                row = np.zeros(index.F)
                row[cl.counted_families(index, cluster, k)] = 1.0
                rows.append(row)
                rhs.append(r - k)
    eq = np.zeros((4, index.F))
    for v in range(4):
        eq[v, index.start[v]:index.start[v + 1]] = 1.0
    lp = linprog(c, A_ub=np.array(rows), b_ub=rhs, A_eq=eq, b_eq=np.ones(4), bounds=(0, 1), method="highs")
    assert lp.status == 0
    assert -lp.fun > fn.RHS + 0.1
    found = fn.violated_quadruples(index, lp.x, min_violation=0.05)
    assert quad in [q for _, q in found]


def _random_point(rng: np.random.Generator, index: FamilyIndex) -> np.ndarray:
    """A point on the convexity rows: a few families per node with Dirichlet weights."""
    x = np.zeros(index.F)
    for v in range(index.n):
        lo, hi = int(index.start[v]), int(index.start[v + 1])
        k = int(rng.integers(1, min(4, hi - lo) + 1))
        fams = rng.choice(np.arange(lo, hi), size=k, replace=False)
        x[fams] = rng.dirichlet(np.ones(k) * 0.7)
    return x


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 6), st.integers(0, 10**6), st.sampled_from([0.0, 0.01, 0.05, 0.2]))
def test_separation_finds_exactly_the_violated_rows(n, seed, min_violation):
    rng = np.random.default_rng(seed)
    index = FamilyIndex.from_table(full_table(n))
    x = _random_point(rng, index)
    got = fn.violated_quadruples(index, x, min_violation=min_violation, max_cuts=10**9)
    expected = {}
    for q in _rows(n):
        viol = fn.lhs(index, x, q) - fn.RHS
        if viol > min_violation:
            expected[q] = viol
    assert {q for _, q in got} == set(expected)
    for viol, q in got:
        assert viol == pytest.approx(expected[q], abs=1e-9)
    assert [v for v, _ in got] == sorted((v for v, _ in got), reverse=True)


def test_separation_finds_violated_rows_on_random_points():
    """The property above would prove little if no point broke a row: here some must."""
    index = FamilyIndex.from_table(full_table(6))
    rng = np.random.default_rng(7)
    assert sum(bool(fn.violated_quadruples(index, _random_point(rng, index))) for _ in range(50)) > 0


def test_separation_is_capped_most_violated_first():
    index = FamilyIndex.from_table(full_table(6))
    rng = np.random.default_rng(3)
    for _ in range(30):
        x = _random_point(rng, index)
        every = fn.violated_quadruples(index, x, min_violation=0.0, max_cuts=10**9)
        if len(every) > 3:
            assert fn.violated_quadruples(index, x, min_violation=0.0, max_cuts=3) == every[:3]
            return
    pytest.fail("no random point broke more than three rows")


def _learn(table, **options):
    return learn(table, method="ilp", model_options=options)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 8), st.integers(2, 10), st.integers(0, 10**6))
def test_learning_with_four_node_cuts_is_exact(n, k, seed):
    table = random_table(seed, n, k, max_par=3)
    opt, _ = optimal_dag(table)
    check_network(_learn(table, four_node_cuts=True, sepafreq=1), table, opt)
    # With the cluster heuristic off the four-node rows do more of the work; still exact.
    check_network(_learn(table, four_node_cuts=True, cycle_cuts=False, min_violation=0.0), table, opt)
    check_network(_learn(table, four_node_cuts=False), table, opt)
    # Cheap separation (cycles and four-node rows) at every depth, the exact one every 2nd.
    check_network(_learn(table, four_node_cuts=True, light_depths=1, sepafreq=2), table, opt)


def test_four_node_cuts_are_added_on_random_tables():
    """The property above would prove little if no solve added a row."""
    added = 0
    for seed in range(30):
        table = random_table(seed, 8, 10, max_par=3)
        net = _learn(table, four_node_cuts=True, sepafreq=1, cycle_cuts=False, min_violation=0.0)
        check_network(net, table, optimal_dag(table)[0])
        added += net.stats["cuts_four_node"]
    assert added > 0


def test_collection_with_four_node_cuts_equals_brute_force(monkeypatch):
    from random_problems import random_data
    from test_enumerate import assert_same, brute_force

    from gobnilp_py.data import read_data
    from gobnilp_py.ilp import engine
    from gobnilp_py.scoring import score
    from gobnilp_py.solve.collect import enumerate_networks

    # The collecting search's model options, with the rows forced on at every depth and every violation.
    monkeypatch.setattr(engine, "COLLECT_MODEL_OPTIONS", {**engine.COLLECT_MODEL_OPTIONS, "sepafreq": 1,
                                                          "four_node_cuts": True, "min_violation": 0.0})

    for seed in range(6):
        data = read_data(random_data(np.random.default_rng(seed), 5, 60))
        eps = 4.0
        expected = brute_force(score(data, score="BDeu", prune=False), eps)
        for by in ("dag", "class"):
            got = enumerate_networks(data, epsilon=eps, score="BDeu", method="ilp", by=by)
            assert_same(got, expected)


def test_integral_points_get_cycle_cuts_not_four_node_rows():
    """A cyclic integral LP point is cut off by its cycles' cluster cuts; four-node rows are kept for
    fractional points.  Why: on the complete 9-node table (every node first takes all the others) the
    integral point broke all 756 rows, 517 dense rows were added, and one class search took 6 s instead of
    0.1 s (``test_class_deadline`` then missed its 1 s limit)."""
    from test_class_deadline import _complete_graph_table

    table = _complete_graph_table(7)
    net = _learn(table)
    assert net.status == "optimal" and net.n_edges == 21
    assert net.stats["cuts_four_node"] == 0
