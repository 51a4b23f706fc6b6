"""Drivers: ``learn``, ``enumerate_networks`` and ``kbest``, dispatching by ``method=`` to any engine.

The drivers find the score table (scoring data safely for the task's gap),
filter it by the structural constraints, pick the method from the registry
(:mod:`.methods`), run its engine and label the answer
(:class:`~gobnilp_py.network.Network` or :class:`.credible.CredibleSet`).
Engines live in :mod:`gobnilp_py.ilp` (SCIP) and :mod:`gobnilp_py.search`
(SCIP-free) and are imported only when a method runs.
"""

from __future__ import annotations

from .collect import enumerate_networks
from .credible import CredibleSet
from .kbest import kbest
from .learn import learn
from .methods import METHODS, method_names

__all__ = ["learn", "enumerate_networks", "kbest", "CredibleSet", "METHODS", "method_names"]
