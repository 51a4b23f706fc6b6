"""SCIP-free search: engines over a score table and the primitives they share (numpy only).

* :mod:`.family_index` -- a flat numpy view of a table's families;
* :mod:`.orders` -- DAGs from variable orders (best consistent families, sink orders);
* :mod:`.subset_dp` -- dynamic programming over subsets with k-best lists;
* :mod:`.results` -- what every engine returns to the drivers.

Nothing here imports pyscipopt; the drivers (:mod:`gobnilp_py.solve`) import an
engine only when its method runs.
"""
