"""Scoring: local scores, vectorised counting, ε-safe pruning and the score table.

The entry point is :func:`score`, which turns a :class:`~gobnilp_py.data.Dataset`
into a :class:`ScoreTable` holding every parent set a network within ε of the
optimum can use.

Its names are imported on first use (:mod:`gobnilp_py._lazy`): a network, a
constraint set or a ``.jkl`` table needs :mod:`.table` alone, not numpy's
counting, the process pool of :mod:`.parallel` or the score classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .candidates import immediate_subsets, next_level
    from .counts import FamilyCounts, ParentConfigs
    from .engine import DEFAULT_MAX_CANDIDATES, DEFAULT_MEMORY_LIMIT, active_rules, resolve_epsilon, score
    from .local_scores import (
        AIC,
        BIC,
        SCORES,
        BatchScores,
        BDeu,
        BDs,
        CallableScore,
        DirichletScore,
        K2,
        SCORE_ALIASES,
        LocalScore,
        PenalisedLL,
        make_score,
        register_score,
        resolve_score_name,
        score_names,
    )
    from .pruning import RTOL, RULES
    from .table import Family, ScoreTable

#: Public name -> the submodule it is imported from on first use.
_LAZY: dict[str, str] = {
    "immediate_subsets": ".candidates", "next_level": ".candidates", "FamilyCounts": ".counts",
    "ParentConfigs": ".counts", "DEFAULT_MAX_CANDIDATES": ".engine", "DEFAULT_MEMORY_LIMIT": ".engine",
    "active_rules": ".engine", "resolve_epsilon": ".engine", "score": ".engine", "AIC": ".local_scores",
    "BIC": ".local_scores", "SCORES": ".local_scores", "BatchScores": ".local_scores", "BDeu": ".local_scores",
    "BDs": ".local_scores", "CallableScore": ".local_scores", "DirichletScore": ".local_scores",
    "K2": ".local_scores", "SCORE_ALIASES": ".local_scores", "LocalScore": ".local_scores",
    "PenalisedLL": ".local_scores", "make_score": ".local_scores", "register_score": ".local_scores",
    "resolve_score_name": ".local_scores", "score_names": ".local_scores", "RTOL": ".pruning", "RULES": ".pruning",
    "Family": ".table", "ScoreTable": ".table",
}

__all__ = [
    "score",
    "resolve_epsilon",
    "DEFAULT_MAX_CANDIDATES",
    "DEFAULT_MEMORY_LIMIT",
    "active_rules",
    "ScoreTable",
    "Family",
    "LocalScore",
    "PenalisedLL",
    "BIC",
    "AIC",
    "BDeu",
    "K2",
    "BDs",
    "DirichletScore",
    "CallableScore",
    "BatchScores",
    "SCORES",
    "SCORE_ALIASES",
    "score_names",
    "resolve_score_name",
    "register_score",
    "make_score",
    "ParentConfigs",
    "FamilyCounts",
    "next_level",
    "immediate_subsets",
    "RTOL",
    "RULES",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
