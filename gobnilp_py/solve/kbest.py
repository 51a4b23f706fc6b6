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

from ..errors import ParameterError
from ._checks import check_k, check_max_networks, check_time_limit
from .credible import CredibleSet
from .inputs import acquire_table, as_constraints, filter_table, is_table_input
from .learn import _check_answer, _remaining
from .methods import engine_module, method_options, resolve_method
from .results import credible_set

__all__ = ["kbest"]

_log = logging.getLogger(__name__)


def kbest(data_or_table: Any, k: int, *, method: str = "auto", by: str = "dag", ties: bool = True,
          max_networks: int | None = 150_000, time_limit: float | None = None,
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
        Number of networks (>= 1; with ``by="class"``, of equivalence classes).
        If fewer exist, all are returned.
    method : str
        ``"auto"``, ``"ilp"``, ``"dp"``, ``"resolve"`` or ``"ordergraph"``.
    by : str
        ``"dag"`` (default): the k best networks.  ``"class"``: the k best
        Markov equivalence classes (score-equivalent scores only, where every
        member of a class has the same score), with all their members listed
        (up to ``max_networks``) and counted.
    ties : bool
        True (default): also return every network (class) tied with the k-th,
        so the list is exactly every network within ``epsilon`` of the
        optimum and its model averages mean what they say.  False: exactly k,
        ties at the k-th place broken by :attr:`Network.key`.
    max_networks : int or None
        ``by="class"`` only: list at most this many member networks (the
        counts and averages still cover every member).
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
    if by not in ("dag", "class"):
        raise ParameterError(f"by must be 'dag' or 'class', got {by!r}")
    max_networks = check_max_networks(max_networks)
    time_limit = check_time_limit(time_limit)
    from .._validation import check_number

    initial_epsilon = check_number(initial_epsilon, "initial_epsilon", lo=0.0)
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
        if by == "class":
            _check_class_kbest(m, searched)
        t0 = time.perf_counter()
        col = _search(m, searched, k, ties=ties, by_class=by == "class",
                      constraints=cons if m.constraint_kinds is None else None, time_limit=remaining,
                      epsilon_hint=eps, opts=opts, widen=given or unpruned_table(table))
        stats.update(col.stats)
        stats.update({"time_search": time.perf_counter() - t0, "ties": ties, "by": by})
        if not col.entries:
            stats.update({"rounds": rounds, "time_scoring": time_scoring})
            return CredibleSet(math.nan, 0.0, col.reason is None, col.reason, [], kind="kbest", stats=stats,
                               method=m.name, infeasible=col.reason is None, approximate=info.approximate,
                               caveats=list(info.caveats))
        opt = max(sc for sc, _ in col.entries)
        if by == "class":
            cs = _class_result(searched, col, opt, k, ties, max_networks, m.name, info, stats)
        else:
            cs = credible_set(searched, col, opt=opt, epsilon=0.0, kind="kbest", method=m.name, info=info,
                              stats=stats, keep=_keep(col.entries, k, ties, opt))
        unpruned = unpruned_table(table)
        enough = cs.stats.get("k_found", len(cs)) >= k
        done = (given or not cs.complete or unpruned or not scoring_options.get("prune", True)
                or (enough and cs.epsilon <= eps))
        if done:
            if given:
                _label_beyond_table(cs, table)
            for net in cs.networks:
                _check_answer(net, cons)
            cs.stats.update({"rounds": rounds, "time_scoring": time_scoring, "table_epsilon": table.epsilon,
                             "time_total": time.perf_counter() - t_start})
            return cs
        gap = cs.epsilon if enough else 2 * eps
        _log.info("the k-th best network lies beyond the table's epsilon %.4g (or too few networks): rescoring", eps)
        eps = max(2 * eps, 1.01 * gap, 1.0)


def _tied(a: float, b: float, opt: float) -> bool:
    from .results import tolerance_of

    return abs(a - b) <= tolerance_of(opt)


def _keep(entries: list[Any], k: int, ties: bool, opt: float) -> int:
    """How many of the ranked entries form the answer: k, or k plus every entry tied with the k-th."""
    scores = sorted((sc for sc, _ in entries), reverse=True)
    if len(scores) <= k or not ties:
        return min(k, len(scores))
    kth = scores[k - 1]
    keep = k
    while keep < len(scores) and _tied(scores[keep], kth, opt):
        keep += 1
    return keep


def unpruned_table(table: Any) -> bool:
    """True when no rule removed a parent set (the table is exact for every gap)."""
    return not any(int(c) for rules in table.pruning.values() for r, c in rules.items()
                   if r != "structural_constraints")


def _search(m: Any, table: Any, k: int, *, ties: bool, by_class: bool, constraints: Any,
            time_limit: float | None, epsilon_hint: float, opts: dict[str, Any], widen: bool = True) -> Any:
    """Run the method's k-best; when it does not list ties itself, ask for more until the k-th is not tied."""
    engine = engine_module(m)
    extra: dict[str, Any] = {"by_class": True} if by_class else {}
    if not widen:
        extra["widen"] = False
    # A method that cuts ties is asked for one more than k: the (k+1)-th tells whether the k-th is tied.
    want = k if (not ties or m.kbest_ties) else k + 1
    t0 = time.perf_counter()
    while True:
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        col = engine.kbest(table, k=want, constraints=constraints, time_limit=remaining,
                           epsilon_hint=epsilon_hint, **extra, **opts)
        if want == k or col.reason is not None or len(col.entries) < want:
            return col
        scores = sorted((sc for sc, _ in col.entries), reverse=True)
        if not _tied(scores[-1], scores[k - 1], scores[0]):
            return col
        want *= 2  # the last network listed ties the k-th: there may be more ties beyond it


def _check_class_kbest(m: Any, table: Any) -> None:
    from .classes import is_score_equivalent

    if not m.class_collection:
        raise ParameterError(f"method {m.name!r} cannot list the k best equivalence classes; use method='ilp'")
    if not is_score_equivalent(table):
        raise ParameterError("the k best equivalence classes need a score-equivalent score (BIC, BDeu, AIC); this "
                          f"table's score is {table.score_name or 'not recorded'}")


def _class_result(table: Any, col: Any, opt: float, k: int, ties: bool, max_networks: int | None, method: str,
                  info: Any, stats: dict[str, Any]) -> CredibleSet:
    """The k best classes (one representative each from the engine): members listed and counted."""
    from dataclasses import replace

    from .classes import expand_classes
    from .results import tolerance_of

    reps = sorted(col.entries, key=lambda e: (-e[0], e[1]))
    reps = reps[:_keep(reps, k, ties, opt)]
    worst = reps[-1][0]
    expansion = expand_classes(table, reps, limit=worst - tolerance_of(opt), max_networks=max_networks,
                               all_representable=False)
    stats.update(expansion.stats)
    stats["k_found"] = len(reps)
    reason = col.reason
    if reason is None and expansion.capped:
        reason = "max_networks"
    cs = credible_set(table, replace(col, entries=expansion.entries, reason=reason), opt=opt, epsilon=0.0,
                      kind="kbest", method=method, info=info, stats=stats)
    cs.classes = expansion.classes
    cs.n_classes_total = len(expansion.classes)
    cs.n_networks_total = expansion.n_networks_total
    return cs


def _label_beyond_table(cs: CredibleSet, table: Any) -> None:
    """A given table's k-best list whose last networks lie beyond the table's safe gap is incomplete.

    Families of networks more than ``safe_epsilon`` below the optimum may have
    been pruned, so networks between the table's gap and the k-th may be
    missing.  What stays certified: every network with score >= OPT - safe_epsilon.
    """
    safe = table.safe_epsilon
    if safe is None or not cs.networks or not cs.complete or cs.epsilon <= safe + 1e-12:
        return
    from .results import tolerance_of

    cs.complete = False
    cs.reason = "table_epsilon"
    cs.threshold = cs.opt - safe - tolerance_of(cs.opt)
    cs.caveats.append(f"the score table was pruned for epsilon={safe:.6g}: beyond that gap below OPT networks of "
                      "the data may be missing from this list; rescore the data (or give the data) for the full "
                      "k-best list")
