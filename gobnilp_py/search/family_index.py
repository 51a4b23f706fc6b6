"""Flat, numpy-indexed view of a :class:`~gobnilp_py.scoring.table.ScoreTable`.

Every hot path (cluster-cut separation, the sink heuristic, propagation) works
on one vector of family values per LP solution.  Precomputing here, once, the
child of every family and a sparse family/parent incidence turns the
questions those callbacks ask ("which families does cluster C count?", "how
much LP mass does arrow u->v carry?") into a handful of numpy operations
instead of Python loops over families.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..scoring.table import ScoreTable

__all__ = ["FamilyIndex"]


@dataclass(frozen=True, eq=False)
class FamilyIndex:
    """Families of a score table, flattened child-major.

    Family ``f`` (``0 <= f < F``) is ``table.families[child[f]][f - start[child[f]]]``.

    Attributes
    ----------
    n : int
        Number of nodes.
    start : numpy.ndarray of int64, shape (n + 1,)
        Families of node ``i`` are ``start[i]:start[i + 1]``.
    child : numpy.ndarray of int64, shape (F,)
        Child of every family.
    score : numpy.ndarray of float64, shape (F,)
        Local score of every family.
    parents : tuple of tuple of int
        Parent set of every family (sorted indices).
    n_parents : numpy.ndarray of int64, shape (F,)
        Size of every parent set.
    inc_fam, inc_par, inc_child : numpy.ndarray of int64, shape (nnz,)
        One entry per (family, parent) pair: the family, the parent and the
        family's child, i.e. every arrow ``inc_par -> inc_child`` a family implies.
    fams_with_parent : tuple of numpy.ndarray
        ``fams_with_parent[p]`` are the families that have ``p`` as a parent.
    """

    n: int
    start: np.ndarray
    child: np.ndarray
    score: np.ndarray
    parents: tuple[tuple[int, ...], ...]
    n_parents: np.ndarray
    inc_fam: np.ndarray
    inc_par: np.ndarray
    inc_child: np.ndarray
    fams_with_parent: tuple[np.ndarray, ...]

    @property
    def F(self) -> int:
        """Number of families."""
        return int(self.child.shape[0])

    @classmethod
    def from_table(cls, table: ScoreTable) -> "FamilyIndex":
        """Build the index of ``table`` (families in the table's stored order)."""
        n = table.n
        sizes = np.array([len(f) for f in table.families], dtype=np.int64)
        start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=start[1:])
        child = np.repeat(np.arange(n, dtype=np.int64), sizes)
        parents = tuple(ps for fams in table.families for ps, _ in fams)
        score = np.fromiter((sc for fams in table.families for _, sc in fams), dtype=np.float64, count=len(parents))
        n_par = np.fromiter((len(ps) for ps in parents), dtype=np.int64, count=len(parents))
        inc_fam = np.repeat(np.arange(len(parents), dtype=np.int64), n_par)
        inc_par = np.fromiter((p for ps in parents for p in ps), dtype=np.int64, count=int(n_par.sum()))
        inc_child = child[inc_fam]
        order = np.argsort(inc_par, kind="stable")
        bounds = np.searchsorted(inc_par[order], np.arange(n + 1))
        fwp = tuple(inc_fam[order[bounds[p]:bounds[p + 1]]] for p in range(n))
        return cls(n=n, start=start, child=child, score=score, parents=parents, n_parents=n_par,
                   inc_fam=inc_fam, inc_par=inc_par, inc_child=inc_child, fams_with_parent=fwp)

    def family(self, i: int, k: int) -> int:
        """Flat index of the ``k``-th family of node ``i``."""
        return int(self.start[i]) + k
