"""``kbest()``: the k best networks, provably, by any method that can list them, from one certified gap.

**The table.**  Every k-best method needs a table holding every family of
every one of the k best networks (and of every network tied with the k-th).
A table pruned safely for a gap ε holds every family of every network within
ε of the optimum, so it suffices once ε >= OPT - s_(k).  That gap is not
guessed: after one optimum, :func:`~gobnilp_py.search.witnesses.certified_gap`
lists k distinct DAGs of the table (sub-DAGs of the optimum and of its
covered-edge-reversal equivalents, consistent with their topological
orders) and ``ε_k = OPT - (the worst of their scores)`` bounds the gap of the
k-th best network and of everything tied with it.

**Why two scoring passes from data (and when only one).**  ε_k needs OPT and
the scores of the witnesses, i.e. a scored table and a search; no ε can be
justified before the data are scored (a data-only bound such as
``N ln r`` per dropped edge is hundreds of nats: an unpruned table).  So the
data are scored first at ε = 0, the cheapest exact table (pruning work grows
with ε), OPT is found on it, ε_k is certified from its witnesses (valid
witnesses for the data: every DAG of a table is a DAG of the data with its
true score), and the data are scored a second time for ε_k with the global
gap rule seeded by the exact ``lower_bound=OPT``.  The second pass is skipped
when the first table already serves: scoring unpruned (``prune=False``), or
ε_k within the first table's ε (e.g. k no larger than the optimum's
equivalence class under a score-equivalent score, where ε_k is rounding).
There is never a third pass and never a repeated search: the k-best search
runs once, with ``opt`` and ε_k given (the ILP uses them as its objective
limit, under which at least k networks are certified to lie).

**Parent limits (BIC/AIC).**  Chen, Darwiche and Choi's bounds, corrected
(:mod:`gobnilp_py.scoring.kbest_bounds`), cut every family with more
parents of arity >= 2 than any network scoring at least the k-th best can
have; the cut table gives every method the same k best and ties.  BDeu (and
every other score) has no such bound: the result says so.  Skipped (and
said) for the k best *classes* (the bound counts DAGs, not classes) and
under constraints that removing a parent could violate.

**Labels.**  The result is a k-best list (``kind="kbest"``): its
``stats["certified_epsilon"]`` is ε_k, ``epsilon`` the exact gap of the k-th
network; with ``ties=True`` (default) it holds every network tied with the
k-th, so it *is* the exact ε-set for ``ε = epsilon``, and the result says so
(``stats["equals_epsilon_set"]``) only when that holds.

Methods (:mod:`.methods`): ``"ilp"`` (one branch-and-cut search with a rising
k-th best bound), ``"dp"`` (dynamic programming with k-best lists, Tian, He and
Ram 2010), ``"resolve"`` (k successive ILP solves, as GOBNILP 1.6) and
``"ordergraph"``.  Results are ranked the same way whichever method runs
(best first, ties in :attr:`Network.key` order), so they can be compared
entry by entry.
"""

from __future__ import annotations

import inspect
import logging
import math
import numpy as np
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._validation import READ_OPTIONS, check_bool
from .._wording import ordinal
from ..errors import ParameterError
from .keywords import check_keywords
from ._checks import check_budget, check_by, check_k, check_lower_bound_held, check_max_networks, check_method
from .collect import listing_reserve
from .credible import CredibleSet, shown_epsilon
from .inputs import (acquire_table, as_constraints, filter_table, is_table_input, mark_members, memory_limit_of,
                     score_provenance)
from .learn import _check_answer, _stage
from .request import SearchRequest
from .methods import METHODS, engine_module, method_options, resolve_method, with_memory_limit
from .results import REL_TOL, credible_set, portable_reuse, take_reuse, tolerance_of
from .set_posterior import source_for

__all__ = ["kbest", "PARENT_LIMITS"]

_log = logging.getLogger(__name__)

#: Values of ``parent_limits``: Chen et al.'s local bound (from N and the arities), the global
#: one (a search over variable orders of the table), or none.
PARENT_LIMITS = ("local", "global", None)

#: Witness networks examined per k when witnesses must also be admissible or span k classes.
_WITNESS_FACTORS = (1, 4, 16, 64)


def kbest(data_or_table: Any, k: int, *, method: str = "auto", by: str = "dag", ties: bool = True,
          max_networks: int | None = 150_000, time_limit: float | None = None,
          constraints: Any = None, params: Mapping[str, Any] | None = None, verbose: bool = False,
          memory_budget: int | None = None, engine_options: Mapping[str, Any] | None = None,
          parent_limits: str | None = "local", progress: Any = None,
          **scoring_options: Any) -> CredibleSet:
    """The k best networks, provably, best first (ties in canonical order), from a certified gap.

    Parameters
    ----------
    data_or_table : Dataset, path, DataFrame, array, ScoreTable or .jkl path
        Data are scored at ε = 0, OPT is found, the certified gap ε_k of
        the k-th best is computed from witnesses, and the data are scored
        once more for ε_k unless the first table already serves (see the
        module docstring).  A table is used as is.
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
    time_limit : float or Budget, optional
        Wall-clock seconds for the whole call: reading a data file, both
        scoring passes and the searches (``complete=False`` when reached; a
        :class:`gobnilp_py.Budget` started earlier covers what ran before too).
        A scoring pass cut short by it certifies nothing: the answer then has no
        networks.
    constraints : StructuralConstraints, mapping or path, optional
    params, verbose :
        ILP methods only: SCIP parameters, SCIP's log.
    engine_options : mapping, optional
        Further options of the chosen method's engine (refused, in one line,
        when the method does not take them), e.g. ``{"trace_memory": True}``
        for ``"dp"``.
    memory_budget : int, optional
        DP and order graph only: bytes they may use.
    parent_limits : {"local", "global", None}
        BIC/AIC: cut the table to Chen et al.'s corrected k-best parent
        limits (:func:`~gobnilp_py.scoring.kbest_bounds.kbest_parent_limit`)
        before the k-best search; ``None``: do not.  Other scores: no bound
        exists, and the result notes it.
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`)
        and the reading options of :func:`gobnilp_py.read_data`.

    Returns
    -------
    CredibleSet
        ``kind="kbest"``; ``epsilon`` the gap of the k-th network;
        ``stats["certified_epsilon"]`` the certified gap ε_k the table was
        made safe for, ``stats["scoring_passes"]`` (0 for a given table, 1
        or 2 from data), ``stats["parent_limits"]``, table sizes before and
        after the limits, and ``stats["equals_epsilon_set"]``.
    """
    if scoring_options.get("backend") == "dask":
        from .dask_collect import dask_client

        with dask_client(scoring_options.get("scheduler")) as client:
            # data are scored on the same cluster (a Client is a scheduler the scorers take); a table is not
            if is_table_input(data_or_table):
                scoring_options = {k_: v for k_, v in scoring_options.items() if k_ not in ("backend", "scheduler")}
            else:
                scoring_options = {**scoring_options, "scheduler": client}
            return _kbest(data_or_table, k, method=method, by=by, ties=ties, max_networks=max_networks,
                          time_limit=time_limit, constraints=constraints, params=params, verbose=verbose,
                          memory_budget=memory_budget, engine_options=engine_options, parent_limits=parent_limits,
                          progress=progress, client=client, **scoring_options)
    return _kbest(data_or_table, k, method=method, by=by, ties=ties, max_networks=max_networks,
                  time_limit=time_limit, constraints=constraints, params=params, verbose=verbose,
                  memory_budget=memory_budget, engine_options=engine_options, parent_limits=parent_limits,
                  progress=progress, **scoring_options)


def _kbest(data_or_table: Any, k: int, *, method: str, by: str, ties: bool, max_networks: int | None,
           time_limit: float | None, constraints: Any, params: Mapping[str, Any] | None, verbose: bool,
           memory_budget: int | None, engine_options: Mapping[str, Any] | None, parent_limits: str | None,
           progress: Any, client: Any = None, **scoring_options: Any) -> CredibleSet:
    """:func:`kbest`'s work; with ``client`` (``backend="dask"``) a k-best search by DAG of the ILP or the order
    graph runs in disjoint parts on that Dask cluster (:mod:`.dask_collect`), merged to the serial answer."""
    t_start = time.perf_counter()
    check_keywords("kbest", scoring_options)
    ties, verbose = check_bool(ties, "ties"), check_bool(verbose, "verbose")
    k = check_k(k)
    by = check_by(by, "by", "kbest")
    method = check_method(method, "method", "kbest")
    if parent_limits not in PARENT_LIMITS:
        raise ParameterError(f"parent_limits must be 'local', 'global' or None, got {parent_limits!r}")
    if "initial_epsilon" in scoring_options:
        raise ParameterError("initial_epsilon is no longer taken: kbest certifies the gap of the k-th network "
                             "itself (stats['certified_epsilon']) and scores once for it")
    max_networks = check_max_networks(max_networks)
    budget = check_budget(time_limit, t_start)
    given_options = {"params": params, "verbose": verbose, "memory_budget": memory_budget,
                     **dict(engine_options or {})}
    # the rules between the keywords, before reading or scoring (the config and the CLI check the same)
    SearchRequest(method=method, task="kbest", options=given_options, by=by).check()
    cons = as_constraints(constraints)
    given = is_table_input(data_or_table)
    by_class = by == "class"
    source, scoring_options = _read_once(data_or_table, given, scoring_options)

    # Pass 1: the cheapest exact table (ε = 0 plus rounding, see _rounding_gap), or the given table.
    table, info = acquire_table(source, epsilon=None if given else _rounding_gap(source), constraints=cons,
                                scoring_options=scoring_options, progress=progress, budget=budget)
    passes = 0 if given else 1
    time_scoring = info.time_scoring
    pass_times = [] if given else [info.time_scoring]
    kinds = cons.kinds() if cons is not None else frozenset()
    m, why = resolve_method(method, "kbest", table.n, kinds, len(table), given_options, class_collection=by_class)
    opts = with_memory_limit(m, method_options(m, given_options), memory_limit_of(budget, scoring_options))
    if by_class:
        _check_class_kbest(m, table)
    stats: dict[str, Any] = {"method": m.name, "method_reason": why, "k": k, "ties": ties, "by": by,
                             **score_provenance(table)}

    src = source_for(info.data, table, scoring_options, cons)

    def finish(cs: CredibleSet) -> CredibleSet:
        cs._posterior_source = src
        cs.stats.update({"scoring_passes": passes, "time_scoring": time_scoring, "time_scoring_passes": pass_times,
                         "time_total": time.perf_counter() - t_start})
        return mark_members(cs)

    def empty(opt: float, epsilon: float, complete: bool, reason: str | None, infeasible: bool = False) -> CredibleSet:
        """A result without networks: infeasible, or stopped before the list began."""
        return finish(CredibleSet(opt, epsilon, complete, reason, [], kind="kbest", stats=stats, method=m.name,
                                  infeasible=infeasible, approximate=info.approximate, caveats=list(info.caveats)))

    searched = filter_table(table, cons)
    if searched is None:
        return empty(math.nan, 0.0, True, None, infeasible=True)

    # One optimum, then the certified gap.
    t0 = time.perf_counter()
    left = budget.remaining()
    if info.stopped is not None or (left is not None and left <= 0):  # scoring used the whole budget
        stats["optimum_status"] = "time_limit"
        if info.stopped is not None:
            stats["scoring_stopped"] = info.stopped
        return empty(math.nan, math.nan, False, info.stopped or "time_limit")
    _stage(progress, "optimum", m.name)
    sol = _optimum(m, searched, cons, budget.left_for_engine(), opts)
    stats["time_optimum"] = time.perf_counter() - t0
    stats["optimum_status"] = sol.status
    check_lower_bound_held(table, sol)
    if sol.status == "infeasible":
        return empty(math.nan, 0.0, True, None, infeasible=True)
    if sol.status != "optimal":
        reason = "time_limit" if sol.status in ("time_limit", "no_solution") else sol.status
        return empty(math.nan, math.nan, False, reason)
    opt = sol.score
    t0 = time.perf_counter()
    gap = _certify(searched, sol.chosen, k, cons, by_class)
    stats.update({"time_witnesses": time.perf_counter() - t0, "certified_epsilon": gap.epsilon,
                  "witnesses": gap.witnesses, "witness_rule": gap.rule})

    # Pass 2 (data only, when the first table is not ε_k-safe): score once for ε_k.
    if not given and not _serves(table, gap.epsilon, opt):
        eps_score = gap.epsilon + 2 * tolerance_of(opt)  # ties with the k-th lie up to one tolerance further
        if getattr(sol.reuse, "table", None) is not None:
            sol.reuse = None          # lookups of the table about to be replaced: freed before scoring again
        table, info2 = _score_for(source, eps_score, opt, cons, scoring_options, progress, budget)
        passes += 1
        time_scoring += info2.time_scoring
        pass_times.append(info2.time_scoring)
        info.caveats = list(info2.caveats)
        if info2.stopped is not None:    # OPT is proven, the list is not: the second table is truncated
            stats["scoring_stopped"] = info2.stopped
            return empty(opt, math.nan, False, info2.stopped)
        searched = filter_table(table, cons)
        if searched is None:  # cannot happen (the optimum is admissible); fail loudly rather than mislabel
            raise ParameterError("the ε_k table admits no network although the ε = 0 table did (please report)")
    stats["table_epsilon"] = table.epsilon
    stats["table_safe_epsilon"] = table.safe_epsilon

    # Chen et al.'s parent limits (BIC/AIC), corrected.
    notes: list[str] = []
    searched = _apply_parent_limits(searched, k, parent_limits, by_class, cons, stats, notes)

    remaining = budget.remaining()
    if remaining is not None and remaining <= 0:
        return empty(opt, math.nan, False, "time_limit")
    _stage(progress, "k best", m.name)
    t0 = time.perf_counter()
    hint = gap.epsilon + 2 * tolerance_of(opt) if math.isfinite(gap.epsilon) else None
    # The ILP's k-best search starts from the optimum search's cluster cuts (valid for every DAG, so also
    # on a table rescored for the certified gap); the order graph's from its best-parent lookups when the
    # table is the same.
    reuse = take_reuse(sol, searched) if _takes_reuse(m) else {}
    sol.reuse = None
    # as a collection does: time kept for building the networks found and for the caller's writing of each
    listed = max_networks if by_class else k
    search_left = max(remaining - listing_reserve(remaining, listed, budget.per_network, by_class=by_class), 1e-6) \
        if remaining is not None else None
    if client is not None and m.name in SPLIT_KBEST and (not by_class or m.class_collection):
        from .dask_collect import collect_on_dask

        col = collect_on_dask(client, searched, method=m.name, opt=opt, epsilon=math.inf if hint is None else hint,
                              max_networks=None, time_limit=search_left, options={**opts, **portable_reuse(reuse)},
                              constraints=cons if m.constraint_kinds is None else None, k=k, by_class=by_class)
    else:
        if client is not None:
            stats["collection_split"] = "no: a k-best search of this method runs in-process"
        col = _search(m, searched, k, ties=ties, by_class=by_class,
                      constraints=cons if m.constraint_kinds is None else None, time_limit=search_left,
                      epsilon_hint=hint, opt=opt, opts={**opts, **reuse})
    del reuse                         # not kept while the result is built
    stats.update(col.stats)
    stats["time_search"] = time.perf_counter() - t0
    if not col.entries:
        return empty(math.nan, 0.0, col.reason is None, col.reason, infeasible=col.reason is None)
    found_opt = max(sc for sc, _ in col.entries)
    if by_class:
        cs = _class_result(searched, col, found_opt, k, ties, max_networks, m.name, info, stats)
    else:
        keep = _keep(col.entries, k, ties, found_opt)
        cs = credible_set(searched, col, opt=found_opt, epsilon=0.0, kind="kbest", method=m.name, info=info,
                          stats=stats, keep=keep)
        cs.stats["k_found"] = min(k, len(col.entries))
        cs.stats["equals_epsilon_set"] = _equals_epsilon_set(col.entries, keep, k, ties, m, found_opt, cs)
    if given:
        _label_beyond_table(cs, table)
    elif cs.complete and math.isfinite(gap.epsilon) and cs.epsilon > gap.epsilon + 2 * tolerance_of(opt):
        # The witnesses prove s_(k) >= OPT - ε_k; a k-th beyond it would mean a bug, not a wider answer.
        raise ParameterError(f"the k-th best network lies {cs.epsilon:.9g} below OPT, beyond the certified "
                             f"gap {gap.epsilon:.9g} (please report)")
    for net in cs.networks:
        _check_answer(net, cons)
    cs.caveats.extend(_labels(cs, k, gap, notes, given))
    return finish(cs)


# ------------------------------------------------------------------ inputs and passes
def _read_once(data_or_table: Any, given: bool, scoring_options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Read data given as a file, frame or array once (both scoring passes use the same Dataset)."""
    if given:
        return data_or_table, scoring_options
    from ..data import Dataset, read_data
    from ..data.continuous import continuous_input
    from ..scoring.local_scores import is_gaussian_score

    read_opts = {k: scoring_options[k] for k in READ_OPTIONS if k in scoring_options}
    rest = {k: v for k, v in scoring_options.items() if k not in READ_OPTIONS}
    if is_gaussian_score(scoring_options.get("score")):
        return continuous_input(data_or_table, read_opts, score=str(scoring_options["score"])), rest
    if isinstance(data_or_table, Dataset):
        return data_or_table, scoring_options  # acquire_table refuses read options with a Dataset
    return read_data(data_or_table, **read_opts), rest


def _rounding_gap(data: Any) -> float:
    """The first pass's ε: zero up to rounding, enough that ties with a k-th at ε_k = 0 need no second pass.

    When k networks tie with the optimum (k no larger than its equivalence
    class under a score-equivalent score) ε_k is 0, but networks *tied* with
    the k-th lie up to ``2 * tolerance_of(OPT)`` below it, and an ε = 0 table
    may lack them.  ``|OPT|`` is at most ``|score of the empty network|``,
    about ``N sum_v ln r_v`` plus penalties; twice that times ``4e-9`` covers
    ``2 * tolerance_of(OPT)`` for the usual scores, and it costs nothing
    measurable in scoring.  It is only a first guess at what the first table
    should serve: :func:`_serves` checks the real requirement after OPT is known,
    so a wrong guess costs a second pass, never exactness.
    """
    if not hasattr(data, "arities"):
        # continuous data (a Gaussian score): |s(v, ∅)| is about N/2 |ln(2π var_v) + 1| plus ln N per variable
        var = np.maximum(np.diag(data.scatter) / data.N, 1e-300)
        scale = float(np.sum(0.5 * data.N * np.abs(np.log(2 * math.pi * var) + 1.0)) + data.n * math.log(data.N))
        return 8 * REL_TOL * max(1.0, scale)
    ar = [max(int(a), 2) for a in data.arities]
    scale = data.N * sum(math.log(a) for a in ar) + sum((a - 1) * (math.log(max(data.N, 2)) + 1) for a in ar)
    return 8 * REL_TOL * max(1.0, scale)


def _serves(table: Any, epsilon: float, opt: float) -> bool:
    """True when ``table`` is safe for ``epsilon`` (and the ties one tolerance beyond it)."""
    from .inputs import EPS_SLACK

    safe = table.safe_epsilon
    if safe is None:
        return False
    if safe == math.inf:
        return True
    return math.isfinite(epsilon) and epsilon + 2 * tolerance_of(opt) <= safe + EPS_SLACK


def _score_for(source: Any, epsilon: float, opt: float, cons: Any, scoring_options: dict[str, Any],
               progress: Any, budget: Any = None) -> tuple[Any, Any]:
    """The second (and last) scoring pass: safe for ``epsilon``, global gap rule seeded with ``OPT``.

    ``OPT`` is the score of an admissible network (the optimum of the first
    table, under the constraints), hence a valid ``lower_bound`` for the global
    gap rule, and the best one there is.  Without a certified ε (fewer than
    k witnesses) the data are scored unpruned.
    """
    opts = dict(scoring_options)
    if math.isfinite(epsilon):
        if opts.get("prune", True):
            opts["lower_bound"] = opt
        return acquire_table(source, epsilon=epsilon, constraints=cons, scoring_options=opts, progress=progress,
                             budget=budget)
    opts["prune"] = False
    opts.pop("lower_bound", None)
    return acquire_table(source, epsilon=0.0, constraints=cons, scoring_options=opts, progress=progress,
                         budget=budget)


def _optimum(m: Any, table: Any, cons: Any, time_limit: float | None, opts: dict[str, Any]) -> Any:
    """One optimal network of ``table`` by ``m`` (by the ILP for ``resolve``, which has no optimum search)."""
    if "optimum" in m.tasks:
        module = engine_module(m)
    else:
        module = engine_module(METHODS["ilp"])
    kw = {k: v for k, v in opts.items() if k in ("params", "verbose", "memory_budget", "model_options")}
    if module.__name__ == "gobnilp_py.ilp.engine":
        kw.pop("memory_budget", None)
        return module.optimum(table, constraints=cons, time_limit=time_limit, **kw)
    return module.optimum(table, time_limit=time_limit, **kw)


@dataclass(frozen=True)
class _Gap:
    """The certified gap ε_k, how many witnesses back it, and which witnesses were counted."""

    epsilon: float
    witnesses: int
    rule: str


def _certify(table: Any, chosen: tuple[int, ...], k: int, cons: Any, by_class: bool) -> _Gap:
    """ε_k from witnesses of the optimum ``chosen`` (:mod:`gobnilp_py.search.witnesses`).

    Without constraints and for DAGs: :func:`certified_gap` (any k distinct
    DAGs of the table).  Under constraints only *admissible* witnesses count
    (a sub-DAG can break a row constraint the table filter cannot express),
    and for classes only witnesses of k *distinct* classes (the k-th best
    class then scores at least the worst of them).  Witnesses are drawn in
    growing batches; when too few qualify, ``ε_k = inf`` (the caller scores
    unpruned).
    """
    from ..search.witnesses import certified_gap, witnesses

    if cons is None and not by_class:
        eps, n_wit = certified_gap(table, chosen, k)
        return _Gap(eps, n_wit, "k best DAGs consistent with topological orders of the optimum and its equivalents")
    from ..equivalence.cpdag import class_key_from_masks

    opt = math.fsum(table.families[v][c][1] for v, c in enumerate(chosen))
    seen: set[Any] = set()
    for factor in _WITNESS_FACTORS:
        want = k * factor
        wit = witnesses(table, chosen, want)
        seen.clear()
        qualifying = 0
        for sc, pos in wit:
            parents = [table.families[v][c][0] for v, c in enumerate(pos)]
            if cons is not None and cons.violations(parents, table.names):
                continue
            if by_class:
                key = class_key_from_masks([sum(1 << p for p in ps) for ps in parents], validate=False)
                if key in seen:
                    continue
                seen.add(key)
            qualifying += 1
            if qualifying == k:
                # Members of one class tie only up to rounding: the k-th class's representative may
                # score a tolerance below this witness, so classes get one tolerance more.
                eps = opt - sc + (tolerance_of(opt) if by_class else 0.0)
                eps = math.nextafter(eps, math.inf) if eps > 0 else 0.0
                what = "admissible " if cons is not None else ""
                unit = "witnesses of distinct classes" if by_class else "witness DAGs"
                return _Gap(eps, qualifying, f"k {what}{unit} (of {len(wit)} examined)")
        if len(wit) < want:
            break  # every witness has been examined
    return _Gap(math.inf, qualifying, "fewer than k qualifying witnesses: no gap certified")


def _apply_parent_limits(table: Any, k: int, parent_limits: str | None, by_class: bool, cons: Any,
                         stats: dict[str, Any], notes: list[str]) -> Any:
    """Cut ``table`` to Chen et al.'s corrected k-best parent limits where they hold; say why not elsewhere."""
    from ..errors import ScoreError
    from ..scoring.kbest_bounds import kbest_parent_limit, limit_table

    stats["families_before_limits"] = len(table)
    stats["parent_limits"] = None
    name = (table.score_name or "").upper()
    why = None
    if parent_limits is None:
        why = "k-best parent limits not applied (parent_limits=None)"
    elif by_class:
        why = ("no k-best parent limit for the k best classes: Chen et al.'s bounds count DAGs, and k better "
               "DAGs need not span k classes")
    elif not table.score_name:
        why = ("no k-best parent limit: the table does not record its score (a .jkl file), so whether Chen et "
               "al.'s BIC/AIC bounds apply cannot be told")
    elif name not in ("BIC", "AIC"):
        why = (f"no k-best parent limit applies to {table.score_name or 'this score'}: Chen et al.'s bounds hold "
               "for BIC/AIC only (the certified gap alone makes the table k-best-safe)")
    elif cons is not None and not cons.subset_pruning_safe:
        why = ("no k-best parent limit: the structural constraints make dropping a parent unsafe, which the "
               "bounds rely on")
    if why is None:
        method = parent_limits if cons is None else "local"
        try:
            limits = kbest_parent_limit(table, k, method=method)
        except ScoreError as exc:
            why = f"no k-best parent limit: {exc}"
        else:
            table = limit_table(table, limits, k=k)
            stats["parent_limits"] = {"method": method, "limits": limits}
    if why is not None:
        notes.append(why)
        stats["parent_limits_note"] = why
    stats["families_after_limits"] = len(table)
    return table


# ------------------------------------------------------------------ the search
#: Methods whose k-best search runs split on Dask (``backend="dask"``): their lists hold every network tied with
#: the k-th (``Method.kbest_ties``), so the union of the parts' lists holds the whole table's (:func:`.split.top_k`).
SPLIT_KBEST = frozenset({"ilp", "ordergraph"})


def _tied(a: float, b: float, opt: float) -> bool:
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


def _takes_reuse(m: Any) -> bool:
    """Whether method ``m``'s k-best search accepts ``reuse=`` (the ILP's, the order graph's)."""
    return "reuse" in inspect.signature(engine_module(m).kbest).parameters


def _search(m: Any, table: Any, k: int, *, ties: bool, by_class: bool, constraints: Any,
            time_limit: float | None, epsilon_hint: float | None, opt: float, opts: dict[str, Any]) -> Any:
    """Run the method's k-best once; when it does not list ties itself, ask for more until the k-th is not tied.

    ``opt`` (proven) and ``epsilon_hint`` (the certified gap) let the ILP
    search under the objective limit ``OPT - ε_k``, within which at least k
    networks are certified to lie, so it never needs a second search.
    """
    engine = engine_module(m)
    extra: dict[str, Any] = {"by_class": True} if by_class else {}
    # A method that cuts ties is asked for one more than k: the (k+1)-th tells whether the k-th is tied.
    want = k if (not ties or m.kbest_ties) else k + 1
    t0 = time.perf_counter()
    while True:
        # a later round may start with the budget spent: a tiny positive limit makes the engine stop at once
        remaining = None if time_limit is None else max(time_limit - (time.perf_counter() - t0), 1e-3)
        col = engine.kbest(table, k=want, constraints=constraints, time_limit=remaining, opt=opt,
                           epsilon_hint=epsilon_hint, **extra, **opts)
        if want == k or col.reason is not None or len(col.entries) < want:
            return col
        scores = sorted((sc for sc, _ in col.entries), reverse=True)
        if not _tied(scores[-1], scores[k - 1], scores[0]):
            return col
        want *= 2  # the last network listed ties the k-th: there may be more ties beyond it


def _equals_epsilon_set(entries: list[Any], keep: int, k: int, ties: bool, m: Any, opt: float,
                        cs: CredibleSet) -> bool | None:
    """Whether the list is exactly every network within ``cs.epsilon`` of OPT (``None``: not known)."""
    if not cs.complete:
        return False
    if ties or len(entries) < k:
        return True  # every network tied with the k-th is listed (or every network there is)
    scores = sorted((sc for sc, _ in entries), reverse=True)
    if len(scores) > keep:
        return not _tied(scores[keep], scores[keep - 1], opt)
    return True if m.kbest_ties else None


def _labels(cs: CredibleSet, k: int, gap: _Gap, notes: list[str], given: bool) -> list[str]:
    """What the k-best list is: its certified ε_k, whether it is an exact ε-set, and the notes."""
    out = []
    if math.isfinite(gap.epsilon):
        # ``gap.witnesses`` counts the witness DAGs (a lower bound); only the best k of them lie within epsilon_k
        out.append(f"k-best list (k={k}) with certified gap epsilon_k={shown_epsilon(gap.epsilon, cs.opt):.6g}: "
                   f"the {k} best of at least "
                   f"{gap.witnesses} witness networks ({gap.rule}) score >= OPT - epsilon_k, which proves that the "
                   f"{ordinal(k)} best network, and every network tied with it, lies within epsilon_k of OPT"
                   + ("" if given else "; the table was scored safe for it"))
    else:
        out.append(f"k-best list (k={k}): no gap certified by witnesses ({gap.rule})"
                   + ("" if given else "; the table was scored unpruned"))
    if cs.stats.get("by") == "class":
        pass
    elif cs.stats.get("equals_epsilon_set") is True:
        out.append(f"the list equals the exact epsilon-set for epsilon={cs.epsilon:.6g}: every network with "
                   f"score >= OPT - {cs.epsilon:.6g} is listed" + (" (of this score table)" if cs.pruning_unknown else ""))
    elif cs.stats.get("equals_epsilon_set") is False and cs.complete:
        out.append(f"NOT the epsilon-set for epsilon={cs.epsilon:.6g}: networks tied with the {k}-th are "
                   "omitted (ties=False); do not read its averages as a Bayes-factor set")
    elif cs.complete:
        out.append(f"may not equal the epsilon-set for epsilon={cs.epsilon:.6g}: with ties=False networks tied "
                   f"with the {k}-th may be omitted")
    out.extend(notes)
    return out


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
    cs.complete = False
    cs.reason = "table_epsilon"
    cs.stats["equals_epsilon_set"] = False  # computed before this relabelling: the table may lack networks
    cs.threshold = cs.opt - safe - tolerance_of(cs.opt)
    cs.caveats.append(f"the score table was pruned for epsilon={safe:.6g}: beyond that gap below OPT networks of "
                      "the data may be missing from this list; rescore the data (or give the data) for the full "
                      "k-best list")
