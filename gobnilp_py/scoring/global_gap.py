"""The ``global_gap`` pruning rule, applied after the walk: drop ``(v, W)`` with ``best(v) - s > ε + UB - LB``.

``UB`` is the sum of every variable's best family, ``LB`` the score of some DAG: given by the user,
or found by the ``lower_bound="auto"`` finder (:mod:`.bounds`).  A job of its own after the walk
(:mod:`.engine`): the rule needs the finished lists of every variable (``docs/pruning.md``).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from ..errors import ScoreError
from . import pruning as P
from .bounds import auto_lower_bound_finder

__all__ = ["apply_global_gap"]

log = logging.getLogger("gobnilp_py.scoring.engine")  # the scorer's logger: its warnings read as scoring's


def apply_global_gap(kept: list[list[tuple[tuple[int, ...], float]]], counters: list[dict[str, int]],
                      names: tuple[str, ...], eps: float, lower_bound: float | str,
                      lb_given: float | None, keep_all: frozenset[int], meta: dict[str, Any]) -> None:
    """Rule ``global_gap`` after the walk: drop ``(v, W)`` with ``best(v) - s > ε + UB - LB``."""
    best = [max(s for _, s in fams) for fams in kept]
    ub = math.fsum(best)
    if lb_given is None:
        if keep_all:
            log.warning("global gap rule skipped: lower_bound='auto' is not valid under structural constraints")
            meta["global_gap"] = "skipped (unpruned variables: constraints)"
            return
        lb, source = auto_lower_bound_finder()(names, kept)
        meta["lower_bound_source"] = source
    else:
        lb = lb_given
        meta["lower_bound_source"] = "given"
    tol = P.tolerance(ub, lb)
    if lb > ub + tol:
        raise ScoreError(f"lower_bound {lb} exceeds the upper bound {ub} of every network: it cannot "
                         f"be the score of a network for this data and score")
    gap = max(0.0, ub - lb)
    meta["lower_bound"] = lb
    meta["upper_bound"] = ub
    for v, fams in enumerate(kept):
        counters[v].setdefault("global_gap", 0)
        if v in keep_all:
            continue
        # The empty set stays (as with every other rule), so each variable keeps a family
        # that can never close a cycle: engines and heuristics rely on it.
        keep = [(ps, s) for ps, s in fams if not ps or not P.global_gap(best[v], s, eps, gap, ub, lb)]
        counters[v]["global_gap"] += len(fams) - len(keep)
        kept[v] = keep
