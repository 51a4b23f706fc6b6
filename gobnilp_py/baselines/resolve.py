"""Classical ILP k-best, as GOBNILP 1.6 does it: solve, exclude the answer, solve again.

The i-th best network is the optimum of the family-variable ILP once the
``i - 1`` networks already found are excluded.  Each exclusion is a *nogood*:
with ``x_G`` the family variables chosen by network ``G`` (one per node),

.. math::  \\sum_{v} x_{v, G_v} \\le n - 1,

which removes exactly ``G`` because every node takes exactly one parent set.
Each solve builds a fresh model with :func:`gobnilp_py.model.builder.build_model`
and adds all nogoods collected so far as ordinary linear constraints.  A
fresh model per solve, rather than ``freeTransform()`` and re-solving one
model, avoids the PySCIPOpt 6.3 segfault with a Python constraint handler
attached (``../shared/notes/scip-and-gobnilp.md``), and is also what makes
this baseline honest: it pays the full cost of k independent proofs of
optimality, which is the cost the one-search k-best
(:func:`gobnilp_py.solve.enumerate.kbest`) is meant to avoid.

Every solve uses :data:`~gobnilp_py.solve.collector.ENUMERATION_PARAMS` (no
restarts, no strong dual reductions, no symmetry handling), the settings the
collector needs for its nogoods.  With SCIP's defaults a solve on wine (BDeu,
ESS 1, the 20th network) returned the 10th network again: after nine restarts
its nogood was no longer among the problem's constraints, so the solution
passed every check.  The duplicate test below still guards every solve.

The search stops after ``k`` networks, when the model becomes infeasible
(fewer than ``k`` DAGs exist in the table), or at the time limit
(``complete=False``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import pyscipopt

from ..errors import SolverError
from ..scoring.table import ScoreTable
from ..solve.collector import ENUMERATION_PARAMS
from ..solve.credible import CredibleSet
from ._common import canonical_result, check_k, check_time_limit, with_rescoring

__all__ = ["kbest_resolve", "kbest_resolve_table"]

_log = logging.getLogger("gobnilp_py")


def kbest_resolve(data_or_table: Any, k: int, *, time_limit: float | None = None,
                  params: Mapping[str, Any] | None = None, initial_epsilon: float = 3.0,
                  verbose: bool = False, **scoring_options: Any) -> CredibleSet:
    """The k best networks by k successive ILP solves with nogoods (GOBNILP 1.6 style).

    Parameters
    ----------
    data_or_table : ScoreTable, .jkl path, or data (Dataset, path, frame, array)
        A table is used as is; data are scored with pruning made safe for the
        gap of the k-th network (rescoring with a doubled gap when needed).
    k : int
        Number of networks (>= 1).  If fewer DAGs exist, all are returned.
    time_limit : float, optional
        Seconds for all solves together; when reached the networks proven so
        far are returned with ``complete=False`` and ``reason="time_limit"``.
    params : mapping, optional
        SCIP parameter overrides for every solve.
    initial_epsilon : float
        First gap scored for when starting from data.
    verbose : bool
        Show SCIP's log.
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`).

    Returns
    -------
    CredibleSet
        ``kind="kbest"``; ``stats`` holds ``solves``, ``time_solves`` (seconds
        of each solve) and ``time_resolve``.

    Examples
    --------
    >>> from gobnilp_py import ScoreTable
    >>> t = ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)]])
    >>> [round(net.score, 3) for net in kbest_resolve(t, 3)]
    [-3.0, -4.0, -4.5]
    """
    k = check_k(k)
    time_limit = check_time_limit(time_limit)

    def run(table: ScoreTable, remaining: float | None) -> CredibleSet:
        return kbest_resolve_table(table, k, time_limit=remaining, params=params, verbose=verbose)

    return with_rescoring(data_or_table, k, run, initial_epsilon=initial_epsilon,
                          scoring_options=dict(scoring_options), time_limit=time_limit)


def kbest_resolve_table(table: ScoreTable, k: int, *, time_limit: float | None = None,
                        params: Mapping[str, Any] | None = None, verbose: bool = False) -> CredibleSet:
    """The k best networks of one score table by repeated solves; see :func:`kbest_resolve`."""
    from ..model.builder import build_model
    from ..solve.learn import network_from_model

    k = check_k(k)
    where = [{ps: c for c, (ps, _) in enumerate(fams)} for fams in table.families]
    found: list[tuple[float, tuple[int, ...]]] = []
    solve_times: list[float] = []
    nodes = 0
    reason: str | None = None
    t0 = time.perf_counter()
    while len(found) < k:
        scip: dict[str, Any] = {"limits/gap": 0.0, **ENUMERATION_PARAMS}
        if time_limit is not None:
            remaining = time_limit - (time.perf_counter() - t0)
            if remaining <= 0:
                reason = "time_limit"
                break
            scip["limits/time"] = remaining
        scip.update(params or {})
        ts = time.perf_counter()
        fm = build_model(table, params=scip, verbose=verbose)
        _add_nogoods(fm, [chosen for _, chosen in found])
        try:
            fm.model.optimize()
        except Exception as exc:  # SCIP errors surface as generic exceptions
            raise SolverError(f"SCIP failed in k-best solve {len(found) + 1}: {exc}") from exc
        net = network_from_model(fm)
        solve_times.append(time.perf_counter() - ts)
        nodes += int(fm.model.getNTotalNodes())
        if net.status == "infeasible":
            break  # every DAG of the table has been listed
        if net.status != "optimal":
            reason = "time_limit" if net.status in ("time_limit", "no_solution") else net.status
            break
        chosen = tuple(where[v][tuple(table.index(p) for p in net.parents[name])]
                       for v, name in enumerate(table.names))
        if any(chosen == c for _, c in found):
            raise SolverError("a nogood did not exclude its network; the k-best list is not exact")
        found.append((net.score, chosen))
        _log.debug("kbest_resolve: network %d score %.6f (%.3fs)", len(found), net.score, solve_times[-1])
    stats = {"method": "resolve", "solves": len(solve_times), "time_solves": solve_times,
             "time_resolve": time.perf_counter() - t0, "nodes": nodes}
    return canonical_result(table, found, k, complete=reason is None, reason=reason, stats=stats)


def _add_nogoods(fm: Any, excluded: list[tuple[int, ...]]) -> None:
    """Add ``sum_v x[v][G_v] <= n - 1`` for every excluded network ``G`` (indices into ``fm.table``)."""
    n = fm.table.n
    for g, chosen in enumerate(excluded):
        fm.model.addCons(pyscipopt.quicksum(fm.x[v][c] for v, c in enumerate(chosen)) <= n - 1,
                         name=f"nogood#{g}")

