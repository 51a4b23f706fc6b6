"""Classical ILP k-best, as GOBNILP 1.6 does it: solve, exclude the answer, solve again.

The i-th best network is the optimum of the family-variable ILP once the
``i - 1`` networks already found are excluded.  Each exclusion is a *nogood*:
with ``x_G`` the family variables chosen by network ``G`` (one per node),

.. math::  \\sum_{v} x_{v, G_v} \\le n - 1,

which removes exactly ``G`` because every node takes exactly one parent set.
Each solve builds a fresh model with :func:`gobnilp_py.ilp.model.build_model`
and adds all nogoods collected so far as ordinary linear constraints.  A
fresh model per solve, rather than ``freeTransform()`` and re-solving one
model, avoids the PySCIPOpt 6.3 segfault with a Python constraint handler
attached (a known PySCIPOpt pitfall), and is also what makes
this baseline honest: it pays the full cost of k independent proofs of
optimality, which is the cost the one-search k-best
(:func:`gobnilp_py.ilp.engine.kbest`) is meant to avoid.

Every solve uses :data:`~gobnilp_py.ilp.settings.ENUMERATION_PARAMS` (no
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
from ..search.results import Collection
from .settings import ENUMERATION_PARAMS

__all__ = ["kbest"]

_log = logging.getLogger(__name__)


def kbest(table: ScoreTable, *, k: int, constraints: Any = None, time_limit: float | None = None,
          params: Mapping[str, Any] | None = None, verbose: bool = False, **_ignored: Any) -> Collection:
    """The k best networks of ``table`` by k successive solves, each excluding the networks found so far.

    Stops after ``k`` networks, when the model becomes infeasible (fewer than
    ``k`` admissible DAGs exist), or at the time limit (``reason="time_limit"``:
    the networks proven so far are the best ones, in order).
    """
    from .engine import _checked_params, _optimize, solution_from_model
    from .model import build_model

    user = _checked_params(params)
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
        scip.update(user)
        scip.update(ENUMERATION_PARAMS)  # the nogoods rely on them (see the module docstring)
        ts = time.perf_counter()
        fm = build_model(table, constraints=constraints, params=scip, verbose=verbose)
        _add_nogoods(fm, [chosen for _, chosen in found])
        _optimize(fm.model, f"k-best solve {len(found) + 1}")
        sol = solution_from_model(fm)
        solve_times.append(time.perf_counter() - ts)
        nodes += int(fm.model.getNTotalNodes())
        if sol.status == "infeasible":
            break  # every admissible DAG of the table has been listed
        if sol.status != "optimal":
            reason = "time_limit" if sol.status in ("time_limit", "no_solution") else sol.status
            break
        if any(sol.chosen == c for _, c in found):
            raise SolverError("a nogood did not exclude its network; the k-best list is not exact")
        found.append((sol.score, sol.chosen))
        _log.debug("resolve k-best: network %d score %.6f (%.3fs)", len(found), sol.score, solve_times[-1])
    stats = {"solves": len(solve_times), "time_solves": solve_times,
             "time_resolve": time.perf_counter() - t0, "nodes": nodes}
    return Collection(found, reason, stats=stats)


def _add_nogoods(fm: Any, excluded: list[tuple[int, ...]]) -> None:
    """Add ``sum_v x[v][G_v] <= n - 1`` for every excluded network ``G`` (indices into ``fm.table``)."""
    n = fm.table.n
    for g, chosen in enumerate(excluded):
        fm.model.addCons(pyscipopt.quicksum(fm.x[v][c] for v, c in enumerate(chosen)) <= n - 1,
                         name=f"nogood#{g}")

