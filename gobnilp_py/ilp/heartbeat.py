"""A SCIP event handler that runs a little Python after every node: signals and progress during long searches.

Python runs a signal handler only between bytecodes of the main thread, so
while SCIP is inside its own C loop a Ctrl-C or SIGTERM waits until one of the
package's callbacks runs.  In a collecting search with fractional LP points most
nodes call none of them (separation is at the root only, heuristics are off, the
collector sees only integral points), and a signal could wait for minutes.  This
handler catches every solved node, which gives the interpreter that chance
(:mod:`gobnilp_py._interrupt` then stops SCIP with ``interruptSolve``), and calls
an optional ``tick()`` at most every ``period`` seconds (progress reports).
One Python call per node costs microseconds against the milliseconds of a node LP.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pyscipopt

from ._callbacks import logged_callback

__all__ = ["Heartbeat", "add_heartbeat"]


class Heartbeat(pyscipopt.Eventhdlr):
    """Catch NODESOLVED; call ``tick`` at most every ``period`` seconds."""

    def __init__(self, tick: Callable[[], None] | None = None, period: float = 1.0) -> None:
        self.tick = tick
        self.period = period
        self._last = time.perf_counter()
        self.nodes = 0

    def eventinit(self):
        self.model.catchEvent(pyscipopt.SCIP_EVENTTYPE.NODESOLVED, self)

    def eventexit(self):
        self.model.dropEvent(pyscipopt.SCIP_EVENTTYPE.NODESOLVED, self)

    @logged_callback
    def eventexec(self, event):
        self.nodes += 1
        if self.tick is not None:
            now = time.perf_counter()
            if now - self._last >= self.period:
                self._last = now
                self.tick()
        return {}


def add_heartbeat(model: pyscipopt.Model, tick: Callable[[], None] | None = None, period: float = 1.0) -> Heartbeat:
    """Include a :class:`Heartbeat` in ``model``."""
    hb = Heartbeat(tick, period)
    model.includeEventhdlr(hb, "gobnilp_heartbeat", "python after every node: signals and progress")
    return hb
