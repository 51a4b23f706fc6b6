"""``learn`` checks SCIP's answer instead of trusting it.

The re-solve k-best baseline once got back from SCIP a network its own
nogood excluded (docs/kbest.md); ``learn`` therefore re-checks every returned
network against the structural constraints.  Here SCIP's answer is replaced
by one that breaks a constraint, and ``learn`` must refuse it loudly.
"""

from __future__ import annotations

import pytest

from gobnilp_py import ScoreTable, SolverError, StructuralConstraints, learn
import gobnilp_py.ilp.engine as ilp_engine
from gobnilp_py.search.results import Solution


def _table() -> ScoreTable:
    return ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -2.0), ((0,), -1.0)]])


def test_a_returned_network_breaking_a_constraint_is_refused(monkeypatch):
    cons = StructuralConstraints(max_edges=0)  # a row of the ILP, not a table filter
    honest = learn(_table(), constraints=cons, method="ilp")
    assert honest.status == "optimal" and honest.n_edges == 0

    def wrong_answer(table, **kwargs):
        # A <- {B} (position 0 of A's families, best first) and B <- {} (position 1): one arrow
        return Solution("optimal", -4.0, (0, 1), dual_bound=-4.0)

    monkeypatch.setattr(ilp_engine, "optimum", wrong_answer)
    with pytest.raises(SolverError, match="max_edges"):
        learn(_table(), constraints=cons, method="ilp")


def test_without_constraints_a_correct_answer_passes():
    assert learn(_table()).status == "optimal"
