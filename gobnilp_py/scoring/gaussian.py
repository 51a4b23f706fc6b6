"""Score tables for continuous data: ``bic-g``, ``aic-g`` and ``bge``, pruned safely for ε.

:func:`gaussian_score_table` turns a float array or DataFrame into an ordinary
:class:`~gobnilp_py.scoring.table.ScoreTable` -- every engine (ILP, order graph, subset DP, ...)
takes it as it takes a discrete one.  The table holds every family (child, parent set) used by
a DAG whose score is within ε of the optimum, with its exact local score.

How (details in ``docs/gaussian.md``): the data are reduced once to their means and scatter
matrix (:class:`~gobnilp_py.data.continuous.ContinuousData`); each child's parent sets are
walked depth first over that matrix alone, each set's score got from its parent set's by one
Schur-complement (incremental Cholesky) step (:mod:`gobnilp_py.scoring._gaussian_walk`).
Pruning rules derived for these scores (not borrowed from the discrete ones) exclude sets and
all their supersets before they are scored.

:func:`gobnilp_py.score` (and so every driver, the config and the command line) dispatches here
when asked for a Gaussian score by name.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .._budget import Budget
from ..data.continuous import COLLINEAR_RTOL, as_continuous, check_full_rank
from ..errors import ParameterError, ScoreError
from . import pruning as P
from . import gaussian_workers as W
from ._gaussian_walk import AVAILABLE as COMPILED
from .gaussian_workers import ChildWalk, GaussianWorkers, WalkResult, run_walk, store_bytes
from .gaussian_scores import GaussianScore, gaussian_score_name
from .table import ScoreTable

log = logging.getLogger(__name__)

__all__ = ["gaussian_score_table", "GAUSSIAN_RULES", "MAX_VARIABLES", "DENSE_MAX_BITS"]

#: Rule counters of a Gaussian table, in the order the walk tries them (``docs/gaussian.md``).
GAUSSIAN_RULES = ("parent_count", "ceiling", "gain", "dominated")
#: Parent sets are bitmasks in 64-bit integers.
MAX_VARIABLES = 63
#: Children with at most this many candidate parents keep their best scores in a dense array
#: (2^m floats: 512 MiB at 26); wider ones use a hash table of the sets actually reached.
DENSE_MAX_BITS = 26
#: Default memory budget of one child's walk (its best-score store), bytes.
DEFAULT_MEMORY_LIMIT = 8 * 2**30
#: A child is walked in two passes over a dense array (:func:`walk_child_dense`: no look-ups,
#: 2-3 times faster on wide lattices) when its parent limit leaves at least this fraction of the
#: 2^m sets; otherwise (a tight limit) by look-ups, which visit only the sets within reach.
#: ``None`` forces the look-up walk (tests).
TWO_PASS_MIN_FRACTION: float | None = 0.25


def gaussian_score_table(data: object, *, score: str = "bic-g", names: Sequence[str] | None = None,
                         bayes_factor: float | None = None, epsilon: float | None = None,
                         palim: int | str | None = None, prune: bool = True, unpruned: Iterable[str] = (),
                         alpha_mu: float | None = None, alpha_w: float | None = None,
                         nu: Sequence[float] | None = None, memory_limit: int | None = None,
                         progress: Callable[..., Any] | None = None,
                         time_limit: "float | Budget | None" = None, n_jobs: int | None = None,
                         backend: str = "processes", scheduler: Any = None) -> ScoreTable:
    """Local scores of every parent set that a network within ε of the optimum can use, for continuous data.

    Parameters
    ----------
    data : numpy.ndarray of float, pandas.DataFrame of float columns, or ContinuousData
        Rows are data points.  Every column must be floating point, finite and not constant,
        and no column may be (nearly) a linear function of the others.
    score : {"bic-g", "aic-g", "bge"}
        Any case.  ``bic-g``/``aic-g``: the linear-Gaussian log-likelihood with the
        maximum-likelihood variance minus ``(p + 2) ln(N)/2`` or ``p + 2`` (pgmpy's
        ``BICGauss``/``AICGauss``); ``bge``: the BGe score of Kuipers, Moffa & Heckerman (2014).
    names : sequence of str, optional
        Variable names (default: the frame's column labels, or ``"0" … "n-1"``).
    bayes_factor, epsilon : float, optional
        At most one; ε = ln BF.  Neither: ε = 0 (every optimal network).
    palim : int, "auto" or None
        Largest parent set.  ``"auto"``: per variable, the most parents a family within ε can
        have (the ``parent_count`` bound), which is provably safe for the given ε.
    prune : bool
        False keeps every parent set up to ``palim`` (exact for any ε, exponential).
    unpruned : iterable of str
        Variables whose parent sets are all kept (structural constraints that removing a parent
        could violate make the subset rules unsafe for them; see ``docs/pruning.md``).
    alpha_mu, alpha_w, nu :
        BGe only: the normal-Wishart prior's ``α_μ > 0`` (default 1), ``α_w > n + 1`` (default
        ``n + 2``) and mean (default: the sample mean), as bnlearn's ``iss.mu``, ``iss.w``, ``nu``.
    memory_limit : int, optional
        Bytes one child's walk may hold (default 8 GiB); over it, a one-line :class:`ScoreError`.
    progress : callable, optional
        Called after each child as ``progress("scoring", done, n, families=scored_so_far)``.
    time_limit : float or Budget, optional
        Wall-clock seconds (or a :class:`gobnilp_py.Budget` started earlier).  The clock is read
        before each child's walk, never per family: once it has run out, the children not yet
        walked keep only the empty parent set and the table is *truncated*, labelled as the
        discrete scorer labels it (``meta["incomplete"]``, a guarantee starting ``INCOMPLETE
        (time_limit)``, ``safe_epsilon`` ``None``).  One child's walk is not interrupted.

    Returns
    -------
    ScoreTable
        ``score_name`` ``"BIC-G"``, ``"AIC-G"`` or ``"BGe"``; ``epsilon``; ``pruning`` (per
        variable, the sets each rule excluded); ``meta`` with ``N``, ``data_kind``
        (``"continuous"``), ``score_params``, ``palim``, ``bayes_factor``, ``prune``, ``rules``,
        ``score_equivalent`` (True), ``max_parents`` (the ``parent_count`` bound per variable),
        ``families_scored``, ``compiled``, ``walks`` (per variable, how its lattice was walked:
        ``"two-pass"``, ``"dense"`` or ``"hash"``), ``time``.

    Raises
    ------
    DataError
        Non-float, non-finite or constant columns, collinear columns, too few rows.
    ScoreError
        An unknown score, bad hyperparameters, more than 63 variables, over the memory limit.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=500); b = 0.8 * a + rng.normal(size=500); c = rng.normal(size=500)
    >>> t = gaussian_score_table(np.column_stack([a, b, c]), names=["A", "B", "C"], bayes_factor=10)
    >>> t.score_name, t.parent_sets("B")[0][0]
    ('BIC-G', ('A',))
    """
    from .._validation import check_bool
    from .options import check_scoring_limits
    from .pruning import resolve_epsilon

    t0 = time.perf_counter()
    eps = resolve_epsilon(bayes_factor, epsilon)
    palim, memory_limit, budget = check_scoring_limits(palim, memory_limit, time_limit, t0)
    try:
        prune = check_bool(prune, "prune")
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    workers = GaussianWorkers(n_jobs, backend, scheduler)
    name = gaussian_score_name(score)
    cd = as_continuous(data, names=names)
    n, N = cd.n, cd.N
    if n > MAX_VARIABLES:
        raise ScoreError(f"{cd.source}: {n} variables; the Gaussian scorer takes at most {MAX_VARIABLES}")
    check_full_rank(cd, COLLINEAR_RTOL)
    sc = GaussianScore(name, cd, alpha_mu=alpha_mu, alpha_w=alpha_w, nu=nu)
    unknown = [u for u in unpruned if str(u) not in cd.names]
    if unknown:
        raise ScoreError(f"unpruned names unknown variable {unknown[0]!r}")
    keep_all = frozenset(cd.names.index(str(u)) for u in unpruned)
    palim_auto = palim == "auto"
    limit = n - 1 if (palim is None or palim_auto) else min(int(palim), n - 1)
    mem = DEFAULT_MEMORY_LIMIT if memory_limit is None else int(memory_limit)
    bounds = sc.bounds(limit)
    lrC = bounds.ln_cond_all
    s_empty = np.array([float(sc.value(0, sc.lnD[y], 0.0)) for y in range(n)])

    # parent_count: the most parents p0 such that some set of >= p0 parents can still beat the
    # empty set by less than ε (count_bound[y, p0] bounds every set of at least p0 parents).
    kmax = [limit] * n
    for y in range(n):
        k = limit
        for p0 in range(1, limit + 1):
            if P.fires(s_empty[y] - bounds.count_bound[y, p0], eps, s_empty[y], bounds.count_bound[y, p0]):
                k = p0 - 1
                break
        kmax[y] = k

    # Plan every child's walk (cheap), then walk them here or on workers; the results come back in child
    # order whoever walked them, so the table does not depend on n_jobs or the backend.
    jobs: list[ChildWalk] = []
    limits: list[int] = []
    walks: dict[str, str] = {}
    for y in range(n):
        cand = [v for v in range(n) if v != y]
        m = len(cand)
        order = cand + [y]
        Mc = np.ascontiguousarray(sc.M[np.ix_(order, order)])
        prune_y = prune and y not in keep_all
        # "auto" rests on the parent_count argument (replace the parents by ∅), which a structural
        # constraint on an unpruned variable may forbid: its lattice is not limited.
        lim_y = min(limit, kmax[y]) if palim_auto and y not in keep_all else limit
        limits.append(lim_y)
        dense = m <= DENSE_MAX_BITS and (8 << m) <= mem
        reach = min(lim_y, kmax[y]) if prune_y else lim_y
        two_pass = (TWO_PASS_MIN_FRACTION is not None and m <= DENSE_MAX_BITS and (16 << m) <= mem
                    and sum(math.comb(m, k) for k in range(reach + 1)) >= TWO_PASS_MIN_FRACTION * (1 << m))
        args = (Mc, np.ascontiguousarray(sc.lnD[cand]), float(sc.lnD[y]), np.ascontiguousarray(lrC[cand]),
                float(lrC[y]), np.ascontiguousarray(sc.A[: lim_y + 1]), np.ascontiguousarray(sc.Bc[: lim_y + 1]),
                float(sc.Cc), np.ascontiguousarray(bounds.ceiling[y, : lim_y + 1]), int(kmax[y]),
                np.ascontiguousarray(bounds.gain_cost[y, cand]), float(bounds.gain_coef), float(eps),
                float(P.RTOL), bool(prune_y), int(lim_y))
        max_cap = max(1 << 10, 1 << max(10, int(math.log2(max(1, mem // 16)))))
        jobs.append(ChildWalk(args, bool(two_pass), bool(dense), int(max_cap), store_bytes(m, two_pass, dense, max_cap)))
        walks[cd.names[y]] = "two-pass" if two_pass else "dense" if dense else "hash"

    results: list[WalkResult | None] = [None] * n
    sends = workers.backend == "dask" or workers.n_jobs > 1
    # A pool pays only for work that lasts: walk here until the walks took PARALLEL_MIN_SECONDS (a Dask
    # cluster, asked for by name, gets every child, as the discrete scorer sends it every level).
    min_seconds = 0.0 if workers.backend == "dask" else W.PARALLEL_MIN_SECONDS
    walked_for = 0.0
    y = 0
    while y < n and not budget.expired() and (not sends or n - y < 2 or walked_for < min_seconds):
        t_walk = time.perf_counter()
        results[y] = run_walk(jobs[y])
        walked_for += time.perf_counter() - t_walk
        _check_store(results[y], cd, y, mem)
        if progress is not None:
            progress("scoring", y + 1, n, families=sum(int(r[3]) for r in results[: y + 1] if r is not None))
        y += 1
    if y < n and sends and not budget.expired():
        results[y:] = workers.run(jobs[y:], mem, budget.wall_deadline())
        for z in range(y, n):
            _check_store(results[z], cd, z, mem)
        if progress is not None:
            progress("scoring", n, n, families=sum(int(r[3]) for r in results if r is not None))

    families: list[list[tuple[tuple[int, ...], float]]] = []
    counters: dict[str, dict[str, int]] = {}
    n_scored = 0
    truncated: dict[str, int] = {}
    for y, res in enumerate(results):
        if res is None:
            # Out of time before this child's walk started: it keeps the empty set (always scored), nothing more.
            families.append([((), float(s_empty[y]))])
            limits[y] = 0
            truncated[cd.names[y]] = 0
            counters[cd.names[y]] = {}
            continue
        masks, scores, cnt, scored = res
        n_scored += int(scored)
        families.append(_families_of(masks, scores, [v for v in range(n) if v != y]))
        prune_y = prune and y not in keep_all
        if prune_y:
            counters[cd.names[y]] = {r: int(c) for r, c in zip(GAUSSIAN_RULES, cnt)}
        else:
            counters[cd.names[y]] = dict.fromkeys(GAUSSIAN_RULES, 0) if prune else {}

    meta: dict[str, Any] = {
        "N": N,
        "data_kind": "continuous",
        "score_params": sc.describe(),
        "palim": "auto" if palim_auto else palim,
        "bayes_factor": math.exp(eps) if eps < 700 else math.inf,
        "prune": bool(prune),
        "unpruned": [cd.names[v] for v in sorted(keep_all)],
        "tolerance_rtol": P.RTOL,
        "rules": list(GAUSSIAN_RULES) if prune else [],
        "score_equivalent": bool(sc.score_equivalent),
        "max_parents": {cd.names[y]: kmax[y] for y in range(n)},
        "families_scored": n_scored,
        "compiled": bool(COMPILED),
        "walks": walks,
        "source": cd.source,
        "n_jobs": max(1, workers.used) if workers.backend == "processes" else None,
        "backend": workers.backend,
    }
    if workers.backend == "processes" and workers.n_jobs_requested != workers.n_jobs:
        meta["n_jobs_requested"] = workers.n_jobs_requested
    if palim_auto:
        meta["palim_auto"] = {cd.names[y]: limits[y] for y in range(n)}
    if truncated:
        # The children walked hold all their sets; the others only the empty set: the sets of size 1 were
        # being scored when the clock ran out (the discrete scorer's words, so every label reads alike).
        meta["incomplete"] = {"reason": "time_limit", "stopped_at_size": 1, "truncated": truncated,
                              "children_walked": n - len(truncated)}
        meta["time_limit"] = budget.time_limit
        log.warning("Gaussian scoring stopped by the time limit after %d of %d children: the table is truncated",
                    n - len(truncated), n)
    meta["time"] = time.perf_counter() - t0
    pruning_report = {k: v for k, v in counters.items() if v} if prune else {}
    return ScoreTable.from_scoring(cd.names, families, epsilon=eps, score_name=sc.name,
                                   pruning=pruning_report, meta=meta)


def _check_store(res: "WalkResult | None", cd: Any, y: int, mem: int) -> None:
    """One-line ScoreError when a walk stopped at the memory limit (``n_scored < 0``)."""
    if res is not None and res[3] < 0:
        raise ScoreError(f"{cd.source}: the parent sets of {cd.names[y]!r} reached need more than the memory "
                         f"limit of {mem:,} bytes; set palim (or a larger memory_limit)")


def _families_of(masks: np.ndarray, scores: np.ndarray, cand: list[int]) -> list[tuple[tuple[int, ...], float]]:
    """``(parent tuple, score)`` per kept set: bit ``i`` of a mask is variable ``cand[i]`` (``cand`` sorted).

    Why byte tables: a table can hold millions of families (25 variables, BF 20: 4.7 million),
    and testing 24 bits of each in Python took longer than the walk.  The tuple of each byte
    value at each byte position is made once, and a mask's tuple is the sum of its bytes' tuples
    (in increasing order, since ``cand`` is).
    """
    m = len(cand)
    tables = []
    for pos in range(0, m, 8):
        bits = cand[pos:pos + 8]
        tables.append([tuple(bits[i] for i in range(len(bits)) if b >> i & 1) for b in range(1 << len(bits))])
    out = []
    if len(tables) == 1:
        t0 = tables[0]
        for mask, s in zip(masks.tolist(), scores.tolist()):
            out.append((t0[mask], s))
        return out
    for mask, s in zip(masks.tolist(), scores.tolist()):
        ps: tuple[int, ...] = ()
        k = 0
        while mask:
            if mask & 0xFF:
                ps += tables[k][mask & 0xFF]
            mask >>= 8
            k += 1
        out.append((ps, s))
    return out
