"""The ``order=`` route of :func:`~gobnilp_py.learn` and :func:`~gobnilp_py.enumerate_networks`.

Under a total variable order ``v_1 < ... < v_n`` (every arrow points forward)
any choice of parent sets among each node's predecessors is acyclic, so the
best network is every node's best family among its predecessors, chosen
independently (Cooper and Herskovits 1992; Tian, UAI 2000), and the ε-set
under the order is a sum problem over per-node family lists
(:mod:`gobnilp_py.search.fixed_order`, which documents the algorithms).

Two inputs, two routes:

* **data**: each node's families are searched from the data by Tian's branch
  and bound (:func:`~gobnilp_py.search.fixed_order.optimum_for_order`,
  :func:`~gobnilp_py.search.fixed_order.epsilon_set_for_order`); no score table
  and no pruning rule is involved, so nothing can be pruned unsafely;
* **a score table**: each node's best families consistent with the order are
  read from the table.  The table must be safe for the asked gap (the
  ``epsilon`` check every driver makes, :func:`.inputs.acquire_table`), and it
  must not have been pruned by the **global gap rule**: that rule drops
  ``(v, W)`` when ``best(v) - s(v, W) > ε + UB - LB`` with ``LB`` a bound on the
  *unconstrained* optimum, and the optimum under an order can lie far below
  ``LB``, so families of the best network under the order may be gone.  Every
  other rule removes a family only in favour of a proper subset (which still
  precedes the child), so it is safe under any order.

Results say so: ``stats["method"] = "fixed_order"``, the reason, and a caveat
that the optimum (the ``OPT`` of the ε-set) is over the networks that follow
the order, not over all DAGs.  ``verify=True`` solves the same problem a second,
independent way: the order as tiers constraints (one variable per tier),
searched by the registry's exact methods (the ILP or the order graph).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from .._validation import (READ_OPTIONS, check_n_jobs, check_nonnegative_int, check_order_names,
                           check_positive_number, show)
from ..errors import ParameterError, ScoreError, SolverError
from ..network import Network
from ..scoring.local_scores import check_score_name
from ._checks import check_budget
from .credible import CredibleSet
from .inputs import TableInfo, acquire_table, is_table_input
from .methods import check_method_name
from .request import SearchRequest
from .set_posterior import source_for, sourced
from .results import credible_set, network_from_solution, tolerance_of
from .verify import mark_unverified, seconds_left, stopped_by_limit

__all__ = ["ORDER_METHOD", "ORDER_REASON", "ORDER_SCORING_OPTIONS", "learn_with_order", "enumerate_with_order",
           "check_table_for_order", "order_caveat"]

_log = logging.getLogger(__name__)

#: The name results record for the fixed-order search (it is not a registry method: it solves a
#: different problem, the best network among those that follow a given order).
ORDER_METHOD = "fixed_order"
ORDER_REASON = ("a variable order was given: each node's best family among its predecessors "
                "(Tian's branch and bound; Cooper and Herskovits 1992)")

#: Scoring options the search from data honours (the others concern the score table, which it does not build).
ORDER_SCORING_OPTIONS = ("score", "ess", "palim", "n_jobs")


def order_caveat(names: Any, idx: tuple[int, ...]) -> str:
    """The caveat every result under an order carries."""
    shown = " < ".join(str(names[i]) for i in idx[:12]) + (" < ..." if len(idx) > 12 else "")
    return (f"under the variable order {shown}: optimal (OPT) among the networks whose arrows all follow the "
            "order, not over all DAGs")


def check_table_for_order(table: Any) -> None:
    """Refuse a table pruned by the global gap rule (unsafe under an order; see the module docstring)."""
    removed = sum(int(rules.get("global_gap", 0)) for rules in table.pruning.values())
    if removed:
        raise ScoreError(f"the score table was pruned with the global gap rule (lower_bound; {removed} parent sets "
                         "removed), which compares with the optimum over all DAGs and may have removed families "
                         "of the best network under an order; rescore without lower_bound, or give the data")


def _refuse_engine_options(order: Any, method: Any, constraints: Any, options: Mapping[str, Any], *,
                           by: Any = None, palim: Any = None) -> None:
    """The rules between ``order=`` and the other keywords (:class:`~gobnilp_py.solve.request.SearchRequest`,
    shared with the config and the command line), then the engine options the fixed-order search has no use for."""
    method = check_method_name(method, "method")
    SearchRequest(order=order, method=method, by=by, palim=palim, constraints=constraints, options=options).check()


def _data_and_options(data_or_table: Any, scoring_options: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The Dataset read as asked, and the options of the search from data (checked)."""
    from ..data import Dataset, read_data

    from ..scoring.local_scores import is_gaussian_score

    if is_gaussian_score(scoring_options.get("score")):
        raise ParameterError(f"{scoring_options['score']!r} is a Gaussian score, and the fixed-order search from "
                             "data counts discrete states: score the continuous data first (gobnilp_py.score(data, "
                             "score=...)) and search that table under the order", "score")
    read_opts = {k: scoring_options[k] for k in READ_OPTIONS if k in scoring_options}
    rest = {k: v for k, v in scoring_options.items() if k not in READ_OPTIONS and v is not None}
    foreign = sorted(k for k in rest if k not in ORDER_SCORING_OPTIONS)
    if foreign:
        raise ParameterError(f"scoring option{'s' if len(foreign) > 1 else ''} {', '.join(foreign)} "
                             f"do{'' if len(foreign) > 1 else 'es'} not apply under an order: the fixed-order search "
                             f"scores each node's parent sets from the data itself (it takes "
                             f"{', '.join(ORDER_SCORING_OPTIONS)})")
    if isinstance(data_or_table, Dataset):
        if read_opts:
            raise ParameterError(f"data options {sorted(read_opts)} cannot apply to a Dataset, which is already read")
        data = data_or_table
    else:
        data = read_data(data_or_table, **read_opts)
    kw: dict[str, Any] = {}
    if "score" in rest:
        if not isinstance(rest["score"], str):
            raise ParameterError("under an order the score must be named (\"BIC\", \"AIC\" or \"BDeu\"), not given as "
                                 "an object", "score")
        kw["score"] = check_score_name(rest["score"], "score")
    if "ess" in rest:
        kw["ess"] = check_positive_number(rest["ess"], "ess")
    if "palim" in rest:     # "auto" was refused with the other rules of an order (_refuse_engine_options)
        kw["palim"] = check_nonnegative_int(rest["palim"], "palim")
    if "n_jobs" in rest:
        kw["n_jobs"] = check_n_jobs(rest["n_jobs"], "n_jobs")
    return data, kw


#: How the fixed-order results are cross-checked: the order given to the unordered search as tiers.
_BY_TIERS = "the order as tiers constraints, searched without the order"


def _order_tiers(names: Any, idx: tuple[int, ...]) -> dict[str, Any]:
    return {"tiers": [[str(names[i])] for i in idx]}


def learn_with_order(data_or_table: Any, order: Any, *, method: str, constraints: Any, time_limit: Any,
                     engine_options: Mapping[str, Any], verify: bool, progress: Any,
                     scoring_options: Mapping[str, Any], cross_check: Callable[..., Network]) -> Network:
    """``learn(..., order=...)``: the best network whose arrows follow ``order`` (see the module docstring).
    ``time_limit``: seconds or a :class:`~gobnilp_py._budget.Budget` (reading included).  ``cross_check`` is
    :func:`~gobnilp_py.learn` itself, handed down by the caller for ``verify=True`` (so this module, which
    :mod:`.learn` calls, never imports it back)."""
    from ..search.fixed_order.engine import optimum_for_order, optimum_for_order_table

    t_start = time.perf_counter()
    budget = check_budget(time_limit, t_start)
    _refuse_engine_options(order, method, constraints, engine_options, palim=scoring_options.get("palim"))
    stats: dict[str, Any] = {"method": ORDER_METHOD, "method_reason": ORDER_REASON}
    if is_table_input(data_or_table):
        table, info = acquire_table(data_or_table, epsilon=None, constraints=None, scoring_options=scoring_options,
                                    optimum_only=True, budget=budget)
        check_table_for_order(table)
        idx = check_order_names(order, table.names)
        t0 = time.perf_counter()
        sol = optimum_for_order_table(table, idx)
        stats["time_search"] = time.perf_counter() - t0
        caveats = [*info.caveats, order_caveat(table.names, idx)]
    else:
        data, kw = _data_and_options(data_or_table, scoring_options)
        src = source_for(data, None, {k: v for k, v in kw.items() if k != "n_jobs"}, None)
        idx = check_order_names(order, data.names)
        t0 = time.perf_counter()
        res = optimum_for_order(data, idx, time_limit=budget.left_for_engine(), **kw)
        stats["time_search"] = time.perf_counter() - t0
        table, sol = res.table(), res.solution()
        caveats = [order_caveat(data.names, idx)]
    stats["order"] = [str(table.names[i]) for i in idx]
    if sol.chosen is None:  # no family of some node precedes it in the table: nothing follows the order
        net = Network(table.names, {}, score=-math.inf, status="infeasible", stats={**sol.stats, **stats},
                      caveats=tuple(caveats))
    else:
        net = network_from_solution(table, sol, stats=stats)
        net.caveats = tuple(caveats)
    if verify and net.status == "optimal":
        _verify_learn(net, data_or_table, idx, scoring_options, budget.deadline, cross_check)
    net.stats["time_total"] = time.perf_counter() - t_start
    _log.info("learn under an order: status %s, score %.6f", net.status, net.score)
    return net


def _tiers_input(data_or_table: Any, scoring_options: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """What the cross-check searches: the same input and the same score."""
    if is_table_input(data_or_table):
        return data_or_table, {}
    keep = {k: v for k, v in scoring_options.items() if v is not None and k in READ_OPTIONS + ("score", "ess", "palim")}
    return data_or_table, keep


def _verify_learn(net: Network, data_or_table: Any, idx: tuple[int, ...], scoring_options: Mapping[str, Any],
                  deadline: float | None, learn: Callable[..., Network]) -> None:
    source, kw = _tiers_input(data_or_table, scoring_options)
    left = seconds_left(deadline)
    if left is not None and left <= 0:
        mark_unverified(net, f"the time limit was reached before the cross-check ({_BY_TIERS}) could start")
        return
    other = learn(source, constraints=_order_tiers(net.names, idx), time_limit=left, **kw)
    if stopped_by_limit(other.status, deadline):
        mark_unverified(net, f"the cross-check ({_BY_TIERS}) stopped ({other.status}) before proving its optimum")
        return
    if other.status != "optimal" or abs(other.score - net.score) > tolerance_of(net.score):
        raise SolverError(f"verification failed: the fixed-order search found {net.score!r}, method "
                          f"{other.stats.get('method')!r} with the order as tiers found {other.score!r} "
                          f"({other.status})")
    net.stats["verified_by"] = f"{other.stats.get('method')} (the order as tiers constraints)"


def enumerate_with_order(data_or_table: Any, order: Any, epsilon: float, *, method: str, by: str,
                         max_networks: int | None, time_limit: Any, constraints: Any,
                         engine_options: Mapping[str, Any], verify: bool, progress: Any,
                         scoring_options: Mapping[str, Any], cross_check: Callable[..., CredibleSet]) -> CredibleSet:
    """``enumerate_networks(..., order=...)``: every network following ``order`` within ε of the best such one.
    ``time_limit``: seconds or a :class:`~gobnilp_py._budget.Budget` (reading included).  ``cross_check`` is
    :func:`~gobnilp_py.enumerate_networks` itself, handed down for ``verify=True``."""
    from ..search.fixed_order.engine import epsilon_set_for_order, epsilon_set_for_order_table

    t_start = time.perf_counter()
    budget = check_budget(time_limit, t_start)
    _refuse_engine_options(order, method, constraints, engine_options, by=by, palim=scoring_options.get("palim"))
    stats: dict[str, Any] = {"method": ORDER_METHOD, "method_reason": ORDER_REASON, "by": "dag"}
    if is_table_input(data_or_table):
        table, info = acquire_table(data_or_table, epsilon=epsilon, constraints=None, scoring_options=scoring_options,
                                    budget=budget)
        src = source_for(None, table, {}, None)        # the posterior mass over all DAGs, not only the ordered ones
        check_table_for_order(table)
        idx = check_order_names(order, table.names)
        t0 = time.perf_counter()
        col = epsilon_set_for_order_table(table, idx, epsilon, max_networks=max_networks)
        stats["time_search"] = time.perf_counter() - t0
    else:
        data, kw = _data_and_options(data_or_table, scoring_options)
        src = source_for(data, None, {k: v for k, v in kw.items() if k != "n_jobs"}, None)
        idx = check_order_names(order, data.names)
        t0 = time.perf_counter()
        es = epsilon_set_for_order(data, idx, epsilon, time_limit=budget.left_for_engine(), max_networks=max_networks,
                                   **kw)
        stats["time_search"] = time.perf_counter() - t0
        table, col = es.table(), es.collection()
        info = TableInfo(given=False, epsilon=None)
    caveats = [*info.caveats, order_caveat(table.names, idx)]
    stats["order"] = [str(table.names[i]) for i in idx]
    stats.update({k: v for k, v in col.stats.items() if k not in stats})
    if not col.entries and col.reason is None:
        return sourced(src, CredibleSet(math.nan, epsilon, True, None, [], kind="bayes_factor", stats=stats,
                                        method=ORDER_METHOD, infeasible=True, approximate=info.approximate,
                                        caveats=caveats))
    opt = col.opt if col.opt is not None else max(s for s, _ in col.entries)
    info = TableInfo(given=info.given, epsilon=info.epsilon, approximate=info.approximate, caveats=caveats)
    stats["time_total"] = time.perf_counter() - t_start
    cs = credible_set(table, col, opt=opt, epsilon=epsilon, kind="bayes_factor", method=ORDER_METHOD, info=info,
                      stats=stats)
    if cs.complete:
        cs.n_networks_total = len(cs.networks)
    if verify and cs.complete:
        _verify_enumerate(cs, data_or_table, idx, epsilon, scoring_options, budget.deadline, cross_check)
    return sourced(src, cs)


def _verify_enumerate(cs: CredibleSet, data_or_table: Any, idx: tuple[int, ...], epsilon: float,
                      scoring_options: Mapping[str, Any], deadline: float | None,
                      enumerate_networks: Callable[..., CredibleSet]) -> None:
    source, kw = _tiers_input(data_or_table, scoring_options)
    names = cs.networks[0].names if cs.networks else None
    if names is None:
        return
    left = seconds_left(deadline)
    if left is not None and left <= 0:
        mark_unverified(cs, f"the time limit was reached before the cross-check ({_BY_TIERS}) could start")
        return
    other = enumerate_networks(source, epsilon=epsilon, constraints=_order_tiers(names, idx), by="dag",
                               max_networks=None, time_limit=left, **kw)
    if not other.complete and stopped_by_limit(other.reason or "", deadline):
        mark_unverified(cs, f"the cross-check ({_BY_TIERS}) stopped ({other.reason}) before collecting every network")
        return
    mine = {n.key for n in cs.networks}
    theirs = {n.key for n in other.networks}
    if not other.complete or mine != theirs:
        raise SolverError(f"verification failed: the fixed-order search found {len(mine)} networks, method "
                          f"{other.method!r} with the order as tiers found {len(theirs)} "
                          f"({len(mine ^ theirs)} differ{'' if other.complete else '; incomplete'})")
    cs.stats["verified_by"] = f"{other.method} (the order as tiers constraints)"
