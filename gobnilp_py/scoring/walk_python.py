"""The reference lattice walk with tuples and dicts (:func:`_walk_python`): any number of variables,
one child and one set at a time.

Why kept: it is the walk beyond 62 variables (where int64 bitmasks end, ``VECTORISE_MAX_N``) and
the reference the numpy walk (:mod:`.lattice_walk`) is tested against, set for set and counter
for counter.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np

from . import pruning as P
from .candidates import immediate_subsets, next_level
from .walk_state import _check_finite, _count_capped, _grows, _Run, _tables_checked


#: The scorer's logger (as :mod:`.global_gap` does): the walk's messages read as scoring's, as before the split.
log = logging.getLogger("gobnilp_py.scoring.engine")


def _walk_python(run: _Run, res0: Any, limit: int) -> tuple[int, list[int]]:
    """Reference lattice walk with tuples and dicts (any number of variables)."""
    n = len(run.names)
    eps, prune = run.eps, run.prune
    counters, kept = run.counters, run.kept
    s0 = res0.scores
    # cur[v][X] = (score, LL, best score of X or any subset of X, nonzero cells, ml ceiling)
    cur: list[dict[tuple[int, ...], tuple[float, float, float, int, float]]] = [
        {(): (float(s0[v]), float(res0.ll[v]), float(s0[v]), int(res0.cells[v]), float(res0.ub[v]))}
        if v in run.active else {} for v in range(n)]
    n_scored, per_level = n, [n]
    run.done_so_far = (n_scored, list(per_level))
    for k in range(1, limit + 1):
        batches: dict[tuple[int, ...], list[tuple[int, float, float]]] = {}
        per_child = np.zeros(n, dtype=np.int64)
        run.level = k
        run.growing = frozenset(v for v in range(n) if cur[v] and _grows(run, v, k - 1))
        for v in range(n):
            prev = cur[v]
            if not prev:
                continue
            if not _grows(run, v, k - 1):
                _count_capped(run, v, len(prev))
                continue
            run.tick()
            gen = [(j,) for j in range(n) if j != v] if k == 1 else next_level(prev)
            spent = _spent_sets(run, v, prev)
            for x in gen:
                if x[:-1] in spent:         # generated from a spent set: skipped, as the numpy walk does
                    continue
                subs = list(immediate_subsets(x))
                best = max(prev[y][2] for y, _ in subs)
                vl = run.vlim[v]
                if vl is not None and sum(1 for p in x if run.ar[p] > 1) > vl:
                    continue
                if prune and v not in run.keep_all:
                    rule = _bound_rule(run, v, x, subs, best, prev, cur)
                    if rule is not None:
                        counters[v][rule] += 1
                        continue
                batches.setdefault(x, []).append((v, best, min(prev[y][4] for y, _ in subs)))
                per_child[v] += 1
            run.check_budget(n_scored, per_child, k)
        n_pairs = int(per_child.sum())
        if not n_pairs:
            break
        order = sorted(batches)
        groups = [(x, np.fromiter((it[0] for it in batches[x]), dtype=np.int64, count=len(batches[x])))
                  for x in order]
        if _tables_checked(run):
            xs = [x for x, ch in groups for _ in range(ch.size)]
            run.check_tables(np.concatenate([ch for _, ch in groups]),
                             np.array([float(math.prod(run.ar[p] for p in x)) for x in xs]),
                             lambda i: xs[i], k, run.held_bytes)
        res = run.scorer.run(groups)
        nxt: list[dict[tuple[int, ...], tuple[float, float, float, int, float]]] = [{} for _ in range(n)]
        pos = 0
        for x, children in groups:
            items = batches[x]
            sl = slice(pos, pos + len(items))
            scores = res.scores[sl]
            _check_finite(scores, run.names, [x] * len(items), children)
            for i, (v, best, ubi) in enumerate(items):
                s = float(scores[i])
                if prune and v not in run.keep_all and P.dominated(s, best, eps):
                    counters[v]["dominated"] += 1
                else:
                    kept[v].append((x, s))
                nxt[v][x] = (s, float(res.ll[pos + i]), max(s, best), int(res.cells[pos + i]),
                             min(float(res.ub[pos + i]), ubi))
            pos += len(items)
        n_scored += n_pairs
        per_level.append(n_pairs)
        run.done_so_far = (n_scored, list(per_level))
        if run.progress is not None:
            run.progress("scoring", k, limit, families=n_scored)
        log.info("scoring level %d: %d families scored (%d parent sets), %.2f s", k, n_pairs,
                 len(batches), time.perf_counter() - run.t0)
        cur = nxt
        if not (k < limit and any(_grows(run, v, k) for v in range(n) if v in run.active)):
            if k < limit:
                for v in range(n):
                    _count_capped(run, v, len(cur[v]))
            break
    return n_scored, per_level


def _spent_sets(run: _Run, v: int, prev: dict[tuple[int, ...], tuple[float, float, float, int, float]]) -> set[tuple[int, ...]]:
    """The sets of ``prev`` (child ``v``'s level) that :func:`.lattice_generate._spent_rows` marks, counted as it
    counts them, one set at a time with the same arithmetic (the reference for the numpy walk)."""
    if not (run.prune and run.coef > 0 and "ll_ceiling" in run.rules) or v in run.keep_all:
        return set()
    rv = int(run.ar[v])
    if rv <= 1:
        return set()
    n = len(run.names)
    rmin_from = [float(min(run.ar[p:], default=1)) for p in range(n)] + [1.0]
    out = set()
    for y, val in prev.items():
        maxy = y[-1] if y else -1
        best = val[2]
        pen = run.coef * (rv - 1) * (float(math.prod(run.ar[p] for p in y)) * rmin_from[maxy + 1])
        if best <= 0 and P.ll_ceiling(float(run.llc[v]), pen, best, run.eps):
            out.add(y)
            if (n - 1 - maxy) - (v > maxy) >= 1:
                run.counters[v]["ll_ceiling"] = run.counters[v].get("ll_ceiling", 0) + 1
    return out


def _bound_rule(run: _Run, v: int, x: tuple[int, ...], subs: list[tuple[tuple[int, ...], int]],
                best: float, prev: dict[tuple[int, ...], tuple[float, float, float, int, float]],
                cur: list[dict[tuple[int, ...], tuple[float, float, float, int, float]]]) -> str | None:
    """Name of the first bound rule excluding ``x`` (and all supersets) for child ``v``, else None."""
    ar, eps, coef, R, llc = run.ar, run.eps, run.coef, run.rules, run.llc
    rv = ar[v]
    if rv > 1 and coef > 0:
        kmax = run.kmax[v]
        if "parent_count" in R and kmax is not None and sum(1 for p in x if ar[p] > 1) > kmax:
            return "parent_count"
        q = float(math.prod(ar[p] for p in x))
        pen = coef * (rv - 1) * q
        if "penalty_bound" in R and P.penalty_bound(pen, best, eps):
            return "penalty_bound"
        if "ll_ceiling" in R and P.ll_ceiling(float(llc[v]), pen, best, eps):
            return "ll_ceiling"
        if "entropy" in R:
            for y, j in subs:
                rj = ar[j]
                if rj <= 1:
                    continue
                lly = prev[y][1]
                n_ent = -lly + float(llc[v])
                other = cur[j].get(y)
                if other is not None and -other[1] + float(llc[j]) < n_ent:
                    n_ent = -other[1] + float(llc[j])
                step = coef * (rv - 1) * (q / rj) * (rj - 1)
                if P.entropy_bound(step, n_ent, eps, lly):
                    return "entropy"
    if rv > 1 and "cell_bound" in R:
        n_cells = max(prev[y][3] for y, _ in subs)
        if P.cell_bound(n_cells, rv, best, eps):
            return "cell_bound"
    if "ml_ceiling" in R:
        u = min(prev[y][4] for y, _ in subs)
        if P.user_bound(u, best, eps):
            return "ml_ceiling"
    if "user_bound" in R and P.user_bound(float(run.sc.upper_bound(v, x)), best, eps):
        return "user_bound"
    return None
