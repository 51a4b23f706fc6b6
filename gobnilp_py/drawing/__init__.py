"""Drawing networks, equivalence classes and collections: layouts and matplotlib figures.

:mod:`.layout` places nodes and routes edges (Graphviz ``dot`` when present,
a built-in layered layout otherwise); :mod:`.figures` draws with matplotlib;
:mod:`.notebook` gives the SVG and HTML a notebook shows for a
``Network``, a ``CPDAG`` and a ``CredibleSet``.  The package sits beside
:mod:`gobnilp_py.network` and :mod:`gobnilp_py.equivalence` in the pipeline, so
the value objects can draw themselves; the application's pictures
(:mod:`gobnilp_py.output.pictures`) use the same figures.  Importing it loads
neither matplotlib nor Graphviz: both are used when something is drawn.
"""
