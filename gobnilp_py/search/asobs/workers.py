"""ASOBS restarts on worker processes or on a Dask cluster, with the scorer's ``n_jobs``/``backend``/``scheduler``.

Why a module of its own: the restarts are independent (:mod:`.restarts`), so the search hands out
batches of restart indices and merges what comes back; where the batches run is this module's job.
The workers' count and the backend's rules are the scorer's (:func:`gobnilp_py.scoring.pool.worker_counts`),
so ``n_jobs``, ``backend="processes"``/``"dask"`` and ``scheduler=`` mean the same in scoring and in the
search.  Each worker builds its own :class:`~.obs.OrderSearch` once from the family lists (a forked
worker shares them with the parent; a Dask worker gets them scattered once).

Batches are handed out in index order, a few per worker at a time, so that the restarts that
complete before a time limit are nearly a prefix of the indices; with a fixed number of restarts and
no time limit every restart runs and the merged result does not depend on the workers at all.
Ctrl-C stays global: the parent, which alone handles the signal, ends the pool's workers (they ignore
SIGINT, as the scorer's do, and die with their parent) and cancels what a Dask cluster has not started.
"""

from __future__ import annotations

import logging
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

from ..._worker_state import install_thread_state, thread_state
from ...errors import SolverError
from ...scoring.pool import dask_threads
from ._lists import FamilyLists
from .obs import OrderSearch
from .restarts import Tally, run_batch

__all__ = ["RestartPool", "BATCH_SECONDS"]

log = logging.getLogger(__name__)

#: Seconds of work a batch of restarts aims at: long enough that sending it costs little beside it,
#: short enough that the batches in flight at a time limit or an interrupt hold little work.
BATCH_SECONDS = 0.25


def _init_worker(token: str, fl: FamilyLists, kernels: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent alone handles Ctrl-C (see the module docstring)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from ...scoring.pool import _die_with_parent

    _die_with_parent()
    install_thread_state(token, OrderSearch(fl, backend=kernels))


def _batch_local(token: str, seed: int, indices: list[int], swaps: tuple[bool, bool],
                 deadline_wall: float | None) -> Tally:
    return run_batch(thread_state(token, _not_initialised), seed, indices, swaps=swaps[0], insertions=swaps[1],
                     deadline_wall=deadline_wall)


def _not_initialised() -> OrderSearch:  # pragma: no cover - the pool's initializer always ran first
    raise RuntimeError("ASOBS worker used before its initializer ran")


def _batch_dask(token: str, fl: FamilyLists, kernels: str, seed: int, indices: list[int], swaps: tuple[bool, bool],
                deadline_wall: float | None) -> Tally:
    # one search per worker thread (gobnilp_py._worker_state: its kernels' scratch is not to be shared)
    search = thread_state(token, lambda: OrderSearch(fl, backend=kernels))
    return run_batch(search, seed, indices, swaps=swaps[0], insertions=swaps[1], deadline_wall=deadline_wall)


class RestartPool:
    """Runs batches of restarts on ``workers`` local processes or on a Dask cluster (``scheduler``)."""

    def __init__(self, fl: FamilyLists, kernels: str, workers: int, backend: str = "processes",
                 scheduler: Any = None) -> None:
        self.fl, self.kernels, self.backend, self.scheduler = fl, kernels, backend, scheduler
        self.token = uuid.uuid4().hex
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        self._own_client = False
        self._remote_fl: Any = None
        import multiprocessing as mp

        self._before = set(mp.active_children())
        if backend == "dask":
            self._open_dask()
            self.workers = max(1, dask_threads(self._client))
        else:
            self.workers = workers
            method = "fork" if "fork" in mp.get_all_start_methods() else None
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method),
                                             initializer=_init_worker, initargs=(self.token, fl, kernels))

    def _open_dask(self) -> None:
        from ...scoring.pool import connect_scheduler

        self._client, self._own_client = connect_scheduler(self.scheduler, SolverError)
        self._remote_fl = self._client.scatter(self.fl, broadcast=True, hash=False)  # a key of its own: not
        # shared with (and released by) an earlier search of the same table

    def _submit(self, seed: int, indices: list[int], swaps: tuple[bool, bool], deadline_wall: float | None) -> Any:
        if self._pool is not None:
            return self._pool.submit(_batch_local, self.token, seed, indices, swaps, deadline_wall)
        return self._client.submit(_batch_dask, self.token, self._remote_fl, self.kernels, seed, indices, swaps,
                                   deadline_wall, pure=False)

    def run(self, seed: int, first: int, last: int | None, *, swaps: tuple[bool, bool], deadline_wall: float | None,
            seconds_per_restart: float, on_tally: Callable[[Tally], None]) -> None:
        """Restarts ``first, first+1, ...`` (up to ``last`` excluded; ``None``: until ``deadline_wall``),
        each tally handed to ``on_tally`` as it comes back.  ``swaps``: (adjacent swaps, insertion moves)."""
        size = max(1, min(4096, int(BATCH_SECONDS / max(seconds_per_restart, 1e-6))))
        batches = _batches(first, last, size, self.workers)
        in_flight: set[Any] = set()
        ahead = 2 * self.workers

        def fill() -> None:
            while len(in_flight) < ahead and (deadline_wall is None or time.time() < deadline_wall):
                nxt = next(batches, None)
                if nxt is None:
                    return
                in_flight.add(self._submit(seed, nxt, swaps, deadline_wall))

        try:
            fill()
            while in_flight:
                if self._pool is not None:
                    done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                else:
                    from distributed import wait as dwait

                    done = dwait(list(in_flight), return_when="FIRST_COMPLETED").done
                for f in done:
                    in_flight.discard(f)
                    on_tally(self._result(f))
                fill()
        except BaseException:
            for f in in_flight:
                f.cancel()
            self.close(abandon=True)
            raise

    def _result(self, f: Any) -> Tally:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return f.result()
        except BrokenProcessPool:
            raise SolverError("an ASOBS worker process died (killed by the system, perhaps for lack of memory); "
                              "give fewer n_jobs, or 1 to search in-process") from None

    def close(self, abandon: bool = False) -> None:
        """Shut the pool down (``abandon``: end its workers at once, e.g. on Ctrl-C) and close an own client."""
        if self._pool is not None:
            self._pool.shutdown(wait=not abandon, cancel_futures=True)
            self._pool = None
            if abandon:  # end the workers this pool started (their running batches would go on to the deadline)
                import multiprocessing as mp

                # Scan again until none is left: a single scan left one worker running in 2 of 3 runs of
                # test_ctrl_c_ends_the_workers (why it was missed is not known; with the rescan 5 of 5 passed).
                # Bounded, so a worker that will not die cannot hang the interrupt; the test reports it.
                give_up = time.monotonic() + 10.0
                while time.monotonic() < give_up:
                    mine = [p for p in mp.active_children() if p not in self._before]
                    if not mine:
                        break
                    for p in mine:
                        p.terminate()
                    for p in mine:
                        p.join(1.0)
                        if p.is_alive():  # a worker holding SIGTERM (compiling a kernel: search/asobs/_numba.py)
                            p.kill()
                            p.join(2.0)  # reaped: not left in multiprocessing's children
        if self._client is not None and self._own_client:
            self._client.close()
        self._client = None


def _batches(first: int, last: int | None, size: int, workers: int) -> Iterator[list[int]]:
    """Consecutive index ranges; with a known end, at least one per worker (the work spread evenly)."""
    if last is not None:
        size = max(1, min(size, -(-(last - first) // workers)))
    i = first
    while last is None or i < last:
        j = i + size if last is None else min(i + size, last)
        yield list(range(i, j))
        i = j


