"""``learn`` checks SCIP's answer instead of trusting it.

The re-solve k-best baseline once got back from SCIP a network its own
nogood excluded (docs/kbest.md); ``learn`` therefore re-checks every returned
network against the structural constraints.  Here SCIP's answer is replaced
by one that breaks a constraint, and ``learn`` must refuse it loudly.
"""

from __future__ import annotations

import pytest

from gobnilp_py import Network, ScoreTable, SolverError, StructuralConstraints, learn
import gobnilp_py.solve.learn as learn_module


def _table() -> ScoreTable:
    return ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -2.0), ((0,), -1.0)]])


def test_a_returned_network_breaking_a_constraint_is_refused(monkeypatch):
    cons = StructuralConstraints(forbidden_arrows=[("A", "B")])
    honest = learn(_table(), constraints=cons)
    assert honest.status == "optimal" and "A" not in honest.parents["B"]

    def wrong_answer(fm):
        return Network(["A", "B"], {"A": (), "B": ("A",)}, -4.0, status="optimal")

    monkeypatch.setattr(learn_module, "network_from_model", wrong_answer)
    with pytest.raises(SolverError, match="forbidden arrow A->B"):
        learn(_table(), constraints=cons)


def test_without_constraints_a_correct_answer_passes():
    assert learn(_table()).status == "optimal"
