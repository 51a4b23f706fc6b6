"""ASOBS (the ``asobs`` method): approximate, any size (Scanagatta et al. 2015).

* :mod:`.engine` -- acyclic selection over random orders and the engine protocol's ``optimum``;
* :mod:`.restarts` -- one numbered restart (its order from ``(seed, index)``) and the tally of the best;
* :mod:`.workers` -- restarts on worker processes or a Dask cluster;
* :mod:`.obs` -- ordering-based search (swaps of adjacent variables), with the family lists of
  :mod:`._lists` and the compiled kernels of :mod:`._numba`.

The package itself is the engine (:mod:`gobnilp_py.search.protocol`): ``optimum`` only, labelled
approximate by the drivers.
"""

from __future__ import annotations

from .engine import DEFAULT_ORDERS, WORKER_START_SECONDS, AsobsRun, DescendantClosure, asobs_for_order, asobs_search, optimum

__all__ = ["DescendantClosure", "asobs_for_order", "asobs_search", "AsobsRun", "optimum", "DEFAULT_ORDERS",
           "WORKER_START_SECONDS"]
