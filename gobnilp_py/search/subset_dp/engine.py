"""Dynamic-programming k-best networks over the subset lattice (Tian, He and Ram, UAI 2010).

The exact-DP view of structure learning (Silander and Myllymäki, 2006): every
DAG over a node set ``S`` has a sink ``v``; removing it leaves a DAG over
``S - {v}``, and ``v``'s parents lie in ``S - {v}``.  Tian, He and Ram keep
*lists of the k best* instead of single optima:

1. **Parent sets.**  For node ``v`` and candidate set ``C``, the k best
   families of ``v`` whose parents lie inside ``C``.  Families are read from
   the :class:`~gobnilp_py.scoring.table.ScoreTable` (stored best first), so
   the list is the first ``k`` families that fit in ``C``; it is computed for
   each ``C`` when needed by a blocked, vectorised subset test.
2. **Sub-networks.**  For every subset ``S`` (in order of size), the k best
   DAGs over ``S``.  Candidates are ``G' + f``: the ``i``-th best DAG over
   ``S - {v}`` plus the ``j``-th best family of ``v`` inside ``S - {v}``, for
   every ``v`` in ``S``.  A pair with ``(i + 1)(j + 1) > k`` is never needed
   (``(i+1)(j+1) - 1`` pairs are at least as good), which leaves about
   ``k ln k`` pairs per sink.

Where Tian et al. remove duplicates (a DAG with several sinks is built once
per sink), this implementation builds each DAG exactly once: it is only
generated from its *largest-index* sink.  Each stored sub-network carries the
bitmask of its own sinks; ``G' + f`` has ``v`` as largest sink iff every sink
of ``G'`` above ``v`` is a parent of ``v`` in ``f``.  The k-best argument
still holds: if ``G`` (with largest sink ``v``) is not generated, at least
``k`` distinct networks having ``v`` as a sink and scoring at least as well
exist among the listed pairs, and each of them is generated or, by induction
on the largest-sink index, dominated by ``k`` generated ones.

Storage is by level (subsets of one size) with a rank table ``2^n`` long:
back pointers (``sink``, index in the list of ``S - {v}``, family) for every
level, scores and sink masks only for the previous level.  Memory is about
``2^n k`` times 8 bytes plus two levels of ``C(n, n/2) k`` times 12 bytes; time
is about ``2^(n-1) n k ln k``.  The run is refused with a :class:`~gobnilp_py.errors.ScoreError`
before any allocation if ``n`` exceeds :data:`MAX_VARIABLES` or the estimate
exceeds ``memory_budget``.

References
----------
J. Tian, R. He and L. Ram, "Bayesian model averaging using the k-best Bayesian
network structures", UAI 2010.
T. Silander and P. Myllymäki, "A simple approach for finding the globally
optimal Bayesian network structure", UAI 2006.
"""

from __future__ import annotations

import logging
import math
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

try:  # Unix only; the peak resident size is then simply not reported
    import resource
except ImportError:  # pragma: no cover
    resource = None  # type: ignore[assignment]

from ...errors import ScoreError
from ...scoring.table import ScoreTable
from ..results import Collection, Solution

__all__ = ["kbest", "optimum", "estimate_memory", "estimate_memory_optimum", "MAX_VARIABLES", "DEFAULT_MEMORY_BUDGET"]

_log = logging.getLogger(__name__)

#: Largest number of variables accepted: 2^24 subsets already need 128 MiB per list slot.
MAX_VARIABLES = 24

#: Default memory budget (bytes) for the DP's arrays: 4 GiB.
DEFAULT_MEMORY_BUDGET = 4 * 2**30

# Candidate buffers are processed in blocks of about this many (subset, candidate) cells.
_BLOCK_CELLS = 1 << 20
# Families are tested against candidate sets in blocks of this many columns.
_FAMILY_BLOCK = 128


def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, j)`` with ``(i + 1)(j + 1) <= k``, ordered by ``i`` then ``j``."""
    ii, jj = [], []
    for i in range(k):
        m = k // (i + 1)
        ii.extend([i] * m)
        jj.extend(range(m))
    return np.asarray(ii, dtype=np.int64), np.asarray(jj, dtype=np.int64)


def _level_sizes(n: int) -> list[int]:
    return [math.comb(n, s) for s in range(n + 1)]


def estimate_memory(n: int, k: int, n_families: int = 0, largest: int = 0) -> int:
    """Bytes the DP's arrays need for ``n`` variables and lists of length ``k`` (an upper estimate),
    with ``n_families`` families in all and at most ``largest`` for one node.

    Counts the back pointers of every level (8 bytes per list slot), two levels
    of scores and sink masks (12 bytes per slot), the rank table, the
    candidate block buffer (8 bytes per cell, plus about 40 for numpy
    temporaries and the sort order), and per family its position, mask and
    score, once per node and once in the concatenated arrays (40 bytes), plus
    the largest node's list as read and sorted (24).
    """
    if n > 62:
        return 2**63 - 1
    slots = (1 << n) * k
    widest = max(_level_sizes(n)) * k
    n_pairs = sum(k // (i + 1) for i in range(k))
    block = max(_BLOCK_CELLS, n * n_pairs) * 48
    return 8 * slots + 2 * 12 * widest + 8 * (1 << n) * 2 + block + 40 * n_families + 24 * largest


def kbest(table: ScoreTable, *, k: int, memory_budget: int = DEFAULT_MEMORY_BUDGET,
          time_limit: float | None = None, trace_memory: bool = False, **_ignored: Any) -> Collection:
    """The k best networks of ``table`` by dynamic programming over the subset lattice.

    Parameters
    ----------
    table : ScoreTable
        Searched as given (the drivers filter it by structural constraints first).
    k : int
        Number of networks (>= 1).  If fewer DAGs exist, all are returned.
    memory_budget : int
        Refuse (:class:`ScoreError`) when :func:`estimate_memory` exceeds this many bytes.
    time_limit : float, optional
        Seconds; checked between blocks.  When reached there is no network at
        all (a partial DP has no networks over all variables): ``reason="time_limit"``.
    trace_memory : bool
        Also measure the peak of all Python/numpy allocations with
        :mod:`tracemalloc` (``stats["memory_peak_bytes"]``).  Off by default:
        tracing slowed the DP by up to 70% in our measurements, and
        ``stats["memory_arrays_bytes"]`` already counts the DP's own arrays.

    Returns
    -------
    Collection
        Entries in table positions; ``stats`` holds ``time_dp``,
        ``memory_estimate_bytes`` (the guard's estimate),
        ``memory_arrays_bytes`` (the peak bytes of the DP's own arrays: all
        back pointers, two levels, one candidate block), ``memory_peak_bytes``
        (tracemalloc; ``None`` unless ``trace_memory``) and ``maxrss_bytes``
        (the process's peak resident memory so far).

    Raises
    ------
    ScoreError
        If the table has more than :data:`MAX_VARIABLES` variables or the
        memory estimate exceeds the budget.

    Examples
    --------
    >>> from gobnilp_py import ScoreTable
    >>> t = ScoreTable(["A", "B"], [[((), -3.0), ((1,), -2.0)], [((), -1.0), ((0,), -1.5)]])
    >>> sorted(round(sc, 3) for sc, _ in kbest(t, k=2).entries)
    [-4.0, -3.0]
    """
    n = table.n
    if n > MAX_VARIABLES:
        raise ScoreError(f"dynamic-programming k-best handles at most {MAX_VARIABLES} variables; "
                         f"this table has {n}")
    est = estimate_memory(n, k, len(table), max((len(f) for f in table.families), default=0))
    if est > memory_budget:
        raise ScoreError(f"dynamic-programming k-best for n={n}, k={k} needs about {est / 2**20:.0f} MiB, "
                         f"over the memory budget of {memory_budget / 2**20:.0f} MiB")
    t0 = time.perf_counter()
    with _traced(trace_memory) as peak:
        entries, complete, arrays = _run(table, k, t0, time_limit)
    t_dp = time.perf_counter() - t0
    stats = _stats(table, t_dp, est, peak)
    stats["memory_arrays_bytes"] = arrays
    _log.info("subset DP k-best: n=%d k=%d in %.2fs", n, k, t_dp)
    entries = [(math.fsum(table.families[v][c][1] for v, c in enumerate(chosen)), chosen) for _, chosen in entries]
    return Collection(entries, None if complete else "time_limit", stats=stats)


@contextmanager
def _traced(on: bool) -> Iterator[list[int | None]]:
    """With ``on``, the peak bytes :mod:`tracemalloc` sees inside the block, in the yielded list's one slot
    (when the caller already traces, its own peak is reset here)."""
    peak: list[int | None] = [None]
    if not on:
        yield peak
        return
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        yield peak
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1] - base
        if started:
            tracemalloc.stop()


def _stats(table: ScoreTable, seconds: float, estimate: int, peak: list[int | None]) -> dict[str, Any]:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss if resource is not None else None
    return {"time_dp": seconds, "memory_estimate_bytes": estimate, "memory_peak_bytes": peak[0],
            "maxrss_bytes": None if rss is None else rss if sys.platform == "darwin" else rss * 1024,
            "n_families": len(table)}


def estimate_memory_optimum(n: int, n_families: int = 0, largest: int = 0) -> int:
    """Bytes :func:`optimum`'s arrays need for ``n`` variables, ``n_families`` families in all and at
    most ``largest`` for one node (an upper estimate).

    Each node's best-family positions over the ``2^(n-1)`` subsets of the
    others (int32), the ``2^n`` subset scores (float64), sinks (int8) and
    level order (int64), and about six temporaries of the widest level; the
    level order is built first, from 33 bytes a subset that are freed before; and per family its
    position, mask and score twice (32 bytes), plus the largest node's score list as read (8 bytes a
    family) and its sort (16).
    """
    if n > 62:
        return 2**63 - 1
    widest = max(_level_sizes(n))
    families = 32 * n_families + 24 * largest
    return max(4 * n * (1 << max(n - 1, 0)) + 17 * (1 << n) + 6 * 8 * widest, 33 * (1 << n)) + families


def optimum(table: ScoreTable, *, memory_budget: int = DEFAULT_MEMORY_BUDGET, time_limit: float | None = None,
            trace_memory: bool = False, **_ignored: Any) -> Solution:
    """An optimal network of ``table``: the subset DP of Silander and Myllymäki, with lists of length one.

    Why not :func:`kbest` with ``k = 1``: that finds each candidate set's best
    family by testing families one block at a time, for every (subset, node)
    pair, which took 67 s on mushroom (22 variables).  Here every node's best
    family inside every subset of the others comes from one subset-minimum
    transform of family positions (the table lists families best first, so
    the first that fits is the best), ``(n-1) 2^(n-1)`` vectorised steps per
    node, and the DP over subsets is one gather per (level, node).  It shares
    no code with the order graph's lookups
    (:class:`~gobnilp_py.search.best_parents.BestParents`), so ``verify=True``
    checks one against the other.  Ties go to the first family in table
    order and, among sinks, to the lowest index; the score is
    :func:`math.fsum` of the chosen families.

    ``trace_memory`` and the ``stats`` keys are those of :func:`kbest`, less
    ``memory_arrays_bytes``.

    Raises
    ------
    ScoreError
        More than :data:`MAX_VARIABLES` variables, or :func:`estimate_memory_optimum`
        over ``memory_budget``.
    """
    n = table.n
    if n > MAX_VARIABLES:
        raise ScoreError(f"dynamic programming handles at most {MAX_VARIABLES} variables; this table has {n}")
    est = estimate_memory_optimum(n, len(table), max((len(f) for f in table.families), default=0))
    if est > memory_budget:
        raise ScoreError(f"dynamic programming for n={n} needs about {est / 2**20:.0f} MiB, over the memory budget "
                         f"of {memory_budget / 2**20:.0f} MiB")
    t0 = time.perf_counter()
    with _traced(trace_memory) as peak:
        found = _optimum_dp(table, t0, time_limit)
    stats = _stats(table, time.perf_counter() - t0, est, peak)
    if found is None:
        return Solution("time_limit", -math.inf, None, stats=stats)
    if found is _INFEASIBLE:
        return Solution("infeasible", -math.inf, None, stats=stats)
    score = math.fsum(table.families[v][c][1] for v, c in enumerate(found))
    return Solution("optimal", score, found, dual_bound=score, stats=stats)


def _without_bit(masks: np.ndarray, v: int) -> np.ndarray:
    """``masks`` over all nodes (bit ``v`` clear) as indices over the other ``n - 1`` nodes."""
    low = (1 << v) - 1
    return ((masks >> (v + 1)) << v) | (masks & low)


def _best_positions(nf: _NodeFamilies, v: int, n: int) -> np.ndarray:
    """For every subset ``C`` of the nodes other than ``v`` (indexed as :func:`_without_bit`), the
    position in ``nf`` of the first (best) family inside ``C``; ``len(nf.score)`` when none fits."""
    none = nf.score.size
    pos = np.full(1 << (n - 1), none, dtype=np.int32)
    pos[_without_bit(nf.mask, v)] = np.arange(none, dtype=np.int32)   # parent sets are distinct
    for b in range(n - 1):                       # subset-minimum transform, one bit at a time
        pairs = pos.reshape(-1, 2, 1 << b)
        np.minimum(pairs[:, 1, :], pairs[:, 0, :], out=pairs[:, 1, :])
    return pos


def _popcounts(n: int, dtype: Any) -> np.ndarray:
    """The number of set bits of every subset ``0 .. 2^n - 1`` of ``n`` nodes, as ``dtype``."""
    masks = np.arange(1 << n, dtype=np.int64)
    out = np.zeros(1 << n, dtype=dtype)
    for b in range(n):
        out += ((masks >> b) & 1).astype(dtype, copy=False)
    return out


#: What :func:`_optimum_dp` returns when the table admits no network (``()`` is the empty table's network).
_INFEASIBLE: tuple[int, ...] = (-1,)


def _optimum_dp(table: ScoreTable, t0: float, time_limit: float | None) -> tuple[int, ...] | None:
    """The chosen family (table position) per node of an optimal network; :data:`_INFEASIBLE` when the
    table admits none; ``None`` when ``time_limit`` ran out."""
    def late() -> bool:
        return time_limit is not None and time.perf_counter() - t0 > time_limit

    n = table.n
    if n == 0:
        return ()
    full = 1 << n
    popcount = _popcounts(n, np.int8)
    order = np.argsort(popcount, kind="stable")          # subsets level by level, each level ascending
    ends = np.cumsum(np.bincount(popcount, minlength=n + 1))
    del popcount
    nodes: list[_NodeFamilies] = []
    best_pos, padded = [], []
    for v, fams in enumerate(table.families):
        if late():
            return None
        nodes.append(nf := _NodeFamilies(fams))
        best_pos.append(_best_positions(nf, v, n))
        padded.append(np.append(nf.score, -np.inf))
    score = np.full(full, -np.inf)
    score[0] = 0.0
    sink = np.zeros(full, dtype=np.int8)
    for s in range(1, n + 1):
        level = order[ends[s - 1]:ends[s]]
        best = np.full(level.size, -np.inf)
        arg = np.zeros(level.size, dtype=np.int8)
        for v in range(n):
            if late():
                return None
            rows = np.flatnonzero((level >> v) & 1)
            rest = level[rows] ^ (1 << v)
            cand = score[rest] + padded[v][best_pos[v][_without_bit(rest, v)]]
            better = cand > best[rows]
            best[rows[better]] = cand[better]
            arg[rows[better]] = v
        score[level] = best
        sink[level] = arg
    if not score[full - 1] > -np.inf:
        return _INFEASIBLE
    chosen = [0] * n
    rest = full - 1
    while rest:
        v = int(sink[rest])
        rest ^= 1 << v
        chosen[v] = int(nodes[v].local[best_pos[v][int(_without_bit(np.int64(rest), v))]])
    return tuple(chosen)


class _NodeFamilies:
    """One node's families as bitmasks and scores, best first (the table's order, restored if the
    list was reordered after the table was built: both DPs take the first family that fits as the best)."""

    def __init__(self, fams: list[tuple[tuple[int, ...], float]]) -> None:
        score = np.fromiter((sc for _, sc in fams), dtype=np.float64, count=len(fams))
        local = np.flatnonzero(score > -np.inf)
        score = score[local]
        if np.any(score[1:] > score[:-1]):   # a table's lists are sorted when built; ``families`` is mutable
            order = np.argsort(-score, kind="stable")
            local, score = local[order], score[order]
        self.local, self.score = local.astype(np.int64), score
        self.mask = np.fromiter((sum(1 << p for p in fams[i][0]) for i in local.tolist()), dtype=np.int64,
                                count=local.size)

    def topk(self, cands: np.ndarray, k: int) -> np.ndarray:
        """``(len(cands), k)`` positions (into this object's arrays) of the first ``k`` families inside each set, -1 padded.

        Families are tested in blocks; rows whose list is full leave the
        active set, so the common case (the best families are small and fit
        almost every set) touches one block.
        """
        rows = len(cands)
        out = np.full((rows, k), -1, dtype=np.int64)
        count = np.zeros(rows, dtype=np.int64)
        active = np.arange(rows)
        outside = ~cands
        for start in range(0, len(self.mask), _FAMILY_BLOCK):
            fm = self.mask[start:start + _FAMILY_BLOCK]
            fits = (fm[None, :] & outside[active, None]) == 0
            pos = count[active, None] + np.cumsum(fits, axis=1) - 1
            take = fits & (pos < k)
            r, c = np.nonzero(take)
            out[active[r], pos[r, c]] = start + c
            count[active] += fits.sum(axis=1)
            active = active[count[active] < k]
            if active.size == 0:
                break
        return out


def _run(table: ScoreTable, k: int, t0: float, time_limit: float | None
         ) -> tuple[list[tuple[float, tuple[int, ...]]], bool, int]:
    """The DP proper.

    Returns ``(entries, complete, array_bytes)``: entries ``(score, chosen
    local indices)``, and the peak bytes held in the DP's own arrays.
    """
    n = table.n
    full = 1 << n
    nodes = [_NodeFamilies(f) for f in table.families]
    popcount = _popcounts(n, np.int64)
    levels = [np.flatnonzero(popcount == s).astype(np.int64) for s in range(n + 1)]
    rank = np.empty(full, dtype=np.int64)
    for lv in levels:
        rank[lv] = np.arange(len(lv))
    fixed_bytes = popcount.nbytes + rank.nbytes + sum(lv.nbytes for lv in levels)
    kept_bytes = 0  # back pointers of finished levels
    peak_bytes = 0
    pi, pj = _pairs(k)
    n_pairs = len(pi)
    # All families in one array (node v's at goff[v]:goff[v+1]), and for every node the pair
    # index behind each column of its compressed candidate row (pairs with j < its list length).
    goff = np.cumsum([0] + [nf.mask.size for nf in nodes])
    gmask = np.concatenate([nf.mask for nf in nodes] + [np.zeros(1, dtype=np.int64)])
    glocal = np.concatenate([nf.local for nf in nodes] + [np.zeros(1, dtype=np.int64)])
    kf_of = [min(k, nf.mask.size) for nf in nodes]
    kmax = max(1, max(kf_of))
    colmap = np.zeros((n, n_pairs), dtype=np.int64)
    for v in range(n):
        cols = np.flatnonzero(pj < kf_of[v])
        colmap[v, :cols.size] = cols

    # level 0: the empty network, score 0, no sinks
    prev_score = np.full((1, k), -np.inf)
    prev_score[0, 0] = 0.0
    prev_sinks = np.zeros((1, k), dtype=np.int32)
    back: list[np.ndarray] = [np.zeros((1, k), dtype=np.int32)]  # packed (i << 5) | sink
    fam: list[np.ndarray] = [np.full((1, k), -1, dtype=np.int32)]  # local family index of the sink
    for s in range(1, n + 1):
        L = levels[s]
        M = len(L)
        cur_score = np.full((M, k), -np.inf)
        cur_sinks = np.zeros((M, k), dtype=np.int32)
        cur_back = np.zeros((M, k), dtype=np.int32)
        cur_fam = np.full((M, k), -1, dtype=np.int32)
        block = max(1, _BLOCK_CELLS // (s * n_pairs))
        for r0 in range(0, M, block):
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                return [], False, peak_bytes
            S = L[r0:r0 + block]
            B = len(S)
            # Only scores are kept per candidate; sinks, back pointers and families are
            # recomputed for the k winners of each row from (slot, column).
            c_score = np.full((B, s, n_pairs), -np.inf)
            c_node = np.zeros((B, s), dtype=np.int64)
            c_fpos = np.full((B, s, kmax), -1, dtype=np.int64)
            level_bytes = sum(a.nbytes for a in (prev_score, prev_sinks, cur_score, cur_sinks, cur_back, cur_fam))
            block_bytes = sum(a.nbytes for a in (c_score, c_node, c_fpos))
            peak_bytes = max(peak_bytes, fixed_bytes + kept_bytes + level_bytes + block_bytes)
            for v in range(n):
                bit = 1 << v
                rows = np.flatnonzero(S & bit)
                kf = kf_of[v]
                if rows.size == 0 or kf == 0:
                    continue
                nf = nodes[v]
                Sv = S[rows]
                slot = popcount[Sv & (bit - 1)]
                c_node[rows, slot] = v
                pr = rank[Sv ^ bit]
                fpos = nf.topk(Sv ^ bit, kf)
                c_fpos[rows, slot, :kf] = np.where(fpos >= 0, fpos + goff[v], -1)
                valid = pj < kf
                I, J = pi[valid], pj[valid]
                fp = fpos[:, J]
                ok = fp >= 0
                fp = np.maximum(fp, 0)
                cand = prev_score[pr[:, None], I[None, :]] + np.where(ok, nf.score[fp], -np.inf)
                fmask = np.where(ok, nf.mask[fp], 0)
                higher = ~((bit << 1) - 1)
                not_max_sink = (prev_sinks[pr[:, None], I[None, :]] & ~fmask & higher) != 0
                cand[not_max_sink] = -np.inf
                c_score[rows, slot, :I.size] = cand
            flat = c_score.reshape(B, -1)
            order = _top_k_order(flat, k)
            row = np.arange(B)[:, None]
            slot = order // n_pairs
            node = c_node[row, slot]
            pair = colmap[node, order % n_pairs]
            I, J = pi[pair], pj[pair]
            gpos = np.maximum(c_fpos[row, slot, J], 0)  # -1 only behind -inf scores, never read
            prank = rank[S[:, None] ^ (1 << node)]
            dst = slice(r0, r0 + B)
            cur_score[dst] = np.take_along_axis(flat, order, axis=1)
            cur_sinks[dst] = (prev_sinks[prank, I] & ~gmask[gpos]) | (1 << node)
            cur_back[dst] = (I << 5) | node
            cur_fam[dst] = glocal[gpos]
        prev_score, prev_sinks = cur_score, cur_sinks
        back.append(cur_back)
        fam.append(cur_fam)
        kept_bytes += cur_back.nbytes + cur_fam.nbytes
        _log.debug("kbest_dp: level %d/%d done (%d subsets) at %.2fs", s, n, M, time.perf_counter() - t0)

    entries = []
    for t in range(k):
        sc = float(prev_score[0, t])
        if not sc > -math.inf:
            break
        chosen = [0] * n
        S, idx = full - 1, t
        while S:
            s = int(popcount[S])
            r = int(rank[S])
            packed = int(back[s][r, idx])
            v = packed & 31
            chosen[v] = int(fam[s][r, idx])
            S ^= 1 << v
            idx = packed >> 5
        entries.append((sc, tuple(chosen)))
    return entries, True, peak_bytes


def _top_k_order(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of each row's ``k`` largest scores, best first, ties by column (deterministic)."""
    width = scores.shape[1]
    if width > 8 * k:
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        part.sort(axis=1)  # column order, so the stable sort below breaks ties by column
        sub = np.take_along_axis(scores, part, axis=1)
        return np.take_along_axis(part, np.argsort(-sub, axis=1, kind="stable"), axis=1)
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]
