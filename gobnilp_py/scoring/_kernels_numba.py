"""Compiled (numba) counting and scoring of groups of parent sets, used when numba is installed.

Why: on wide data a lattice level holds tens of thousands of (parent set,
child) pairs over a few hundred rows, and the numpy block path
(:meth:`~gobnilp_py.scoring.counts.ParentConfigs.block_counts` then
``block_scores``) spends most of its time in gathers, a ``bincount`` over
every (pair, row) element and temporary arrays.  Here one compiled loop per
group does the same arithmetic with no temporaries:

1. the configuration ids of the parent set are built exactly as
   :meth:`ParentConfigs.ids` builds them (mixed-radix code ``z * r + x`` one
   parent at a time, compressed to dense order-preserving ids whenever the code
   range exceeds ``dense_limit``), reusing the ids of the longest prefix shared
   with the previous set (groups come in lexicographic order), so the ids --
   and hence the order of the configurations -- are those of the numpy path;
2. ``N_j`` is counted once per set and the observed configurations listed;
3. per child, ``N_jk`` is counted over the rows (weighted by the row
   multiplicities when identical rows were merged) into a scratch table that
   is cleared again over the observed configurations only, and scored:

   * penalised LL (BIC, AIC): ``LL = Σ_j (Σ_k t[N_jk] - t[N_j])`` with the
     package's ``t[c] = c ln c`` table (:func:`~gobnilp_py.scoring.counts.xlogx_table`),
     then ``LL - coef * q * (r - 1)`` with ``q`` converted to float from the
     exact Python integer (as the numpy path does);
   * Dirichlet (BDeu, K2, BDs): ``Σ_cells [lnG(a/r + N_jk) - lnG(a/r)] -
     Σ_j [lnG(a + N_j) - lnG(a)]`` with every term read from the same
     per-process table of cumulated logs the numpy path reads
     (:class:`~gobnilp_py.scoring.local_scores._LgammaCache`, counts up to
     ``LGAMMA_TABLE_MAX``) and, above it, from ``lgamma`` (the C library's,
     ``math.lgamma``; scipy's ``gammaln`` reached through a ctypes pointer
     would stop numba from caching the compiled code); both sums run in the numpy path's
     order (configurations ascending, states ascending, empty cells and
     unobserved configurations skipped: they add exactly 0);
   * when asked, the non-empty cells per pair and the ``ml_ceiling`` bound
     ``Σ_j min(ML_j + Δ_j, -d_j ln r - Φ_j)``, ``Φ_j`` / ``Δ_j`` the largest / smallest
     of the caller's per-row mixed-atom penalties inside ``j`` (see
     :mod:`gobnilp_py.scoring.atom_bounds` and
     :func:`gobnilp_py.scoring.parallel._block_ceiling`).

**Tolerance.**  The kernel computes the same quantities from the same counts
with, as far as possible, the same floating-point operations in the same
order: the BIC/AIC log-likelihood is summed per configuration (``Σ_k t[N_jk]
- t[N_j]``) and then over configurations, sequentially, exactly as
:meth:`~gobnilp_py.scoring.local_scores.PenalisedLL.block_scores` does; the
Dirichlet sums and the ``ml_ceiling`` sum follow the numpy path's sequential
``bincount`` order.  On this installation scores, log-likelihoods, cells and
bounds come out bit-identical, with one known exception: a Dirichlet term
with a count above the lgamma table uses the C library's ``lgamma`` where
numpy uses scipy's ``gammaln`` (both accurate to about one unit in the last
place, ~1e-16 relative to the term), and another platform's compiler or C
library may round a term differently.  So the promise, and what
``tests/test_scoring_kernels.py`` checks, is agreement to 1e-12 relative (the
package's own "same score" tolerance is 1e-9), plus equal cell counts.
Which path scores a level is decided once per level by the
caller and sent with the level's chunks to every worker, and the tables are
deterministic for an installation, so serial, process-pool and Dask tables
remain bit-for-bit equal.

numba is a dependency; where it cannot be imported,
:data:`AVAILABLE` is False and nothing here is compiled.  ``cache=True``
keeps the compiled code on disk next to this file (numba falls back to its
user cache when that folder is read-only), so the compile cost (about ten
seconds) is paid once per installation; importing numba and loading the
cached code still cost about 1-1.5 s per process on the project's machine,
which is why the caller only switches to the kernel once a scoring run has
enough work (:data:`gobnilp_py.scoring.parallel.KERNEL_MIN_UNITS`).
"""

from __future__ import annotations

import math

import numpy as np

from .._interrupt import held

__all__ = ["AVAILABLE", "score_sets", "observed_configs"]

from .._numba import AVAILABLE
from .._numba import jit as _jit

if AVAILABLE:  # pragma: no cover - exercised only where numba is installed

    @_jit
    def _lgam(x):
        return math.lgamma(x)

    @_jit
    def _advance(X, ar, set_el, e0, e1, prev, plen, zs, ms, dense_limit, present):
        """Ids of the set ``set_el[e0:e1]`` in ``zs[k]`` (k = its size), reusing the previous set's prefixes.

        ``prev[:plen]`` is the previous set; ``zs[t]`` / ``ms[t]`` hold the ids and range of its
        first ``t`` elements.  Writes the set into ``prev`` and returns its size ``k`` (the caller's
        next ``plen``).
        """
        k = e1 - e0
        common = 0
        while common < k and common < plen and prev[common] == set_el[e0 + common]:
            common += 1
        R = X.shape[1]
        for t in range(common, k):
            p = set_el[e0 + t]
            r = ar[p]
            m = ms[t]
            src = zs[t]
            dst = zs[t + 1]
            if r > 1:
                xp = X[p]
                for i in range(R):
                    dst[i] = src[i] * r + xp[i]
                m = m * r
                if m > dense_limit:
                    # order-preserving dense ids of the observed codes (ParentConfigs._compress)
                    for c in range(m):
                        present[c] = 0
                    for i in range(R):
                        present[dst[i]] = 1
                    cnt = 0
                    for c in range(m):
                        if present[c]:
                            present[c] = cnt
                            cnt += 1
                        else:
                            present[c] = -1
                    for i in range(R):
                        dst[i] = present[dst[i]]
                    m = cnt
            else:
                for i in range(R):
                    dst[i] = src[i]
            ms[t + 1] = m
        for t in range(common, k):
            prev[t] = set_el[e0 + t]
        return k

    @_jit
    def _scratch(set_ptr, R, max_code):
        """The prefix state :func:`_advance` works in: ids and ranges per prefix length, the
        compression table and the previous set, sized for the largest set of ``set_ptr``."""
        kmax = 0
        for s in range(set_ptr.size - 1):
            kmax = max(kmax, set_ptr[s + 1] - set_ptr[s])
        zs = np.zeros((kmax + 1, R), dtype=np.int64)
        ms = np.ones(kmax + 1, dtype=np.int64)
        present = np.empty(max_code + 1, dtype=np.int64)
        prev = np.empty(kmax + 1, dtype=np.int64)
        return zs, ms, present, prev

    @_jit
    def _observed_configs(X, ar, set_ptr, set_el, dense_limit, max_code):
        G = set_ptr.size - 1
        R = X.shape[1]
        zs, ms, present, prev = _scratch(set_ptr, R, max_code)
        plen = 0
        seen = np.zeros(max_code + 1, dtype=np.uint8)
        out = np.empty(G, dtype=np.int64)
        for s in range(G):
            e0, e1 = set_ptr[s], set_ptr[s + 1]
            k = _advance(X, ar, set_el, e0, e1, prev, plen, zs, ms, dense_limit, present)
            plen = k
            z = zs[k]
            n = 0
            for i in range(R):
                if seen[z[i]] == 0:
                    seen[z[i]] = 1
                    n += 1
            for i in range(R):
                seen[z[i]] = 0
            out[s] = n
        return out

    @_jit
    def _score_sets(X, w, ar, set_ptr, set_el, ch_ptr, ch_el, dense_limit, max_code, max_m,
                    dirichlet, xlogx, pen_set,
                    a_cfg, a_cell, row_cfg, row_cell, tab, K,
                    want_cells, want_ub, ub_children, lnr, pen_flat, dl_flat, pen_off, atom_w, mix_ptr,
                    mix_rows, use_mixed, out_s, out_ll, out_cells, out_ub):
        G = set_ptr.size - 1
        R = X.shape[1]
        max_r = 1
        for v in range(ar.size):
            max_r = max(max_r, ar[v])
        zs, ms, present, prev = _scratch(set_ptr, R, max_code)
        plen = 0
        # a set's final id range is at most max_m (ids compressed past dense_limit are < rows)
        nj = np.zeros(max_m + 1, dtype=np.int64)
        obs = np.empty(max_m + 1, dtype=np.int64)
        cnt = np.zeros((max_m + 1) * max_r, dtype=np.int64)
        ml = np.zeros(max_m + 1, dtype=np.float64)
        hm = np.zeros(max_m + 1, dtype=np.uint8)
        pm = np.zeros(max_m + 1, dtype=np.float64)
        dm = np.zeros(max_m + 1, dtype=np.float64)
        pair = 0
        for s in range(G):
            e0, e1 = set_ptr[s], set_ptr[s + 1]
            k = _advance(X, ar, set_el, e0, e1, prev, plen, zs, ms, dense_limit, present)
            plen = k
            z = zs[k]
            # N_j of every configuration id, and the observed ids in ascending order
            for i in range(R):
                nj[z[i]] += w[i]
            n_obs = 0
            for i in range(R):
                j = z[i]
                if nj[j] > 0 and hm[j] == 0:
                    hm[j] = 1
                    n_obs += 1
            # ascending ids: a pass over the id range when it is small, else a sort of the few seen
            m = ms[k]
            if m <= 4 * n_obs + 64:
                n_obs = 0
                for j in range(m):
                    if hm[j]:
                        obs[n_obs] = j
                        n_obs += 1
                        hm[j] = 0
            else:
                n_obs = 0
                for i in range(R):
                    j = z[i]
                    if hm[j]:
                        obs[n_obs] = j
                        n_obs += 1
                        hm[j] = 0
                obs[:n_obs].sort()
            for c_i in range(ch_ptr[s], ch_ptr[s + 1]):
                c = ch_el[c_i]
                r = ar[c]
                xc = X[c]
                for i in range(R):
                    cnt[z[i] * r + xc[i]] += w[i]
                cells = 0
                if dirichlet:
                    rc = row_cell[pair]
                    ac = a_cell[pair]
                    cell_sum = 0.0
                    for oi in range(n_obs):
                        base = obs[oi] * r
                        for st in range(r):
                            n = cnt[base + st]
                            if n > 0:
                                cells += 1
                                if n <= K:
                                    cell_sum += tab[rc, n]
                                else:
                                    cell_sum += _lgam(ac + float(n)) - _lgam(ac)
                    rj = row_cfg[pair]
                    aj = a_cfg[pair]
                    cfg_sum = 0.0
                    for oi in range(n_obs):
                        n = nj[obs[oi]]
                        if n <= K:
                            cfg_sum += tab[rj, n]
                        else:
                            cfg_sum += _lgam(aj + float(n)) - _lgam(aj)
                    out_s[pair] = cell_sum - cfg_sum
                else:
                    ll = 0.0
                    for oi in range(n_obs):
                        j = obs[oi]
                        base = j * r
                        sj = 0.0
                        for st in range(r):
                            n = cnt[base + st]
                            if n > 0:
                                cells += 1
                                sj += xlogx[n]
                        ll += sj - xlogx[nj[j]]
                    out_ll[pair] = ll
                    out_s[pair] = ll - pen_set[s] * float(r - 1)
                if want_cells:
                    out_cells[pair] = cells
                if want_ub and ub_children[c]:
                    wc = atom_w[c]
                    po = pen_off[pair] - mix_ptr[c]
                    pen_here = use_mixed and pen_off[pair] >= 0
                    for e in range(mix_ptr[c], mix_ptr[c + 1]):
                        i = mix_rows[e]
                        j = z[i]
                        ml[j] += wc[i]
                        if pen_here:
                            pv = pen_flat[po + e]
                            if pv > pm[j]:
                                pm[j] = pv
                            dv = dl_flat[po + e]
                            if dv < dm[j]:
                                dm[j] = dv
                    lc = lnr[c]
                    tot = 0.0
                    for oi in range(n_obs):
                        j = obs[oi]
                        base = j * r
                        d = 0
                        for st in range(r):
                            if cnt[base + st] > 0:
                                d += 1
                        cu = float(-d) * lc - pm[j]
                        tot += min(ml[j] + dm[j], cu)
                        ml[j] = 0.0
                        pm[j] = 0.0
                        dm[j] = 0.0
                    out_ub[pair] = tot
                # clear the child's table over the observed configurations only
                for oi in range(n_obs):
                    base = obs[oi] * r
                    for st in range(r):
                        cnt[base + st] = 0
                pair += 1
            for oi in range(n_obs):
                nj[obs[oi]] = 0


def _max_code(pc) -> int:
    """Bound on every code an id step can produce: the range before compression, ``max(limit, rows) * max r``."""
    return int(max(pc.dense_limit, pc.rows, 1) * max(1, int(pc.arities.max(initial=1))))


def observed_configs(pc, set_ptr: np.ndarray, set_el: np.ndarray) -> np.ndarray:
    """Number of parent configurations observed in the data, per set (BDs needs it before scoring).

    ``pc`` is the :class:`~gobnilp_py.scoring.counts.ParentConfigs` whose rows are counted; sets
    are given as :func:`~gobnilp_py.scoring.counts.csr` arrays, best in lexicographic order (prefix ids are reused).
    """
    with held():  # the first call compiles: hold Ctrl-C / SIGTERM (see _interrupt.held)
        return _observed_configs(pc.X, pc.arities, set_ptr, set_el, int(pc.dense_limit), _max_code(pc))


def score_sets(pc, set_ptr: np.ndarray, set_el: np.ndarray, ch_ptr: np.ndarray, ch_el: np.ndarray, *,
               dirichlet: bool, xlogx: np.ndarray, pen_set: np.ndarray,
               a_cfg: np.ndarray, a_cell: np.ndarray, row_cfg: np.ndarray, row_cell: np.ndarray,
               tab: np.ndarray, K: int, want_cells: bool, want_ub: bool, ub_children: np.ndarray,
               lnr: np.ndarray, pen_flat: np.ndarray, dl_flat: np.ndarray, pen_off: np.ndarray,
               atom_w: np.ndarray, mix_ptr: np.ndarray, mix_rows: np.ndarray, use_mixed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Count and score every ``(parent set, children)`` group; arrays per pair, in order.

    Groups are given as :func:`~gobnilp_py.scoring.counts.csr` arrays of the parent sets and of their children.

    Returns ``(scores, ll, cells, ub)``: ``ll`` is NaN for Dirichlet scores,
    ``cells`` 0 unless ``want_cells``, ``ub`` +inf where not computed (the
    conventions of :class:`~gobnilp_py.scoring.parallel.GroupResults`).
    Per-pair score inputs (``a_cfg``, ``a_cell``, table rows, and the mixed-atom penalties
    ``pen_flat``/``dl_flat`` with each pair's offset ``pen_off``, -1 for none) are given by the
    caller, which takes them from the same place as the numpy path does.
    """
    P = int(ch_ptr[-1])
    w = (np.ones(pc.rows, dtype=np.int64) if pc.weights is None
         else np.rint(pc.weights).astype(np.int64))
    out_s = np.empty(P)
    out_ll = np.full(P, np.nan)
    out_cells = np.zeros(P, dtype=np.int64)
    out_ub = np.full(P, np.inf)
    with held():  # the first call compiles: hold Ctrl-C / SIGTERM (see _interrupt.held)
        _score_sets(pc.X, w, pc.arities, set_ptr, set_el, ch_ptr, ch_el, int(pc.dense_limit), _max_code(pc),
                    int(max(pc.dense_limit, pc.rows, 1)),
                    bool(dirichlet), xlogx, pen_set, a_cfg, a_cell, row_cfg, row_cell, tab, int(K),
                    bool(want_cells), bool(want_ub), ub_children, lnr, pen_flat, dl_flat, pen_off, atom_w,
                    mix_ptr, mix_rows, bool(use_mixed), out_s, out_ll, out_cells, out_ub)
    return out_s, out_ll, out_cells, out_ub
