"""The ILP method: branch-and-cut on SCIP for the optimum, ε-sets and k-best lists.

The three entry points answer in table positions (:mod:`gobnilp_py.search.results`);
the drivers (:mod:`gobnilp_py.solve`) find the table, filter it by the structural
constraints, choose this method and present the answer.

:func:`optimum`
    Build the family-variable model (:func:`~gobnilp_py.ilp.model.build_model`),
    optimise, read SCIP's answer with a status that never overstates what was
    proven.
:func:`epsilon_set`
    Rebuild the same model with the enumeration settings (exactness:
    :data:`~gobnilp_py.ilp.settings.ENUMERATION_PARAMS`; speed:
    :data:`~gobnilp_py.ilp.settings.COLLECT_PARAMS` (by class:
    :data:`~gobnilp_py.ilp.settings.CLASS_COLLECT_PARAMS`),
    :data:`~gobnilp_py.ilp.settings.COLLECT_MODEL_OPTIONS`, all primal heuristics
    off), set the objective limit just below ``OPT - ε`` and let the
    :class:`~gobnilp_py.ilp.collector.NetworkCollector` record every acyclic
    integral point the search reaches, excluding each with a nogood.
:func:`kbest`
    The same collecting search, with the
    :class:`~gobnilp_py.ilp.collector.BoundPruner` cutting off every node whose
    LP bound falls below the k-th best score found so far.

Tolerances (``docs/enumeration.md``): membership at the boundary ``OPT - ε`` is
decided with ``tol = 1e-9 * max(1, |OPT|)`` (scores are exact ``math.fsum`` sums
of local scores; 1e-9 relative is far above their rounding error and far below
any real score difference); SCIP's objective limit is set a further
``margin = 1e-6 * max(1, |OPT|)`` lower, so LP round-off can never prune a
member; networks let through between the two are counted as ``near_boundary``.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConstraintError, ParameterError, SolverError
from ..scoring.table import ScoreTable
from ..search.results import Collection, Solution
from . import settings
from .settings import CLASS_COLLECT_PARAMS, COLLECT_MODEL_OPTIONS, COLLECT_PARAMS, ENUMERATION_PARAMS
from .stats import SolveStats

__all__ = ["optimum", "epsilon_set", "kbest", "tolerances", "REL_TOL", "REL_MARGIN"]

_log = logging.getLogger(__name__)

#: Relative tolerance of "same score" and of the ε boundary.
REL_TOL = 1e-9
#: Relative margin between the boundary and SCIP's objective limit.
REL_MARGIN = 1e-6

#: SCIP status -> our status (when an incumbent exists).
_STATUS = {"optimal": "optimal", "timelimit": "time_limit", "gaplimit": "gap_limit", "infeasible": "infeasible",
           "userinterrupt": "interrupted"}

#: SCIP status of a collecting search -> the reason it is incomplete.
_REASON = {"timelimit": "time_limit", "userinterrupt": "interrupted", "nodelimit": "node_limit",
           "memlimit": "memory_limit"}


def tolerances(opt: float) -> tuple[float, float]:
    """``(tol, margin)`` for an optimum ``opt`` (see the module docstring)."""
    scale = max(1.0, abs(opt))
    return REL_TOL * scale, REL_MARGIN * scale


def _solve(model: Any, what: str) -> None:
    """Run SCIP inside a caller's :func:`~gobnilp_py._interrupt.interruptible` block."""
    try:
        model.optimize()
    except Exception as exc:  # SCIP errors surface as generic exceptions
        raise SolverError(f"SCIP failed in {what}: {exc}") from exc


def _optimize(model: Any, what: str, on_stop: Any = None) -> None:
    """Run SCIP; Ctrl-C / SIGTERM stop it at its next safe point (status ``userinterrupt``).

    ``on_stop`` is called too (the collector stops recording at once: SCIP may
    keep re-solving one node's LP for a long time before it checks its flag).
    """
    from .._interrupt import interruptible

    def stop() -> None:
        if on_stop is not None:
            on_stop()
        model.interruptSolve()

    with interruptible(stop):
        _solve(model, what)


def _checked_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The caller's SCIP parameters, refusing those that would write files outside our control."""
    user = dict(params or {})
    if user:
        from .._scip_params import check_scip_params

        check_scip_params(user)
    return user


# --------------------------------------------------------------------------- optimum
def optimum(table: ScoreTable, *, constraints: Any = None, time_limit: float | None = None, gap: float = 0.0,
            params: Mapping[str, Any] | None = None, verbose: bool = False,
            model_options: Mapping[str, Any] | None = None, lower_bound: float | None = None,
            progress: Any = None, warm_start: bool = False, arrow_restart: float | None = None) -> Solution:
    """A network of maximum score in ``table`` under ``constraints`` (linear rows for what filtering cannot express).

    ``warm_start``: offer SCIP the ASOBS incumbent of the table
    (:func:`gobnilp_py.search.incumbent.quick_incumbent`, a deterministic
    budget of orders) once before the root node; SCIP checks it against every
    constraint and keeps it only if feasible, so the optimum is unchanged.
    ``stats["extra"]["warm_start"]`` records its score, cost and acceptance.
    Off by default: measured (``benchmarks/results/asobs-vs-blip-and-incumbent.md`` §4) it
    costs 0.2-0.4 s and gave no consistent gain: most tables are solved at the
    root, where SCIP's heuristics and the sink heuristic find the optimum
    anyway, and on the hard ones the effect went both ways.  From the drivers:
    ``learn(..., method="ilp", engine_options={"warm_start": True})``.
    ``lower_bound`` is accepted for interface symmetry and ignored: SCIP's own
    heuristics, the sink heuristic and the warm start find incumbents.

    ``arrow_restart``: the relative gap (SCIP's) at or above which a search still open after its root node
    goes on in a model with GOBNILP's arrow variables as branching candidates (:func:`_restart_with_arrows`);
    below it the same model goes on, with :data:`~gobnilp_py.ilp.settings.RESUME_PARAMS` (less strong
    branching) under the caller's own settings.  ``None`` takes :data:`~gobnilp_py.ilp.settings.ARROW_RESTART_GAP`,
    ``math.inf`` never restarts, ``0`` always does when the root leaves the search open.  Not with a caller's
    own node limit or ``arrow_vars`` model option.  ``stats["extra"]["arrow_restart"]`` says what happened.
    """
    from .model import build_model

    stats = SolveStats()
    scip: dict[str, Any] = {"limits/gap": float(gap)}
    if time_limit is not None:
        scip["limits/time"] = max(float(time_limit), 0.0)
    scip.update(_checked_params(params))
    options = dict(model_options or {})
    threshold = settings.ARROW_RESTART_GAP if arrow_restart is None else arrow_restart
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold >= 0:
        raise ParameterError(f"arrow_restart must be a relative root gap >= 0 (math.inf: never), got {arrow_restart!r}")
    restart = math.isfinite(threshold) and "limits/nodes" not in scip and not options.get("arrow_vars")
    try:
        fm = build_model(table, constraints=constraints, params=scip, verbose=verbose, stats=stats, **options)
    except ConstraintError as exc:  # a row no candidate family can meet: no admissible network
        return Solution("infeasible", -math.inf, None, stats={"reason": str(exc)})
    if warm_start:
        _add_warm_start(fm)
    from .._interrupt import interruptible

    # One interruptible block over every stage: a signal stops the model running now, and no later stage
    # starts after it (a signal as the root ended leaves SCIP's status at "nodelimit", not "userinterrupt").
    live = [fm.model]

    def stop() -> None:
        live[-1].interruptSolve()

    t0 = time.perf_counter()
    with interruptible(stop) as intr:
        if restart:
            fm.model.setParam("limits/nodes", 1)
        _solve(fm.model, "the optimum search")
        if restart and fm.model.getStatus() == "nodelimit" and not intr.interrupted:
            root_gap = float(fm.model.getGap())
            stats.extra["arrow_restart"] = {"root_gap": root_gap, "threshold": float(threshold),
                                            "restarted": root_gap >= threshold}
            if root_gap >= threshold:
                fm = _restart_with_arrows(fm, constraints=constraints, scip=scip, verbose=verbose, options=options,
                                          time_limit=time_limit, t0=t0, live=live, interrupted=lambda: intr.interrupted)
            else:  # the same model goes on (SCIP resumes the tree; its clock and time limit run on)
                fm.model.setParam("limits/nodes", -1)
                for key, value in settings.RESUME_PARAMS.items():
                    if key not in scip:                  # the caller's own settings win
                        fm.model.setParam(key, value)
                _solve(fm.model, "the optimum search")
        interrupted = intr.interrupted
    stats.time_solve = time.perf_counter() - t0
    sol = solution_from_model(fm)
    if interrupted and sol.status not in ("optimal", "infeasible"):
        sol.status = "interrupted"  # whatever limit SCIP reports, the search was cut short by the signal
    first = stats.extra.get("arrow_restart")
    if first is not None and first["restarted"]:  # the first model's nodes and LP work count too
        stats.nodes += first["nodes"]
        stats.lp_iterations += first["lp_iterations"]
        stats.time_lp += first["time_lp"]
    sol.stats.update(stats.to_dict())
    # Cluster (and k-cluster) inequalities hold for every DAG, whatever the objective: a collecting search
    # of the same table starts from them instead of finding them again (wdbc: the collection's root spent
    # 454 s re-deriving the ~1,000 cuts the optimum search had found).
    optimum = None
    if sol.status == "optimal" and sol.chosen is not None:
        optimum = [table.families[v][k][0] for v, k in enumerate(sol.chosen)]
    sol.reuse = SearchReuse(_found_cuts(fm), optimum=optimum)
    return sol


def _restart_with_arrows(fm: Any, *, constraints: Any, scip: dict[str, Any], verbose: bool,
                         options: dict[str, Any], time_limit: float | None, t0: float, live: list[Any],
                         interrupted: Any) -> Any:
    """Go on with a search its root node left open, in a model with arrow variables.

    Why: GOBNILP's arrow variables (``a[p, c] = 1`` iff ``p`` is a parent of ``c``) are better branching
    candidates than single families: each splits the networks into two large halves, where fixing a family
    to 0 leaves almost all of them.  On alarm10000 they shrank the tree 831 -> 306 nodes, but in the model
    from the start they make every root round dearer (a larger, more degenerate LP: hailfinder5000, solved
    at the root, 8.6 -> 24.0 s), and most tables are solved at the root or near it
    (``benchmarks/results/ilp-hard-tables-vs-gobnilp.md``).  So the search starts without them and only a
    search whose root leaves a gap of at least the threshold is rebuilt with them: a large root gap means
    a long tree, where they pay; a small one is closed in a few nodes, where the rebuild costs more than
    it saves (:data:`~gobnilp_py.ilp.settings.ARROW_RESTART_GAP`, measured in ``docs/solver.md``).
    Nothing the first model learnt is lost that matters: its cluster, k-cluster and four-node cuts are put into the new root LP (``seed``,
    ``seed_four``), its best network is offered as the new model's first solution, and the time limit is
    the caller's total.

    Exact: the new model is the same ILP (the arrow variables are defined by equalities over the
    families) with valid inequalities added, so its optimum is the table's optimum.

    ``live``: the caller's list of running models (its signal handler stops the last one); the new model
    joins it just before it runs.  ``interrupted()``: whether a signal came; if one comes while the new
    model is built, the first model is returned as it is (the caller labels it interrupted).
    """
    from .heuristic import add_start_heuristic
    from .model import build_model

    m, stats = fm.model, fm.stats
    first = stats.extra["arrow_restart"]
    first.update({"nodes": int(m.getNTotalNodes()), "lp_iterations": int(m.getNLPIterations()),
                  "time_lp": _lp_time(m), "seconds": round(time.perf_counter() - t0, 3), "dual_bound": _dual(m),
                  "primal": float(m.getPrimalbound()) if m.getNSols() else None})
    cuts = _found_cuts(fm)
    quads = sorted(fm.acyclicity.added_four)
    incumbent = fm.chosen() if m.getNSols() else None
    # ASOBS knows only the table: with structural rows the root's network stays
    if constraints is None and first["root_gap"] >= settings.ASOBS_START_GAP:
        left = None if time_limit is None else max(float(time_limit) - (time.perf_counter() - t0), 0.0)
        incumbent = _better_start(fm, incumbent, left, first)
    first["cuts_seeded"] = len(cuts)
    first["four_node_seeded"] = len(quads)
    p = {**settings.ARROW_RESTART_PARAMS, **scip}
    if time_limit is not None:
        p["limits/time"] = max(float(time_limit) - (time.perf_counter() - t0), 0.0)
    new = build_model(fm.table, constraints=constraints, params=p, verbose=verbose, stats=stats,
                      **{**options, "arrow_vars": True})
    new.acyclicity.seed = [(frozenset(int(v) for v in c), int(k)) for c, k in cuts]
    new.acyclicity.seed_four = quads
    if incumbent is not None:
        add_start_heuristic(new, incumbent, record_as="arrow_restart")
    if interrupted():
        first["restarted"] = False
        first["interrupted_before_rebuild"] = True
        return fm
    live.append(new.model)
    _solve(new.model, "the optimum search (with arrow variables)")
    return new


def _better_start(fm: Any, incumbent: Sequence[int] | None, left: float | None,
                  record: dict[str, Any]) -> Sequence[int] | None:
    """The better first network for the arrow model: the root's incumbent or an ASOBS search's.

    Only where the root gap is at least :data:`~gobnilp_py.ilp.settings.ASOBS_START_GAP`.  Why: a root
    that leaves a large gap often leaves a poor incumbent too.  On win95pts at 1,000 rows the
    sink heuristic's best after 120 s was -9,978.5 (the C program's -9,899.3), while ASOBS over 16 seeded
    orders with insertions finds -9,769.0 in 0.2 s; the bound was level with the C program's, so the whole
    gap difference was the incumbent.  A fixed number of seeded orders (:func:`incumbent_orders`) keeps the
    answer deterministic; ``left`` (the caller's remaining time) bounds it.  Offered through SCIP's
    ``trySol`` like the root's network, so it changes which network comes first, never the optimum.
    """
    from ..search.asobs.engine import asobs_search
    from ..search.incumbent import incumbent_orders

    table = fm.table
    t = time.perf_counter()
    run = asobs_search(table, n_orders=incumbent_orders(table.n, len(table)), seed=0, time_limit=left)
    seconds = time.perf_counter() - t
    info: dict[str, Any] = {"score": run.score if run.chosen is not None else None, "orders": run.orders,
                            "seconds": round(seconds, 3)}
    record["asobs"] = info
    fm.stats.time_heuristic += seconds
    if run.chosen is None or not math.isfinite(run.score):
        return incumbent
    root = float(fm.model.getPrimalbound()) if incumbent is not None else -math.inf
    info["used"] = run.score > root
    return tuple(run.chosen) if info["used"] else incumbent


def _found_cuts(fm: Any) -> list[tuple[frozenset[int], int]]:
    """The ``(cluster, k)`` cuts a model's acyclicity handler added, in a fixed order (deterministic seeding)."""
    return sorted(fm.acyclicity.added, key=lambda ck: (ck[1], len(ck[0]), sorted(ck[0])))


class SearchReuse(list):  # type: ignore[type-arg]
    """What an optimum search hands to a later search of the same variables: its cluster (and k-cluster)
    cuts, ``(cluster, k)`` pairs valid for every DAG (the list itself), and the proven optimum's parent
    sets (``optimum``, in variable indices; None when unproven).

    Why the optimum: a collection by class decides from the optimum's class size whether to branch on
    class-invariant quantities (:mod:`.class_branching`).  Parent sets, not table positions, so that both
    hold for any table of the same variables (a part of a split collection holds fewer families); a list,
    so that it travels as the cuts did (pickled to a split collection's workers,
    :func:`gobnilp_py.solve.results.portable_reuse`).
    """

    def __init__(self, cuts: Any = (), optimum: Sequence[Sequence[int]] | None = None) -> None:
        super().__init__(cuts)
        self.optimum = None if optimum is None else tuple(tuple(int(p) for p in ps) for ps in optimum)


def _optimum_class_size(n: int, reuse: Any) -> int | None:
    """Members of the Markov equivalence class of the optimum ``reuse`` carries (None without one)."""
    optimum = getattr(reuse, "optimum", None)
    if optimum is None or len(optimum) != n:
        return None
    from ..equivalence.cpdag import cpdag_from_masks

    masks = [sum(1 << p for p in ps) for ps in optimum]
    return cpdag_from_masks([str(v) for v in range(n)], masks, validate=False).count_dags()


def _add_warm_start(fm: Any) -> None:
    """Compute the ASOBS incumbent of ``fm.table`` and include it as SCIP's start heuristic."""
    from ..search.incumbent import quick_incumbent
    from .heuristic import add_start_heuristic

    t0 = time.perf_counter()
    inc = quick_incumbent(fm.table)
    info: dict[str, Any] = {"source": "asobs", "time": time.perf_counter() - t0}
    if inc is not None:
        info.update(score=inc.score, orders=inc.orders)
        add_start_heuristic(fm, inc.chosen)
    else:
        info["score"] = None
    fm.stats.extra["warm_start"] = info
    fm.stats.time_heuristic += info["time"]


def solution_from_model(fm: Any) -> Solution:
    """Read a solved model into a :class:`Solution` with an honest status and the solver counters."""
    m, table, stats = fm.model, fm.table, fm.stats
    scip_status = m.getStatus()
    stats.nodes = int(m.getNTotalNodes())
    stats.lp_iterations = int(m.getNLPIterations())
    stats.time_lp = _lp_time(m)
    has_sol = m.getNSols() > 0
    if scip_status == "infeasible" or (scip_status == "optimal" and not has_sol):
        return Solution("infeasible", -math.inf, None, stats={"scip_status": scip_status})
    if not has_sol:
        status = "interrupted" if scip_status == "userinterrupt" else "no_solution"
        return Solution(status, -math.inf, None, dual_bound=_dual(m), stats={"scip_status": scip_status})
    status = _STATUS.get(scip_status, "feasible")
    chosen = tuple(fm.chosen())
    total = math.fsum(table.families[v][k][1] for v, k in enumerate(chosen))
    dual = _dual(m)
    dual = total if status == "optimal" else (max(dual, total) if dual is not None else None)
    return Solution(status, total, chosen, dual_bound=dual, stats={"scip_status": scip_status})


def _dual(m: Any) -> float | None:
    try:
        d = float(m.getDualbound())
    except Exception:  # no bound in this stage
        return None
    return d if math.isfinite(d) and abs(d) < 1e19 else None


_LP_LINE = re.compile(r"^\s*(primal LP|dual LP|lex dual LP|barrier LP|resolve instable|diving/probing LP|"
                      r"strong branching|conflict analysis)\s*:\s*([0-9.]+)")


def _lp_time(m: Any) -> float:
    """Seconds SCIP spent in LP solves (read from its statistics; PySCIPOpt exposes no getter)."""
    fd, path = tempfile.mkstemp(suffix=".stats")
    os.close(fd)
    try:
        m.writeStatistics(path)
        total = 0.0
        for line in Path(path).read_text().splitlines():
            hit = _LP_LINE.match(line)
            if hit and hit.group(1) != "conflict analysis":
                total += float(hit.group(2))
        return total
    except Exception:  # statistics are a nicety; never fail a solve over them
        _log.debug("could not read SCIP LP time", exc_info=True)
        return math.nan
    finally:
        os.unlink(path)


# ------------------------------------------------------------------------ collecting
def _collect(table: ScoreTable, constraints: Any, *, objlimit: float | None, max_networks: int | None,
             kbest: int | None, tie_tolerance: float, time_limit: float | None, params: Mapping[str, Any] | None,
             verbose: bool, progress: Any = None, by_class: bool = False,
             seed_cuts: Any = None, listing_per_class: float = 0.0) -> tuple[Any, Any, dict[str, Any]]:
    """Run one collecting search; returns (family model, collector, stats).

    ``seed_cuts``: ``(cluster, k)`` inequalities found by an earlier search of the same table, put into the
    root LP at the first separation round (valid for every DAG: exactness does not depend on them).
    ``listing_per_class``: with ``by_class`` and a time limit, end the search that many seconds per class
    found before the limit (:meth:`NetworkCollector.budget_check`).
    """
    import pyscipopt

    from .collector import include_collector
    from .model import build_model

    user = _checked_params(params)
    if time_limit is not None:
        user["limits/time"] = max(float(time_limit), 0.0)
    # The caller may tune speed settings, never the ones completeness rests on.
    for key in ENUMERATION_PARAMS:
        if key in user and user[key] != ENUMERATION_PARAMS[key]:
            _log.warning("SCIP parameter %s=%r ignored: the enumeration needs %r to stay exact",
                         key, user[key], ENUMERATION_PARAMS[key])
            del user[key]
    base = CLASS_COLLECT_PARAMS if by_class else COLLECT_PARAMS
    p: dict[str, Any] = {**base, **user, **ENUMERATION_PARAMS}
    fm = build_model(table, constraints=constraints, params=p, verbose=verbose, heuristic=False,
                     **COLLECT_MODEL_OPTIONS)
    # No primal heuristic can succeed (the collector rejects every point): switch them all off, then
    # re-apply the caller's settings (already validated by build_model) so they still win.
    fm.model.setHeuristics(pyscipopt.SCIP_PARAMSETTING.OFF)
    for key, value in user.items():
        fm.model.setParam(key, value)
    col = include_collector(fm.model, fm.index, fm.xflat, max_networks=max_networks, kbest=kbest,
                            tie_tolerance=tie_tolerance, progress=progress, by_class=by_class)
    if by_class and settings.CLASS_BRANCHING:
        # Branch on adjacencies and v-structures first, so that a class's members stay in one subtree
        # (a partition of the points: exact; ``class_branching``'s docstring).
        from .class_branching import include_class_branching

        fm.extra["class_branching"] = include_class_branching(fm.model, fm.index, fm.xflat, col.class_sizes,
                                                              optimum_class_size=_optimum_class_size(table.n, seed_cuts))
    budget = by_class and time_limit is not None and listing_per_class > 0
    if progress is not None or budget:  # report (and check the budget) also while nothing is found
        fm.extra["heartbeat"].tick = col.tick
    if objlimit is not None:
        fm.model.setObjlimit(objlimit)
    if seed_cuts:
        fm.acyclicity.seed = [(frozenset(int(v) for v in c), int(k)) for c, k in seed_cuts]
    t0 = time.perf_counter()
    if budget:
        col.search_deadline = t0 + max(float(time_limit), 0.0)
        col.listing_per_class = float(listing_per_class)
    _optimize(fm.model, "the collecting search", on_stop=col.request_stop)
    status = fm.model.getStatus()
    stats: dict[str, Any] = {
        "time_collect": time.perf_counter() - t0,
        "scip_status": status,
        "nodes": fm.model.getNNodes(),
        "cuts_total": fm.stats.cuts_total,
        "cuts": {"integral": fm.stats.cuts_integral, "cycle": fm.stats.cuts_cycle, "subip": fm.stats.cuts_subip,
                 "seed": fm.stats.cuts_seed},
        "found": len(col.found),
        "by": "class" if by_class else "dag",
        "duplicates": col.duplicates,
        "nogood_recuts": col.recuts,
        "time_record": col.time_record,
    }
    if col.bound_at_stop is not None:
        stats["stopped_for_listing"] = True
    rule = fm.extra.get("class_branching")
    if rule is not None:
        stats["branch_adjacency"] = rule.n_adjacency
        stats["branch_vstructure"] = rule.n_vstructure
        stats["branch_passed"] = rule.n_passed
        stats["branch_rule_on"] = rule.active is not False
        stats["branch_mean_class_members"] = rule.mean_class_members
        stats["branch_optimum_class_members"] = rule.optimum_class_members
    if kbest:
        stats["pruned_by_bound"] = col.pruner.pruned
    if col.duplicates:
        raise SolverError(f"the collector found {col.duplicates} network(s) twice; the enumeration is not exact")
    return fm, col, stats


def _incomplete_reason(status: str, col: Any) -> str | None:
    if col.stop_reason is not None:
        return col.stop_reason
    if status in ("infeasible", "inforunbd", "optimal"):
        return None  # the whole tree was searched
    return _REASON.get(status, status)


def _positions(fm: Any, key: tuple[int, ...]) -> tuple[int, ...]:
    """Flat family indices (one per node) -> positions in each node's family list."""
    start = fm.index.start
    return tuple(int(f - start[v]) for v, f in enumerate(key))


def epsilon_set(table: ScoreTable, *, opt: float, epsilon: float, constraints: Any = None,
                max_networks: int | None = None, time_limit: float | None = None,
                params: Mapping[str, Any] | None = None, verbose: bool = False, progress: Any = None,
                by_class: bool = False, reuse: Any = None, listing_per_class: float = 0.0,
                subproblem: bool = False) -> Collection:
    """Every network of ``table`` with score ``>= opt - epsilon`` (up to the tolerance), in one search.

    ``opt`` must be the proven optimum of the same table and constraints, unless
    ``subproblem``: then ``table`` is one part of a split collection
    (:mod:`gobnilp_py.solve.split`), ``opt`` the optimum of the whole table, and
    the part may hold no network scoring ``opt`` (or none at all within ε).  With
    ``by_class`` the search records one network per Markov equivalence class
    (excluding each class found with one class nogood) and ``max_networks``
    caps the number of classes; the driver lists the members.  ``reuse``: the
    :attr:`Solution.reuse <gobnilp_py.search.results.Solution.reuse>` of the
    optimum search (its cluster cuts, put into the root LP; they hold for every
    DAG, so no network is lost).  ``listing_per_class``: with ``by_class`` and a
    ``time_limit``, seconds kept per class found for the driver's listing (the
    search stops early enough to leave them).
    """
    tol, margin = tolerances(opt)
    fm, col, stats = _collect(table, constraints, objlimit=opt - epsilon - tol - margin, max_networks=max_networks,
                              progress=progress, kbest=None, tie_tolerance=0.0, time_limit=time_limit,
                              params=params, verbose=verbose, by_class=by_class, seed_cuts=reuse,
                              listing_per_class=listing_per_class)
    reason = _incomplete_reason(stats["scip_status"], col)
    found_best = max(col.found.values(), default=-math.inf)
    new_opt = None
    if found_best > opt + tol:
        _log.warning("collection found a network better than the optimum by %.3g; using it as OPT", found_best - opt)
        opt = new_opt = found_best
    limit = opt - epsilon - tol
    entries = [(sc, _positions(fm, key)) for key, sc in col.found.items() if sc >= limit]
    # Networks the solver margin let through just below the boundary (reported, excluded); points the
    # collector saw further below (e.g. checked heuristic points) are simply not members.
    near = sum(1 for sc in col.found.values() if limit - margin <= sc < limit)
    if reason is None and found_best < opt - tol and not subproblem:
        raise SolverError("the collection did not find the optimal network; the enumeration is not exact")
    threshold = None
    if reason is not None:
        # The search's global dual bound: every point not yet recorded lies in an open node,
        # whose LP bound is at most the dual bound; so every member scoring above it was recorded.
        bound = _dual(fm.model)
        if col.bound_at_stop is not None:  # stopped by the listing budget: the bound when it stopped counts too
            b = col.bound_at_stop
            bound = max(bound, b) if bound is not None and math.isfinite(b) and abs(b) < 1e19 else None
        if bound is not None:
            threshold = max(bound + tol, limit)
    return Collection(entries, reason, near_boundary=near, threshold=threshold, opt=new_opt, by_class=by_class,
                      stats=stats)


def kbest(table: ScoreTable, *, k: int, opt: float | None = None, constraints: Any = None,
          time_limit: float | None = None, epsilon_hint: float | None = None,
          params: Mapping[str, Any] | None = None, verbose: bool = False, progress: Any = None,
          by_class: bool = False, widen: bool = True, reuse: Any = None) -> Collection:
    """The ``k`` best networks of ``table`` (and every network tied with the k-th), in one or two searches.

    ``opt`` is the proven optimum (found first when not given).  With
    ``epsilon_hint`` the first search runs under the objective limit
    ``opt - epsilon_hint`` as well as the rising k-th best threshold; if fewer
    than ``k`` networks lie within it, a second search runs without the limit.
    With ``by_class`` the entries are one representative per equivalence class:
    the k best classes (and every class tied with the k-th).  With
    ``widen=False`` no second search runs: the caller rescores the data for a
    wider gap instead (cheaper than searching an ε-safe table without a limit).
    ``reuse``: cluster cuts of an optimum search (see :func:`epsilon_set`); the
    optimum search run here when ``opt`` is not given supplies its own.
    """
    t0 = time.perf_counter()
    if opt is None:
        sol = optimum(table, constraints=constraints, time_limit=time_limit, params=params, verbose=verbose)
        if sol.status == "infeasible":
            return Collection([], None, stats={"opt_status": sol.status})
        if sol.status != "optimal":
            entries = [(sol.score, sol.chosen)] if sol.chosen is not None else []
            return Collection(entries, sol.status, stats={"opt_status": sol.status})
        opt = sol.score
        reuse = reuse if reuse is not None else sol.reuse
        if time_limit is not None:
            time_limit -= time.perf_counter() - t0
            t0 = time.perf_counter()
    tol, margin = tolerances(opt)
    rounds = 0
    use_limit = epsilon_hint is not None and opt - epsilon_hint >= _table_floor(table)
    while True:
        rounds += 1
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        objlimit = opt - epsilon_hint - tol - margin if use_limit else None
        fm, col, stats = _collect(table, constraints, objlimit=objlimit, max_networks=None, kbest=k,
                                  tie_tolerance=tol + margin, time_limit=remaining, params=params, verbose=verbose,
                                  progress=progress, by_class=by_class, seed_cuts=reuse)
        reason = _incomplete_reason(stats["scip_status"], col)
        if reason is not None or len(col.found) >= k or not use_limit or not widen:
            break
        use_limit = False  # fewer than k networks within the hint: search the whole table
    ranked = sorted(col.found.values(), reverse=True)
    entries = [(sc, _positions(fm, key)) for key, sc in col.found.items()]
    if len(ranked) >= k:
        kth = ranked[k - 1]
        entries = [e for e in entries if e[0] >= kth - tol]
    new_opt = ranked[0] if ranked and ranked[0] > opt + tol else None
    stats["searches"] = rounds
    return Collection(entries, reason, opt=new_opt, by_class=by_class, stats=stats)


def _table_floor(table: ScoreTable) -> float:
    """A lower bound on every network's score in ``table``: the sum of each node's worst local score."""
    return math.fsum(min(sc for _, sc in fams) for fams in table.families)
