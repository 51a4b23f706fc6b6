"""``LL(v | all other variables)``: the log-likelihood ceilings the pruning rules compare against.

Every parent set's configurations are unions of *atoms* (configurations of all the other variables),
so the log-likelihood of a child given all the others bounds every family's (the ``ll_ceiling``,
``entropy`` and ``ml_ceiling`` rules, ``docs/pruning.md``).  Computed once per scoring, before the
walk; kept apart from the walk (:mod:`.engine`) because it is a job of its own: one pass over the
data, two ways (per child with each row's atom share, or all children at once on packed codes).
"""

from __future__ import annotations

import math

import numpy as np

from .atom_bounds import atom_cells, atom_cells_sparse, atoms_are_wide, others_ids
from .counts import ParentConfigs, unique_inverse

__all__ = ["atom_likelihoods", "ll_all_others_packed", "PACKED_LLC_MAX_CODES"]


def atom_likelihoods(pc: ParentConfigs, ar: list[int],
                      tables: bool = True) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """``LL(v | all other variables)`` per ``v``, and (``tables``) each row's share of its atom's LL.

    An *atom* of child ``v`` is a configuration of all the other variables; every
    parent set's configurations are unions of atoms.  ``w[v, row] = mult(row) *
    LL_a / n_a`` for the atom ``a`` of ``row``, so summing ``w[v]`` over the rows of
    a configuration gives the summed atom log-likelihoods inside it (the
    ``ml_ceiling`` rule).  ``mixed[v, row]`` is 1 when the row's atom holds two or
    more states of ``v``.  Rows are the (possibly merged) rows of ``pc``.  Without ``tables`` (no
    ``ml_ceiling``: the penalised scores) ``w`` and ``mixed`` are None.
    """
    from .counts import xlogx_table

    n = len(ar)
    if not tables:
        packed = ll_all_others_packed(pc)
        if packed is not None:
            return packed, None, None
    t = xlogx_table(pc.N)
    mult = pc.weights if pc.weights is not None else np.ones(pc.rows)
    llc = np.zeros(n)
    w = np.zeros((n, pc.rows)) if tables else None
    mixed = np.zeros((n, pc.rows)) if tables else None
    Z, M = others_ids(pc)
    for v in range(n):
        r = max(ar[v], 1)
        z, m = Z[v], int(M[v])
        if m > 4 * pc.rows + 1024:
            z, m = ParentConfigs._compress(z, m)
        if atoms_are_wide(m, r, pc.rows):
            # thousands of states (a row id): only the observed cells, never the m x r table
            atom, count = atom_cells_sparse(pc, v, z, m)
            na_s = np.bincount(atom, weights=count, minlength=m).astype(np.int64)
            tt = xlogx_table(int(max(pc.N, na_s.max(initial=0))))
            lla = np.bincount(atom, weights=tt[count], minlength=m) - tt[na_s]
            llc[v] = float(lla.sum())
            if w is not None and mixed is not None:
                with np.errstate(invalid="ignore", divide="ignore"):
                    share = np.where(na_s > 0, lla / np.maximum(na_s, 1), 0.0)
                w[v] = share[z] * mult
                mixed[v] = (np.bincount(atom, minlength=m) >= 2)[z]
            continue
        z, m, cell = atom_cells(pc, v, (z, m))
        na = cell.reshape(m, r).sum(axis=1)
        lla = t[cell].reshape(m, r).sum(axis=1) - t[na]
        llc[v] = float(lla.sum())
        if w is not None and mixed is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(na > 0, lla / np.maximum(na, 1), 0.0)
            w[v] = share[z] * mult
            mixed[v] = ((cell.reshape(m, r) > 0).sum(axis=1) >= 2)[z]
    return llc, w, mixed


#: :func:`ll_all_others_packed` sorts ``n * rows`` codes at once: measured faster than the per-child
#: build up to alarm1000's 37,000 (4.3 against 10.1 ms), slower on adult's 48,000 and beyond.
PACKED_LLC_MAX_CODES = 40_000


def ll_all_others_packed(pc: ParentConfigs) -> np.ndarray | None:
    """``LL(v | all other variables)`` for every ``v`` at once, or None when a row's code does not fit.

    Why: :func:`atom_likelihoods` builds every child's atom ids in ``n - 1`` passes and then
    counts child by child, a millisecond of a small dataset's 17 ms (wine).  Here each row is one
    mixed-radix code; a row's atom for ``v`` is its code with ``v``'s digit removed (offset by ``v``
    so that the children's atoms stay apart), and one :func:`unique_inverse`, one ``bincount``
    and one sum per atom give every child's value.  The atoms' terms are those of
    :func:`atom_likelihoods`; they are added in another order, so a value may differ in its last
    bits (the rules' tolerance, ``pruning.RTOL``, is seven orders of magnitude above that).
    """
    from .counts import xlogx_table

    ar = np.maximum(pc.arities.astype(np.int64), 1)
    n = int(ar.size)
    if n < 2 or n * pc.rows > PACKED_LLC_MAX_CODES or float(np.log2(ar).sum()) + math.log2(n) >= 62:
        return None
    radix = np.ones(n, dtype=np.int64)
    radix[:-1] = np.cumprod(ar[::-1])[::-1][1:]           # product of the arities to the right
    total = int(radix[0] * ar[0])
    X = pc.X.astype(np.int64)                              # (n, rows)
    keys = (radix @ X)[None, :] - X * radix[:, None]       # row's code without v's digit
    keys += (np.arange(n, dtype=np.int64) * total)[:, None]
    atoms, _, inv = unique_inverse(keys.ravel())
    rmax = int(ar.max())
    w = None if pc.weights is None else np.tile(pc.weights, n)
    cells = np.bincount(inv * rmax + X.ravel(), weights=w, minlength=atoms.size * rmax)
    cells = np.rint(cells).astype(np.int64).reshape(atoms.size, rmax)
    t = xlogx_table(pc.N)
    lla = t[cells].sum(axis=1) - t[cells.sum(axis=1)]
    return np.bincount(atoms // total, weights=lla, minlength=n)
