"""``verify=True``: the same problem solved again by a second exact method, which must agree.

Which second method.  Among the exact methods that can perform the task, honour the
constraints and take this many variables, those whose work is bounded by the
number of variables (the subset lattice: the order graph, the subset DP) come
first while the problem is within ``auto``'s order-graph range
(:data:`~.methods.ORDERGRAPH_AUTO_MAX`); the ILP, whose time depends on its LP
relaxation, comes after.  Why: the registry order put the ILP first, and on
mushroom (22 variables) the order graph proves the optimum in 0.7 s where the
ILP had not in 300 s, so ``verify=True`` turned a one-second run into one that
did not end.  A method that refuses the problem (its memory estimate is over
the budget) is passed over for the next.

Time.  ``time_limit`` covers the whole call, the cross-check included: the
second method gets what is left.  When a limit stops it (the time limit,
an interrupt, the order graph's budget of open states), the result keeps
what the first method proved and says, in a caveat and in
``stats["verification"]``, that it was not verified; a disagreement is an
error (:class:`~gobnilp_py.errors.SolverError`).  The second method runs
with its defaults (no SCIP ``params``, no gap), so any other status it
returns is a disagreement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ..errors import ScoreError, SolverError
from .methods import METHODS, ORDERGRAPH_AUTO_MAX, Method, _available, engine_module
from .results import rank_entries, take_reuse, tolerance_of

__all__ = ["second_methods", "verify_optimum", "verify_collection", "mark_unverified", "stopped_by_limit",
           "deadline_of", "seconds_left"]


def second_methods(used: str, task: str, n: int, kinds: frozenset[str]) -> list[Method]:
    """The exact methods other than ``used`` that can check ``task`` on ``n`` variables, in the order to try."""
    able = [m for m in METHODS.values()
            if m.name != used and m.exact and task in m.tasks and _available(m)
            and not m.supports_constraints(kinds) and (m.max_variables is None or n <= m.max_variables)]

    def lattice_bounded(m: Method) -> bool:
        return m.max_variables is not None and n <= min(m.max_variables, ORDERGRAPH_AUTO_MAX)

    return sorted(able, key=lambda m: not lattice_bounded(m))        # stable: registry order otherwise


def mark_unverified(result: Any, reason: str) -> None:
    """Label ``result`` (a Network or a CredibleSet) as not cross-checked, and why."""
    result.stats["verification"] = f"incomplete: {reason}"
    note = f"not verified: {reason}"
    if isinstance(result.caveats, list):
        result.caveats.append(note)
    else:
        result.caveats = (*result.caveats, note)


def seconds_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (a :func:`time.perf_counter` instant; negative once past), ``None`` without one."""
    return None if deadline is None else deadline - time.perf_counter()


def stopped_by_limit(status: str, deadline: float | None) -> bool:
    """True when a limit, not the problem, ended the second method's search (``no_solution``: none found in
    time; ``memory_limit``: the order graph's collection stopped at its budget of open states)."""
    return status in ("time_limit", "interrupted", "memory_limit") or (
        status == "no_solution" and deadline is not None and time.perf_counter() >= deadline)


def _options(m: Method, memory_budget: int | None) -> dict[str, Any]:
    return {"memory_budget": memory_budget} if memory_budget is not None and "memory_budget" in m.options else {}


def _cross_check(result: Any, used: str, task: str, n: int, kinds: frozenset[str], deadline: float | None,
                 run: Callable[[Method, float | None], tuple[str, Any]], agree: Callable[[Method, str, Any], None],
                 *, start: str, doing: str, claim: str) -> None:
    """Try the second methods in turn until one answers: ``run(method, seconds left)`` gives its
    status and answer (a :class:`ScoreError` means it refused the problem: the next one is tried),
    ``agree`` raises :class:`SolverError` unless that answer matches ``result``."""
    refused: list[str] = []
    for other in second_methods(used, task, n, kinds):
        left = seconds_left(deadline)
        if left is not None and left <= 0:
            mark_unverified(result, f"the time limit was reached before {other.name} could {start} ({claim} by "
                                    f"{used} alone)")
            return
        try:
            status, answer = run(other, left)
        except ScoreError as e:          # refused before searching (memory estimate over the budget)
            refused.append(f"{other.name}: {e}")
            continue
        if stopped_by_limit(status, deadline):
            mark_unverified(result, f"{other.name} stopped ({status}) before {doing} ({claim} by {used} alone)")
            return
        agree(other, status, answer)
        result.stats["verified_by"] = other.name
        return
    why = f" ({'; '.join(refused)})" if refused else ""
    verb = "solve" if task == "optimum" else "collect"
    raise SolverError(f"verification impossible: no second exact method can {verb} this problem besides {used!r}{why}")


def verify_optimum(net: Any, table: Any, cons: Any, used: str, kinds: frozenset[str], *, score: float | None = None,
                   deadline: float | None = None, memory_budget: int | None = None) -> None:
    """Solve ``table`` again with a second exact method; raise if its optimum differs from ``score``
    (``net.score`` by default: the first method's optimum of ``table``)."""
    expected = net.score if score is None else score

    def run(other: Method, left: float | None) -> tuple[str, Any]:
        sol = engine_module(other).optimum(table, constraints=cons if other.constraint_kinds is None else None,
                                           time_limit=left, **_options(other, memory_budget))
        sol.reuse = None                 # kept for a collection that does not follow
        return sol.status, sol

    def agree(other: Method, status: str, sol: Any) -> None:
        if status != "optimal" or abs(sol.score - expected) > tolerance_of(expected):
            raise SolverError(f"verification failed: method {used!r} found {expected!r}, method "
                              f"{other.name!r} found {sol.score!r} ({status})")

    _cross_check(net, used, "optimum", table.n, kinds, deadline, run, agree, start="cross-check the optimum",
                 doing="proving its optimum", claim="the optimum is proven")


def verify_collection(cs: Any, table: Any, cons: Any, used: str, kinds: frozenset[str], eps: float, *,
                      deadline: float | None = None, memory_budget: int | None = None) -> None:
    """Collect ``table`` again with a second exact method; raise unless it finds exactly ``cs``'s networks."""

    def run(other: Method, left: float | None) -> tuple[str, Any]:
        row_cons = cons if other.constraint_kinds is None else None
        engine, opts = engine_module(other), _options(other, memory_budget)
        sol = engine.optimum(table, constraints=row_cons, time_limit=left, **opts)
        if sol.status != "optimal":
            return sol.status, None
        left = seconds_left(deadline)
        if left is not None and left <= 0:
            return "time_limit", None
        col = engine.epsilon_set(table, opt=sol.score, epsilon=eps, constraints=row_cons, max_networks=None,
                                 time_limit=left, **take_reuse(sol, table), **opts)
        return col.reason or "optimal", rank_entries(table, col.entries, sol.score)

    def agree(other: Method, status: str, theirs: Any) -> None:
        if status != "optimal":
            raise SolverError(f"verification failed: method {other.name!r} could not collect the set ({status})")
        mine, keys = {n.key for n in cs.networks}, {n.key for n in theirs}
        if mine != keys:
            raise SolverError(f"verification failed: method {used!r} found {len(mine)} networks, method "
                              f"{other.name!r} found {len(keys)} ({len(mine ^ keys)} differ)")

    _cross_check(cs, used, "epsilon_set", table.n, kinds, deadline, run, agree, start="collect again",
                 doing="collecting every network again", claim="the set is proven complete")


def deadline_of(time_limit: float | None, t_start: float) -> float | None:
    """The perf-counter instant a call started at ``t_start`` with ``time_limit`` seconds must end by."""
    return None if time_limit is None or not math.isfinite(time_limit) else t_start + time_limit
