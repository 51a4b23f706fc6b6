"""The numpy lattice walk's candidate generation: every candidate ``Y ∪ {j}`` of a level's rows
with the bound rules applied as whole-array operations (:func:`_generate`), in chunks of
:data:`GEN_CHUNK_BYTES` (:func:`_row_chunks`), and the rows not worth extending
(:func:`_level_spent`).

Same rules, same order of attribution and same arithmetic as the reference walk
(:func:`.walk_python._bound_rule`, :func:`.walk_python._spent_sets`) and the compiled kernel
(:mod:`.walk_kernel`); ``docs/pruning.md`` has the proofs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import pruning as P
from .lattice_level import _Level, _LevelKeys
from .walk_state import _Run


#: Bytes of candidate arrays generated at once (then filtered by the rules).  The numpy generation
#: takes every child of a piece in one call, so a chunk is the transient memory of that call: 32 MB
#: (about 90,000 candidates of size 3) already spreads numpy's per-call cost thin.
GEN_CHUNK_BYTES = 32 * 1024**2


def _row_chunks(maxy: np.ndarray, vr: np.ndarray, k: int, j0: int, j1: int) -> list[tuple[int, int, int]]:
    """Ranges ``(a, b, candidates)`` of rows (largest element ``maxy``, child ``vr``) whose candidates
    (``j`` in ``[j0, j1)``) fit in :data:`GEN_CHUNK_BYTES`."""
    if not maxy.size:
        return []
    lo = np.maximum(maxy + 1, j0)
    cnt = np.maximum(j1 - lo, 0) - ((vr >= lo) & (vr < j1))
    cost = np.cumsum(cnt * (48 * k + 200) + (j1 - j0))
    ccnt = np.cumsum(cnt)
    out = []
    a = 0
    M = maxy.size
    while a < M:
        base = cost[a - 1] if a > 0 else 0
        b = int(np.searchsorted(cost, base + GEN_CHUNK_BYTES, side="right"))
        b = min(max(b, a + 1), M)
        out.append((a, b, int(ccnt[b - 1] - (ccnt[a - 1] if a > 0 else 0))))
        a = b
    return out


def _max_elements(lv: _Level, k: int, rows: slice | np.ndarray) -> np.ndarray:
    """Largest element of the sets ``rows`` of a level read to build size ``k`` (-1 for the empty set)."""
    if k > 1:
        return lv.elems[rows, -1].astype(np.int64)
    return np.full(lv.masks[rows].size, -1, dtype=np.int64)


@dataclass(frozen=True)
class _Consts:
    """Per-variable arrays every generation call reads (arities, their logs, bits, ...)."""

    ar: np.ndarray        # int64 arities
    arf: np.ndarray       # float arities
    lnr: np.ndarray       # ln max(arity, 1)
    bit: np.ndarray       # int64 1 << v
    nonunit: np.ndarray   # int64: arity >= 2
    cols: np.ndarray      # int64 0 .. n - 1
    llc: np.ndarray       # LL(v | all others)
    rmin_from: np.ndarray  # float (n + 1,): least arity of the variables p .. n - 1 (1 at p = n)

    @staticmethod
    def of(run: _Run) -> "_Consts":
        n = len(run.names)
        ar = np.asarray(run.ar, dtype=np.int64)
        arf = ar.astype(np.float64)
        rmin_from = np.ones(n + 1)
        rmin_from[:n] = np.minimum.accumulate(arf[::-1])[::-1]
        return _Consts(ar, arf, np.log(np.maximum(arf, 1.0)), np.left_shift(np.int64(1), np.arange(n, dtype=np.int64)),
                       (ar > 1).astype(np.int64), np.arange(n, dtype=np.int64), run.llc, rmin_from)


def _spent_rows(run: _Run, child: np.ndarray, best: np.ndarray, q: np.ndarray, maxy: np.ndarray,
                c: _Consts) -> np.ndarray | None:
    """Sets (rows: child, best score of the set or a subset, q, largest element) that the walk
    need not extend, because the ``ll_ceiling`` rule excludes every one-larger superset; None when
    the rule does not apply.

    Why: on small data most of the last level's candidates come from such sets (wine's level 5:
    8,198 of 13,148; zoo's level 4: 9,730 of 26,538), and each cost its Apriori look-ups and its
    rules before being excluded.  A set ``Y ∪ {j}`` (``j > max Y``) has ``B ≥ best(Y)`` and
    ``q ≥ q_Y · rmin`` (``rmin``: the least arity after ``max Y``), so the rule's margin for it is
    at least this row's, and it fires whenever the row's does (``docs/pruning.md``, "Sets not
    extended").  The table is unchanged; such sets are counted once under ``ll_ceiling``
    (:func:`_count_spent`) instead of their supersets under whichever rule fired first.
    """
    if not (run.prune and run.coef > 0 and "ll_ceiling" in run.rules):
        return None
    assert run.pruned_arr is not None
    rv = c.ar[child]
    pen = run.coef * (rv - 1) * (q * c.rmin_from[maxy + 1])
    u = c.llc[child] - pen
    return run.pruned_arr[child] & (rv > 1) & (best <= 0) & P.fires_array(best - u, run.eps, best, u)


def _count_spent(run: _Run, child: np.ndarray, maxy: np.ndarray, spent: np.ndarray) -> None:
    """Credit ``ll_ceiling`` with the spent sets that had a one-larger superset to generate."""
    n = len(run.names)
    has_ext = (n - 1 - maxy) - (child > maxy) >= 1
    for v, cnt in enumerate(np.bincount(child[spent & has_ext], minlength=n).tolist()):
        if cnt:
            run.counters[v]["ll_ceiling"] = run.counters[v].get("ll_ceiling", 0) + cnt


#: Rows of a level :func:`_level_spent` tests at once: bounds its temporaries (about 50 bytes a row)
#: on levels of millions of rows (steel's reach 9 M) to some 13 MB, in one pass on small data.
SPENT_CHUNK_ROWS = 1 << 18


def _level_spent(run: _Run, cat: _Level, off: np.ndarray, grow: list[bool], k: int,
                 c: _Consts) -> np.ndarray | None:
    """:func:`_spent_rows` of a whole level (growing children only), counted; None when there are none."""
    if not (run.prune and run.coef > 0 and "ll_ceiling" in run.rules):
        return None
    total = int(cat.masks.size)
    growing = np.asarray(grow, dtype=bool)
    spent = np.zeros(total, dtype=bool)
    for a in range(0, total, SPENT_CHUNK_ROWS):
        b = min(total, a + SPENT_CHUNK_ROWS)
        child = np.searchsorted(off, np.arange(a, b, dtype=np.int64), side="right") - 1
        maxy = _max_elements(cat, k, slice(a, b))
        part = _spent_rows(run, child, cat.best[a:b], cat.q[a:b], maxy, c)
        if part is None:
            return None
        part &= growing[child]
        if part.any():
            _count_spent(run, child, maxy, part)
            spent[a:b] = part
    return spent if spent.any() else None


def _across(op: np.ufunc, a: np.ndarray) -> np.ndarray:
    """``op`` folded across the columns of ``a`` (``op.reduce(a, axis=1)``, the same values): a level
    has at most a few dozen columns and many rows, where one pass per column is several times
    faster than numpy's row-wise reduction."""
    out = a[:, 0].copy()
    for t in range(1, a.shape[1]):
        op(out, a[:, t], out=out)
    return out


def _gather_across(op: np.ufunc, values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``_across(op, values[idx])`` without the (rows x columns) gather: one column at a time, so
    the temporaries are a column long (the same values: ``op`` is max or min, exact in any order)."""
    out = values[idx[:, 0]]
    for t in range(1, idx.shape[1]):
        op(out, values[idx[:, t]], out=out)
    return out


def _generate(run: _Run, cat: _Level, keys: _LevelKeys, rows: np.ndarray, vr: np.ndarray, maxy: np.ndarray,
              k: int, j0: int, j1: int, c: _Consts) -> Any:
    """Candidates ``Y ∪ {j}`` (``j0 <= j < j1``, ``j > max Y``) of size ``k`` from the level's rows ``rows``.

    ``rows`` index the whole level ``cat`` (every child's sets, child by
    child), ``vr`` is each row's child and ``maxy`` its largest element (as
    :func:`_max_elements` gives it), so one call generates and filters
    the candidates of many children: a level costs a few dozen numpy calls,
    not that many per child.  Every rule reads its child's own parameters
    element-wise, with the same arithmetic as one child at a time.
    Returned after the bound rules, as ``(children, masks, elements, best
    subset score, q, parents of arity >= 2, ml ceiling of the subsets)``.
    """
    eps, prune, coef, R = run.eps, run.prune, run.coef, run.rules
    ar, arf, lnr, bit, nonunit, cols, llc = c.ar, c.arf, c.lnr, c.bit, c.nonunit, c.cols, c.llc
    n = len(run.names)
    cj = cols[j0:j1]
    ok = (cj[None, :] > maxy[:, None]) & (cj[None, :] != vr[:, None])
    yi, jj = np.nonzero(ok)
    if yi.size == 0:
        return None
    v = vr[yi]
    yi = rows[yi]
    jj += j0
    xm = cat.masks[yi] | bit[jj]
    if k > 1:
        # every immediate subset as (mask, row in the level, dropped element): column t < k - 1 is X
        # minus Y's t-th element and the last column is Y itself (j dropped), so the dropped
        # elements, column by column, are X's elements in order
        ye = cat.elems[yi]
        last = ye.shape[1]                          # Y has k - 1 elements: k immediate subsets
        sub_m = np.empty((yi.size, last + 1), dtype=np.int64)
        np.bitwise_xor(xm[:, None], bit[ye], out=sub_m[:, :last])
        sub_m[:, last] = cat.masks[yi]
        sidx, found = keys.find(v[:, None], sub_m[:, :last])
        keep = _across(np.logical_and, found)
        if not keep.all():                          # Apriori: every immediate subset in the level
            i = np.flatnonzero(keep)
            if i.size == 0:
                return None
            v, yi, jj, xm, ye, sub_m, sidx = v[i], yi[i], jj[i], xm[i], ye[i], sub_m[i], sidx[i]
        sub_i = np.empty(sub_m.shape, dtype=np.int64)
        sub_i[:, :last] = sidx
        sub_i[:, last] = yi
        drop = np.empty(sub_m.shape, dtype=np.int64)
        drop[:, :last] = ye
        drop[:, last] = jj
    else:
        sub_m = cat.masks[yi][:, None]
        sub_i = yi[:, None]
        drop = jj[:, None]
    best = _gather_across(np.maximum, cat.best, sub_i)
    # without ml_ceiling every bound is +inf (the scorer computes none)
    ubi = _gather_across(np.minimum, cat.ub, sub_i) if "ml_ceiling" in R else np.full(yi.size, np.inf)
    qx = cat.q[yi] * arf[jj]
    nnu = cat.nnu[yi] + nonunit[jj]
    alive = np.ones(yi.size, dtype=bool)
    if run.vlim_arr is not None:
        alive &= nnu <= run.vlim_arr[v]
    if prune:
        fired: dict[str, np.ndarray] = {}
        pv = run.pruned_arr[v]                          # children the rules may prune
        rv = ar[v]
        if coef > 0:
            pen_ok = pv & (rv > 1)
            pen = coef * (rv - 1) * qx
            if "parent_count" in R and run.kmax_arr is not None:
                f = alive & pen_ok & (nnu > run.kmax_arr[v])
                fired["parent_count"] = f
                alive &= ~f
            if "penalty_bound" in R:
                f = alive & pen_ok & P.fires_array(best + pen, eps, best, pen)
                fired["penalty_bound"] = f
                alive &= ~f
            if "ll_ceiling" in R:
                u = llc[v] - pen
                f = alive & pen_ok & P.fires_array(best - u, eps, best, u)
                fired["ll_ceiling"] = f
                alive &= ~f
            if "entropy" in R:
                a = np.flatnonzero(alive & pen_ok)
                if a.size:
                    # one immediate subset (column) at a time: the temporaries are a column long,
                    # which keeps them in cache and out of fresh memory (session 19)
                    llv = llc[v[a]]
                    qa = qx[a]
                    cv = coef * (rv[a] - 1)
                    fa = np.zeros(a.size, dtype=bool)
                    for t in range(sub_i.shape[1]):
                        ll_sub = cat.ll[sub_i[a, t]]
                        n_ent = llv - ll_sub                      # -a + b bit for bit
                        d = drop[a, t]
                        pos, hit = keys.find(d, sub_m[a, t])
                        other = np.where(hit, -cat.ll[pos] + llc[d], np.inf)
                        np.minimum(n_ent, other, out=n_ent)
                        rd = arf[d]
                        # coef * (r_v - 1) * (q_X / r_d) * (r_d - 1), evaluated in that order, in place
                        step = qa / rd
                        np.multiply(cv, step, out=step)
                        step *= rd - 1
                        fa |= (rd > 1) & P.fires_array(step - n_ent, eps, ll_sub, step)
                    f = np.zeros_like(alive)
                    f[a] = fa
                    fired["entropy"] = f
                    alive &= ~f
        if "cell_bound" in R:
            a = np.flatnonzero(alive & pv & (rv > 1))
            if a.size:
                n_cells = _across(np.maximum, cat.cells[sub_i[a]]).astype(np.float64)
                u = -n_cells * lnr[v[a]]
                f = np.zeros_like(alive)
                f[a] = P.fires_array(best[a] - u, eps, best[a], u)
                fired["cell_bound"] = f
                alive &= ~f
        if "ml_ceiling" in R:
            f = alive & pv & P.fires_array(best - ubi, eps, best, ubi)
            fired["ml_ceiling"] = f
            alive &= ~f
        if "user_bound" in R and (alive & pv).any():
            f = np.zeros_like(alive)
            for i in np.flatnonzero(alive & pv):        # drop's rows are the candidates' elements
                ub_i = float(run.sc.upper_bound(int(v[i]), tuple(int(t) for t in drop[i])))
                f[i] = P.user_bound(ub_i, float(best[i]), eps)
            fired["user_bound"] = f
            alive &= ~f
        for r, f in fired.items():
            if not f.any():
                continue
            for child, cnt in enumerate(np.bincount(v[f], minlength=n).tolist()):
                if cnt:
                    run.counters[child][r] += cnt
    live = np.flatnonzero(alive)
    if live.size == alive.size:          # nothing removed (the low levels): no copies
        return (v, xm, drop, best, qx, nnu, ubi)
    if not live.size:
        return None
    return (v[live], xm[live], drop[live], best[live], qx[live], nnu[live], ubi[live])
