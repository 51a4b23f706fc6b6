"""gobnilp_py: exact Bayesian network structure learning by integer programming on SCIP.

The pipeline, one stage per subpackage:

``read_data`` -> ``Dataset`` -> ``score`` -> ``ScoreTable`` -> ``learn`` -> ``Network``
                                                  \\-> ``enumerate_networks`` / ``kbest`` -> ``CredibleSet``

``learn``, ``enumerate_networks`` and ``kbest`` dispatch by ``method=`` to an
engine (:mod:`gobnilp_py.solve.methods`): the ILP on SCIP (:mod:`gobnilp_py.ilp`,
whose ``pyscipopt`` is imported only when it runs) or a SCIP-free search
(:mod:`gobnilp_py.search`).

All scores are natural-log and higher is better (GOBNILP's convention).
"""

from __future__ import annotations

from ._version import __version__

from .constraints.structural import StructuralConstraints
from .data import ConstantColumnWarning, ContinuousColumnWarning, Dataset, read_data
from .equivalence import CPDAG, EquivalenceClass, arrow_probabilities, cpdag, edge_probabilities, group_by_class
from .errors import (
    ConfigError,
    ConstraintError,
    CycleError,
    DataError,
    GobnilpError,
    GobnilpWarning,
    NetworkError,
    OutputError,
    ParameterError,
    ParameterTypeError,
    ScoreError,
    SolverError,
)
from .config import RunConfig, load_config
from .examples import example_path
from .network import Network
from .scoring import LocalScore, register_score, score
from .scoring.table import Family, ScoreTable
from .solve import METHODS, CredibleSet, enumerate_networks, kbest, learn, method_names
from .output import RunResult, load_result, run

__all__ = [
    "__version__",
    # data
    "read_data",
    "Dataset",
    "ConstantColumnWarning",
    "ContinuousColumnWarning",
    "example_path",
    # scoring
    "score",
    "ScoreTable",
    "Family",
    "LocalScore",
    "register_score",
    # learning
    "learn",
    "METHODS",
    "method_names",
    "Network",
    "StructuralConstraints",
    # collections
    "enumerate_networks",
    "kbest",
    "CredibleSet",
    # config-driven runs
    "run",
    "RunResult",
    "load_result",
    "load_config",
    "RunConfig",
    "cpdag",
    "CPDAG",
    "EquivalenceClass",
    "group_by_class",
    "edge_probabilities",
    "arrow_probabilities",
    # the posterior over DAGs (loaded on first use: gobnilp_py.solve.posterior)
    "posterior",
    "Posterior",
    "PosteriorMass",
    # errors
    "GobnilpError",
    "DataError",
    "ScoreError",
    "ConstraintError",
    "ConfigError",
    "OutputError",
    "ParameterError",
    "ParameterTypeError",
    "NetworkError",
    "CycleError",
    "SolverError",
    "GobnilpWarning",
]


#: Public names loaded on first use (their modules import the posterior engine), module -> names.
_LAZY = {"solve.posterior": ("posterior", "Posterior", "PosteriorMass")}


def __getattr__(name: str) -> object:
    """``gobnilp_py.posterior`` and friends, imported when first asked for (``import gobnilp_py`` stays light)."""
    for module, names in _LAZY.items():
        if name in names:
            import importlib

            value = getattr(importlib.import_module(f".{module}", __name__), name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {n for names in _LAZY.values() for n in names})
