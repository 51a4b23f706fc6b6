"""The order-graph engine (the ``ordergraph`` method): exact, SCIP-free, up to about 30 variables.

* :mod:`.frontier` -- frontier breadth-first branch and bound over the order graph (the optimum;
  Malone et al. 2011), with :mod:`._colex` (subset ranks), :mod:`._spill` (sorted runs on disk) and
  :mod:`._greedy` (the starting incumbent);
* :mod:`.collect` -- every network within ε, or the k best, by best-first search with the exact
  subset-DP bound;
* :mod:`.engine` -- the engine protocol (:mod:`gobnilp_py.search.protocol`) the drivers call.

The package itself is the engine: ``optimum``, ``epsilon_set`` and ``kbest`` are :mod:`.engine`'s.
"""

from __future__ import annotations

from .engine import epsilon_set, kbest, optimum

__all__ = ["optimum", "epsilon_set", "kbest"]
