"""The sink heuristic (a SCIP ``Heur``): round an LP point to a DAG by choosing sinks last-to-first.

A node placed as a sink may only take parents among the nodes not yet placed
(they come earlier in the topological order), so the result is acyclic by
construction.  At each step the next sink is the node whose best still-allowed
parent set has the largest LP value (ties: larger local score), as in GOBNILP.

Because a family's priority (LP value, then score) does not change while the
order is built, each node's families are sorted once and a pointer skips the
families blocked by placed sinks: one pass is ``O(F log F + n^2)``.  The
rounding itself is SCIP-free (:func:`gobnilp_py.search.orders.sink_order` and
:func:`~gobnilp_py.search.orders.best_for_order`); this module is only the glue.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyscipopt
from pyscipopt import SCIP_RESULT

from ..search.family_index import FamilyIndex
from ..search.orders import best_for_order, sink_order
from ._callbacks import TransformedVars
from .stats import SolveStats

if TYPE_CHECKING:  # the model module includes this heuristic: a type-only import keeps the two acyclic
    from .model import FamilyModel

__all__ = ["SinkHeuristic", "StartHeuristic", "add_sink_heuristic", "add_start_heuristic"]

_log = logging.getLogger(__name__)


class SinkHeuristic(TransformedVars, pyscipopt.Heur):
    """SCIP primal heuristic wrapper of :func:`sink_order` on the current LP solution."""

    def __init__(self, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable], stats: SolveStats,
                 derived: Sequence[tuple[pyscipopt.Variable, Sequence[int]]] = (), loop_depth: int = 0) -> None:
        self.index = index
        #: deepest node at which it also runs inside the cut loop (``-1``: every node); deeper, after the node's LP only
        self.loop_depth = int(loop_depth)
        self.xvars = list(xvars)
        self.stats = stats
        # Variables defined as sums of family variables (e.g. arrows): set them too, or trySol fails.
        self.derived = [(v, np.asarray(fams, dtype=np.int64)) for v, fams in derived]

    def heurinitsol(self):
        self.forget_tvars()

    def heurexec(self, heurtiming, nodeinfeasible):
        if (0 <= self.loop_depth < self.model.getDepth()
                and int(heurtiming) & int(pyscipopt.SCIP_HEURTIMING.DURINGLPLOOP)):
            return {"result": SCIP_RESULT.DIDNOTRUN}
        try:
            with self.stats.timer("time_heuristic"):
                self.stats.heuristic_calls += 1
                return {"result": self._run()}
        except Exception:
            _log.exception("error in sink heuristic")
            raise

    def _run(self) -> SCIP_RESULT:
        m = self.model
        tv = self.tvars()
        F = len(tv)
        solving = m.getStage() == pyscipopt.SCIP_STAGE.SOLVING
        has_lp = solving and m.getLPSolstat() == pyscipopt.SCIP_LPSOLSTAT.OPTIMAL
        # Without an LP solution the guidance is all zeros: a greedy-by-score DAG.
        xval = (np.fromiter((v.getLPSol() for v in tv), dtype=np.float64, count=F)
                if has_lp else np.zeros(F))
        allowed = np.fromiter((v.getUbLocal() > 0.5 for v in tv), dtype=bool, count=F)
        fixed1 = np.fromiter((v.getLbLocal() > 0.5 for v in tv), dtype=bool, count=F)
        if fixed1.any():  # a node with a family fixed to 1 may use only that one
            must = np.zeros(self.index.n, dtype=bool)
            must[self.index.child[fixed1]] = True
            allowed &= fixed1 | ~must[self.index.child]
        choice = sink_order(self.index, xval, allowed)
        if choice is None:
            return SCIP_RESULT.DIDNOTFIND
        choice = best_for_order(self.index, choice, allowed)
        if _try_choice(self, tv, self.derived, choice):
            self.stats.heuristic_solutions += 1
            return SCIP_RESULT.FOUNDSOL
        return SCIP_RESULT.DIDNOTFIND


def _try_choice(heur: pyscipopt.Heur, tvars: Sequence[pyscipopt.Variable],
                derived: Sequence[tuple[pyscipopt.Variable, np.ndarray]], choice: np.ndarray) -> bool:
    """Submit the network with flat families ``choice`` through SCIP's ``trySol`` (which checks every constraint).

    A choice using a family whose variable is fixed to 0 at this node (by
    branching or presolve) is not submitted: it cannot be a solution here, and
    SCIP refuses to set a value against a fixing (an error, not a rejection).
    """
    m = heur.model
    if any(tvars[f].getUbLocal() < 0.5 for f in choice.tolist()):
        return False
    sol = m.createSol(heur)
    for f in choice.tolist():
        # Fixed and multi-aggregated variables cannot be set; their value follows from the others.
        if tvars[f].getStatus() not in ("FIXED", "MULTAGGR"):
            m.setSolVal(sol, tvars[f], 1.0)
    if derived:
        on = np.zeros(len(tvars), dtype=bool)
        on[choice] = True
        for v, fams in derived:
            tv_d = m.getTransformedVar(v)
            if tv_d.getStatus() not in ("FIXED", "MULTAGGR"):
                m.setSolVal(sol, tv_d, float(on[fams].sum()))
    return bool(m.trySol(sol, printreason=False))


def add_sink_heuristic(model: pyscipopt.Model, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable],
                       stats: SolveStats, *, freq: int = 1,
                       derived: Sequence[tuple[pyscipopt.Variable, Sequence[int]]] = (),
                       loop_depth: int = 0) -> SinkHeuristic:
    """Include the sink heuristic: after every LP of the cutting-plane loop down to depth ``loop_depth``
    (``-1``: at every depth), and after each node's LP.

    Running it inside the root's cut loop (not only when the root is done)
    gives a good incumbent early, so reduced-cost fixing can remove most
    family variables before the long root loop of larger problems.  Below the
    root the cut loop's calls cost more than they find (hepar2 at 10,000 rows:
    832 calls, 65 solutions, about 15 % of the search; off below the root:
    11.3 -> 9.9 s with the same nodes; docs/solver.md), so by default it runs
    there once per node.
    """
    h = SinkHeuristic(index, xvars, stats, derived, loop_depth)
    model.includeHeur(h, "gobnilp_sinks", "sink-finding rounding of the LP solution to a DAG", "S",
                      priority=100000, freq=freq, freqofs=0, maxdepth=-1,
                      timingmask=pyscipopt.SCIP_HEURTIMING.AFTERLPNODE | pyscipopt.SCIP_HEURTIMING.DURINGLPLOOP)
    return h


class StartHeuristic(pyscipopt.Heur):
    """Offer SCIP one given network (the ASOBS incumbent) once, before the root node is processed.

    A warm start as a heuristic rather than ``Model.addSol`` before
    ``optimize``: ``trySol`` in the solving stage checks the solution against
    every constraint, including the acyclicity handler and structural rows,
    so a network the model does not admit is simply not taken.
    """

    def __init__(self, choice: np.ndarray, xvars: Sequence[pyscipopt.Variable], stats: SolveStats,
                 derived: Sequence[tuple[pyscipopt.Variable, Sequence[int]]] = (), record_as: str = "warm_start") -> None:
        self.choice = np.asarray(choice, dtype=np.int64)
        #: the ``stats.extra`` entry whose ``"accepted"`` says whether SCIP took the network
        self.record_as = record_as
        self.xvars = list(xvars)
        self.stats = stats
        self.derived = [(v, np.asarray(fams, dtype=np.int64)) for v, fams in derived]
        self.done = False

    def heurexec(self, heurtiming, nodeinfeasible):
        if self.done:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        self.done = True
        m = self.model
        tv = [m.getTransformedVar(v) for v in self.xvars]
        ok = _try_choice(self, tv, self.derived, self.choice)
        self.stats.extra.setdefault(self.record_as, {})["accepted"] = ok
        return {"result": SCIP_RESULT.FOUNDSOL if ok else SCIP_RESULT.DIDNOTFIND}


def add_start_heuristic(fm: FamilyModel, chosen: Sequence[int], record_as: str = "warm_start") -> StartHeuristic:
    """Include a :class:`StartHeuristic` for the network ``chosen`` (``chosen[v]`` indexes ``table.families[v]``);
    ``stats.extra[record_as]["accepted"]`` records whether SCIP took it."""
    flat = np.array([fm.index.family(v, k) for v, k in enumerate(chosen)], dtype=np.int64)
    derived = [(a, fams) for (_, _), (a, fams) in fm.extra.get("arrow_families", {}).items()]
    h = StartHeuristic(flat, fm.xflat, fm.stats, derived, record_as)
    fm.model.includeHeur(h, "gobnilp_start", "a given network (ASOBS incumbent) offered once at the root", "S",
                         priority=200000, freq=0, freqofs=0, maxdepth=0,
                         timingmask=pyscipopt.SCIP_HEURTIMING.BEFORENODE)
    return h
