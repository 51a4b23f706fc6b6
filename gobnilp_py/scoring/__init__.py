"""Scoring: local scores, vectorised counting, ε-safe pruning and the score table.

The entry point is :func:`score`, which turns a :class:`~gobnilp_py.data.Dataset`
into a :class:`ScoreTable` holding every parent set a network within ε of the
optimum can use.
"""

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
