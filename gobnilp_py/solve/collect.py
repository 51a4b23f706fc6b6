"""``enumerate_networks()``: ε-BNSL, every network within a Bayes factor of the optimum.

A driver, the same for every method that can collect (:mod:`.methods`):

1. get a table safe for ε (score the data for ε, or check a given table
   supports ε; :mod:`.inputs`) and filter it by the structural constraints;
2. find OPT with the method's ``optimum``;
3. collect every network with ``score >= OPT - ε`` with the method's
   ``epsilon_set`` (the ILP: one branch-and-cut search with an objective limit
   and a nogood per network; the order graph: a branch and bound with the
   exact subset-DP bound);
4. label the result: complete or why not, what a cut-short result still
   guarantees (a certified score threshold), and any caveat of the table.

Membership at the boundary uses ``tol = 1e-9 * max(1, |OPT|)``
(``docs/enumeration.md``): networks at ``OPT - ε`` are kept.
"""

from __future__ import annotations

import bisect
import logging
import math
import time
from collections.abc import Mapping
from typing import Any

from .._budget import Budget
from .._validation import check_bool
from ..errors import ParameterError, SolverError
from .keywords import check_keywords
from ._checks import check_budget, check_by, check_epsilon, check_lower_bound_held, check_max_networks, check_method
from .classes import expand_classes
from .credible import CredibleSet
from .inputs import (acquire_table, as_constraints, filter_table, mark_members, memory_limit_of,
                     score_provenance)
from .learn import _check_answer, _stage
from .ordered import enumerate_with_order
from .request import SearchRequest
from .methods import engine_module, method_options, resolve_method, with_memory_limit
from .results import network_from_solution, portable_reuse, take_reuse, tolerance_of
from .set_posterior import sourced as _sourced, source_for
from .verify import verify_collection

__all__ = ["enumerate_networks", "INTERRUPT_GRACE", "LISTING_RESERVE", "LISTING_RESERVE_MAX",
           "LISTING_SECONDS_PER_CLASS", "listing_reserve"]

#: Seconds the members of the classes found may still be listed after Ctrl-C / SIGTERM stopped the search.
INTERRUPT_GRACE = 2.0

#: Collecting by class under a time limit, the search gets the remaining time less a reserve for listing the
#: members of the classes it found (:func:`listing_reserve`): at most this share of the remaining time ...
LISTING_RESERVE = 0.2
#: ... and at most what listing ``max_networks`` networks costs at this many seconds a network (expanding
#: the classes and building the networks: 125 µs a network on lung-cancer, 57 variables), but never capped
#: below :data:`LISTING_RESERVE_MAX` seconds.  Why: with a flat 5 s, a 120 s run on lung-cancer found 4,045
#: classes (about 200,000 networks) and had time to list 231 of them (11,952 networks).
LISTING_SECONDS_PER_NETWORK = 120e-6
LISTING_RESERVE_MAX = 5.0
#: ... and, on top, this many seconds for every class the search finds: the search stops that much earlier
#: (:meth:`~gobnilp_py.ilp.collector.NetworkCollector.budget_check`) and listing the members may use it.
#: Why: expanding a class (its CPDAG, its members counted and listed) costs about 0.45 ms on soybean
#: (36 variables, 3 networks a class), and a 4,200 s search there found 69,642 classes, of which the
#: fixed reserve above let 10,828 be listed.  1 ms keeps a margin of two.
LISTING_SECONDS_PER_CLASS = 1e-3

#: Share of the time left after the search that listing the members may use; the rest is for turning them
#: into :class:`~gobnilp_py.network.Network` objects (lung-cancer: 3 ms a class to count and list its
#: members, about 6 ms to build its networks).
LISTING_SHARE = 0.35
#: ... but building the networks is always left the smaller of this share of the time left and
#: :data:`BUILD_SECONDS_PER_NETWORK` for each network that may be listed (``max_networks``), whatever the
#: classes' own allowance.  Why: after SIGTERM at 60 s on lung-cancer (9,519 classes found: 9.5 s of allowance
#: against the 2 s grace) listing took the whole grace and the answer held the optimum alone.
BUILD_MIN_SHARE = 0.5
#: Ordering and building one network: 39 µs on lung-cancer (25,600 networks, 57 variables, in 1.0 s); 60 keeps
#: a margin.
BUILD_SECONDS_PER_NETWORK = 60e-6

#: Networks built between two looks at the deadline.
_DEADLINE_EVERY = 256

_log = logging.getLogger(__name__)


def enumerate_networks(data_or_table: Any, *, bayes_factor: float | None = None, epsilon: float | None = None,
                       method: str = "auto", by: str = "auto", max_networks: int | None = 150_000,
                       time_limit: float | None = None,
                       constraints: Any = None, params: Mapping[str, Any] | None = None,
                       verbose: bool = False, memory_budget: int | None = None,
                       engine_options: Mapping[str, Any] | None = None, verify: bool = False,
                       progress: Any = None, order: Any = None, **scoring_options: Any) -> CredibleSet:
    """Every network with score >= OPT - ε, exactly.

    Parameters
    ----------
    data_or_table : Dataset, path, DataFrame, array, ScoreTable or .jkl path
        Data are scored with pruning made safe for ε.  A table must support ε:
        one recorded as pruned for a smaller gap is refused; one that does not
        record its pruning (a foreign ``.jkl``) is used, and the result says it
        is exact only with respect to that table (``caveats``).
    bayes_factor, epsilon : float
        Exactly one: ε = ln(bayes_factor).  ε = 0 gives all optimal networks.
    method : str
        ``"auto"`` (default), ``"ilp"`` or ``"ordergraph"``.
    by : str
        ``"class"``: the search finds one network per Markov equivalence class
        and the members are listed combinatorially (needs a score-equivalent
        score and a method that can: the ILP); ``"dag"``: every network is
        found by the search; ``"auto"`` (default): ``"class"`` when possible.
    max_networks : int or None, default 150,000
        List at most this many networks (``complete=False``, reason
        ``"max_networks"``); ``None`` for no cap.  Collecting by class, the
        search still finds every class, so ``n_networks_total`` and model
        averaging cover the whole credible set.
    time_limit : float or Budget, optional
        Wall-clock seconds for the whole call: reading a data file, scoring,
        the optimum and the collection (``complete=False``, reason
        ``"time_limit"``, when reached; a :class:`gobnilp_py.Budget` started
        earlier covers what ran before too).  Scoring cut short by it leaves a
        truncated table, from which nothing is certified: the answer then has
        no networks and OPT is not proven.
    constraints : StructuralConstraints, mapping or path, optional
        Structural constraints; the set is then all networks satisfying them.
    params, verbose :
        ILP only: SCIP parameter overrides, SCIP's log.
    engine_options : mapping, optional
        Further options of the chosen method's engine (refused, in one line,
        when the method does not take them), e.g. ``{"trace_memory": True}``
        for ``"dp"``.
    memory_budget : int, optional
        Order graph only: bytes it may use.
    verify : bool
        Also collect with a second exact method (:mod:`.verify` says which) and
        raise :class:`SolverError` unless both find the same networks.
        ``time_limit`` covers it; a check a limit cuts short leaves the set labelled
        not verified (a caveat, ``stats["verification"]``).
    progress : callable, optional
        Progress hook (e.g. :class:`gobnilp_py.progress.Progress`).
    order : list of str, optional
        A total variable order (every variable once, first to last): every
        network whose arrows all follow it with score >= OPT_order - ε, where
        OPT_order is the best such network (:mod:`gobnilp_py.solve.ordered`;
        ``method`` must be ``"auto"``, ``by`` ``"auto"`` or ``"dag"``).
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`).

    Returns
    -------
    CredibleSet

    Examples
    --------
    >>> from gobnilp_py import enumerate_networks, example_path
    >>> cs = enumerate_networks(example_path("asia"), bayes_factor=3)  # doctest: +SKIP
    """
    t_start = time.perf_counter()
    check_keywords("enumerate_networks", scoring_options)
    verify, verbose = check_bool(verify, "verify"), check_bool(verbose, "verbose")
    by = check_by(by, "by", "epsilon_set")
    method = check_method(method, "method", "epsilon_set")
    eps = check_epsilon(bayes_factor, epsilon)
    max_networks = check_max_networks(max_networks)
    budget = check_budget(time_limit, t_start)
    given_options = {"params": params, "verbose": verbose, "memory_budget": memory_budget,
                     **dict(engine_options or {})}
    # the rules between the keywords, before reading or scoring (the config and the CLI check the same)
    SearchRequest(order=order, method=method, task="epsilon_set", options=given_options, verify=verify, by=by,
                  constraints=constraints, palim=scoring_options.get("palim")).check()
    if order is not None:  # the fixed-order route (solve/ordered.py)
        return enumerate_with_order(data_or_table, order, eps, method=method, by=by, max_networks=max_networks,
                                    time_limit=budget, constraints=constraints,
                                    engine_options={"params": params, "verbose": verbose,
                                                    "memory_budget": memory_budget, **dict(engine_options or {})},
                                    verify=verify, progress=progress, scoring_options=scoring_options,
                                    cross_check=enumerate_networks)
    if scoring_options.get("backend") != "dask":
        return _collect_from(data_or_table, eps=eps, method=method, by=by, max_networks=max_networks, budget=budget,
                             constraints=constraints, given_options=given_options, scoring_options=scoring_options,
                             progress=progress, verify=verify, memory_budget=memory_budget, t_start=t_start)
    from .dask_collect import dask_client
    from .inputs import is_table_input

    with dask_client(scoring_options.get("scheduler")) as client:
        # data are scored on the same cluster (a Client is a scheduler the scorers take); a table is not scored
        if is_table_input(data_or_table):
            scoring_options = {k: v for k, v in scoring_options.items() if k not in ("backend", "scheduler")}
        else:
            scoring_options = {**scoring_options, "scheduler": client}
        return _collect_from(data_or_table, eps=eps, method=method, by=by, max_networks=max_networks,
                             budget=budget, constraints=constraints, given_options=given_options,
                             scoring_options=scoring_options, progress=progress,
                             verify=verify, memory_budget=memory_budget, t_start=t_start, client=client)


def _collect_from(data_or_table: Any, *, eps: float, method: str, by: str, max_networks: int | None, budget: Budget,
                  constraints: Any, given_options: dict[str, Any], scoring_options: Mapping[str, Any], progress: Any,
                  verify: bool, memory_budget: int | None, t_start: float, client: Any = None) -> CredibleSet:
    """The collection after the request's checks: score or check the table, OPT, collect, label.

    With ``client`` (``backend="dask"``) the collection, by DAG or by class, is split into disjoint parts
    run on that Dask cluster (:mod:`.dask_collect`, :mod:`.split`).
    Everything else is the same code as the serial run.
    """
    cons = as_constraints(constraints)
    table, info = acquire_table(data_or_table, epsilon=eps, constraints=cons, scoring_options=scoring_options,
                                progress=progress, budget=budget)
    src = source_for(info.data, table, scoring_options, cons)
    kinds = cons.kinds() if cons is not None else frozenset()
    # by="class" under method="auto" picks a method that collects classes (the order graph does not)
    m, why = resolve_method(method, "epsilon_set", table.n, kinds, len(table), given_options,
                            class_collection=by == "class")
    opts = with_memory_limit(m, method_options(m, given_options), memory_limit_of(budget, scoring_options))
    stats: dict[str, Any] = {"method": m.name, "method_reason": why, "time_scoring": info.time_scoring,
                             **score_provenance(table)}
    searched = filter_table(table, cons)
    if searched is None:
        return _sourced(src, CredibleSet(math.nan, eps, True, None, [], kind="bayes_factor", stats=stats,
                                         method=m.name, infeasible=True, approximate=info.approximate,
                                         caveats=list(info.caveats)))
    engine = engine_module(m)
    row_cons = cons if m.constraint_kinds is None else None
    remaining = budget.remaining()
    if info.stopped is not None or (remaining is not None and remaining <= 0):
        # the limit went on scoring: no optimum, nothing certified (a truncated table certifies nothing either)
        if info.stopped is not None:
            stats["scoring_stopped"] = info.stopped
        return _sourced(src, CredibleSet(math.nan, eps, False, info.stopped or "time_limit", [], kind="bayes_factor",
                                         stats=stats, method=m.name, approximate=info.approximate,
                                         caveats=list(info.caveats)))
    t0 = time.perf_counter()
    _stage(progress, "optimum", m.name)
    sol = engine.optimum(searched, constraints=row_cons, time_limit=budget.left_for_engine(), **opts)
    stats["time_opt"] = time.perf_counter() - t0
    stats["opt_status"] = sol.status
    check_lower_bound_held(table, sol)
    best = network_from_solution(searched, sol, stats={})
    _check_answer(best, cons)
    if sol.status == "infeasible":
        return _sourced(src, CredibleSet(math.nan, eps, True, None, [], kind="bayes_factor", stats=stats,
                                         method=m.name, infeasible=True, approximate=info.approximate,
                                         caveats=list(info.caveats)))
    if sol.status != "optimal":
        return _sourced(src, _unproven(sol, best, eps, stats, m.name, info))
    opt = sol.score
    remaining = budget.remaining()
    if remaining is not None and remaining <= 0:
        return _sourced(src, CredibleSet(opt, eps, False, "time_limit", [best], tolerance=tolerance_of(opt),
                                         kind="bayes_factor", stats=stats, method=m.name,
                                         approximate=info.approximate, caveats=list(info.caveats)))
    by_class = _collect_by_class(by, m, searched)
    search_time = remaining
    if remaining is not None:
        # keep part of the budget to list what the search finds (the members of its classes, or its networks)
        # and for what the caller does with each network afterwards (Budget.per_network: writing, summarising)
        search_time = max(remaining - listing_reserve(remaining, max_networks, budget.per_network,
                                                      by_class=by_class), 1e-6)
    _stage(progress, "collection", m.name)
    if client is not None:
        from .dask_collect import collect_on_dask

        col = collect_on_dask(client, searched, method=m.name, opt=opt, epsilon=eps, constraints=row_cons,
                              max_networks=max_networks, time_limit=search_time, by_class=by_class,
                              options={**opts, **portable_reuse(take_reuse(sol, searched))})
    else:
        col = engine.epsilon_set(searched, opt=opt, epsilon=eps, constraints=row_cons, max_networks=max_networks,
                                 time_limit=search_time, progress=progress,
                                 **({"by_class": True, "listing_per_class": LISTING_SECONDS_PER_CLASS}
                                    if by_class else {}),
                                 **take_reuse(sol, searched), **opts)
    # The engine's own counters, without letting its names overwrite which method ran and why.
    stats.update({k: v for k, v in col.stats.items() if k not in ("method", "method_reason")})
    stats["by"] = "class" if by_class else "dag"
    if col.opt is not None:
        opt = col.opt
    if col.by_class:
        deadline = _listing_deadline(budget, col.reason)
        cs = _class_result(searched, col, opt=opt, eps=eps, best=best, best_chosen=sol.chosen, cons=cons, info=info,
                           stats=stats,
                           method=m.name, max_networks=max_networks, deadline=deadline,
                           all_representable=_all_members_representable(searched, info, cons, eps),
                           per_network=budget.per_network)
        if verify and cs.complete:
            verify_collection(cs, searched, cons, m.name, kinds, eps, deadline=budget.deadline,
                              memory_budget=memory_budget)
        cs.stats["time_total"] = time.perf_counter() - t_start      # the cross-check included, as in learn
        return _sourced(src, mark_members(cs))
    cs = _dag_result(searched, col, opt=opt, eps=eps, best=best, best_chosen=sol.chosen, cons=cons, info=info,
                     stats=stats, method=m.name, deadline=_listing_deadline(budget, col.reason),
                     per_network=budget.per_network)
    if verify and cs.complete:
        verify_collection(cs, searched, cons, m.name, kinds, eps, deadline=budget.deadline,
                          memory_budget=memory_budget)
    cs.stats["time_total"] = time.perf_counter() - t_start
    return _sourced(src, mark_members(cs))


def listing_reserve(remaining: float, max_networks: int | None, per_network: float = 0.0, *,
                    by_class: bool = True) -> float:
    """Seconds of a time-limited collection kept for listing what the search finds.

    By class: expanding the classes and building their members
    (:data:`LISTING_SECONDS_PER_NETWORK` a network); by DAG: building the
    networks (:data:`BUILD_SECONDS_PER_NETWORK`); either way plus
    ``per_network`` seconds a network for the caller's own work after the
    collection (a :class:`~gobnilp_py._budget.Budget`'s ``per_network``: the
    command line's writing).  At most :data:`LISTING_RESERVE` of ``remaining``,
    and never capped below :data:`LISTING_RESERVE_MAX` seconds.
    """
    each = (LISTING_SECONDS_PER_NETWORK if by_class else BUILD_SECONDS_PER_NETWORK) + max(per_network, 0.0)
    cost = math.inf if max_networks is None else max(LISTING_RESERVE_MAX, each * max_networks)
    return min(LISTING_RESERVE * remaining, cost)


def _listing_deadline(budget: Budget, reason: str | None) -> float | None:
    """When building the listed networks must stop: the call's time limit, or a short grace after a Ctrl-C."""
    deadline = budget.deadline
    if reason == "interrupted":  # the user wants the partial result now: a short grace for listing
        deadline = min(deadline or math.inf, time.perf_counter() + INTERRUPT_GRACE)
    return deadline


def _dag_result(table: Any, col: Any, *, opt: float, eps: float, best: Any, best_chosen: Any, cons: Any, info: Any,
                stats: dict[str, Any], method: str, deadline: float | None, per_network: float = 0.0) -> CredibleSet:
    """The labelled set of a DAG-level collection, its networks built best first until ``deadline``.

    Building a :class:`~gobnilp_py.network.Network` costs a fraction of a
    millisecond, which on 150,000 networks is tens of seconds: without the
    deadline a time-limited call overran it.  A listing cut here is a best-first
    prefix; every credible network scoring ``>= threshold`` is listed, with the
    threshold above the first network left out (``+ tol``) and, when the search
    was cut too, at least the search's own threshold (none if it had none).
    """
    tol = tolerance_of(opt)
    t0 = time.perf_counter()
    nets, chosen, first_left = _networks_best_first(table, col.entries, opt, cons, deadline, per_network)
    stats["time_networks"] = time.perf_counter() - t0
    reason, threshold = col.reason, col.threshold
    if first_left is not None:
        t_list = first_left + tol
        if reason is None:
            reason, threshold = "time_limit", t_list
        elif threshold is not None:
            threshold = max(threshold, t_list)
    if reason not in (None, "max_networks") and best_chosen is not None and tuple(best_chosen) not in set(chosen):
        _insert_best_first(table, nets, chosen, best, tuple(best_chosen))  # phase 1's optimum, missed by a cut
    stats["listed"] = len(nets)
    cs = CredibleSet(opt, eps, reason is None, reason, nets, tolerance=tol, near_boundary=col.near_boundary,
                     kind="bayes_factor", stats=stats, method=method, threshold=threshold,
                     approximate=info.approximate, caveats=list(info.caveats))
    if cs.complete:
        cs.n_networks_total = len(nets)
    return cs


def _class_result(table: Any, col: Any, *, opt: float, eps: float, best: Any, best_chosen: Any, cons: Any, info: Any,
                  stats: dict[str, Any], method: str, max_networks: int | None, deadline: float | None,
                  all_representable: bool, per_network: float = 0.0) -> CredibleSet:
    """The labelled set of a class-level collection: members listed, counted and built, all before ``deadline``.

    Three stages share what is left of the time limit: the search (done), listing
    the members of the classes found (:func:`~gobnilp_py.solve.classes.expand_classes`,
    until :func:`_listing_split`'s deadline, so that the third has time)
    and building their :class:`~gobnilp_py.network.Network` objects, best first.
    Each stage looks at the deadline every few hundred networks and stops when it
    has passed, so the call ends within that much work of the time limit.

    What a cut result guarantees (``docs/enumeration.md``):

    * the search finished (``col.reason`` is ``None``): every credible class was
      found, so the totals (``n_networks_total``, ``n_classes_total``) and the
      class summaries are exact when every class was counted before the deadline,
      and unknown (``None``) otherwise -- never a partial sum;
    * every credible network scoring ``>= threshold`` is listed, where the
      threshold is above the score of every member left out (``unlisted + tol``:
      the members of a class all have its score, up to the rounding of their
      sums) and, when the search was cut too, at least the search's own
      certified threshold (every class scoring above it was found).
    """
    tol = tolerance_of(opt)
    search_reason = col.reason
    listing_deadline = _listing_split(time.perf_counter(), deadline, len(col.entries), max_networks, per_network)
    expansion = expand_classes(table, col.entries, limit=opt - eps - tol, max_networks=max_networks,
                               deadline=listing_deadline, all_representable=all_representable)
    stats.update(expansion.stats)
    t0 = time.perf_counter()
    nets, chosen, first_left = _networks_best_first(table, expansion.entries, opt, cons, deadline, per_network)
    stats["time_networks"] = time.perf_counter() - t0
    unlisted = expansion.unlisted_top
    if first_left is not None:
        unlisted = first_left if unlisted is None else max(unlisted, first_left)
    timed_out = first_left is not None or not expansion.complete_counts  # the deadline cut listing or counting
    reason = search_reason
    if reason is None and timed_out:
        reason = "time_limit"
    elif reason is None and unlisted is not None:
        reason = "max_networks"
    if reason not in (None, "max_networks") and best_chosen is not None and tuple(best_chosen) not in set(chosen):
        _insert_best_first(table, nets, chosen, best, tuple(best_chosen))  # phase 1's optimum, missed by a cut
    threshold = col.threshold if search_reason is not None else None
    if unlisted is not None and reason is not None:
        t_list = unlisted + tol if math.isfinite(unlisted) else None
        if t_list is None or (search_reason is not None and threshold is None):
            threshold = None  # some member left out has an unknown score: no threshold can be certified
        else:
            threshold = t_list if threshold is None else max(threshold, t_list)
    stats["listed"] = len(nets)
    cs = CredibleSet(opt, eps, reason is None, reason, nets, tolerance=tol, near_boundary=col.near_boundary,
                     kind="bayes_factor", stats=stats, method=method, threshold=threshold,
                     approximate=info.approximate, caveats=list(info.caveats))
    if search_reason is None and expansion.all_counted:  # every credible class found and met: exact totals
        cs.classes = expansion.classes
        cs.n_networks_total = expansion.n_networks_total
        cs.n_classes_total = len(expansion.classes)
    return cs


def _listing_split(now: float, deadline: float | None, n_classes: int, max_networks: int | None,
                   per_network: float = 0.0) -> float | None:
    """When listing the members of ``n_classes`` classes must stop, so that building their networks has time too.

    Listing gets the classes' own allowance (:data:`LISTING_SECONDS_PER_CLASS` each), then
    :data:`LISTING_SHARE` of the rest, but building keeps at least the smaller of
    :data:`BUILD_MIN_SHARE` of the time left and what ``max_networks`` networks take to build.
    """
    if deadline is None:
        return None
    left = max(0.0, deadline - now)
    per_class = min(left, LISTING_SECONDS_PER_CLASS * n_classes)
    build = BUILD_MIN_SHARE * left
    if max_networks is not None:
        build = min(build, (BUILD_SECONDS_PER_NETWORK + max(per_network, 0.0)) * max_networks)
    return now + min(per_class + LISTING_SHARE * (left - per_class), left - build)


def _networks_best_first(table: Any, entries: Any, opt: float, cons: Any, deadline: float | None,
                         per_network: float = 0.0) -> tuple[list[Any], list[tuple[int, ...]], float | None]:
    """The entries as networks, best first, ties in :attr:`Network.key` order, built until ``deadline``
    less ``per_network`` seconds for each network built (the caller's work on it afterwards: writing).

    The order is fixed from the table positions before any network is built
    (a network's key is its tuple of sorted parent indices, which is exactly the
    table's parent tuple), so a listing cut by the deadline is a best-first
    prefix.  Returns the networks, their table positions and the score of the
    first entry left out (``None`` when none was).  Each network is checked against the constraints
    (:func:`~gobnilp_py.solve.learn._check_answer`), and an entry given twice
    raises :class:`SolverError`, as in :func:`~gobnilp_py.solve.results.rank_entries`.
    """
    from .results import network_of

    fams = table.families
    # Rank by the exactly rounded sum of the local scores (what Network.score is), not by the engine's
    # own sum: an ILP objective or a differently ordered sum can differ in the last bits, and tied
    # networks must come in key order whichever engine found them.
    order = sorted(((math.fsum(fams[v][c][1] for v, c in enumerate(ch)), ch) for _, ch in entries),
                   key=lambda e: -e[0])
    # ties (equal float scores) in key order: sort each run of equal scores by the parent tuples
    i = 0
    while i < len(order):
        j = i + 1
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        if j - i > 1:
            order[i:j] = sorted(order[i:j], key=lambda e: tuple(fams[v][c][0] for v, c in enumerate(e[1])))
        i = j
    seen: set[tuple[int, ...]] = set()
    tol = tolerance_of(opt)
    nets: list[Any] = []
    done: list[tuple[int, ...]] = []
    for k, (sc, chosen) in enumerate(order):
        if deadline is not None and k % _DEADLINE_EVERY == 0 and time.perf_counter() > deadline - per_network * k:
            return nets, done, sc
        chosen = tuple(chosen)
        if chosen in seen:  # an engine returning one network twice is a bug: fail loudly
            raise SolverError("a network was listed twice; the result would not be exact (please report this)")
        seen.add(chosen)
        net = network_of(table, chosen, "optimal" if sc >= opt - tol else "feasible")
        _check_answer(net, cons)
        nets.append(net)
        done.append(chosen)
    return nets, done, None


def _insert_best_first(table: Any, nets: list[Any], chosen: list[tuple[int, ...]], net: Any,
                       at_chosen: tuple[int, ...]) -> None:
    """Insert ``net`` (table positions ``at_chosen``) into the best-first list at its place (score, then key).

    A binary search over (-score, key), each key taken from the table positions.
    """
    fams = table.families

    def rank(i: int) -> tuple[float, tuple[tuple[int, ...], ...]]:
        c = at_chosen if i < 0 else chosen[i]
        sc = net.score if i < 0 else nets[i].score
        return -sc, tuple(fams[v][p][0] for v, p in enumerate(c))

    at = bisect.bisect_right(range(len(nets)), rank(-1), key=rank)
    nets.insert(at, net)
    chosen.insert(at, at_chosen)


def _unproven(sol: Any, best: Any, eps: float, stats: dict[str, Any], method: str, info: Any) -> CredibleSet:
    """The answer when the optimum search stopped (time limit, interrupt, memory) before proving OPT.

    OPT, hence the limit OPT - ε, is unknown, so only what is proven is listed: the best network
    found is a member only when it scores within ε of a proven upper bound on OPT (then
    ``score >= bound - ε >= OPT - ε``).  Otherwise it may lie outside the credible set and is not
    listed -- its score (and the bound, when there is one) is given in a caveat and in ``stats``.
    ``opt`` is ``nan`` (unknown): listing the incumbent's score as OPT would make every gap and
    Bayes factor in the outputs relative to a network that need not be credible.
    """
    found = math.isfinite(best.score)
    bound = sol.dual_bound if sol.dual_bound is not None and math.isfinite(sol.dual_bound) else None
    member = found and bound is not None and best.score >= bound - eps - tolerance_of(bound)
    stats["best_found"] = best.score if found else None
    stats["opt_upper_bound"] = bound
    caveats = list(info.caveats)
    if found:
        text = f"OPT not proven ({sol.status}): the best network found scores {best.score:.6f}"
        if bound is not None:
            text += f" and OPT is at most {bound:.6f}"
        text += ("; it is listed because it is within epsilon of that bound, so it is credible" if member else
                 "; it is not listed, since it may lie outside the credible set")
    else:
        text = f"OPT not proven ({sol.status}): no network was found"
        if bound is not None:
            text += f"; OPT is at most {bound:.6f}"
    caveats.append(text)
    return CredibleSet(math.nan, eps, False, sol.status, [best] if member else [], kind="bayes_factor",
                       stats=stats, method=method, approximate=info.approximate, caveats=caveats)


def _collect_by_class(by: str, method: Any, table: Any) -> bool:
    """Whether to collect by class: asked for (and possible), or possible under ``auto``."""
    from .classes import is_score_equivalent

    if by == "dag":
        return False
    able = method.class_collection
    equivalent = is_score_equivalent(table)
    if by == "class":
        if not able:
            raise ParameterError(f"method {method.name!r} cannot collect by equivalence class; use by='dag' or "
                              "method='ilp'")
        if not equivalent:
            raise ParameterError(f"collecting by class needs a score-equivalent score (BIC, BDeu, AIC); this table's "
                              f"score is {table.score_name or 'not recorded'}: use by='dag'")
    return able and equivalent


def _all_members_representable(table: Any, info: Any, cons: Any, eps: float) -> bool:
    """True when every member of a credible class is surely in the table (so counts need no listing).

    An ε-safe table of an exact, score-equivalent score holds every family of
    every credible DAG; a parent limit, an approximate table, a table of unknown
    pruning or a constraint enforced by filtering can each leave members out.
    """
    from ..constraints.structural import FILTER_KINDS

    if info.approximate or table.epsilon is None or table.epsilon < eps - 1e-12:
        return False
    if table.meta.get("palim") is not None:
        return False
    if cons is not None and cons.kinds() & FILTER_KINDS:
        return False
    return True


