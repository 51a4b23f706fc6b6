"""The state a worker builds once per job (a scoring's counting caches, an ASOBS search's kernels), one per thread.

Why per thread and not one per process: a Dask worker runs its tasks on ``nthreads`` threads, and a
``LocalCluster(processes=False)`` runs all its workers as threads of one process.  The objects kept
here hold scratch state (``ParentConfigs``'s prefix and set-id caches, the F cache of a scoring
context) that two tasks running at once must not share: a module-level cache shared by the threads
let two chunks of one scoring level interleave in those caches, and a Dask run answered from a
wrong score table (CI, 2026-11-29; ``tests/test_worker_state.py``).  A process pool's worker runs
its initializer and its tasks on one thread, so it gets exactly one state, as before.

Each thread keeps the state of the last job it saw (the token changes with every job: a new job's
state replaces the old one, whose memory goes with it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["thread_state", "install_thread_state"]

T = TypeVar("T")

_LOCAL = threading.local()


def install_thread_state(token: str, state: Any) -> None:
    """Make ``state`` this thread's state for job ``token`` (a process pool's initializer)."""
    _LOCAL.held = None          # the previous job's state goes first: its memory is not held twice
    _LOCAL.held = (token, state)


def thread_state(token: str, build: Callable[[], T]) -> T:
    """This thread's state for job ``token``, built by ``build()`` the first time this thread sees the token."""
    held = getattr(_LOCAL, "held", None)
    if held is None or held[0] != token:
        _LOCAL.held = None
        held = (token, build())
        _LOCAL.held = held
    return held[1]
