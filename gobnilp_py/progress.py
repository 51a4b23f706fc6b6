"""Job-level progress: phases with timings, a heartbeat for long phases, and a hook for finer reports.

A run goes through phases (reading, scoring, solving, summarising, writing).
:class:`Progress` prints one line when a phase starts and one when it ends,
on stderr so stdout stays clean for results, and records each phase's wall
time for the report.  While a phase runs longer than ``heartbeat`` seconds it
prints where it is (elapsed time and, when a time limit is known, how much of
it is used), so a long run never looks hung.

Finer progress (per scored variable, networks collected, current bound)
belongs to the scoring and collector code; they can report through
:meth:`Progress.update`, the callback hook, without knowing how it is shown:
as a ``tqdm`` bar on a terminal (when tqdm is installed) or as occasional log
lines otherwise.  ``enabled=False`` (``--quiet``) silences everything but
still records timings.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["Progress", "PHASES"]

log = logging.getLogger("gobnilp_py")

#: The phases of a job, in order.
PHASES = ("reading", "scoring", "solving", "summarising", "writing")


class Progress:
    """Phase lines, phase timings, a heartbeat, and the :meth:`update` hook.

    Parameters
    ----------
    phases : sequence of str
        The phases this job will go through (for the ``[i/n]`` counter).
    enabled : bool
        Print anything at all (``False`` for ``--quiet``).
    stream : text stream
        Where to print (default stderr).
    heartbeat : float
        Seconds between "still <phase>" lines during a long phase (0: never).
    time_limit : float, optional
        The search's time limit, so the heartbeat can say how much is used.
    """

    def __init__(self, phases: Sequence[str] = PHASES, *, enabled: bool = True, stream: TextIO | None = None,
                 heartbeat: float = 30.0, time_limit: float | None = None, prefix: str = "gobnilp-py") -> None:
        self.phases = tuple(phases)
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.heartbeat = float(heartbeat)
        self.time_limit = time_limit
        self.prefix = prefix
        self.timings: dict[str, float] = {}
        self.current: str | None = None
        self._t_phase = 0.0
        self._t_start = time.perf_counter()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._bar: Any = None
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- output
    def _say(self, text: str) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._bar is not None:
                self._bar.write(f"{self.prefix}: {text}", file=self.stream)
            else:
                print(f"{self.prefix}: {text}", file=self.stream, flush=True)

    def _counter(self, name: str) -> str:
        if name in self.phases:
            return f"[{self.phases.index(name) + 1}/{len(self.phases)}] "
        return ""

    # ---------------------------------------------------------------- phases
    @contextmanager
    def phase(self, name: str, detail: str = "") -> Iterator["Progress"]:
        """Time a phase, announce its start and end, and beat while it runs."""
        self.current = name
        self._t_phase = time.perf_counter()
        self._say(f"{self._counter(name)}{name}{': ' + detail if detail else ''} ...")
        self._start_heartbeat(name)
        ok = False
        try:
            yield self
            ok = True
        finally:
            self._stop_heartbeat()
            self._close_bar()
            elapsed = time.perf_counter() - self._t_phase
            self.timings[name] = self.timings.get(name, 0.0) + elapsed
            self.current = None
            if ok:
                self._say(f"{self._counter(name)}{name} done in {elapsed:.2f} s")
            log.debug("phase %s: %.3f s (%s)", name, elapsed, "ok" if ok else "failed")

    @property
    def elapsed(self) -> float:
        """Seconds since this object was made."""
        return time.perf_counter() - self._t_start

    def _start_heartbeat(self, name: str) -> None:
        if not self.enabled or self.heartbeat <= 0:
            return
        self._stop = threading.Event()

        def beat() -> None:
            while not self._stop.wait(self.heartbeat):
                self._say(self.status_line(name))

        self._beat = threading.Thread(target=beat, name="gobnilp-progress", daemon=True)
        self._beat.start()

    def _stop_heartbeat(self) -> None:
        if self._beat is not None:
            self._stop.set()
            self._beat.join(timeout=1.0)
            self._beat = None

    def status_line(self, name: str) -> str:
        """Where a running phase is: elapsed time, and the share of the time limit used."""
        el = time.perf_counter() - self._t_phase
        text = f"still {name}: {el:.0f} s elapsed"
        if self.time_limit and name == "solving":
            used = min(el / self.time_limit, 1.0)
            text += f", {100 * used:.0f}% of the {self.time_limit:g} s time limit (at most {max(self.time_limit - el, 0):.0f} s left)"
        return text

    # ---------------------------------------------------------------- the hook
    def update(self, phase: str, done: int, total: int | None = None, **info: Any) -> None:
        """Progress within a phase: ``done`` of ``total`` items, plus free-form figures.

        The hook for scoring (``update("scoring", 3, 8, variable="lung")``)
        and collection (``update("solving", found, None, bound=-2254.6)``).
        On a terminal with tqdm installed this drives a bar; otherwise it is
        logged at DEBUG level (the heartbeat gives the periodic line).
        """
        if not self.enabled:
            return
        if self._bar is None and self.stream.isatty():
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=phase, file=self.stream, leave=False, dynamic_ncols=True)
        if self._bar is not None:
            self._bar.n = done
            if total is not None:
                self._bar.total = total
            if info:
                self._bar.set_postfix({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in info.items()},
                                      refresh=False)
            self._bar.refresh()
        else:
            log.debug("%s: %d%s %s", phase, done, f"/{total}" if total is not None else "", info or "")

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __call__(self, phase: str, done: int, total: int | None = None, **info: Any) -> None:
        """Alias of :meth:`update`, so the object itself can be passed as a callback."""
        self.update(phase, done, total, **info)
