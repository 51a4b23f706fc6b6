"""The ILP model of Bayesian network structure learning (family variables).

``build_model`` and ``FamilyModel`` are loaded lazily so that the pure
numpy parts (:mod:`.index`) import without pulling in the SCIP plugins.
"""

from __future__ import annotations

from typing import Any

from .index import FamilyIndex

__all__ = ["FamilyIndex", "FamilyModel", "build_model"]


def __getattr__(name: str) -> Any:
    if name in ("FamilyModel", "build_model"):
        from . import builder

        return getattr(builder, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
