"""The lattice walk of one child for the Gaussian scores: every parent set from one matrix, by Schur complements.

Why this shape.  A Gaussian local score needs ``ln M_{yy·X}`` (and, for BGe, ``ln det M_XX``)
for the child ``y`` and the parent set ``X``: numbers of the child's correlation (or posterior)
matrix ``M`` alone, never of the rows.  The walk visits the parent sets of ``y`` depth first in
a tree where a set's children add one variable *below* its smallest one (bit ``j < min X``).
Pre-order on that tree is increasing integer order of the bitmasks, so every subset of a set
is visited before it -- which the pruning rules need (the best score of any proper subset) --
and a node's subtree is the contiguous range ``[X, X + 2^min(X))``, so a set excluded with all
its supersets is skipped with its whole subtree.

Each node keeps the Schur complement of ``M_XX`` in ``M`` over the variables it can still add
(``0 … min(X) - 1``) and ``y``: adding ``j`` is one rank-one update of that block (the step of
an incremental Cholesky factorisation; no inverse is formed), and

* ``M_{yy·X∪j} = M_{yy·X} (1 - r²)`` with ``r²`` the squared partial correlation of ``y`` and
  ``j`` given ``X``, so ``ln M_{yy·X∪j} = ln M_{yy·X} + log1p(-r²)`` (accurate for small ``r``);
* ``ln det M_{X∪j} = ln det M_XX + ln M_{jj·X}`` (the new pivot).

The update of a node with smallest element ``j`` costs ``O(j²)``; half of all nodes have
``j = 0`` and need none, so the walk costs O(1) on average per parent set.

Pruning (derivations in ``docs/gaussian.md``), with the gap ε and the tolerance
``rtol * max(1, |refs|)`` of :mod:`gobnilp_py.scoring.pruning` (a rule fires only when its
margin exceeds ε by the tolerance):

* a set is generated only when all its immediate subsets were kept in the lattice (Apriori);
  ``B(X)``, the best score of a proper subset, is the maximum of their ``max(s, B)``;
* ``parent_count``: no set above the child's ``kmax`` parents;
* ``ceiling``: ``s(T) <= ceil[|X|] + Cc ln det R_XX`` for every ``T ⊇ X``; fires when ``B(X)`` beats it by ε;
* ``gain``: adding ``j`` to any ``U ⊇ Y`` (``Y = X ∖ j``) changes the score by at most
  ``-gcost[j] + G * min(ln M_{yy·Y} - lrC_y, ln M_{jj·Y} - lrC[j])``; fires when that is below -ε;
* ``dominated``: after scoring, ``B(X) - s(X) > ε``.

The first three exclude the set and its supersets (its subtree is skipped and the set is not
stored, so no superset is generated); a dominated set stays in the lattice.

Best scores live in a dense array indexed by mask (``2^m`` floats) or, when that is too big,
in an open-addressing hash table (linear probing, at most half full, splitmix64 home slot).
The function runs compiled when numba is installed and as plain Python otherwise (slow beyond
about 15 variables, same results).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import AVAILABLE
from .._numba import jit as _jit

__all__ = ["AVAILABLE", "walk_child", "walk_child_dense", "N_COUNTERS", "COUNTER_NAMES"]

#: Rule counters returned by :func:`walk_child`, in this order.
COUNTER_NAMES = ("parent_count", "ceiling", "gain", "dominated")
N_COUNTERS = len(COUNTER_NAMES)


def _maybe_jit(f):  # type: ignore[no-untyped-def]
    return _jit(f) if AVAILABLE else f


if AVAILABLE:
    @_jit
    def _home(mask, cap):  # type: ignore[no-untyped-def]
        """Home slot: splitmix64 of the mask (wrapping unsigned arithmetic)."""
        z = np.uint64(mask) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        return np.int64(z & np.uint64(cap - 1))
else:
    _M64 = (1 << 64) - 1

    def _home(mask, cap):  # type: ignore[no-untyped-def]
        """Home slot: splitmix64 of the mask, in Python integers (the same slot as compiled)."""
        z = (int(mask) + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z ^= z >> 31
        return z & (int(cap) - 1)


@_maybe_jit
def _get(keys, vals, dense, mask):  # type: ignore[no-untyped-def]
    if dense:
        return vals[mask]
    cap = keys.shape[0]
    h = _home(mask, cap)
    while True:
        k = keys[h]
        if k == mask:
            return vals[h]
        if k == -1:
            return np.nan
        h = (h + 1) & (cap - 1)


@_maybe_jit
def _put(keys, vals, mask, value):  # type: ignore[no-untyped-def]
    cap = keys.shape[0]
    h = _home(mask, cap)
    while True:
        k = keys[h]
        if k == mask or k == -1:
            keys[h] = mask
            vals[h] = value
            return
        h = (h + 1) & (cap - 1)


@_maybe_jit
def _grown(keys, vals):  # type: ignore[no-untyped-def]
    cap = keys.shape[0] * 2
    nk = np.full(cap, -1, dtype=np.int64)
    nv = np.empty(cap, dtype=np.float64)
    for h in range(keys.shape[0]):
        if keys[h] != -1:
            _put(nk, nv, keys[h], vals[h])
    return nk, nv


@_maybe_jit
def _tol(rtol, a, b, c):  # type: ignore[no-untyped-def]
    s = 1.0
    if abs(a) > s:
        s = abs(a)
    if abs(b) > s:
        s = abs(b)
    if abs(c) > s:
        s = abs(c)
    return rtol * s


@_maybe_jit
def walk_child(Mc, lnD, lnDy, lrC, lrCy, A, Bc, Cc, ceil, kmax, gcost, G, eps, rtol, prune, limit,
               dense, cap, max_cap):  # type: ignore[no-untyped-def]
    """Walk the parent sets of one child; return ``(masks, scores, counters, n_scored)`` of the kept sets.

    Parameters
    ----------
    Mc : (m + 1, m + 1) float64
        The unit-diagonal matrix over the ``m`` candidate parents (bit ``i`` = row ``i``) and
        the child (last row); only the lower triangle is read.
    lnD, lrC : (m,) float64
        Per candidate: ``ln R_ii`` (the scale of ``M``) and ``ln M_{ii·V∖i}``.
    lnDy, lrCy : float
        The same for the child.
    A, Bc : (limit + 1,) float64; Cc : float
        The score ``A[p] + Bc[p] (lnDy + ln M_{yy·X}) + Cc ln det R_XX``.
    ceil : (limit + 1,) float64
        ``ceiling`` rule constants (``inf`` switches the rule off).
    kmax : int
        ``parent_count``: most parents a kept set may have.
    gcost : (m,) float64; G : float
        ``gain`` rule constants (``G < 0`` switches the rule off).
    eps, rtol : float
        The gap and the relative tolerance of every rule.
    prune : bool
        False: every set up to ``limit`` parents is scored and kept.
    limit : int
        Largest parent set size.
    dense : bool; cap, max_cap : int
        Dense best-score array of ``2^m`` entries, or a hash table starting at ``cap`` slots
        (a power of two) and never grown beyond ``max_cap`` slots: then the walk stops and
        returns ``n_scored = -1`` (the caller reports the memory limit).
    """
    m = Mc.shape[0] - 1
    yi = m
    counters = np.zeros(4, dtype=np.int64)
    if dense:
        keys = np.full(1, -1, dtype=np.int64)
        vals = np.full(np.int64(1) << np.int64(m), np.nan)
    else:
        keys = np.full(cap, -1, dtype=np.int64)
        vals = np.empty(cap, dtype=np.float64)
    n_stored = 0
    out_cap = 1024
    out_m = np.empty(out_cap, dtype=np.int64)
    out_s = np.empty(out_cap, dtype=np.float64)
    n_out = 0
    depth = limit + 1
    mats = np.empty((depth, m + 1, m + 1), dtype=np.float64)
    for a in range(m + 1):
        for b in range(a + 1):
            mats[0, a, b] = Mc[a, b]
    masks = np.zeros(depth, dtype=np.int64)
    ells = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    lrs = np.zeros(depth, dtype=np.float64)
    ldets = np.zeros(depth, dtype=np.float64)

    s0 = A[0] + Bc[0] * lnDy
    out_m[0] = 0
    out_s[0] = s0
    n_out = 1
    n_scored = 1
    if dense:
        vals[0] = s0
    else:
        _put(keys, vals, np.int64(0), s0)
        n_stored = 1
    ells[0] = m
    d = 0
    while d >= 0:
        if d >= limit or nxt[d] >= ells[d]:
            d -= 1
            continue
        j = nxt[d]
        nxt[d] += 1
        Y = masks[d]
        bit = np.int64(1) << np.int64(j)
        X = Y | bit
        p = d + 1
        # Apriori: every immediate subset X ∖ {i} must be in the lattice; B = best of them.
        B = _get(keys, vals, dense, Y)
        alive = True
        rest = Y
        while rest != 0:
            low = rest & (-rest)
            rest ^= low
            v = _get(keys, vals, dense, X ^ low)
            if v != v:
                alive = False
                break
            if v > B:
                B = v
        if not alive:
            continue
        piv = mats[d, j, j]
        lpiv = math.log(piv)
        ldetX = ldets[d] + lnD[j] + lpiv
        if prune:
            if p > kmax:
                counters[0] += 1
                continue
            ub = ceil[p] + Cc * ldetX
            if B - ub > eps + _tol(rtol, B, ub, 0.0):
                counters[1] += 1
                continue
            if G >= 0.0:
                gy = lrs[d] - lrCy
                gj = lpiv - lrC[j]
                g = gy if gy < gj else gj
                if g < 0.0:
                    g = 0.0
                gain = G * g
                if gcost[j] - gain > eps + _tol(rtol, B, gcost[j], gain):
                    counters[2] += 1
                    continue
        myy = mats[d, yi, yi]
        myj = mats[d, yi, j]
        r2 = myj * myj / (piv * myy)
        lrX = lrs[d] + math.log1p(-r2)
        s = A[p] + Bc[p] * (lnDy + lrX) + Cc * ldetX
        n_scored += 1
        if prune and B - s > eps + _tol(rtol, B, s, 0.0):
            counters[3] += 1
        else:
            if n_out == out_cap:
                out_cap *= 2
                nm = np.empty(out_cap, dtype=np.int64)
                ns = np.empty(out_cap, dtype=np.float64)
                nm[:n_out] = out_m[:n_out]
                ns[:n_out] = out_s[:n_out]
                out_m = nm
                out_s = ns
            out_m[n_out] = X
            out_s[n_out] = s
            n_out += 1
        best = s if s > B else B
        if dense:
            vals[X] = best
        else:
            if 2 * (n_stored + 1) > keys.shape[0]:
                if 2 * keys.shape[0] > max_cap:
                    return out_m[:0].copy(), out_s[:0].copy(), counters, -1
                keys, vals = _grown(keys, vals)
            _put(keys, vals, X, best)
            n_stored += 1
        if j > 0 and p < limit:
            # Eliminate j: the Schur complement over {0 .. j-1} and y (lower triangles).
            src = mats[d]
            dst = mats[d + 1]
            for a in range(j):
                f = src[j, a] / piv
                for b in range(a + 1):
                    dst[a, b] = src[a, b] - f * src[j, b]
            f = myj / piv
            for b in range(j):
                dst[yi, b] = src[yi, b] - f * src[j, b]
            dst[yi, yi] = myy - f * myj
            d += 1
            masks[d] = X
            ells[d] = j
            nxt[d] = 0
            lrs[d] = lrX
            ldets[d] = ldetX
    return out_m[:n_out].copy(), out_s[:n_out].copy(), counters, n_scored


@_maybe_jit
def walk_child_dense(Mc, lnD, lnDy, lrC, lrCy, A, Bc, Cc, ceil, kmax, gcost, G, eps, rtol, prune,
                     limit):  # type: ignore[no-untyped-def]
    """:func:`walk_child` in two passes over a dense array, for children whose lattice is kept mostly whole.

    Its depth-first step (the Schur elimination, the three bounds, the score) is written out here as in
    :func:`walk_child`, on purpose: moved into shared compiled functions (tables identical) it made this
    walk 26-35 % slower at 20 variables, 1,000 rows (best of 7, under the lock, 2026-11-29), with or
    without numba's ``inline="always"``; the look-up walk was unchanged.  A change to the step goes in
    both; ``tests/test_gaussian_pruning.py`` checks that every walk gives the same table and that both give
    the brute-force ε-set.

    Why: looking up the ``|X| - 1`` other immediate subsets of every set (for Apriori and ``B(X)``)
    is most of :func:`walk_child`'s time on wide lattices (measured: 530 -> 207 ns per set on a
    child of 21 variables without them), and those look-ups jump across a 2^m array.  Here

    1. the depth-first walk scores every set it reaches, without look-ups, into ``s[mask]``
       (``-inf`` for sets it does not reach); a set is excluded with its subtree by
       ``parent_count``, by ``gain`` and by ``ceiling`` with ``B(X)`` replaced by the best score on
       its path from the root (its ancestors are subsets of it, so that is a lower bound of
       ``B(X)`` and the rule stays valid);
    2. ``F[X] = max_{Z ⊆ X} s[Z]`` by the subset-maximum transform (one sequential pass per
       bit);
    3. a reached set is kept unless ``F[X] - s[X] > ε`` (+ tolerance): if ``F[X] > s[X]`` the
       maximum is over proper subsets, so this is the ``dominated`` rule.

    Sets that :func:`walk_child` would not generate (a subset excluded by a bound) may be scored
    here, and are then dominated: a bound that excluded ``Z ⊆ X`` exhibits a scored subset of
    ``X`` better by more than ε (the path of ``Z`` for ``ceiling``, ``∅`` for ``parent_count``,
    ``X ∖ j`` or, by induction on ``|X|``, a subset of it for ``gain``).  So the kept sets are the
    same; the counters and ``n_scored`` differ.  Returns what :func:`walk_child` returns.
    """
    m = Mc.shape[0] - 1
    yi = m
    size = np.int64(1) << np.int64(m)
    counters = np.zeros(4, dtype=np.int64)
    s_all = np.full(size, -np.inf)
    depth = limit + 1
    mats = np.empty((depth, m + 1, m + 1), dtype=np.float64)
    for a in range(m + 1):
        for b in range(a + 1):
            mats[0, a, b] = Mc[a, b]
    masks = np.zeros(depth, dtype=np.int64)
    ells = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    lrs = np.zeros(depth, dtype=np.float64)
    ldets = np.zeros(depth, dtype=np.float64)
    pbest = np.zeros(depth, dtype=np.float64)
    s0 = A[0] + Bc[0] * lnDy
    s_all[0] = s0
    pbest[0] = s0
    n_scored = 1
    ells[0] = m
    d = 0
    while d >= 0:
        if d >= limit or nxt[d] >= ells[d]:
            d -= 1
            continue
        j = nxt[d]
        nxt[d] += 1
        X = masks[d] | (np.int64(1) << np.int64(j))
        p = d + 1
        B = pbest[d]
        piv = mats[d, j, j]
        lpiv = math.log(piv)
        ldetX = ldets[d] + lnD[j] + lpiv
        if prune:
            if p > kmax:
                counters[0] += 1
                continue
            ub = ceil[p] + Cc * ldetX
            if B - ub > eps + _tol(rtol, B, ub, 0.0):
                counters[1] += 1
                continue
            if G >= 0.0:
                gy = lrs[d] - lrCy
                gj = lpiv - lrC[j]
                g = gy if gy < gj else gj
                if g < 0.0:
                    g = 0.0
                gain = G * g
                if gcost[j] - gain > eps + _tol(rtol, B, gcost[j], gain):
                    counters[2] += 1
                    continue
        myy = mats[d, yi, yi]
        myj = mats[d, yi, j]
        r2 = myj * myj / (piv * myy)
        lrX = lrs[d] + math.log1p(-r2)
        s = A[p] + Bc[p] * (lnDy + lrX) + Cc * ldetX
        n_scored += 1
        s_all[X] = s
        if j > 0 and p < limit:
            src = mats[d]
            dst = mats[d + 1]
            for a in range(j):
                f = src[j, a] / piv
                for b in range(a + 1):
                    dst[a, b] = src[a, b] - f * src[j, b]
            f = myj / piv
            for b in range(j):
                dst[yi, b] = src[yi, b] - f * src[j, b]
            dst[yi, yi] = myy - f * myj
            d += 1
            masks[d] = X
            ells[d] = j
            nxt[d] = 0
            lrs[d] = lrX
            ldets[d] = ldetX
            pbest[d] = s if s > B else B
    # F[X] = max over subsets: one sequential pass per bit.
    F = s_all.copy()
    for i in range(m):
        half = np.int64(1) << np.int64(i)
        step = half << np.int64(1)
        for hi in range(0, size, step):
            for lo in range(hi + half, hi + step):
                v = F[lo - half]
                if v > F[lo]:
                    F[lo] = v
    n_out = 0
    for X in range(size):
        s = s_all[X]
        if s != -np.inf and not (prune and F[X] - s > eps + _tol(rtol, F[X], s, 0.0)):
            n_out += 1
    out_m = np.empty(n_out, dtype=np.int64)
    out_s = np.empty(n_out, dtype=np.float64)
    k = 0
    for X in range(size):
        s = s_all[X]
        if s != -np.inf:
            if prune and F[X] - s > eps + _tol(rtol, F[X], s, 0.0):
                counters[3] += 1
            else:
                out_m[k] = X
                out_s[k] = s
                k += 1
    return out_m, out_s, counters, n_scored
