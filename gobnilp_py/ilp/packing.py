"""Set-packing rows: in a small cluster, at most one node takes all the others as parents.

For a node set ``C`` (``|C| >= 3``) the ``(|C| - 1)``-cluster inequality says at most one
member of ``C`` has every other member of ``C`` among its parents: in a topological order
of ``C`` only the last member can.  Over family variables it is a set-packing row

    sum over v in C of sum over families f of v with C - {v} inside parents(f) of x_f  <=  1,

valid for every DAG (so it removes no network and is exact under enumeration), and SCIP
turns each into a clique of its clique table (used by propagation, probing and conflict
analysis).  GOBNILP adds the same family of rows at the start for every triple of nodes
and, recursively, for the supersets whose every member still has such a family; the rows
exist only where each member has a family containing all the others, so with a parent
limit ``p`` clusters have at most ``p + 1`` nodes.

:func:`packing_clusters` is pure (numpy and dicts over a :class:`FamilyIndex`);
:func:`add_packing_rows` writes the rows into a SCIP model.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from ..search.family_index import FamilyIndex

__all__ = ["packing_clusters", "add_packing_rows"]


def packing_clusters(index: FamilyIndex, max_size: int = 3) -> dict[tuple[int, ...], list[int]]:
    """Every cluster of 3 .. ``max_size`` nodes whose set-packing row is non-trivial, with its families.

    A family ``f`` of ``v`` belongs to the row of ``C`` (``v`` in ``C``) when ``C - {v}`` is
    inside ``f``'s parents; a row is kept when every member of ``C`` has at least one such
    family (otherwise the row is implied by the smaller clusters' rows and the convexity rows:
    a member without one contributes nothing, and the rest is a row of a smaller cluster or
    a pair, which the cluster cuts already cover).

    Returns ``{sorted cluster: sorted flat family indices}``, clusters in sorted order.
    """
    by_cluster: dict[tuple[int, ...], dict[int, list[int]]] = {}
    n_par = index.n_parents
    for s in range(3, max_size + 1):
        fams = np.flatnonzero(n_par >= s - 1)
        for f in fams.tolist():
            v = int(index.child[f])
            for others in combinations(sorted(index.parents[f]), s - 1):
                key = tuple(sorted((v, *others)))
                by_cluster.setdefault(key, {}).setdefault(v, []).append(f)
    out: dict[tuple[int, ...], list[int]] = {}
    for key in sorted(by_cluster):
        members = by_cluster[key]
        if len(members) == len(key):
            out[key] = sorted(f for fs in members.values() for f in fs)
    return out


def add_packing_rows(model: Any, xvars: Sequence[Any], clusters: dict[tuple[int, ...], list[int]],
                     names: Sequence[str]) -> int:
    """Add one ``sum <= 1`` row per cluster (SCIP's presolve makes each a set-packing constraint)."""
    import pyscipopt

    for key, fams in clusters.items():
        model.addCons(pyscipopt.quicksum(xvars[f] for f in fams) <= 1,
                      name="packing#" + ",".join(names[v] for v in key))
    return len(clusters)
