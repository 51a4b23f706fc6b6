"""The sink heuristic: round an LP point to a DAG by choosing sinks last-to-first.

A node placed as a sink may only take parents among the nodes not yet placed
(they come earlier in the topological order), so the result is acyclic by
construction.  At each step the next sink is the node whose best still-allowed
parent set has the largest LP value (ties: larger local score), as in GOBNILP.

Because a family's priority (LP value, then score) does not change while the
order is built, each node's families are sorted once and a pointer skips the
families blocked by placed sinks: one pass is ``O(F log F + n^2)``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pyscipopt
from pyscipopt import SCIP_RESULT

from ..model.index import FamilyIndex
from .stats import SolveStats

__all__ = ["sink_order", "best_for_order", "SinkHeuristic", "add_sink_heuristic"]

_log = logging.getLogger("gobnilp_py")


def sink_order(index: FamilyIndex, xval: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray | None:
    """Choose one family per node forming a DAG, guided by ``xval``.

    Parameters
    ----------
    index : FamilyIndex
    xval : numpy.ndarray, shape (F,)
        Guidance values (LP solution); zeros give a greedy-by-score DAG.
    allowed : numpy.ndarray of bool, shape (F,), optional
        Families that may be used (e.g. upper bound 1).

    Returns
    -------
    numpy.ndarray of int64, shape (n,) or None
        Flat family index chosen for every node, or ``None`` when some node
        has no allowed family avoiding the sinks already placed.
    """
    n = index.n
    F = index.F
    if allowed is None:
        allowed = np.ones(F, dtype=bool)
    # One global order: by child, then LP value desc, then score desc.
    order = np.lexsort((-index.score, -np.round(xval, 9), index.child))
    order = order[allowed[order]]
    bounds = np.searchsorted(index.child[order], np.arange(n + 1))
    ptr = bounds[:-1].copy()
    end = bounds[1:]
    blocked = np.zeros(F, dtype=bool)
    placed = np.zeros(n, dtype=bool)
    choice = np.full(n, -1, dtype=np.int64)
    for _ in range(n):
        best_v, best_key = -1, None
        for v in np.flatnonzero(~placed).tolist():
            p, e = int(ptr[v]), int(end[v])
            while p < e and blocked[order[p]]:
                p += 1
            ptr[v] = p
            if p == e:
                return None
            f = int(order[p])
            key = (round(float(xval[f]), 9), float(index.score[f]))
            if best_key is None or key > best_key:
                best_v, best_key = v, key
        f = int(order[ptr[best_v]])
        choice[best_v] = f
        placed[best_v] = True
        blocked[index.fams_with_parent[best_v]] = True
    return choice


def best_for_order(index: FamilyIndex, choice: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """Polish a DAG: keep its topological order, give every node its best family consistent with it.

    Any family whose parents all precede the child in one fixed order can be
    combined with any other such family into a DAG, so choosing each node's
    best-scoring such family is optimal for that order and never worse than
    ``choice`` (which is consistent with it).  Vectorised: the latest parent
    position of every family, then the first admissible family per node
    (families are stored best score first).
    """
    n = index.n
    parents = [index.parents[f] for f in choice.tolist()]
    # Topological order of the chosen DAG (Kahn): position of each node.
    indeg = np.array([len(p) for p in parents])
    kids: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(parents):
        for p in ps:
            kids[p].append(v)
    stack = [v for v in range(n) if indeg[v] == 0]
    pos = np.empty(n, dtype=np.int64)
    k = 0
    while stack:
        u = stack.pop()
        pos[u] = k
        k += 1
        for c in kids[u]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    if k != n:  # not a DAG: leave it alone (cannot happen for sink_order output)
        return choice
    last = np.full(index.F, -1, dtype=np.int64)
    np.maximum.at(last, index.inc_fam, pos[index.inc_par])
    ok = last < pos[index.child]
    if allowed is not None:
        ok &= allowed
    cand = np.flatnonzero(ok)
    kids_of = index.child[cand]
    first = np.searchsorted(kids_of, np.arange(n))
    better = choice.copy()
    for v in range(n):
        if first[v] < len(cand) and kids_of[first[v]] == v:
            f = int(cand[first[v]])
            if index.score[f] > index.score[better[v]]:
                better[v] = f
    return better


class SinkHeuristic(pyscipopt.Heur):
    """SCIP primal heuristic wrapper of :func:`sink_order` on the current LP solution."""

    def __init__(self, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable], stats: SolveStats,
                 derived: Sequence[tuple[pyscipopt.Variable, Sequence[int]]] = ()) -> None:
        self.index = index
        self.xvars = list(xvars)
        self.stats = stats
        # Variables defined as sums of family variables (e.g. arrows): set them too, or trySol fails.
        self.derived = [(v, np.asarray(fams, dtype=np.int64)) for v, fams in derived]
        self._tvars: list | None = None

    def heurinitsol(self):
        self._tvars = None

    def heurexec(self, heurtiming, nodeinfeasible):
        try:
            with self.stats.timer("time_heuristic"):
                self.stats.heuristic_calls += 1
                return {"result": self._run()}
        except Exception:
            _log.exception("error in sink heuristic")
            raise

    def _run(self) -> SCIP_RESULT:
        m = self.model
        if self._tvars is None:
            self._tvars = [m.getTransformedVar(v) for v in self.xvars]
        tv = self._tvars
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
        sol = m.createSol(self)
        for f in choice.tolist():
            # Fixed and multi-aggregated variables cannot be set; their value follows from the others.
            if tv[f].getStatus() not in ("FIXED", "MULTAGGR"):
                m.setSolVal(sol, tv[f], 1.0)
        if self.derived:
            on = np.zeros(F, dtype=bool)
            on[choice] = True
            for v, fams in self.derived:
                tv_d = m.getTransformedVar(v)
                if tv_d.getStatus() not in ("FIXED", "MULTAGGR"):
                    m.setSolVal(sol, tv_d, float(on[fams].sum()))
        if m.trySol(sol, printreason=False):
            self.stats.heuristic_solutions += 1
            return SCIP_RESULT.FOUNDSOL
        return SCIP_RESULT.DIDNOTFIND


def add_sink_heuristic(model: pyscipopt.Model, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable],
                       stats: SolveStats, *, freq: int = 1,
                       derived: Sequence[tuple[pyscipopt.Variable, Sequence[int]]] = ()) -> SinkHeuristic:
    """Include the sink heuristic: after every LP of the cutting-plane loop and after each node.

    Running it inside the root's cut loop (not only when the root is done)
    gives a good incumbent early, so reduced-cost fixing can remove most
    family variables before the long root loop of larger problems.
    """
    h = SinkHeuristic(index, xvars, stats, derived)
    model.includeHeur(h, "gobnilp_sinks", "sink-finding rounding of the LP solution to a DAG", "S",
                      priority=100000, freq=freq, freqofs=0, maxdepth=-1,
                      timingmask=pyscipopt.SCIP_HEURTIMING.AFTERLPNODE | pyscipopt.SCIP_HEURTIMING.DURINGLPLOOP)
    return h
