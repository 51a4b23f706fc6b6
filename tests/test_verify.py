"""``verify=True``: which second method checks, what a disagreement does, and what a time limit does.

The second method is an exact method other than the one that ran, the lattice-bounded
ones (order graph, subset DP) first while the problem is small enough for them: on
mushroom the ILP did not prove in 300 s what the order graph proved in 0.7 s.  A
cross-check cut short by the caller's time limit leaves the first method's answer,
labelled not verified; a disagreement is an error.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from gobnilp_py import ScoreTable, SolverError, enumerate_networks, learn
from gobnilp_py.cli import main
from gobnilp_py.cli._results import method_line
from gobnilp_py.data import Dataset
from gobnilp_py.search import subset_dp
from gobnilp_py.search.results import Solution
from gobnilp_py.solve.verify import second_methods, verify_collection, verify_optimum


def _table(n: int = 5, seed: int = 7) -> ScoreTable:
    """Every variable may take any one other variable as its parent; random scores."""
    rng = np.random.default_rng(seed)
    fams = []
    for v in range(n):
        rows = [((), float(rng.normal(-10, 1)))]
        rows += [((u,), float(rng.normal(-9, 1))) for u in range(n) if u != v]
        fams.append(rows)
    return ScoreTable([f"V{i}" for i in range(n)], fams)


def _names(ms):
    return [m.name for m in ms]


def test_the_lattice_methods_check_first_while_the_problem_is_small():
    none = frozenset()
    assert _names(second_methods("ordergraph", "optimum", 14, none)) == ["dp", "ilp"]
    assert _names(second_methods("ilp", "optimum", 14, none)) == ["ordergraph", "dp"]
    assert _names(second_methods("dp", "optimum", 14, none)) == ["ordergraph", "ilp"]
    assert _names(second_methods("ordergraph", "epsilon_set", 14, none)) == ["ilp"]
    # past a method's own limit it is not offered (dp: 24 variables, the order graph: 30)
    assert _names(second_methods("dp", "optimum", 24, none)) == ["ordergraph", "ilp"]
    assert _names(second_methods("ordergraph", "optimum", 25, none)) == ["ilp"]
    assert _names(second_methods("ilp", "optimum", 28, none)) == ["ordergraph"]
    assert _names(second_methods("ilp", "optimum", 31, none)) == []
    # constraints only the ILP honours leave nothing to check an ILP answer with
    assert _names(second_methods("ilp", "optimum", 5, frozenset({"max_edges"}))) == []
    assert _names(second_methods("ordergraph", "optimum", 5, frozenset({"max_edges"}))) == ["ilp"]


def test_learn_verified_by_the_subset_dp_after_the_order_graph():
    t = _table()
    net = learn(t, method="ordergraph", verify=True)
    assert net.status == "optimal" and net.stats["verified_by"] == "dp"
    assert "verification" not in net.stats and not any("not verified" in c for c in net.caveats)
    assert method_line(net).endswith("; verified by dp")


def test_a_disagreement_is_an_error(monkeypatch):
    t = _table()
    real = subset_dp.optimum

    def off_by_one(table, **kw):
        sol = real(table, **kw)
        return Solution(sol.status, sol.score - 1.0, sol.chosen, stats=sol.stats)

    monkeypatch.setattr(subset_dp, "optimum", off_by_one)
    with pytest.raises(SolverError, match=r"verification failed: method 'ordergraph' found .* method 'dp' found"):
        learn(t, method="ordergraph", verify=True)


def test_a_cross_check_stopped_by_the_time_limit_labels_the_answer_not_verified(monkeypatch):
    t = _table()
    seen = {}

    def stopped(table, *, time_limit=None, **kw):
        seen["time_limit"] = time_limit
        return Solution("time_limit", -math.inf, None)

    monkeypatch.setattr(subset_dp, "optimum", stopped)
    net = learn(t, method="ordergraph", verify=True, time_limit=60)
    assert net.status == "optimal"                    # what the order graph proved stands
    assert "verified_by" not in net.stats
    assert net.stats["verification"].startswith("incomplete: dp stopped (time_limit)")
    assert any(c.startswith("not verified: dp stopped (time_limit)") for c in net.caveats)
    assert 0 < seen["time_limit"] <= 60               # the second method got what was left of the call's limit
    assert method_line(net).endswith("; not verified")
    # without a limit the second method is given none
    monkeypatch.setattr(subset_dp, "optimum", lambda table, **kw: seen.update(kw) or Solution("time_limit", -math.inf,
                                                                                                None))
    seen.clear()
    learn(t, method="ordergraph", verify=True)
    assert seen["time_limit"] is None


def test_no_time_left_for_the_cross_check():
    t = _table()
    net = learn(t, method="ordergraph")
    verify_optimum(net, t, None, "ordergraph", frozenset(), deadline=time.perf_counter() - 1)
    assert "verified_by" not in net.stats
    assert any("time limit was reached before dp" in c for c in net.caveats)
    cs = enumerate_networks(t, bayes_factor=3, method="ordergraph")
    n_caveats = len(cs.caveats)
    verify_collection(cs, t, None, "ordergraph", frozenset(), cs.epsilon, deadline=time.perf_counter() - 1)
    assert len(cs.caveats) == n_caveats + 1 and "time limit was reached before ilp" in cs.caveats[-1]
    assert cs.complete and cs.stats["verification"].startswith("incomplete:")


def test_a_method_that_refuses_the_problem_is_passed_over():
    """The subset DP refuses a memory budget its estimate exceeds; the ILP checks instead."""
    t = _table()
    net = learn(t, method="ordergraph")
    verify_optimum(net, t, None, "ordergraph", frozenset(), memory_budget=1)
    assert net.stats["verified_by"] == "ilp"


def test_nothing_left_to_check_with_is_an_error():
    t = _table()
    with pytest.raises(SolverError, match="verification impossible: no second exact method can solve this problem "
                                          "besides 'ilp'"):
        learn(t, method="ilp", constraints={"max_edges": 3}, verify=True)


def test_collections_verified_and_time_limited(monkeypatch):
    t = _table(6, seed=3)
    cs = enumerate_networks(t, bayes_factor=20, method="ordergraph", verify=True)
    assert cs.complete and cs.stats["verified_by"] == "ilp" and len(cs) > 1
    from gobnilp_py.ilp import engine as ilp_engine

    monkeypatch.setattr(ilp_engine, "epsilon_set", _cut_short)
    cs = enumerate_networks(t, bayes_factor=20, method="ordergraph", verify=True, time_limit=60)
    assert cs.complete and "verified_by" not in cs.stats
    assert cs.caveats[-1].startswith("not verified: ilp stopped (time_limit) before collecting every network")


def _cut_short(table, **kw):
    from gobnilp_py.search.results import Collection

    return Collection([], "time_limit")


def test_learn_with_constant_columns_verifies_the_searched_core():
    """The second method checks the core the first searched (constants isolated) against the core's
    optimum, not against the widened network's score: with a constant whose empty family scores -5
    (hand-made; a real constant scores 0) the two differ by 5."""
    from gobnilp_py.scoring.constants import isolated_core
    from gobnilp_py.scoring.table import ISOLATED_CONSTANTS_KEY

    t = ScoreTable(["A", "B", "K"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)], [((), -5.0)]],
                   meta={ISOLATED_CONSTANTS_KEY: ["K"]})
    net = learn(t, method="ordergraph", verify=True)
    assert net.status == "optimal" and net.score == -8.0 and net.stats["verified_by"] == "dp"
    assert net.stats["isolated_constants"] == ["K"]
    core = isolated_core(t)
    with pytest.raises(SolverError, match="verification failed"):   # the widened score is not the core's optimum
        verify_optimum(learn(t, method="ordergraph"), core.table, None, "ordergraph", frozenset())
    # and from data: a real constant column
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 2, size=(60, 5))
    codes[:, 2] = 0
    ds = Dataset([f"V{i}" for i in range(5)], [2, 2, 1, 2, 2], codes)
    net = learn(ds, method="ordergraph", verify=True)
    assert net.status == "optimal" and net.stats["verified_by"] == "dp" and net.stats["isolated_constants"] == ["V2"]


def test_cli_json_and_report_say_not_verified(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(subset_dp, "optimum", lambda table, **kw: Solution("time_limit", -math.inf, None))
    path = tmp_path / "t.jkl"
    _table().to_jkl(path)
    code = main(["learn", str(path), "--method", "ordergraph", "--verify", "--time-limit", "60", "--json"])
    out, _ = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and d["verified_by"] is None and d["verification"].startswith("incomplete: dp stopped")
    code = main(["learn", str(path), "--method", "ordergraph", "--verify", "--time-limit", "60"])
    out, _ = capsys.readouterr()
    assert code == 0 and "# not verified: dp stopped (time_limit)" in out and "; not verified" in out


def test_under_an_order_a_cross_check_cut_short_is_labelled(monkeypatch):
    """The fixed-order answers are checked by the unordered search with the order as tiers; when that
    stops at the time limit the answer stands, labelled not verified."""
    import sys

    from gobnilp_py.network import Network

    t = _table()
    order = list(t.names)
    net = learn(t, order=order, verify=True, time_limit=60)
    assert "tiers" in net.stats["verified_by"]
    learn_module = sys.modules["gobnilp_py.solve.learn"]
    seen = {}

    def stopped(source, **kw):
        seen.update(kw)
        return Network(t.names, {}, score=-math.inf, status="time_limit")

    monkeypatch.setattr(learn_module, "learn", stopped)      # what the cross-check imports; ``learn`` here is unchanged
    net = learn(t, order=order, verify=True, time_limit=60)
    assert net.status == "optimal" and "verified_by" not in net.stats and 0 < seen["time_limit"] <= 60
    assert net.caveats[-1].startswith("not verified: the cross-check (the order as tiers constraints")


def test_the_order_graphs_memory_limit_is_a_check_cut_short_not_a_disagreement(monkeypatch):
    from gobnilp_py.search import order_graph as order_engine
    from gobnilp_py.search.results import Collection

    t = _table(6, seed=3)
    opt = learn(t).score
    monkeypatch.setattr(order_engine, "epsilon_set", lambda table, **kw: Collection([], "memory_limit"))
    monkeypatch.setattr(order_engine, "optimum", lambda table, **kw: Solution("optimal", opt, None))
    cs = enumerate_networks(t, bayes_factor=20, method="ilp", by="dag", verify=True)
    assert cs.complete and "verified_by" not in cs.stats
    assert cs.caveats[-1].startswith("not verified: ordergraph stopped (memory_limit) before collecting every network")


def test_under_an_order_the_order_graphs_memory_limit_labels_the_set_not_verified(monkeypatch):
    from gobnilp_py.search import order_graph as order_engine
    from gobnilp_py.search.results import Collection

    t = _table()
    cs = enumerate_networks(t, bayes_factor=3, order=list(t.names), verify=True)
    assert cs.complete and "tiers" in cs.stats["verified_by"]
    monkeypatch.setattr(order_engine, "epsilon_set", lambda table, **kw: Collection([], "memory_limit"))
    cs = enumerate_networks(t, bayes_factor=3, order=list(t.names), verify=True)
    assert cs.complete and "verified_by" not in cs.stats
    assert cs.caveats[-1].startswith("not verified: the cross-check (the order as tiers constraints")


def test_the_second_collection_reuses_its_own_optimums_lookups(monkeypatch):
    """After the ILP, the order graph re-collects with the lookups of its own optimum search (one copy)."""
    from gobnilp_py.search import order_graph as order_engine

    seen = []
    real = order_engine.epsilon_set
    monkeypatch.setattr(order_engine, "epsilon_set", lambda table, **kw: seen.append(kw.get("reuse")) or real(table, **kw))
    t = _table(6, seed=3)
    cs = enumerate_networks(t, bayes_factor=20, method="ilp", by="dag", verify=True)
    assert cs.stats["verified_by"] == "ordergraph" and seen and seen[0] is not None and seen[0].table is t
