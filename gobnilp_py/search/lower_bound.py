"""``lower_bound="auto"``: the score of a DAG found quickly from the walk's families.

The best of scoring's greedy sink heuristic, the search package's ``sink_order``
polished by ``best_for_order``, and the ASOBS incumbent
(:func:`gobnilp_py.search.incumbent.quick_incumbent`, a deterministic budget of
orders).  Every candidate is the score of a network of the table, so LB never
exceeds the optimum and the global gap rule stays exact.  Scoring reaches this
through its hook (:mod:`gobnilp_py.scoring.bounds`), installed by the package,
so the walk never imports the search engines.
"""

from __future__ import annotations

import math

import numpy as np

from ..scoring.heuristic import greedy_dag
from ..scoring.table import ScoreTable
from .family_index import FamilyIndex
from .incumbent import quick_incumbent
from .orders import best_for_order, sink_order

__all__ = ["heuristic_lower_bound"]


def heuristic_lower_bound(names: tuple[str, ...],
                          kept: list[list[tuple[tuple[int, ...], float]]]) -> tuple[float, str]:
    """``(LB, source)``: the best of the two sink heuristics and ASOBS on the families ``kept``."""
    lb, _ = greedy_dag(kept)
    source = "sink heuristic (scoring)"
    table = ScoreTable(names, [list(f) for f in kept])  # sorts best first
    index = FamilyIndex.from_table(table)
    choice = sink_order(index, np.zeros(index.F))
    if choice is not None:
        choice = best_for_order(index, choice)
        other = math.fsum(float(index.score[f]) for f in choice.tolist())
        if other > lb:
            lb, source = other, "sink_order + best_for_order (search)"
    inc = quick_incumbent(table)
    if inc is not None and inc.score > lb:
        lb, source = inc.score, f"ASOBS, {inc.orders} orders (search)"
    return lb, source
