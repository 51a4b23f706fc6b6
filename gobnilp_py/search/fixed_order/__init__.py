"""Exact learning under a given variable order (the ``order=`` route of the drivers).

* :mod:`.engine` -- the best network and the ε-set among the networks that follow an order, from
  data or from a score table (Cooper and Herskovits 1992; Tian, UAI 2000);
* :mod:`.parent_search` -- Tian's branch and bound over one node's parent sets, from data.

The public names (``optimum_for_order``, ``epsilon_set_for_order``, ...) are :mod:`.engine`'s.
"""

from __future__ import annotations

from .engine import (OrderEpsilonSet, OrderOptimum, deficit_sums, epsilon_set_for_order, epsilon_set_for_order_table,
                     optimum_for_order, optimum_for_order_table, resolve_order)

__all__ = ["OrderOptimum", "OrderEpsilonSet", "resolve_order", "optimum_for_order", "epsilon_set_for_order",
           "optimum_for_order_table", "epsilon_set_for_order_table", "deficit_sums"]
