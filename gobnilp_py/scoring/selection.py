"""Independence selection: anytime exploration of parent sets guided by BIC* (approximate).

Scanagatta, de Campos, Corani and Zaffalon, *Learning Bayesian Networks with
Thousands of Variables* (NIPS 2015), §3.  Exact scoring (:func:`~gobnilp_py.scoring.score`)
enumerates every parent set up to the size the bounds allow, which is hopeless
beyond a few dozen variables.  Independence selection (IS) instead explores
each child's lattice best-first, ordered by an estimate of the score that
costs no pass over the data:

    BIC*(X, Π₁, Π₂) = LL(X|Π₁) + LL(X|Π₂) − LL(X|∅) − pen(X, Π₁ ∪ Π₂)

for disjoint non-empty ``Π₁``, ``Π₂`` (penalty ``pen = coef·(r_X − 1)·q``, the
exact penalty of the union).  This is the paper's equation (1) with its
``inter`` term expanded; the log-likelihood form cannot lose digits to the
cancellation of large penalties, and it does not have the arity bug of the
paper's software (BLIP uses the arity of the *last* variable of ``Π₁`` in
place of ``q(Π₁)``; ``docs/asobs.md``).  Theorem 1 of the paper:

    BIC(X, Π₁ ∪ Π₂) = BIC*(X, Π₁, Π₂) + N·ii(Π₁; Π₂; X),

``ii(A; B; C) = I(A; B | C) − I(A; B)`` the empirical interaction information
(nats), because ``LL(Π) − LL(Π₁) − LL(Π₂) + LL(∅) = N [I(X;Π) − I(X;Π₁) − I(X;Π₂)]``.
Corollary 1 bounds the error by ``N·min(H(X), H(Π₁), H(Π₂))``.

The search, per child ``X`` (function :func:`select_parents`):

1. score ``∅`` and every singleton exactly; the *candidate parents* are the
   ``candidate_limit`` best singletons (by score; constant variables, which
   never change a likelihood, are never candidates);
2. the *open* list holds the unscored extensions ``Π ∪ {Y}`` of every scored
   set ``Π`` (candidates ``Y``), keyed by ``BIC*(X, Π, {Y})``; initially the
   pairs of candidates;
3. until the open list is empty or the budget is spent: take the set of best
   BIC* that is not yet scored, score it exactly into the *closed* list —
   after every subset of it that is not yet scored, so the closed list is
   downward closed — and add its extensions to the open list, except those
   whose penalty alone already puts them and all their supersets below a
   scored subset (the exact ``penalty_bound`` rule of :mod:`.pruning`, which
   only skips sets the final pruning would drop);
4. return the closed list without the sets some scored subset beats (the
   exact ``dominated`` rule with ε = 0; exact over the closed list because
   every subset of a closed set is closed).

What is approximate: only the *exploration*.  Every score in the table is
the exact score of :mod:`.local_scores`, but sets that were never popped are
missing, so a network learned from the table is optimal *with respect to the
explored parent sets* only.  The table therefore carries ``epsilon=None`` and
``meta["approximate"] = True``.  With an unlimited budget, candidates
including every variable and ``palim = d``, the list equals the exact pruned
table of ``score(data, palim=d)`` (tested).

Budgets: a per-variable evaluation count (deterministic) and/or wall time
(``time_limit`` for the whole run, spread as ``time_limit × workers / n`` per
variable as BLIP does, or ``time_per_variable``).  ∅ and the singletons are
scored whatever the budget (one count of ``{X}`` against every variable,
using the symmetry of mutual information); the budgets limit what follows.  Variables are independent,
so they are spread over local processes (:mod:`concurrent.futures`) or, with ``backend="dask"``, over a
Dask cluster (one task per variable, :func:`_select_on_dask`); memory is
per variable (its closed and open lists), never an ``n × n`` score matrix.

Defaults and why:

* ``candidate_limit = 256`` (BLIP's ``max_parents = 2^8``): every scored set
  brings one extension per candidate into the open list (and the pairs alone
  are ``c²/2``); more candidates dilute the list with sets built on weak
  singletons, fewer risk losing parents whose value only shows in combination.  With
  N = 5,000 a singleton ranked below 256 rarely carries information a
  network can afford (its BIC gain is usually negative).
* the open list is kept *lazily*: one heap entry per scored set ``Π``, holding
  ``Π``'s extensions sorted by BIC* (one ``argsort``) and keyed by the best one
  not yet taken.  The paper pushes every extension as a separate entry
  (``c`` pushes per scored set, which in Python cost more than the scoring;
  BLIP caps that list at ``min(n³, 2^20)`` entries).  Lazily, an extension
  reachable from several scored subsets is taken under the best of their
  BIC* estimates rather than the first, and the open list needs no cap: it
  holds one entry per scored set.
"""

from __future__ import annotations

import heapq
import logging
import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._worker_state import thread_state
from ..data.dataset import Dataset
from ..errors import DataError, ScoreError
from .counts import ParentConfigs
from .local_scores import LocalScore, PenalisedLL, make_score
from .pruning import RTOL, dominated
from .table import ScoreTable

__all__ = [
    "independence_selection",
    "select_parents",
    "bic_star",
    "VariableSelection",
    "DEFAULT_CANDIDATE_LIMIT",
    "DEFAULT_MAX_EVALUATIONS",
    "PARALLEL_MIN_VARIABLES",
]

log = logging.getLogger(__name__)

#: Candidate parents per child: the best single parents (BLIP's default, see the module docstring).
DEFAULT_CANDIDATE_LIMIT = 256
#: Exact scores per child when no budget at all is given (about 0.1-1 s per child at N = 5,000).
DEFAULT_MAX_EVALUATIONS = 2_000
#: Below this many variables the work runs in this process: starting workers costs more than it saves.
PARALLEL_MIN_VARIABLES = 32


def bic_star(ll1: float | np.ndarray, ll2: float | np.ndarray, ll_empty: float,
             penalty: float | np.ndarray) -> float | np.ndarray:
    """BIC*(X, Π₁, Π₂) in the log-likelihood form: ``LL(Π₁) + LL(Π₂) − LL(∅) − pen(Π₁ ∪ Π₂)``.

    Equal to the paper's ``BIC(Π₁) + BIC(Π₂) + inter(Π₁, Π₂)``; the exact
    score of the union is this plus ``N·ii(Π₁; Π₂; X)`` (Theorem 1).
    """
    return ll1 + ll2 - ll_empty - penalty


@dataclass
class VariableSelection:
    """What independence selection kept for one child, and how the search went.

    Attributes
    ----------
    families : list of (parents, score)
        Kept parent sets (sorted variable indices) with their exact scores.
    evaluations : int
        Parent sets scored exactly (∅ and the singletons included).
    explored : int
        Parent sets of two or more parents scored (what the budgets limit).
    candidates : int
        Number of candidate parents.
    closed : int
        Sets scored (= ``evaluations``).
    open_left : int
        Sets still on the open list when the search stopped.
    exhausted : bool
        The open list ran empty: every set reachable from the candidates
        (within ``palim`` and the penalty bound) was scored.
    stopped_by : str or None
        ``"evaluations"`` or ``"time"`` when a budget stopped the search.
    time : float
        Seconds spent on this child.
    """

    families: list[tuple[tuple[int, ...], float]]
    evaluations: int
    explored: int
    candidates: int
    closed: int
    open_left: int
    exhausted: bool
    stopped_by: str | None
    time: float
    stats: dict[str, Any] = field(default_factory=dict)


#: Children counted together when scoring the singletons (bounds the joint-code array at this × N).
_SINGLETON_BLOCK = 256


def _singleton_lls(pc: ParentConfigs, sc: PenalisedLL, child: int, ll_child: float, others: np.ndarray) -> np.ndarray:
    """``LL(child | {j})`` for every ``j`` in ``others``, from one count of ``{child}`` against all of them.

    The log-likelihood gain of a single parent is the mutual information, which
    is symmetric: ``LL(v|{j}) − LL(v|∅) = N·I(v; j) = LL(j|{v}) − LL(j|∅)``.  So
    one :meth:`ParentConfigs.family_counts` of the parent set ``{child}`` for
    all the children ``others`` (one ``bincount``) gives every singleton of
    ``child``, instead of one count per singleton.  Same integer counts, same
    ``c ln c`` terms; only the order of the sums differs (~1e-13 relative).
    """
    res = sc.batch(pc.family_counts((child,), others))
    res0 = sc.batch(pc.family_counts((), others))
    assert res.ll is not None and res0.ll is not None
    return np.asarray(res.ll, dtype=np.float64) - np.asarray(res0.ll, dtype=np.float64) + ll_child


class _Spent(Exception):
    """The budget ran out before the next exact score."""


class _Scorer:
    """Exact score and log-likelihood of ``child``'s parent sets via the package's counting and scores."""

    def __init__(self, pc: ParentConfigs, sc: PenalisedLL, child: int) -> None:
        self.pc = pc
        self.sc = sc
        self.child = np.array([child], dtype=np.int64)

    def __call__(self, parents: tuple[int, ...]) -> tuple[float, float]:
        res = self.sc.batch(self.pc.family_counts(parents, self.child))
        assert res.ll is not None
        return float(res.scores[0]), float(res.ll[0])


def select_parents(data: Dataset, child: int, *, score: LocalScore | None = None, pc: ParentConfigs | None = None,
                   palim: int | None = None, candidate_limit: int | None = DEFAULT_CANDIDATE_LIMIT,
                   max_evaluations: int | None = None,
                   time_budget: float | None = None) -> VariableSelection:
    """Independence selection for one child (the algorithm of the module docstring).

    Parameters
    ----------
    data : Dataset
    child : int
        Index of the child variable.
    score : PenalisedLL, optional
        The score (default BIC on ``data``).  BIC* needs a penalised
        log-likelihood (BIC, AIC).
    pc : ParentConfigs, optional
        Counting state to reuse across children.
    palim : int or None
        Largest parent set size (``None``: no limit).
    candidate_limit : int or None
        Number of best single parents used as candidates (``None``: all).
    max_evaluations : int or None
        Stop after this many exact scores of sets of two or more parents.
    time_budget : float or None
        Stop after this many seconds.

    ∅ and every singleton are always scored (they rank the candidates: one
    count of ``{child}`` against all variables), whatever the budgets.
    """
    t0 = time.perf_counter()
    sc = make_score("BIC", data) if score is None else score
    if not isinstance(sc, PenalisedLL):
        raise ScoreError(f"independence selection needs a penalised log-likelihood score (BIC, AIC), "
                         f"not {sc.name!r}")
    pc = ParentConfigs(data) if pc is None else pc
    n = data.n
    ar = np.asarray(data.arities, dtype=np.int64)
    limit = n - 1 if palim is None else min(int(palim), n - 1)
    deadline = None if time_budget is None else t0 + float(time_budget)
    scorer = _Scorer(pc, sc, child)
    rv = int(ar[child])
    coef_r = float(sc.coef) * float(rv - 1)

    s0, ll0 = scorer(())
    n_eval = 1
    n_single = 1  # ∅ and the singletons: always scored, outside the budgets
    families: list[tuple[tuple[int, ...], float]] = [((), s0)]

    def spent() -> str | None:
        if max_evaluations is not None and n_eval - n_single >= max_evaluations:
            return "evaluations"
        if deadline is not None and time.perf_counter() >= deadline:
            return "time"
        return None

    if limit < 1 or rv <= 1:
        # A constant child scores 0 with every parent set: the empty set is as good as any.
        return VariableSelection(families, n_eval, 0, 0, n_eval, 0, True, None, time.perf_counter() - t0)

    # --- singletons; the candidates are the best of them
    others = [j for j in range(n) if j != child and ar[j] > 1]
    single_s: list[float] = []
    single_ll: list[float] = []
    scored_others: list[int] = []
    stopped: str | None = None
    for lo in range(0, len(others), _SINGLETON_BLOCK):
        block = others[lo:lo + _SINGLETON_BLOCK]
        lls = _singleton_lls(pc, sc, child, ll0, np.array(block, dtype=np.int64))
        for j, ll in zip(block, lls.tolist()):
            single_s.append(ll - coef_r * float(ar[j]))
            single_ll.append(ll)
            scored_others.append(j)
        n_eval += len(block)
    n_single = n_eval
    stopped = spent()
    rank = sorted(range(len(scored_others)), key=lambda i: (-single_s[i], scored_others[i]))
    if candidate_limit is not None:
        rank = rank[:max(int(candidate_limit), 0)]
    # Candidate k is variable cand[k]; sets are bitmasks over candidate positions.
    cand = np.array([scored_others[i] for i in rank], dtype=np.int64)
    c = int(cand.size)
    c_ll = np.array([single_ll[i] for i in rank], dtype=np.float64)
    c_ar = ar[cand].astype(np.float64)
    # closed[mask] = (score, LL, q, best score of any proper subset)
    closed: dict[int, tuple[float, float, float, float]] = {0: (s0, ll0, 1.0, -math.inf)}
    for k in range(c):
        i = rank[k]
        closed[1 << k] = (single_s[i], single_ll[i], float(c_ar[k]), s0)
    # Non-candidate singletons are scored but never extended; keep them unless ∅ beats them.
    cand_set = set(cand.tolist())
    for i, j in enumerate(scored_others):
        if j not in cand_set and not dominated(single_s[i], s0, 0.0):
            families.append(((j,), single_s[i]))

    def members(mask: int) -> list[int]:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    # Open list, lazily: one entry per scored set Π, holding Π's extensions Π ∪ {Y} sorted by BIC*
    # and keyed by the best one not yet taken (see the module docstring).
    heap: list[tuple[float, int, int]] = []
    # Extensions as compact arrays (int32 candidate positions, float64 keys): ~3 kB per scored set at
    # 256 candidates, where Python lists would take ~15 kB.
    gens: list[tuple[int, np.ndarray, np.ndarray]] = []
    ptrs: list[int] = []
    is_member = np.zeros(c, dtype=bool)

    def add_generator(mask: int, rec: tuple[float, float, float, float]) -> None:
        ks = members(mask)
        if len(ks) >= limit or c == 0:
            return
        s, ll, q, best_sub = rec
        best = max(s, best_sub)
        pen = coef_r * q * c_ar
        # penalty_bound: s(T) <= -pen(T) <= -pen(Π ∪ {Y}) for every superset T; when a scored subset
        # already beats that, Π ∪ {Y} and its supersets would all be dropped as dominated.
        # (pruning.fires_array's test, inlined: margin > RTOL * max(1, |best|, |pen|))
        ok = best + pen <= RTOL * np.maximum(max(1.0, abs(best)), pen)
        is_member[ks] = True
        ok &= ~is_member
        is_member[ks] = False
        ys = np.flatnonzero(ok)
        if ys.size == 0:
            return
        keys = bic_star(ll, c_ll[ys], ll0, pen[ys])
        srt = np.argsort(-keys, kind="stable")
        gid = len(gens)
        gens.append((mask, ys[srt].astype(np.int32), keys[srt]))
        ptrs.append(0)
        heapq.heappush(heap, (-float(gens[gid][2][0]), gid, 0))

    def score_closed(mask: int) -> tuple[float, float, float, float]:
        """Score ``mask`` exactly, after its unscored subsets (recursively); raise _Spent on the budget."""
        nonlocal n_eval
        hit = closed.get(mask)
        if hit is not None:
            return hit
        ks = members(mask)
        best_sub = -math.inf
        for k in ks:
            sub = score_closed(mask ^ (1 << k))
            best_sub = max(best_sub, sub[0], sub[3])
        why = spent()
        if why:
            raise _Spent(why)
        parents = tuple(sorted(int(cand[k]) for k in ks))
        s, ll = scorer(parents)
        n_eval += 1
        q = 1.0
        for k in ks:
            q *= c_ar[k]
        rec = (s, ll, q, best_sub)
        closed[mask] = rec
        add_generator(mask, rec)
        return rec

    def advance(gid: int) -> None:
        ptrs[gid] += 1
        p = ptrs[gid]
        if p < gens[gid][1].size:
            heapq.heappush(heap, (-float(gens[gid][2][p]), gid, p))

    for k in range(c):
        add_generator(1 << k, closed[1 << k])
    pops = 0
    while heap and not stopped:
        _, gid, p = heap[0]
        mask = gens[gid][0] | (1 << int(gens[gid][1][p]))
        if mask in closed:  # reached before, from another subset
            heapq.heappop(heap)
            advance(gid)
            continue
        try:
            score_closed(mask)
        except _Spent as why:
            stopped = str(why)
            break
        heapq.heappop(heap)
        advance(gid)
        pops += 1
    exhausted = not heap and not stopped
    open_left = sum(int(gens[g][1].size) - ptrs[g] for _, g, _ in heap)

    for mask, (s, _ll, _q, best_sub) in closed.items():
        if mask and not dominated(s, best_sub, 0.0):
            families.append((tuple(sorted(int(cand[k]) for k in members(mask))), s))
    return VariableSelection(families, n_eval, n_eval - n_single, c, n_eval, open_left, exhausted,
                             stopped, time.perf_counter() - t0, {"pops": pops})


# ----------------------------------------------------------------------------- parallel driver
_WORKER: dict[str, Any] = {}


def _init_worker(data: Dataset, score_spec: Any, ess: float) -> None:
    _WORKER["data"] = data
    _WORKER["score"] = make_score(score_spec, data, ess=ess)
    _WORKER["pc"] = ParentConfigs(data)


def _run_child(args: tuple[int, dict[str, Any]]) -> VariableSelection:
    child, kw = args
    return select_parents(_WORKER["data"], child, score=_WORKER["score"], pc=_WORKER["pc"], **kw)


def _run_child_dask(token: str, data: Dataset, score_spec: Any, ess: float, child: int,
                    kw: dict[str, Any]) -> VariableSelection:
    """One variable on a Dask worker; its score and counting cache built once per job and worker thread
    (:mod:`gobnilp_py._worker_state`: the counting cache is not to be shared by two tasks)."""
    sc, pc = thread_state(token, lambda: (make_score(score_spec, data, ess=ess), ParentConfigs(data)))
    return select_parents(data, child, score=sc, pc=pc, **kw)


def _select_on_dask(client: Any, ds: Dataset, spec: Any, ess: float, kw: dict[str, Any],
                    progress: Callable[..., Any] | None) -> list[VariableSelection]:
    """Every variable's selection as a task of ``client``'s Dask cluster, in variable order.

    The data go once to every worker (scattered under a key of their own); each variable's budget is the
    one :func:`independence_selection` computed for the cluster's task slots.  An interrupt or an error
    cancels the tasks not yet done.
    """
    import uuid

    from distributed import as_completed

    futures: list[Any] = []
    try:
        remote = client.scatter(ds, broadcast=True, hash=False)
        token = uuid.uuid4().hex
        futures = [client.submit(_run_child_dask, token, remote, spec, ess, v, kw, pure=False,
                                 key=f"gobnilp-selection-{token[:8]}-{v}") for v in range(ds.n)]
        for done, fut in enumerate(as_completed(futures), start=1):
            fut.result()                      # an error in a task is raised here, at once
            if progress is not None:
                progress("selection", done, ds.n)
        return [f.result() for f in futures]
    finally:
        client.cancel([f for f in futures if not f.done()])


def _n_workers(n_jobs: int | None) -> int:
    if n_jobs is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ScoreError(f"n_jobs must be a positive integer or None, got {n_jobs!r}")
    return int(n_jobs)


def _check_budget(name: str, value: float | int | None, integer: bool = False) -> None:
    if value is None:
        return
    if integer:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ScoreError(f"{name} must be a positive integer or None, got {value!r}")
        return
    try:
        ok = float(value) > 0 and math.isfinite(float(value))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ScoreError(f"{name} must be a positive number of seconds or None, got {value!r}")


def independence_selection(data: object, *, score: str | LocalScore | type[LocalScore] = "BIC", ess: float = 1.0,
                           time_limit: float | None = None, time_per_variable: float | None = None,
                           max_evaluations: int | None = None, palim: int | None = None,
                           candidate_limit: int | None = DEFAULT_CANDIDATE_LIMIT,
                           n_jobs: int | None = None, backend: str = "processes", scheduler: Any = None,
                           progress: Callable[..., Any] | None = None) -> ScoreTable:
    """Candidate parent sets by independence selection (approximate; see the module docstring).

    Parameters
    ----------
    data : Dataset, or anything :func:`gobnilp_py.data.read_data` accepts
    score : str or PenalisedLL
        ``"BIC"`` (default) or ``"AIC"``: BIC* needs a penalised log-likelihood.
    time_limit : float, optional
        Wall-clock seconds for the whole selection, spread over the variables
        as ``time_limit × workers / n`` each.
    time_per_variable : float, optional
        Seconds per variable (instead of ``time_limit``).
    max_evaluations : int, optional
        Exact scores per variable of sets of two or more parents (∅ and the
        singletons are always scored).  Deterministic.
        When no budget at all is given: :data:`DEFAULT_MAX_EVALUATIONS`.
    palim : int, optional
        Largest parent set size (IS needs none).
    candidate_limit : int or None
        Best single parents kept as candidates per variable (``None``: all).
    n_jobs : int, optional
        Worker processes (default: the CPUs available); runs in this process
        when 1 or when there are fewer than :data:`PARALLEL_MIN_VARIABLES` variables.
    backend : {"processes", "dask"}
        ``"dask"``: every variable is a task on the Dask cluster at ``scheduler`` (an address or a
        ``distributed.Client``), whatever the number of variables; ``time_limit`` is then spread over
        the cluster's task slots (its workers' threads).  The answer is the same as on local processes
        (with an evaluation budget, the same table).
    progress : callable, optional
        Called as ``progress("selection", done, n)`` after each variable.

    Returns
    -------
    ScoreTable
        ``epsilon=None``; ``meta["approximate"] = True``,
        ``meta["method"] = "independence selection"`` and the budgets, plus
        per-variable search figures in ``meta["selection"]``.
    """
    t0 = time.perf_counter()
    if isinstance(data, Dataset):
        ds = data
    else:
        from ..data import read_data

        ds = read_data(data)
    if ds.N < 1:
        raise DataError(f"{ds.source}: no data rows to score")
    _check_budget("time_limit", time_limit)
    _check_budget("time_per_variable", time_per_variable)
    _check_budget("max_evaluations", max_evaluations, integer=True)
    if time_limit is not None and time_per_variable is not None:
        raise ScoreError("give either time_limit or time_per_variable, not both")
    for name, value in (("palim", palim), ("candidate_limit", candidate_limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0):
            raise ScoreError(f"{name} must be a non-negative integer or None, got {value!r}")
    sc = make_score(score, ds, ess=ess)
    if not isinstance(sc, PenalisedLL):
        raise ScoreError(f"independence selection needs a penalised log-likelihood score (BIC, AIC), "
                         f"not {sc.name!r}")
    from .pool import connect_scheduler, dask_threads, worker_counts

    if backend != "processes" or scheduler is not None:   # scoring's rules and words for the pair
        worker_counts(None, backend, scheduler, "independence selection")
    if backend == "dask":
        client, own = connect_scheduler(scheduler, ScoreError)
        try:
            return _selection(ds, sc, score, ess, max(1, dask_threads(client)), client, t0, time_limit,
                              time_per_variable, max_evaluations, palim, candidate_limit, progress)
        finally:
            if own:
                client.close()
    return _selection(ds, sc, score, ess, _n_workers(n_jobs), None, t0, time_limit, time_per_variable,
                      max_evaluations, palim, candidate_limit, progress)


def _selection(ds: Dataset, sc: PenalisedLL, score: Any, ess: float, workers: int, client: Any, t0: float,
               time_limit: float | None, time_per_variable: float | None, max_evaluations: int | None,
               palim: int | None, candidate_limit: int | None,
               progress: Callable[..., Any] | None) -> ScoreTable:
    """:func:`independence_selection` after its checks: on ``workers`` local processes, or on ``client``'s
    cluster (``workers`` its task slots)."""
    backend = "processes" if client is None else "dask"
    n = ds.n
    if time_limit is None and time_per_variable is None and max_evaluations is None:
        max_evaluations = DEFAULT_MAX_EVALUATIONS
    parallel = client is not None or (workers > 1 and n >= PARALLEL_MIN_VARIABLES)
    per_var = time_per_variable
    if time_limit is not None:  # the variables run `workers` at a time only when they run in parallel
        per_var = float(time_limit) * min(workers if parallel else 1, n) / max(n, 1)
    kw = {"palim": palim, "candidate_limit": candidate_limit,
          "max_evaluations": max_evaluations, "time_budget": per_var}
    results: list[VariableSelection] = []
    spec: Any = score if not isinstance(score, LocalScore) else sc
    if client is not None:
        results = _select_on_dask(client, ds, spec, ess, kw, progress)
    elif parallel:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                                 initargs=(ds, spec, ess)) as ex:
            for i, res in enumerate(ex.map(_run_child, [(v, kw) for v in range(n)], chunksize=1)):
                results.append(res)
                if progress is not None:
                    progress("selection", i + 1, n)
    else:
        pc = ParentConfigs(ds)
        for v in range(n):
            results.append(select_parents(ds, v, score=sc, pc=pc, **kw))
            if progress is not None:
                progress("selection", v + 1, n)
    elapsed = time.perf_counter() - t0
    names = ds.names
    meta: dict[str, Any] = {
        "approximate": True,
        "method": "independence selection",
        "N": ds.N,
        "arities": dict(zip(names, (int(a) for a in ds.arities))),
        "palim": palim,
        "time_limit": time_limit,
        "time_per_variable": per_var,
        "max_evaluations": max_evaluations,
        "candidate_limit": candidate_limit,
        "workers": workers if parallel else 1,
        "backend": backend,
        "families_scored": sum(r.evaluations for r in results),
        "variables_exhausted": sum(1 for r in results if r.exhausted),
        "time": elapsed,
        "source": ds.source,
        "selection": {names[v]: {"evaluations": r.evaluations, "explored": r.explored, "candidates": r.candidates,
                                 "kept": len(r.families), "open_left": r.open_left, "exhausted": r.exhausted,
                                 "stopped_by": r.stopped_by, "time": round(r.time, 4)}
                      for v, r in enumerate(results)},
    }
    log.info("independence selection: %d families scored, %d kept, %.1f s", meta["families_scored"],
             sum(len(r.families) for r in results), elapsed)
    return ScoreTable(names, [r.families for r in results], epsilon=None, score_name=sc.name, meta=meta)
