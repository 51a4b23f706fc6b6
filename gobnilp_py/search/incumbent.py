"""A good network found fast: the shared incumbent of the exact engines.

Every exact engine profits from knowing early the score of *some* network of
the table, and the better that network the more the engine can discard:

* the ILP (:mod:`gobnilp_py.ilp.heuristic`): a primal solution before the root
  LP, so reduced-cost fixing and the objective cutoff act from the start;
* the order-graph search (:mod:`.order_graph.frontier`): nodes with ``g + h`` below
  the incumbent are pruned;
* the global gap pruning rule of scoring (``docs/pruning.md``): the lower
  bound LB in ``best(v) - score(v, W) > ε + UB - LB``.

None of these uses relies on the incumbent being good, only on it being the
score of a real network of the table (an acyclic choice of one listed family
per node), so using it never changes an exact answer.  The network comes from
ASOBS (:mod:`.asobs.engine`; Scanagatta et al., NIPS 2015) over a small number of
seeded random orders.

**Deterministic budget.**  The number of orders is a function of the table
only (:func:`incumbent_orders`), never of the clock: the same input gives the
same incumbent, so an engine that returns one of several tied optima returns
the same one every run.  The numpy kernels are used (identical results to the
numba ones, see ``tests/test_asobs*.py``) because a first numba compilation
costs seconds, more than many whole ILP solves.  Measured cost of the default
budget: ``benchmarks/results/asobs-vs-blip-and-incumbent.md`` §4.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from .._graphs import acyclic_indices as _acyclic
from ..scoring.table import ScoreTable

__all__ = ["Incumbent", "incumbent_orders", "quick_incumbent", "MAX_INCUMBENT_ORDERS"]

#: Most orders the incumbent search tries (small tables).
MAX_INCUMBENT_ORDERS = 64
#: Fewest orders it tries (very large tables).
MIN_INCUMBENT_ORDERS = 4
#: Work budget: orders x (families + n^2) stays about this size (≈ 1 s of numpy kernels).
_WORK = 2_000_000


@dataclass(frozen=True)
class Incumbent:
    """A network of the table: ``chosen[v]`` indexes ``table.families[v]``; ``score`` their exact sum."""

    score: float
    chosen: tuple[int, ...]
    orders: int
    time: float
    source: str = "asobs"


def incumbent_orders(n: int, n_families: int) -> int:
    """Orders for a table of ``n`` variables and ``n_families`` families (deterministic; see module docstring)."""
    work = max(1, int(n_families) + int(n) * int(n))
    return max(MIN_INCUMBENT_ORDERS, min(MAX_INCUMBENT_ORDERS, _WORK // work))


def quick_incumbent(table: ScoreTable, *, n_orders: int | None = None, seed: int = 0) -> Incumbent | None:
    """ASOBS over ``n_orders`` seeded random orders (default :func:`incumbent_orders`); ``None`` without a DAG.

    ``None`` means no order gave every node an acceptable family (a table
    where some node lost its empty parent set to a structural constraint and
    every remaining family can close a cycle for every order tried).
    """
    from .asobs.engine import asobs_search

    t0 = time.perf_counter()
    if table.n == 0:
        return Incumbent(0.0, (), 0, 0.0)
    k = incumbent_orders(table.n, len(table)) if n_orders is None else int(n_orders)
    # Swaps only: the budget above is calibrated for them, and the insertion moves on numpy kernels took
    # hailfinder100 BF 20 (56 variables) from 0.1 to 7.8 s here, on the order graph's start-up path.
    run = asobs_search(table, n_orders=k, seed=seed, kernels="numpy", insertions=False)
    if run.chosen is None or not math.isfinite(run.score):
        return None
    parents = [table.families[v][c][0] for v, c in enumerate(run.chosen)]
    if not _acyclic(parents):  # engines prune with this score: never trust a cyclic "network"
        raise AssertionError("ASOBS returned a cyclic choice; please report this with the score table")
    score = math.fsum(table.families[v][c][1] for v, c in enumerate(run.chosen))
    return Incumbent(score, tuple(run.chosen), run.orders, time.perf_counter() - t0)

