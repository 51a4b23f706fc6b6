"""Ctrl-C and SIGTERM: stop a long search cleanly and keep what it found.

Two situations, two behaviours:

* **Inside a search** (an engine wraps its long loop or ``model.optimize()``
  in :func:`interruptible`): SIGINT and SIGTERM are *recorded* and the
  registered stop callback is called (``model.interruptSolve`` for SCIP, a
  flag for a Python engine), instead of raising.  The search returns what it
  has, and the driver labels the result ``"interrupted"``; the command line
  then writes that labelled partial result and exits 130 (SIGINT) or 143
  (SIGTERM).  A second signal during the same search raises
  :class:`KeyboardInterrupt` (the "press again to force" convention), for an
  engine that does not poll its flag.
* **Anywhere else** (reading, scoring, writing): a signal raises
  :class:`KeyboardInterrupt` as usual, so ``finally`` blocks run, staging
  folders and temporary files are removed, and no half-written file is left;
  the command line exits 130 or 143.  SIGTERM would otherwise kill the
  process without any clean-up: :func:`cli_handlers` makes it raise too.

:func:`last_signal` tells the command line which signal it was, so the exit
status follows the shell convention 128 + signal number.

SCIP's own Ctrl-C catching should be **off** (``misc/catchctrlc = FALSE``)
while :func:`interruptible` is used: SCIP's handler writes ``pressed CTRL-C 1
times (5 times for forcing termination)`` with ``printf`` to stdout (it
ignores ``hideOutput``), which corrupts ``--json`` output, and it calls
``exit(1)`` at the fifth Ctrl-C; and it sees SIGINT only, not SIGTERM.  With
it off, the Python-level handler installed here receives both signals and
asks SCIP to stop (``interruptSolve``: status ``"userinterrupt"``).  Python
runs a signal handler between bytecodes only, i.e. in one of the package's
SCIP callbacks (cluster-cut separation, the collector, the heuristic), which
SCIP calls often; so the stop takes effect within one callback round.
(Measured with catchctrlc off, load 4.2 on 2 cores: ``gobnilp-py run`` of a
learn job signalled 2 s into a one-minute solve exited 0.47 s (SIGINT, status
130) and 0.48 s (SIGTERM, 143) later, its incumbent written and labelled
``INCOMPLETE (interrupted)``.)

Signal handlers can only be installed from the main thread; elsewhere
:func:`interruptible` does nothing (the search simply runs to its end).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = ["interruptible", "held", "last_signal", "clear_last_signal", "cli_handlers", "exit_status", "Interruption"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_last: int | None = None


def last_signal() -> int | None:
    """The last SIGINT/SIGTERM recorded by a handler of this module (``None`` if none since :func:`clear_last_signal`)."""
    return _last


def clear_last_signal() -> None:
    """Forget the recorded signal (the command line does this at the start of each command)."""
    global _last
    _last = None


def _record(signum: int) -> None:
    global _last
    _last = signum


def exit_status(signum: int | None = None) -> int:
    """Shell exit status for an interrupted command: 128 + signal (130 for SIGINT, 143 for SIGTERM)."""
    s = last_signal() if signum is None else signum
    return 128 + int(s if s is not None else signal.SIGINT)


@dataclass
class Interruption:
    """What :func:`interruptible` saw: ``signum`` of the first signal during the block, if any."""

    signum: int | None = None
    count: int = 0

    @property
    def interrupted(self) -> bool:
        """True once a signal arrived during the block (the search should report ``"interrupted"``)."""
        return self.signum is not None


def _can_install() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def _handling(handler: Callable[[int, FrameType | None], Any]) -> Iterator[None]:
    """``handler`` for SIGINT and SIGTERM during the block (ignored signals stay ignored), the old ones after."""
    old = {s: signal.getsignal(s) for s in _SIGNALS}
    for s in _SIGNALS:
        if old[s] is not signal.SIG_IGN:
            signal.signal(s, handler)
    try:
        yield
    finally:
        for s in _SIGNALS:
            if old[s] is not signal.SIG_IGN:
                signal.signal(s, old[s] if old[s] is not None else signal.SIG_DFL)


@contextmanager
def interruptible(stop: Callable[[], Any] | None = None) -> Iterator[Interruption]:
    """Within the block, SIGINT/SIGTERM call ``stop()`` instead of raising; restore the old handlers after.

    Parameters
    ----------
    stop : callable, optional
        Asks the running search to stop and return what it has, e.g.
        ``model.interruptSolve``.  Called once per signal, from the main thread.

    Yields
    ------
    Interruption
        ``.interrupted`` / ``.signum`` tell the engine whether to label its
        result ``"interrupted"``.

    Notes
    -----
    A signal whose handler is ``SIG_IGN`` when the block starts (e.g. SIGINT of
    a background job of a non-interactive shell) stays ignored.  A second
    signal in the same block raises :class:`KeyboardInterrupt`.

    Examples
    --------
    >>> with interruptible(lambda: None) as intr:
    ...     pass  # model.optimize()
    >>> intr.interrupted
    False
    """
    state = Interruption()
    if not _can_install():
        yield state
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        _record(signum)
        state.count += 1
        if state.signum is None:
            state.signum = signum
        if state.count > 1 or stop is None:
            raise KeyboardInterrupt
        stop()

    with _handling(handler):
        yield state


@contextmanager
def held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block ends, then deliver the first one (to the handler restored).

    For calls into numba-compiled code.  The first call of a kernel compiles
    it, and a handler that raises while LLVM is calling back into Python is
    printed as "Exception ignored in ..." with a traceback and then lost (seen
    in CI: SIGTERM one second into scoring, in a fresh environment whose numba
    cache was cold).  Once compiled, one call lasts a fraction of a second, so
    the signal is acted on that much later.  Ignored signals stay ignored; outside the
    main thread nothing is held.
    """
    if not _can_install():
        yield
        return
    got: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        got.append(signum)

    try:
        with _handling(hold):
            yield
    finally:
        if got:  # after the old handlers are back
            signal.raise_signal(got[0])


_asked: set[int] = set()


def _scip_model_on_stack(frame: FrameType | None) -> Any:
    """The SCIP model whose Python callback is running (a plugin's ``self.model``), if any."""
    f = frame
    while f is not None:
        obj = f.f_locals.get("self")
        model = getattr(obj, "model", None) if obj is not None else None
        if model is not None and type(model).__module__.startswith("pyscipopt") and hasattr(model, "interruptSolve"):
            return model
        f = f.f_back
    return None


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    """The command line's handler: stop a SCIP search politely if one is running, else raise.

    A signal handled inside a SCIP callback must not raise: PySCIPOpt turns
    the exception into a SCIP error and the search's result is lost.  So when
    a SCIP plugin is on the stack (an engine that did not wrap its search in
    :func:`interruptible`), its model is asked to stop instead -- the same as
    :func:`interruptible` would do -- and a second signal raises.
    """
    _record(signum)
    model = _scip_model_on_stack(frame)
    if model is not None and id(model) not in _asked:
        _asked.add(id(model))
        model.interruptSolve()
        return
    raise KeyboardInterrupt


@contextmanager
def cli_handlers() -> Iterator[None]:
    """For the duration of a command: SIGINT and SIGTERM record themselves and raise :class:`KeyboardInterrupt`.

    Python's default SIGINT handler already raises, but does not say which
    signal it was; SIGTERM by default kills the process with no clean-up.
    A signal that arrives inside a SCIP callback stops that search instead
    (see :func:`_raise_interrupt`).  Ignored signals stay ignored.  The previous handlers are restored on exit
    (the command line can be called in-process, e.g. by tests).
    """
    clear_last_signal()
    _asked.clear()
    if not _can_install():
        yield
        return
    with _handling(_raise_interrupt):
        yield
