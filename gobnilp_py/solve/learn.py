"""``learn()``: the optimal Bayesian network of a score table or of data.

Glue only: get a :class:`ScoreTable` (given, read from ``.jkl``, or scored
from data), build the model (:func:`gobnilp_py.model.builder.build_model`),
run SCIP, and turn SCIP's answer into a :class:`~gobnilp_py.network.Network`
whose ``status`` never overstates what was proven.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError, SolverError
from ..network import Network
from ..scoring.table import ScoreTable
from .stats import SolveStats

__all__ = ["learn", "as_score_table", "network_from_model"]

_log = logging.getLogger("gobnilp_py")

#: SCIP status -> our status, when an incumbent exists
_STATUS = {"optimal": "optimal", "timelimit": "time_limit", "gaplimit": "gap_limit",
           "infeasible": "infeasible"}


def as_score_table(data_or_table: Any, *, score: str = "BIC", stats: SolveStats | None = None,
                   constraints: Any = None, **scoring_options: Any) -> ScoreTable:
    """A ScoreTable from a table, a ``.jkl`` path, or data (a Dataset, data file, frame or array).

    Scoring options are rejected when a table is given: they could not be
    honoured and silently ignoring them would mislead.  With data and
    structural constraints, the constraint names are checked before any
    scoring, and the variables whose parent sets subset pruning could make
    inadmissible (:meth:`StructuralConstraints.unprunable`) are scored
    without pruning, so the table stays exact under the constraints.
    """
    if isinstance(data_or_table, ScoreTable) or (
            isinstance(data_or_table, (str, os.PathLike)) and Path(data_or_table).suffix.lower() == ".jkl"):
        if scoring_options:
            raise ConfigError(f"scoring options {sorted(scoring_options)} cannot apply to an existing score table")
        if isinstance(data_or_table, ScoreTable):
            return data_or_table
        return ScoreTable.from_jkl(data_or_table)
    from ..data import Dataset, read_data
    from .. import scoring

    t0 = time.perf_counter()
    data = data_or_table if isinstance(data_or_table, Dataset) else read_data(data_or_table)
    if constraints is not None:
        constraints.validate(data.names)
        if not constraints.subset_pruning_safe and scoring_options.get("prune", True):
            scoring_options = {**scoring_options, "unpruned": sorted(constraints.unprunable(data.names))}
    table = scoring.score(data, score=score, **scoring_options)
    if stats is not None:
        stats.time_scoring += time.perf_counter() - t0
    return table


def learn(data_or_table: Any, *, score: str = "BIC", constraints: Any = None, time_limit: float | None = None,
          gap: float = 0.0, verbose: bool = False, params: Mapping[str, Any] | None = None,
          model_options: Mapping[str, Any] | None = None, **scoring_options: Any) -> Network:
    """Learn a network of maximum score.

    Parameters
    ----------
    data_or_table : ScoreTable, path, Dataset, DataFrame or array
        A score table, a ``.jkl`` file, or data to score (see :func:`gobnilp_py.scoring.score`).
    score : str
        Local score used when scoring data ("BIC", "BDeu", ...).
    constraints : StructuralConstraints, optional
        Structural constraints (``filter_table`` / ``add_to_model`` protocol).
    time_limit : float, optional
        Seconds for the search (scoring excluded).  When it stops the search
        the status is ``"time_limit"`` (best network found, with a dual bound)
        or ``"no_solution"`` (none found yet), never ``"optimal"``.
    gap : float
        Relative gap at which to stop (``0``: prove optimality).  Stopping
        early gives status ``"gap_limit"``.
    verbose : bool
        Show SCIP's log.
    params : mapping, optional
        Extra SCIP parameters (applied last).
    model_options : mapping, optional
        Options of :func:`~gobnilp_py.model.builder.build_model` (cut and heuristic switches).
    **scoring_options
        ``ess``, ``palim``, ``bayes_factor``, ``epsilon``, ``prune``: passed to scoring.

    Returns
    -------
    Network
        With ``stats`` holding counters and the time split.
    """
    from ..model.builder import build_model

    if gap < 0 or not math.isfinite(gap):
        raise ConfigError(f"gap must be a finite number >= 0, got {gap}")
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"time_limit must be > 0 seconds, got {time_limit}")
    t_start = time.perf_counter()
    stats = SolveStats()
    table = as_score_table(data_or_table, score=score, stats=stats, constraints=constraints, **scoring_options)
    scip_params: dict[str, Any] = {"limits/gap": float(gap)}
    if time_limit is not None:
        scip_params["limits/time"] = float(time_limit)
    scip_params.update(params or {})
    fm = build_model(table, constraints=constraints, params=scip_params, verbose=verbose, stats=stats,
                     **dict(model_options or {}))
    t0 = time.perf_counter()
    try:
        fm.model.optimize()
    except Exception as exc:  # SCIP errors surface as generic exceptions
        raise SolverError(f"SCIP failed: {exc}") from exc
    stats.time_solve = time.perf_counter() - t0
    net = network_from_model(fm)
    _check_answer(net, constraints)
    stats.time_total = time.perf_counter() - t_start
    net.stats.update(stats.to_dict())
    _log.info("learn: status %s, score %.6f, %.2fs (%d nodes, %d cuts)", net.status, net.score,
              stats.time_total, stats.nodes, stats.cuts_total)
    return net


def _check_answer(net: Network, constraints: Any) -> None:
    """Refuse to return a network that SCIP accepted but that breaks the model.

    A cheap independent check of what the solver hands back against every
    structural constraint (a cycle is already refused when the
    :class:`Network` is built).  It has never fired in learning; the same
    kind of check caught SCIP returning an excluded network in the re-solve
    k-best baseline (see ``docs/kbest.md``), so the answer is checked rather
    than trusted.
    """
    if not math.isfinite(net.score):
        return
    violations = getattr(constraints, "violations", None)
    broken = violations(net) if violations is not None else []
    if broken:
        raise SolverError(f"SCIP returned a network that breaks a constraint ({broken[0]}); "
                          "the result would not be exact (please report this)")


def network_from_model(fm: Any) -> Network:
    """Read the solved model into a Network with an honest status and the solver counters."""
    m, table, stats = fm.model, fm.table, fm.stats
    scip_status = m.getStatus()
    stats.nodes = int(m.getNTotalNodes())
    stats.lp_iterations = int(m.getNLPIterations())
    stats.time_lp = _lp_time(m)
    has_sol = m.getNSols() > 0
    if scip_status == "infeasible" or (scip_status == "optimal" and not has_sol):
        return Network(table.names, {}, score=-math.inf, status="infeasible", stats={"scip_status": scip_status})
    if not has_sol:
        return Network(table.names, {}, score=-math.inf, status="no_solution",
                       dual_bound=_dual(m), stats={"scip_status": scip_status})
    status = _STATUS.get(scip_status, "feasible")
    chosen = fm.chosen()
    parents, local = {}, {}
    for i, k in enumerate(chosen):
        ps, sc = table.families[i][k]
        parents[table.names[i]] = tuple(table.names[p] for p in ps)
        local[table.names[i]] = sc
    total = math.fsum(local.values())
    dual = _dual(m)
    dual = total if status == "optimal" else (max(dual, total) if dual is not None else None)
    return Network(table.names, parents, score=total, status=status, dual_bound=dual,
                   local_scores=local, stats={"scip_status": scip_status})


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
