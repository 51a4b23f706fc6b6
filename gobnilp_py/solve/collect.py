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

import logging
import math
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import ParameterError, SolverError
from ._checks import check_epsilon, check_max_networks, check_time_limit
from .classes import expand_classes
from .credible import CredibleSet
from .inputs import acquire_table, as_constraints, filter_table
from .learn import _check_answer, _remaining
from .methods import engine_module, method_options, resolve_method
from .results import credible_set, network_from_solution, tolerance_of

__all__ = ["enumerate_networks", "INTERRUPT_GRACE"]

#: Seconds the members of the classes found may still be listed after Ctrl-C / SIGTERM stopped the search.
INTERRUPT_GRACE = 2.0

_log = logging.getLogger(__name__)


def enumerate_networks(data_or_table: Any, *, bayes_factor: float | None = None, epsilon: float | None = None,
                       method: str = "auto", by: str = "auto", max_networks: int | None = 150_000,
                       time_limit: float | None = None,
                       constraints: Any = None, params: Mapping[str, Any] | None = None,
                       verbose: bool = False, memory_budget: int | None = None,
                       engine_options: Mapping[str, Any] | None = None, verify: bool = False,
                       progress: Any = None, **scoring_options: Any) -> CredibleSet:
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
    time_limit : float, optional
        Wall-clock seconds for the whole call, scoring included
        (``complete=False``, reason ``"time_limit"``, when reached).
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
        Also collect with a second exact method and raise :class:`SolverError`
        unless both find the same networks.
    progress : callable, optional
        Progress hook (e.g. :class:`gobnilp_py.progress.Progress`).
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
    if by not in ("auto", "class", "dag"):
        raise ParameterError(f"by must be 'auto', 'class' or 'dag', got {by!r}")
    eps = check_epsilon(bayes_factor, epsilon)
    max_networks = check_max_networks(max_networks)
    time_limit = check_time_limit(time_limit)
    cons = as_constraints(constraints)
    table, info = acquire_table(data_or_table, epsilon=eps, constraints=cons, scoring_options=scoring_options,
                                progress=progress)
    kinds = cons.kinds() if cons is not None else frozenset()
    given_options = {"params": params, "verbose": verbose, "memory_budget": memory_budget,
                     **dict(engine_options or {})}
    m, why = resolve_method(method, "epsilon_set", table.n, kinds, len(table), given_options)
    opts = method_options(m, given_options)
    stats: dict[str, Any] = {"method": m.name, "method_reason": why, "time_scoring": info.time_scoring}
    searched = filter_table(table, cons)
    if searched is None:
        return CredibleSet(math.nan, eps, True, None, [], kind="bayes_factor", stats=stats, method=m.name,
                           infeasible=True, approximate=info.approximate, caveats=list(info.caveats))
    engine = engine_module(m)
    row_cons = cons if m.constraint_kinds is None else None
    t0 = time.perf_counter()
    sol = engine.optimum(searched, constraints=row_cons, time_limit=_remaining(time_limit, t_start), **opts)
    stats["time_opt"] = time.perf_counter() - t0
    stats["opt_status"] = sol.status
    best = network_from_solution(searched, sol, stats={})
    _check_answer(best, cons)
    if sol.status == "infeasible":
        return CredibleSet(math.nan, eps, True, None, [], kind="bayes_factor", stats=stats, method=m.name,
                           infeasible=True, approximate=info.approximate, caveats=list(info.caveats))
    if sol.status != "optimal":
        # Without a proven optimum the limit OPT - ε is unknown: report what we have, labelled.
        nets = [best] if math.isfinite(best.score) else []
        return CredibleSet(best.score if nets else math.nan, eps, False, sol.status, nets, kind="bayes_factor",
                           stats=stats, method=m.name, approximate=info.approximate, caveats=list(info.caveats))
    opt = sol.score
    remaining = _remaining(time_limit, t_start)
    if remaining is not None and remaining <= 0:
        return CredibleSet(opt, eps, False, "time_limit", [best], tolerance=tolerance_of(opt), kind="bayes_factor",
                           stats=stats, method=m.name, approximate=info.approximate, caveats=list(info.caveats))
    by_class = _collect_by_class(by, m, searched)
    col = engine.epsilon_set(searched, opt=opt, epsilon=eps, constraints=row_cons, max_networks=max_networks,
                             time_limit=remaining, progress=progress, **({"by_class": True} if by_class else {}),
                             **opts)
    stats.update(col.stats)
    stats["by"] = "class" if by_class else "dag"
    if col.opt is not None:
        opt = col.opt
    expansion = None
    if col.by_class:
        deadline = None if time_limit is None else t_start + time_limit
        if col.reason == "interrupted":  # the user wants the partial result now: a short grace for listing
            deadline = min(deadline or math.inf, time.perf_counter() + INTERRUPT_GRACE)
        expansion = expand_classes(searched, col.entries, limit=opt - eps - tolerance_of(opt),
                                   max_networks=max_networks, deadline=deadline,
                                   all_representable=_all_members_representable(searched, info, cons, eps))
        stats.update(expansion.stats)
        reason = col.reason
        if reason is None and not expansion.complete_counts:
            reason = "time_limit"
        if reason is None and expansion.capped:
            reason = "max_networks"
        col = replace(col, entries=expansion.entries, reason=reason)
    extra = [best] if col.reason not in (None, "max_networks") else []
    stats["time_total"] = time.perf_counter() - t_start
    cs = credible_set(searched, col, opt=opt, epsilon=eps, kind="bayes_factor", method=m.name, info=info,
                      stats=stats, extra_networks=extra)
    if expansion is not None:
        search_done = col.reason in (None, "max_networks")
        cs.classes = expansion.classes if search_done else None
        cs.n_networks_total = expansion.n_networks_total if search_done else None
        cs.n_classes_total = len(expansion.classes) if search_done else None
    elif cs.complete:
        cs.n_networks_total = len(cs.networks)
    for net in cs.networks:
        _check_answer(net, cons)
    if verify and cs.complete:
        _verify(cs, searched, cons, m.name, kinds, eps)
    return cs


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


def _verify(cs: CredibleSet, table: Any, cons: Any, used: str, kinds: frozenset[str], eps: float) -> None:
    """Collect again with a second exact method; raise unless it finds exactly the same networks."""
    from .methods import METHODS, _available

    for other in METHODS.values():
        if other.name == used or "epsilon_set" not in other.tasks or not _available(other):
            continue
        if other.supports_constraints(kinds) or (other.max_variables is not None and table.n > other.max_variables):
            continue
        row_cons = cons if other.constraint_kinds is None else None
        engine = engine_module(other)
        sol = engine.optimum(table, constraints=row_cons)
        col = engine.epsilon_set(table, opt=sol.score, epsilon=eps, constraints=row_cons, max_networks=None)
        mine = {n.key for n in cs.networks}
        from .results import rank_entries

        theirs = {n.key for n in rank_entries(table, col.entries, sol.score)}
        if mine != theirs:
            raise SolverError(f"verification failed: method {used!r} found {len(mine)} networks, method "
                              f"{other.name!r} found {len(theirs)} ({len(mine ^ theirs)} differ)")
        cs.stats["verified_by"] = other.name
        return
    raise SolverError(f"verification impossible: no second exact method can collect this problem besides {used!r}")
