"""The ILP engine: branch-and-cut on SCIP (the only package that imports pyscipopt).

* :mod:`.settings` -- SCIP settings as data (safe to import without SCIP);
* :mod:`.model` -- the family-variable model of a score table;
* :mod:`.acyclicity`, :mod:`.cluster` -- cluster cuts (pure finding + thin handler);
* :mod:`.heuristic` -- the sink primal heuristic (glue over :mod:`gobnilp_py.search.orders`);
* :mod:`.structural_rows` -- structural constraints as linear rows;
* :mod:`.collector` -- the plugins that turn branch-and-cut into an exact enumerator;
* :mod:`.engine` -- the ``ilp`` method (optimum, ε-set, k-best); :mod:`.resolve` -- the ``resolve`` k-best;
* :mod:`.stats` -- solver counters.

Submodules are imported explicitly; importing this package loads nothing.
"""
