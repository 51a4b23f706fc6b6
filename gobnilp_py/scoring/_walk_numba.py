"""Compiled (numba) candidate generation for the lattice walk, penalised scores (BIC, AIC).

Why: once counting and scoring run in a compiled kernel, generating a level's
candidates -- the Apriori join, the look-ups of every immediate subset, and the
bound rules ``parent_count``, ``penalty_bound``, ``ll_ceiling`` and ``entropy``
-- is what the wide data sets spend their time on: the numpy version makes a
dozen passes over (candidates x parents) arrays and one look-up pass per
dropped element.  This loop visits each candidate once.

Look-ups (issue 14).  A candidate ``X = Y | {j}`` of size ``k`` needs its
``k - 1`` other immediate subsets in the child's own previous level (Apriori;
``Y`` itself is the row being extended), and the ``entropy`` rule may need
``X - {d}`` in child ``d``'s previous level for every ``d`` in ``X``.

* Own level: an open-addressing hash table per child (:func:`build_tables`,
  built once per level): linear probing, exactly half full, each slot -1 or
  a row position within the child's level, the home slot from a splitmix64
  mix of the mask; a look-up (:func:`_probe`) verifies ``masks[pos] == q``.
  A child's level and its table are a few MB and stay in cache, so a
  look-up costs a couple of cache hits instead of a binary search's ~17
  dependent, mispredicted probes (measured: 2.6 times faster on the first
  40 kernel calls of spectf's level 5 with the entropy rule off).
* Entropy: hashing was tried for these too and was *slower* than the binary
  search (all 45 children's tables and masks, ~150 MB on spectf, do not fit
  in cache, and every hashed look-up is two random memory accesses, while
  the binary searches of successive candidates share their upper probes).
  Instead the look-up is skipped when it cannot change the decision: the
  rule fires iff ``step - min(n_ent, other) > thr``, i.e. iff it fires on
  ``n_ent`` alone or on ``other`` alone (IEEE subtraction is monotone), and
  ``other >= floor[d]``, the least ``-LL + llc[d]`` over child ``d``'s level
  (:func:`entropy_floor`, the same float expression).  So ``d`` is looked up
  (by binary search, as before) only when neither ``n_ent`` has fired nor
  ``floor[d]`` rules a firing out; on spectf that is almost never.

Neither changes a decision: a present mask is found at the binary search's
position (masks are distinct), an absent one is absent either way, and a
skipped entropy look-up is one whose result could not have fired the rule --
so every candidate, its order and every rule counter are unchanged.

Same answers as :func:`gobnilp_py.scoring.lattice_generate._generate` by construction
and by test (``tests/test_walk_kernel.py`` compares whole tables and every rule
counter): the candidates come out in the same order (rows of the level, then
``j`` ascending), every floating-point expression is evaluated with the same
operations in the same order (no fast-math), so every rule fires on exactly the
same sets.  Only penalised scores with no other rule use it; the engine falls
back to numpy otherwise.  numba is a dependency;
without it :data:`AVAILABLE` is False and nothing is compiled.
"""

from __future__ import annotations

import numpy as np

from .._interrupt import held

__all__ = ["AVAILABLE", "build_tables", "entropy_floor", "generate_penalised", "lookup"]

from .._numba import AVAILABLE
from .._numba import jit as _jit

#: The rules the kernel applies (in engine order); a score declaring any other rule uses numpy.
RULES = ("parent_count", "penalty_bound", "ll_ceiling", "entropy")

if AVAILABLE:  # pragma: no cover - exercised only where numba is installed

    #: splitmix64's finaliser constants (Steele, Lea & Flood 2014): a bijective 64-bit mix whose
    #: every output bit depends on every input bit, so masks differing in one high bit spread.
    _MIX1 = np.uint64(0xBF58476D1CE4E5B9)
    _MIX2 = np.uint64(0x94D049BB133111EB)
    _LOW32 = np.uint64(0xFFFFFFFF)

    @_jit
    def _find(masks, lo, hi, q):
        """Position of ``q`` in the sorted ``masks[lo:hi]``, or -1."""
        a, b = lo, hi
        while a < b:
            m = (a + b) >> 1
            if masks[m] < q:
                a = m + 1
            else:
                b = m
        if a < hi and masks[a] == q:
            return a
        return -1

    @_jit
    def _home(q, size):
        """Home slot of mask ``q`` in a table of ``size`` slots (``0 <= slot < size``).

        splitmix64 of the mask, then its top 32 bits scaled to ``[0, size)`` by
        a multiply and a shift (Lemire's reduction: no division, any size, so a
        table can be exactly twice its level).  Tables of ``2**32`` slots or
        more take the full 64x64 high product.
        """
        z = np.uint64(q)
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
        m = np.uint64(size)
        if m <= _LOW32:
            return np.int64(((z >> np.uint64(32)) * m) >> np.uint64(32))
        # high 64 bits of z * m from 32-bit halves
        zl = z & _LOW32
        zh = z >> np.uint64(32)
        ml = m & _LOW32
        mh = m >> np.uint64(32)
        mid = ((zl * ml) >> np.uint64(32)) + ((zl * mh) & _LOW32) + ((zh * ml) & _LOW32)
        return np.int64(zh * mh + ((zl * mh) >> np.uint64(32)) + ((zh * ml) >> np.uint64(32))
                        + (mid >> np.uint64(32)))

    @_jit
    def _build(keys, k0, k1, slots, s0, size):
        """Insert rows ``k0:k1`` of ``keys`` (distinct masks) into ``slots[s0:s0 + size]`` (all -1).

        A slot holds the row's position relative to ``k0``; linear probing.
        ``size`` must exceed the row count (an empty slot ends every probe).
        """
        for r in range(k0, k1):
            i = _home(keys[r], size)
            while slots[s0 + i] >= 0:
                i += 1
                if i == size:
                    i = 0
            slots[s0 + i] = r - k0

    @_jit
    def _build_all(keys, kptr, slots, sptr):
        """One table per child ``d``: rows ``kptr[d]:kptr[d + 1]`` into slots ``sptr[d]:sptr[d + 1]``."""
        for d in range(kptr.shape[0] - 1):
            size = sptr[d + 1] - sptr[d]
            if size > 0:
                _build(keys, kptr[d], kptr[d + 1], slots, sptr[d], size)

    @_jit
    def _ent_floor(all_ll, ptr, llc, out):
        """``out[d]`` = least ``-all_ll[r] + llc[d]`` over child ``d``'s rows (NaN rows skipped; +inf if none)."""
        for d in range(ptr.shape[0] - 1):
            f = np.inf
            for r in range(ptr[d], ptr[d + 1]):
                o = -all_ll[r] + llc[d]
                if o < f:
                    f = o
            out[d] = f

    @_jit
    def _probe(slots, s0, size, keys, k0, q):
        """Position of mask ``q`` among rows ``keys[k0:]`` through the table ``slots[s0:s0 + size]``, or -1.

        Walks from the home slot until an empty slot (absent) or a slot whose
        row holds ``q`` (found); at most half the slots are used, so the walk
        is short (expected 1.5 probes found, 2.5 absent) and always ends.
        """
        if size == 0:
            return -1
        i = _home(q, size)
        while True:
            p = slots[s0 + i]
            if p < 0:
                return -1
            if keys[k0 + p] == q:
                return np.int64(p)
            i += 1
            if i == size:
                i = 0

    @_jit
    def _probe_many(slots, keys, queries, out):
        for t in range(queries.shape[0]):
            out[t] = _probe(slots, 0, slots.shape[0], keys, 0, queries[t])

    @_jit
    def _generate(masks, elems, best_l, ll_l, q_l, nnu_l, ub_l, spent, a0, b0, j0, j1, v, k,
                  bit, arf, nonunit, llc, all_masks, all_ll, all_ptr, ent_floor, slots, sptr,
                  eps, rtol, coef, rv, kmax, vlim, do_prune, r_pc, r_pb, r_llc, r_ent,
                  out_m, out_e, out_b, out_q, out_n, out_u, counters):
        n_out = 0
        km1 = k - 1
        sub_pos = np.empty(km1 + 1, dtype=np.int64)
        sub_msk = np.empty(km1 + 1, dtype=np.int64)
        drop = np.empty(km1 + 1, dtype=np.int64)
        # v's own level is rows all_ptr[v]:all_ptr[v + 1] of the tables' keys, i.e. ``masks``
        s_v = sptr[v]
        size_v = sptr[v + 1] - s_v
        for y in range(a0, b0):
            if spent[y]:          # every one-larger superset fails ll_ceiling (lattice_generate._spent_rows)
                continue
            maxy = elems[y, km1 - 1] if km1 > 0 else -1
            jstart = j0 if j0 > maxy + 1 else maxy + 1
            for j in range(jstart, j1):
                if j == v:
                    continue
                xm = masks[y] | bit[j]
                # every immediate subset must be present (Apriori); Y itself is row y
                sub_pos[0] = y
                sub_msk[0] = masks[y]
                drop[0] = j
                ok = True
                for t in range(km1):
                    e = elems[y, t]
                    s = xm ^ bit[e]
                    p = _probe(slots, s_v, size_v, masks, 0, s)
                    if p < 0:
                        ok = False
                        break
                    sub_pos[t + 1] = p
                    sub_msk[t + 1] = s
                    drop[t + 1] = e
                if not ok:
                    continue
                best = best_l[sub_pos[0]]
                ubi = ub_l[sub_pos[0]]
                for t in range(1, km1 + 1):
                    bt = best_l[sub_pos[t]]
                    if bt > best:
                        best = bt
                    ut = ub_l[sub_pos[t]]
                    if ut < ubi:
                        ubi = ut
                qx = q_l[y] * arf[j]
                nnu = nnu_l[y] + nonunit[j]
                if vlim >= 0 and nnu > vlim:
                    continue
                if do_prune and rv > 1 and coef > 0:
                    pen = coef * (rv - 1) * qx
                    if r_pc and kmax >= 0 and nnu > kmax:
                        counters[0] += 1
                        continue
                    if r_pb:
                        scale = max(1.0, abs(best), abs(pen))
                        if best + pen > eps + rtol * scale:
                            counters[1] += 1
                            continue
                    if r_llc:
                        u = llc[v] - pen
                        scale = max(1.0, abs(best), abs(u))
                        if best - u > eps + rtol * scale:
                            counters[2] += 1
                            continue
                    if r_ent:
                        fired = False
                        for t in range(km1 + 1):
                            d = drop[t]
                            rd = arf[d]
                            if not rd > 1:
                                continue
                            ll_sub = ll_l[sub_pos[t]]
                            n_ent = -ll_sub + llc[v]
                            step = coef * (rv - 1) * (qx / rd) * (rd - 1)
                            scale = max(1.0, abs(ll_sub), abs(step))
                            thr = eps + rtol * scale
                            # fires iff step - min(n_ent, other) > thr, i.e. on n_ent alone or on
                            # other < n_ent alone (rounding is monotone); look d up only if needed
                            if step - n_ent > thr:
                                fired = True
                                break
                            if n_ent == n_ent and step - ent_floor[d] > thr:
                                lo = all_ptr[d]
                                hi = all_ptr[d + 1]
                                if hi > lo:
                                    p = _find(all_masks, lo, hi, sub_msk[t])
                                    if p >= 0:
                                        other = -all_ll[p] + llc[d]
                                        if other < n_ent and step - other > thr:
                                            fired = True
                                            break
                        if fired:
                            counters[3] += 1
                            continue
                out_m[n_out] = xm
                for t in range(km1):
                    out_e[n_out, t] = elems[y, t]
                out_e[n_out, km1] = j
                out_b[n_out] = best
                out_q[n_out] = qx
                out_n[n_out] = nnu
                out_u[n_out] = ubi
                n_out += 1
        return n_out


def build_tables(masks: np.ndarray, ptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hash tables of every child's level, as a CSR: ``(slots, sptr)``.

    ``masks[ptr[d]:ptr[d + 1]]`` is child ``d``'s level (sorted, distinct
    int64 masks).  Child ``d``'s table is ``slots[sptr[d]:sptr[d + 1]]``:
    exactly twice as many slots as rows (load factor 1/2, so probes stay short
    without a power-of-two round-up), each -1 or a row position *within* the
    child's level.  Slots are int32 when every child has fewer than ``2**31``
    rows -- 8 bytes a stored row, on top of the 16 of the concatenated masks
    and LL -- else int64 (16 bytes a row).  Exactly twice the rows, not a
    power of two: the home slot scales the hash instead of masking it, so the
    load factor (and the memory) does not jump with the level size.  Built
    once per level (about 0.2 s for spectf's 6.1 M rows); a look-up reads one
    slot (rarely two or three, adjacent) and one mask.
    """
    ptr = np.asarray(ptr, dtype=np.int64)
    rows = np.diff(ptr)
    sptr = np.zeros(ptr.size, dtype=np.int64)
    np.cumsum(2 * rows, out=sptr[1:])
    dtype = np.int32 if (rows.size == 0 or int(rows.max()) < 2**31) else np.int64
    slots = np.full(int(sptr[-1]), -1, dtype=dtype)
    if slots.size:
        with held():  # the first call compiles: hold Ctrl-C / SIGTERM (see _interrupt.held)
            _build_all(np.ascontiguousarray(masks, dtype=np.int64), ptr, slots, sptr)
    return slots, sptr


def entropy_floor(all_ll: np.ndarray, ptr: np.ndarray, llc: np.ndarray) -> np.ndarray:
    """Per child ``d``, the least ``-LL + llc[d]`` over its level's rows (``+inf`` for an empty level).

    The ``entropy`` rule takes ``min(n_ent, other)`` with ``other`` that
    expression for ``X - {d}`` in child ``d``'s level: when even this floor
    cannot make the rule fire, the look-up is skipped (same decision).
    Evaluated with the kernel's own expression, so ``other >= floor`` holds
    exactly for every row.
    """
    out = np.empty(ptr.size - 1)
    with held():  # the first call compiles: hold Ctrl-C / SIGTERM (see _interrupt.held)
        _ent_floor(all_ll, np.asarray(ptr, dtype=np.int64), np.asarray(llc, dtype=np.float64), out)
    return out


def build_table(masks: np.ndarray) -> np.ndarray:
    """The hash table of one sorted, distinct int64 mask array (see :func:`build_tables`)."""
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    return build_tables(masks, np.array([0, masks.size], dtype=np.int64))[0]


def lookup(slots: np.ndarray, masks: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Position of each of ``queries`` in ``masks`` through its table ``slots``, or -1 (for tests)."""
    queries = np.ascontiguousarray(queries, dtype=np.int64)
    out = np.empty(queries.size, dtype=np.int64)
    _probe_many(slots, np.ascontiguousarray(masks, dtype=np.int64), queries, out)
    return out


def generate_penalised(lv, a0: int, b0: int, j0: int, j1: int, v: int, k: int, bit: np.ndarray,
                       arf: np.ndarray, nonunit: np.ndarray, llc: np.ndarray, others: tuple,
                       eps: float, rtol: float, coef: float, rv: int, kmax: int | None, vlim: int | None,
                       do_prune: bool, rules: frozenset[str], n_max: int, spent: np.ndarray | None = None):
    """Candidates of ``v`` from rows ``a0:b0`` of its level ``lv`` with ``j0 <= j < j1``, except
    from the rows marked in ``spent`` (bool, one per row of ``lv``; the engine's ``_spent_rows``).

    Returns ``(masks, elements, best, q, nnu, ub, counters)`` of the surviving
    candidates, ``counters`` = sets removed by parent_count, penalty_bound,
    ll_ceiling, entropy.  ``others`` = ``(masks, ll, ptr, slots, sptr)``: every
    child's previous level concatenated and its hash tables
    (:func:`build_tables`), for the Apriori look-ups in ``v``'s own level --
    which must be ``lv`` -- and the ``entropy`` rule's in every child's.
    ``n_max`` bounds the candidates (sizes the output).
    """
    out_m = np.empty(n_max, dtype=np.int64)
    out_e = np.empty((n_max, k), dtype=np.int64)
    out_b = np.empty(n_max)
    out_q = np.empty(n_max)
    out_n = np.empty(n_max, dtype=np.int64)
    out_u = np.empty(n_max)
    counters = np.zeros(4, dtype=np.int64)
    all_masks, all_ll, all_ptr, ent_floor, slots, sptr = others
    lo, hi = int(all_ptr[v]), int(all_ptr[v + 1])
    # the kernel looks v's subsets up in lv through v's table: they must be the same rows
    if hi - lo != lv.masks.size or (hi > lo and (all_masks[lo] != lv.masks[0]
                                                 or all_masks[hi - 1] != lv.masks[-1])):
        raise RuntimeError(f"hash table of child {v} does not match its level")
    with held():  # the first call compiles: hold Ctrl-C / SIGTERM (see _interrupt.held)
        if spent is None:
            spent = np.zeros(lv.masks.size, dtype=np.bool_)
        m = _generate(lv.masks, lv.elems, lv.best, lv.ll, lv.q, lv.nnu, lv.ub, spent, a0, b0, j0, j1, v, k,
                      bit, arf, nonunit, llc, all_masks, all_ll, all_ptr, ent_floor, slots, sptr,
                      float(eps), float(rtol), float(coef), int(rv), -1 if kmax is None else int(kmax),
                      -1 if vlim is None else int(vlim), bool(do_prune),
                      "parent_count" in rules, "penalty_bound" in rules, "ll_ceiling" in rules, "entropy" in rules,
                      out_m, out_e, out_b, out_q, out_n, out_u, counters)
    return out_m[:m], out_e[:m], out_b[:m], out_q[:m], out_n[:m], out_u[:m], counters
