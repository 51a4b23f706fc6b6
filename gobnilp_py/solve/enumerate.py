"""ε-BNSL and k-best: every network within a Bayes factor of the optimum, in one search.

:func:`enumerate_networks`
    1. Score with pruning made safe for ε (or check a given table covers ε).
    2. Find OPT with :func:`~gobnilp_py.solve.learn.learn`.
    3. Rebuild the same model with the enumeration settings (exactness:
       :data:`ENUMERATION_PARAMS`; speed: :data:`COLLECT_PARAMS`,
       :data:`COLLECT_MODEL_OPTIONS`, all primal heuristics off), set the
       objective limit just below ``OPT - ε`` and let :class:`NetworkCollector`
       record every acyclic integral point the branch-and-cut reaches,
       excluding each with a nogood.  Cluster cuts are separated at the root;
       in the tree the acyclicity handler enforces every integral point.
    4. Keep the networks with ``score >= OPT - ε - tol`` (``tol`` below).

:func:`kbest`
    OPT first, then the ε machinery: the collecting search runs under the
    objective limit ``OPT - ε`` and, in addition, :class:`BoundPruner` cuts
    off every node whose LP bound falls below the k-th best score found so
    far.  From data, the table is scored for ε; if fewer than k networks lie
    within ε, ε is doubled, the data rescored and the search repeated.  When k
    networks lie within ε, the table holds every network within ε, so its k
    best are the true k best.  A given table cannot be rescored: after one
    round within ``initial_epsilon`` it is searched with no limit.

Tolerances (documented in ``docs/enumeration.md``):

* ``tol = 1e-9 * max(1, |OPT|)`` decides membership at the boundary
  ``OPT - ε`` (scores are exact sums of local scores computed with
  :func:`math.fsum`; 1e-9 relative is far above their rounding error and far
  below any real score difference).  Networks at the boundary are kept.
* SCIP's objective limit is set ``margin = 1e-6 * max(1, |OPT|)`` lower than
  ``OPT - ε - tol``, so LP round-off can never prune a member; networks it lets
  through between the two are reported in ``near_boundary`` and excluded.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyscipopt

from ..errors import ScoreError, SolverError
from ..network import Network
from ..scoring.table import ScoreTable
from .collector import COLLECT_MODEL_OPTIONS, COLLECT_PARAMS, ENUMERATION_PARAMS, include_collector
from .credible import CredibleSet

__all__ = ["enumerate_networks", "kbest", "resolve_epsilon"]

_log = logging.getLogger("gobnilp_py")

REL_TOL = 1e-9
REL_MARGIN = 1e-6


def resolve_epsilon(bayes_factor: float | None, epsilon: float | None, *, required: bool = True) -> float:
    """ε from exactly one of ``bayes_factor`` (ε = ln BF) and ``epsilon``; one-line errors otherwise.

    The checks are scoring's (:func:`gobnilp_py.scoring.resolve_epsilon`), which
    allows neither (ε = 0); a collection needs one of the two.
    """
    from ..scoring import resolve_epsilon as _resolve

    if required and bayes_factor is None and epsilon is None:
        raise ScoreError("give a bayes_factor (>= 1) or an epsilon (>= 0)")
    return _resolve(bayes_factor, epsilon)


def _tolerances(opt: float) -> tuple[float, float]:
    scale = max(1.0, abs(opt))
    return REL_TOL * scale, REL_MARGIN * scale


def _as_constraints(constraints: Any) -> Any:
    if constraints is None:
        return None
    from ..constraints.structural import StructuralConstraints

    if isinstance(constraints, StructuralConstraints):
        return constraints
    if isinstance(constraints, Mapping):
        return StructuralConstraints.from_dict(constraints)
    if isinstance(constraints, (str, Path)):
        return StructuralConstraints.from_file(constraints)
    return constraints


def _is_table(x: Any) -> bool:
    return isinstance(x, ScoreTable) or (isinstance(x, (str, Path)) and Path(x).suffix.lower() == ".jkl")


def _table_for(data_or_table: Any, epsilon: float, scoring_options: dict[str, Any],
               constraints: Any = None) -> ScoreTable:
    """A table safe for ``epsilon`` (and the constraints): scored from data, read from .jkl, or checked if given."""
    table = data_or_table
    if isinstance(table, (str, Path)) and Path(table).suffix.lower() == ".jkl":
        table = ScoreTable.from_jkl(table)
    if isinstance(table, ScoreTable):
        if scoring_options:
            raise ScoreError(f"scoring options {sorted(scoring_options)} need data, not a score table")
        if table.epsilon is None:
            _log.warning("the score table does not say how it was pruned: networks within epsilon=%.6g are "
                         "complete only if it was pruned for at least that gap", epsilon)
        elif table.epsilon < epsilon - 1e-12:
            raise ScoreError(f"the score table was pruned for epsilon={table.epsilon:.6g} and may lack parent sets "
                             f"of networks within epsilon={epsilon:.6g}; rescore with that epsilon")
        return table
    from .learn import as_score_table

    return as_score_table(data_or_table, constraints=constraints, epsilon=epsilon, **scoring_options)


def _network(fm_index: Any, names: tuple[str, ...], chosen: tuple[int, ...], score: float, status: str) -> Network:
    parents = {names[v]: tuple(names[p] for p in fm_index.parents[f]) for v, f in enumerate(chosen)}
    local = {names[v]: float(fm_index.score[f]) for v, f in enumerate(chosen)}
    return Network(names, parents, score, status=status, local_scores=local)


def _collect(table: ScoreTable, constraints: Any, *, objlimit: float | None, max_networks: int | None,
             kbest: int | None, tie_tolerance: float, time_limit: float | None, params: Mapping[str, Any] | None,
             verbose: bool, progress: Any = None) -> tuple[Any, Any, dict[str, Any]]:
    """Run one collecting search; returns (family model, collector, stats)."""
    from ..model.builder import build_model

    user: dict[str, Any] = dict(params or {})
    if time_limit is not None:
        user["limits/time"] = max(float(time_limit), 0.0)
    # The caller may tune speed settings, never the ones completeness rests on.
    for key in ENUMERATION_PARAMS:
        if key in user and user[key] != ENUMERATION_PARAMS[key]:
            _log.warning("SCIP parameter %s=%r ignored: the enumeration needs %r to stay exact",
                         key, user[key], ENUMERATION_PARAMS[key])
            del user[key]
    p: dict[str, Any] = {**COLLECT_PARAMS, **user, **ENUMERATION_PARAMS}
    fm = build_model(table, constraints=constraints, params=p, verbose=verbose, heuristic=False,
                     **COLLECT_MODEL_OPTIONS)
    # No primal heuristic can succeed (the collector rejects every point): switch them all off, then
    # re-apply the caller's settings (already validated by build_model) so they still win.
    fm.model.setHeuristics(pyscipopt.SCIP_PARAMSETTING.OFF)
    for key, value in user.items():
        fm.model.setParam(key, value)
    col = include_collector(fm.model, fm.index, fm.xflat, max_networks=max_networks, kbest=kbest,
                            tie_tolerance=tie_tolerance, progress=progress)
    if objlimit is not None:
        fm.model.setObjlimit(objlimit)
    t0 = time.perf_counter()
    fm.model.optimize()
    status = fm.model.getStatus()
    stats = {
        "time_collect": time.perf_counter() - t0,
        "scip_status": status,
        "nodes": fm.model.getNNodes(),
        "cuts_total": fm.stats.cuts_total,
        "cuts": {"integral": fm.stats.cuts_integral, "cycle": fm.stats.cuts_cycle, "subip": fm.stats.cuts_subip},
        "found": len(col.found),
        "duplicates": col.duplicates,
        "time_record": col.time_record,
    }
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
    return {"timelimit": "time_limit", "userinterrupt": "interrupted", "nodelimit": "node_limit",
            "memlimit": "memory_limit"}.get(status, status)


def enumerate_networks(data_or_table: Any, *, bayes_factor: float | None = None, epsilon: float | None = None,
                       max_networks: int | None = 150_000, time_limit: float | None = None,
                       constraints: Any = None, params: Mapping[str, Any] | None = None,
                       verbose: bool = False, progress: Any = None, **scoring_options: Any) -> CredibleSet:
    """Every network with score >= OPT - ε, exactly, in one branch-and-cut search.

    Parameters
    ----------
    data_or_table : Dataset, path, DataFrame, array, ScoreTable or .jkl path
        Data are scored with pruning made safe for ε; a table must have been
        pruned for at least ε (a ``.jkl`` file's pruning is unknown: warned).
    bayes_factor, epsilon : float
        Exactly one: ε = ln(bayes_factor).  ε = 0 gives all optimal networks.
    max_networks : int or None, default 150,000
        Stop after this many networks (``complete=False``, reason
        ``"max_networks"``); ``None`` for no cap.
    time_limit : float, optional
        Seconds for the two searches together (``complete=False``, reason
        ``"time_limit"`` if reached).  Scoring is not included.
    constraints : StructuralConstraints, mapping or path, optional
        Structural constraints; the set is then all networks satisfying them.
    params : mapping, optional
        SCIP parameter overrides for both searches.
    progress : callable, optional
        Progress hook (e.g. :class:`gobnilp_py.progress.Progress`): called per
        scoring level and, at most once a second while collecting, as
        ``progress("collecting", found, max_networks, bound=..., elapsed=...)``.
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
    from .learn import learn

    eps = resolve_epsilon(bayes_factor, epsilon)
    if max_networks is not None and int(max_networks) < 1:
        raise ScoreError(f"max_networks must be >= 1 (or None for no cap), got {max_networks!r}")
    if time_limit is not None and not float(time_limit) > 0:
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    t_start = time.perf_counter()
    cons = _as_constraints(constraints)
    if progress is not None and not _is_table(data_or_table):
        scoring_options = {**scoring_options, "progress": progress}
    table = _table_for(data_or_table, eps, scoring_options, cons)
    t_scored = time.perf_counter()
    if cons is not None:
        cons.validate(table.names)

    best = learn(table, constraints=cons, time_limit=time_limit, params=params, verbose=verbose)
    t_opt = time.perf_counter()
    stats: dict[str, Any] = {"time_scoring": t_scored - t_start, "time_opt": t_opt - t_scored,
                             "opt_status": best.status}
    if best.status == "infeasible":
        return CredibleSet(math.nan, eps, True, None, [], kind="bayes_factor", stats=stats)
    if best.status != "optimal":
        # Without a proven optimum the limit OPT - ε is unknown: report what we have as incomplete.
        nets = [best] if math.isfinite(best.score) else []
        return CredibleSet(best.score if nets else math.nan, eps, False, best.status or "time_limit", nets,
                           kind="bayes_factor", stats=stats)
    opt = best.score
    tol, margin = _tolerances(opt)
    remaining = None if time_limit is None else time_limit - (t_opt - t_scored)
    if remaining is not None and remaining <= 0:
        return CredibleSet(opt, eps, False, "time_limit", [best], tolerance=tol, kind="bayes_factor", stats=stats)
    fm, col, cstats = _collect(table, cons, objlimit=opt - eps - tol - margin, max_networks=max_networks,
                               progress=progress,
                               kbest=None, tie_tolerance=0.0, time_limit=remaining, params=params, verbose=verbose)
    stats.update(cstats)
    reason = _incomplete_reason(cstats["scip_status"], col)
    found_best = max(col.found.values(), default=-math.inf)
    if found_best > opt + tol:
        _log.warning("collection found a network better than the optimum by %.3g; using it as OPT", found_best - opt)
        opt = found_best
    limit = opt - eps - tol
    names = fm.table.names
    members = [(sc, key) for key, sc in col.found.items() if sc >= limit]
    # Networks the solver margin let through just below the boundary (reported, excluded); points the
    # collector saw further below (e.g. checked heuristic points) are simply not members.
    near = sum(1 for sc in col.found.values() if limit - margin <= sc < limit)
    if reason is None and found_best < opt - tol:
        raise SolverError("the collection did not find the optimal network; the enumeration is not exact")
    members.sort(key=lambda t: (-t[0], tuple(fm.index.parents[f] for f in t[1])))
    nets = [_network(fm.index, names, key, sc, "optimal" if sc >= opt - tol else "feasible") for sc, key in members]
    if reason not in (None, "max_networks") and best.key not in {n.key for n in nets}:
        # Cut short before the collection reached it: phase 1's optimum is still a network found.
        nets.append(best)
        nets.sort(key=lambda n: (-n.score, n.key))
    stats["time_total"] = time.perf_counter() - t_start
    return CredibleSet(opt, eps, reason is None, reason, nets, tolerance=tol, near_boundary=near,
                       kind="bayes_factor", stats=stats)


def kbest(data_or_table: Any, k: int, *, time_limit: float | None = None, constraints: Any = None,
          params: Mapping[str, Any] | None = None, verbose: bool = False, initial_epsilon: float = 3.0,
          **scoring_options: Any) -> CredibleSet:
    """The k best networks, provably, best first (ties in canonical order).

    OPT is found first (:func:`~gobnilp_py.solve.learn.learn`); then one
    collecting search per round, under the objective limit ``OPT - ε`` (the
    ε machinery of :func:`enumerate_networks`) and the rising k-th-best
    threshold of :class:`BoundPruner`.  If fewer than ``k`` networks lie
    within ε, ε is doubled (from data: the table is rescored for the new ε)
    and the search repeated; see the module docstring for why this is exact.
    A given table is searched within ``initial_epsilon`` first, then, if that
    holds fewer than ``k`` networks, with no limit.

    Returns a :class:`CredibleSet` with ``kind="kbest"``, ``epsilon`` the gap of
    the k-th network, and ``complete`` False if a time limit ended the search.
    """
    from .learn import learn

    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ScoreError(f"k must be a positive integer, got {k!r}")
    if time_limit is not None and not float(time_limit) > 0:
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    t_start = time.perf_counter()
    cons = _as_constraints(constraints)
    given_table = isinstance(data_or_table, ScoreTable) or (
        isinstance(data_or_table, (str, Path)) and Path(data_or_table).suffix.lower() == ".jkl")
    if given_table and scoring_options:
        raise ScoreError(f"scoring options {sorted(scoring_options)} need data, not a score table")
    eps = float(initial_epsilon)
    if not (eps >= 0.0) or math.isinf(eps):
        raise ScoreError(f"initial_epsilon must be a finite number >= 0, got {initial_epsilon!r}")
    opt: float | None = None
    table: ScoreTable | None = None
    time_opt = 0.0
    time_scoring = 0.0
    rounds = 0
    while True:
        rounds += 1
        if given_table:
            if table is None:
                table = data_or_table if isinstance(data_or_table, ScoreTable) else ScoreTable.from_jkl(data_or_table)
        else:
            ts = time.perf_counter()
            table = _table_for(data_or_table, eps, scoring_options, cons)
            time_scoring += time.perf_counter() - ts
        if cons is not None:
            cons.validate(table.names)
        remaining = _remaining(time_limit, t_start)
        if remaining is not None and remaining <= 0:
            return CredibleSet(math.nan, math.nan, False, "time_limit", [], kind="kbest",
                               stats={"rounds": rounds, "time_scoring": time_scoring})
        if opt is None:
            # Every table safe for some gap holds an optimal network, so OPT never changes between rounds.
            t0 = time.perf_counter()
            best = learn(table, constraints=cons, time_limit=remaining, params=params, verbose=verbose)
            time_opt = time.perf_counter() - t0
            if best.status == "infeasible":
                return CredibleSet(math.nan, 0.0, True, None, [], kind="kbest",
                                   stats={"rounds": rounds, "time_opt": time_opt, "time_scoring": time_scoring})
            if best.status != "optimal":
                nets = [best] if math.isfinite(best.score) else []
                return CredibleSet(best.score if nets else math.nan, 0.0, False, best.status or "time_limit",
                                   nets, kind="kbest",
                                   stats={"rounds": rounds, "time_opt": time_opt, "time_scoring": time_scoring})
            opt = best.score
            remaining = _remaining(time_limit, t_start)
            if remaining is not None and remaining <= 0:
                return CredibleSet(opt, 0.0, False, "time_limit", [best], kind="kbest",
                                   stats={"rounds": rounds, "time_opt": time_opt, "time_scoring": time_scoring})
        tol, margin = _tolerances(opt)
        # The limit only helps while it is above the worst network of the table; below, search unlimited.
        unlimited = (given_table and rounds > 1) or opt - eps < _table_floor(table)
        objlimit = None if unlimited else opt - eps - tol - margin
        fm, col, stats = _collect(table, cons, objlimit=objlimit, max_networks=None, kbest=k,
                                  tie_tolerance=tol + margin, time_limit=remaining, params=params, verbose=verbose)
        reason = _incomplete_reason(stats["scip_status"], col)
        ranked = sorted(col.found.items(), key=lambda t: (-t[1], tuple(fm.index.parents[f] for f in t[0])))
        if not ranked and (reason is not None or unlimited):
            return CredibleSet(math.nan, 0.0, reason is None, reason, [], kind="kbest", stats=stats)
        top = ranked[:k]
        gap = opt - top[-1][1] if top else math.inf
        if reason is not None or (len(top) == k and gap <= eps):
            break
        if unlimited and (given_table or _unpruned(table)):
            break
        _log.info("fewer than k=%d networks within epsilon %.4g of OPT: widening", k, eps)
        eps = max(2 * eps, gap * 1.01 if len(top) == k else 0.0, 1.0)
    if top and top[0][1] > opt + tol:
        _log.warning("k-best search found a network better than the optimum by %.3g", top[0][1] - opt)
        opt = top[0][1]
        gap = opt - top[-1][1]
    names = fm.table.names
    nets = [_network(fm.index, names, key, sc, "optimal" if sc >= opt - tol else "feasible") for key, sc in top]
    stats.update({"rounds": rounds, "time_opt": time_opt, "time_scoring": time_scoring,
                  "time_total": time.perf_counter() - t_start, "table_epsilon": eps})
    return CredibleSet(opt, gap, reason is None, reason, nets, tolerance=tol, kind="kbest", stats=stats)


def _remaining(time_limit: float | None, t_start: float) -> float | None:
    return None if time_limit is None else time_limit - (time.perf_counter() - t_start)


def _table_floor(table: ScoreTable) -> float:
    """A lower bound on every network's score in ``table``: the sum of each node's worst local score."""
    return math.fsum(min(sc for _, sc in fams) for fams in table.families)


def _unpruned(table: ScoreTable) -> bool:
    """True if no pruning rule removed a parent set (the table is then exact for every gap)."""
    return not any(int(c) for rules in table.pruning.values() for c in rules.values())


def _table_scale(table: ScoreTable) -> float:
    """A magnitude for tolerances: the sum of each node's best local score."""
    return math.fsum(f[0][1] for f in table.families)
