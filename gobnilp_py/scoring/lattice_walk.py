"""The lattice walk on int64 bitmasks (:func:`_walk_numpy`, up to 62 variables): each level planned
in pieces (:func:`_plan_pieces`), generated (:mod:`.lattice_generate`, or the compiled
:mod:`.walk_kernel`), grouped by parent set (:func:`_group_piece`), scored by the workers while
the next piece is generated, and kept or dropped (:func:`_finish_piece`).

Same tables as the reference walk (:func:`.walk_python._walk_python`; a test checks the two give
identical tables).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import pruning as P
from . import walk_kernel
from .counts import argsort_distinct, lex_order, unique_inverse
from .lattice_generate import _Consts, _generate, _level_spent, _max_elements, _row_chunks
from .lattice_level import _Level, _LevelKeys, _LevelViews
from .parallel import FlatGroups
from .pool import PendingScores
from .walk_state import _bytes_per_pair, _check_finite, _count_capped, _grows, _Run, _tables_checked


#: The scorer's logger (as :mod:`.global_gap` does): the walk's messages read as scoring's, as before the split.
log = logging.getLogger("gobnilp_py.scoring.engine")


#: Largest number of (child, parent set) candidates generated, counted and scored at once (one piece of
#: a level; :func:`_plan_pieces`).  About 300 MB of transient arrays at parent-set size 6.
PIECE_PAIRS = 1_000_000


@dataclass
class _Piece:
    """Candidates ``Y ∪ {j}`` with ``j0 <= j < j1``, ``max Y < j`` and ``ylo <= mask(Y) < yhi``."""

    j0: int
    j1: int
    ylo: int
    yhi: int


def _plan_pieces(levels: _LevelViews, grow: list[bool], n: int, budget: int) -> list[_Piece]:
    """Split a level's candidates into pieces of at most ``budget`` (child, set) pairs, in mask order.

    Every candidate ``X`` of the next level is ``Y ∪ {j}`` with ``j = max X``;
    the sets ``Y`` of a child with ``max Y < j`` are the prefix ``mask(Y) < 2^j``
    of its level (sorted by mask).  So consecutive ranges of ``j`` -- and,
    inside one ``j`` too big for the budget, ranges of ``max Y`` -- are
    pieces whose candidates are counted exactly before generating them
    (before the bound rules, so an upper bound).  All the children that want
    a parent set are in the same piece, so it is counted once for all of
    them; the masks of successive pieces increase, so the next level comes
    out sorted.
    """
    powers = np.left_shift(np.int64(1), np.arange(n + 1, dtype=np.int64))
    below = np.zeros((n, n + 1), dtype=np.int64)     # below[v, i]: sets of v with mask < 2^i
    for v in range(n):
        if grow[v]:
            below[v] = np.searchsorted(levels.masks(v), powers)
    per_j = below[:, :n].sum(axis=0) - below[np.arange(n), np.arange(n)]   # j == v is not a parent of v
    pieces: list[_Piece] = []
    j = 0
    while j < n:
        if per_j[j] > budget and j > 0:
            # split this j by the largest element i of Y
            row = below[:, 1:j + 1] - below[:, :j]           # [v, i]: sets of v with max element i
            row[j, :] = 0
            per_i = row.sum(axis=0)
            i = 0
            while i < j:
                acc, i1 = 0, i
                while i1 < j and (i1 == i or acc + per_i[i1] <= budget):
                    acc += int(per_i[i1])
                    i1 += 1
                # the first range also holds Y = ∅ (mask 0; level 1 only)
                pieces.append(_Piece(j, j + 1, int(powers[i]) if i else 0, int(powers[i1])))
                i = i1
            j += 1
            continue
        acc, j1 = 0, j
        while j1 < n and (j1 == j or (per_j[j1] <= budget and acc + per_j[j1] <= budget)):
            acc += int(per_j[j1])
            j1 += 1
        pieces.append(_Piece(j, j1, 0, int(powers[j1 - 1])))
        j = j1
    return pieces


def _generate_piece(run: _Run, cat: _Level, off: np.ndarray, levels: _LevelViews, keys: "_LevelKeys | None",
                    others: tuple | None, grow: list[bool], pc_: _Piece, k: int, c: _Consts,
                    spent: np.ndarray | None = None) -> list[Any]:
    """Every growing child's candidates of one piece, after the bound rules, in chunks of
    :data:`GEN_CHUNK_BYTES`: by the compiled kernel child by child (``others``), else by
    :func:`_generate` for all children of a chunk at once.  Rows marked in ``spent`` (rows of
    ``cat``, :func:`_level_spent`) are not extended."""
    n = len(run.names)
    spans = []          # (child, first row, end row) of the piece, rows of the child's level
    ends = np.array([pc_.ylo, pc_.yhi], dtype=np.int64)
    for v in range(n):
        if grow[v]:
            ra, rb = np.searchsorted(levels.masks(v), ends).tolist()
            if rb > ra:
                spans.append((v, ra, rb))
    parts = []
    if others is not None:
        for v, ra, rb in spans:
            lv = levels[v]
            maxy = _max_elements(lv, k, slice(ra, rb))
            for a0, b0, n_max in _row_chunks(maxy, np.full(maxy.size, v), k, pc_.j0, pc_.j1):
                run.tick()
                got = walk_kernel.generate_compiled(run, lv, v, k, ra + a0, ra + b0, pc_.j0, pc_.j1, c.bit, c.arf,
                                         c.nonunit, c.llc, others, n_max,
                                         None if spent is None else spent[off[v]:off[v + 1]])
                if got is not None:
                    parts.append(got)
    elif spans:
        assert keys is not None
        rows = np.concatenate([np.arange(off[v] + ra, off[v] + rb, dtype=np.int64) for v, ra, rb in spans])
        vr = np.repeat(np.array([sp[0] for sp in spans], dtype=np.int64), [sp[2] - sp[1] for sp in spans])
        if spent is not None:
            live = ~spent[rows]
            rows, vr = rows[live], vr[live]
        maxy = _max_elements(cat, k, rows)
        for a0, b0, _ in _row_chunks(maxy, vr, k, pc_.j0, pc_.j1):
            run.tick()
            got = _generate(run, cat, keys, rows[a0:b0], vr[a0:b0], maxy[a0:b0], k, pc_.j0, pc_.j1, c)
            if got is not None:
                parts.append(got)
    return parts


def _walk_numpy(run: _Run, res0: Any, limit: int) -> tuple[int, list[int]]:
    """Lattice walk on int64 bitmasks: generation and bound rules are whole-array operations.

    Same rules, same order of attribution, same arithmetic as
    :func:`.walk_python._walk_python` (a test checks the two give identical tables).  A
    level is held as one :class:`_Level` of every child's sets, child by child
    (``off``), with per-child views into it; the numpy generation treats all
    children of a piece in one :func:`_generate` call.

    Memory: a level is generated, counted and scored in *pieces*
    (:func:`_plan_pieces`) of at most :data:`PIECE_PAIRS` candidates, so only
    the previous level and the compact rows of the level being built are held
    (k + 45 bytes a row, :meth:`_Level.nbytes`); a level after which no child can grow
    (:func:`_grows`) is not stored at all -- on wide data that is the largest
    one.
    """
    n = len(run.names)
    run.child_arrays()
    consts = _Consts.of(run)
    act = np.array([v in run.active for v in range(n)], dtype=bool)
    sel = np.flatnonzero(act)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(act, out=off[1:])
    cat = _Level(np.zeros(sel.size, dtype=np.int64), np.zeros((sel.size, 0), dtype=np.int8), res0.ll[sel].copy(),
                 res0.scores[sel].copy(), np.ones(sel.size), np.zeros(sel.size, dtype=np.int8),
                 res0.cells[sel].astype(np.int32), res0.ub[sel].copy())
    levels = cat.views(off)
    table = _LevelKeys.dense_table(n)
    n_scored, per_level = n, [n]
    run.done_so_far = (n_scored, list(per_level))
    transient = _bytes_per_pair
    check_tables = _tables_checked(run)

    for k in range(1, limit + 1):
        grow = [levels.size(v) > 0 and _grows(run, v, k - 1) for v in range(n)]
        for v in range(n):
            if levels.size(v) and not grow[v]:
                _count_capped(run, v, levels.size(v))
        if not any(grow):
            break
        # Keep this level only if some child can go on from it (its rows are the next level's subsets).
        store = k < limit and any(_grows(run, v, k) for v in range(n) if v in run.active)
        run.level = k
        run.growing = frozenset(v for v in range(n) if grow[v])
        run.tick()
        spent = _level_spent(run, cat, off, grow, k, consts)
        others = walk_kernel.kernel_inputs(run, cat, off) if walk_kernel.use_walk_kernel(run, levels, grow) else None
        if others is None:
            table = _LevelKeys.fit(table, int(cat.masks.size))
        keys = _LevelKeys(cat, off, n, table) if others is None else None
        # held: the previous level, and for the compiled generation its hash tables and floors (its masks
        # and LL are the level's), for the numpy one its look-up keys
        run.held_bytes = float(cat.nbytes()) + float(
            sum(a.nbytes for a in others[2:] if isinstance(a, np.ndarray)) if others is not None
            else keys.nbytes() if keys is not None else 0)
        room = run.memory_limit - run.held_bytes
        budget = int(max(1, min(PIECE_PAIRS, room // (2 * transient(k)) if room > 0 else 1)))
        pieces = _plan_pieces(levels, grow, n, budget)
        built: list[tuple[_Level, np.ndarray]] = []
        per_child = np.zeros(n, dtype=np.int64)
        stored = 0.0
        n_sets = 0
        # Pipelined: piece i is scored (by the workers) while piece i + 1 is generated and grouped here.
        inflight: _Grouped | None = None
        try:
            for i_piece, pc_ in enumerate(pieces):
                run.tick()
                if run.progress is not None and i_piece:
                    run.progress("scoring", k - 1, limit, families=n_scored, level=k, pieces=len(pieces),
                                 pieces_done=i_piece)
                parts = _generate_piece(run, cat, off, levels, keys, others, grow, pc_, k, consts, spent)
                if not parts:
                    continue
                for p_ in parts:
                    per_child += np.bincount(p_[0], minlength=n)
                m_pairs = sum(p[1].size for p in parts) + (0 if inflight is None else inflight.cc.size)
                run.check_budget(n_scored, per_child, k, extra=stored + m_pairs * transient(k),
                                 upcoming=m_pairs * transient(k))
                grouped = _group_piece(run, parts, k)
                del parts
                if check_tables:
                    run.check_tables(grouped.cc, grouped.q[grouped.gid],
                                     lambda i, g=grouped: tuple(g.elems[g.gid[i]].tolist()), k,
                                     run.held_bytes + stored + m_pairs * transient(k))
                grouped.pending = run.scorer.submit(grouped.groups)
                if inflight is not None:
                    got_sets, got_bytes = _finish_piece(run, inflight, built if store else None)
                    n_sets += got_sets
                    stored += got_bytes
                inflight = grouped
            if inflight is not None:
                got_sets, got_bytes = _finish_piece(run, inflight, built if store else None)
                n_sets += got_sets
                stored += got_bytes
                inflight = None
        finally:
            if inflight is not None and inflight.pending is not None:
                inflight.pending.cancel()
        n_pairs = int(per_child.sum())
        if keys is not None:
            keys.clear()
        if not n_pairs:
            break
        # child by child, one field at a time: each field's parts are dropped as it is joined, so the
        # copy never doubles the level (one piece, the usual case on small data: no copy at all)
        del levels, keys, others, cat, spent
        if len(built) > 1:
            run.check_join(stored, k)
        per_piece = [c for _, c in built]
        np.cumsum(np.sum(per_piece, axis=0) if per_piece else np.zeros(n, dtype=np.int64), out=off[1:])
        order = None
        if len(built) > 1:       # pieces follow mask order: a stable sort by child keeps masks sorted
            child = np.concatenate([np.repeat(np.arange(n, dtype=np.int64), c) for c in per_piece])
            order = np.argsort(child, kind="stable")
            del child
        parts = [p for p, _ in built]
        del built, per_piece
        cat = _Level.concat(parts, k, consume=True, order=order)
        del parts, order
        levels = cat.views(off)
        n_scored += n_pairs
        per_level.append(n_pairs)
        run.done_so_far = (n_scored, list(per_level))
        if run.progress is not None:
            run.progress("scoring", k, limit, families=n_scored)
        log.info("scoring level %d: %d families scored (%d parent sets, %d pieces), %.2f s", k, n_pairs,
                 n_sets, len(pieces), time.perf_counter() - run.t0)
        if not store:
            if k < limit:
                for v in range(n):
                    _count_capped(run, v, int(per_child[v]))
            break
    _LevelKeys.give_back(table)      # every level's slots were cleared: all 0 again
    return n_scored, per_level


@dataclass
class _Grouped:
    """One piece's candidates grouped by parent set, and the scores being computed for them.

    Groups (distinct parent sets) are in lexicographic order of their elements
    (the counting reuses the ids of the longest shared prefix), children
    ascending inside a group.  Per-pair arrays are in that order; what depends
    only on the parent set (mask, elements, q, parents of arity >= 2) is held
    once per group and read through ``gid``.
    """

    groups: FlatGroups
    cc: np.ndarray      # int64 (P,): child of every pair
    cb: np.ndarray      # float (P,): best score of a subset, per pair
    cui: np.ndarray     # float (P,): ml ceiling of the subsets, per pair
    gid: np.ndarray     # int64 (P,): group of every pair
    masks: np.ndarray   # int64 (G,)
    mrank: np.ndarray   # int64 (G,): rank of the group's mask among the piece's (distinct) masks
    elems: np.ndarray   # int8 (G, k)
    q: np.ndarray       # float (G,)
    nnu: np.ndarray     # int8 (G,)
    pending: PendingScores | None = None


def _group_piece(run: _Run, parts: list[Any], k: int) -> _Grouped:
    """Group one piece's candidates by parent set (counted once for all the children that want it).

    Only three arrays are permuted per pair (child, best subset score,
    ceiling); a parent set's own values are gathered once per group (q and the
    number of parents of arity >= 2 depend on the set alone).
    """
    n = len(run.names)
    if len(parts) == 1:                  # read only below: no need to copy a single part
        cc, cm, ce, cb, cq, cn, cui = parts[0]
    else:
        cc, cm, ce, cb, cq, cn, cui = (np.concatenate([p[i] for p in parts]) for i in range(7))
    umask, first, inv = unique_inverse(cm, 1 << n)  # ce, cq, cn depend on the mask alone
    ue = ce[first]
    G = int(umask.size)
    by_lex = lex_order(ue, n)                        # group (in mask order) of each lexicographic rank
    lex = np.empty(G, dtype=np.int64)
    lex[by_lex] = np.arange(G, dtype=np.int64)
    key = lex[inv] * n + cc              # distinct per pair
    order = argsort_distinct(key, G * n)
    key = key[order]
    gid = key // n
    cc = key - gid * n
    ch_ptr = np.searchsorted(gid, np.arange(G + 1, dtype=np.int64))
    sets = ue[by_lex].astype(np.int8)
    groups = FlatGroups(np.arange(G + 1, dtype=np.int64) * k, sets.reshape(-1), ch_ptr, cc.astype(np.int16))
    return _Grouped(groups, cc, cb[order], cui[order], gid, umask[by_lex], by_lex, sets, cq[first][by_lex],
                    cn[first][by_lex].astype(np.int8))


def _finish_piece(run: _Run, gp: _Grouped, built: list[tuple["_Level", np.ndarray]] | None) -> tuple[int, int]:
    """Take a piece's scores, keep the undominated candidates, and store its rows (``built``: one
    part per piece, child by child, with its rows per child).

    Returns the number of distinct parent sets counted and the bytes of the rows stored.
    """
    n = len(run.names)
    eps = run.eps
    assert gp.pending is not None
    res = gp.pending.result()
    gp.pending = None
    cc, cb, gid = gp.cc, gp.cb, gp.gid
    scores, lls, ccells = res.scores, res.ll, res.cells
    cub = np.minimum(res.ub, gp.cui)    # a set's bound is also bounded by its subsets' bounds
    bad = np.isnan(scores) | (scores == np.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _check_finite(scores[i:i + 1], run.names, [tuple(gp.elems[gid[i]].tolist())], cc[i:i + 1])
    if run.prune:
        dom = P.fires_array(cb - scores, eps, cb, scores)
        if run.keep_all:
            dom &= ~np.isin(cc, np.fromiter(run.keep_all, dtype=np.int64))
        for v, c in enumerate(np.bincount(cc[dom], minlength=n).tolist()):
            if c:
                run.counters[v]["dominated"] += c
        keep_idx = np.flatnonzero(~dom)
    else:
        keep_idx = np.arange(cc.size)
    if keep_idx.size:
        # child by child (stable: each child's families in the order met), one list extension each
        kc = cc[keep_idx]
        by_child = np.argsort(kc, kind="stable")
        keep_idx = keep_idx[by_child]
        rows = list(zip(map(tuple, gp.elems[gid[keep_idx]].tolist()), scores[keep_idx].tolist()))
        ends = np.searchsorted(kc[by_child], np.arange(n + 1, dtype=np.int64)).tolist()
        kept = run.kept
        for v in range(n):
            if ends[v + 1] > ends[v]:
                kept[v].extend(rows[ends[v]:ends[v + 1]])
    added = 0
    if built is not None:
        nb = np.maximum(scores, cb)
        pm = gp.masks[gid]
        # child by child, masks ascending inside each: the pairs are distinct, so (child, rank of
        # the mask) is one distinct key below n * G
        sl = argsort_distinct(cc * len(gp.mrank) + gp.mrank[gid], n * len(gp.mrank))
        g = gid[sl]
        part = _Level(pm[sl], gp.elems[g], lls[sl], nb[sl], gp.q[g], gp.nnu[g], ccells[sl].astype(np.int32), cub[sl])
        built.append((part, np.bincount(cc, minlength=n)))
        added = part.nbytes()
    return len(gp.groups), added
