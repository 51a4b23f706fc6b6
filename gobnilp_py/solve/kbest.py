"""``kbest()``: the k best networks, provably, by any method that can list them.

Every k-best method needs a table holding every family of every one of the k
best networks.  A table pruned for a gap ε holds every family of every network
within ε of the optimum, so if the k-th best network of the pruned table lies
within ε, the pruned table's k best are the true k best; otherwise the data are
rescored with a larger ε and the search repeated.  A given table is searched
as it is (its k best networks are the answer for that table).

Methods (:mod:`.methods`): ``"ilp"`` (one branch-and-cut search with a rising
k-th best bound), ``"dp"`` (dynamic programming with k-best lists, Tian, He and
Ram 2010), ``"resolve"`` (k successive ILP solves, as GOBNILP 1.6) and
``"ordergraph"``.  Results are ranked the same way whichever method runs
(best first, ties in :attr:`Network.key` order), so they can be compared
entry by entry.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ._checks import check_k, check_time_limit
from .credible import CredibleSet
from .inputs import acquire_table, as_constraints, filter_table, is_table_input
from .learn import _check_answer, _remaining
from .methods import engine_module, method_options, resolve_method
from .results import credible_set

__all__ = ["kbest"]

_log = logging.getLogger(__name__)


def kbest(data_or_table: Any, k: int, *, method: str = "auto", time_limit: float | None = None,
          constraints: Any = None, params: Mapping[str, Any] | None = None, verbose: bool = False,
          memory_budget: int | None = None, engine_options: Mapping[str, Any] | None = None,
          initial_epsilon: float = 3.0, progress: Any = None,
          **scoring_options: Any) -> CredibleSet:
    """The k best networks, provably, best first (ties in canonical order).

    Parameters
    ----------
    data_or_table : Dataset, path, DataFrame, array, ScoreTable or .jkl path
        Data are scored with pruning safe for ``initial_epsilon``, then for a
        wider gap while the k-th network lies beyond it; a table is used as is.
    k : int
        Number of networks (>= 1).  If fewer DAGs exist, all are returned.
    method : str
        ``"auto"``, ``"ilp"``, ``"dp"``, ``"resolve"`` or ``"ordergraph"``.
    time_limit : float, optional
        Wall-clock seconds for the whole call (``complete=False`` when reached).
    constraints : StructuralConstraints, mapping or path, optional
    params, verbose :
        ILP methods only: SCIP parameters, SCIP's log.
    engine_options : mapping, optional
        Further options of the chosen method's engine (refused, in one line,
        when the method does not take them), e.g. ``{"trace_memory": True}``
        for ``"dp"``.
    memory_budget : int, optional
        DP and order graph only: bytes they may use.
    initial_epsilon : float
        First gap scored for when starting from data (>= 0).
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`).

    Returns
    -------
    CredibleSet
        ``kind="kbest"``, ``epsilon`` the gap of the k-th network.
    """
    t_start = time.perf_counter()
    k = check_k(k)
    time_limit = check_time_limit(time_limit)
    if not (isinstance(initial_epsilon, (int, float)) and math.isfinite(initial_epsilon) and initial_epsilon >= 0):
        raise ConfigError(f"initial_epsilon must be a finite number >= 0, got {initial_epsilon!r}")
    cons = as_constraints(constraints)
    given = is_table_input(data_or_table)
    eps = float(initial_epsilon)
    rounds = 0
    time_scoring = 0.0
    while True:
        rounds += 1
        table, info = acquire_table(data_or_table, epsilon=None if given else eps, constraints=cons,
                                    scoring_options=scoring_options, progress=progress)
        time_scoring += info.time_scoring
        kinds = cons.kinds() if cons is not None else frozenset()
        given_options = {"params": params, "verbose": verbose, "memory_budget": memory_budget,
                         **dict(engine_options or {})}
        m, why = resolve_method(method, "kbest", table.n, kinds, len(table), given_options)
        opts = method_options(m, given_options)
        stats: dict[str, Any] = {"method": m.name, "method_reason": why, "k": k}
        searched = filter_table(table, cons)
        if searched is None:
            stats.update({"rounds": rounds, "time_scoring": time_scoring})
            return CredibleSet(math.nan, 0.0, True, None, [], kind="kbest", stats=stats, method=m.name,
                               infeasible=True, approximate=info.approximate, caveats=list(info.caveats))
        remaining = _remaining(time_limit, t_start)
        if remaining is not None and remaining <= 0:
            stats.update({"rounds": rounds, "time_scoring": time_scoring})
            return CredibleSet(math.nan, math.nan, False, "time_limit", [], kind="kbest", stats=stats,
                               method=m.name, approximate=info.approximate, caveats=list(info.caveats))
        t0 = time.perf_counter()
        col = engine_module(m).kbest(searched, k=k, constraints=cons if m.constraint_kinds is None else None,
                                     time_limit=remaining, epsilon_hint=eps, **opts)
        stats.update(col.stats)
        stats["time_search"] = time.perf_counter() - t0
        if not col.entries:
            stats.update({"rounds": rounds, "time_scoring": time_scoring})
            return CredibleSet(math.nan, 0.0, col.reason is None, col.reason, [], kind="kbest", stats=stats,
                               method=m.name, infeasible=col.reason is None, approximate=info.approximate,
                               caveats=list(info.caveats))
        opt = max(sc for sc, _ in col.entries)
        cs = credible_set(searched, col, opt=opt, epsilon=0.0, kind="kbest", method=m.name, info=info,
                          stats=stats, keep=k)
        unpruned = not any(int(c) for rules in table.pruning.values() for r, c in rules.items()
                           if r != "structural_constraints")
        done = (given or not cs.complete or unpruned or not scoring_options.get("prune", True)
                or (len(cs) == k and cs.epsilon <= eps))
        if done:
            for net in cs.networks:
                _check_answer(net, cons)
            cs.stats.update({"rounds": rounds, "time_scoring": time_scoring, "table_epsilon": table.epsilon,
                             "time_total": time.perf_counter() - t_start})
            return cs
        gap = cs.epsilon if len(cs) == k else 2 * eps
        _log.info("the k-th best network lies beyond the table's epsilon %.4g (or too few networks): rescoring", eps)
        eps = max(2 * eps, 1.01 * gap, 1.0)
