"""What a mixed atom costs every Dirichlet family that contains it (the ``ml_ceiling`` rule).

An *atom* of child ``v`` is a configuration of all the other variables; the
configurations of every parent set of ``v`` are unions of atoms.  For the
symmetric Dirichlet scores (BDeu, K2, BDs) the term of one configuration with
child counts ``m`` (``d`` states seen, ``M`` rows) and prior mass ``a`` is the
log-probability of its rows read as a sequence, a product of predictive
factors.  Read the rows state by state, states in descending count order
(``p_k`` = rows of the states before state ``k``); the ``i``-th row of state
``k`` contributes ``ln((a/r + i) / (a + p_k + i))``, so

    term(m; a) = -d ln r - Pi(m; a),
    Pi(m; a)   = Σ_{k≥2} ln(1 + p_k / a) - Σ_k Σ_{i=1}^{m_k-1} ln((a/r + i) / (a + p_k + i)) ≥ 0.

``Pi`` never decreases when rows are added (a row of a seen state multiplies
the probability by a factor ≤ 1 and leaves ``d``; a row of a new state
multiplies it by ``(1/r) · a/(a + M)``).  Every factor is a Möbius function
of ``a``, monotone, so over ``0 < a ≤ A`` its supremum is its value at
``A`` or its limit at 0: ``Pi(m; a) ≥ Pi_low(m; A)``, the sum with each
factor replaced by that supremum (first rows: ``ln(1 + p_k/A)``; later rows:
``-ln max(i/(p_k + i), (A/r + i)/(A + p_k + i))``, 0 for the first state).

The prior mass of a superset never exceeds that of its subsets (BDeu
``ess/q``, BDs ``ess/q~``, K2 ``r``), so with ``A`` the mass of the set
being bounded, for every superset ``T`` and every configuration ``g`` of
``T`` that contains an atom ``b``: ``term_g ≤ -d_g ln r - Pi_low(m_b; A)``.
Two numbers per mixed atom follow (``docs/pruning.md``, ``ml_ceiling``):

* ``pen = Pi_low(m_b; A)``, the least extra cost of the configuration holding ``b``;
* ``dlt = min(0, -d_b ln r - pen - ML_b)``, how far below its maximised
  log-likelihood ``ML_b`` the atom alone must score (the chain rule puts one
  atom of each configuration first, the rest scoring at most their ``ML``).

:func:`lambda_penalties` gives the weaker bound of the first version of the
rule (one ``max(0, -ln A)`` per configuration holding a mixed atom), kept to
measure what the stronger one prunes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .counts import ParentConfigs, xlogx_table

__all__ = ["atom_cells", "others_ids", "ChildAtoms", "child_atoms", "atom_penalties", "lambda_penalties",
           "atoms_are_wide", "atom_cells_sparse"]


def atoms_are_wide(m: int, r: int, rows: int) -> bool:
    """Whether a child's (atom x state) table would be far wider than its data (``m * r`` beyond
    ``64 * rows + 1024`` cells, the rule of ``ParentConfigs._compress``): a child or other variables
    with thousands of states (a row id).  Such tables are counted sparsely (:func:`atom_cells_sparse`):
    the dense one costs memory quadratic in the rows (12,000 rows of a 12,000-state column: 1.4e8 cells).
    """
    return m * r > 64 * rows + 1024


def atom_cells_sparse(pc: ParentConfigs, child: int, z: np.ndarray,
                      m: int) -> tuple[np.ndarray, np.ndarray]:
    """The observed (atom, state) cells of ``child`` as ``(atom, count)`` pairs, states ascending within
    each atom (the nonzero cells of :func:`atom_cells`'s table, in its order), weighted by multiplicities."""
    r = max(int(pc.arities[child]), 1)
    codes = z.astype(np.int64) * r + pc.X[child]
    uniq, inv = np.unique(codes, return_inverse=True)
    mult = pc.weights if pc.weights is not None else np.ones(pc.rows)
    count = np.rint(np.bincount(inv.ravel(), weights=mult, minlength=uniq.size)).astype(np.int64)
    return uniq // r, count


def atom_cells(pc: ParentConfigs, child: int,
               ids: tuple[np.ndarray, int] | None = None) -> tuple[np.ndarray, int, np.ndarray]:
    """The atoms of ``child``: each row's atom id ``z``, their range ``m`` and the counts ``cell`` (m x r, flat).

    Shared by the ``ml_ceiling`` atom likelihoods (``atom_likelihoods.atom_likelihoods``) and the mixed-atom
    costs (:func:`child_atoms`); counts are weighted by the row multiplicities of ``pc``.  ``ids``:
    the ids of all the other variables when the caller built them already (:func:`others_ids`).
    """
    n = int(pc.arities.size)
    r = max(int(pc.arities[child]), 1)
    others = tuple(j for j in range(n) if j != child)
    if ids is not None:
        z, m = ids
    else:
        z, m = pc.ids(others) if others else (np.zeros(pc.rows, dtype=np.int64), 1)
    if m > 4 * pc.rows + 1024:
        z, m = ParentConfigs._compress(z, m)
    mult = pc.weights if pc.weights is not None else np.ones(pc.rows)
    cell = np.rint(np.bincount(z * r + pc.X[child], weights=mult, minlength=m * r)).astype(np.int64)
    return z, m, cell


def others_ids(pc: ParentConfigs) -> tuple[np.ndarray, np.ndarray]:
    """Ids of "every variable but ``v``" for every ``v`` at once: ``(Z, M)`` with row ``v`` equal to
    ``pc.ids(others of v)`` (the same steps; ``tests/test_scoring_sets.py`` checks), built in
    ``n - 1`` passes over all of them instead of one cached chain per variable."""
    n = int(pc.arities.size)
    if n <= 1:
        return np.zeros((n, pc.rows), dtype=np.int64), np.ones(n, dtype=np.int64)
    E = np.array([[j for j in range(n) if j != v] for v in range(n)], dtype=np.int64)
    return pc._ids_of(E)


@dataclass
class ChildAtoms:
    """The mixed atoms of one child, as needed by :func:`atom_penalties`.

    ``inv[e]`` is the atom (index into the per-atom arrays) of the ``e``-th
    given row; ``fr_*`` list the first rows of every state but the first
    (atom, ``p_k``); ``ent_*`` the later rows ``i ≥ 1`` of every state with
    ``p_k > 0`` (atom, ``i``, ``p_k``).
    """

    r: int
    lnr: float
    inv: np.ndarray
    d: np.ndarray
    ml: np.ndarray
    fr_atom: np.ndarray
    fr_p: np.ndarray
    ent_atom: np.ndarray
    ent_i: np.ndarray
    ent_p: np.ndarray

    @property
    def n_atoms(self) -> int:
        return int(self.d.size)


def child_atoms(pc: ParentConfigs, child: int, rows: np.ndarray) -> ChildAtoms:
    """Counts of the atoms of ``child`` that hold the given rows of ``pc`` (its mixed rows)."""
    r = max(int(pc.arities[child]), 1)
    n = int(pc.arities.size)
    others = tuple(j for j in range(n) if j != child)
    z, m = pc.ids(others) if others else (np.zeros(pc.rows, dtype=np.int64), 1)
    if m > 4 * pc.rows + 1024:
        z, m = ParentConfigs._compress(z, m)
    if atoms_are_wide(m, r, pc.rows):
        return _child_atoms_sparse(pc, child, rows, z, m, r)
    z, m, cell = atom_cells(pc, child, (z, m))
    uniq, inv = np.unique(z[rows], return_inverse=True)
    S = -np.sort(-cell.reshape(m, r)[uniq], axis=1)           # counts per atom, descending
    na = S.sum(axis=1)
    t = xlogx_table(int(na.max(initial=0)))
    ml = t[S].sum(axis=1) - t[na]
    before = np.cumsum(S, axis=1) - S                         # p_k: rows of the earlier states
    fa, fk = np.nonzero((S > 0) & (before > 0))
    ea, ek = np.nonzero((S >= 2) & (before > 0))
    reps = S[ea, ek] - 1
    ent_atom = np.repeat(ea, reps)
    start = np.repeat(np.cumsum(reps) - reps, reps)
    ent_i = np.arange(ent_atom.size, dtype=np.int64) - start + 1
    return ChildAtoms(r=r, lnr=float(np.log(r)), inv=inv.astype(np.int64), d=(S > 0).sum(axis=1),
                      ml=ml.astype(np.float64), fr_atom=fa.astype(np.int64),
                      fr_p=before[fa, fk].astype(np.float64), ent_atom=ent_atom.astype(np.int64),
                      ent_i=ent_i.astype(np.float64), ent_p=np.repeat(before[ea, ek], reps).astype(np.float64))


def _child_atoms_sparse(pc: ParentConfigs, child: int, rows: np.ndarray, z: np.ndarray, m: int,
                        r: int) -> ChildAtoms:
    """:func:`child_atoms` from the observed cells only (:func:`atoms_are_wide` tables): the same entries in
    the same order (each atom's counts in descending order, ties in state order as a stable sort gives
    them); an atom's ``ml`` is summed over its observed cells in that order (the dense route sums zeros
    too, in numpy's pairwise order: the same value up to rounding)."""
    uniq, inv = np.unique(z[rows], return_inverse=True)
    atom, count = atom_cells_sparse(pc, child, z, m)
    pos = np.searchsorted(uniq, atom)
    keep = (pos < uniq.size) & (uniq[np.minimum(pos, uniq.size - 1)] == atom)
    a, c = pos[keep], count[keep]
    order = np.lexsort((-c, a))            # by atom, then count descending (stable: state order on ties)
    a, c = a[order], c[order]
    k = uniq.size
    na = np.bincount(a, weights=c, minlength=k).astype(np.int64)
    t = xlogx_table(int(na.max(initial=0)))
    ml = np.bincount(a, weights=t[c], minlength=k) - t[na]
    first = np.ones(a.size, dtype=bool)
    first[1:] = a[1:] != a[:-1]
    seg = np.cumsum(first) - 1
    start = np.flatnonzero(first)
    csum = np.cumsum(c)
    before = csum - c - (csum[start] - c[start])[seg]   # rows of the earlier states of the same atom
    fr = (c > 0) & (before > 0)
    en = (c >= 2) & (before > 0)
    reps = c[en] - 1
    ent_atom = np.repeat(a[en], reps)
    st = np.repeat(np.cumsum(reps) - reps, reps)
    ent_i = np.arange(ent_atom.size, dtype=np.int64) - st + 1
    return ChildAtoms(r=r, lnr=float(np.log(r)), inv=inv.astype(np.int64),
                      d=np.bincount(a, minlength=k).astype(np.int64), ml=ml.astype(np.float64),
                      fr_atom=a[fr].astype(np.int64), fr_p=before[fr].astype(np.float64),
                      ent_atom=ent_atom.astype(np.int64), ent_i=ent_i.astype(np.float64),
                      ent_p=np.repeat(before[en], reps).astype(np.float64))


def atom_penalties(at: ChildAtoms, A: float) -> tuple[np.ndarray, np.ndarray]:
    """``(pen, dlt)`` of every given row's atom for prior masses ``a ≤ A`` (see the module docstring)."""
    k = at.n_atoms
    pen = np.bincount(at.fr_atom, weights=np.log1p(at.fr_p / A), minlength=k)
    if at.ent_atom.size:
        i, p = at.ent_i, at.ent_p
        f = np.maximum(i / (p + i), (A / at.r + i) / (A + p + i))
        pen = pen + np.bincount(at.ent_atom, weights=-np.log(f), minlength=k)
    pen = np.maximum(pen, 0.0)
    dlt = np.minimum(0.0, -at.d * at.lnr - pen - at.ml)
    return pen[at.inv], dlt[at.inv]


def lambda_penalties(n_rows: int, A: float) -> tuple[np.ndarray, np.ndarray]:
    """The first version's bound: ``pen = max(0, -ln A)`` for every mixed row, ``dlt = 0``."""
    lam = float(np.minimum(0.0, np.log(np.array([A], dtype=np.float64)))[0])
    return np.full(n_rows, -lam), np.zeros(n_rows)
