"""Job-level progress: phases with timings, a live status line on a terminal, a heartbeat elsewhere.

A run goes through phases (reading, scoring, solving, summarising, writing).
:class:`Progress` announces each phase and its time on stderr (stdout stays
clean for results) and records each phase's wall time for the report.

Inside a long phase the engines report through the hook, calling the object
itself (``progress(phase, done, total, **figures)``); each kind of call gets
a total that means something:

``progress("scoring", k, max_k, families=n)``
    Scoring walks the parent-set lattice level by level: a bar over levels
    (parent sets of size ``k`` done, of at most ``max_k``: pruning often ends
    the walk sooner) and the families scored.  Within a level built in pieces,
    ``progress("scoring", k - 1, max_k, families=n, level=k, pieces=p,
    pieces_done=i)`` gives the pieces done, from which the end of *this* level
    is estimated; later levels are unknown (their sizes depend on the pruning),
    and the line says so.
``progress("search", 0, None, stage=s, method=m)``
    A driver starts a search stage (``"optimum"``, ``"collection"``, ``"k
    best"``): the line says so, so the last scoring report is not left on
    screen as if scoring were still running.  No engine estimates its own
    end, so the line gives the time limit's bound, or "ETA unknown".
``progress("collecting", found, cap, bound=b, elapsed=t, target=τ)``
    Collection has no total number of networks (the cap is a safety limit,
    not an expected count, so it is never drawn as a bar): shown are the
    networks found, the search's bound ``b`` (SCIP's dual bound; no network
    left to find scores above it) and the target ``τ = OPT − ε`` it must
    fall below for the search to end, and the bar is the share of the way
    from the first bound seen to the target.  The target is ``target=``, or
    ``opt=`` and ``epsilon=``, or what :meth:`Progress.set_target` was told.
``progress("order graph", layer, n, nodes=m)``
    The order graph is built layer by layer, layer ``k`` holding the
    ``C(n, k)`` subsets of size ``k``: the bar is the share of all ``2^n``
    subsets in the layers done, not ``layer / n``, since the middle layers
    hold nearly all of them.
anything else
    ``done`` of ``total`` (a bar when the total is known).

When no report has come for a few seconds the status line says how long ago
the last one was, so work no engine reports on (solving for OPT between
scoring and collecting, say) is not mistaken for the last reported step.

Every line ends with an estimate of the time left, honest when there is none:
``~1:20 left`` when the work done and left give one (pieces of a scoring
level, the bound's way to the target and the networks against the cap in a
collection, the subsets of the order graph's layers), ``ETA unknown``
otherwise, and ``limit in 0:25`` when a time limit (:attr:`Progress.deadline`)
will end the phase sooner than the estimate, or when there is none.  An
estimate is extrapolated from the pace so far, so it is shown only after
:data:`ETA_MIN_SECONDS` and 2% of the work.

On a terminal (``stream.isatty()``) this is one status line rewritten in
place (at most ten times a second, and every second so the clock moves) and
cleared when the phase ends.  Elsewhere (a log file, a pipe) there is no
status line; a heartbeat line every ``heartbeat`` seconds says how long the
phase has run and, from the last hook call, where it is.  ``enabled=False``
(``--quiet``) prints nothing; ``enabled="auto"`` prints only on a terminal
(quiet when stderr is piped).  Timings are recorded in every mode.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["Progress", "PHASES", "describe"]

log = logging.getLogger("gobnilp_py")

#: The phases of a job, in order.
PHASES = ("reading", "scoring", "solving", "summarising", "writing")

_BAR = 20
#: Seconds after which the status line says how old its last report is.
_STALE = 3.0
#: Seconds of work (and share of it, 2%) before a pace is extrapolated into an estimate of the time left.
ETA_MIN_SECONDS = 2.0
_ETA_MIN_SHARE = 0.02


def _clock(seconds: float) -> str:
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def _bar(fraction: float, width: int = _BAR) -> str:
    f = min(max(fraction, 0.0), 1.0)
    full = int(round(f * width))
    return "[" + "#" * full + "." * (width - full) + f"] {100 * f:3.0f}%"


def _num(x: Any) -> str:
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.4f}" if math.isfinite(x) else str(x)
    return str(x)


@dataclass
class _Report:
    """The last hook call of one inner phase, and what is remembered across its calls."""

    phase: str
    done: int = 0
    total: int | None = None
    info: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    last: float = field(default_factory=time.perf_counter)
    first_bound: float | None = None
    first_bound_at: float | None = None
    level: int | None = None          # scoring: the level being built
    level_started: float = field(default_factory=time.perf_counter)


def describe(phase: str, done: int, total: int | None, info: Mapping[str, Any], *,
             target: float | None = None, first_bound: float | None = None,
             elapsed: float | None = None) -> tuple[str, float | None]:
    """The text of a hook call and its bar fraction (``None``: no bar).

    Examples
    --------
    >>> describe("scoring", 2, 4, {"families": 1234})
    ('scoring: level 2 of <=4, 1,234 families', 0.5)
    >>> text, f = describe("collecting", 1085, 150000, {"bound": -10.5}, target=-12.0, first_bound=-9.0)
    >>> text
    'collecting: 1,085 networks, bound -10.50 -> target -12.00'
    >>> f
    0.5
    >>> describe("order graph", 1, 3, {"nodes": 3})[1]  # 1 + 3 of the 8 subsets
    0.5
    """
    when = f", {_clock(elapsed)}" if elapsed is not None else ""
    if phase == "scoring":
        frac = done / total if total else None
        building = info.get("level")
        shown = int(building) if building is not None else done
        level = f"level {shown} of <={total}" if total else f"level {shown}"
        if building is not None and info.get("pieces"):
            level += f" (piece {int(info.get('pieces_done', 0)) + 1} of {int(info['pieces'])})"
        fam = info.get("families")
        extra = f", {_num(int(fam))} families" if fam is not None else ""
        return f"scoring: {level}{extra}{when}", frac
    if phase == "search":
        stage = str(info.get("stage", "search"))
        method = f" ({info['method']})" if info.get("method") else ""
        what = {"optimum": "searching for the optimum", "collection": "collecting",
                "k best": "searching for the k best"}.get(stage, stage)
        return f"{what}{method}{when}", None
    if phase == "collecting":
        parts = [f"collecting: {_num(int(done))} network{'s' if done != 1 else ''}"]
        bound = info.get("bound")
        if target is None and info.get("opt") is not None and info.get("epsilon") is not None:
            target = float(info["opt"]) - float(info["epsilon"])
        if target is None and info.get("target") is not None:
            target = float(info["target"])
        frac = None
        if isinstance(bound, (int, float)) and math.isfinite(bound):
            if target is not None and math.isfinite(target):
                parts.append(f"bound {float(bound):,.2f} -> target {float(target):,.2f}")
                if first_bound is not None and first_bound > target:
                    frac = (first_bound - float(bound)) / (first_bound - target)
            else:
                parts.append(f"bound {float(bound):,.2f}")
        if total and done >= total / 2:  # the cap is a safety limit: worth a mention only when it is near
            parts.append(f"cap {_num(int(total))}")
        t = info.get("elapsed", elapsed)
        text = ", ".join(parts) + (f", {_clock(float(t))}" if isinstance(t, (int, float)) and math.isfinite(t) else "")
        return text, frac
    if phase == "order graph":
        n = int(total) if total else None
        frac = None
        if n:
            k = min(max(int(done), 0), n)
            frac = math.fsum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
        nodes = info.get("nodes")
        extra = f", {_num(int(nodes))} nodes" if nodes is not None else ""
        return f"order graph: layer {done}{f' of {n}' if n else ''}{extra}{when}", frac
    figures = ", ".join(f"{k} {_num(v)}" for k, v in info.items())
    head = f"{phase}: {_num(int(done))}" + (f" of {_num(int(total))}" if total else "")
    return head + (f", {figures}" if figures else "") + when, (done / total if total else None)


class Progress:
    """Phase lines and timings, a live status line on a terminal, a heartbeat elsewhere, and the hook.

    Parameters
    ----------
    phases : sequence of str
        The phases this job will go through (for the ``[i/n]`` counter).
    enabled : bool or "auto"
        Print anything at all (``False`` for ``--quiet``); ``"auto"`` prints
        only when ``stream`` is a terminal, or when the environment variable
        ``GOBNILP_PY_PROGRESS`` is set to a value other than ``0`` (progress
        lines in a log or a pipe).
    stream : text stream
        Where to print (default stderr).
    heartbeat : float
        Seconds between "still <phase>" lines when ``stream`` is not a
        terminal (0: never).
    time_limit : float, optional
        The search's time limit, so the heartbeat can say how much is used.
    refresh : float
        Shortest interval between two redraws of the status line.
    deadline : float, optional
        ``time.perf_counter()`` at which the command's time limit runs out
        (:attr:`gobnilp_py._budget.Budget.deadline`): every estimate of the time
        left is bounded by it (``limit in m:ss``).  May be set later.

    Examples
    --------
    >>> import io
    >>> p = Progress(("scoring",), stream=io.StringIO(), heartbeat=0)
    >>> with p.phase("scoring"):
    ...     p("scoring", 1, 2, families=10)
    >>> sorted(p.timings)
    ['scoring']
    """

    def __init__(self, phases: Sequence[str] = PHASES, *, enabled: bool | str = True, stream: TextIO | None = None,
                 heartbeat: float = 30.0, time_limit: float | None = None, prefix: str = "gobnilp-py",
                 refresh: float = 0.1, deadline: float | None = None) -> None:
        self.phases = tuple(phases)
        self.stream = stream if stream is not None else sys.stderr
        tty = _isatty(self.stream)
        if enabled == "auto":
            # GOBNILP_PY_PROGRESS=1 asks for phase lines and heartbeats in logs and pipes too
            enabled = tty or os.environ.get("GOBNILP_PY_PROGRESS", "") not in ("", "0")
        elif not isinstance(enabled, bool):
            from .errors import ConfigError

            raise ConfigError(f"The 'enabled' parameter of Progress must be True, False or 'auto'. Got {enabled!r} "
                              "instead.")
        self.enabled = enabled
        self.live = enabled and tty
        self.heartbeat = float(heartbeat)
        self.time_limit = time_limit
        self.prefix = prefix
        self.refresh = float(refresh)
        self.deadline = deadline
        self.timings: dict[str, float] = {}
        self.current: str | None = None
        self.target: float | None = None
        self._t_phase = time.perf_counter()
        self._t_start = time.perf_counter()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._lock = threading.RLock()
        self._report: _Report | None = None
        self._shown = ""  # the status line on screen ("" when none)
        self._t_drawn = -math.inf

    @classmethod
    def for_terminal(cls, phases: Sequence[str] = PHASES, *, quiet: bool = False,
                     time_limit: float | None = None, stream: TextIO | None = None,
                     deadline: float | None = None) -> "Progress":
        """What a command-line tool wants: silent with ``quiet``, else shown only on a terminal."""
        return cls(phases, enabled=False if quiet else "auto", time_limit=time_limit, stream=stream,
                   deadline=deadline)

    # ---------------------------------------------------------------- output
    def _width(self) -> int:
        return max(40, shutil.get_terminal_size((100, 24)).columns - 1)

    def _clear_line(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self._shown = ""

    def _say(self, text: str) -> None:
        """A permanent line (the status line, if any, is cleared first and redrawn after)."""
        if not self.enabled:
            return
        with self._lock:
            shown = self._shown
            self._clear_line()
            self.stream.write(f"{self.prefix}: {text}\n")
            if shown and self.current is not None:
                self._draw(force=True)
            self.stream.flush()

    def _counter(self, name: str) -> str:
        if name in self.phases:
            return f"[{self.phases.index(name) + 1}/{len(self.phases)}] "
        return ""

    def status_text(self) -> str:
        """The current status: the last hook call described, or the phase and its elapsed time."""
        now = time.perf_counter()
        rep = self._report
        if rep is None:
            name = self.current or "working"
            return f"{name}: {_clock(now - self._t_phase)}"
        since = self._t_phase if self.current is not None else rep.started
        text, frac = describe(rep.phase, rep.done, rep.total, rep.info, target=self.target,
                              first_bound=rep.first_bound, elapsed=now - since)
        text += ", " + self.eta_text(rep, frac, now)
        age = now - rep.last
        if age >= _STALE:  # the engine has moved on to work it does not report (e.g. solving for OPT)
            text = f"({age:.0f} s ago) {text}"
        narrow = self._width() < 100
        return (_bar(frac, 10 if narrow else _BAR) + " " if frac is not None else "") + text

    def estimate(self, rep: _Report, frac: float | None, now: float) -> tuple[float | None, str]:
        """Seconds left in the reported work, extrapolated from its pace (``None``: unknown), and its scope.

        Scoring: the pieces of the level being built (later levels are unknown: ``"in this level"``).
        Collecting: the sooner of the bound's way to the target and the networks' way to the cap.
        A search stage: unknown.  Anything else with a bar: the bar's share.
        """
        def pace(share: float | None, since: float) -> float | None:
            el = now - since
            if share is None or not 0 < share < 1 or share < _ETA_MIN_SHARE or el < ETA_MIN_SECONDS:
                return None
            return el * (1.0 - share) / share

        info = rep.info
        if rep.phase == "scoring":
            pieces, done = info.get("pieces"), info.get("pieces_done")
            if pieces and done and info.get("level") == rep.level:
                return pace(float(done) / float(pieces), rep.level_started), "in this level"
            return None, ""
        if rep.phase == "search":
            return None, ""
        if rep.phase == "collecting":
            guesses = []
            if rep.first_bound_at is not None:
                guesses.append(pace(frac, rep.first_bound_at))
            if rep.total and rep.done:
                guesses.append(pace(rep.done / rep.total, rep.started))
            known = [g for g in guesses if g is not None]
            return (min(known) if known else None), ""
        return pace(frac, rep.started), ""

    def eta_text(self, rep: _Report, frac: float | None, now: float) -> str:
        """``~1:20 left``, ``~0:40 left in this level, limit in 2:00``, ``limit in 0:25`` or ``ETA unknown``."""
        eta, scope = self.estimate(rep, frac, now)
        left = None if self.deadline is None else max(self.deadline - now, 0.0)
        parts = []
        if eta is not None and (left is None or eta < left):
            parts.append(f"~{_clock(eta)} left" + (f" {scope}" if scope else ""))
        if left is not None and (eta is None or eta >= left or scope):
            parts.append(f"limit in {_clock(left)}")
        if not parts:
            parts.append("ETA unknown")
        return ", ".join(parts)

    def _draw(self, force: bool = False) -> None:
        if not self.live:
            return
        now = time.perf_counter()
        if not force and now - self._t_drawn < self.refresh:
            return
        with self._lock:
            line = self.status_text()
            width = self._width()
            if len(line) > width:
                line = line[: width - 1] + "\u2026"
            self.stream.write("\r\x1b[K" + line)
            self.stream.flush()
            self._shown = line
            self._t_drawn = now

    # ---------------------------------------------------------------- phases
    @contextmanager
    def phase(self, name: str, detail: str = "") -> Iterator["Progress"]:
        """Time a phase, announce its start and end, and keep the status alive while it runs."""
        self._stop_heartbeat()  # a ticker started by bare hook calls before this phase
        self.current = name
        self._report = None
        self._t_phase = time.perf_counter()
        self._say(f"{self._counter(name)}{name}{': ' + detail if detail else ''} ...")
        self._start_heartbeat(name)
        ok = False
        try:
            yield self
            ok = True
        finally:
            self._stop_heartbeat()
            elapsed = time.perf_counter() - self._t_phase
            self.timings[name] = self.timings.get(name, 0.0) + elapsed
            with self._lock:
                if self.enabled:
                    self._clear_line()
                    self.stream.flush()
                self.current = None
                self._report = None
            if ok:
                self._say(f"{self._counter(name)}{name} done in {elapsed:.2f} s")
            log.debug("phase %s: %.3f s (%s)", name, elapsed, "ok" if ok else "failed")

    @property
    def elapsed(self) -> float:
        """Seconds since this object was made."""
        return time.perf_counter() - self._t_start

    def _start_heartbeat(self, name: str) -> None:
        if not self.enabled:
            return
        interval = 1.0 if self.live else self.heartbeat
        if interval <= 0:
            return
        self._stop = threading.Event()

        def beat() -> None:
            while not self._stop.wait(interval):
                if self.live:
                    self._draw(force=True)
                else:
                    self._say(self.status_line(name))

        self._beat = threading.Thread(target=beat, name="gobnilp-progress", daemon=True)
        self._beat.start()

    def _stop_heartbeat(self) -> None:
        if self._beat is not None:
            self._stop.set()
            self._beat.join(timeout=2.0)
            self._beat = None

    def status_line(self, name: str) -> str:
        """Where a running phase is: elapsed time, the share of the time limit used, the last hook report."""
        el = time.perf_counter() - self._t_phase
        text = f"still {name}: {el:.0f} s elapsed"
        if self.time_limit and name == "solving":
            used = min(el / self.time_limit, 1.0)
            text += (f", {100 * used:.0f}% of the {self.time_limit:g} s time limit "
                     f"(at most {max(self.time_limit - el, 0):.0f} s left)")
        if self._report is not None:
            text += "; " + self.status_text()
        return text

    # ---------------------------------------------------------------- the hook
    def set_target(self, opt: float, epsilon: float) -> None:
        """Tell the collection display its target ``OPT − ε`` (when the hook calls do not carry it)."""
        self.target = float(opt) - float(epsilon)

    def update(self, phase: str, done: int, total: int | None = None, **info: Any) -> None:
        """Progress within a phase: ``done`` of ``total`` items, plus named figures (see the module docstring)."""
        with self._lock:
            rep = self._report
            # a new phase or search stage is drawn at once, whatever the refresh: throttled away, the previous
            # stage's line (a scoring bar) would stay on screen through a fast stage (order-dependent timing)
            new_stage = rep is None or rep.phase != phase or rep.info.get("stage") != info.get("stage")
            if rep is None or rep.phase != phase:
                rep = self._report = _Report(phase)
            rep.done = int(done)
            rep.last = time.perf_counter()
            rep.total = None if total is None else int(total)
            rep.info = dict(info)
            if "target" in info and info["target"] is not None:
                self.target = float(info["target"])
            elif info.get("opt") is not None and info.get("epsilon") is not None:
                self.target = float(info["opt"]) - float(info["epsilon"])
            bound = info.get("bound")
            if rep.first_bound is None and isinstance(bound, (int, float)) and math.isfinite(bound):
                rep.first_bound = float(bound)
                rep.first_bound_at = rep.last
            if phase == "scoring":
                building = int(info.get("level", int(done) + 1))   # a finished level k starts level k + 1
                if rep.level != building:
                    rep.level, rep.level_started = building, rep.last
        if self.live:
            if self._beat is None and self.current is None:  # used as a bare callback: keep the clock moving
                self._start_heartbeat(phase)
            finished = total is not None and done >= total and phase != "collecting"
            self._draw(force=finished or new_stage)
        else:
            log.debug("%s: %d%s %s", phase, done, f"/{total}" if total is not None else "", info or "")

    def __call__(self, phase: str, done: int, total: int | None = None, **info: Any) -> None:
        """Alias of :meth:`update`, so the object itself can be passed as a callback."""
        self.update(phase, done, total, **info)

    def close(self) -> None:
        """Stop the heartbeat and clear the status line (for use as a bare callback, outside :meth:`phase`)."""
        self._stop_heartbeat()
        with self._lock:
            if self.enabled:
                self._clear_line()
                self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a file
        return False
