"""The parts of a split ε-collection (:mod:`.split`) run on a Dask cluster (``backend="dask"``).

Where: ``scheduler`` an address (``"tcp://host:8786"``) or a ``distributed.Client``; without one, a
``LocalCluster`` of one single-threaded worker process per usable core, started for the call and
closed after it (:func:`dask_client`).

By class, a short *probe* runs first in this process (:func:`_probe`): the whole class search, stopped at
:data:`PROBE_CLASSES` classes or :data:`PROBE_NODES` nodes.  Its classes steer which adjacencies the
parts split on (:func:`.split.plan_class_split`), and the parts are submitted heaviest first (by the
probe's count) so the workers end together.

Every split's parts are submitted one a worker at a time, in the plan's order, the next as one ends
(:func:`_wait`): a Dask scheduler hands each worker a second task ahead, which left a worker idle at the
end while the other still had a queued part of its own.  A probe that stopped for any other reason (it found every
class, or met the caller's class cap, time limit or Ctrl-C) is the serial search itself, and its answer
is returned with no part run.

Limits, all global (``docs/enumeration.md``):

* the time limit: every part gets what is left of the call's deadline when it starts (a wall-clock
  time, comparable across the cluster's machines); the driver waits until the deadline and a grace
  (:data:`RETURN_GRACE`) for the parts to come back, then cancels the rest, which count as cut by
  the time limit;
* Ctrl-C / SIGTERM: recorded (:func:`gobnilp_py._interrupt.interruptible`), every future is
  cancelled, and the parts not back count as interrupted (a part already running goes on until its
  own time limit: Dask cannot stop running Python code; a LocalCluster started here is closed, with
  its workers, when the call returns);
* a worker that dies: the scheduler runs its part again on another worker (what a nanny and the
  scheduler's ``allowed-failures`` give); a part that cannot be run (``KilledWorker``) is *lost*.

Whatever did not come back, the merge labels the result incomplete with a threshold that holds
(:func:`.split.merge_parts`: a lost part certifies its ceiling), never a silent gap.  ``dask`` and
``distributed`` are imported only here, when the backend is used.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._interrupt import interruptible
from ..errors import ParameterError
from ..scoring.table import ScoreTable
from ..search.results import Collection
from .split import (LOST_REASON, ROOT_SPLIT_METHODS, PartResult, merge_parts, plan_class_split, plan_split, run_part,
                    top_k)

__all__ = ["dask_client", "collect_on_dask", "PARTS_PER_WORKER", "TREE_PARTS_PER_WORKER", "RETURN_GRACE",
           "PROBE_CLASSES", "PROBE_NODES"]

#: Parts per worker of the row split (the ILP's): several, so that a slow part does not leave the other
#: workers idle (wine, BF 20, by DAG, 4 parts: 2.06, 1.52, 2.61 and 0.56 s), each paying its own model.
PARTS_PER_WORKER = 4

#: Parts per worker of the order graph's tree split: one, because its parts are even (past the shared
#: prefix every part keeps every k-th open state: wine, BF 20, 2 parts: 0.16 and 0.20 s) and each part
#: builds its own best-parent lookups and subset DP (seconds from about 24 variables).
TREE_PARTS_PER_WORKER = 1

#: The probe of a collection by class (:func:`_probe`) stops at this many classes ...
#: (zoo BF 150: 100 classes in 209 nodes and 2.8 s of a 91 s search; a tree of adjacencies grown on them
#: gave 8 parts holding at most 28 % of the 4,977 classes, where the row-bound pairs gave one part 87 %)
PROBE_CLASSES = 100

#: ... or this many nodes, whichever comes first (a table whose classes are few and far apart).
PROBE_NODES = 1000

#: Seconds past the deadline the driver waits for the parts, each stopped by its own time limit, to return
#: (the engines stop within a fraction of a second of it; a part later than this counts as cut by the limit).
RETURN_GRACE = 2.0

#: Seconds between two looks at the deadline and at a Ctrl-C while the parts run.
_POLL = 0.1

_log = logging.getLogger(__name__)


@contextmanager
def dask_client(scheduler: Any = None) -> Iterator[Any]:
    """A ``distributed.Client``: the one given, one connected to ``scheduler``, or one on a new LocalCluster.

    What this opens it closes; a client passed in stays open.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ParameterError('backend "dask" needs dask.distributed: pip install "gobnilp-py[dask]"') from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is not None:
        from ..scoring.pool import connect_scheduler

        client, _ = connect_scheduler(scheduler, ParameterError)
        try:
            yield client
        finally:
            client.close()
        return
    from ..scoring.pool import usable_cores

    cluster = LocalCluster(n_workers=usable_cores(), threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _n_workers(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def collect_on_dask(client: Any, table: ScoreTable, *, method: str, opt: float, epsilon: float,
                    max_networks: int | None, time_limit: float | None, options: dict[str, Any],
                    constraints: Any = None, n_parts: int | None = None, k: int | None = None,
                    by_class: bool = False) -> Collection:
    """Every network of ``table`` scoring ``>= opt - epsilon - tol``, its parts collected on ``client``'s workers;
    with ``k``, the ``k`` best networks and every network tied with the k-th, all within ``epsilon`` (the
    certified gap of the k-th best; ``inf`` when unknown) of OPT.  With ``by_class`` one representative per
    Markov equivalence class (the parts split on adjacencies: :func:`.split.plan_class_split`)."""
    t0 = time.perf_counter()
    tol = 1e-9 * max(1.0, abs(opt))
    if n_parts is None:
        per = TREE_PARTS_PER_WORKER if method in ROOT_SPLIT_METHODS and not by_class else PARTS_PER_WORKER
        n_parts = per * _n_workers(client)
    deadline_wall = None if time_limit is None else time.time() + time_limit
    if by_class and k is None:      # a k-best search has no ε-set to probe: the row-bound pairs' patterns
        probe = _probe(table, method=method, opt=opt, epsilon=epsilon, max_networks=max_networks,
                       time_limit=time_limit, options=options, constraints=constraints)
        if not isinstance(probe, list):     # the probe is the whole answer (complete, or cut by the caller)
            probe.stats.update({"parts": 1, "parts_lost": 0, "split": "none (the probe search finished)",
                                "collection_backend": "dask", "workers": _n_workers(client),
                                "time_split": time.perf_counter() - t0})
            return probe
        parts = plan_class_split(table, opt - epsilon - tol, n_parts, probe=probe)
    elif by_class:
        parts = plan_class_split(table, opt - epsilon - tol, n_parts)
    else:
        parts = plan_split(table, opt - epsilon - tol, n_parts, method)
    remote = client.scatter(table, broadcast=True, hash=False)
    tag = uuid.uuid4().hex[:8]

    def submit(p: Any) -> Any:
        return client.submit(run_part, remote, p, method=method, opt=opt, epsilon=epsilon, max_networks=max_networks,
                             deadline=deadline_wall, options=options, constraints=constraints, k=k, pure=False,
                             key=f"gobnilp-part-{tag}-{p.index}")

    # One part a worker at a time, in the plan's order (heaviest first where the plan knows): a scheduler
    # hands each worker more than one task ahead (worker-saturation), so the worker that ends first could
    # sit idle while the other still has a queued part of its own.
    in_flight = _n_workers(client)
    futures = {p.index: submit(p) for p in parts[:in_flight]}
    waiting = list(parts[in_flight:])
    stop = threading.Event()
    results: dict[int, PartResult] = {}
    lost: dict[int, str] = {}
    with interruptible(stop.set) as intr:
        try:
            _wait(futures, stop, None if deadline_wall is None else deadline_wall + RETURN_GRACE,
                  waiting=waiting, submit=submit, in_flight=in_flight)
        except KeyboardInterrupt:  # a second signal, or one outside the handler's reach
            stop.set()
    interrupted = stop.is_set() or intr.interrupted
    for p in parts:
        i = p.index
        fut = futures.get(i)
        if fut is not None and fut.status == "finished":
            results[i] = fut.result()
        elif fut is not None and fut.status == "error":
            exc = fut.exception()
            if _is_lost(exc):
                _log.warning("part %d of the collection was lost with its worker: %s", i, exc)
                lost[i] = LOST_REASON
            else:
                client.cancel(list(futures.values()))
                raise exc
        else:                     # still running, or never submitted
            lost[i] = "interrupted" if interrupted else "time_limit"
    client.cancel([f for i, f in futures.items() if i in lost])
    col = merge_parts(parts, results, lost, opt=opt, epsilon=epsilon, max_networks=max_networks)
    if k is not None:
        col = top_k(col, k, opt)
    col.stats.update({"collection_backend": "dask", "workers": _n_workers(client),
                      "time_split": time.perf_counter() - t0})
    return col


def _probe(table: ScoreTable, *, method: str, opt: float, epsilon: float, max_networks: int | None,
           time_limit: float | None, options: dict[str, Any], constraints: Any) -> Collection | list[tuple[int, ...]]:
    """A short class collection of the whole table in this process, before the split (module docstring).

    It stops at :data:`PROBE_CLASSES` classes or :data:`PROBE_NODES` nodes (counts, not seconds, so the
    split is the same on every run).  Returns the classes' representatives (positions in ``table``) for
    :func:`.split.plan_class_split`; or, when the probe did not stop at one of those two caps of its own
    (it finished, or met the caller's class cap, time limit, Ctrl-C), the probe's collection itself, which
    is then the serial search's answer: the same search with the same settings.
    """
    from .methods import engine_module, get_method

    engine = engine_module(get_method(method))
    cap = PROBE_CLASSES if max_networks is None else min(PROBE_CLASSES, max_networks)
    params = dict(options.get("params") or {})
    own_nodes = params.get("limits/nodes")
    nodes = PROBE_NODES if own_nodes is None or own_nodes < 0 else min(PROBE_NODES, own_nodes)
    params["limits/nodes"] = nodes
    col = engine.epsilon_set(table, opt=opt, epsilon=epsilon, constraints=constraints, max_networks=cap,
                             time_limit=time_limit, by_class=True, **{**options, "params": params})
    ours = ((col.reason == "max_networks" and cap == PROBE_CLASSES and (max_networks is None or cap < max_networks))
            or (col.reason == "node_limit" and nodes == PROBE_NODES
                and (own_nodes is None or own_nodes < 0 or own_nodes > nodes)))
    if not ours:
        return col
    return [chosen for _, chosen in col.entries]


def _wait(futures: dict[int, Any], stop: threading.Event, until: float | None, *, waiting: list[Any] | None = None,
          submit: Any = None, in_flight: int = 1) -> None:
    """Until every part is done, ``stop`` is set or the wall clock passes ``until`` (looked at every
    :data:`_POLL` seconds: a sleep, so that a signal's handler runs at once).  Meanwhile the parts of
    ``waiting`` are submitted in order (``submit``, into ``futures``), as the running ones end, keeping
    ``in_flight`` running."""
    waiting = waiting if waiting is not None else []
    pending = list(futures.values())
    while not stop.is_set():
        pending = [f for f in pending if not f.done()]
        while waiting and len(pending) < in_flight and (until is None or time.time() < until):
            p = waiting.pop(0)
            futures[p.index] = submit(p)
            pending.append(futures[p.index])
        if not pending or (until is not None and time.time() >= until):
            return
        time.sleep(_POLL)


def _is_lost(exc: BaseException | None) -> bool:
    """Whether a part's error says its work was lost with a worker (not a failure of the part itself)."""
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - distributed is there whenever this runs
        return False
    from distributed.comm.core import CommClosedError

    return isinstance(exc, (KilledWorker, CommClosedError))
