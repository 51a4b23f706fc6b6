"""The method registry and the drivers' dispatch: capabilities, refusals, ``auto``, labels, lazy SCIP."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gobnilp_py import ParameterError, ScoreTable, enumerate_networks, kbest, learn, method_names
from gobnilp_py.solve.methods import METHODS, TASKS, check_method, choose_method, get_method


def _table() -> ScoreTable:
    return ScoreTable(["A", "B", "C"], [
        [((), -5.0), ((1,), -4.0), ((1, 2), -3.5)],
        [((), -3.0), ((0,), -2.5)],
        [((), -4.0), ((0,), -3.0), ((1,), -3.2)],
    ])


def test_import_does_not_load_scip():
    code = "import sys, gobnilp_py; gobnilp_py.method_names(); print('pyscipopt' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_method_declares_known_tasks_and_a_module():
    for m in METHODS.values():
        assert m.tasks and m.tasks <= set(TASKS)
        assert m.module.startswith("gobnilp_py.")
    assert method_names()[0] == "auto"
    assert "resolve" in method_names("kbest") and "resolve" not in method_names("epsilon_set")


def test_unknown_method_suggests_the_nearest():
    with pytest.raises(ParameterError, match=r'method must be one of .* got "ilpp" \(did you mean "ilp"\?\)'):
        learn(_table(), method="ilpp")


def test_method_that_cannot_do_the_task_is_refused_with_the_alternatives():
    with pytest.raises(ParameterError, match='method "resolve" cannot compute an optimal network; methods that can: '):
        learn(_table(), method="resolve")
    with pytest.raises(ParameterError, match="cannot compute every network within a Bayes factor"):
        enumerate_networks(_table(), bayes_factor=3, method="dp")


def test_constraint_a_method_cannot_honour_is_named():
    cons = {"required_adjacencies": [("A", "C")]}
    with pytest.raises(ParameterError, match="method 'dp' cannot honour the structural constraint "
                                          "required_adjacencies; methods that can: ilp"):
        learn(_table(), method="dp", constraints=cons)
    # filterable constraints are honoured by every method, through the filtered table
    a = learn(_table(), method="dp", constraints={"forbidden_arrows": [("B", "A")]})
    b = learn(_table(), method="ilp", constraints={"forbidden_arrows": [("B", "A")]})
    assert a.score == b.score and "B" not in a.parents["A"]


def test_method_option_for_another_engine_is_refused():
    with pytest.raises(ParameterError, match=r'^params does not apply to method "dp" \(only to ilp\)$'):
        learn(_table(), method="dp", params={"limits/nodes": 10})
    with pytest.raises(ParameterError, match=r'^memory_budget does not apply to method "ilp" \(only to ordergraph, dp\)$'):
        learn(_table(), method="ilp", memory_budget=10**9)


def test_auto_records_its_choice_and_reason_and_follows_engine_options():
    net = learn(_table())
    assert net.stats["method"] in METHODS and net.stats["method_reason"]
    net = learn(_table(), params={"limits/nodes": 1000})
    assert net.stats["method"] == "ilp"  # SCIP parameters: only the ILP can use them
    cs = enumerate_networks(_table(), bayes_factor=3)
    assert cs.method in METHODS and cs.stats["method_reason"]


def test_choose_method_prefers_ilp_for_many_variables_or_ilp_only_constraints():
    assert choose_method("optimum", 60, frozenset(), 1000)[0] == "ilp"
    assert choose_method("optimum", 8, frozenset({"max_edges"}), 100)[0] == "ilp"


def test_check_method_limits():
    with pytest.raises(ParameterError, match="handles at most 24 variables"):
        check_method(get_method("dp"), "optimum", 30, frozenset())


@pytest.mark.parametrize("method", ["ilp", "dp"])
def test_the_exact_methods_agree_and_verify(method):
    rng = np.random.default_rng(7)
    names = [f"V{i}" for i in range(5)]
    fams = []
    for v in range(5):
        others = [u for u in range(5) if u != v]
        rows = [((), float(rng.normal(-10, 1)))]
        for u in others:
            rows.append(((u,), float(rng.normal(-9, 1))))
        fams.append(rows)
    table = ScoreTable(names, fams)
    net = learn(table, method=method, verify=True)
    assert net.status == "optimal" and net.stats["verified_by"] != method
    assert [n.key for n in kbest(table, 7, method=method)] == [n.key for n in kbest(table, 7, method="resolve")]


def test_infeasible_constraints_are_an_answer_in_every_driver():
    cons = {"required_adjacencies": [("A", "B")], "max_edges": 0}
    net = learn(_table(), constraints=cons)
    assert net.status == "infeasible"
    cs = enumerate_networks(_table(), bayes_factor=3, constraints=cons)
    assert cs.infeasible and len(cs) == 0 and cs.guarantee.startswith("INFEASIBLE")
    ks = kbest(_table(), 3, constraints=cons)
    assert ks.infeasible and len(ks) == 0
    # infeasible by filtering alone: every candidate family of A has the forbidden parent B
    only_with_b = ScoreTable(["A", "B"], [[((1,), -1.0)], [((), -1.0)]])
    for method in ("ilp", "dp"):
        net = learn(only_with_b, method=method, constraints={"forbidden_arrows": [("B", "A")]})
        assert net.status == "infeasible" and net.stats["method"] == method


def test_table_of_unknown_pruning_is_labelled_and_smaller_gap_refused():
    from gobnilp_py import ScoreError

    cs = enumerate_networks(_table(), bayes_factor=3)
    assert cs.complete and any("does not record how it was pruned" in c for c in cs.caveats)
    t = _table()
    t.epsilon = 0.5
    with pytest.raises(ScoreError, match="pruned for epsilon=0.5"):
        enumerate_networks(t, bayes_factor=20)
    assert enumerate_networks(t, epsilon=0.5).caveats == []
