"""The subset dynamic-programming engine (the ``dp`` method): the optimum and k-best lists, up to 24 variables.

Dynamic programming over subsets with k-best lists (Tian, He and Ram 2010), in :mod:`.engine`; the
package itself is the engine (:mod:`gobnilp_py.search.protocol`): ``optimum`` and ``kbest``.
"""

from __future__ import annotations

from .engine import DEFAULT_MEMORY_BUDGET, MAX_VARIABLES, estimate_memory, estimate_memory_optimum, kbest, optimum

__all__ = ["kbest", "optimum", "estimate_memory", "estimate_memory_optimum", "MAX_VARIABLES",
           "DEFAULT_MEMORY_BUDGET"]
