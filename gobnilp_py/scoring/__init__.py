"""Scoring: local scores, vectorised counting, ε-safe pruning and the score table.

The entry point is :func:`score`, which turns a :class:`~gobnilp_py.data.Dataset`
into a :class:`ScoreTable` holding every parent set a network within ε of the
optimum can use.
"""

from .candidates import immediate_subsets, next_level
from .counts import FamilyCounts, ParentConfigs
from .engine import DEFAULT_MAX_CANDIDATES, resolve_epsilon, score
from .local_scores import (
    AIC,
    BIC,
    SCORES,
    BatchScores,
    BDeu,
    CallableScore,
    LocalScore,
    PenalisedLL,
    make_score,
    register_score,
)
from .pruning import RTOL, RULES
from .table import Family, ScoreTable

__all__ = [
    "score",
    "resolve_epsilon",
    "DEFAULT_MAX_CANDIDATES",
    "ScoreTable",
    "Family",
    "LocalScore",
    "PenalisedLL",
    "BIC",
    "AIC",
    "BDeu",
    "CallableScore",
    "BatchScores",
    "SCORES",
    "register_score",
    "make_score",
    "ParentConfigs",
    "FamilyCounts",
    "next_level",
    "immediate_subsets",
    "RTOL",
    "RULES",
]
