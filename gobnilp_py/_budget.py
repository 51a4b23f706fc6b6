"""One call's wall-clock budget, shared by every phase it goes through.

Why one object: a time limit promises the *whole* command (reading, scoring,
the optimum, the collection and writing), so every phase must read the same
clock started at the same moment.  Before, each driver started its own clock
(reading was not counted, scoring never looked at it, writing came after),
and a 30 s limit could run for ten minutes.  A :class:`Budget` is made once,
where the command starts, and handed down: drivers take it as their
``time_limit`` (a plain number of seconds still works: it starts a budget
there), the scorer checks it between lattice levels, pieces and blocks
(inside worker processes too, through :meth:`Budget.wall_deadline`), the
engines get :meth:`Budget.remaining` as their own time limit, and the
listing of a collection keeps :attr:`Budget.per_network` seconds per
network for the work that follows it (summarising, writing).

What a phase does when the budget runs out depends on what it can still
say: scoring returns a table truncated at the last complete lattice level,
labelled incomplete; a search returns its incumbent and bound; reading, which
has nothing to return, raises :class:`TimeLimitReached`, which the command
line turns into a labelled "no result" answer.

A limit of :data:`NO_LIMIT_SECONDS` or more is no limit at all: SCIP's own
"no limit" for ``limits/time`` is 1e20 seconds and it refuses anything
larger, and a user who writes ``--time-limit 1e300`` means "none".
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["Budget", "TimeLimitReached", "NO_LIMIT_SECONDS", "no_limit", "process_age"]

#: A time limit at least this large (SCIP's infinity for ``limits/time``) is treated as no limit.
NO_LIMIT_SECONDS = 1e20
#: Longest interval the ``SIGALRM`` timer of :meth:`Budget.guard` is armed for (about 31 years): the timer
#: takes nanoseconds in 64 bits, so ``setitimer`` overflows past 9.2e9 s.  A limit further away than this
#: cannot run out during one read, and the block simply runs unguarded.
LONGEST_TIMER_SECONDS = 1e9
#: After the deadline, :meth:`Budget.guard` rings again this often until its block ends (a ring may be dropped).
RING_AGAIN_SECONDS = 0.05


def no_limit(seconds: float | None) -> bool:
    """Whether ``seconds`` means "no time limit" (``None``, or at least :data:`NO_LIMIT_SECONDS`)."""
    return seconds is None or float(seconds) >= NO_LIMIT_SECONDS


class TimeLimitReached(BaseException):
    """The time limit ran out in a phase that has no partial answer to return (reading the data).

    A ``BaseException``, as :class:`KeyboardInterrupt` is: it may be raised from a
    timer while library code runs, and an ``except Exception`` there (turning a
    decompression failure into a data error, say) must not swallow it.

    Attributes
    ----------
    phase : str
        The phase it ran out in (``"reading"``, ...).
    time_limit : float or None
        The limit, in seconds.
    """

    def __init__(self, phase: str, time_limit: float | None) -> None:
        super().__init__(phase, time_limit)
        self.phase = phase
        self.time_limit = time_limit

    def __str__(self) -> str:
        limit = f"the {self.time_limit:g} s time limit" if self.time_limit is not None else "the time limit"
        return f"{limit} ran out while {self.phase} the data" if self.phase == "reading" else \
            f"{limit} ran out during {self.phase}"


class Budget:
    """A wall-clock deadline started once and read by every phase of one call.

    Parameters
    ----------
    time_limit : float or None
        Seconds from ``start``; ``None`` (or :data:`NO_LIMIT_SECONDS` and
        beyond) for no limit.
    start : float, optional
        ``time.perf_counter()`` at which the clock started (default: now).
    per_network : float
        Seconds the caller will spend on each listed network after the
        collection (summarising and writing it): a collection's listing stops
        early enough to leave them (:meth:`listing_deadline`).  0 for API calls,
        which write nothing.
    memory_limit : int, optional
        Bytes the work may hold after scoring too (the search engines).

    Examples
    --------
    >>> b = Budget(10)
    >>> 9 < b.remaining() <= 10, b.expired()
    (True, False)
    >>> Budget(None).remaining() is None, Budget(1e300).time_limit is None
    (True, True)
    """

    __slots__ = ("time_limit", "start", "per_network", "memory_limit")

    def __init__(self, time_limit: float | None = None, *, start: float | None = None,
                 per_network: float = 0.0, memory_limit: int | None = None) -> None:
        self.time_limit = None if no_limit(time_limit) else float(time_limit)  # type: ignore[arg-type]
        self.start = time.perf_counter() if start is None else float(start)
        self.per_network = float(per_network)
        #: Bytes the command's work may hold (``memory_limit`` / ``--memory-limit``), for the phases after
        #: scoring: the drivers give it to the search engines that can keep to one (see
        #: :func:`gobnilp_py.solve.methods.with_memory_limit`).  ``None``: none given.
        self.memory_limit = memory_limit

    @classmethod
    def of(cls, time_limit: "float | Budget | None", *, start: float | None = None) -> "Budget":
        """``time_limit`` itself when it is a Budget, else a budget of that many seconds from ``start`` (now)."""
        if isinstance(time_limit, Budget):
            return time_limit
        return cls(time_limit, start=start)

    def __repr__(self) -> str:
        left = self.remaining()
        return f"Budget(time_limit={self.time_limit!r}, remaining={'None' if left is None else f'{left:.3f}'})"

    @property
    def limited(self) -> bool:
        """Whether there is a time limit at all."""
        return self.time_limit is not None

    @property
    def deadline(self) -> float | None:
        """``time.perf_counter()`` value at which the budget runs out (``None``: never)."""
        return None if self.time_limit is None else self.start + self.time_limit

    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (may be <= 0), or ``None`` without a limit."""
        return None if self.time_limit is None else self.time_limit - self.elapsed()

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        d = self.deadline
        return d is not None and time.perf_counter() >= d

    def left_for_engine(self) -> float | None:
        """What an engine's own ``time_limit`` should be: the seconds left, at least a microsecond (an engine
        told a non-positive limit refuses it; given a microsecond it stops at once and labels its result)."""
        left = self.remaining()
        return None if left is None else max(left, 1e-6)

    def wall_deadline(self) -> float | None:
        """The deadline on ``time.time()``'s clock, for other processes and machines (scoring workers)."""
        left = self.remaining()
        return None if left is None else time.time() + left

    def ending_before(self, reserve: float) -> "Budget":
        """A budget on the same clock that ends ``reserve`` seconds earlier (a phase that must leave time to
        the ones after it); no limit stays no limit."""
        if self.time_limit is None:
            return self
        return Budget(max(self.time_limit - max(reserve, 0.0), 0.0), start=self.start, per_network=self.per_network,
                      memory_limit=self.memory_limit)

    def listing_deadline(self, n_listed: int = 0) -> float | None:
        """When building listed networks must stop, with :attr:`per_network` left for each of ``n_listed``."""
        d = self.deadline
        if d is None:
            return None
        return d - self.per_network * max(n_listed, 0)

    def check(self, phase: str) -> None:
        """Raise :class:`TimeLimitReached` naming ``phase`` if the deadline has passed."""
        if self.expired():
            raise TimeLimitReached(phase, self.time_limit)

    @contextmanager
    def guard(self, phase: str) -> Iterator[None]:
        """Raise :class:`TimeLimitReached` in the block when the deadline passes (a ``SIGALRM`` timer).

        For work that has no check points of its own and nothing partial to
        return: reading a data file (the reader is Python loops, so the timer's
        exception arrives within a few bytecodes).  Armed only where it is safe:
        in the main thread, with a time limit, and when nobody else uses
        ``SIGALRM`` or the real-time interval timer (a user's own alarm is left
        alone, and the block then simply runs to its end).  Never use it around
        a solver, whose callbacks must not raise.
        """
        self.check(phase)
        left = self.remaining()
        if left is None or left > LONGEST_TIMER_SECONDS or not _alarm_free():
            yield
            return

        inside = [True]

        def ring(signum: int, frame: FrameType | None) -> None:
            # Only inside the block: a timer that outlived it (the teardown below cut by a KeyboardInterrupt)
            # must never raise later, in a solver's callback say.
            if inside[0]:
                raise TimeLimitReached(phase, self.time_limit)
            signal.setitimer(signal.ITIMER_REAL, 0.0)       # a stale timer: stop it

        ring.budget_guard_inside = inside  # type: ignore[attr-defined]  # lets _alarm_free see a stale one
        old = signal.signal(signal.SIGALRM, ring)
        try:
            # rings again every RING_AGAIN_SECONDS until the block ends: an exception raised while the main
            # thread runs a callback called from C (a gc callback, such as hypothesis registers; a solver's)
            # is printed and dropped there, and one ring alone would then let the block run to its end
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), RING_AGAIN_SECONDS)
            yield
        finally:
            inside[0] = False
            # in this order: cut short after the first line, the inert handler stays with the timer (restoring
            # the default while the timer runs would let SIGALRM end the process)
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, old)


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``; 0.0 where that cannot be read).

    The command line counts its time limit from here, so that the interpreter's start and the package's
    imports are inside ``--time-limit`` too: the promise is the wall-clock time of the whole command.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])                       # field 22 of proc(5): starttime, in clock ticks
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0
    return min(max(age, 0.0), 3600.0)


def _alarm_free() -> bool:
    """Main thread, SIGALRM at its default action and no real-time timer running."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    try:
        handler = signal.getsignal(signal.SIGALRM)
        stale = getattr(handler, "budget_guard_inside", None)
        if stale is not None and not stale[0]:
            return True             # a guard's own handler left behind, now inert: ours to replace
        if handler not in (signal.SIG_DFL, None):
            return False
        return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    except (ValueError, OSError):  # pragma: no cover - no such signal here
        return False


def seconds_text(seconds: Any) -> str:
    """``12 s`` / ``1.5 s`` / ``0.001 s`` for messages."""
    s = float(seconds)
    if not math.isfinite(s):
        return str(s)
    return f"{s:.3g} s"
