"""``learn()``: the best Bayesian network of a score table or of data, by any method (approximate ones labelled).

A driver: get the table (:mod:`.inputs`), filter it by the structural
constraints, choose the method (:mod:`.methods`; ``"auto"`` says why it chose),
run its ``optimum`` and present the answer as a :class:`~gobnilp_py.network.Network`
whose ``status`` never overstates what was proven.  The answer is checked
against every structural constraint before it is returned, and with
``verify=True`` a second exact method must agree on the optimal score.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from typing import Any

from ..errors import ConstraintError, ParameterError, SolverError
from ..network import Network
from .._validation import check_bool, check_int
from .._budget import Budget
from .keywords import check_keywords
from ._checks import check_budget, check_gap, check_lower_bound_held, check_method
from .approximate import acquire_for, label_network, split_workers
from .inputs import as_constraints, filter_table, memory_limit_of, score_provenance
from .ordered import learn_with_order
from .request import SearchRequest
from .methods import AUTO, engine_module, get_method, method_options, resolve_method, takes_workers, with_memory_limit
from .results import network_from_solution
from .verify import verify_optimum

__all__ = ["learn", "SEARCH_SHARE"]

_log = logging.getLogger(__name__)

#: Share of a time limit that scoring data for ``learn`` leaves to the search: scoring stops at
#: ``1 - SEARCH_SHARE`` of the limit, so that a table truncated by the limit is still searched (its best
#: network, labelled INCOMPLETE) instead of answering with no network at all.  A scoring run that
#: finishes earlier leaves the search everything that is left.
SEARCH_SHARE = 0.1


def learn(data_or_table: Any, *, method: str = "auto", score: str | None = None, constraints: Any = None,
          time_limit: float | None = None, gap: float | None = None, verbose: bool = False,
          params: Mapping[str, Any] | None = None, model_options: Mapping[str, Any] | None = None,
          memory_budget: int | None = None, engine_options: Mapping[str, Any] | None = None,
          verify: bool = False, progress: Any = None, order: Any = None, seed: int | None = None,
          n_orders: int | None = None, **scoring_options: Any) -> Network:
    """Learn a network of maximum score.

    Parameters
    ----------
    data_or_table : ScoreTable, path, Dataset, DataFrame or array
        A score table, a ``.jkl`` file, or data to score (see :func:`gobnilp_py.scoring.score`).
    method : str
        ``"auto"`` (default; the result's ``stats["method_reason"]`` says why),
        ``"ilp"``, ``"ordergraph"``, ``"dp"`` or the approximate ``"asobs"``
        (see :mod:`gobnilp_py.solve.methods`).  ``"auto"`` only picks exact
        methods.  With ``"asobs"`` data are scored by independence selection
        (:mod:`gobnilp_py.solve.approximate`; 80% of ``time_limit``, options
        ``candidate_limit``, ``max_evaluations``, ``time_per_variable``,
        ``n_jobs``, ``palim``) and the network is labelled approximate.  Its
        restarts run on ``n_jobs`` worker processes (default: every core) or
        on the Dask cluster of ``backend="dask"``, ``scheduler=``, also when
        given a score table; with ``n_orders`` and no time limit the network
        is the same for any number of workers.
    score : str, optional
        Local score used when scoring data ("BIC" by default, "BDeu", ...).
    constraints : StructuralConstraints, mapping or path, optional
        Structural constraints; a method that cannot honour one of them is refused.
    time_limit : float or Budget, optional
        Wall-clock seconds for the whole call: reading a data file, scoring and
        the search (a :class:`gobnilp_py.Budget` started earlier covers what ran
        before too).  Scoring data stops at ``1 - SEARCH_SHARE`` (90%) of it,
        leaving the search the rest; the search gets whatever is left.  When it
        stops the search the status is ``"time_limit"`` (best network found,
        with a dual bound) or ``"no_solution"`` (none found yet), never
        ``"optimal"``.  When it stops scoring, the truncated table (parent sets
        up to the last complete size) is searched and the network is labelled
        ``"time_limit"`` without a bound: nothing is known about the optimum.
    gap : float, optional
        ILP only: relative gap at which to stop (status ``"gap_limit"``).
    verbose : bool
        ILP only: show SCIP's log.
    params : mapping, optional
        ILP only: SCIP parameters (applied last).
    model_options : mapping, optional
        ILP only: options of :func:`~gobnilp_py.ilp.model.build_model`.
    engine_options : mapping, optional
        Further options of the chosen method's engine (refused, in one line,
        when the method does not take them), e.g. ``{"trace_memory": True}``
        for ``"dp"``.
    memory_budget : int, optional
        Bytes the order-graph or DP engines may use (they refuse, before any
        allocation, a run whose estimate exceeds it).
    seed : int, optional
        ``"asobs"`` only: seed of its random orders (default 0; a run is
        deterministic for a given seed and order count).
    n_orders : int, optional
        ``"asobs"`` only: stop after this many random orders (default: the
        time limit, else :data:`gobnilp_py.search.asobs.engine.DEFAULT_ORDERS`).
        With it and no time limit a run is deterministic.
    verify : bool
        Also run a second exact method (:mod:`.verify` says which) and raise
        :class:`SolverError` if the optimal scores differ.  ``time_limit``
        covers it; a check a limit cuts short leaves the network labelled not verified
        (a caveat, ``stats["verification"]``).  Refused with an approximate
        method (asobs): it proves no optimum to confirm.
    progress : callable, optional
        Progress hook, passed to scoring and the engine.
    order : list of str, optional
        A total variable order (every variable once, first to last): the best
        network whose arrows all follow it (the fixed-order search,
        :mod:`gobnilp_py.solve.ordered`; ``method`` must be ``"auto"``).
    **scoring_options
        ``ess``, ``palim``, ``bayes_factor``, ``epsilon``, ``prune``, ...: passed to scoring.

    Returns
    -------
    Network
        ``stats`` holds the method, why it was chosen, counters and the time split.
    """
    t_start = time.perf_counter()
    check_keywords("learn", scoring_options)
    verify, verbose = check_bool(verify, "verify"), check_bool(verbose, "verbose")
    budget = check_budget(time_limit, t_start)
    gap = check_gap(gap)
    method = check_method(method, "method", "optimum")
    seed = check_int(seed, "seed", lo=0, allow_none=True)
    n_orders = check_int(n_orders, "n_orders", lo=1, allow_none=True)
    given_options = {"gap": gap, "params": params, "verbose": verbose, "model_options": model_options,
                     "memory_budget": memory_budget, "seed": seed, "n_orders": n_orders,
                     **dict(engine_options or {})}
    # the rules between the keywords, before reading or scoring (the config and the CLI check the same)
    SearchRequest(order=order, method=method, task="optimum", options=given_options, verify=verify,
                  constraints=constraints, palim=scoring_options.get("palim")).check()
    if order is not None:  # the fixed-order route (solve/ordered.py)
        return learn_with_order(data_or_table, order, method=method, constraints=constraints, time_limit=budget,
                                engine_options={"gap": gap, "params": params, "verbose": verbose,
                                                "model_options": model_options, "memory_budget": memory_budget,
                                                **dict(engine_options or {})}, verify=verify, progress=progress,
                                scoring_options={**({"score": score} if score is not None else {}),
                                                 **scoring_options}, cross_check=learn)
    cons = as_constraints(constraints)
    if score is not None:
        scoring_options = {"score": score, **scoring_options}
    workers: dict[str, Any] = {}
    if takes_workers(method):  # its search runs on the call's n_jobs/backend/scheduler, as scoring does
        scoring_options, workers = split_workers(data_or_table, scoring_options)
    # an approximate method (asobs) given data scores them by independence selection, within a share of the time
    # one optimal network is the task: constant columns are scored out and put back isolated
    scoring_budget = budget.ending_before(SEARCH_SHARE * budget.time_limit) if budget.limited else budget
    table, info = acquire_for(method, data_or_table, time_limit=budget.left_for_engine(), epsilon=None,
                              constraints=cons, scoring_options=scoring_options, progress=progress,
                              optimum_only=True, budget=scoring_budget)
    kinds = cons.kinds() if cons is not None else frozenset()
    searched = filter_table(table, cons)
    # the search skips isolated constant variables (each has ∅ alone and is nobody's parent)
    core = _core(searched, cons) if searched is not None else None
    space = core.table if core is not None else searched
    sized = core.table if core is not None else table      # what the method is chosen for
    m, why = resolve_method(method, "optimum", sized.n, kinds, len(sized), given_options)
    opts = with_memory_limit(m, method_options(m, given_options), memory_limit_of(budget, scoring_options))
    opts.update(workers)
    stats: dict[str, Any] = {"method": m.name, "method_reason": why, "time_scoring": info.time_scoring,
                             **score_provenance(table)}
    if space is None:
        return label_network(Network(table.names, {}, score=-math.inf, status="infeasible", stats=stats), info, m)
    remaining = budget.remaining()
    if remaining is not None and remaining <= 0 and m.exact:  # an approximate search still tries one order
        return label_network(Network(table.names, {}, score=-math.inf, status="time_limit", stats=stats), info, m)
    engine = engine_module(m)
    t0 = time.perf_counter()
    _stage(progress, "optimum", m.name)
    sol = engine.optimum(space, constraints=cons if m.constraint_kinds is None else None,
                         time_limit=budget.left_for_engine(), progress=progress, **opts)
    if info.stopped is not None:
        # optimal (or bounded) for the truncated table only: for the data the limit cut the work short, and the
        # table's bound is no bound on the data's optimum
        stats["scoring_stopped"] = info.stopped
        if sol.status == "optimal":
            stats["optimal_for_truncated_table"] = True
        if sol.status in ("optimal", "gap_limit"):
            sol.status = info.stopped
        sol.dual_bound = None
    sol.reuse = None            # kept by engines for a later collection (the order graph's lookups): not needed
    searched_score = sol.score                             # the optimum of ``space``, before any widening
    if core is not None:
        sol = core.widen(sol)
        stats["isolated_constants"] = list(table.isolated_constants)
    stats["time_search"] = time.perf_counter() - t0
    check_lower_bound_held(table, sol)
    net = label_network(network_from_solution(searched, sol, stats=stats), info, m, orders=sol.stats.get("orders"))
    _check_answer(net, cons)
    if verify and net.status == "optimal":
        # the second method searches what the first did (the core, when constants are isolated)
        verify_optimum(net, space, cons, m.name, kinds, score=searched_score, deadline=budget.deadline,
                       memory_budget=memory_budget)
    net.stats["time_total"] = time.perf_counter() - t_start
    _log.info("learn (%s): status %s, score %.6f, %.2fs", m.name, net.status, net.score, net.stats["time_total"])
    return net


def _core(table: Any, cons: Any) -> Any:
    """The table without its isolated constant variables (:func:`~gobnilp_py.scoring.constants.isolated_core`),
    or ``None``: when it has none, or the constraints name one (the engine would not know it)."""
    if not table.isolated_constants:
        return None
    from ..scoring.constants import isolated_core

    core = isolated_core(table)
    if core is not None and cons is not None:
        try:
            cons.validate(core.table.names)
        except ConstraintError:
            return None
    return core


def _stage(progress: Any, stage: str, method: str, **info: Any) -> None:
    """Tell the progress display which search stage starts (so the last scoring report is not left on screen
    as if scoring were still running).  ``progress("search", 0, None, stage=..., method=...)``."""
    if progress is not None:
        progress("search", 0, None, stage=stage, method=method, **info)


def _check_answer(net: Network, constraints: Any) -> None:
    """Refuse to return a network that an engine accepted but that breaks a constraint.

    A cheap independent check (a cycle is already refused when the
    :class:`Network` is built).  The same kind of check once caught SCIP
    returning an excluded network in the re-solve k-best (``docs/kbest.md``),
    so answers are checked rather than trusted.
    """
    if not math.isfinite(net.score) or constraints is None:
        return
    broken = constraints.violations(net)
    if broken:
        raise SolverError(f"the search returned a network that breaks a constraint ({broken[0]}); "
                          "the result would not be exact (please report this)")
