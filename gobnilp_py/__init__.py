"""gobnilp_py: exact Bayesian network structure learning by integer programming on SCIP.

The pipeline, one stage per subpackage:

``read_data`` -> ``Dataset`` -> ``score`` -> ``ScoreTable`` -> ``learn`` -> ``Network``
                                                  \\-> ``enumerate_networks`` / ``kbest`` -> ``CredibleSet``

``learn``, ``enumerate_networks`` and ``kbest`` dispatch by ``method=`` to an
engine (:mod:`gobnilp_py.solve.methods`): the ILP on SCIP (:mod:`gobnilp_py.ilp`,
whose ``pyscipopt`` is imported only when it runs) or a SCIP-free search
(:mod:`gobnilp_py.search`).

All scores are natural-log and higher is better (GOBNILP's convention).

Lazy loading
    ``import gobnilp_py`` loads only the version and the error classes: each
    public name is imported from its module the first time it is used
    (PEP 562 module ``__getattr__``), so a script or a ``gobnilp-py`` command
    pays only for the layers it touches (numpy, the scorer, the drivers, SCIP,
    pandas, matplotlib).  ``from gobnilp_py import learn`` works as before.
    :data:`_LAZY` says where each name lives; the ``TYPE_CHECKING`` block
    repeats it as plain imports for type checkers and the layering test
    (``tests/test_lazy_imports.py`` checks the two agree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__
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

if TYPE_CHECKING:
    from .app import RunConfig, RunResult, load_config, load_result, run
    from .constraints.structural import StructuralConstraints
    from .data import ConstantColumnWarning, ContinuousColumnWarning, Dataset, read_data
    from .equivalence import CPDAG, EquivalenceClass, arrow_probabilities, cpdag, edge_probabilities, group_by_class
    from ._budget import Budget
    from .examples import example_path
    from .graph_compare import GraphComparison, compare_graphs
    from .network import Network
    from .scoring import LocalScore, register_score
    from .solve.scoring_api import score
    from .scoring.table import Family, ScoreTable
    from .solve import METHODS, CredibleSet, enumerate_networks, kbest, learn, method_names
    from .solve.posterior import Posterior, PosteriorMass, posterior

#: Public name -> the module (relative to this package) it is imported from on first use.
_LAZY: dict[str, str] = {
    "RunConfig": ".app", "load_config": ".app",
    "StructuralConstraints": ".constraints.structural",
    "ConstantColumnWarning": ".data", "ContinuousColumnWarning": ".data", "Dataset": ".data", "read_data": ".data",
    "CPDAG": ".equivalence", "EquivalenceClass": ".equivalence", "arrow_probabilities": ".equivalence",
    "cpdag": ".equivalence", "edge_probabilities": ".equivalence", "group_by_class": ".equivalence",
    "Budget": "._budget",
    "example_path": ".examples",
    "GraphComparison": ".graph_compare", "compare_graphs": ".graph_compare",
    "Network": ".network",
    "RunResult": ".app", "load_result": ".app", "run": ".app",
    "LocalScore": ".scoring", "register_score": ".scoring", "score": ".solve.scoring_api",
    "Family": ".scoring.table", "ScoreTable": ".scoring.table",
    "METHODS": ".solve", "CredibleSet": ".solve", "enumerate_networks": ".solve", "kbest": ".solve",
    "learn": ".solve", "method_names": ".solve",
    "posterior": ".solve.posterior", "Posterior": ".solve.posterior", "PosteriorMass": ".solve.posterior",
}

#: Subpackages and modules reachable as attributes (``gobnilp_py.scoring.score``) without importing them first.
_SUBMODULES = ("app", "cli", "compare", "config", "constraints", "data", "equivalence", "drawing", "examples", "graph_compare", "ilp", "interop",
               "network", "output", "progress", "scoring", "search", "solve")

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
    # limits
    "Budget",
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
    # comparing graphs
    "compare_graphs",
    "GraphComparison",
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

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__, _SUBMODULES)
