"""The engine protocol: what every search engine takes and returns, the ILP's and the search package's alike.

Why a protocol: the drivers (:mod:`gobnilp_py.solve`) run four engines through
one registry (:mod:`gobnilp_py.solve.methods`), which names a module per method;
the module *is* the engine.  What the drivers may rely on was written only in
that registry's docstring.  Here it is typed, so a new engine states what it
implements and ``tests/test_engine_protocol.py`` checks every registered method
against the tasks it declares.

An engine is a module (or any object) with one function per task it performs:

* ``optimum(table, *, time_limit=None, **options) -> Solution`` -- one optimal network;
* ``epsilon_set(table, *, opt, epsilon, max_networks=None, time_limit=None, **options) -> Collection``
  -- every network within ``epsilon`` of ``opt``;
* ``kbest(table, *, k, time_limit=None, **options) -> Collection`` -- the ``k`` best networks.

What they take: a :class:`~gobnilp_py.scoring.table.ScoreTable` already filtered by
the structural constraints that filtering can express (the drivers do that), the
remaining constraints as ``constraints=`` for an engine that honours every kind
(the registry's ``constraint_kinds=None``), a time budget in seconds
(``time_limit``, ``None`` for none), a ``progress`` callback where the engine
reports, and the method's own options as the registry lists them (unknown ones
are ignored by the search engines, which take ``**_ignored``).  What they return:
:class:`~gobnilp_py.search.results.Solution` or
:class:`~gobnilp_py.search.results.Collection`, in table positions, with the
shared status vocabulary (``"optimal"``, ``"time_limit"``, ``"memory_limit"``,
``"interrupted"``, ...), so the drivers label every engine's result alike.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..scoring.table import ScoreTable
    from .results import Collection, Solution

__all__ = ["OptimumEngine", "EpsilonSetEngine", "KBestEngine", "TASK_PROTOCOLS", "REQUIRED_KEYWORDS",
           "missing_parts"]


@runtime_checkable
class OptimumEngine(Protocol):
    """An engine that finds one optimal network (task ``"optimum"``)."""

    def optimum(self, table: ScoreTable, *, time_limit: float | None = None, **options: Any) -> Solution: ...


@runtime_checkable
class EpsilonSetEngine(Protocol):
    """An engine that collects every network within ε of the optimum (task ``"epsilon_set"``)."""

    def epsilon_set(self, table: ScoreTable, *, opt: float, epsilon: float, max_networks: int | None = None,
                    time_limit: float | None = None, **options: Any) -> Collection: ...


@runtime_checkable
class KBestEngine(Protocol):
    """An engine that lists the k best networks (task ``"kbest"``)."""

    def kbest(self, table: ScoreTable, *, k: int, time_limit: float | None = None, **options: Any) -> Collection: ...


#: Task name (as in the registry) -> the protocol an engine performing it implements.
TASK_PROTOCOLS: dict[str, type] = {"optimum": OptimumEngine, "epsilon_set": EpsilonSetEngine, "kbest": KBestEngine}

#: The keywords the drivers always pass to each task (besides the table and the method's own options).
REQUIRED_KEYWORDS: dict[str, tuple[str, ...]] = {
    "optimum": ("time_limit",),
    "epsilon_set": ("opt", "epsilon", "max_networks", "time_limit"),
    "kbest": ("k", "time_limit"),
}


def missing_parts(engine: Any, task: str, options: tuple[str, ...] = ()) -> list[str]:
    """What ``engine`` lacks to perform ``task`` with the method ``options`` (empty: it conforms).

    ``isinstance`` against a runtime-checkable protocol sees only that the function exists; this reads
    its signature too: the table first, then every keyword the drivers pass (by name, or a ``**``).
    """
    fn = getattr(engine, task, None)
    if fn is None or not callable(fn):
        return [f"no function {task}()"]
    params = inspect.signature(fn).parameters
    first = next(iter(params.values()), None)
    problems = []
    if first is None or first.kind not in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD):
        problems.append(f"{task}() does not take the table first")
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return problems
    for name in REQUIRED_KEYWORDS[task] + tuple(options):
        if name not in params:
            problems.append(f"{task}() takes no {name}=")
    return problems
