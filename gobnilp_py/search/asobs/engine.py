"""ASOBS: acyclic selection ordering-based search, with OBS polishing and swaps (approximate engine).

Scanagatta, de Campos, Corani and Zaffalon, *Learning Bayesian Networks with
Thousands of Variables* (NIPS 2015), §4.  For an order ``V_1 .. V_n``
(parents-first, as in :mod:`.obs`) ASOBS processes ``V_n`` down to ``V_1`` and
gives ``V_j`` its best family whose parents are *not descendants of V_j in
the graph built so far*.  Every family OBS allows (parents among
``V_1 .. V_{j-1}``) is allowed: those nodes have no parents yet, so none is a
descendant of anything (Theorem 3: ASOBS(π) ≥ OBS(π) on the same π, an
inequality, not strict — BLIP's own test asserts ``>`` on *different*
orders).  Back-arcs to later nodes are allowed as long as they close no
cycle, so ASOBS usually finds much better DAGs than OBS for the same order.

Descendant bookkeeping (:class:`DescendantClosure`): bitsets ``desc[x]`` and
``anc[x]``.  When ``v`` takes parents ``P`` (``v`` has none before), the new
reachable pairs are exactly ``A × D`` with ``A = ⋃_{p∈P} ({p} ∪ anc[p])`` and
``D = {v} ∪ desc[v]`` (a new path uses exactly one new arc, all new arcs
entering ``v``), so ``desc[a] |= D`` for ``a ∈ A`` and ``anc[d] |= A`` for
``d ∈ D``: ``O(|A| + |D|)`` word-parallel row ORs.  ``v`` itself is in ``D``:
the paper's todo-list version (steps 2b–2d) seeds the parents' lists with
``V_j``'s descendants only and so never records ``V_j`` as a descendant of
its own parents — an omission corrected here (tested: after every step the
bitsets equal a transitive closure computed from scratch).

The search (:func:`asobs_search`), as in the paper's software:

1. draw a uniformly random order (seeded);
2. ASOBS on it;
3. OBS on a topological order of the ASOBS DAG (ties broken by the drawn
   order): never worse, since the ASOBS DAG is consistent with it;
4. best-improvement adjacent swaps to a local optimum (:meth:`.obs.OrderSearch.swap_search`),
   then insertion moves (one node taken out and put back at its best place,
   :meth:`.obs.OrderSearch.insertion_search`) to a local optimum of that larger
   neighbourhood (not in the paper; measured to pay, see that method);
5. keep the best DAG over all orders, until the order count or the time
   budget is spent.

Restart ``i`` draws its order from ``(seed, i)`` alone and the best restart is
chosen by score, then lowest index (:mod:`.restarts`), so the restarts can run
on worker processes or a Dask cluster (:mod:`.workers`, ``n_jobs``/``backend``/
``scheduler`` as scoring takes them) and a run with a fixed order count and no
time limit gives the same network whatever the number of workers.

*Approximate*: the answer is the best DAG this search met, with no proof of
optimality even with respect to the table; it is reported with status
``"feasible"`` and ``stats["approximate"] = True``.  The maximum of OBS over
*all* orders is the exact optimum of the table (tested for n ≤ 7), so the
search is exact in the limit of all n! orders, which no budget reaches.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ConfigError, ScoreError
from ...scoring.table import ScoreTable
from .acyclic import DescendantClosure, asobs_for_order
from .obs import OrderSearch
from .restarts import Tally, run_restart
from .workers import RestartPool
from ..results import Solution

__all__ = ["DescendantClosure", "asobs_for_order", "asobs_search", "AsobsRun", "optimum", "DEFAULT_ORDERS"]

log = logging.getLogger(__name__)

#: Orders tried when neither ``n_orders`` nor ``time_limit`` is given.
DEFAULT_ORDERS = 100


@dataclass
class AsobsRun:
    """Outcome of :func:`asobs_search`: the best DAG found and how the search went."""

    score: float
    choice: np.ndarray | None          # flat family ids (see OrderSearch.positions)
    chosen: tuple[int, ...] | None     # table positions
    orders: int
    best_order_index: int
    stopped_by: str
    time: float
    stats: dict[str, Any] = field(default_factory=dict)


def _check_positive(name: str, value: Any, integer: bool) -> None:
    if value is None:
        return
    if integer:
        ok = not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= 1
        kind = "a positive integer"
    else:
        try:
            ok = not isinstance(value, bool) and float(value) > 0 and math.isfinite(float(value))
        except (TypeError, ValueError):
            ok = False
        kind = "a positive number of seconds"
    if not ok:
        raise ConfigError(f"{name} must be {kind} or None, got {value!r}")


#: Seconds of restarts run in-process before worker processes are started: a search that finishes
#: sooner (small tables, few orders) never pays for starting a pool.  The result is the same either way.
WORKER_START_SECONDS = 0.5


def asobs_search(table: ScoreTable | OrderSearch, *, time_limit: float | None = None, n_orders: int | None = None,
                 seed: int = 0, swaps: bool = True, insertions: bool = True, kernels: str = "auto",
                 n_jobs: int | None = 1,
                 backend: str = "processes", scheduler: Any = None,
                 progress: Callable[..., Any] | None = None) -> AsobsRun:
    """ASOBS + OBS + swaps over random orders; the best DAG found (see the module docstring).

    Restart ``i`` searches from the order drawn from ``(seed, i)`` (:mod:`.restarts`), and the answer
    is the best restart by score, then by the lowest index.  What is guaranteed:

    * with ``n_orders`` and no ``time_limit``, restarts ``0 .. n_orders-1`` all run and the network,
      its score and ``stats["best_order"]`` are identical for any ``n_jobs``, ``backend`` and cluster;
    * with a ``time_limit``, the answer is the best of the restarts that ran (``stats["orders"]`` of
      them; those a worker ran are nearly a prefix of the indices): each one is what it is in any
      other run with the same seed, except the ones the limit cut inside their swap search
      (``stats["orders_cut"]``), but *which* restarts run depends on the machine's speed, so the
      answer can differ between runs.

    Parameters
    ----------
    table : ScoreTable or OrderSearch
    time_limit : float, optional
        Wall-clock seconds for the whole search, in-process and on every worker; the restarts in
        progress finish (their swap search stops at the limit).  At least one restart runs.
    n_orders : int, optional
        Number of random orders (restarts).  With neither budget: :data:`DEFAULT_ORDERS`.
    seed : int
        Seed of the orders.
    swaps : bool
        Run the swap search after OBS.
    insertions : bool
        Then the insertion moves (:meth:`.obs.OrderSearch.insertion_search`).
    kernels : {"auto", "numpy", "numba"}
        Kernels for the inner queries.
    n_jobs : int, optional
        Worker processes for the restarts (``None`` or ``-1``: every usable core; capped at them),
        as :func:`gobnilp_py.scoring.pool.worker_counts` rules for scoring.  Workers start only after
        :data:`WORKER_START_SECONDS` of in-process restarts.
    backend : {"processes", "dask"}
        Where the workers are: local processes, or the Dask cluster at ``scheduler``.
    scheduler : str or distributed.Client, optional
        The Dask scheduler (``backend="dask"`` only).
    """
    t0 = time.perf_counter()
    wall0 = time.time()
    _check_positive("time_limit", time_limit, integer=False)
    _check_positive("n_orders", n_orders, integer=True)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    from ...scoring.pool import worker_counts
    from .obs import BACKENDS as KERNELS

    if not isinstance(table, OrderSearch) and kernels not in KERNELS:
        raise ConfigError(f"kernels must be one of {', '.join(KERNELS)}, got {kernels!r}")
    try:
        _, workers = worker_counts(n_jobs, backend, scheduler, "the ASOBS search")
    except ScoreError as exc:
        raise ConfigError(str(exc)) from None
    search = table if isinstance(table, OrderSearch) else OrderSearch(table, backend=kernels)
    if n_orders is None and time_limit is None:
        n_orders = DEFAULT_ORDERS
    deadline = None if time_limit is None else t0 + float(time_limit)
    deadline_wall = None if time_limit is None else wall0 + float(time_limit)
    t_setup = time.perf_counter() - t0
    tally = Tally()
    in_process_until = t0 + WORKER_START_SECONDS if (workers > 1 or backend == "dask") else math.inf

    def report() -> None:
        if progress is not None:
            progress("asobs", tally.done, n_orders, score=tally.best_score)

    # in-process: restart 0 always, then until the budget is spent or it is time to start the workers
    k = 0
    stopped_by = "orders"
    while True:
        if n_orders is not None and k >= n_orders:
            break
        now = time.perf_counter()
        if deadline is not None and now >= deadline and k > 0:
            stopped_by = "time"
            break
        if k > 0 and now >= in_process_until:
            break
        run_restart(search, int(seed), k, tally, swaps=swaps, insertions=insertions, deadline=deadline)
        k += 1
        report()
    in_process = k
    pooled = 0
    more = (n_orders is None or k < n_orders) and stopped_by != "time"
    if more:
        per_restart = (time.perf_counter() - t0 - t_setup) / max(k, 1)
        pool = RestartPool(search.fl, search.backend, workers, backend, scheduler)
        pooled = pool.workers

        def take(t: Tally) -> None:
            tally.merge(t)
            report()

        try:
            pool.run(int(seed), k, n_orders, swaps=(swaps, insertions), deadline_wall=deadline_wall,
                     seconds_per_restart=per_restart, on_tally=take)
        finally:
            pool.close()
        if n_orders is None or tally.done < n_orders:
            stopped_by = "time"
    done = tally.done - tally.failed
    stats: dict[str, Any] = {
        "approximate": True,
        "orders": tally.done,
        "orders_without_dag": tally.failed,
        "orders_cut": tally.cut,
        "best_order": tally.best_index,
        "swaps": tally.swaps,
        "mean_asobs_score": tally.sum_asobs / done if done else None,
        "mean_obs_gain": tally.sum_obs_gain / done if done else None,
        "mean_swap_gain": tally.sum_swap_gain / done if done else None,
        "insertion_moves": tally.moves,
        "mean_insertion_gain": tally.sum_insertion_gain / done if done else None,
        "kernels": search.backend,
        "workers": pooled,
        "workers_backend": (backend if pooled else None),
        "orders_in_process": in_process,
        "seed": int(seed),
        "stopped_by": stopped_by,
        "setup_time": t_setup,
        "time": time.perf_counter() - t0,
    }
    best_choice = tally.best_choice
    chosen = search.positions(best_choice) if best_choice is not None else None
    log.info("asobs: %d orders in %.1f s (%d workers), best %.6f (order %d)", tally.done, stats["time"], pooled,
             tally.best_score, tally.best_index)
    return AsobsRun(tally.best_score, best_choice, chosen, tally.done, tally.best_index, stopped_by, stats["time"],
                    stats)


def optimum(table: ScoreTable, *, time_limit: float | None = None, seed: int | None = 0, n_orders: int | None = None,
            lower_bound: float | None = None, kernels: str = "auto", n_jobs: int | None = 1,
            backend: str = "processes", scheduler: Any = None, progress: Callable[..., Any] | None = None,
            **_ignored: Any) -> Solution:
    """Engine entry point (``method="asobs"``): the best DAG ASOBS finds, labelled approximate.

    Answers in table positions (:mod:`gobnilp_py.search.results`).  Status ``"feasible"``
    with ``stats["approximate"] = True`` (the shared status vocabulary has
    no "approximate"); ``"no_solution"`` when no order gave a DAG (a node
    without an acceptable family, e.g. after structural constraints removed
    its empty parent set).  ``lower_bound`` is not used to prune; when
    given, ``stats["reached_lower_bound"]`` says whether the DAG scores at
    least that much.  No dual bound.  A ``time_limit`` already spent (zero
    or negative: the driver's scoring used it up) still runs one order, so
    that the caller gets a network (``stats["over_time"]``).  ``n_jobs``, ``backend`` and
    ``scheduler``: where the restarts run, and what stays deterministic (:func:`asobs_search`).
    """
    over = isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool) and time_limit <= 0
    if over:
        time_limit = 1e-9
    run = asobs_search(table, time_limit=time_limit, n_orders=n_orders, seed=0 if seed is None else seed,
                       kernels=kernels, n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress)
    stats = dict(run.stats)
    if over:
        stats["over_time"] = True
    stats["table_approximate"] = bool(table.meta.get("approximate", False)) if isinstance(table, ScoreTable) \
        else False
    if lower_bound is not None and run.chosen is not None:
        stats["reached_lower_bound"] = bool(run.score >= float(lower_bound))
    if run.chosen is None:
        return Solution("no_solution", -math.inf, None, stats=stats)
    return Solution("feasible", run.score, run.chosen, stats=stats)
