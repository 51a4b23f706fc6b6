"""Structural constraints on the learned DAG (background knowledge), engine-free.

:class:`StructuralConstraints` parses, validates and checks user constraints and
filters score tables; engines honour what filtering cannot express their own way
(the ILP engine as linear rows: :mod:`gobnilp_py.ilp.structural_rows`).
Acyclicity belongs to the engines (cluster cuts: :mod:`gobnilp_py.ilp.cluster`).
"""

from __future__ import annotations

from .structural import (
    CLASS_INVARIANT_KINDS,
    CONSTRAINT_KINDS,
    FILTER_KINDS,
    InfeasibleConstraints,
    StructuralConstraints,
)

__all__ = ["StructuralConstraints", "InfeasibleConstraints", "CONSTRAINT_KINDS", "FILTER_KINDS",
           "CLASS_INVARIANT_KINDS"]
