"""Exact k-best baselines, for comparing k-best search with Bayes-factor enumeration.

Three methods return the k highest-scoring networks as a
:class:`~gobnilp_py.solve.credible.CredibleSet` (``kind="kbest"``, best first,
ties in :attr:`~gobnilp_py.network.Network.key` order), so their results can
be compared entry by entry:

``"dp"``      :func:`kbest_dp` -- dynamic programming over the subset lattice
              (Tian, He and Ram, UAI 2010); up to about 20 variables.
``"resolve"`` :func:`kbest_resolve` -- k successive ILP solves, each excluding
              the networks found so far (GOBNILP 1.6).
``"search"``  :func:`gobnilp_py.solve.enumerate.kbest` -- one branch-and-cut
              search with a bound pruner (this package's own k-best).

(The subpackage is named ``baselines`` so that it cannot shadow the
package-level function :func:`gobnilp_py.kbest`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..solve.credible import CredibleSet
from ..solve.enumerate import kbest as kbest_search
from .dp import DEFAULT_MEMORY_BUDGET, MAX_VARIABLES, estimate_memory, kbest_dp, kbest_dp_table
from .resolve import kbest_resolve, kbest_resolve_table

__all__ = [
    "kbest_dp",
    "kbest_dp_table",
    "kbest_resolve",
    "kbest_resolve_table",
    "kbest_search",
    "estimate_memory",
    "MAX_VARIABLES",
    "DEFAULT_MEMORY_BUDGET",
    "METHODS",
    "run_kbest",
]

#: The k-best methods by name.
METHODS: dict[str, Callable[..., CredibleSet]] = {
    "dp": kbest_dp,
    "resolve": kbest_resolve,
    "search": kbest_search,
}


def run_kbest(method: str, data_or_table: Any, k: int, **options: Any) -> CredibleSet:
    """Run the k-best ``method`` (``"dp"``, ``"resolve"`` or ``"search"``) with ``options``."""
    from ..errors import ConfigError

    try:
        fn = METHODS[method]
    except KeyError:
        raise ConfigError(f"unknown k-best method {method!r}; choose from {', '.join(METHODS)}") from None
    return fn(data_or_table, k, **options)
