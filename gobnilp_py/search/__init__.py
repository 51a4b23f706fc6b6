"""SCIP-free search: engines over a score table or data, and the primitives they share (numpy only).

Primitives:

* :mod:`.family_index` -- a flat numpy view of a table's families;
* :mod:`.best_parents` -- the best family of a node inside a candidate set (dense / sparse bitwise);
* :mod:`.orders` -- DAGs from variable orders (best consistent families, sink orders);
* :mod:`.results` -- what every engine returns to the drivers.

Engines:

* :mod:`.order_graph` -- frontier breadth-first branch and bound over the order graph (the optimum);
* :mod:`.order_collect` -- every network within ε, or the k best, on the order graph;
* :mod:`.order_engine` -- the ``ordergraph`` method (what the drivers call);
* :mod:`.subset_dp` -- dynamic programming over subsets with k-best lists (the ``dp`` method);
* :mod:`.parent_search` -- Tian's branch and bound over parent sets, from data;
* :mod:`.fixed_order` -- exact learning and ε-sets under a given variable order.

Nothing here imports pyscipopt; the drivers (:mod:`gobnilp_py.solve`) import an
engine only when its method runs.
"""
