"""The acyclicity constraint handler: thin SCIP glue around :mod:`.cluster`.

Design (see ``docs/solver.md``):

* ``needscons=True`` with exactly one constraint attached (by
  :func:`add_acyclicity`).  SCIP then calls ``conslock`` for that constraint,
  so the family variables get their rounding locks; handlers without
  constraints get no lock call through PySCIPOpt and dual reductions would
  wrongly fix variables.
* ``enfopriority < 0``: enforcement only ever sees integral LP points (the
  integrality handler branches on fractional ones first).  Fractional points are
  handled by separation; enforcement stays complete anyway.
* Every cut is a global cluster inequality, valid for *every* DAG, and
  propagation only removes families that would close a cycle with arrows
  already forced; so no acyclic point is ever cut off, which keeps the
  handler exact under objective limits, disabled dual reductions and the
  solution-collecting handler of the enumeration.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pyscipopt
from pyscipopt import SCIP_RESULT

from ._callbacks import TransformedVars, is_integral, logged_callback

from ..search.family_index import FamilyIndex
from .stats import SolveStats
from . import cluster as cl
from . import four_node as fn
from .class_nogood import family_masks

__all__ = ["AcyclicityHandler", "add_acyclicity", "HANDLER_NAME"]

_log = logging.getLogger(__name__)

HANDLER_NAME = "gobnilp_acyclicity"




class AcyclicityHandler(TransformedVars, pyscipopt.Conshdlr):
    """Keeps the chosen parent sets acyclic with cluster cuts.

    Parameters
    ----------
    index : FamilyIndex
        Flat view of the families; ``xvars[f]`` is the variable of family ``f``.
    xvars : sequence of pyscipopt.Variable
        Original-problem family variables, flat in ``index`` order.
    stats : SolveStats
        Counters to update.
    min_violation : float
        Fractional points: only clusters violated by more than this are cut.
    cycle_cuts, subip_cuts, propagate : bool
        Switch the cycle heuristic, the exact sub-IP and propagation.
    subip_time_limit : float
        Seconds one sub-IP call may take (it is exact within that budget;
        hitting it only means fewer cuts, never a wrong answer).
    subip_params : dict, optional
        SCIP settings of the sub-IP on top of :data:`.cluster.SUBIP_PARAMS`.
    enumerate_max_nodes : int
        Exact separation enumerates all subsets (no SCIP sub-IP) when at most
        this many nodes are relevant (``0``: always use the sub-IP).
    kcluster_max : int
        When no cluster cut separates a fractional point, look for violated
        k-cluster cuts for k = 2 .. ``kcluster_max`` (``1``: never).  Valid
        for every DAG (see :func:`.cluster.kcluster_cuts`), so exactness does
        not depend on them.
    kcluster_depth : int
        Look for k-cluster cuts only at nodes of at most this depth (``0``:
        the root).  Every search for them follows a cluster sub-IP that found
        nothing, and deeper in the tree those calls cost more than the
        tighter bound saves (zoo: 2.4 s with none, 9.8 s at every node).
    kcluster_subip : bool
        Also look for k-cluster cuts after a cluster separation that needed the SCIP sub-IP (by
        default only after an enumerated one, which is cheap).
    light_depths : int
        ``0`` (default): SCIP calls separation at the root and every ``sepafreq``-th depth, all of it.
        ``k >= 1``: SCIP calls it every ``k``-th depth instead (:func:`add_acyclicity`), and at depths
        that are not multiples of ``sepafreq`` only the cheap part runs (the cycle heuristic and the
        four-node rows), never the exact cluster separation.
    four_node_cuts : bool
        Also separate the four-node rows of :mod:`.four_node` (valid for every DAG) in every
        separation round at depth at most ``four_node_depth``, at most ``four_node_max`` a round.
    sparse_cuts : bool
        Write each cut with, per member, whichever of its counted or its
        uncounted families are fewer (:func:`.cluster.sparse_row`): the same
        inequality on the convexity rows, with fewer nonzeros.
    """

    def __init__(self, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable], stats: SolveStats, *,
                 min_violation: float = 0.05, cycle_cuts: bool = True, subip_cuts: bool = True,
                 propagate: bool = True, subip_time_limit: float = 10.0,
                 subip_params: dict | None = None, enumerate_max_nodes: int = 14,
                 kcluster_max: int = 3, kcluster_depth: int = 0, kcluster_rounds: int = 10,
                 sparse_cuts: bool = True, kcluster_subip: bool = False, four_node_cuts: bool = True,
                 four_node_depth: int = 1_000_000, four_node_max: int = 100, four_node_after_clusters: bool = False,
                 sepafreq: int = 10,
                 light_depths: int = 0) -> None:
        self.index = index
        self.sparse_cuts = bool(sparse_cuts)
        self.xvars = list(xvars)
        self.stats = stats
        self.min_violation = float(min_violation)
        self.cycle_cuts = cycle_cuts
        self.subip_cuts = subip_cuts
        self.propagate = propagate
        self.subip_time_limit = float(subip_time_limit)
        self.subip_params = dict(subip_params or {})
        self.enumerate_max_nodes = int(enumerate_max_nodes)
        self.kcluster_max = int(kcluster_max)
        self.kcluster_depth = int(kcluster_depth)
        self.kcluster_rounds = int(kcluster_rounds)
        self.kcluster_subip = bool(kcluster_subip)
        self.four_node_cuts = bool(four_node_cuts)
        self.four_node_depth = int(four_node_depth)
        self.four_node_max = int(four_node_max)
        self.four_node_after_clusters = bool(four_node_after_clusters)
        self.added_four: set[fn.Quadruple] = set()
        self.sepafreq = int(sepafreq)
        self.light_depths = int(light_depths)
        self.added: set[tuple[frozenset[int], int]] = set()
        #: (cluster, k) cuts found by an earlier search of the same table, put in at the first separation
        #: (see :func:`seed_cuts`)
        self.seed: list[tuple[frozenset[int], int]] = []
        #: four-node rows of an earlier model of the same table (valid for every DAG), put in with ``seed``
        self.seed_four: list[fn.Quadruple] = []
        self._locked = np.flatnonzero(index.n_parents > 0)
        # parent bitmasks for the fast acyclicity test of integral points (up to 62 nodes)
        self._fmasks = family_masks(index) if index.n <= 62 else None

    # ------------------------------------------------------------- helpers
    def lp_values(self) -> np.ndarray:
        """Current LP values of all family variables, one sweep."""
        return np.fromiter((v.getLPSol() for v in self.tvars()), dtype=np.float64, count=len(self.xvars))

    def sol_values(self, sol) -> np.ndarray:
        """Values in ``sol`` (``None``: the current LP or pseudo solution)."""
        get = self.model.getSolVal
        return np.fromiter((get(sol, v) for v in self.tvars()), dtype=np.float64, count=len(self.xvars))

    def add_cluster_cut(self, cluster: frozenset[int], kind: str, *, force: bool = False, k: int = 1) -> bool:
        """Add the k-cluster inequality of ``cluster`` as a global cut; True if SCIP reports infeasibility."""
        m, tv = self.model, self.tvars()
        fams = cl.counted_families(self.index, cluster, k)
        rhs = float(len(cluster) - k)
        if self.sparse_cuts:
            fams, coefs, rhs = cl.sparse_row(self.index, cluster, fams, rhs)
        else:
            coefs = np.ones(fams.size)
        name = f"cluster{'' if k == 1 else k}_{'_'.join(map(str, sorted(cluster)))}"
        row = m.createEmptyRowUnspec(name=name, lhs=None, rhs=rhs, local=False, modifiable=False, removable=True)
        m.cacheRowExtensions(row)
        for f, c in zip(fams.tolist(), coefs.tolist()):
            m.addVarToRow(row, tv[f], c)
        m.flushRowExtensions(row)
        infeasible = m.addCut(row, forcecut=force)
        if (cluster, k) in self.added:
            self.stats.cuts_duplicate += 1
        else:
            self.added.add((cluster, k))
            m.addPoolCut(row)
            setattr(self.stats, f"cuts_{kind}", getattr(self.stats, f"cuts_{kind}") + 1)
        m.releaseRow(row)
        return bool(infeasible)

    def add_four_node_cut(self, quad: fn.Quadruple) -> bool:
        """Add the four-node row of ``quad`` as a global cut; True if SCIP reports infeasibility."""
        m, tv = self.model, self.tvars()
        fams = fn.counted_families(self.index, quad)
        rhs = fn.RHS
        if self.sparse_cuts:
            fams, coefs, rhs = cl.sparse_row(self.index, quad, fams, rhs)
        else:
            coefs = np.ones(fams.size)
        row = m.createEmptyRowUnspec(name="four_" + "_".join(map(str, quad)), lhs=None, rhs=rhs, local=False,
                                     modifiable=False, removable=True)
        m.cacheRowExtensions(row)
        for f, c in zip(fams.tolist(), coefs.tolist()):
            m.addVarToRow(row, tv[f], c)
        m.flushRowExtensions(row)
        infeasible = m.addCut(row, forcecut=False)
        if quad not in self.added_four:
            self.added_four.add(quad)
            m.addPoolCut(row)
        self.stats.cuts_four_node += 1
        m.releaseRow(row)
        return bool(infeasible)

    def separate_four_node(self, xval: np.ndarray) -> SCIP_RESULT:
        """Add the violated four-node rows of ``xval`` (if switched on and shallow enough)."""
        if not self.four_node_cuts or self.model.getDepth() > self.four_node_depth:
            return SCIP_RESULT.DIDNOTFIND
        with self.stats.timer("time_four_node"):
            quads = fn.violated_quadruples(self.index, xval, min_violation=self.min_violation,
                                           max_cuts=self.four_node_max)
        if not quads:
            return SCIP_RESULT.DIDNOTFIND
        if any([self.add_four_node_cut(q) for _, q in quads]):
            return SCIP_RESULT.CUTOFF
        return SCIP_RESULT.SEPARATED

    def separate(self, xval: np.ndarray, *, exact: bool = True) -> SCIP_RESULT:
        """Cluster cuts (:meth:`separate_clusters`), then four-node rows; the stronger result wins."""
        res = self.separate_clusters(xval, exact=exact)
        if res == SCIP_RESULT.CUTOFF or (res == SCIP_RESULT.SEPARATED and self.four_node_after_clusters):
            return res
        if is_integral(xval):
            return res  # an integral point: its cycles' cluster cuts cut it off (dense four-node rows cost more)
        four = self.separate_four_node(xval)
        if four != SCIP_RESULT.DIDNOTFIND:
            return four
        return res

    def separate_clusters(self, xval: np.ndarray, *, exact: bool = True) -> SCIP_RESULT:
        """Cut off ``xval`` with violated cluster inequalities (cheap cycles first, then the sub-IP)."""
        if self.seed or self.seed_four:
            seeds, self.seed = self.seed, []
            quads, self.seed_four = self.seed_four, []
            hit = any([self.add_cluster_cut(c, "seed", k=k, force=True) for c, k in seeds])
            hit = any([self.add_four_node_cut(q) for q in quads]) or hit
            return SCIP_RESULT.CUTOFF if hit else SCIP_RESULT.SEPARATED
        found, kind, small = [], "cycle", None
        if self.cycle_cuts:
            found = cl.cycle_clusters(self.index, xval, min_violation=self.min_violation)
        if not found and exact and self.subip_cuts:
            kind = "subip"
            with self.stats.timer("time_subip"):
                self.stats.subip_calls += 1
                small = cl.enumerate_clusters(self.index, xval, min_violation=self.min_violation,
                                              max_nodes=self.enumerate_max_nodes)
                if small is not None:
                    self.stats.subip_enumerated += 1
                    found = small
                else:
                    found = cl.exact_clusters(self.index, xval, min_violation=self.min_violation,
                                              time_limit=self._subip_budget(), params=self.subip_params)
        k = 1
        # Only after a cheap (enumerated) cluster separation: each k-cluster round triggers more cluster
        # rounds, and where those need the SCIP sub-IP they cost more than the bound gains (zoo: 2.4 s
        # without k-cluster cuts, 8.9 s with); on adult they close the gap (unsolved in 300 s -> 72 s).
        if (not found and (small is not None or self.kcluster_subip)
                and self.model.getDepth() <= self.kcluster_depth and self.stats.kcluster_rounds < self.kcluster_rounds):
            self.stats.kcluster_rounds += 1
            # No cluster cut: the point may still break a k-cluster inequality (a stronger family of cuts).
            for k in range(2, self.kcluster_max + 1):
                with self.stats.timer("time_kcluster"):
                    found = cl.kcluster_cuts(self.index, xval, k, min_violation=self.min_violation,
                                             max_nodes=self.enumerate_max_nodes + 2,
                                             time_limit=self._subip_budget(), params=self.subip_params)
                if found:
                    kind = "kcluster"
                    break
        if not found:
            return SCIP_RESULT.DIDNOTFIND
        if any([self.add_cluster_cut(c, kind, k=k) for c, _ in found]):
            return SCIP_RESULT.CUTOFF
        return SCIP_RESULT.SEPARATED

    def _subip_budget(self) -> float:
        """Sub-IP time: its own cap, and never beyond the master's remaining time."""
        limit = self.model.getParam("limits/time")
        left = limit - self.model.getSolvingTime() if limit < 1e20 else np.inf
        return float(max(min(self.subip_time_limit, left), 0.01))

    def cycles_of(self, xval: np.ndarray) -> list[list[int]]:
        """Directed cycles of the graph chosen by an integral point (none: a bitmask test says so first)."""
        if self._fmasks is not None and cl.chosen_acyclic(self.index, self._fmasks, xval):
            return []
        return cl.find_cycles(cl.chosen_parents(self.index, xval))

    def enforce_integral(self, xval: np.ndarray) -> SCIP_RESULT:
        """Integral LP point: FEASIBLE iff acyclic, else forced cluster cuts of its cycles."""
        cycles = self.cycles_of(xval)
        if not cycles:
            return SCIP_RESULT.FEASIBLE
        if any([self.add_cluster_cut(frozenset(c), "integral", force=True) for c in cycles]):
            return SCIP_RESULT.CUTOFF
        return SCIP_RESULT.SEPARATED

    def cycle_forced_by_bounds(self, cluster: Sequence[int]) -> bool:
        """True iff every node of ``cluster`` has all families avoiding the cluster fixed to 0 locally.

        Then every point of the subtree contains a cycle inside ``cluster``: the node can be cut off.
        """
        members = set(cluster)
        tv = self.tvars()
        for v in members:
            for f in range(int(self.index.start[v]), int(self.index.start[v + 1])):
                if members.isdisjoint(self.index.parents[f]) and tv[f].getUbLocal() > 0.5:
                    return False
        return True

    def propagate_arrows(self) -> SCIP_RESULT:
        """Fix to 0 every family whose arrow would close a cycle with arrows already forced.

        Arrow ``p -> v`` is forced when every family of ``v`` still allowed
        contains ``p``.  If ``v`` already reaches ``p`` along forced arrows, the
        families of ``v`` containing ``p`` close a cycle in every completion.
        A cycle among forced arrows makes the whole subtree infeasible.
        """
        idx, tv, n = self.index, self.tvars(), self.index.n
        alive = np.fromiter((v.getUbLocal() > 0.5 for v in tv), dtype=bool, count=len(tv))
        nrem = np.bincount(idx.child, weights=alive, minlength=n)
        cnt = np.bincount(idx.inc_par * n + idx.inc_child, weights=alive[idx.inc_fam], minlength=n * n)
        forced = (cnt.reshape(n, n) == nrem[None, :]) & (nrem[None, :] > 0)
        if not forced.any():
            return SCIP_RESULT.DIDNOTFIND
        reach = forced.copy()
        for k in range(n):
            reach |= reach[:, k, None] & reach[None, k, :]
        if np.diagonal(reach).any():
            self.stats.propagation_cutoffs += 1
            return SCIP_RESULT.CUTOFF
        bad = reach[idx.inc_child, idx.inc_par] & alive[idx.inc_fam]
        if not bad.any():
            return SCIP_RESULT.DIDNOTFIND
        changed = False
        for f in np.unique(idx.inc_fam[bad]).tolist():
            if tv[f].getStatus() == "MULTAGGR":  # bounds of these cannot be changed; skipping is safe
                continue
            infeasible, tightened = self.model.tightenVarUb(tv[f], 0.0)
            if infeasible:
                self.stats.propagation_cutoffs += 1
                return SCIP_RESULT.CUTOFF
            self.stats.propagation_fixings += int(tightened)
            changed |= bool(tightened)
        return SCIP_RESULT.REDUCEDDOM if changed else SCIP_RESULT.DIDNOTFIND

    # ----------------------------------------------------------- callbacks
    @logged_callback
    def consinitsol(self, constraints):
        self.forget_tvars()

    @logged_callback
    def consexitsol(self, constraints, restart):
        self.forget_tvars()

    @logged_callback
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
        with self.stats.timer("time_check"):
            self.stats.check_calls += 1
            feasible = not self.cycles_of(self.sol_values(solution))
        return {"result": SCIP_RESULT.FEASIBLE if feasible else SCIP_RESULT.INFEASIBLE}

    @logged_callback
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        with self.stats.timer("time_enforce"):
            self.stats.enforce_calls += 1
            xval = self.lp_values()
            if is_integral(xval):
                return {"result": self.enforce_integral(xval)}
            # Only reached if enforcement runs before integrality: cut if we can, else let SCIP branch.
            res = self.separate(xval)
            return {"result": SCIP_RESULT.SEPARATED if res == SCIP_RESULT.SEPARATED else
                    SCIP_RESULT.CUTOFF if res == SCIP_RESULT.CUTOFF else SCIP_RESULT.INFEASIBLE}

    @logged_callback
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        with self.stats.timer("time_enforce"):
            self.stats.enforce_calls += 1
            cycles = self.cycles_of(self.sol_values(None))
            if not cycles:
                return {"result": SCIP_RESULT.FEASIBLE}
            if any(self.cycle_forced_by_bounds(c) for c in cycles):
                return {"result": SCIP_RESULT.CUTOFF}
            return {"result": SCIP_RESULT.INFEASIBLE}  # SCIP branches on the unfixed variables

    @logged_callback
    def consenforelax(self, solution, constraints, nusefulconss, solinfeasible):
        cycles = self.cycles_of(self.sol_values(solution))
        return {"result": SCIP_RESULT.INFEASIBLE if cycles else SCIP_RESULT.FEASIBLE}

    @logged_callback
    def conssepalp(self, constraints, nusefulconss):
        with self.stats.timer("time_separation"):
            self.stats.separation_rounds += 1
            depth = self.model.getDepth()
            exact = not self.light_depths or depth == 0 or (self.sepafreq > 0 and depth % self.sepafreq == 0)
            return {"result": self.separate(self.lp_values(), exact=exact)}

    @logged_callback
    def consprop(self, constraints, nusefulconss, nmarkedconss, proptiming):
        # Probing (presolve probing, diving heuristics) would call this thousands of times for little gain.
        if not self.propagate or self.model.inProbing():
            return {"result": SCIP_RESULT.DIDNOTRUN}
        with self.stats.timer("time_propagation"):
            self.stats.propagation_calls += 1
            return {"result": self.propagate_arrows()}

    @logged_callback
    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # Rounding a family with parents UP can create a cycle; rounding down never can.
        m = self.model
        original = m.getStage() in (pyscipopt.SCIP_STAGE.INIT, pyscipopt.SCIP_STAGE.PROBLEM)
        for f in self._locked.tolist():
            v = self.xvars[f] if original else m.getTransformedVar(self.xvars[f])
            m.addVarLocksType(v, locktype, nlocksneg, nlockspos)


def add_acyclicity(model: pyscipopt.Model, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable],
                   stats: SolveStats, *, sepafreq: int = 10, propfreq: int = 1, **options) -> AcyclicityHandler:
    """Include the handler in ``model`` and attach its single constraint.

    Priorities: separation before SCIP's generic cuts (the cluster cuts are
    what closes the gap); enforcement and check at -10, i.e. after integrality
    (integral points only) but before set partitioning and linear rows, so the
    cycle test must not assume one family per node (it does not).
    """
    h = AcyclicityHandler(index, xvars, stats, sepafreq=sepafreq, **options)
    model.includeConshdlr(h, HANDLER_NAME, "acyclicity of the chosen parent sets by cluster cuts",
                          sepapriority=100000, enfopriority=-10, chckpriority=-10,
                          sepafreq=h.light_depths if h.light_depths and sepafreq else sepafreq, propfreq=propfreq, eagerfreq=100, needscons=True,
                          proptiming=pyscipopt.SCIP_PROPTIMING.BEFORELP)
    cons = model.createCons(h, "acyclic", initial=True, separate=True, enforce=True, check=True,
                            propagate=True, local=False, modifiable=False, dynamic=False,
                            removable=False, stickingatnode=False)
    model.addPyCons(cons)
    return h
