"""Constraints on the learned DAG: acyclicity (cluster cuts) and structural background knowledge.

Submodules:

* :mod:`.cluster` — pure cluster-cut finding (cycle test, cycle heuristic, exact sub-IP);
* :mod:`.acyclicity` — the SCIP constraint handler built on it;
* :mod:`.structural` — user constraints (required/forbidden arrows, tiers, ...).

Names are loaded lazily, so importing the pure parts does not load the SCIP plugins.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["AcyclicityHandler", "add_acyclicity", "StructuralConstraints", "find_cycles",
           "cluster_violation", "cycle_clusters", "exact_clusters"]

_WHERE = {
    "AcyclicityHandler": ".acyclicity",
    "add_acyclicity": ".acyclicity",
    "StructuralConstraints": ".structural",
    "find_cycles": ".cluster",
    "cluster_violation": ".cluster",
    "cycle_clusters": ".cluster",
    "exact_clusters": ".cluster",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
