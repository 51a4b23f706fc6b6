"""The ``ordergraph`` method: the order-graph engines behind the drivers' uniform interface.

:func:`optimum` runs the frontier breadth-first branch and bound
(:func:`~gobnilp_py.search.order_graph.frontier.order_graph_optimum`); :func:`epsilon_set`
and :func:`kbest` run the best-first collection with the exact subset-DP bound
(:mod:`gobnilp_py.search.order_graph.collect`).  All answer in table positions
(:mod:`gobnilp_py.search.results`) with the shared status vocabulary, so the
drivers present them exactly as they present the ILP's.  Structural
constraints reach this method as table filters only (the registry refuses the
kinds filtering cannot express).

Ctrl-C and SIGTERM during a search set a stop event (:func:`_stoppable`) that
the engines poll between chunks of work; they return what they have with
status ``"interrupted"``, which the drivers label like the ILP's
``userinterrupt``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..._interrupt import interruptible
from ..._tolerance import REL_TOL
from ...scoring.table import ScoreTable
from ..best_parents import BestParents
from .collect import DEFAULT_MEMORY_BUDGET, order_graph_epsilon_set, order_graph_kbest
from .frontier import order_graph_optimum
from ..results import Collection, Solution

__all__ = ["optimum", "epsilon_set", "kbest"]


@contextmanager
def _stoppable() -> Iterator[threading.Event]:
    """An event set by the first SIGINT/SIGTERM inside the block (a second one raises KeyboardInterrupt)."""
    stop = threading.Event()
    with interruptible(stop.set):
        yield stop


def _lookups(reuse: Any) -> BestParents | None:
    """The best-parent lookups in a ``reuse`` handed back by the driver (anything else is ignored)."""
    return reuse if isinstance(reuse, BestParents) else None


def _budget(memory_budget: int | None) -> int:
    return DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)


def optimum(table: ScoreTable, *, time_limit: float | None = None, memory_budget: int | None = None,
            lower_bound: float | None = None, progress: Any = None, **_ignored: Any) -> Solution:
    """An optimal network of ``table`` (status ``"infeasible"`` when the table admits no DAG)."""
    with _stoppable() as stop:
        r = order_graph_optimum(table, lower_bound=lower_bound, memory_budget=_budget(memory_budget),
                                time_limit=time_limit, progress=progress, stop=stop)
    stats = dict(r.stats)
    if r.status == "optimal":       # a collection of the same table reuses the lookups (``reuse=``)
        return Solution("optimal", r.score, r.chosen, dual_bound=r.score, stats=stats, reuse=r.best_parents)
    if r.status == "no_solution":
        if lower_bound is None:  # no bound was given: the table itself admits no DAG
            return Solution("infeasible", -math.inf, None, stats={**stats, "reason": r.reason})
        return Solution("no_solution", -math.inf, None, dual_bound=r.upper_bound,
                        stats={**stats, "reason": r.reason})
    dual = r.upper_bound if math.isfinite(r.upper_bound) else None
    if r.chosen is None:
        return Solution(r.status, -math.inf, None, dual_bound=dual, stats=stats)
    return Solution(r.status, r.score, r.chosen, dual_bound=dual, stats=stats)


def epsilon_set(table: ScoreTable, *, opt: float, epsilon: float, max_networks: int | None = None,
                time_limit: float | None = None, memory_budget: int | None = None, progress: Any = None,
                reuse: Any = None, subproblem: bool = False, root_part: tuple[int, int] | None = None,
                **_ignored: Any) -> Collection:
    """Every network of ``table`` within ``epsilon`` of the optimum (the engine finds OPT itself).

    ``reuse``: the :attr:`Solution.reuse <gobnilp_py.search.results.Solution.reuse>` of :func:`optimum`
    on the same table, its best-parent lookups (5 to 23 s to build at 25 variables), used again.
    ``subproblem``: ``table`` is one part of a split collection (:mod:`gobnilp_py.solve.split`) and
    ``opt`` the whole table's optimum: the members are the networks scoring ``>= opt - epsilon - tol``
    (``tol`` of ``opt``), not relative to the part's own best network; ``root_part``: ``(i, k)``, this
    part of the search tree (:func:`~gobnilp_py.search.order_graph.collect.order_graph_epsilon_set`)."""
    floor = opt - epsilon - REL_TOL * max(1.0, abs(opt)) if subproblem else None
    with _stoppable() as stop:
        r = order_graph_epsilon_set(table, epsilon, max_networks=max_networks, time_limit=time_limit,
                                    memory_budget=_budget(memory_budget), progress=progress, stop=stop,
                                    best_parents=_lookups(reuse), floor=floor,
                                    root_part=root_part if subproblem else None)
    new_opt = r.optimum if math.isfinite(r.optimum) and r.optimum > opt + r.tolerance else None
    threshold = None if r.complete else (r.threshold if math.isfinite(r.threshold) else None)
    return Collection(list(r.entries), r.reason, threshold=threshold, opt=new_opt, stats=dict(r.stats))


def kbest(table: ScoreTable, *, k: int, time_limit: float | None = None, memory_budget: int | None = None,
          progress: Any = None, reuse: Any = None, root_part: tuple[int, int] | None = None,
          **_ignored: Any) -> Collection:
    """The ``k`` best networks of ``table`` and every network tied with the k-th (``reuse``: as :func:`epsilon_set`;
    ``root_part``: one part of a split search, :func:`~gobnilp_py.search.order_graph.collect.order_graph_kbest`)."""
    with _stoppable() as stop:
        r = order_graph_kbest(table, k, time_limit=time_limit, memory_budget=_budget(memory_budget),
                              progress=progress, stop=stop, best_parents=_lookups(reuse), root_part=root_part)
    threshold = None if r.complete else (r.threshold if math.isfinite(r.threshold) else None)
    return Collection(list(r.entries), r.reason, threshold=threshold, stats=dict(r.stats))
