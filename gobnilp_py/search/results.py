"""What every search engine returns: the contract between engines and drivers.

Engines (the SCIP branch-and-cut in :mod:`gobnilp_py.ilp`, the SCIP-free
searches in this package) work on one :class:`~gobnilp_py.scoring.table.ScoreTable`
and answer in *table positions*: ``chosen[v]`` is the index of node ``v``'s
family in ``table.families[v]``.  They know nothing of data, scoring,
:class:`~gobnilp_py.network.Network` objects or result labels; the drivers
(:mod:`gobnilp_py.solve`) turn these plain records into networks and credible
sets, so every engine's answer is presented, sorted and labelled the same way.

Statuses (shared vocabulary, see :data:`gobnilp_py.network.STATUSES`):

``"optimal"``      the network is proven best (for a collection: complete);
``"time_limit"``   a time limit stopped the search;
``"interrupted"``  Ctrl-C / SIGTERM stopped it;
``"gap_limit"``    the ILP stopped at the requested relative gap;
``"no_solution"``  the search ended without a network within its bound
                   (e.g. an invalid lower bound above the optimum) or before finding one;
``"infeasible"``   no network of the table satisfies the constraints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Solution", "Collection", "Entry"]

#: One network of a collection: its exact score (``math.fsum`` of the local scores) and the
#: position of each node's family in the table that was searched.
Entry = tuple[float, tuple[int, ...]]


@dataclass
class Solution:
    """One network (or none) found by an engine's optimum search.

    Attributes
    ----------
    status : str
        See the module docstring.
    score : float
        Score of ``chosen`` (``-inf`` when there is no network).
    chosen : tuple of int or None
        Family position per node in the searched table.
    dual_bound : float or None
        A proven upper bound on the optimum, when the engine has one.
    stats : dict
        Engine counters and timings (JSON-able).
    reuse : object, optional
        What a later search by the same engine may start from, passed on by
        the drivers as ``reuse=`` (:func:`~gobnilp_py.solve.results.take_reuse`);
        never part of the answer.  The ILP: the cluster cuts it found, valid
        for every DAG, so for any table.  The order graph: its best-parent
        lookups, valid for the table they were built from, which they carry as
        ``.table``; a reuse with a ``table`` attribute is passed on only to a
        search of that very table (the lookups can take gigabytes).
    """

    status: str
    score: float
    chosen: tuple[int, ...] | None
    dual_bound: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    reuse: Any = field(default=None, repr=False, compare=False)

    @property
    def has_network(self) -> bool:
        """True when the engine returned a network."""
        return self.chosen is not None


@dataclass
class Collection:
    """Networks found by an engine's collecting search (an ε-set or a k-best list).

    Attributes
    ----------
    entries : list of (score, chosen)
        The networks, each once, in any order (the driver sorts them).
    reason : str or None
        ``None`` when the search finished (the entries are every network the
        task asks for); else why it stopped: ``"max_networks"``,
        ``"time_limit"``, ``"interrupted"``, ...
    near_boundary : int
        Networks seen just below the ε boundary, outside the membership
        tolerance (excluded, counted for transparency).
    threshold : float or None
        For a search cut short: a score ``t`` such that every network the task
        asks for with score ``>= t`` is among ``entries`` (``None`` when the
        engine cannot certify one).
    opt : float or None
        The optimum, when the engine (re)computed or improved it.
    by_class : bool
        The entries are one representative per Markov equivalence class
        (class-level collection); the driver lists the other members.
    stats : dict
        Engine counters and timings.
    """

    entries: list[Entry]
    reason: str | None
    near_boundary: int = 0
    threshold: float | None = None
    opt: float | None = None
    by_class: bool = False
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when the search finished."""
        return self.reason is None

