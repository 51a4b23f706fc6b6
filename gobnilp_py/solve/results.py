"""Engine answers -> :class:`~gobnilp_py.network.Network` and :class:`CredibleSet`, the same way for every engine.

Engines answer in table positions (:mod:`gobnilp_py.search.results`).  Here the
positions become networks (parents by name, local scores, ``math.fsum`` totals,
so two engines report bit-identical scores for the same network), collections are
sorted best first with ties in canonical :attr:`Network.key` order, and every
result gets the labels that say what it guarantees.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .._tolerance import REL_TOL, tolerance_of
from ..errors import SolverError
from ..network import Network
from ..scoring.table import ScoreTable
from ..search.results import Collection, Entry, Solution
from .credible import REL_TOL, CredibleSet, tolerance_of
from .inputs import TableInfo

__all__ = ["network_of", "network_from_solution", "portable_reuse", "rank_entries", "REL_TOL", "take_reuse",
           "tolerance_of"]


def take_reuse(sol: Solution, table: ScoreTable) -> dict[str, Any]:
    """``{"reuse": ...}`` for a later search of ``table`` by the engine that found ``sol`` (else ``{}``).

    Taken out of ``sol``, so that the driver holds it no longer than the search it is passed to; a
    reuse bound to another table (its ``.table``, see :attr:`Solution.reuse
    <gobnilp_py.search.results.Solution.reuse>`) is dropped at once.
    """
    reuse, sol.reuse = sol.reuse, None
    if reuse is None or getattr(reuse, "table", table) is not table:
        return {}
    return {"reuse": reuse}


def portable_reuse(reuse: dict[str, Any]) -> dict[str, Any]:
    """``reuse`` (from :func:`take_reuse`) when it holds for every part of a split search, else ``{}``.

    The ILP's reuse is a list of cluster cuts, in variables, valid for every DAG: every part of a split
    collection starts from them (zoo, BF 20, by DAG: without them the parts together took twice the
    serial collection).  The order graph's is its best-parent lookups of one table object (``.table``),
    built again by each part on its worker.
    """
    value = reuse.get("reuse")
    return {} if value is None or hasattr(value, "table") else {"reuse": value}


def network_of(table: ScoreTable, chosen: Sequence[int], status: str = "optimal", **fields: Any) -> Network:
    """The :class:`Network` choosing ``table.families[v][chosen[v]]`` for every node ``v``.

    Without extra ``fields`` (the members of a collection) the network is built
    by the trusted path (:meth:`Network._from_table_parts`: the table already
    guarantees names and parent sets; acyclicity is still checked).
    """
    names = table.names
    fams = table.families
    if not fields:
        picked = [fams[v][int(c)] for v, c in enumerate(chosen)]
        return Network._from_table_parts(names, _index_of(table), [ps for ps, _ in picked],
                                         [sc for _, sc in picked], status)
    parents: dict[str, tuple[str, ...]] = {}
    local: dict[str, float] = {}
    for v, c in enumerate(chosen):
        ps, sc = fams[v][int(c)]
        parents[names[v]] = tuple(names[p] for p in ps)
        local[names[v]] = sc
    return Network(names, parents, math.fsum(local.values()), status=status, local_scores=local, **fields)


def _index_of(table: ScoreTable) -> dict[str, int]:
    """Name -> position of the table's variables (shared by every network built from it)."""
    index = getattr(table, "_index", None)
    return index if index is not None else {v: i for i, v in enumerate(table.names)}


def network_from_solution(table: ScoreTable, sol: Solution, *, stats: dict[str, Any]) -> Network:
    """The network of an optimum search, with its status and statistics (an empty one when there is none)."""
    if sol.chosen is None:
        return Network(table.names, {}, score=-math.inf, status=sol.status, dual_bound=sol.dual_bound,
                       stats={**sol.stats, **stats})
    net = network_of(table, sol.chosen, sol.status, dual_bound=sol.dual_bound, stats={**sol.stats, **stats})
    if not math.isclose(net.score, sol.score, rel_tol=1e-9, abs_tol=1e-7):
        raise SolverError(f"engine reported score {sol.score!r} for a network whose local scores sum to "
                          f"{net.score!r}")
    return net


def rank_entries(table: ScoreTable, entries: Sequence[Entry], opt: float) -> list[Network]:
    """Networks of the entries, best first, ties in :attr:`Network.key` order; each once.

    Status ``"optimal"`` for networks tied with ``opt`` (within the tolerance),
    ``"feasible"`` for the others.
    """
    tol = tolerance_of(opt)
    nets = []
    seen: set[Any] = set()
    for _, chosen in entries:
        net = network_of(table, chosen, "optimal")
        if net.key in seen:  # an engine returning one network twice is a bug: fail loudly
            raise SolverError(f"the search returned network {net.to_modelstring()} twice; the result would not "
                              "be exact (please report this)")
        seen.add(net.key)
        if net.score < opt - tol:
            net.status = "feasible"
        nets.append(net)
    nets.sort(key=lambda n: (-n.score, n.key))
    return nets


def credible_set(table: ScoreTable, col: Collection, *, opt: float, epsilon: float, kind: str, method: str,
                 info: TableInfo, stats: dict[str, Any], keep: int | None = None,
                 extra_networks: Sequence[Network] = ()) -> CredibleSet:
    """A labelled :class:`CredibleSet` from an engine's collection.

    ``keep`` trims a k-best list to its first ``keep`` networks; ``extra_networks``
    are added when missing (phase 1's optimum of a collection cut short).
    """
    nets = rank_entries(table, col.entries, opt)
    if keep is not None:
        nets = nets[:keep]
    known = {n.key for n in nets}
    for net in extra_networks:
        if net.key not in known:
            nets.append(net)
            known.add(net.key)
    nets.sort(key=lambda n: (-n.score, n.key))
    gap = epsilon
    if kind == "kbest":
        gap = opt - nets[-1].score if nets else 0.0
        if gap <= tolerance_of(opt):  # the last network ties with OPT: rounding noise is not a gap
            gap = 0.0
    return CredibleSet(opt, gap, col.reason is None, col.reason, nets, tolerance=tolerance_of(opt),
                       near_boundary=col.near_boundary, kind=kind, stats=stats, method=method,
                       threshold=col.threshold, approximate=info.approximate, caveats=list(info.caveats))
