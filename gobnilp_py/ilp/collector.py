"""SCIP plugins that turn branch-and-cut into an exact enumerator of networks.

Two constraint handlers, both without constraints of their own:

:class:`NetworkCollector` (lowest enforcement and check priority)
    Sees an integral point only after every other handler accepted it, so
    the point is an acyclic network satisfying all constraints.  It records
    the network and excludes exactly it with a *nogood*,

    .. math:: \\sum_{v} x_{v, W_v} \\le n - 1,

    where ``W_v`` is the parent set the point chose for ``v``.  Because each
    node takes exactly one parent set, this removes that one DAG and no
    other (by class: the class nogood of :mod:`.class_nogood` removes exactly
    the class's members).  The exclusion itself is kept by the collector, not
    by SCIP: every integral LP point reaching its enforcement is first looked up
    in the set of excluded networks (or classes), which is exactly the set of
    acyclic integral points violating some nogood, and an excluded one is
    separated again by its nogood row as an LP cut.  So a row that aged out of
    the LP can never let a network be recorded twice, and SCIP does not carry
    thousands of linear constraints whose activities it would update on every
    bound change (``nogood_mode``; points without an LP get a linear
    constraint).  ``conscheck`` always answers INFEASIBLE, so SCIP never accepts an
    incumbent and its cutoff bound stays at the objective limit; every integral
    point within the limit must therefore be reached by the tree search and
    pass through enforcement, where it is recorded.  ``conscheck`` also records
    the points every other handler accepted (when presolving fixes every
    variable, SCIP shows the last point to ``conscheck`` only); such a point
    gets its nogood if the search reaches it again.

:class:`BoundPruner` (highest enforcement priority; k-best only)
    Prunes a node whose LP bound is below a threshold that rises during the
    search (the score of the k-th best network found so far, minus a
    tolerance).  Any network below it cannot be among the k best, so the cut
    is exact; it plays the role of the objective limit when the limit is not
    known in advance.

Completeness further needs SCIP settings that keep every feasible point:
no strong dual reductions, no symmetry handling, no restarts (see
:data:`~gobnilp_py.ilp.settings.ENUMERATION_PARAMS`).  Reductions that use only the cutoff bound
(weak dual reductions, conflict analysis) remain valid.  :data:`COLLECT_PARAMS`
and :data:`COLLECT_MODEL_OPTIONS` only make the search faster; why each of
them is exact, and what they gain, is in ``docs/enumeration.md``.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import time
from collections.abc import Sequence

from typing import Any

import numpy as np
import pyscipopt
from pyscipopt import SCIP_RESULT

from ._callbacks import TransformedVars, is_integral, logged_callback

from . import cluster as cl
from ..search.family_index import FamilyIndex

__all__ = ["NetworkCollector", "BoundPruner", "include_collector"]

_log = logging.getLogger(__name__)

class NetworkCollector(TransformedVars, pyscipopt.Conshdlr):
    """Record every acyclic integral point and exclude it with a nogood.

    Parameters
    ----------
    index : FamilyIndex
        Flat family view; ``xvars[f]`` is family ``f``'s original variable.
    xvars : sequence of pyscipopt.Variable
        Family variables in ``index`` order.
    max_networks : int or None
        Stop (interrupt SCIP) once this many networks are recorded.
    kbest : int or None
        Track the k best scores and raise :attr:`threshold` as they improve.
    tie_tolerance : float
        Slack below the k-th best score kept by the threshold, so ties at
        the k-th place are all collected and can be ordered canonically.
    by_class : bool
        Class-level collection: exclude the whole Markov equivalence class of
        every recorded network with one class nogood
        (:func:`~gobnilp_py.ilp.class_nogood.class_nogood`), so each class is
        recorded once, by one representative (``docs/enumeration.md``).
    """

    #: How a nogood reaches the search.  ``"cut"`` (default): the collector keeps the excluded keys and
    #: their rows itself; an integral LP point reaching its enforcement is tested for membership of the
    #: excluded set (a set look-up, exact: a nogood is violated by an acyclic integral point exactly when
    #: it is that network, or a member of that class, ``class_nogood``), and the row is put into the LP as
    #: a cut that separates the point.  ``"constraint"``: one SCIP linear constraint per nogood.  Why:
    #: SCIP keeps every linear constraint's activity up to date on every bound change, and with thousands
    #: of nogoods that event handling was a third of the search (hailfinder100 BF 150: 33 % of the run in
    #: ``eventExecLinear`` at 3,000 classes) and grew with every class found.
    nogood_mode: str = "cut"
    #: With ``"constraint"``: put each nogood into the LP at once (True) or only when the linear handler
    #: finds it violated (False); kept out of the initial LP the LP stays small (wine BF 150, 26,153
    #: nogoods: 74 -> 64 s CPU).
    nogood_initial: bool = False

    def __init__(self, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable], *,
                 max_networks: int | None = None, kbest: int | None = None,
                 tie_tolerance: float = 0.0, by_class: bool = False) -> None:
        self.index = index
        self.by_class = by_class
        #: class key -> the representative recorded for it (class-level collection)
        self.classes: dict[Any, tuple[int, ...]] = {}
        self._class_sizes: list[int] = []
        self._masks: Any = None
        self.xvars = list(xvars)
        self.max_networks = max_networks
        self.kbest = kbest
        self.tie_tolerance = tie_tolerance
        #: chosen flat family indices (one per node, in node order) -> exact score
        self.found: dict[tuple[int, ...], float] = {}
        #: optional callback ``progress("collecting", found, cap, bound=..., elapsed=...)``
        self.progress: Any = None
        self._last_report = -math.inf
        #: keys (networks, or class keys by class) already excluded by a nogood
        self.excluded: set[Any] = set()
        #: the nogood row (families, coefficients, right-hand side) of every excluded key ("cut" mode)
        self._rows: dict[Any, tuple[np.ndarray, np.ndarray, float]] = {}
        #: excluded keys that also have a SCIP linear constraint (pseudo-solution enforcement)
        self._as_constraint: set[Any] = set()
        #: times an excluded network or class reached enforcement again and its row was re-added
        self.recuts = 0
        self.duplicates = 0
        self.stop_reason: str | None = None
        self.threshold = -math.inf
        self._top: list[float] = []  # min-heap of the k best scores
        self.time_record = 0.0
        #: Class collection under a time limit: the search must end by ``search_deadline``
        #: (``time.perf_counter()``) *less* ``listing_per_class`` seconds for every class found, so
        #: that the driver has the time to list the members of all of them (see :meth:`budget_check`).
        self.search_deadline: float | None = None
        self.listing_per_class = 0.0
        #: The search's dual bound when the budget stopped it (points discarded after the stop lie in
        #: nodes that were open then, so their scores are below it; see :meth:`budget_check`).
        self.bound_at_stop: float | None = None

    # ------------------------------------------------------------ recording
    def _chosen(self, sol, in_lp: bool = False) -> np.ndarray | None:
        """Flat family chosen per node, or None if the point is not integral."""
        if sol is None and self.model.getLPSolstat() == pyscipopt.SCIP_LPSOLSTAT.OPTIMAL and in_lp:
            xval = np.fromiter((v.getLPSol() for v in self.tvars()), dtype=np.float64, count=len(self.xvars))
        else:
            get = self.model.getSolVal
            xval = np.fromiter((get(sol, v) for v in self.tvars()), dtype=np.float64, count=len(self.xvars))
        if not is_integral(xval):
            return None
        on = np.flatnonzero(xval > 0.5)
        if on.size != self.index.n or not np.array_equal(self.index.child[on], np.arange(self.index.n)):
            return None
        return on

    def _network_of(self, sol, in_lp: bool = False) -> tuple[int, ...] | None:
        """The point as a key (flat family per node) if it is an integral acyclic network, else None."""
        chosen = self._chosen(sol, in_lp)
        if chosen is None:
            return None
        if cl.find_cycles([self.index.parents[f] for f in chosen.tolist()]):
            _log.error("collector saw a cyclic point the acyclicity handler accepted")
            return None
        return tuple(chosen.tolist())

    def request_stop(self, reason: str = "interrupted") -> None:
        """Record nothing more from now on (a signal asked the search to stop); the result says ``reason``."""
        if self.stop_reason is None:
            self.stop_reason = reason

    def tick(self) -> None:
        """About once a second during the search (the heartbeat): progress, and the listing budget."""
        self.report_now()
        self.budget_check()

    def budget_check(self) -> None:
        """Stop the search once the time left no longer pays for listing every class found.

        Why: a class found but not expanded before the call's deadline is lost to the result (its
        networks cannot be listed, and the certified threshold rises above it).  On soybean (36
        variables, 4,200 s) the search found 69,642 classes in 3,807 s and the fixed reserve left
        time to list 10,828 of them.  Stopping here is a ``"time_limit"`` stop like SCIP's own;
        the dual bound at this moment is kept, because the point being enforced now is discarded
        (cut off) without being recorded.
        """
        if self.search_deadline is None or self.stop_reason is not None or not self.by_class:
            return
        if time.perf_counter() + self.listing_per_class * len(self.classes) < self.search_deadline:
            return
        self.stop_reason = "time_limit"
        try:
            self.bound_at_stop = float(self.model.getDualbound())
        except Exception:  # no bound in this stage: the driver then certifies no threshold from it
            self.bound_at_stop = math.inf
        self.model.interruptSolve()

    def report_now(self) -> None:
        """Report progress now (the heartbeat calls this about once a second)."""
        if self.progress is not None:
            self._last_report = -math.inf
            self._report()

    def _report(self) -> None:
        """Tell the progress hook (at most once a second): networks found, current bound, elapsed."""
        now = time.perf_counter()
        if now - self._last_report < 1.0:
            return
        self._last_report = now
        try:
            bound = float(self.model.getDualbound())
        except Exception:  # no bound in this stage
            bound = math.nan
        # The search ends when its bound falls below the target: OPT - epsilon (the objective limit,
        # a hair below it), or for k-best the rising k-th best score.
        target = self.threshold if self.kbest is not None else float(self.model.getObjlimit())
        self.progress("collecting", len(self.found), self.max_networks, bound=bound,
                      elapsed=self.model.getSolvingTime(),
                      target=target if math.isfinite(target) and abs(target) < 1e19 else None)

    def _class_key(self, key: tuple[int, ...]) -> Any:
        """The Markov equivalence class key of the network ``key`` (flat families), from parent bitmasks."""
        from ..equivalence.cpdag import class_key_from_masks

        masks = self._family_masks()
        if isinstance(masks, np.ndarray):
            pa = masks[list(key)].tolist()
        else:
            pa = [masks[f] for f in key]
        return class_key_from_masks(pa, validate=False)

    def class_sizes(self, limit: int) -> list[int]:
        """Members of each of the first ``limit`` classes recorded, in the order found (fewer while fewer are).

        Read by the class branching rule (:data:`~gobnilp_py.ilp.class_branching.DECIDE_AFTER`); each
        class is counted once, in polynomial time (:meth:`~gobnilp_py.equivalence.cpdag.CPDAG.count_dags`).
        """
        sizes = self._class_sizes
        if len(sizes) < limit and len(self.classes) > len(sizes):
            from ..equivalence.cpdag import cpdag_from_masks

            masks = self._family_masks()
            names = [str(v) for v in range(self.index.n)]
            for key in itertools.islice(self.classes.values(), len(sizes), limit):
                pa = [int(masks[f]) for f in key]
                sizes.append(cpdag_from_masks(names, pa, validate=False).count_dags())
        return sizes[:limit]

    def _family_masks(self) -> Any:
        from .class_nogood import family_masks

        if self._masks is None:
            self._masks = family_masks(self.index)
        return self._masks

    def _remember(self, key: tuple[int, ...], ckey: Any = None) -> None:
        if self.progress is not None:
            self._report()
        if self.by_class:
            if ckey is None:
                ckey = self._class_key(key)
            if ckey in self.classes:
                return  # its class is already recorded (by another representative)
            if self.stop_reason is None:
                self.classes[ckey] = key
        # SCIP stops only at its next safe point after interruptSolve(): points it shows us until then
        # are not recorded, so a capped result holds exactly max_networks networks.
        if key not in self.found and self.stop_reason is None:
            score = math.fsum(self.index.score[list(key)].tolist())
            self.found[key] = score
            if self.kbest:
                self._update_threshold(score)
            if self.max_networks is not None and len(self.found) >= self.max_networks and self.stop_reason is None:
                self.stop_reason = "max_networks"
                self.model.interruptSolve()
            if self.search_deadline is not None and len(self.found) % 64 == 0:
                self.budget_check()  # the heartbeat checks too, but a fast search finds many classes a second

    def _record(self, sol, in_lp: bool = False) -> SCIP_RESULT:
        """Enforcement: record a new network (or class) and exclude it; cut an excluded one off again."""
        t0 = time.perf_counter()
        if self.stop_reason is not None:
            return SCIP_RESULT.CUTOFF  # interrupted (network cap): nothing more is recorded
        key = self._network_of(sol, in_lp)
        if key is None:
            return SCIP_RESULT.INFEASIBLE  # not ours to resolve: let SCIP branch
        ex = self._class_key(key) if self.by_class else key
        as_cut = in_lp and self.nogood_mode == "cut"
        if ex in self.excluded:
            if as_cut or ex not in self._as_constraint:
                # "cut" mode: an excluded network or class came back (its row had left this LP or was
                # never in it); separate it again.  Nothing is recorded twice.
                self.recuts += 1
                result = self._add_nogood(ex, as_cut)
                self.time_record += time.perf_counter() - t0
                return result
            self.duplicates += 1
            _log.error("%s found again after its nogood constraint was added",
                       "equivalence class" if self.by_class else "network")
        if self.by_class:
            self._remember(key, ex)
            self._rows[ex] = self._class_nogood(ex)
        else:
            self._remember(key)
            self._rows[ex] = (np.asarray(key, dtype=np.int64), np.ones(len(key)), float(self.index.n - 1))
        self.excluded.add(ex)
        result = self._add_nogood(ex, as_cut)
        self.time_record += time.perf_counter() - t0
        return result

    def _add_nogood(self, ex: Any, as_cut: bool) -> SCIP_RESULT:
        """Put the nogood of the excluded key ``ex`` into the search: an LP cut, or a linear constraint."""
        fams, coefs, rhs = self._rows[ex]
        tv = self.tvars()
        m = self.model
        if as_cut:
            # Violated by the current (integral) LP point by at least 1, so forced into the LP; global, and
            # removable: if it ages out, enforcement puts it back when the point returns.
            row = m.createEmptyRowUnspec(name="nogood", lhs=None, rhs=float(rhs), local=False, modifiable=False,
                                         removable=True)
            m.cacheRowExtensions(row)
            for f, c in zip(fams.tolist(), np.asarray(coefs, dtype=np.float64).tolist()):
                m.addVarToRow(row, tv[f], c)
            m.flushRowExtensions(row)
            infeasible = m.addCut(row, forcecut=True)
            m.releaseRow(row)
            return SCIP_RESULT.CUTOFF if infeasible else SCIP_RESULT.SEPARATED
        expr = pyscipopt.quicksum(float(c) * tv[int(f)] for f, c in zip(fams, coefs)) <= rhs
        m.addCons(expr, name=f"nogood_{len(self.excluded)}", initial=self.nogood_initial, separate=True,
                  enforce=True, check=True, propagate=True, local=False, modifiable=False,
                  dynamic=False, removable=False, stickingatnode=False)
        self._as_constraint.add(ex)
        return SCIP_RESULT.CONSADDED

    def _class_nogood(self, ckey: Any) -> tuple[np.ndarray, np.ndarray, float]:
        """The class nogood of the class with key ``ckey`` (see :mod:`gobnilp_py.ilp.class_nogood`)."""
        from ..equivalence.cpdag import essential_masks
        from .class_nogood import class_nogood

        directed, undirected = essential_masks(ckey)
        return class_nogood(self.index, self._family_masks(), directed, undirected)

    def _update_threshold(self, score: float) -> None:
        if len(self._top) < self.kbest:
            heapq.heappush(self._top, score)
        elif score > self._top[0]:
            heapq.heapreplace(self._top, score)
        if len(self._top) == self.kbest:
            self.threshold = self._top[0] - self.tie_tolerance

    # ------------------------------------------------------------ callbacks
    @logged_callback
    def consinitsol(self, constraints):
        self.forget_tvars()

    @logged_callback
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        if solinfeasible:
            return {"result": SCIP_RESULT.FEASIBLE}  # another handler already rejected the point
        return {"result": self._record(None, in_lp=True)}

    @logged_callback
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        if solinfeasible or objinfeasible:
            return {"result": SCIP_RESULT.FEASIBLE}
        return {"result": self._record(None)}

    @logged_callback
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
        # Called last (lowest check priority) and, unless ``completely``, only when every other handler
        # accepted the point: then it is a network of the feasible set.  Record it -- when presolving fixes
        # every variable this is the only place SCIP shows the point -- but never accept it as an
        # incumbent, so the cutoff stays at the objective limit.  Enforcement adds its nogood if the
        # search reaches it again.
        if not completely:
            key = self._network_of(solution)
            if key is not None:
                self._remember(key)
        return {"result": SCIP_RESULT.INFEASIBLE}

    @logged_callback
    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # The collector rejects every point, so any change of any family variable can "violate" it:
        # lock both directions.  Without these locks dual fixing may set a variable whose objective
        # coefficient is (numerically) zero to one bound and drop tied networks.
        m = self.model
        original = m.getStage() in (pyscipopt.SCIP_STAGE.INIT, pyscipopt.SCIP_STAGE.PROBLEM)
        both = nlockspos + nlocksneg
        for v in self.xvars:
            m.addVarLocksType(v if original else m.getTransformedVar(v), locktype, both, both)


class BoundPruner(pyscipopt.Conshdlr):
    """Cut off nodes whose LP bound is below the collector's rising threshold (k-best).

    The LP value of a node bounds the score of every network in its subtree
    (maximisation), so a node with LP value < threshold holds no network the
    k-best answer can need.
    """

    def __init__(self, collector: NetworkCollector) -> None:
        self.collector = collector
        self.pruned = 0

    def _bound_below_threshold(self) -> bool:
        thr = self.collector.threshold
        if thr == -math.inf:
            return False
        m = self.model
        if m.getLPSolstat() != pyscipopt.SCIP_LPSOLSTAT.OPTIMAL:
            return False
        # SCIP solves the transformed (minimisation) problem: its LP value is -score for our maximisation.
        bound = -m.getLPObjVal() if m.getObjectiveSense() == "maximize" else m.getLPObjVal()
        return bound < thr

    @logged_callback
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        if self._bound_below_threshold():
            self.pruned += 1
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.FEASIBLE}

    @logged_callback
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        return {"result": SCIP_RESULT.FEASIBLE}

    @logged_callback
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
        return {"result": SCIP_RESULT.FEASIBLE}

    @logged_callback
    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        return {}


def include_collector(model: pyscipopt.Model, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable], *,
                      max_networks: int | None, kbest: int | None = None,
                      tie_tolerance: float = 0.0, progress: Any = None, by_class: bool = False) -> NetworkCollector:
    """Add the collector (and, for k-best, the bound pruner) to ``model``."""
    col = NetworkCollector(index, xvars, max_networks=max_networks, kbest=kbest, tie_tolerance=tie_tolerance,
                           by_class=by_class)
    col.progress = progress
    model.includeConshdlr(col, "gobnilp_collector", "records each acyclic integral point and excludes it",
                          sepapriority=0, enfopriority=-9_999_999, chckpriority=-9_999_999,
                          sepafreq=-1, propfreq=-1, eagerfreq=-1, needscons=True)
    # One constraint, so that SCIP calls conslock (and the handler is never skipped as empty).
    model.addPyCons(model.createCons(col, "collect", initial=False, separate=False, enforce=True, check=True,
                                     propagate=False, local=False, modifiable=False, dynamic=False,
                                     removable=False, stickingatnode=False))
    if kbest:
        pruner = BoundPruner(col)
        model.includeConshdlr(pruner, "gobnilp_kbest_bound", "prunes nodes below the k-th best score",
                              sepapriority=0, enfopriority=9_999_999, chckpriority=9_999_999,
                              sepafreq=-1, propfreq=-1, eagerfreq=-1, needscons=False)
        col.pruner = pruner  # type: ignore[attr-defined]
    return col
