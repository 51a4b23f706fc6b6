"""Where ``lower_bound="auto"`` comes from: a finder plugged into scoring from above.

Why a hook: the global gap rule (``docs/pruning.md``) needs LB, the score of some
DAG, and the strongest quick ones are the search package's heuristics (sink
orders on a :class:`~gobnilp_py.search.family_index.FamilyIndex`, the ASOBS
incumbent), which sit a layer above scoring.  Scoring therefore names what it
needs -- a function from the walk's kept families to ``(LB, source)`` -- and the
package wires the search heuristics in as the default when ``gobnilp_py`` loads
(:mod:`gobnilp_py.search.lower_bound`), so scoring never imports the engines and
``score(..., lower_bound="auto")`` behaves as it always did.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LowerBoundFinder", "set_auto_lower_bound", "auto_lower_bound_finder"]

#: ``finder(names, kept) -> (LB, source)``: ``kept[v]`` lists ``(parent set, score)`` of variable ``v``
#: (indices into ``names``); LB must be the score of a DAG built from those families (so ``LB <= OPT``).
LowerBoundFinder = Callable[[tuple[str, ...], list[list[tuple[tuple[int, ...], float]]]], tuple[float, str]]

_auto: LowerBoundFinder | None = None


def set_auto_lower_bound(finder: LowerBoundFinder) -> None:
    """Install the finder that ``lower_bound="auto"`` runs (the package installs the search heuristics)."""
    global _auto
    _auto = finder


def auto_lower_bound_finder() -> LowerBoundFinder:
    """The installed finder; scoring's own greedy DAG when none is (scoring used without the package facade)."""
    if _auto is not None:
        return _auto
    from .heuristic import greedy_dag

    def greedy_only(names: tuple[str, ...], kept: list[list[tuple[tuple[int, ...], float]]]) -> tuple[float, str]:
        return greedy_dag(kept)[0], "sink heuristic (scoring)"

    return greedy_only

