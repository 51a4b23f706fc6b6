"""Compiled (numba) candidate generation for the lattice walk, penalised scores (BIC, AIC).

Why: once counting and scoring run in a compiled kernel, generating a level's
candidates -- the Apriori join, the look-ups of every immediate subset, and the
bound rules ``parent_count``, ``penalty_bound``, ``ll_ceiling`` and ``entropy``
-- is what the wide data sets spend their time on: the numpy version makes a
dozen passes over (candidates x parents) arrays and one look-up pass per
dropped element.  This loop visits each candidate once.

Same answers as :func:`gobnilp_py.scoring.engine._generate` by construction
and by test (``tests/test_walk_kernel.py`` compares whole tables and every rule
counter): the candidates come out in the same order (rows of the level, then
``j`` ascending), every floating-point expression is evaluated with the same
operations in the same order (no fast-math), so every rule fires on exactly the
same sets.  Only penalised scores with no other rule use it; the engine falls
back to numpy otherwise.  numba is optional (``pip install gobnilp_py[fast]``);
without it :data:`AVAILABLE` is False and nothing is compiled.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AVAILABLE", "generate_penalised"]

try:  # pragma: no cover - depends on the installation
    import numba as _nb
except ImportError:  # pragma: no cover
    _nb = None

AVAILABLE = _nb is not None

#: The rules the kernel applies (in engine order); a score declaring any other rule uses numpy.
RULES = ("parent_count", "penalty_bound", "ll_ceiling", "entropy")

if AVAILABLE:  # pragma: no cover - exercised only where numba is installed
    _jit = _nb.njit(cache=True, nogil=True)

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
    def _generate(masks, elems, best_l, ll_l, q_l, nnu_l, ub_l, a0, b0, j0, j1, v, k,
                  bit, arf, nonunit, llc, all_masks, all_ll, all_ptr,
                  eps, rtol, coef, rv, kmax, vlim, do_prune, r_pc, r_pb, r_llc, r_ent,
                  out_m, out_e, out_b, out_q, out_n, out_u, counters):
        n_out = 0
        km1 = k - 1
        sub_pos = np.empty(km1 + 1, dtype=np.int64)
        sub_msk = np.empty(km1 + 1, dtype=np.int64)
        drop = np.empty(km1 + 1, dtype=np.int64)
        for y in range(a0, b0):
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
                    p = _find(masks, 0, masks.shape[0], s)
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
                            lo = all_ptr[d]
                            hi = all_ptr[d + 1]
                            if hi > lo:
                                p = _find(all_masks, lo, hi, sub_msk[t])
                                if p >= 0:
                                    other = -all_ll[p] + llc[d]
                                    if other < n_ent:
                                        n_ent = other
                            step = coef * (rv - 1) * (qx / rd) * (rd - 1)
                            scale = max(1.0, abs(ll_sub), abs(step))
                            if step - n_ent > eps + rtol * scale:
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


def generate_penalised(lv, a0: int, b0: int, j0: int, j1: int, v: int, k: int, bit: np.ndarray,
                       arf: np.ndarray, nonunit: np.ndarray, llc: np.ndarray, others: tuple,
                       eps: float, rtol: float, coef: float, rv: int, kmax: int | None, vlim: int | None,
                       do_prune: bool, rules: frozenset[str], n_max: int):
    """Candidates of ``v`` from rows ``a0:b0`` of its level ``lv`` with ``j0 <= j < j1``.

    Returns ``(masks, elements, best, q, nnu, ub, counters)`` of the surviving
    candidates, ``counters`` = sets removed by parent_count, penalty_bound,
    ll_ceiling, entropy.  ``others`` = ``(masks, ll, ptr)``: every child's
    previous level concatenated (the ``entropy`` rule's look-ups).
    ``n_max`` bounds the candidates (sizes the output).
    """
    out_m = np.empty(n_max, dtype=np.int64)
    out_e = np.empty((n_max, k), dtype=np.int64)
    out_b = np.empty(n_max)
    out_q = np.empty(n_max)
    out_n = np.empty(n_max, dtype=np.int64)
    out_u = np.empty(n_max)
    counters = np.zeros(4, dtype=np.int64)
    all_masks, all_ll, all_ptr = others
    m = _generate(lv.masks, lv.elems, lv.best, lv.ll, lv.q, lv.nnu, lv.ub, a0, b0, j0, j1, v, k,
                  bit, arf, nonunit, llc, all_masks, all_ll, all_ptr,
                  float(eps), float(rtol), float(coef), int(rv), -1 if kmax is None else int(kmax),
                  -1 if vlim is None else int(vlim), bool(do_prune),
                  "parent_count" in rules, "penalty_bound" in rules, "ll_ceiling" in rules, "entropy" in rules,
                  out_m, out_e, out_b, out_q, out_n, out_u, counters)
    return out_m[:m], out_e[:m], out_b[:m], out_q[:m], out_n[:m], out_u[:m], counters
