"""Exact learning under a given variable order (the K2 problem), and ε-sets under an order.

When the variables must follow a total order ``v_1 < v_2 < ... < v_n`` (every
arrow points forward), any choice of parent sets ``W_i ⊆ {v_1 .. v_(i-1)}``
is a DAG, so the best network is every node's best family among its
predecessors, chosen independently (Cooper and Herskovits 1992; Tian 2000,
§2).  From data each choice is a branch and bound
(:mod:`.parent_search`); from a score table it is a scan of the node's
families.

The ε-set under the order -- every order-consistent DAG with score
``>= OPT_order - ε`` -- is a sum problem: a DAG's deficit is the sum of its
nodes' deficits ``best_v - s(v, W_v)``, so each node needs only its families
within ε of its best (the ε form of the parent search), and the networks are
the combinations whose deficits sum to at most ε.  :func:`deficit_sums`
enumerates those best first, each once, with a heap (the classic k-best sums
order: a combination is reached only by raising its coordinates in
non-decreasing position order, so there is exactly one path to it, and every
successor's deficit is at least its predecessor's).

Results are plain records; ``status="optimal"`` means optimal **under the
order** (``stats["optimal_under"] = "order"``).  The drivers turn them into
:class:`~gobnilp_py.network.Network` objects: :meth:`OrderOptimum.table` and
:meth:`OrderEpsilonSet.table` give a :class:`~gobnilp_py.scoring.table.ScoreTable`
holding exactly the families found, and :meth:`OrderOptimum.solution` /
:meth:`OrderEpsilonSet.collection` answer in positions of that table
(:mod:`gobnilp_py.search.results`), like every engine.

Tolerances: membership of the ε-set is ``score >= OPT - ε - 1e-9 max(1, |OPT|)``,
as everywhere in the package.  Per-node lists are searched with
``ε + 1e-9 max(1, Σ_v |s(v, ∅)|)``, which covers that tolerance because
``OPT_order >= Σ_v s(v, ∅)`` and every local score is ``<= 0``.
"""

from __future__ import annotations

import heapq
import logging
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...data.dataset import Dataset
from ...errors import ConfigError, ConstraintError, DataError
from ...scoring.pruning import RTOL
from ...scoring.table import ScoreTable
from .parent_search import ParentSearch, ParentSearchResult
from ..results import Collection, Entry, Solution

__all__ = [
    "OrderOptimum",
    "OrderEpsilonSet",
    "resolve_order",
    "optimum_for_order",
    "epsilon_set_for_order",
    "optimum_for_order_table",
    "epsilon_set_for_order_table",
    "deficit_sums",
]

_log = logging.getLogger(__name__)

Families = list[list[tuple[tuple[int, ...], float]]]


def _tol(x: float) -> float:
    return RTOL * max(1.0, abs(x)) if math.isfinite(x) else 0.0


def resolve_order(names: Sequence[str], order: Sequence[Any]) -> tuple[int, ...]:
    """Variable indices of ``order`` (names or indices), which must list every variable once.

    Raises
    ------
    ConstraintError
        Naming an unknown or repeated variable, or the variables missing.
    """
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence | np.ndarray):
        raise ConstraintError(f"order must be a list of variable names or indices, got {order!r}")
    n = len(names)
    index = {nm: i for i, nm in enumerate(names)}
    out: list[int] = []
    for v in order:
        if isinstance(v, (bool, np.bool_)):
            raise ConstraintError(f"order: {v!r} is not a variable")
        if isinstance(v, (int, np.integer)):
            i = int(v)
            if not 0 <= i < n:
                raise ConstraintError(f"order: variable index {i} out of range 0..{n - 1}")
        else:
            if str(v) not in index:
                raise ConstraintError(f"order: unknown variable {v!r}")
            i = index[str(v)]
        out.append(i)
    seen: set[int] = set()
    for i in out:
        if i in seen:
            raise ConstraintError(f"order: variable {names[i]!r} is listed twice")
        seen.add(i)
    if len(out) != n:
        missing = [names[i] for i in range(n) if i not in seen]
        raise ConstraintError(f"order must list every variable; missing: {', '.join(map(repr, missing[:5]))}"
                              + (" ..." if len(missing) > 5 else ""))
    return tuple(out)


# --------------------------------------------------------------------------- k-best sums
def deficit_sums(deficits: Sequence[Sequence[float]], bound: float, max_count: int | None = None
                 ) -> tuple[list[tuple[float, tuple[int, ...]]], float | None]:
    """Every choice of one entry per list whose deficits sum to at most ``bound``, smallest sum first.

    Parameters
    ----------
    deficits : sequence of sequences of float
        Per list, non-decreasing deficits ``>= 0`` starting with 0 (each list non-empty).
    bound : float
        Largest total deficit wanted.
    max_count : int or None
        Stop after this many choices.

    Returns
    -------
    choices : list of (total, positions)
        ``positions[i]`` indexes ``deficits[i]``; each choice once, sums non-decreasing
        (ties in lexicographic order of ``positions``).
    next_total : float or None
        ``None`` when every choice within ``bound`` was returned; otherwise the
        smallest total not returned (every choice with a smaller total is in ``choices``).
    """
    n = len(deficits)
    active = [i for i in range(n) if len(deficits[i]) > 1]
    lists = [list(map(float, deficits[i])) for i in active]
    base = [0] * n
    out: list[tuple[float, tuple[int, ...]]] = []
    heap: list[tuple[float, tuple[int, ...], int]] = [(0.0, (0,) * len(active), 0)]
    while heap:
        if max_count is not None and len(out) >= max_count:
            return out, heap[0][0]
        d, idx, j = heapq.heappop(heap)
        pos = base[:]
        for a, k in zip(active, idx):
            pos[a] = k
        out.append((d, tuple(pos)))
        for i in range(j, len(active)):
            k = idx[i] + 1
            lst = lists[i]
            if k < len(lst):
                nd = d - lst[idx[i]] + lst[k]
                if nd <= bound:
                    heapq.heappush(heap, (nd, idx[:i] + (k,) + idx[i + 1:], i))
    return out, None


# --------------------------------------------------------------------------- results
@dataclass
class OrderOptimum:
    """The best network under a variable order.

    Attributes
    ----------
    names : tuple of str
    order : tuple of int
        The order (variable indices, first to last).
    score_name : str
    parents : tuple of tuple of int
        ``parents[v]``: the parents of variable ``v`` (column order), sorted indices.
    local_scores : tuple of float
    score : float
        ``math.fsum`` of the local scores.
    status : str
        ``"optimal"`` (optimal under the order) or ``"time_limit"`` (the nodes
        in ``stats["unfinished"]`` may have better families).
    dual_bound : float
        A proven upper bound on the optimum under the order (= ``score`` when optimal).
    stats : dict
        Totals (``states``, ``ll_evaluations``, ``k3_traps``, ``seconds``,
        ``n_jobs``, ``optimal_under``) and ``per_node`` (name -> that node's
        search statistics).
    """

    names: tuple[str, ...]
    order: tuple[int, ...]
    score_name: str
    parents: tuple[tuple[int, ...], ...]
    local_scores: tuple[float, ...]
    score: float
    status: str
    dual_bound: float
    stats: dict[str, Any] = field(default_factory=dict)

    def families(self) -> Families:
        """One family per node: the chosen one."""
        return [[(p, s)] for p, s in zip(self.parents, self.local_scores)]

    def table(self) -> ScoreTable:
        """A score table holding exactly the chosen families (``solution()`` indexes it)."""
        return ScoreTable(self.names, self.families(), epsilon=None, score_name=self.score_name,
                          meta={"source": "fixed order", "order": [self.names[i] for i in self.order]})

    def solution(self) -> Solution:
        """The engine answer over :meth:`table`: family 0 of every node."""
        return Solution(self.status, self.score, (0,) * len(self.names), dual_bound=self.dual_bound,
                        stats=dict(self.stats))


@dataclass
class OrderEpsilonSet:
    """Every network consistent with a variable order within ε of the best under that order.

    Attributes
    ----------
    names, order, score_name
        As in :class:`OrderOptimum`.
    epsilon : float
    opt : float
        The optimum under the order.
    families : list of list of (parents, score)
        Per node, every family within ε of that node's best (best first, as a
        :class:`ScoreTable` sorts them).
    entries : list of (score, chosen)
        The networks, best first, each once; ``chosen[v]`` indexes ``families[v]``.
    reason : str or None
        ``None`` when complete; else ``"max_networks"`` or ``"time_limit"``.
    threshold : float or None
        For a cut-short set: every network with score ``>= threshold`` is in ``entries``.
    stats : dict
    """

    names: tuple[str, ...]
    order: tuple[int, ...]
    score_name: str
    epsilon: float
    opt: float
    families: Families
    entries: list[Entry]
    reason: str | None
    threshold: float | None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.reason is None

    def networks(self) -> list[tuple[tuple[int, ...], ...]]:
        """Parents per node of every entry, in entry order."""
        return [tuple(self.families[v][c][0] for v, c in enumerate(ch)) for _, ch in self.entries]

    def table(self) -> ScoreTable:
        """A score table of the families found (``collection()`` indexes it)."""
        return ScoreTable(self.names, self.families, epsilon=None, score_name=self.score_name,
                          meta={"source": "fixed order", "order": [self.names[i] for i in self.order],
                                "epsilon_under_order": self.epsilon})

    def collection(self) -> Collection:
        """The engine answer over :meth:`table`."""
        return Collection(list(self.entries), self.reason, threshold=self.threshold, opt=self.opt,
                          stats=dict(self.stats))


# --------------------------------------------------------------------------- node searches
_WORKER: dict[str, Any] = {}


def _worker_init(codes: np.ndarray, arities: np.ndarray, names: tuple[str, ...], score: str, ess: float) -> None:
    _WORKER["ps"] = ParentSearch(Dataset(names, arities, codes), score, ess=ess)


def _worker_run(child: int, cands: tuple[int, ...], kw: dict[str, Any]) -> ParentSearchResult:
    return _WORKER["ps"].search(child, cands, **kw)


def _check_common(data: Any, palim: Any, time_limit: Any, n_jobs: Any) -> None:
    if not isinstance(data, Dataset):
        raise DataError(f"learning under an order from data needs a Dataset, got {type(data).__name__}")
    if palim is not None and (isinstance(palim, bool) or not isinstance(palim, (int, np.integer)) or palim < 0):
        raise ConfigError(f"palim must be a non-negative integer, got {palim!r}")
    if time_limit is not None:
        try:
            ok = float(time_limit) > 0 and not math.isnan(float(time_limit))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ConfigError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer))
                               or n_jobs == 0 or n_jobs < -1):
        raise ConfigError(f"n_jobs must be a positive integer, -1 (all cores) or None, got {n_jobs!r}")


def _jobs(n_jobs: int | None) -> int:
    if n_jobs is None or n_jobs == -1:
        return max(1, os.cpu_count() or 1)
    return int(n_jobs)


def _search_nodes(data: Dataset, order: tuple[int, ...], ps: ParentSearch, kw: dict[str, Any],
                  n_jobs: int) -> list[ParentSearchResult]:
    """Run the parent search of every node (candidates = its predecessors), serially or in processes."""
    tasks = [(v, tuple(order[:i])) for i, v in enumerate(order)]
    results: dict[int, ParentSearchResult] = {}
    if n_jobs <= 1 or len(tasks) <= 1:
        for v, cands in tasks:
            results[v] = ps.search(v, cands, **kw)
    else:
        import multiprocessing as mp

        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        # Largest candidate sets first: they dominate the work.
        tasks.sort(key=lambda t: -len(t[1]))
        with ProcessPoolExecutor(max_workers=min(n_jobs, len(tasks)), mp_context=ctx, initializer=_worker_init,
                                 initargs=(data.codes, data.arities, data.names, ps.score_name, ps.ess)) as ex:
            futs = {v: ex.submit(_worker_run, v, cands, kw) for v, cands in tasks}
            for v, f in futs.items():
                results[v] = f.result()
    return [results[v] for v in range(data.n)]


def _totals(res: list[ParentSearchResult], names: tuple[str, ...], t0: float, n_jobs: int) -> dict[str, Any]:
    return {
        "states": int(sum(r.stats["states"] for r in res)),
        "ll_evaluations": int(sum(r.stats["ll_evaluations"] for r in res)),
        "k3_traps": int(sum(1 for r in res if r.stats.get("k3_optimal") is False)),
        "seconds": time.monotonic() - t0,
        "n_jobs": n_jobs,
        "optimal_under": "order",
        "per_node": {names[r.child]: {k: v for k, v in r.stats.items() if k != "tree_order"} for r in res},
    }


def optimum_for_order(data: Dataset, order: Sequence[Any], *, score: str = "BIC", ess: float = 1.0,
                      palim: int | None = None, time_limit: float | None = None, n_jobs: int | None = 1,
                      bound: str = "full") -> OrderOptimum:
    """The best network whose arrows all follow ``order``, from data (exact; Tian's branch and bound per node).

    Parameters
    ----------
    data : Dataset
    order : sequence of str or int
        Every variable once, first to last (names or column indices).
    score : {"BIC", "AIC", "BDeu"}
    ess : float
        BDeu's equivalent sample size.
    palim : int or None
        At most this many parents per node.
    time_limit : float or None
        Seconds for the whole call; when it runs out the nodes not finished
        keep their best family found so far and the status is ``"time_limit"``.
    n_jobs : int or None
        Processes for the per-node searches (1: serial; -1 or None: all cores).
    bound : {"full", "fixed", "suzuki"}
        The parent search's likelihood ceiling (see :meth:`ParentSearch.search`).

    Returns
    -------
    OrderOptimum
    """
    t0 = time.monotonic()
    _check_common(data, palim, time_limit, n_jobs)
    order_t = resolve_order(data.names, order)
    ps = ParentSearch(data, score, ess=ess)
    jobs = _jobs(n_jobs)
    kw: dict[str, Any] = {"palim": palim, "bound": bound}
    if time_limit is not None:
        kw["deadline"] = t0 + float(time_limit)
    res = _search_nodes(data, order_t, ps, kw, jobs)
    parents = tuple(r.parents for r in res)
    local = tuple(r.score for r in res)
    total = math.fsum(local)
    done = all(r.complete for r in res)
    stats = _totals(res, data.names, t0, jobs)
    if not done:
        stats["unfinished"] = [data.names[r.child] for r in res if not r.complete]
    dual = total if done else math.fsum(r.upper_bound for r in res)
    _log.info("order optimum %.6f (%s): %d states, %d LL evaluations in %.2fs", total,
              "optimal" if done else "time limit", stats["states"], stats["ll_evaluations"], stats["seconds"])
    return OrderOptimum(names=data.names, order=order_t, score_name=ps.score_name, parents=parents,
                        local_scores=local, score=total, status="optimal" if done else "time_limit",
                        dual_bound=dual, stats=stats)


def epsilon_set_for_order(data: Dataset, order: Sequence[Any], epsilon: float, *, score: str = "BIC",
                          ess: float = 1.0, palim: int | None = None, time_limit: float | None = None,
                          max_networks: int | None = 150_000, n_jobs: int | None = 1,
                          max_sets: int | None = 1_000_000) -> OrderEpsilonSet:
    """Every network following ``order`` with score ``>= OPT_order - ε``, best first, each once (from data).

    Parameters
    ----------
    data, order, score, ess, palim, time_limit, n_jobs
        As in :func:`optimum_for_order`.
    epsilon : float
        ε >= 0 in nats (``ln`` of the Bayes factor); 0 lists every tie of the optimum.
    max_networks : int or None
        Return at most this many networks (the best; ``reason="max_networks"``
        and a certified ``threshold`` when more exist).
    max_sets : int or None
        Per node, stop when more families than this are within ε (a constant
        child, arity 1, has every subset of its predecessors within ε).

    Returns
    -------
    OrderEpsilonSet
    """
    t0 = time.monotonic()
    _check_common(data, palim, time_limit, n_jobs)
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ConfigError(f"epsilon must be a number >= 0, got {epsilon!r}") from None
    if not (eps >= 0 and math.isfinite(eps)):
        raise ConfigError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if max_networks is not None and (isinstance(max_networks, bool) or int(max_networks) != max_networks
                                     or max_networks < 1):
        raise ConfigError(f"max_networks must be a positive integer, got {max_networks!r}")
    order_t = resolve_order(data.names, order)
    ps = ParentSearch(data, score, ess=ess)
    jobs = _jobs(n_jobs)
    # |OPT| <= Σ|s(v, ∅)| (scores are <= 0 and the empty DAG is order-consistent): a per-node
    # slack that covers the network-level membership tolerance.
    empty = [ps.local_score(v, ()) for v in range(data.n)]
    eps_node = eps + RTOL * max(1.0, math.fsum(abs(s) for s in empty))
    kw: dict[str, Any] = {"palim": palim, "epsilon": eps_node, "max_sets": max_sets}
    if time_limit is not None:
        kw["deadline"] = t0 + float(time_limit)
    res = _search_nodes(data, order_t, ps, kw, jobs)
    families: Families = [list(r.sets) for r in res]
    stats = _totals(res, data.names, t0, jobs)
    stats["families_within_epsilon"] = {data.names[v]: len(f) for v, f in enumerate(families)}
    reason: str | None = None
    unfinished = [r for r in res if not r.complete]
    if unfinished:
        reason = "time_limit" if any(r.reason == "time_limit" for r in unfinished) else "max_sets"
        stats["unfinished"] = [data.names[r.child] for r in unfinished]
    entries, capped, threshold, opt = _combine(families, eps, max_networks)
    if reason is None:
        reason = capped
    else:
        threshold = None
    stats["networks"] = len(entries)
    stats["seconds"] = time.monotonic() - t0
    return OrderEpsilonSet(names=data.names, order=order_t, score_name=ps.score_name, epsilon=eps, opt=opt,
                           families=families, entries=entries, reason=reason, threshold=threshold, stats=stats)


def _combine(families: Families, eps: float, max_networks: int | None
             ) -> tuple[list[Entry], str | None, float | None, float]:
    """Networks within ε from per-node family lists sorted best first.

    Returns ``(entries, reason, threshold, OPT)``: entries best first; ``reason``
    ``"max_networks"`` and a certified ``threshold`` when the cap cut the list short.
    """
    best = [f[0][1] for f in families]
    opt = math.fsum(best)
    tol = _tol(opt)
    deficits = [[b - s for _, s in f] for b, f in zip(best, families)]
    # The heap sums deficits incrementally; ``slack`` bounds how far that drifts from the
    # fsum of the scores.  Enumerate that far beyond the boundary, decide membership on fsum.
    slack = 1e-11 * max(1.0, abs(opt))
    choices, more = deficit_sums(deficits, eps + tol + slack, max_networks)
    entries: list[Entry] = []
    for _, pos in choices:
        s = math.fsum(families[v][c][1] for v, c in enumerate(pos))
        if s >= opt - eps - tol:
            entries.append((s, pos))
    entries.sort(key=lambda e: (-e[0], e[1]))
    if more is None:
        return entries, None, None, opt
    # Every choice with a heap total below ``more`` was returned.  A network scoring at least
    # OPT - max(below) has a heap total <= max(below) + slack < more: it was returned.
    below = [d for d, _ in choices if d < more - 2 * slack]
    threshold = opt - max(below) if below else None
    return entries, "max_networks", threshold, opt


# --------------------------------------------------------------------------- from a score table
def _consistent(table: ScoreTable, order_t: tuple[int, ...]) -> list[list[int]]:
    """Per node, the positions (best first) of its families whose parents all precede it."""
    pos = {v: i for i, v in enumerate(order_t)}
    return [[k for k, (ps, _) in enumerate(table.families[v]) if all(pos[p] < pos[v] for p in ps)]
            for v in range(table.n)]


def optimum_for_order_table(table: ScoreTable, order: Sequence[Any]) -> Solution:
    """The best network of ``table`` whose arrows follow ``order``: each node's best consistent family.

    Answers in table positions (:class:`~gobnilp_py.search.results.Solution`),
    status ``"optimal"`` (under the order and the table) or ``"infeasible"``
    when some node has no family whose parents all precede it.
    """
    t0 = time.monotonic()
    order_t = resolve_order(table.names, order)
    cons = _consistent(table, order_t)
    stats: dict[str, Any] = {"optimal_under": "order", "families_consistent": sum(len(c) for c in cons)}
    empty = [table.names[v] for v, c in enumerate(cons) if not c]
    if empty:
        stats["seconds"] = time.monotonic() - t0
        stats["no_consistent_family"] = empty
        return Solution("infeasible", -math.inf, None, stats=stats)
    chosen = tuple(c[0] for c in cons)
    score = math.fsum(table.families[v][k][1] for v, k in enumerate(chosen))
    stats["seconds"] = time.monotonic() - t0
    return Solution("optimal", score, chosen, dual_bound=score, stats=stats)


def epsilon_set_for_order_table(table: ScoreTable, order: Sequence[Any], epsilon: float, *,
                                max_networks: int | None = 150_000) -> Collection:
    """Every network of ``table`` following ``order`` within ε of the best such network.

    Exact when the table is ε-safe by subset-exchange rules (every rule of
    :mod:`gobnilp_py.scoring.pruning` removes a family only for a proper subset
    that beats it, and a subset of predecessors still precedes the child), not
    for rules that compare with the unconstrained optimum.
    """
    t0 = time.monotonic()
    order_t = resolve_order(table.names, order)
    eps = float(epsilon)
    if not (eps >= 0 and math.isfinite(eps)):
        raise ConfigError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    cons = _consistent(table, order_t)
    empty = [table.names[v] for v, c in enumerate(cons) if not c]
    if empty:
        return Collection([], None, stats={"optimal_under": "order", "no_consistent_family": empty,
                                           "seconds": time.monotonic() - t0})
    fams = [[table.families[v][k] for k in c] for v, c in enumerate(cons)]
    opt_local = math.fsum(f[0][1] for f in fams)
    tol = _tol(opt_local)
    fams = [[fs for fs in f if fs[1] >= f[0][1] - eps - tol] for f in fams]
    entries, reason, threshold, opt = _combine(fams, eps, max_networks)
    entries = [(s, tuple(cons[v][k] for v, k in enumerate(pos))) for s, pos in entries]
    return Collection(entries, reason, threshold=threshold, opt=opt,
                      stats={"optimal_under": "order", "networks": len(entries),
                             "seconds": time.monotonic() - t0})
