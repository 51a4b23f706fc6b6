"""Where the Gaussian children are walked: in-process, on local worker processes, or on a Dask cluster.

Why a module of its own: :func:`~gobnilp_py.scoring.gaussian.gaussian_score_table` plans one walk per
child (:class:`ChildWalk`: the child's reordered matrix and the rule constants, a few KiB) and the walks
are independent of each other, so they can run anywhere.  This module runs a list of them and returns
the results in child order, whatever ran them, so the table is the same for every ``n_jobs`` and
backend.  The discrete scorer's pool (:mod:`gobnilp_py.scoring.pool`) scores lattice levels; it shares
with this one only how cores are counted and how a worker starts.

Time limit: every walk is handed the deadline on ``time.time()``'s clock; a walk not started by then is
not started at all (``None`` in its place: the caller keeps only the empty set for that child), and a
walk once started is finished, as in-process.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._memory import format_bytes
from ..errors import ScoreError

__all__ = ["ChildWalk", "WalkResult", "run_walk", "GaussianWorkers", "GAUSSIAN_WORKER_BYTES",
           "PARALLEL_MIN_SECONDS", "store_bytes"]

log = logging.getLogger(__name__)

#: Bytes a local worker process holds of its own beyond its walk's store: the interpreter, numpy and the
#: loaded walk (measured about 60 MiB resident, most of it shared with the parent until written), and
#: the results it sends back, rounded up.
GAUSSIAN_WORKER_BYTES = 128 * 2**20
#: Children are walked in-process until the walks so far took this many seconds; only then are the rest
#: sent to the worker processes.  Measured (``benchmarks/bench_gaussian_parallel.py``, 2 cores): starting
#: two forked workers and a round trip costs about 20 ms, but sending the walks and their results back
#: costs more: at 20 variables (0.55 s of walks) two workers took 0.52-0.68 s, at 25 variables (21-24 s)
#: 0.57-0.61 of the in-process time.  So a table whose walks fit in a second stays in-process.
#: 0: send every child (tests).
PARALLEL_MIN_SECONDS = 1.0


@dataclass
class ChildWalk:
    """One child's walk, ready to run anywhere: the arguments of the walk function and how to run it."""

    args: tuple[Any, ...]
    two_pass: bool
    dense: bool
    max_cap: int
    #: The most bytes the walk's best-score store may take (what a worker must be allowed).
    store_bytes: int


#: ``(masks, scores, counters, n_scored)`` of one walk (``n_scored < 0``: over the memory limit).
WalkResult = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def run_walk(job: ChildWalk) -> WalkResult:
    """Walk one child here (the compiled walk is loaded on the first call of a process).

    The walk functions are read from :mod:`gobnilp_py.scoring._gaussian_walk` when called (tests replace
    them there by the interpreted ones, or slow ones, and a forked worker inherits the replacement)."""
    from . import _gaussian_walk as GW

    if job.two_pass:
        masks, scores, cnt, scored = GW.walk_child_dense(*job.args)
    else:
        masks, scores, cnt, scored = GW.walk_child(*job.args, bool(job.dense), 1 << 12, int(job.max_cap))
    return masks, scores, cnt, int(scored)


def _walk_before(job: ChildWalk, deadline: float | None) -> WalkResult | None:
    """:func:`run_walk`, or ``None`` when the deadline has passed before the walk starts (on any machine)."""
    if deadline is not None and time.time() >= deadline:
        return None
    return run_walk(job)


def _init_worker() -> None:
    # As the discrete scorer's workers: the parent alone handles Ctrl-C, a worker dies quietly on SIGTERM
    # and with its parent.
    import signal

    from .pool import _die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()


class GaussianWorkers:
    """The workers asked for (``n_jobs``, ``backend``, ``scheduler``), checked at once, started when first used.

    ``n_jobs``: local processes (``None`` or -1: every usable core; more than the cores is capped, with a
    warning, as for discrete scores).  ``memory_limit`` counts them: each may hold
    :data:`GAUSSIAN_WORKER_BYTES` and the largest walk store it may be sent, and no more run at once
    than fit in the limit (fewer than asked, down to none, is said in a warning).
    """

    def __init__(self, n_jobs: int | None = None, backend: str = "processes", scheduler: Any = None) -> None:
        from .pool import worker_counts

        self.n_jobs_requested, self.n_jobs = worker_counts(n_jobs, backend, scheduler, "the Gaussian walk")
        self.backend = backend
        self.scheduler = scheduler
        #: Workers that walked children (0: every child walked in-process).
        self.used = 0

    def workers_for(self, jobs: list[ChildWalk], memory_limit: int) -> int:
        """How many local workers to start for ``jobs``: at most ``n_jobs``, one per job, and what fits in memory."""
        if self.backend != "processes" or self.n_jobs <= 1 or len(jobs) < 2:
            return 1 if self.backend == "processes" else 0
        each = GAUSSIAN_WORKER_BYTES + max(j.store_bytes for j in jobs)
        fit = int(memory_limit // each)
        want = min(self.n_jobs, len(jobs))
        if fit < want:
            if fit <= 1:
                log.warning("memory_limit %s leaves no room for Gaussian scoring worker processes (each may "
                            "hold about %s): walking in-process", format_bytes(memory_limit), format_bytes(each))
            else:
                log.warning("memory_limit %s leaves room for %d Gaussian scoring worker processes (each may hold "
                            "about %s), not %d", format_bytes(memory_limit), fit, format_bytes(each), want)
            want = max(1, fit)
        return want

    def run(self, jobs: list[ChildWalk], memory_limit: int, deadline: float | None) -> list[WalkResult | None]:
        """The results of ``jobs`` in their order (``None``: not started by the deadline)."""
        if not jobs:
            return []
        if self.backend == "dask":
            out = _run_dask(self.scheduler, jobs, deadline)
            self.used = max(self.used, 1)
            return out
        workers = self.workers_for(jobs, memory_limit)
        if workers <= 1:
            return [_walk_before(j, deadline) for j in jobs]
        self.used = max(self.used, workers)
        return _run_processes(jobs, workers, deadline)


def _run_processes(jobs: list[ChildWalk], workers: int, deadline: float | None) -> list[WalkResult | None]:
    """Walk ``jobs`` on ``workers`` forked processes, the largest first (they finish together), in order back."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from .._interrupt import held

    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    before = set(mp.active_children())
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].store_bytes)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker)
    try:
        try:
            with held():
                futures = {i: pool.submit(_walk_before, jobs[i], deadline) for i in order}
        except OSError as exc:
            for p in mp.active_children():
                if p not in before:
                    p.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise ScoreError(f"cannot start Gaussian scoring worker process {len(mp.active_children()) + 1} of "
                             f"{workers} ({exc.strerror or exc}); give fewer n_jobs (--n-jobs), or 1 to score "
                             "in-process") from None
        try:
            out = [futures[i].result() for i in range(len(jobs))]
        except BrokenProcessPool:
            raise ScoreError("a Gaussian scoring worker process died (killed by the system, perhaps for lack of "
                             "memory); give a lower memory_limit (--memory-limit), fewer n_jobs, or a palim") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    log.info("walked %d Gaussian children on %d worker processes", len(jobs), workers)
    return out


def _run_dask(scheduler: Any, jobs: list[ChildWalk], deadline: float | None) -> list[WalkResult | None]:
    """Walk ``jobs`` on the Dask cluster at ``scheduler`` (an address or a ``distributed.Client``)."""
    from .pool import connect_scheduler

    client, own = connect_scheduler(scheduler, ScoreError)
    try:
        futures = [client.submit(_walk_before, j, deadline, pure=False) for j in jobs]
        out = client.gather(futures)
    finally:
        if own:
            client.close()
    log.info("walked %d Gaussian children on Dask scheduler %s", len(jobs), getattr(client.scheduler, "address", "?"))
    return list(out)


def store_bytes(m: int, two_pass: bool, dense: bool, max_cap: int) -> int:
    """The most bytes one walk's store may take: the two-pass walk's two arrays of 2^m floats, the dense
    walk's one, or the hash table at its largest (two arrays of ``max_cap`` slots)."""
    if two_pass:
        return 16 << m
    if dense:
        return 8 << m
    return 16 * int(max_cap)
