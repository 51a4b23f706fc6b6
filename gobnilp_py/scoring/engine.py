"""``score()``: from data to an ε-safe :class:`ScoreTable`.

The engine walks each child's lattice of parent sets level by level
(:mod:`.candidates`), applies the bound rules of :mod:`.pruning` *before*
counting a set (so excluded sets and their supersets are never counted),
counts every surviving set once for all the children that still want it
(:mod:`.counts`), scores them in one batch (:mod:`.local_scores`) and finally
drops the sets some subset beats by more than ε.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data.dataset import Dataset
from ..errors import DataError, ScoreError
from . import pruning as P
from .candidates import immediate_subsets, next_level
from .counts import ParentConfigs
from .local_scores import BDeu, LocalScore, PenalisedLL, make_score
from .table import ScoreTable

__all__ = ["score", "resolve_epsilon", "DEFAULT_MAX_CANDIDATES"]

log = logging.getLogger(__name__)

#: Default cap on the number of (child, parent set) pairs scored in one run.
DEFAULT_MAX_CANDIDATES = 10_000_000

#: Up to this many variables the lattice walk uses int64 bitmasks and numpy
#: (fast); beyond it, tuples and dicts.  ``None`` forces the tuple walk.
VECTORISE_MAX_N: int | None = 62


def resolve_epsilon(bayes_factor: float | None, epsilon: float | None) -> float:
    """ε from at most one of a Bayes factor (ε = ln BF, BF >= 1) or ε itself (>= 0); default 0."""
    if bayes_factor is not None and epsilon is not None:
        raise ScoreError("give either bayes_factor or epsilon, not both")
    if bayes_factor is not None:
        try:
            bf = float(bayes_factor)
        except (TypeError, ValueError):
            raise ScoreError(f"bayes_factor must be a number >= 1, got {bayes_factor!r}") from None
        if not (bf >= 1.0) or math.isinf(bf):
            raise ScoreError(f"bayes_factor must be a finite number >= 1, got {bayes_factor!r}")
        return math.log(bf)
    if epsilon is not None:
        try:
            eps = float(epsilon)
        except (TypeError, ValueError):
            raise ScoreError(f"epsilon must be a number >= 0, got {epsilon!r}") from None
        if not (eps >= 0.0) or math.isinf(eps):
            raise ScoreError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        return eps
    return 0.0


def _as_dataset(data: object) -> Dataset:
    if isinstance(data, Dataset):
        return data
    try:
        from ..data import read_data
    except ImportError:  # pragma: no cover - read_data ships with the package
        raise DataError(f"cannot read {data!r}: pass a Dataset") from None
    return read_data(data)


def score(data: object, *, score: str | LocalScore | type[LocalScore] | Callable[..., float] = "BIC",
          ess: float = 1.0, palim: int | None = None, bayes_factor: float | None = None,
          epsilon: float | None = None, prune: bool = True,
          max_candidates: int | None = DEFAULT_MAX_CANDIDATES,
          unpruned: Iterable[str] = (), progress: Callable[..., Any] | None = None) -> ScoreTable:
    """Local scores of every candidate parent set that a network within ε of the optimum can use.

    Parameters
    ----------
    data : Dataset, or anything :func:`gobnilp_py.data.read_data` accepts
        The discrete data.
    score : str, LocalScore subclass or instance, or callable
        ``"BIC"``, ``"BDeu"``, ``"AIC"`` (any case), a registered name, a
        :class:`~gobnilp_py.scoring.local_scores.LocalScore`, or a plain
        function ``fn(child, parents, counts) -> float``.
    ess : float
        BDeu equivalent sample size (> 0).
    palim : int or None
        Largest parent set size; ``None`` means no limit (the bounds decide).
    bayes_factor, epsilon : float, optional
        At most one.  The table keeps every family of every DAG with score
        ``>= OPT - ε`` (ε = ln BF); neither means ε = 0.
    prune : bool
        ``False`` keeps every parent set up to ``palim`` (exact for every ε,
        but exponential).
    unpruned : iterable of str
        Variables whose parent sets are kept unpruned (up to ``palim``) even
        when ``prune`` is true.  Structural constraints that removing a parent
        could violate (a required arrow into ``v``, say) make the subset rules
        unsafe for the variables they involve, and only for those: see
        :attr:`StructuralConstraints.unprunable`.
    progress : callable, optional
        Called after each level of the lattice walk as
        ``progress("scoring", k, max_k, families=scored_so_far)``, e.g. a
        :class:`gobnilp_py.progress.Progress`.  Scoring works level by level
        (all variables' parent sets of size k together), so that is its unit.
    max_candidates : int or None
        Abort with a :class:`ScoreError` rather than score more than this many
        (child, parent set) pairs (``None``: no cap).  Exact pruning cannot
        shrink the lattice of a constant (arity-1) variable, whose every
        parent set scores the same; such data need ``palim``.

    Returns
    -------
    ScoreTable
        With ``epsilon``, ``score_name``, ``pruning`` (per variable, how many
        sets each rule excluded directly; see ``docs/pruning.md``) and
        ``meta`` (``N``, ``arities``, ``ess`` (BDeu, else None), ``palim``,
        ``bayes_factor``, ``time`` in seconds, ``families_scored`` and
        ``families_scored_per_level``, ``max_nonunit_parents`` for BIC/AIC).
    """
    t0 = time.perf_counter()
    eps = resolve_epsilon(bayes_factor, epsilon)
    try:
        ess_f = float(ess)
    except (TypeError, ValueError):
        raise ScoreError(f"ess must be a positive number, got {ess!r}") from None
    if not (ess_f > 0) or math.isinf(ess_f):
        raise ScoreError(f"ess must be a positive finite number, got {ess!r}")
    if palim is not None:
        if isinstance(palim, bool) or not isinstance(palim, (int, np.integer)):
            raise ScoreError(f"palim must be a non-negative integer or None, got {palim!r}")
        if palim < 0:
            raise ScoreError(f"palim must be >= 0, got {palim}")
    if max_candidates is not None and max_candidates < 1:
        raise ScoreError(f"max_candidates must be >= 1 or None, got {max_candidates!r}")
    ds = _as_dataset(data)
    if ds.N < 1:
        raise DataError(f"{ds.source}: no data rows to score")
    sc = make_score(score, ds, ess=ess_f)
    if sc.data is not ds and (sc.data.codes.shape != ds.codes.shape
                              or not np.array_equal(sc.data.arities, ds.arities)):
        raise ScoreError(f"score {sc.name!r} was built for different data than {ds.source}")
    n = ds.n
    names = ds.names
    ar = [int(a) for a in ds.arities]
    limit = n - 1 if palim is None else min(int(palim), n - 1)
    unknown = [u for u in unpruned if str(u) not in names]
    if unknown:
        raise ScoreError(f"unpruned names unknown variable {unknown[0]!r}")
    keep_all = frozenset(names.index(str(u)) for u in unpruned) if prune else frozenset()

    penalised = isinstance(sc, PenalisedLL)
    is_bdeu = isinstance(sc, BDeu)
    has_user_bound = type(sc).upper_bound is not LocalScore.upper_bound
    rules = ["dominated"]
    if penalised:
        rules = ["parent_count", "penalty_bound", "entropy", "dominated"]
    elif is_bdeu:
        rules = ["bdeu_bound", "dominated"]
    if has_user_bound:
        rules.insert(-1, "user_bound")
    counters: list[dict[str, int]] = [dict.fromkeys(rules, 0) for _ in range(n)]
    if max_candidates is not None and (penalised or is_bdeu):
        # A constant child scores exactly 0 with every parent set (BIC/AIC/BDeu), so no rule can
        # shrink its lattice: its size is known in advance, and failing now saves the memory.
        for v in range(n):
            if ar[v] == 1:
                size = sum(math.comb(n - 1, k) for k in range(limit + 1))
                if size > max_candidates:
                    raise ScoreError(
                        f"variable {names[v]!r} is constant: all its {size} parent sets up to size {limit} "
                        f"tie and must be kept, over max_candidates={max_candidates}; set palim")

    pc = ParentConfigs(ds)
    # Level 0: the empty parent set, all children in one batch.
    fc = pc.family_counts((), np.arange(n))
    res = sc.batch(fc)
    _check_finite(res.scores, names, [()] * n, list(range(n)))
    s0 = np.asarray(res.scores, dtype=np.float64)
    ll0 = np.asarray(res.ll, dtype=np.float64) if res.ll is not None else np.full(n, np.nan)
    kept: list[list[tuple[tuple[int, ...], float]]] = [[((), float(s0[v]))] for v in range(n)]

    coef = sc.coef if penalised else 0.0
    kmax: list[int | None] = [None] * n
    if prune and penalised:
        for v in range(n):
            if v in keep_all:
                continue
            kmax[v] = P.max_nonunit_parents(coef, ar[v], [ar[j] for j in range(n) if j != v],
                                            float(s0[v]), eps)
    run = _Run(sc=sc, pc=pc, names=names, ar=ar, eps=eps, prune=prune, keep_all=keep_all, penalised=penalised,
               is_bdeu=is_bdeu, has_user_bound=has_user_bound, coef=coef, kmax=kmax,
               counters=counters, kept=kept, max_candidates=max_candidates, t0=t0, progress=progress)
    walk = _walk_numpy if (VECTORISE_MAX_N is not None and n <= VECTORISE_MAX_N) else _walk_python
    cells0 = fc.nonzero_cells() if is_bdeu else np.zeros(n, dtype=np.int64)
    n_scored, per_level = walk(run, s0, ll0, cells0, limit)

    elapsed = time.perf_counter() - t0
    meta: dict[str, Any] = {
        "N": ds.N,
        "arities": dict(zip(names, ar)),
        "ess": ess_f if is_bdeu else None,
        "palim": palim,
        "bayes_factor": math.exp(eps) if eps < 700 else math.inf,
        "prune": bool(prune),
        "unpruned": [names[v] for v in sorted(keep_all)],
        "tolerance_rtol": P.RTOL,
        "families_scored": n_scored,
        "families_scored_per_level": per_level,
        "time": elapsed,
        "source": ds.source,
    }
    if prune and penalised:
        meta["max_nonunit_parents"] = {names[v]: kmax[v] for v in range(n)}
    pruning_report = {names[v]: counters[v] for v in range(n)} if prune else {}
    log.info("scored %d families in %.2f s; kept %d", n_scored, elapsed, sum(len(f) for f in kept))
    return ScoreTable(names, kept, epsilon=eps, score_name=sc.name, pruning=pruning_report, meta=meta)


@dataclass
class _Run:
    """What both lattice walks share."""

    sc: LocalScore
    pc: ParentConfigs
    names: tuple[str, ...]
    ar: list[int]
    eps: float
    prune: bool
    keep_all: frozenset[int]
    penalised: bool
    is_bdeu: bool
    has_user_bound: bool
    coef: float
    kmax: list[int | None]
    counters: list[dict[str, int]]
    kept: list[list[tuple[tuple[int, ...], float]]]
    max_candidates: int | None
    t0: float
    progress: Callable[..., Any] | None = None

    def check_budget(self, n_scored: int, n_pairs: int, per_child: np.ndarray, k: int) -> None:
        """Raise a one-line ScoreError when ``max_candidates`` would be exceeded."""
        if self.max_candidates is not None and n_scored + n_pairs > self.max_candidates:
            worst = int(np.argmax(per_child))
            raise ScoreError(
                f"scoring would evaluate over {self.max_candidates} candidate parent sets (variable "
                f"{self.names[worst]!r} alone has {int(per_child[worst])} of size {k}); "
                f"set palim or raise max_candidates")


def _walk_python(run: _Run, s0: np.ndarray, ll0: np.ndarray, cells0: np.ndarray,
                 limit: int) -> tuple[int, list[int]]:
    """Reference lattice walk with tuples and dicts (any number of variables)."""
    n = len(run.names)
    sc, pc, eps, prune = run.sc, run.pc, run.eps, run.prune
    counters, kept = run.counters, run.kept
    # cur[v][X] = (score, LL, best score of X or any subset of X, nonzero cells (BDeu only))
    cur: list[dict[tuple[int, ...], tuple[float, float, float, int]]] = [
        {(): (float(s0[v]), float(ll0[v]), float(s0[v]), int(cells0[v]))} for v in range(n)]
    n_scored, per_level = n, [n]
    for k in range(1, limit + 1):
        batches: dict[tuple[int, ...], list[tuple[int, float]]] = {}
        per_child = np.zeros(n, dtype=np.int64)
        for v in range(n):
            prev = cur[v]
            if not prev:
                continue
            gen = [(j,) for j in range(n) if j != v] if k == 1 else next_level(prev)
            for x in gen:
                subs = list(immediate_subsets(x))
                best = max(prev[y][2] for y, _ in subs)
                if prune and v not in run.keep_all:
                    rule = _bound_rule(run, v, x, subs, best, prev, cur)
                    if rule is not None:
                        counters[v][rule] += 1
                        continue
                batches.setdefault(x, []).append((v, best))
                per_child[v] += 1
            run.check_budget(n_scored, int(per_child.sum()), per_child, k)
        n_pairs = int(per_child.sum())
        if not n_pairs:
            break
        run.check_budget(n_scored, n_pairs, per_child, k)
        nxt: list[dict[tuple[int, ...], tuple[float, float, float, int]]] = [{} for _ in range(n)]
        for x in sorted(batches):
            items = batches[x]
            children = np.fromiter((v for v, _ in items), dtype=np.int64, count=len(items))
            fc = pc.family_counts(x, children)
            res = sc.batch(fc)
            scores = res.scores
            _check_finite(scores, run.names, [x] * len(items), children)
            ll = res.ll
            cells = fc.nonzero_cells() if run.is_bdeu else np.zeros(len(items), dtype=np.int64)
            for i, (v, best) in enumerate(items):
                s = float(scores[i])
                if prune and v not in run.keep_all and P.dominated(s, best, eps):
                    counters[v]["dominated"] += 1
                else:
                    kept[v].append((x, s))
                nxt[v][x] = (s, float(ll[i]) if ll is not None else math.nan, max(s, best), int(cells[i]))
        n_scored += n_pairs
        per_level.append(n_pairs)
        if run.progress is not None:
            run.progress("scoring", k, limit, families=n_scored)
        log.info("scoring level %d: %d families scored (%d parent sets), %.2f s", k, n_pairs,
                 len(batches), time.perf_counter() - run.t0)
        cur = nxt
    return n_scored, per_level



@dataclass
class _Level:
    """One child's scored sets of one size, as arrays sorted by bitmask."""

    masks: np.ndarray      # int64 (M,)
    elems: np.ndarray      # int64 (M, k), each row sorted
    score: np.ndarray      # float (M,)
    ll: np.ndarray         # float (M,), NaN when the score has no LL
    best: np.ndarray       # float (M,): best score of the set or any subset
    q: np.ndarray          # float (M,): declared number of parent configurations
    nnu: np.ndarray        # int64 (M,): parents of arity >= 2
    cells: np.ndarray      # int64 (M,): cells with N_jk > 0 (BDeu bound; zeros otherwise)


def _lookup(sorted_masks: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``queries`` in ``sorted_masks`` and whether each is present."""
    if sorted_masks.size == 0:
        z = np.zeros(queries.shape, dtype=np.int64)
        return z, np.zeros(queries.shape, dtype=bool)
    idx = np.searchsorted(sorted_masks, queries)
    np.minimum(idx, sorted_masks.size - 1, out=idx)
    return idx, sorted_masks[idx] == queries


def _walk_numpy(run: _Run, s0: np.ndarray, ll0: np.ndarray, cells0: np.ndarray,
                limit: int) -> tuple[int, list[int]]:
    """Lattice walk on int64 bitmasks: generation and bound rules are whole-array operations.

    Same rules, same order of attribution, same arithmetic as
    :func:`_walk_python` (a test checks the two give identical tables).
    """
    n = len(run.names)
    sc, pc, eps, prune, coef = run.sc, run.pc, run.eps, run.prune, run.coef
    ar = np.asarray(run.ar, dtype=np.int64)
    arf = ar.astype(np.float64)
    bit = np.left_shift(np.int64(1), np.arange(n, dtype=np.int64))
    nonunit = (ar > 1).astype(np.int64)
    cols = np.arange(n, dtype=np.int64)
    f0 = np.zeros(1)
    levels = [_Level(np.zeros(1, dtype=np.int64), np.zeros((1, 0), dtype=np.int64), s0[v:v + 1].copy(),
                     ll0[v:v + 1].copy(), s0[v:v + 1].copy(), f0 + 1.0, np.zeros(1, dtype=np.int64),
                     np.asarray(cells0[v:v + 1], dtype=np.int64).copy())
              for v in range(n)]
    n_scored, per_level = n, [n]
    rule_names = ("parent_count", "penalty_bound", "entropy", "bdeu_bound", "user_bound")

    for k in range(1, limit + 1):
        parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        per_child = np.zeros(n, dtype=np.int64)
        for v in range(n):
            lv = levels[v]
            if lv.masks.size == 0:
                continue
            # --- generate: Y + (j,) with j > max(Y), j != v, all k-subsets present
            maxy = lv.elems[:, -1] if k > 1 else np.full(lv.masks.size, -1, dtype=np.int64)
            ok = (cols[None, :] > maxy[:, None]) & (cols[None, :] != v)
            yi, jj = np.nonzero(ok)
            if yi.size == 0:
                continue
            xm = lv.masks[yi] | bit[jj]
            if k > 1:
                ye = lv.elems[yi]
                sub = xm[:, None] ^ bit[ye]                     # X minus each element of Y
                sidx, found = _lookup(lv.masks, sub)
                keep = found.all(axis=1)
                yi, jj, xm, ye, sub, sidx = yi[keep], jj[keep], xm[keep], ye[keep], sub[keep], sidx[keep]
                if yi.size == 0:
                    continue
                # every immediate subset: (mask, position in lv, dropped element)
                sub_m = np.concatenate([lv.masks[yi][:, None], sub], axis=1)
                sub_i = np.concatenate([yi[:, None], sidx], axis=1)
                drop = np.concatenate([jj[:, None], ye], axis=1)
            else:
                ye = np.zeros((yi.size, 0), dtype=np.int64)
                sub_m = lv.masks[yi][:, None]
                sub_i = yi[:, None]
                drop = jj[:, None]
            best = lv.best[sub_i].max(axis=1)
            qx = lv.q[yi] * arf[jj]
            nnu = lv.nnu[yi] + nonunit[jj]
            alive = np.ones(yi.size, dtype=bool)
            if prune and v not in run.keep_all:
                fired = {r: 0 for r in rule_names}
                rv = int(ar[v])
                if run.penalised and rv > 1:
                    kmax = run.kmax[v]
                    if kmax is not None:
                        f = alive & (nnu > kmax)
                        fired["parent_count"] = int(f.sum())
                        alive &= ~f
                    pen = coef * (rv - 1) * qx
                    f = alive & P.fires_array(best + pen, eps, best, pen)
                    fired["penalty_bound"] = int(f.sum())
                    alive &= ~f
                    if alive.any():
                        a = np.flatnonzero(alive)
                        ll_sub = lv.ll[sub_i[a]]
                        n_ent = -ll_sub
                        d = drop[a]
                        sm = sub_m[a]
                        for c in np.unique(d):
                            sel = d == c
                            lc = levels[int(c)]
                            if lc.masks.size == 0:
                                continue
                            pos, hit = _lookup(lc.masks, sm[sel])
                            other = np.where(hit, -lc.ll[pos], np.inf)
                            n_ent[sel] = np.minimum(n_ent[sel], other)
                        rd = arf[d]
                        step = coef * (rv - 1) * (qx[a][:, None] / rd) * (rd - 1)
                        fe = (rd > 1) & P.fires_array(step - n_ent, eps, ll_sub, step)
                        f = np.zeros_like(alive)
                        f[a] = fe.any(axis=1)
                        fired["entropy"] = int(f.sum())
                        alive &= ~f
                if run.is_bdeu and rv > 1 and alive.any():
                    n_cells = lv.cells[sub_i].max(axis=1).astype(np.float64)
                    ub = -n_cells * math.log(rv)
                    f = alive & P.fires_array(best - ub, eps, best, ub)
                    fired["bdeu_bound"] = int(f.sum())
                    alive &= ~f
                if run.has_user_bound and alive.any():
                    f = np.zeros_like(alive)
                    xe = np.concatenate([ye, jj[:, None]], axis=1)
                    for i in np.flatnonzero(alive):
                        ub_i = float(sc.upper_bound(v, tuple(int(t) for t in xe[i])))
                        f[i] = P.user_bound(ub_i, float(best[i]), eps)
                    fired["user_bound"] = int(f.sum())
                    alive &= ~f
                for r, c in fired.items():
                    if c:
                        run.counters[v][r] += c
            if not alive.any():
                continue
            xe = np.concatenate([ye[alive], jj[alive][:, None]], axis=1)
            parts.append((v, xm[alive], xe, best[alive], qx[alive], nnu[alive]))
            per_child[v] = int(alive.sum())
            # Check as we go: the candidate arrays themselves can exhaust memory.
            run.check_budget(n_scored, int(per_child.sum()), per_child, k)

        n_pairs = int(per_child.sum())
        if not n_pairs:
            break
        run.check_budget(n_scored, n_pairs, per_child, k)
        cm = np.concatenate([p[1] for p in parts])
        cc = np.concatenate([np.full(p[1].size, p[0], dtype=np.int64) for p in parts])
        ce = np.concatenate([p[2] for p in parts])
        cb = np.concatenate([p[3] for p in parts])
        cq = np.concatenate([p[4] for p in parts])
        cn = np.concatenate([p[5] for p in parts])
        # Group by parent set; visit sets in lexicographic order (prefix reuse in counting).
        umask, first, inv = np.unique(cm, return_index=True, return_inverse=True)
        utup = [tuple(t) for t in ce[first].tolist()]
        lex = np.empty(umask.size, dtype=np.int64)
        lex[np.array(sorted(range(umask.size), key=utup.__getitem__), dtype=np.int64)] = np.arange(umask.size)
        order = np.lexsort((cc, lex[inv]))
        cm, cc, ce, cb, cq, cn, inv = (a[order] for a in (cm, cc, ce, cb, cq, cn, inv))
        gl = lex[inv]
        starts = np.flatnonzero(np.r_[True, gl[1:] != gl[:-1]])
        ends = np.r_[starts[1:], gl.size]
        scores = np.empty(gl.size)
        lls = np.full(gl.size, np.nan)
        ccells = np.zeros(gl.size, dtype=np.int64)
        for s_, e_ in zip(starts.tolist(), ends.tolist()):
            u = int(inv[s_])
            x = utup[u]
            children = cc[s_:e_]
            fc = pc.family_counts(x, children)
            res = sc.batch(fc)
            scores[s_:e_] = res.scores
            if res.ll is not None:
                lls[s_:e_] = res.ll
            if run.is_bdeu:
                ccells[s_:e_] = fc.nonzero_cells()
        bad = np.isnan(scores) | (scores == np.inf)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _check_finite(scores[i:i + 1], run.names, [utup[int(inv[i])]], cc[i:i + 1])
        if prune:
            dom = P.fires_array(cb - scores, eps, cb, scores)
            if run.keep_all:
                dom &= ~np.isin(cc, np.fromiter(run.keep_all, dtype=np.int64))
            for v, c in enumerate(np.bincount(cc[dom], minlength=n).tolist()):
                if c:
                    run.counters[v]["dominated"] += c
            keep_idx = np.flatnonzero(~dom)
        else:
            keep_idx = np.arange(gl.size)
        for i, s in zip(keep_idx.tolist(), scores[keep_idx].tolist()):
            run.kept[int(cc[i])].append((utup[int(inv[i])], s))
        # Next level: per child, arrays sorted by mask.
        nb = np.maximum(scores, cb)
        o2 = np.lexsort((cm, cc))
        cuts = np.searchsorted(cc[o2], np.arange(n + 1))
        new_levels = []
        for v in range(n):
            sl = o2[cuts[v]:cuts[v + 1]]
            new_levels.append(_Level(cm[sl], ce[sl], scores[sl], lls[sl], nb[sl], cq[sl], cn[sl],
                                     ccells[sl]))
        levels = new_levels
        n_scored += n_pairs
        per_level.append(n_pairs)
        if run.progress is not None:
            run.progress("scoring", k, limit, families=n_scored)
        log.info("scoring level %d: %d families scored (%d parent sets), %.2f s", k, n_pairs,
                 umask.size, time.perf_counter() - run.t0)
    return n_scored, per_level


def _bound_rule(run: _Run, v: int, x: tuple[int, ...], subs: list[tuple[tuple[int, ...], int]],
                best: float, prev: dict[tuple[int, ...], tuple[float, float, float, int]],
                cur: list[dict[tuple[int, ...], tuple[float, float, float, int]]]) -> str | None:
    """Name of the first bound rule excluding ``x`` (and all supersets) for child ``v``, else None."""
    ar, eps, coef = run.ar, run.eps, run.coef
    rv = ar[v]
    if run.penalised and rv > 1:
        kmax = run.kmax[v]
        if kmax is not None and sum(1 for p in x if ar[p] > 1) > kmax:
            return "parent_count"
        q = math.prod(ar[p] for p in x)
        if P.penalty_bound(coef * (rv - 1) * q, best, eps):
            return "penalty_bound"
        for y, j in subs:
            rj = ar[j]
            if rj <= 1:
                continue
            lly = prev[y][1]
            n_ent = -lly
            other = cur[j].get(y)
            if other is not None and -other[1] < n_ent:
                n_ent = -other[1]
            step = coef * (rv - 1) * (q // rj) * (rj - 1)
            if P.entropy_bound(step, n_ent, eps, lly):
                return "entropy"
    if run.is_bdeu and rv > 1:
        n_cells = max(prev[y][3] for y, _ in subs)
        if P.bdeu_bound(n_cells, rv, best, eps):
            return "bdeu_bound"
    if run.has_user_bound and P.user_bound(float(run.sc.upper_bound(v, x)), best, eps):
        return "user_bound"
    return None


def _check_finite(scores: np.ndarray, names: tuple[str, ...], parents: list[tuple[int, ...]],
                  children: Any) -> None:
    bad = np.isnan(scores) | (scores == np.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        c = int(children[i])
        ps = ",".join(names[p] for p in parents[i]) or "{}"
        raise ScoreError(f"local score of {names[c]}<-{ps} is {scores[i]}, not a number below +inf")
