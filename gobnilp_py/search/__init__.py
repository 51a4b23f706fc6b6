"""SCIP-free search, one subpackage per algorithm, and the contract every engine shares (numpy only).

The shared contract (modules here, used by the ILP too):

* :mod:`.protocol` -- what an engine takes and returns (:class:`~.protocol.OptimumEngine`,
  :class:`~.protocol.EpsilonSetEngine`, :class:`~.protocol.KBestEngine`);
* :mod:`.results` -- what every engine returns to the drivers (table positions, one status vocabulary);
* :mod:`.family_index` -- a flat numpy view of a table's families;
* :mod:`.best_parents` -- the best family of a node inside a candidate set (dense / sparse bitwise);
* :mod:`.orders` -- DAGs from variable orders (best consistent families, sink orders);
* :mod:`.incumbent` -- a quick, deterministic ASOBS incumbent any exact engine may start from;
* :mod:`.witnesses` -- certified k-best gaps from the table's families;
* :mod:`.lower_bound` -- ``lower_bound="auto"`` for the scorer's global gap rule;
* :mod:`._limits` -- time and memory checks.

Engines (each subpackage *is* the engine the registry names, :mod:`gobnilp_py.solve.methods`):

* :mod:`.order_graph` -- the ``ordergraph`` method: frontier branch and bound for the optimum,
  best-first collection for the ε-set and the k best;
* :mod:`.subset_dp` -- the ``dp`` method: dynamic programming over subsets with k-best lists;
* :mod:`.asobs` -- the ``asobs`` method: acyclic selection over random orders (approximate);
* :mod:`.fixed_order` -- exact learning and ε-sets under a given variable order (Tian's branch and
  bound over parent sets from data, or a scan of a table).

Nothing here imports pyscipopt; the drivers (:mod:`gobnilp_py.solve`) import an
engine only when its method runs.
"""
