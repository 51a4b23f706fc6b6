"""How a scoring walk is shared out under ``memory_limit``: the worker processes' share
(:func:`_reserve_workers`) and the batches of children walked together (:func:`_walk_in_batches`,
halved while a batch does not fit), with the table truncated after a stop by the time limit
(:func:`_truncate`).

Why apart from the walks: the splitting and retrying does not depend on which walk runs
(:mod:`.lattice_walk` or :mod:`.walk_python`); it only catches their budget stops.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .._memory import format_bytes, give_back_freed_memory
from ..errors import ScoreError
from .parallel import Payload, ScoringDeadline
from .pool import LevelScorer, worker_bytes
from .walk_state import _OutOfTime, _OverBudget, _Run


#: The scorer's logger (as :mod:`.global_gap` does): the walk's messages read as scoring's, as before the split.
log = logging.getLogger("gobnilp_py.scoring.engine")


def _reserve_workers(scorer: LevelScorer, payload: Payload, mem: float, backend: str) -> float:
    """The lattice walk's share of ``memory_limit`` once the local worker processes have theirs.

    ``memory_limit`` bounds what scoring holds in the whole process tree: the walk in this process and each
    worker's own memory (:func:`~gobnilp_py.scoring.pool.worker_bytes`).  Workers may take at most half of
    it; a limit too small for the workers asked for starts fewer (one or none: scoring in-process), and says so.
    Dask workers run elsewhere and are not counted.
    """
    if backend != "processes" or scorer.n_jobs <= 1:
        return mem
    each = worker_bytes(payload)
    fit = int((mem / 2) // each)
    if fit < scorer.n_jobs:
        if fit <= 1:
            log.warning("memory_limit %s leaves no room for scoring worker processes (each may hold about %s): "
                        "scoring in-process", format_bytes(mem), format_bytes(each))
        else:
            log.warning("memory_limit %s leaves room for %d scoring worker processes (each may hold about %s), "
                        "not %d", format_bytes(mem), fit, format_bytes(each), scorer.n_jobs)
        scorer.n_jobs = max(1, fit)
    return mem - (scorer.n_jobs * each if scorer.n_jobs > 1 else 0)


def _truncate(kept: list[list[tuple[tuple[int, ...], float]]], truncated: dict[int, int]) -> None:
    """Keep each truncated child's parent sets of at most its complete size (the level cut short goes)."""
    for v, size in truncated.items():
        kept[v] = [f for f in kept[v] if len(f[0]) <= size]


def _walk_in_batches(walk: Callable[..., tuple[int, list[int]]], run: _Run, res0: Any, limit: int,
                     n: int) -> tuple[int, list[int], int]:
    """Walk all children together; when that would exceed the memory budget, halve the batch.

    All children in one walk share the counting of each parent set; separate
    batches hold only their own candidates, so the peak memory falls with the
    batch size.  The table's families do not depend on the batching (a set a
    bound rule removes is dominated anyway, see ``docs/pruning.md``); only the
    rule counters and the work done can.  One child alone over the budget is a
    one-line :class:`ScoreError`.
    """
    pending = [list(range(n))]
    n_scored = 0
    per_level: list[int] = [n]
    batches = 0
    while pending:
        batch = pending.pop(0)
        give_back_freed_memory()         # a batch given up: its arrays are freed, return them before measuring
        snap_kept = {v: list(run.kept[v]) for v in batch}
        snap_cnt = {v: dict(run.counters[v]) for v in batch}
        run.active = frozenset(batch)
        run.growing = frozenset()
        try:
            ns, pl = walk(run, res0, limit)
        except (_OutOfTime, ScoringDeadline):
            # The level being built is dropped: the children still growing keep their complete sizes, the
            # children of batches not walked yet their empty set only (level 0, scored for everyone).
            truncated = {v: max(run.level - 1, 0) for v in run.growing & run.active}
            for later in pending:
                truncated.update(dict.fromkeys(later, 0))
            run.truncated = truncated
            batches += 1
            ns, pl = run.done_so_far       # the complete levels of this batch
            n_scored += ns - pl[0]
            per_level += [0] * (len(pl) - len(per_level))
            for k in range(1, len(pl)):
                per_level[k] += pl[k]
            break
        except (_OverBudget, MemoryError) as exc:
            # MemoryError: the system refused an allocation below the budget (an address-space cap, other
            # processes); numpy fails cleanly, so a smaller batch may still fit -- else one line, no traceback.
            message = str(exc) if isinstance(exc, _OverBudget) else (
                f"scoring ran out of memory at parent-set size {run.level} (variable "
                f"{run.names[batch[0]]!r}{' and others' if len(batch) > 1 else ''}) although the estimate was "
                f"within memory_limit {format_bytes(run.memory_limit)}: the system has less memory available than "
                "that; set palim or a lower memory_limit")
            if len(batch) == 1:
                raise ScoreError(message) from None
            for v in batch:
                run.kept[v] = snap_kept[v]
                run.counters[v] = snap_cnt[v]
            half = (len(batch) + 1) // 2
            log.info("memory budget: scoring %d children in two batches", len(batch))
            pending[:0] = [batch[:half], batch[half:]]
            continue
        batches += 1
        # pl[0] is level 0 (the empty set, scored once for every child before the walk)
        n_scored += ns - pl[0]
        per_level += [0] * (len(pl) - len(per_level))
        for k in range(1, len(pl)):
            per_level[k] += pl[k]
    per_level[0] = n
    n_scored += n
    return n_scored, per_level, batches
