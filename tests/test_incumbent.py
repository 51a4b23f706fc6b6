"""The ASOBS incumbent shared by the exact engines (issue 16, item 3).

It may be weak; it must be a network of the table (acyclic, one listed family
per node, score = the exact sum), deterministic, and never change an exact
answer: the ILP with and without the warm start, and the order graph with and
without it, give the optimum of the subset-DP oracle; a start the model does
not admit (a structural row) is refused by SCIP and the answer stays right.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, ScoreTable, StructuralConstraints, read_data, score
from gobnilp_py.search.incumbent import (MAX_INCUMBENT_ORDERS, MIN_INCUMBENT_ORDERS, _acyclic, incumbent_orders,
                                         quick_incumbent)
from gobnilp_py.search.order_graph.frontier import order_graph_optimum
from oracle_dp import optimal_dag
from random_problems import random_data
from test_order_graph import random_table

TOL = 1e-9


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 7), ties=st.booleans())
def test_incumbent_is_a_network_of_the_table_and_deterministic(seed: int, n: int, ties: bool) -> None:
    table = random_table(np.random.default_rng(seed), n, ties=ties, density=0.4)
    inc = quick_incumbent(table)
    assert inc is not None
    assert len(inc.chosen) == n and all(0 <= k < len(table.families[v]) for v, k in enumerate(inc.chosen))
    assert _acyclic([table.families[v][k][0] for v, k in enumerate(inc.chosen)])
    assert inc.score == math.fsum(table.families[v][k][1] for v, k in enumerate(inc.chosen))
    opt, _ = optimal_dag(table)
    assert inc.score <= opt + TOL * max(1.0, abs(opt))
    again = quick_incumbent(table)
    assert (again.score, again.chosen) == (inc.score, inc.chosen)


def test_incumbent_on_a_table_without_a_network_is_none() -> None:
    # A and B each only have the other as parent: every choice is the 2-cycle.
    t = ScoreTable(["A", "B"], [[((1,), -1.0)], [((0,), -1.0)]])
    assert quick_incumbent(t) is None


def test_order_budget_depends_on_the_table_only() -> None:
    assert incumbent_orders(5, 10) == MAX_INCUMBENT_ORDERS
    assert incumbent_orders(60, 10**8) == MIN_INCUMBENT_ORDERS
    sizes = [incumbent_orders(30, f) for f in (10, 10**4, 10**5, 10**6, 10**7)]
    assert sizes == sorted(sizes, reverse=True)


def test_acyclic_check_sees_cycles() -> None:
    assert _acyclic([(), (0,), (1,)])
    assert not _acyclic([(2,), (0,), (1,)])
    assert not _acyclic([(1,), (0,), ()])


@pytest.mark.parametrize("seed", range(12))
def test_ilp_warm_start_keeps_the_optimum(seed: int) -> None:
    from gobnilp_py.ilp.engine import optimum

    rng = np.random.default_rng(seed)
    table = random_table(rng, int(rng.integers(4, 8)), density=0.35)
    opt, _ = optimal_dag(table)
    cold = optimum(table, warm_start=False)
    warm = optimum(table, warm_start=True)
    assert cold.status == warm.status == "optimal"
    assert _close(cold.score, opt) and _close(warm.score, opt)
    info = warm.stats["extra"]["warm_start"]
    assert info["accepted"] is True and info["score"] <= opt + TOL * abs(opt)
    assert "warm_start" not in cold.stats["extra"]
    assert "warm_start" not in optimum(table).stats["extra"]  # off by default (measured; see the engine)


def test_ilp_warm_start_refused_by_a_structural_row() -> None:
    """max_edges=0 is a row, not a filter: the ASOBS network (it has arrows) is infeasible and SCIP refuses it."""
    from gobnilp_py.ilp.engine import optimum

    data = read_data(random_data(np.random.default_rng(5), 5, 300))
    table = score(data, score="BIC", prune=False)
    inc = quick_incumbent(table)
    assert inc is not None and any(table.families[v][k][0] for v, k in enumerate(inc.chosen))
    cons = StructuralConstraints(max_edges=0)
    sol = optimum(table, constraints=cons, warm_start=True)
    empty = math.fsum(s for fams in table.families for ps, s in fams if not ps)
    assert sol.status == "optimal" and _close(sol.score, empty)
    # (SCIP may "accept" the start here: presolve fixes every non-empty family to 0, and the values
    # it cannot set follow from the fixings, i.e. the empty network.  Refusal is tested below.)


def test_start_heuristic_refuses_a_cycle() -> None:
    """A cyclic start that scores above the optimum must be refused, or the answer would be wrong."""
    from gobnilp_py.ilp.engine import _optimize, solution_from_model
    from gobnilp_py.ilp.heuristic import add_start_heuristic
    from gobnilp_py.ilp.model import build_model

    t = ScoreTable(["A", "B", "C"], [[((1,), -1.0), ((), -5.0)], [((0,), -1.0), ((), -5.0)],
                                     [((0, 1), -1.0), ((), -2.0)]])
    fm = build_model(t, heuristic=False)
    add_start_heuristic(fm, (0, 0, 0))  # A <- B, B <- A: a 2-cycle scoring -3 > the optimum -7
    _optimize(fm.model, "test")
    sol = solution_from_model(fm)
    assert fm.stats.extra["warm_start"]["accepted"] is False
    assert sol.status == "optimal" and _close(sol.score, -7.0)


@pytest.mark.parametrize("seed", range(6))
def test_global_gap_with_the_asobs_bound_keeps_every_credible_family(seed: int) -> None:
    """lower_bound="auto" (now possibly the ASOBS score): the optimum and its families survive the rule."""
    rng = np.random.default_rng(100 + seed)
    data = read_data(random_data(rng, 6, int(rng.integers(40, 300))))
    eps = float(rng.uniform(0.0, 3.0))
    plain = score(data, score="BIC", epsilon=eps)
    gapped = score(data, score="BIC", epsilon=eps, lower_bound="auto")
    opt_plain, parents = optimal_dag(plain)
    opt_gap, _ = optimal_dag(gapped)
    assert _close(opt_plain, opt_gap)
    lb = gapped.meta["lower_bound"]
    assert lb <= opt_plain + TOL * abs(opt_plain)
    for v, ps in enumerate(parents):
        assert any(q == ps for q, _ in gapped.families[v])


def test_order_graph_uses_the_better_start() -> None:
    table = random_table(np.random.default_rng(11), 9, density=0.3)
    r = order_graph_optimum(table, incumbent_search=True)
    plain = order_graph_optimum(table, incumbent_search=False)
    assert r.status == plain.status == "optimal" and r.score == plain.score
    assert r.lower_bound == max(r.stats["heuristic_score"], r.stats["asobs_score"])
    # "auto" (the default) leaves small problems to the greedy start alone
    small = order_graph_optimum(table)
    assert "asobs_score" not in small.stats and small.lower_bound == plain.lower_bound
    with pytest.raises(ScoreError, match="incumbent_search"):
        order_graph_optimum(table, incumbent_search="yes")


def test_order_graph_auto_runs_the_incumbent_from_20_variables() -> None:
    from gobnilp_py.search.order_graph.frontier import INCUMBENT_MIN_VARIABLES

    rng = np.random.default_rng(2)
    n = INCUMBENT_MIN_VARIABLES
    fams = [[((), -10.0)] + [((int(u),), -10.0 + float(rng.uniform(-1, 2))) for u in rng.choice(
        [w for w in range(n) if w != v], 2, replace=False)] for v in range(n)]
    table = ScoreTable([f"V{i}" for i in range(n)], fams)
    r = order_graph_optimum(table)
    assert "asobs_score" in r.stats and r.lower_bound >= r.stats["heuristic_score"]
    assert r.status == "optimal" and r.score >= r.lower_bound - 1e-9 * abs(r.score)


def test_the_driver_passes_the_ilp_warm_start_and_refuses_it_elsewhere() -> None:
    from gobnilp_py import ParameterError, learn

    table = random_table(np.random.default_rng(21), 6, density=0.4)
    net = learn(table, method="ilp", engine_options={"warm_start": True})
    assert net.status == "optimal" and net.stats["extra"]["warm_start"]["accepted"] is True
    assert _close(net.score, optimal_dag(table)[0])
    with pytest.raises(ParameterError, match="warm_start"):
        learn(table, method="ordergraph", engine_options={"warm_start": True})
