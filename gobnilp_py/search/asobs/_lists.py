"""Flat per-node family lists and the "first acceptable family" queries of OBS and ASOBS.

Ordering-based searches ask one question over and over: *which is the best
family of node v whose parents all pass a test?* — "precede v in the order"
(OBS, swaps) or "are not descendants of v" (ASOBS).  Families are stored best
first, so the answer is the first family that passes, and in practice it is
one of the first few (a node's best families are small and share parents).

Layout (CSR, child-major, the table's order within each child):

* ``fstart[v]:fstart[v+1]`` — node ``v``'s families (flat ids);
* ``pstart[f]:pstart[f+1]`` — the parents of family ``f`` in ``pidx``;
* ``score[f]`` and ``local[f]`` (position in ``table.families[v]``).

Two implementations of every query, with the same answers:

* numpy (always available): candidate families are tested in growing blocks
  (8, 64, then the rest), one vectorised test per block, so the common case
  touches a handful of entries and the worst case is one pass;
* numba (a dependency; :mod:`._numba`): a compiled loop with early exit.

Descendant sets are bitsets: ``words[v]`` is a row of ``uint64`` words with
bit ``u`` set when ``u`` is a descendant of ``v``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...scoring.table import ScoreTable

__all__ = ["FamilyLists", "NumpyKernels", "first_below", "first_avoiding", "obs_choice", "bit_test"]

_BLOCKS = (8, 64)


@dataclass(frozen=True, eq=False)
class FamilyLists:
    """A score table's families as flat arrays (see the module docstring)."""

    n: int
    fstart: np.ndarray   # int64 (n + 1,)
    pstart: np.ndarray   # int64 (F + 1,)
    pidx: np.ndarray     # int64 (E,)
    score: np.ndarray    # float64 (F,)
    local: np.ndarray    # int64 (F,)
    child: np.ndarray    # int64 (F,)
    echild: np.ndarray   # int64 (E,): child of each entry's family
    efam: np.ndarray     # int64 (E,): family of each entry

    @property
    def F(self) -> int:
        """Number of families."""
        return int(self.score.size)

    @classmethod
    def from_table(cls, table: ScoreTable) -> "FamilyLists":
        """Flatten ``table`` (families keep the table's best-first order)."""
        n = table.n
        sizes = np.fromiter((len(f) for f in table.families), dtype=np.int64, count=n)
        fstart = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=fstart[1:])
        F = int(fstart[-1])
        score = np.fromiter((sc for fams in table.families for _, sc in fams), dtype=np.float64, count=F)
        npar = np.fromiter((len(ps) for fams in table.families for ps, _ in fams), dtype=np.int64, count=F)
        pstart = np.zeros(F + 1, dtype=np.int64)
        np.cumsum(npar, out=pstart[1:])
        E = int(pstart[-1])
        pidx = np.fromiter((p for fams in table.families for ps, _ in fams for p in ps), dtype=np.int64, count=E)
        child = np.repeat(np.arange(n, dtype=np.int64), sizes)
        local = np.arange(F, dtype=np.int64) - fstart[child]
        efam = np.repeat(np.arange(F, dtype=np.int64), npar)
        return cls(n=n, fstart=fstart, pstart=pstart, pidx=pidx, score=score, local=local, child=child,
                   echild=child[efam], efam=efam)

    def parents(self, f: int) -> np.ndarray:
        """Parents of family ``f``."""
        return self.pidx[self.pstart[f]:self.pstart[f + 1]]

    def total(self, choice: np.ndarray) -> float:
        """Exact total score of one family per node (``math.fsum``)."""
        import math

        return math.fsum(self.score[choice].tolist())


def bit_test(words: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Bits ``idx`` of one bitset row ``words`` (uint64) as a bool array."""
    return ((words[idx >> 6] >> (idx & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)


def _first_passing(fl: FamilyLists, v: int, fails) -> int:
    """First family of ``v`` for which ``fails(entry parents)`` is all False, or -1.

    ``fails`` maps an array of parent ids to a bool array.  Blocks of
    families are tested in turn (see the module docstring).
    """
    lo, b = int(fl.fstart[v]), int(fl.fstart[v + 1])
    blocks = iter(_BLOCKS)
    while lo < b:
        size = next(blocks, None)
        hi = b if size is None else min(b, lo + size)
        e0, e1 = int(fl.pstart[lo]), int(fl.pstart[hi])
        bad = fails(fl.pidx[e0:e1])
        badfam = np.zeros(hi - lo, dtype=bool)
        badfam[fl.efam[e0:e1][bad] - lo] = True
        ok = np.flatnonzero(~badfam)
        if ok.size:
            return lo + int(ok[0])
        lo = hi
    return -1


def first_below(fl: FamilyLists, v: int, pos: np.ndarray, thr: int) -> int:
    """First (best) family of ``v`` whose parents ``p`` all have ``pos[p] < thr``; -1 if none."""
    return _first_passing(fl, v, lambda ps: pos[ps] >= thr)


def first_avoiding(fl: FamilyLists, v: int, forbidden_words: np.ndarray) -> int:
    """First (best) family of ``v`` with no parent in the bitset ``forbidden_words``; -1 if none."""
    return _first_passing(fl, v, lambda ps: bit_test(forbidden_words, ps))


def obs_choice(fl: FamilyLists, pos: np.ndarray) -> np.ndarray:
    """Best family of every node consistent with the order ``pos`` (position of each node); -1 if none.

    One vectorised pass over all families: an entry is bad when its parent
    does not precede the child; the first family of each node with no bad
    entry wins (families are stored best first).
    """
    bad = pos[fl.pidx] >= pos[fl.echild]
    badfam = np.zeros(fl.F, dtype=bool)
    badfam[fl.efam[bad]] = True
    ok = np.flatnonzero(~badfam)
    first = np.searchsorted(ok, fl.fstart[:-1])
    out = np.full(fl.n, -1, dtype=np.int64)
    has = first < ok.size
    cand = ok[np.minimum(first, max(ok.size - 1, 0))] if ok.size else np.zeros(fl.n, dtype=np.int64)
    has &= cand < fl.fstart[1:]
    out[has] = cand[has]
    return out


class NumpyKernels:
    """The queries of ordering-based search on ``fl``, in numpy (the always-available backend)."""

    name = "numpy"

    def __init__(self, fl: FamilyLists) -> None:
        self.fl = fl

    def first_below(self, v: int, pos: np.ndarray, thr: int) -> int:
        return first_below(self.fl, v, pos, thr)

    def first_avoiding(self, v: int, forbidden_words: np.ndarray) -> int:
        return first_avoiding(self.fl, v, forbidden_words)

    def obs_choice(self, pos: np.ndarray) -> np.ndarray:
        return obs_choice(self.fl, pos)
