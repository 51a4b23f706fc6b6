"""Structural constraints as linear rows of the family-variable ILP.

:class:`~gobnilp_py.constraints.structural.StructuralConstraints` is engine-free:
its ``filter_table`` removes the families no admissible network can use, which
every engine honours.  What deleting families cannot express (adjacencies,
arrow counts, immoralities) becomes linear constraints here, for the ILP
engine only; the method registry (:mod:`gobnilp_py.solve.methods`) refuses those
constraint kinds for engines that cannot honour them.
"""

from __future__ import annotations

import logging
from typing import Any

from pyscipopt import quicksum

from ..constraints.structural import StructuralConstraints, constraint_row_name
from ..errors import ConstraintError

__all__ = ["add_structural_rows"]

logger = logging.getLogger(__name__)


def add_structural_rows(cons: StructuralConstraints, fm: Any) -> list[Any]:
    """Add linear constraints over the family variables ``fm.x`` to ``fm.model``.

    ``fm`` needs ``model`` (a :class:`pyscipopt.Model`), ``table`` (the
    :class:`ScoreTable` the variables were built from) and ``x``
    (``x[i][k]`` is the binary variable of ``table.families[i][k]``).
    Each node choosing exactly one family is the builder's job.

    Constraints (``I(v<-W)`` is the family variable; ``A(a,b)`` =
    ``sum_{W∋a} I(b<-W) + sum_{W∋b} I(a<-W)`` is 1 iff a and b are adjacent
    in an acyclic solution):

    * required arrow ``u->v``: ``sum_{W∋u} I(v<-W) == 1``;
    * required adjacency ``a-b``: ``A(a,b) == 1``;
    * ``min_edges`` / ``max_edges``: ``sum |W| I(v<-W)`` ``>=`` / ``<=``;
    * required immorality ``x->z<-y``: ``sum_{W∋x,y} I(z<-W) == 1`` and ``A(x,y) == 0``;
    * forbidden immorality ``x->z<-y``: ``sum_{W∋x,y} I(z<-W) <= A(x,y)``.

    Constraints already enforced by :meth:`StructuralConstraints.filter_table` are still added
    (they are then trivially satisfied, and SCIP presolve removes them),
    so the model is right even on an unfiltered table.  Returns the list
    of constraints added.
    """
    model, table, x = fm.model, fm.table, fm.x
    cons.validate(table.names)
    idx = {v: i for i, v in enumerate(table.names)}
    added: list[Any] = []

    # containing[i][p]: positions k of i's families whose parent set holds p,
    # so each constraint costs O(families involved), not O(table).
    containing: list[dict[int, list[int]]] = []
    for fams in table.families:
        d: dict[int, list[int]] = {}
        for k, (ps, _) in enumerate(fams):
            for p in ps:
                d.setdefault(p, []).append(k)
        containing.append(d)

    def having(child: int, *members: int) -> list[Any]:
        ks = containing[child].get(members[0], [])
        if len(members) > 1:
            rest = [set(containing[child].get(m, ())) for m in members[1:]]
            ks = [k for k in ks if all(k in r for r in rest)]
        return [x[child][k] for k in ks]

    def adjacency(a: int, b: int) -> list[Any]:
        return having(b, a) + having(a, b)

    def add(lhs_terms: list[Any], sense: str, rhs: list[Any] | int, name: str) -> None:
        rhs_expr: Any = rhs if isinstance(rhs, int) else (quicksum(rhs) if rhs else 0)
        if not lhs_terms and isinstance(rhs_expr, int):
            if {"==": 0 == rhs_expr, "<=": 0 <= rhs_expr, ">=": 0 >= rhs_expr}[sense]:
                return  # nothing to constrain
            # No candidate family can meet it: say which constraint, rather
            # than hand the solver an empty row.
            raise ConstraintError(f"{name} cannot be met: no candidate family in the score table allows it")
        if not lhs_terms:
            return  # 0 <= a sum of binaries always holds (forbidden immorality never possible)
        lhs = quicksum(lhs_terms)
        if sense == "==":
            expr = lhs == rhs_expr
        elif sense == "<=":
            expr = lhs - rhs_expr <= 0
        else:
            expr = lhs >= rhs_expr
        added.append(model.addCons(expr, name=constraint_row_name(name)))

    for u, v in cons.required_arrows:
        add(having(idx[v], idx[u]), "==", 1, f"required_arrow({u}->{v})")
    for a, b in cons.required_adjacencies:
        add(adjacency(idx[a], idx[b]), "==", 1, f"required_adjacency({a}-{b})")
    if cons.min_edges or cons.max_edges is not None:
        terms = [len(ps) * x[i][k] for i, fams in enumerate(table.families)
                 for k, (ps, _) in enumerate(fams) if ps]
        if cons.min_edges:
            add(terms, ">=", cons.min_edges, "min_edges")
        if cons.max_edges is not None:
            add(terms, "<=", cons.max_edges, "max_edges")
    for a, z, b in cons.required_immoralities:
        ia, iz, ib = idx[a], idx[z], idx[b]
        add(having(iz, ia, ib), "==", 1, f"required_immorality({a}->{z}<-{b})")
        add(adjacency(ia, ib), "==", 0, f"required_immorality_nonadjacent({a}-{b})")
    for a, z, b in cons.forbidden_immoralities:
        ia, iz, ib = idx[a], idx[z], idx[b]
        add(having(iz, ia, ib), "<=", adjacency(ia, ib), f"forbidden_immorality({a}->{z}<-{b})")
    if added:
        logger.debug("added %d structural constraints to the model", len(added))
    return added
