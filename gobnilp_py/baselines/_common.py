"""Shared plumbing of the k-best baselines: tables from data, ranking, results.

Every k-best method needs a score table that holds every family of every one
of the k best networks.  A table pruned for a gap ε holds every family of every
network within ε of the optimum, so if the k-th best network of the pruned
table lies within ε, the pruned table's k best are the true k best; otherwise
we rescore with a larger ε (the same argument as
:func:`gobnilp_py.solve.enumerate.kbest`, repeated here so the baselines do not
depend on that module's private helpers).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ScoreError
from ..network import Network
from ..scoring.table import ScoreTable
from ..solve.credible import CredibleSet

__all__ = ["check_k", "is_table", "load_table", "canonical_result", "with_rescoring", "unpruned",
           "network_of"]

_log = logging.getLogger("gobnilp_py")

#: Relative tolerance deciding "same score" (ties) and the boundary of the table's ε.
REL_TOL = 1e-9

#: A run of one method on one table: ``(entries, complete, reason, stats)`` where every entry is
#: ``(score, chosen)`` and ``chosen[v]`` indexes ``table.families[v]``.
Entries = list[tuple[float, tuple[int, ...]]]


def check_k(k: Any) -> int:
    """``k`` as a positive int, else a one-line :class:`ScoreError`."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ScoreError(f"k must be a positive integer, got {k!r}")
    return k


def check_time_limit(time_limit: Any) -> float | None:
    """``time_limit`` as positive seconds or ``None``."""
    if time_limit is None:
        return None
    try:
        t = float(time_limit)
    except (TypeError, ValueError):
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}") from None
    if not t > 0:
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    return t


def is_table(obj: Any) -> bool:
    """True for a :class:`ScoreTable` or a ``.jkl`` path."""
    return isinstance(obj, ScoreTable) or (isinstance(obj, (str, Path)) and Path(obj).suffix.lower() == ".jkl")


def load_table(obj: Any) -> ScoreTable:
    """The table itself, or the ``.jkl`` file read."""
    return obj if isinstance(obj, ScoreTable) else ScoreTable.from_jkl(obj)


def unpruned(table: ScoreTable) -> bool:
    """True if the table's ``pruning`` record says no rule removed a parent set.

    Such a table is exact for every gap, so its k best are the true k best
    whatever the gap of the k-th network.
    """
    return bool(table.pruning) and not any(int(c) for rules in table.pruning.values() for c in rules.values())


def network_of(table: ScoreTable, chosen: Sequence[int], status: str = "optimal") -> Network:
    """The :class:`Network` choosing ``table.families[v][chosen[v]]`` for every node ``v``."""
    names = table.names
    parents = {}
    local = {}
    for v, c in enumerate(chosen):
        ps, sc = table.families[v][int(c)]
        parents[names[v]] = tuple(names[p] for p in ps)
        local[names[v]] = sc
    return Network(names, parents, math.fsum(local.values()), status=status, local_scores=local)


def canonical_result(table: ScoreTable, entries: Entries, k: int, *, complete: bool, reason: str | None,
                     stats: dict[str, Any]) -> CredibleSet:
    """A ``kind="kbest"`` :class:`CredibleSet` of the best ``k`` entries in canonical order.

    Scores are recomputed with :func:`math.fsum` from the local scores (so the
    three methods report bit-identical scores for the same network); order is
    score descending, then :attr:`Network.key`.
    """
    nets = [network_of(table, chosen) for _, chosen in entries]
    seen: set[Any] = set()
    unique = []
    for net in nets:
        if net.key in seen:  # a method returning one network twice is a bug: fail loudly
            raise ScoreError(f"k-best method returned network {net.to_modelstring()} twice")
        seen.add(net.key)
        unique.append(net)
    unique.sort(key=lambda net: (-net.score, net.key))
    top = unique[:k]
    if not top:
        return CredibleSet(math.nan, math.nan, complete, reason, [], kind="kbest", stats=stats)
    opt = top[0].score
    tol = REL_TOL * max(1.0, abs(opt))
    for net in top:
        if net.score < opt - tol:
            net.status = "feasible"  # proven k-best member, but not an optimal network
    return CredibleSet(opt, opt - top[-1].score, complete, reason, top, tolerance=tol, kind="kbest", stats=stats)


def with_rescoring(data_or_table: Any, k: int, run: Callable[[ScoreTable, float | None], CredibleSet], *,
                   initial_epsilon: float, scoring_options: dict[str, Any],
                   time_limit: float | None) -> CredibleSet:
    """Run ``run(table, remaining_seconds)`` on a table that provably holds the k best networks.

    A given table (or ``.jkl`` file) is used as is.  Data are scored for a gap
    ε (``initial_epsilon`` first); while the k-th network found lies further
    than ε below the optimum (or fewer than k networks exist in the pruned
    table), ε is doubled and the data rescored.
    """
    from ..data import Dataset, read_data
    from ..scoring import score

    t0 = time.perf_counter()
    if is_table(data_or_table):
        if scoring_options:
            raise ScoreError(f"scoring options {sorted(scoring_options)} need data, not a score table")
        cs = run(load_table(data_or_table), time_limit)
        cs.stats.setdefault("rounds", 1)
        return cs
    if not (math.isfinite(initial_epsilon) and initial_epsilon > 0):
        raise ScoreError(f"initial_epsilon must be a positive finite number, got {initial_epsilon!r}")
    data = data_or_table if isinstance(data_or_table, Dataset) else read_data(data_or_table)
    eps = float(initial_epsilon)
    rounds = 0
    time_scoring = 0.0
    while True:
        rounds += 1
        ts = time.perf_counter()
        table = score(data, epsilon=eps, **scoring_options)
        time_scoring += time.perf_counter() - ts
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if remaining is not None and remaining <= 0:
            return CredibleSet(math.nan, math.nan, False, "time_limit", [], kind="kbest",
                               stats={"rounds": rounds, "time_scoring": time_scoring})
        cs = run(table, remaining)
        done = (not cs.complete or unpruned(table) or not scoring_options.get("prune", True)
                or (len(cs) == k and cs.epsilon <= eps))
        if done:
            cs.stats.update({"rounds": rounds, "table_epsilon": eps, "time_scoring": time_scoring,
                             "time_total": time.perf_counter() - t0})
            return cs
        gap = cs.epsilon if len(cs) == k else 2 * eps
        _log.info("k-th best network lies beyond the table's epsilon %.4g (or too few networks): rescoring", eps)
        eps = max(2 * eps, 1.01 * gap)
