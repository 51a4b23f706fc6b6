"""gobnilp_py: exact Bayesian network structure learning by integer programming on SCIP.

The pipeline, one stage per subpackage:

``read_data`` -> ``Dataset`` -> ``score`` -> ``ScoreTable`` -> ``learn`` -> ``Network``

All scores are natural-log and higher is better (GOBNILP's convention).
"""

from __future__ import annotations

__version__ = "0.1.0"

from .data import ConstantColumnWarning, Dataset, read_data
from .errors import (
    ConfigError,
    ConstraintError,
    DataError,
    GobnilpError,
    ScoreError,
    SolverError,
)
from .scoring.table import Family, ScoreTable

__all__ = [
    "__version__",
    "read_data",
    "Dataset",
    "ConstantColumnWarning",
    "ScoreTable",
    "Family",
    "GobnilpError",
    "DataError",
    "ScoreError",
    "ConstraintError",
    "ConfigError",
    "SolverError",
]
