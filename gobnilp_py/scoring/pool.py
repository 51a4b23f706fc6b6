"""The worker pool that scores a lattice level: a process pool or a Dask cluster, and what it may hold.

:func:`~gobnilp_py.scoring.parallel.score_groups` scores one chunk of a level (the map); this module
runs that map on workers: :class:`LevelScorer` cuts a level into contiguous chunks of parent sets and
hands them to a ``concurrent.futures`` process pool (the dataset and the score broadcast once per
worker through the pool initializer) or to a Dask cluster (``backend="dask"``, the payload scattered
once), and collects the results by position, so the table is bit-for-bit the serial one whatever the
number of workers.  Here too: how many cores may be used (:func:`usable_cores`,
:func:`resolve_n_jobs`) and how much memory a worker may hold (:func:`worker_bytes`).  A job of its
own beside the counting and scoring of :mod:`.parallel`, which never imports this module.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import signal
import time
import uuid
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._interrupt import held
from .._worker_state import install_thread_state, thread_state
from ..errors import ScoreError
from . import parallel as G
from .counts import ParentConfigs
from .parallel import BACKENDS, FlatGroups, GroupResults, Payload, _Context, n_pairs, score_groups, use_kernel

__all__ = ["LevelScorer", "PendingScores", "resolve_n_jobs", "usable_cores", "worker_bytes", "WORKER_WORKING_BYTES"]

log = logging.getLogger("gobnilp_py.scoring.parallel")  # one logger for the scoring of a level, as before


def _die_with_parent() -> None:
    """Linux: have the kernel send SIGTERM to this worker when its parent dies.

    A pool worker busy with a long chunk would otherwise outlive a parent that
    was killed (a timeout, Ctrl-C twice) and keep a core busy.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
        pass


def _init_worker(payload: Payload) -> None:
    # A forked worker inherits the command line's handlers, which raise KeyboardInterrupt: on Ctrl-C (sent to
    # the whole process group) or SIGTERM every worker would print its own traceback.  The parent alone
    # handles the interrupt (it shuts the pool down and cleans up), so workers ignore SIGINT and die
    # quietly on SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    install_thread_state(payload.token, _Context(payload))


def _run_chunk(token: str, groups: list[tuple[tuple[int, ...], np.ndarray]], kernel: bool = False,
               deadline: float | None = None) -> GroupResults:
    return score_groups(thread_state(token, _not_initialised), groups, kernel, deadline)


def _not_initialised() -> _Context:  # pragma: no cover - the pool's initializer always ran first
    raise RuntimeError("scoring worker used before its initializer ran")


def _run_chunk_dask(payload: Payload, groups: list[tuple[tuple[int, ...], np.ndarray]],
                    kernel: bool = False, deadline: float | None = None) -> GroupResults:
    # one context per worker thread (_worker_state: a context's caches are not to be shared by two tasks)
    ctx = thread_state(payload.token, lambda: _Context(payload))
    return score_groups(ctx, groups, kernel, deadline)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Bytes of working memory a scoring worker may hold beyond what it shares with the driver, besides its
#: payload's own arrays (:func:`worker_bytes`): its caches (:data:`F_CACHE_BYTES`, :data:`PEN_CACHE_BYTES`,
#: ``ParentConfigs.SET_IDS_CACHE_BYTES`` and ``TILE_CACHE_BYTES``, 208 MiB at most) and a chunk's arrays.
WORKER_WORKING_BYTES = 240 * 1024**2


def worker_bytes(payload: Payload) -> int:
    """What one scoring worker may hold of its own: :data:`WORKER_WORKING_BYTES` and its payload's tables
    (the atom tables of ``ml_ceiling``, the data), which a forked worker shares only until it writes near them."""
    own = WORKER_WORKING_BYTES + int(payload.data.codes.nbytes)
    for arr in (payload.atom_weights, payload.atom_mixed):
        if arr is not None:
            own += int(arr.nbytes)
    return own


def resolve_n_jobs(n_jobs: int | None) -> int:
    """``None`` or ``-1``: every usable core; otherwise the positive int asked for (one-line ScoreError if not).

    The number asked for, not yet capped: :class:`LevelScorer` starts at most :func:`usable_cores` workers.
    """
    if n_jobs is None or (isinstance(n_jobs, int) and not isinstance(n_jobs, bool) and n_jobs == -1):
        return usable_cores()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ScoreError(f"n_jobs must be a positive integer, -1 or None (all cores), got {n_jobs!r}")
    return int(n_jobs)


def worker_counts(n_jobs: int | None, backend: str, scheduler: Any, work: str) -> tuple[int, int]:
    """``(asked, started)``: the worker processes asked for and the number to start, after the backend's checks.

    One place for what every scorer (discrete and Gaussian) does with ``n_jobs``, ``backend`` and
    ``scheduler``: one-line errors for a bad combination, and the workers capped at the usable cores
    (CPU-bound work: workers beyond the cores only share them, each holding its own copy of the data, and
    thousands exhaust the process table), saying so.  ``work`` names the work in that warning.  ``(0, 0)``
    off the local backend.
    """
    if backend not in BACKENDS:
        raise ScoreError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "dask" and scheduler is None:
        raise ScoreError('backend="dask" needs scheduler= (an address such as "tcp://host:8786" '
                         'or a distributed.Client)')
    if backend != "dask" and scheduler is not None:
        raise ScoreError('scheduler= is only used with backend="dask"')
    asked = resolve_n_jobs(n_jobs) if backend == "processes" else 0
    started = asked
    if backend == "processes" and started > usable_cores():
        started = usable_cores()
        log.warning("n_jobs=%d capped at %d, the cores this process may use (%s is CPU-bound: more "
                    "workers than cores would only share them)", asked, started, work)
    return asked, started


class LevelScorer:
    """Scores a level's groups in-process, on a process pool, or on a Dask cluster.

    The pool (or the Dask client) is opened at the first level big enough to
    be worth sending and closed by :meth:`close`.
    """

    def __init__(self, payload: Payload, n_jobs: int | None = None, backend: str = "processes",
                 scheduler: Any = None, counts: ParentConfigs | None = None) -> None:
        """``counts``: the caller's :class:`ParentConfigs` of ``payload.data`` (default settings), shared
        by the in-process scoring instead of merging the rows again."""
        self.n_jobs_requested, self.n_jobs = worker_counts(n_jobs, backend, scheduler, "scoring")
        payload.token = uuid.uuid4().hex
        self.payload = payload
        self.backend = backend
        self.scheduler = scheduler
        self.local = _Context(payload, counts)
        self._pool: Executor | None = None
        self._client: Any = None
        self._own_client = False
        self._remote_payload: Any = None
        self._units = 0          # work of the levels run so far (kernel switch, KERNEL_MIN_UNITS)
        #: ``time.time()`` after which every call stops (:class:`ScoringDeadline`), in-process and in the workers
        self.deadline: float | None = None
        if backend == "dask":
            self._open_dask()

    # -- setup
    def _open_pool(self) -> None:
        import multiprocessing as mp

        methods = mp.get_all_start_methods()
        method = "fork" if "fork" in methods else None
        if method != "fork":
            _check_picklable(self.payload)
        ctx = mp.get_context(method)
        self._pool = ProcessPoolExecutor(max_workers=self.n_jobs, mp_context=ctx,
                                         initializer=_init_worker, initargs=(self.payload,))
        log.info("scoring on %d worker processes (%s)", self.n_jobs, method or "default start")

    def _open_dask(self) -> None:
        try:
            import distributed  # noqa: F401  (the import error first, before pickling the payload)
        except ImportError:
            raise ScoreError('backend="dask" needs dask.distributed: pip install "gobnilp-py[dask]"') from None
        _check_picklable(self.payload, dask=True)
        self._client, self._own_client = connect_scheduler(self.scheduler, ScoreError)
        # a key of its own (hash=False): two scorings of equal payloads never share one scattered object
        self._remote_payload = self._client.scatter(self.payload, broadcast=True, hash=False)
        log.info("scoring on Dask scheduler %s", self._client.scheduler.address)

    # -- work
    def worth_sending(self, groups: Any) -> bool:
        """Whether a level is big enough for the process pool (thresholds above :data:`G.PARALLEL_MIN_GROUPS`)."""
        if len(groups) < max(G.PARALLEL_MIN_GROUPS, 2):
            return False
        units = n_pairs(groups) * max(1, self.local.pc.rows)
        return units >= G.PARALLEL_MIN_UNITS and units >= G.PARALLEL_MIN_UNITS_PER_GROUP * len(groups)

    def run(self, groups: Any) -> GroupResults:
        """Scores of every group (same arrays as :func:`score_groups` in-process)."""
        return self.submit(groups).result()

    def submit(self, groups: Any) -> "PendingScores":
        """Start scoring ``groups`` (a list or :class:`FlatGroups`) and return at once.

        Why: the lattice walk generates the next piece of a level while the
        workers score this one (on spectf the driver and the workers used to
        wait for each other, the workers idle 70 % of the time).  In-process
        scoring happens here, before returning.  Results are those of
        :meth:`run`, whatever is done in between.
        """
        # one decision for the whole call, sent to every chunk: all processes score it with the same code
        kernel = use_kernel(self.payload.score, groups, self.local.pc.rows, self._units, pc=self.local.pc)
        self._units += n_pairs(groups) * max(1, self.local.pc.rows)
        if self.backend == "processes" and (self.n_jobs <= 1 or not self.worth_sending(groups)):
            return PendingScores(done=score_groups(self.local, groups, kernel, self.deadline))
        workers = self.n_jobs if self.backend == "processes" else max(1, _dask_workers(self._client))
        chunks = _split(groups, 4 * workers)
        if self.backend == "processes":
            if self._pool is None:
                self._open_pool()
            assert self._pool is not None
            # The first submissions fork the workers; a Ctrl-C / SIGTERM handler that raised inside fork's
            # callbacks (logging's at-fork lock release) would be printed and lost, and the run would go on:
            # hold the signal until the submissions are made (seen in CI, SIGTERM during `score`).
            import multiprocessing as mp

            before = set(mp.active_children())
            try:
                with held():
                    futures = [self._pool.submit(_run_chunk, self.payload.token, c, kernel, self.deadline)
                               for c in chunks]
            except OSError as exc:
                # fork refused (EAGAIN: the process table or memory is full): the workers started so far would
                # wait on their queue for ever and hang the interpreter's exit, so they are ended here.
                self._abandon_pool(before)
                raise ScoreError(f"cannot start scoring worker process {len(mp.active_children()) + 1} of "
                                 f"{self.n_jobs} ({exc.strerror or exc}); give fewer n_jobs (--n-jobs), or 1 to "
                                 "score in-process") from None
            return PendingScores(futures=futures)
        futs = [self._client.submit(_run_chunk_dask, self._remote_payload, c, kernel, self.deadline, pure=False)
                for c in chunks]
        return PendingScores(futures=futs, client=self._client)

    def _abandon_pool(self, before: set[Any]) -> None:
        """End the workers this scorer started (those not in ``before``) and drop the pool without waiting."""
        import multiprocessing as mp

        for p in mp.active_children():
            if p not in before:
                p.terminate()
        for p in mp.active_children():
            if p not in before:
                p.join(2.0)
                if p.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
                    p.kill()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None and self._own_client:
            self._client.close()
        self._client = None


@dataclass
class PendingScores:
    """Scores being computed (:meth:`LevelScorer.submit`); :meth:`result` waits for them."""

    done: GroupResults | None = None
    futures: list[Any] | None = None
    client: Any = None

    def result(self) -> GroupResults:
        if self.done is None:
            assert self.futures is not None
            from concurrent.futures.process import BrokenProcessPool

            try:
                parts = (self.client.gather(self.futures) if self.client is not None
                         else [f.result() for f in self.futures])
            except BrokenProcessPool:
                raise ScoreError("a scoring worker process died (killed by the system, perhaps for lack of "
                                 "memory); give a lower memory_limit (--memory-limit), fewer n_jobs, or a palim") \
                    from None
            self.futures = None
            self.done = GroupResults(*(np.concatenate([getattr(p, f) for p in parts])
                                       for f in ("scores", "ll", "cells", "ub")))
        return self.done

    def cancel(self) -> None:
        """Drop work not yet started (the walk is giving up: an error or an interrupt)."""
        for f in self.futures or ():
            f.cancel()


def dask_threads(client: Any) -> int:
    """Task slots of the cluster behind ``client`` (its workers' threads, summed): how many tasks run at once."""
    try:
        return sum(int(w.get("nthreads", 1)) for w in client.scheduler_info().get("workers", {}).values())
    except Exception:  # pragma: no cover - defensive
        return 1


def _dask_workers(client: Any) -> int:
    try:
        return len(client.scheduler_info().get("workers", {}))
    except Exception:  # pragma: no cover - defensive
        return 1


def _split(groups: Any, parts: int) -> list[Any]:
    """Contiguous chunks of about equal work (sum of children counted)."""
    if not len(groups):
        return []
    flat = isinstance(groups, FlatGroups)
    w = groups.ch_ptr[1:] if flat else np.cumsum([int(ch.size) for _, ch in groups])
    total = int(w[-1])
    parts = max(1, min(parts, len(groups)))
    cuts = [0]
    for i in range(1, parts):
        c = int(np.searchsorted(w, math.ceil(total * i / parts)))
        if c > cuts[-1]:
            cuts.append(c)
    cuts.append(len(groups))
    if flat:
        return [groups.part(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    return [groups[a:b] for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def _check_picklable(payload: Payload, dask: bool = False) -> None:
    """One-line ScoreError when the score cannot be sent to another process."""
    try:
        if dask:
            try:
                import cloudpickle
                cloudpickle.dumps(payload.score)
                return
            except ImportError:  # pragma: no cover - distributed depends on cloudpickle
                pass
        pickle.dumps(payload.score)
    except Exception as exc:  # pickling errors have many types
        raise ScoreError(f"score {payload.score.name!r} cannot be sent to worker processes "
                         f"({type(exc).__name__}: {exc}); define its function at module level "
                         f"or use n_jobs=1") from None


def connect_scheduler(scheduler: Any, error: type[Exception]) -> tuple[Any, bool]:
    """The ``distributed.Client`` for ``scheduler`` (an address, or a client given as it is) and whether it
    is ours to close.  One place for the import, the connection timeout and the one-line errors (raised as
    ``error``, the caller's layer: scoring, search or the drivers), which four callers wrote alike."""
    try:
        from distributed import Client
    except ImportError:
        raise error('backend="dask" needs dask.distributed: pip install "gobnilp-py[dask]"') from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="20s"), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise error(f"cannot reach the Dask scheduler {scheduler!r}: {exc}") from None
