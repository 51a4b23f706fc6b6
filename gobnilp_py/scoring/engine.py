"""``score()``: from data to an ε-safe :class:`ScoreTable`.

The engine walks each child's lattice of parent sets level by level
(:mod:`.candidates`), applies the bound rules the score declares
(:attr:`~gobnilp_py.scoring.local_scores.LocalScore.pruning_rules`, proofs in
``docs/pruning.md``) *before* counting a set (so excluded sets and their
supersets are never counted), counts every surviving set once for all the
children that still want it and scores them in batches (:mod:`.parallel`:
in-process, on a process pool or on a Dask cluster), drops the sets some
subset beats by more than ε, and finally -- when a lower bound on the optimum
is given or asked for -- applies the global gap rule.

Memory: candidates are generated in chunks sized to a budget, and before a
level is kept the memory it needs is estimated; over ``memory_limit`` the walk
stops with a one-line :class:`ScoreError` naming the variable, the level and
the memory it would need (no global candidate cap).  The workers' memory and
each family's count table are counted against the same limit.

Time: with ``time_limit`` the walk looks at the clock between levels, pieces,
generation chunks and blocks of parent sets (workers too), and returns the
table truncated at the last complete parent-set size (see :func:`score`).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._budget import Budget
from .._memory import format_bytes, give_back_freed_memory, resident_bytes
from .._validation import (READ_OPTIONS, check_bool, check_lower_bound, check_memory_limit, check_palim,
                           check_positive_int, check_positive_number, check_time_limit, refuse_unknown_keyword)
from ..data.reader import as_dataset
from ..errors import DataError, ParameterError, ScoreError
from . import pruning as P
from .pruning import resolve_epsilon
from .candidates import immediate_subsets, next_level
from .counts import (ParentConfigs, argsort_distinct, distinct_small, find_sorted as _lookup, lex_order, segment_ids,
                     unique_inverse)
from .local_scores import DirichletScore, LocalScore, PenalisedLL, make_score
from .parallel import (FlatGroups, Payload, ScoringDeadline, counts_by_sets, set_counting_possible,
                       set_counting_reads_atoms)
from .pool import LevelScorer, PendingScores, worker_bytes
from . import walk_kernel
from .atom_likelihoods import atom_likelihoods
from .global_gap import apply_global_gap
from .table import ScoreTable
from .gaussian_scores import score_option_conflicts
from .local_scores import is_gaussian_score
from ..data.continuous import continuous_input

__all__ = ["score", "resolve_epsilon", "DEFAULT_MAX_CANDIDATES", "DEFAULT_MEMORY_LIMIT", "active_rules"]

log = logging.getLogger(__name__)

#: No fixed cap on (child, parent set) pairs any more (``max_candidates=None``); the
#: memory budget decides.  Kept as a name for callers that still import it.
DEFAULT_MAX_CANDIDATES: int | None = None

#: With no ``max_candidates``, problems whose first level has more (child, parent) pairs than this are
#: refused at once (about 3,160 variables): exact learning is out of reach there (use an approximate method).
WIDTH_LIMIT = 10_000_000

#: Default memory budget of the lattice walk, bytes (``memory_limit=``).
DEFAULT_MEMORY_LIMIT = 8 * 1024**3

#: Bytes of candidate arrays generated at once (then filtered by the rules).  The numpy generation
#: takes every child of a piece in one call, so a chunk is the transient memory of that call: 32 MB
#: (about 90,000 candidates of size 3) already spreads numpy's per-call cost thin.
GEN_CHUNK_BYTES = 32 * 1024**2

#: ``ml_ceiling`` charges every mixed atom its own least cost (:mod:`.atom_bounds`, issue 14 item 2);
#: False gives the first version's one ``max(0, -ln a)`` per configuration (kept to measure the gain).
ML_CEILING_ATOM_PENALTY = True

#: Most variables for which a (child, mask) pair packs into one int64 key ``child << n | mask``
#: (children below 2^6 take the bits above the mask's n): the walk's sorted look-up keys and its
#: child-then-mask sorts.
COMBINED_KEY_MAX_N = 57

#: Largest number of (child, parent set) candidates generated, counted and scored at once (one piece of
#: a level; :func:`_plan_pieces`).  About 300 MB of transient arrays at parent-set size 6.
PIECE_PAIRS = 1_000_000

#: Up to this many variables the lattice walk uses int64 bitmasks and numpy
#: (fast); beyond it, tuples and dicts.  ``None`` forces the tuple walk.
VECTORISE_MAX_N: int | None = 62


#: What a user can do about a constant variable too wide to keep every parent set of (an exact
#: epsilon-set holds every DAG that gives it any parents: they all tie).
_CONSTANT_FIX = ("set palim, or drop the constant column (it is independent of everything in the data); "
                 "learning one optimal network (learn) needs neither")


def active_rules(sc: LocalScore) -> tuple[str, ...]:
    """The rules the engine applies for ``sc``: what its class declares, checked, in engine order.

    ``user_bound`` is added when the score defines ``upper_bound``.  A declared
    rule the score's form cannot support (say ``penalty_bound`` on a score that
    is not ``LL - coef q (r - 1)``) is a one-line :class:`ScoreError`.
    """
    declared = set(type(sc).pruning_rules) | {"dominated"}
    if type(sc).upper_bound is not LocalScore.upper_bound:
        declared.add("user_bound")
    for r in declared:
        need = P.RULE_INFO.get(r)
        if need is None or r == "global_gap":
            raise ScoreError(f"score {sc.name!r} declares unknown pruning rule {r!r}; "
                             f"known: {', '.join(x for x in P.RULES if x != 'global_gap')}")
        if need == "penalised" and not isinstance(sc, PenalisedLL):
            raise ScoreError(f"score {sc.name!r} declares rule {r!r}, which holds only for penalised "
                             f"log-likelihoods (PenalisedLL)")
        if need == "dirichlet" and not isinstance(sc, DirichletScore):
            raise ScoreError(f"score {sc.name!r} declares rule {r!r}, which holds only for Dirichlet "
                             f"marginal likelihoods (DirichletScore)")
    return tuple(r for r in P.RULES if r in declared)


def _score_keywords() -> list[str]:
    """The keywords :func:`score` names (what an unknown ``**`` keyword is matched against for a hint)."""
    import inspect

    return [k for k in inspect.signature(score).parameters if k not in ("data", "read_options")]


def score(data: object, *, score: str | LocalScore | type[LocalScore] | Callable[..., float] = "BIC",
          ess: float | None = None, palim: int | str | None = None, bayes_factor: float | None = None,
          epsilon: float | None = None, prune: bool = True,
          max_candidates: int | None = DEFAULT_MAX_CANDIDATES,
          unpruned: Iterable[str] = (), progress: Callable[..., Any] | None = None,
          lower_bound: float | str | None = None, memory_limit: int | None = None,
          n_jobs: int | None = None, backend: str = "processes", scheduler: Any = None,
          time_limit: "float | Budget | None" = None, alpha_mu: float | None = None,
          alpha_w: float | None = None, nu: "Sequence[float] | None" = None, **read_options: Any) -> ScoreTable:
    """Local scores of every candidate parent set that a network within ε of the optimum can use.

    Parameters
    ----------
    data : Dataset, or anything :func:`gobnilp_py.data.read_data` accepts
        The discrete data; with a Gaussian score, continuous data: a float array, a DataFrame of
        float columns, a :class:`~gobnilp_py.data.continuous.ContinuousData` or a file read by
        :func:`~gobnilp_py.data.continuous.read_continuous`.
    score : str, LocalScore subclass or instance, or callable
        A registered name (``"BIC"``, ``"AIC"``, ``"BDeu"``, ``"K2"``, ``"BDs"``,
        any case, or a pgmpy alias such as ``"bic-d"``; see
        :func:`~gobnilp_py.scoring.local_scores.score_names`); for continuous data one of the
        Gaussian scores ``"bic-g"``, ``"aic-g"``, ``"bge"`` (any case; scored by
        :func:`~gobnilp_py.scoring.gaussian.gaussian_score_table`, ``docs/gaussian.md``), a
        :class:`~gobnilp_py.scoring.local_scores.LocalScore`, or a plain
        function ``fn(child, parents, counts) -> float``.  The pruning rules
        applied are those the score declares (:func:`active_rules`).
    ess : float, optional
        Equivalent sample size of BDeu and BDs (> 0; default 1).  Refused with a Gaussian score.
    alpha_mu, alpha_w, nu : optional
        The BGe score's hyperparameters (``α_μ > 0``, default 1; ``α_w > n + 1``, default
        ``n + 2``; the prior mean, default the sample mean); refused with any other score.
    palim : int, "auto" or None
        Largest parent set size; ``None`` means no limit (the bounds decide).
        ``"auto"``: per variable, the largest number of parents of arity >= 2
        that a family within ε can have, ``d_ε(v)`` (``docs/pruning.md``,
        ``parent_count``); provably safe for the given ε.  Only penalised
        log-likelihoods (BIC, AIC) have such a bound; other scores get no limit.
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
        ``progress("scoring", k, max_k, families=scored_so_far)``.
    max_candidates : int or None
        Optional cap: abort with a :class:`ScoreError` rather than score more
        than this many (child, parent set) pairs.  Default ``None``: no cap,
        the memory budget decides.
    lower_bound : float, "auto" or None
        Enables the ``global_gap`` rule: the score of some DAG (``LB <= OPT``)
        admissible for the problem the table will be searched under;
        ``"auto"`` builds one from the table by the sink heuristic
        (:func:`~gobnilp_py.scoring.heuristic.greedy_dag`), which is valid only
        *without* structural constraints (it is skipped when ``unpruned`` is
        given).  Default ``None``: off.
    memory_limit : int, optional
        Bytes scoring may hold in the whole process tree (default
        :data:`DEFAULT_MEMORY_LIMIT`, 8 GiB): each local worker process's own
        memory is set aside first (:func:`~gobnilp_py.scoring.pool.worker_bytes`;
        a limit too small for the workers starts fewer, down to none, and says
        so), the lattice walk holds the rest, and each family's count table
        (:data:`COUNT_BYTES_PER_CELL` a cell) is checked against it before it is
        counted.  Over it, a one-line :class:`ScoreError` names the variable (and
        for a table its parents), the level and the memory needed, before
        allocating it.
    n_jobs : int or None
        Worker processes (``None`` or -1: every core; 1: in-process; more than
        the cores this process may use is capped at them, with a warning and
        ``meta["n_jobs_requested"]``).  Even
        with workers, a lattice level is scored in-process unless it is big
        enough to pay for the pool: at least 4,000 parent sets, at least 2e7
        units of work (Σ children x data rows, about 0.2-1 s in-process) and
        at least 4,000 units per parent set
        (:data:`~gobnilp_py.scoring.parallel.PARALLEL_MIN_UNITS` and
        neighbours, chosen by measurement: 10-60 ns per unit in-process against
        15-30 ms to start the pool and 10-40 µs to send and receive a parent
        set).  So small problems (wine, tic-tac-toe, zoo, hailfinder100) never
        start a pool.  The table is identical whatever ``n_jobs`` is.
    backend : {"processes", "dask"}
        ``"dask"`` scores on the Dask cluster at ``scheduler`` (needs the
        ``dask`` extra).
    scheduler : str or distributed.Client, optional
        With ``backend="dask"``: the scheduler address (``"tcp://host:8786"``) or a client.
    time_limit : float or Budget, optional
        Wall-clock seconds for scoring (or a :class:`gobnilp_py.Budget` started
        earlier, whose clock then covers what ran before).  The walk looks at
        the clock between lattice levels, between pieces of a level and
        between blocks of parent sets (in worker processes too), never per
        family.  When it runs out the level being built is dropped and the
        table is returned *truncated*: each variable still growing keeps its
        parent sets up to the last complete size (what ``palim`` of that size
        would have given it), the others all of theirs.  Such a table says so
        (``meta["incomplete"]``, a guarantee starting ``INCOMPLETE
        (time_limit)``, the ``.jkl`` provenance), is safe for no gap
        (``safe_epsilon`` is ``None``) and guarantees nothing about the
        optimum: a network may need the parent sets never scored.
    **read_options
        ``header``, ``delimiter``, ``arities``, ``names``: how to read ``data`` given as a file,
        frame or array, as in :func:`gobnilp_py.read_data` and the drivers (``learn`` etc.).

    Returns
    -------
    ScoreTable
        With ``epsilon``, ``score_name``, ``pruning`` (per variable, how many
        sets each rule excluded directly; see ``docs/pruning.md``) and
        ``meta`` (``N``, ``arities``, ``ess``, ``palim``, ``bayes_factor``,
        ``time``, ``families_scored``, ``families_scored_per_level``,
        ``rules``, ``score_equivalent``, ``max_nonunit_parents`` for BIC/AIC,
        ``palim_auto`` when ``palim="auto"``, ``lower_bound`` / ``upper_bound``
        when the global gap rule ran, ``n_jobs``/``backend``).
    """
    t0 = time.perf_counter()
    eps = resolve_epsilon(bayes_factor, epsilon)
    # ``header``, ``delimiter``, ... read the data as the drivers read it; any other keyword is refused
    # naming score() (or the public function that does take it).
    extra = {k: v for k, v in read_options.items() if k not in READ_OPTIONS}
    if extra:
        refuse_unknown_keyword("score", extra, READ_OPTIONS, suggestions=[*_score_keywords(), *READ_OPTIONS])
    given = {"ess": ess, "max_candidates": max_candidates, "lower_bound": lower_bound, "n_jobs": n_jobs,
             "backend": None if backend == "processes" else backend, "scheduler": scheduler,
             "alpha_mu": alpha_mu, "alpha_w": alpha_w, "nu": nu, **read_options}
    for option, problem in score_option_conflicts(score, given):
        raise ScoreError(f"{option} {_PLACEHOLDER.sub(lambda m: m[1], problem)}")
    if is_gaussian_score(score):
        return _score_gaussian(data, score=str(score), palim=palim, bayes_factor=bayes_factor, epsilon=epsilon,
                               prune=prune, unpruned=unpruned, progress=progress, memory_limit=memory_limit,
                               time_limit=time_limit, alpha_mu=alpha_mu, alpha_w=alpha_w, nu=nu,
                               lower_bound=lower_bound, read_options=read_options, n_jobs=n_jobs, backend=backend,
                               scheduler=scheduler)
    # The shared checks: the same words as the config and the command line, raised here as ScoreError.
    try:
        ess_f = 1.0 if ess is None else float(check_positive_number(ess, "ess"))  # type: ignore[arg-type]
        palim = check_palim(palim, "palim")
        if max_candidates is not None:
            max_candidates = check_positive_int(max_candidates, "max_candidates")
        memory_limit = check_memory_limit(memory_limit, "memory_limit")
        lower_bound = check_lower_bound(lower_bound, "lower_bound")
        if not isinstance(time_limit, Budget):
            time_limit = check_time_limit(time_limit, "time_limit")
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    budget = Budget.of(time_limit, start=t0)
    palim_auto = palim == "auto"
    mem = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
    lb_given = None if lower_bound is None or lower_bound == "auto" else float(lower_bound)
    prune = check_bool(prune, "prune")
    ds = as_dataset(data, read_options)
    if ds.N < 1:
        raise DataError(f"{ds.source}: no data rows to score")
    sc = make_score(score, ds, ess=ess_f)
    if sc.data is not ds and (sc.data.codes.shape != ds.codes.shape
                              or not np.array_equal(sc.data.arities, ds.arities)):
        raise ScoreError(f"score {sc.name!r} was built for different data than {ds.source}")
    rules = active_rules(sc)
    n = ds.n
    names = ds.names
    ar = [int(a) for a in ds.arities]
    # Refuse at once what cannot be scored exactly: the first level alone of a very wide problem is
    # generated and bounded pair by pair (minutes at thousands of variables), before any rule can help.
    from .._validation import check_width

    check_width(n, palim=0 if palim == 0 else None,
                max_candidates=max_candidates if max_candidates is not None else WIDTH_LIMIT,
                n_constant=sum(1 for a in ar if a <= 1), source=str(ds.source))
    limit = n - 1 if (palim is None or palim_auto) else min(int(palim), n - 1)
    unknown = [u for u in unpruned if str(u) not in names]
    if unknown:
        raise ScoreError(f"unpruned names unknown variable {unknown[0]!r}")
    keep_all = frozenset(names.index(str(u)) for u in unpruned) if prune else frozenset()
    active = rules if prune else ()
    counters: list[dict[str, int]] = [dict.fromkeys(active, 0) for _ in range(n)]
    penalised = isinstance(sc, PenalisedLL)

    # Constant children: every parent set ties (BIC/AIC/BDeu/K2/BDs score 0), so no rule can shrink
    # the lattice.  Its size is known in advance: fail now rather than run out of memory.
    if isinstance(sc, (PenalisedLL, DirichletScore)):
        for v in range(n):
            if ar[v] == 1:
                sizes = [math.comb(n - 1, k) for k in range(limit + 1)]
                need = max(sizes[k] * _bytes_per_pair(k) for k in range(limit + 1))
                if max_candidates is not None and sum(sizes) > max_candidates:
                    raise ScoreError(
                        f"variable {names[v]!r} is constant: all its {sum(sizes)} parent sets up to size {limit} "
                        f"tie and must be kept, over max_candidates={max_candidates}; {_CONSTANT_FIX}")
                if need > mem:
                    kbig = int(np.argmax([s * _bytes_per_pair(k) for k, s in enumerate(sizes)]))
                    raise ScoreError(
                        f"variable {names[v]!r} is constant: all its parent sets tie and must be kept, "
                        f"{sizes[kbig]:,} of size {kbig} alone need about {format_bytes(need)} "
                        f"(memory_limit {format_bytes(mem)}); {_CONSTANT_FIX}")

    want_llc = bool({"ll_ceiling", "entropy", "ml_ceiling"} & set(active)) or (palim_auto and penalised)
    pc = ParentConfigs(ds)
    llc = np.zeros(n)
    atom_w: np.ndarray | None = None
    atom_mixed: np.ndarray | None = None
    if want_llc:
        llc, atom_w, atom_mixed = atom_likelihoods(pc, ar, tables="ml_ceiling" in active)
    payload = Payload(data=ds, score=sc, want_ll=penalised, want_cells="cell_bound" in active or "ml_ceiling" in active,
                      want_ub="ml_ceiling" in active, atom_weights=atom_w if "ml_ceiling" in active else None,
                      # Where every atom is pure (LL(v | all others) = 0) the ceiling equals cell_bound.
                      ub_children=llc < -P.tolerance(0.0),
                      atom_mixed=atom_mixed if "ml_ceiling" in active else None,
                      atom_penalty=ML_CEILING_ATOM_PENALTY)
    if payload.want_ub and not payload.ub_children.any():
        payload.want_ub = False
    if set_counting_possible(sc, n, pc.rows):
        # Decided from the score and the data alone (for the Dirichlet scores: whether every atom is
        # pure, LL(v | all others) = 0 for every v), with or without pruning, so a family's score does
        # not depend on the settings (numpy paths).
        determined = None
        if set_counting_reads_atoms(sc):
            llc_all = llc if want_llc else atom_likelihoods(pc, ar, tables=False)[0]
            determined = ~(llc_all < -P.tolerance(0.0))
        payload.by_sets = counts_by_sets(sc, n, pc.rows, determined)
    scorer = LevelScorer(payload, n_jobs=n_jobs, backend=backend, scheduler=scheduler, counts=pc)
    walk_memory = _reserve_workers(scorer, payload, float(mem), backend)
    try:
        # Level 0: the empty parent set, all children in one batch.
        res0 = scorer.run([((), np.arange(n, dtype=np.int64))])
        _check_finite(res0.scores, names, [()] * n, list(range(n)))
        # Level 0 (every variable's empty set) is always scored: a table needs it.  From level 1 on the scorer
        # stops at the deadline too, per block of parent sets, in this process and in the workers.
        scorer.deadline = budget.wall_deadline()
        s0 = res0.scores
        kept: list[list[tuple[tuple[int, ...], float]]] = [[((), float(s0[v]))] for v in range(n)]

        coef = sc.coef if penalised else 0.0
        kmax: list[int | None] = [None] * n
        ceil_for_count = llc if "ll_ceiling" in active else np.zeros(n)
        if "parent_count" in active:
            for v in range(n):
                if v not in keep_all:
                    kmax[v] = P.max_nonunit_parents(coef, ar[v], [ar[j] for j in range(n) if j != v],
                                                    float(s0[v]), eps, float(ceil_for_count[v]))
        vlim: list[int | None] = [None] * n
        if palim_auto and penalised:
            for v in range(n):
                vlim[v] = P.max_nonunit_parents(coef, ar[v], [ar[j] for j in range(n) if j != v],
                                                float(s0[v]), eps, float(llc[v]))
        run = _Run(sc=sc, scorer=scorer, names=names, ar=ar, eps=eps, prune=prune, keep_all=keep_all,
                   rules=frozenset(active), coef=coef, kmax=kmax, vlim=vlim, llc=llc, counters=counters,
                   kept=kept, max_candidates=max_candidates, memory_limit=walk_memory, t0=t0,
                   progress=progress, deadline=budget.deadline, rows=pc.rows,
                   processes=max(1, scorer.n_jobs) if backend == "processes" else 1, memory_total=float(mem))
        for v in range(n):
            caps = [vlim[v]] if vlim[v] is not None else []
            if (kmax[v] is not None and prune and v not in keep_all and "parent_count" in active
                    and ar[v] > 1 and coef > 0):
                caps.append(kmax[v])
            run.caps.append(min(caps) if caps else None)
            run.unit_other.append(any(ar[j] <= 1 for j in range(n) if j != v))
        walk = _walk_numpy if (VECTORISE_MAX_N is not None and n <= VECTORISE_MAX_N) else _walk_python
        base = resident_bytes()
        run.rss_base = None if base is None else float(base)
        n_scored, per_level, n_batches = _walk_in_batches(walk, run, res0, limit, n)
    finally:
        scorer.close()
    if run.truncated is not None:
        _truncate(kept, run.truncated)

    meta: dict[str, Any] = {
        "N": ds.N,
        "arities": dict(zip(names, ar)),
        "ess": ess_f if "ess" in sc.describe() else None,
        "palim": "auto" if palim_auto else palim,
        "bayes_factor": math.exp(eps) if eps < 700 else math.inf,
        "prune": bool(prune),
        "unpruned": [names[v] for v in sorted(keep_all)],
        "tolerance_rtol": P.RTOL,
        "rules": list(active),
        "score_equivalent": bool(type(sc).score_equivalent),
        "families_scored": n_scored,
        "families_scored_per_level": per_level,
        "n_jobs": scorer.n_jobs if backend == "processes" else None,
        **({"n_jobs_requested": scorer.n_jobs_requested} if scorer.n_jobs_requested != scorer.n_jobs else {}),
        "child_batches": n_batches,
        "backend": backend,
        "source": ds.source,
    }
    if "parent_count" in active:
        meta["max_nonunit_parents"] = {names[v]: kmax[v] for v in range(n)}
    if palim_auto:
        meta["palim_auto"] = {names[v]: vlim[v] for v in range(n)}
    if want_llc:
        meta["ll_all_others"] = {names[v]: float(llc[v]) for v in range(n)}
    if run.truncated is not None:
        meta["incomplete"] = {"reason": "time_limit", "stopped_at_size": run.level,
                              "truncated": {names[v]: d for v, d in sorted(run.truncated.items())}}
        meta["time_limit"] = budget.time_limit
        log.warning("scoring stopped by the time limit while scoring parent sets of size %d: the table is "
                    "truncated (%d of %d variables)", run.level, len(run.truncated), n)
    if prune and lower_bound is not None:
        if run.truncated is not None or budget.expired():
            # out of time: the rule's heuristics are not run (keeping families is always safe)
            meta["global_gap"] = "skipped (time limit)"
        else:
            apply_global_gap(kept, counters, names, eps, lower_bound, lb_given, keep_all, meta)
    elapsed = time.perf_counter() - t0
    meta["time"] = elapsed
    pruning_report = {names[v]: counters[v] for v in range(n)} if prune else {}
    log.info("scored %d families in %.2f s; kept %d", n_scored, elapsed, sum(len(f) for f in kept))
    return ScoreTable.from_scoring(names, kept, epsilon=eps, score_name=sc.name, pruning=pruning_report, meta=meta)


#: A ``{name}`` placeholder of a problem from :func:`score_option_conflicts` (the API names keywords as they are).
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _score_gaussian(data: object, *, score: str, read_options: dict[str, Any], lower_bound: float | str | None,
                    **options: Any) -> ScoreTable:
    """``score()`` for a Gaussian score: continuous data read from what was given
    (:func:`~gobnilp_py.data.continuous.continuous_input`), then the Gaussian walk, then -- with a
    ``lower_bound`` -- the global gap rule, which holds for any decomposable score (it compares
    a family with the best family of its child and the gap UB - LB; ``docs/pruning.md``)."""
    # imported here: it loads the compiled walk (numba), which discrete jobs never need
    from .gaussian import gaussian_score_table

    try:
        lower_bound = check_lower_bound(lower_bound, "lower_bound")
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    table = gaussian_score_table(continuous_input(data, read_options, score=score), score=score, **options)
    if lower_bound is None or not table.meta.get("prune", True):
        return table
    meta = dict(table.meta)
    if table.incomplete is not None:
        meta["global_gap"] = "skipped (time limit)"
        return ScoreTable.from_scoring(table.names, table.families, epsilon=table.epsilon,
                                       score_name=table.score_name, pruning=table.pruning, meta=meta)
    names = table.names
    kept = [list(f) for f in table.families]
    counters = [dict(table.pruning.get(v, {})) for v in names]
    keep_all = frozenset(names.index(u) for u in meta.get("unpruned") or ())
    lb_given = None if lower_bound == "auto" else float(lower_bound)
    apply_global_gap(kept, counters, names, float(table.epsilon or 0.0), lower_bound, lb_given, keep_all, meta)
    meta["rules"] = [*meta.get("rules", []), "global_gap"]
    pruning = {names[v]: counters[v] for v in range(len(names)) if counters[v]}
    return ScoreTable.from_scoring(names, kept, epsilon=table.epsilon, score_name=table.score_name,
                                   pruning=pruning, meta=meta)


#: Bytes a cell of a family's count table costs while it is counted and scored (the counts, their offsets,
#: the score's temporaries): a family of ``m`` observed parent configurations and a child of ``r`` states
#: costs ``m * r`` cells.  Checked before counting (:meth:`_Run.check_tables`), as the issue that asked for it
#: measured: a column of thousands of states (a row id) costs about rows^2 x 48 bytes.
COUNT_BYTES_PER_CELL = 48

#: Below this many bytes for the largest table the data can give (rows x the largest arity x
#: :data:`COUNT_BYTES_PER_CELL`), the tables are not checked at all: the walk's hot path pays nothing.
TABLES_UNCHECKED_BYTES = 64 * 1024**2


def _reserve_workers(scorer: LevelScorer, payload: Payload, mem: float, backend: str) -> float:
    """The lattice walk's share of ``memory_limit`` once the local worker processes have theirs.

    ``memory_limit`` bounds what scoring holds in the whole process tree: the walk in this process and each
    worker's own memory (:func:`~gobnilp_py.scoring.pool.worker_bytes`).  Workers may take at most half of
    it; a limit too small for the workers asked for starts fewer (one or none: scoring in-process), and says so.
    Dask workers run elsewhere and are not counted.
    """
    if backend != "processes" or scorer.n_jobs <= 1:
        return mem
    each = worker_bytes(payload)
    fit = int((mem / 2) // each)
    if fit < scorer.n_jobs:
        if fit <= 1:
            log.warning("memory_limit %s leaves no room for scoring worker processes (each may hold about %s): "
                        "scoring in-process", format_bytes(mem), format_bytes(each))
        else:
            log.warning("memory_limit %s leaves room for %d scoring worker processes (each may hold about %s), "
                        "not %d", format_bytes(mem), fit, format_bytes(each), scorer.n_jobs)
        scorer.n_jobs = max(1, fit)
    return mem - (scorer.n_jobs * each if scorer.n_jobs > 1 else 0)


def _bytes_per_pair(k: int) -> int:
    """Memory a kept (child, parent set of size k) pair costs while its level is processed."""
    return 16 * (k + 1) + 200


class _OverBudget(Exception):
    """The walk of the current batch of children would exceed ``memory_limit`` (message ready)."""


class _OutOfTime(Exception):
    """The time limit ran out during the walk (the level being built is dropped)."""


def _truncate(kept: list[list[tuple[tuple[int, ...], float]]], truncated: dict[int, int]) -> None:
    """Keep each truncated child's parent sets of at most its complete size (the level cut short goes)."""
    for v, size in truncated.items():
        kept[v] = [f for f in kept[v] if len(f[0]) <= size]


def _walk_in_batches(walk: Callable[..., tuple[int, list[int]]], run: "_Run", res0: Any, limit: int,
                     n: int) -> tuple[int, list[int], int]:
    """Walk all children together; when that would exceed the memory budget, halve the batch.

    All children in one walk share the counting of each parent set; separate
    batches hold only their own candidates, so the peak memory falls with the
    batch size.  The table's families do not depend on the batching (a set a
    bound rule removes is dominated anyway, see ``docs/pruning.md``); only the
    rule counters and the work done can.  One child alone over the budget is a
    one-line :class:`ScoreError`.
    """
    pending = [list(range(n))]
    n_scored = 0
    per_level: list[int] = [n]
    batches = 0
    while pending:
        batch = pending.pop(0)
        give_back_freed_memory()         # a batch given up: its arrays are freed, return them before measuring
        snap_kept = {v: list(run.kept[v]) for v in batch}
        snap_cnt = {v: dict(run.counters[v]) for v in batch}
        run.active = frozenset(batch)
        run.growing = frozenset()
        try:
            ns, pl = walk(run, res0, limit)
        except (_OutOfTime, ScoringDeadline):
            # The level being built is dropped: the children still growing keep their complete sizes, the
            # children of batches not walked yet their empty set only (level 0, scored for everyone).
            truncated = {v: max(run.level - 1, 0) for v in run.growing & run.active}
            for later in pending:
                truncated.update(dict.fromkeys(later, 0))
            run.truncated = truncated
            batches += 1
            ns, pl = run.done_so_far       # the complete levels of this batch
            n_scored += ns - pl[0]
            per_level += [0] * (len(pl) - len(per_level))
            for k in range(1, len(pl)):
                per_level[k] += pl[k]
            break
        except (_OverBudget, MemoryError) as exc:
            # MemoryError: the system refused an allocation below the budget (an address-space cap, other
            # processes); numpy fails cleanly, so a smaller batch may still fit -- else one line, no traceback.
            message = str(exc) if isinstance(exc, _OverBudget) else (
                f"scoring ran out of memory at parent-set size {run.level} (variable "
                f"{run.names[batch[0]]!r}{' and others' if len(batch) > 1 else ''}) although the estimate was "
                f"within memory_limit {format_bytes(run.memory_limit)}: the system has less memory available than "
                "that; set palim or a lower memory_limit")
            if len(batch) == 1:
                raise ScoreError(message) from None
            for v in batch:
                run.kept[v] = snap_kept[v]
                run.counters[v] = snap_cnt[v]
            half = (len(batch) + 1) // 2
            log.info("memory budget: scoring %d children in two batches", len(batch))
            pending[:0] = [batch[:half], batch[half:]]
            continue
        batches += 1
        # pl[0] is level 0 (the empty set, scored once for every child before the walk)
        n_scored += ns - pl[0]
        per_level += [0] * (len(pl) - len(per_level))
        for k in range(1, len(pl)):
            per_level[k] += pl[k]
    per_level[0] = n
    n_scored += n
    return n_scored, per_level, batches


@dataclass
class _Run:
    """What both lattice walks share."""

    sc: LocalScore
    scorer: LevelScorer
    names: tuple[str, ...]
    ar: list[int]
    eps: float
    prune: bool
    keep_all: frozenset[int]
    rules: frozenset[str]
    coef: float
    kmax: list[int | None]
    vlim: list[int | None]
    llc: np.ndarray
    counters: list[dict[str, int]]
    kept: list[list[tuple[tuple[int, ...], float]]]
    max_candidates: int | None
    memory_limit: float
    t0: float
    progress: Callable[..., Any] | None = None
    caps: list[int | None] = field(default_factory=list)        # parent-count cap per child (_grows)
    unit_other: list[bool] = field(default_factory=list)        # some other variable has arity 1
    held_bytes: float = field(default=0.0)
    active: frozenset[int] = field(default_factory=frozenset)   # children walked in this batch
    level: int = 0                                               # parent-set size being walked (messages)
    # per-child parameters as arrays, for the generation of many children at once (_walk_numpy)
    vlim_arr: np.ndarray | None = None      # palim="auto" bound (None: no child has one)
    kmax_arr: np.ndarray | None = None      # parent_count bound (None: no child has one)
    pruned_arr: np.ndarray | None = None    # bool: the rules may prune this child (not in keep_all)
    deadline: float | None = None           # time.perf_counter() at which the time limit runs out
    rows: int = 0                           # rows counted (distinct rows when merged): bounds a set's configurations
    processes: int = 1                      # processes that may count a table at once (the workers, or this one)
    memory_total: float = 0.0               # memory_limit itself (the walk's share is memory_limit above)
    growing: frozenset[int] = field(default_factory=frozenset)  # children whose level ``level`` is being built
    truncated: dict[int, int] | None = None  # after a stop by the time limit: child -> largest size kept
    rss_base: float | None = None           # this process's resident bytes when the walk began (None: unknown)
    done_so_far: tuple[int, list[int]] = (0, [0])  # the walk's (families scored, per level) after its last level

    def tick(self) -> None:
        """Stop the walk (:class:`_OutOfTime`) once the time limit has passed: called per level and per piece,
        never per family, so the hot loops do not pay for it."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _OutOfTime

    def child_arrays(self) -> None:
        """Fill :attr:`vlim_arr`, :attr:`kmax_arr` and :attr:`pruned_arr` (no bound: a count never reached)."""
        n = len(self.names)
        never = np.iinfo(np.int64).max
        self.vlim_arr = (None if all(x is None for x in self.vlim)
                         else np.array([never if x is None else x for x in self.vlim], dtype=np.int64))
        self.kmax_arr = (None if all(x is None for x in self.kmax)
                         else np.array([never if x is None else x for x in self.kmax], dtype=np.int64))
        self.pruned_arr = np.array([v not in self.keep_all for v in range(n)], dtype=bool)

    def check_tables(self, child: np.ndarray, q: np.ndarray, parents: Callable[[int], tuple[int, ...]], k: int,
                     need: float) -> None:
        """One-line ScoreError when counting a pair's table would exceed the memory limit (before counting).

        A pair ``(child, parent set)`` is counted in a table of ``min(q, rows)`` configurations times the
        child's states (:data:`COUNT_BYTES_PER_CELL` a cell), in every process that counts at once;
        ``need`` is what the walk holds meanwhile.  Checked only on data whose widest possible table
        passes :data:`TABLES_UNCHECKED_BYTES` (a column of thousands of states).
        """
        if not child.size:
            return
        ar = np.asarray(self.ar, dtype=np.float64)
        cells = np.minimum(q, float(max(self.rows, 1))) * ar[child]
        i = int(np.argmax(cells))
        table = float(cells[i]) * COUNT_BYTES_PER_CELL
        if need + table * self.processes <= self.memory_limit:
            return
        v = int(child[i])
        ps = parents(i)
        wide = sorted((j for j in (v, *ps) if self.ar[j] >= 100), key=lambda j: -self.ar[j])
        shown = ", ".join(f"{self.names[j]!r} ({self.ar[j]:,} states)" for j in wide[:3])
        raise ScoreError(
            f"scoring variable {self.names[v]!r} with parents {{{','.join(self.names[p] for p in ps)}}} needs a count "
            f"table of {int(min(float(q[i]), self.rows)):,} x {self.ar[v]:,} cells, about {format_bytes(table)}"
            + (f" in each of {self.processes} processes" if self.processes > 1 else "")
            + f", over memory_limit {format_bytes(self.memory_total)}"
            + (f": {shown} look like row ids or continuous values; drop or discretise them" if wide else "")
            + ", set palim, or raise memory_limit")

    def check_budget(self, n_scored: int, per_child: np.ndarray, k: int, extra: float | None = None,
                     upcoming: float = 0.0) -> None:
        """One-line ScoreError when the candidate cap or the memory budget would be exceeded.

        ``extra``: bytes the level being built needs beyond :attr:`held_bytes`
        (default: every candidate counted in ``per_child`` held at once); ``upcoming``: the part of it
        not allocated yet, checked against what the process really holds (:meth:`check_measured`).
        """
        self.level = k
        n_pairs = int(per_child.sum())
        worst = int(np.argmax(per_child))
        if self.max_candidates is not None and n_scored + n_pairs > self.max_candidates:
            raise ScoreError(
                f"scoring would evaluate over {self.max_candidates} candidate parent sets (variable "
                f"{self.names[worst]!r} alone has {int(per_child[worst])} of size {k}); "
                f"set palim or raise max_candidates")
        need = (n_pairs * _bytes_per_pair(k) if extra is None else extra) + self.held_bytes
        if need > self.memory_limit:
            raise _OverBudget(
                f"scoring needs about {format_bytes(need)} at parent-set size {k} (variable {self.names[worst]!r} "
                f"alone has {int(per_child[worst]):,} candidate sets of that size), over memory_limit "
                f"{format_bytes(self.memory_limit)}; set palim or raise memory_limit")
        self.check_measured(upcoming, k)

    def check_measured(self, upcoming: float, k: int) -> None:
        """:class:`_OverBudget` when this process's growth since the walk began (its resident set, freed heap
        given back first), plus ``upcoming`` bytes about to be allocated, passes the walk's share.

        Why besides the estimates: they count the walk's arrays, not the interpreter's and the allocator's
        overheads, and the limit is judged by what the process tree holds.  Read only where the estimate
        already passed (once a piece), so the hot loops pay nothing.
        """
        if self.rss_base is None:
            return
        now = resident_bytes()
        if now is None or now - self.rss_base + upcoming <= self.memory_limit:
            return
        give_back_freed_memory()
        now = resident_bytes() or now
        grown = now - self.rss_base
        if grown + upcoming > self.memory_limit:
            raise _OverBudget(
                f"scoring holds {format_bytes(grown)} and needs {format_bytes(upcoming)} more at parent-set size "
                f"{k}, over memory_limit {format_bytes(self.memory_limit)}; set palim or raise memory_limit")

    def check_join(self, stored: float, k: int) -> None:
        """:class:`_OverBudget` when joining a level's pieces (:meth:`_Level.concat`) would pass the budget.

        The join holds the stored rows (``stored`` bytes, ``k + 45`` a row), the child ids and their stable
        order (8 bytes a row each) and, one field at a time, a field's joined and permuted copies.
        """
        rows = stored / (k + 45)
        upcoming = rows * (16 + 2 * max(8, k))
        if stored + upcoming > self.memory_limit:
            raise _OverBudget(
                f"scoring needs about {format_bytes(stored + upcoming)} to join the parent sets of size {k}, over "
                f"memory_limit {format_bytes(self.memory_limit)}; set palim or raise memory_limit")
        self.check_measured(upcoming, k)


@dataclass
class _Level:
    """One child's scored sets of one size, as arrays sorted by bitmask."""

    masks: np.ndarray      # int64 (M,)
    elems: np.ndarray      # int8 (M, k), each row sorted (n <= 62: masks are int64)
    ll: np.ndarray         # float (M,), NaN when the score has no LL
    best: np.ndarray       # float (M,): best score of the set or any subset
    q: np.ndarray          # float (M,): declared number of parent configurations
    nnu: np.ndarray        # int8 (M,): parents of arity >= 2
    cells: np.ndarray      # int32 (M,): cells with N_jk > 0 (cell_bound; zeros otherwise)
    ub: np.ndarray         # float (M,): ml_ceiling bound of the set and its supersets (+inf otherwise)

    # k + 45 bytes a row (was 8k + 56 with int64 elements, counts and cells): the stored level is
    # what a wide walk holds (spectf: 48.9 million rows of size 5), so small integers are kept small.

    #: The fields, in constructor order.
    FIELDS: ClassVar[tuple[str, ...]] = ("masks", "elems", "ll", "best", "q", "nnu", "cells", "ub")

    def nbytes(self) -> int:
        return sum(getattr(self, f).nbytes for f in self.FIELDS)

    def views(self, off: np.ndarray) -> "_LevelViews":
        """Child ``v``'s rows ``off[v]:off[v + 1]`` as a :class:`_Level` of views (no copy), made when asked for."""
        return _LevelViews(self, off)

    @staticmethod
    def concat(parts: list["_Level"], k: int, consume: bool = False, order: np.ndarray | None = None) -> "_Level":
        """The parts one after the other (rows then permuted by ``order`` when given).  ``consume``:
        each field of the parts is released as soon as it is joined (the parts are unusable
        afterwards), so the join holds one field's copies at most."""
        if not parts:
            e = np.zeros(0, dtype=np.int64)
            f = np.zeros(0)
            return _Level(e, np.zeros((0, k), dtype=np.int8), f, f, f, np.zeros(0, dtype=np.int8),
                          np.zeros(0, dtype=np.int32), f)
        if len(parts) == 1 and order is None:
            return parts[0]
        joined = []
        for name in _Level.FIELDS:
            field_ = np.concatenate([getattr(p, name) for p in parts])
            joined.append(field_ if order is None else field_[order])
            del field_
            if consume:
                for p in parts:
                    setattr(p, name, None)
                give_back_freed_memory()     # the parts' field, freed in the heap's middle
        return _Level(*joined)


class _LevelViews:
    """Every child's rows of a level (:meth:`_Level.views`): ``views[v]`` is a :class:`_Level` of
    views, made on first use; :meth:`size` and :meth:`masks` read the level directly.

    Why lazy: the numpy generation reads only each child's masks, and making eight views per
    child and level was 2% of a small dataset's scoring (wine: 14 children, 6 levels).
    """

    def __init__(self, cat: _Level, off: np.ndarray) -> None:
        self.cat = cat
        self.bounds = list(zip(off[:-1].tolist(), off[1:].tolist()))
        self._made: dict[int, _Level] = {}

    def __len__(self) -> int:
        return len(self.bounds)

    def __getitem__(self, v: int) -> _Level:
        lv = self._made.get(v)
        if lv is None:
            a, b = self.bounds[v]
            lv = self._made[v] = _Level(*(getattr(self.cat, f)[a:b] for f in _Level.FIELDS))
        return lv

    def size(self, v: int) -> int:
        """Child ``v``'s number of rows."""
        a, b = self.bounds[v]
        return b - a

    def masks(self, v: int) -> np.ndarray:
        """Child ``v``'s masks (a view, sorted)."""
        a, b = self.bounds[v]
        return self.cat.masks[a:b]


def _tables_checked(run: _Run) -> bool:
    """Whether a count table of this data can be big enough to need :meth:`_Run.check_tables` (rarely)."""
    return float(max(run.rows, 1)) * max(run.ar, default=1) * COUNT_BYTES_PER_CELL > TABLES_UNCHECKED_BYTES


def _grows(run: _Run, v: int, k: int) -> bool:
    """Can child ``v`` have a candidate of size ``k + 1`` that the parent-count caps let through?

    Without parents of arity 1 every set of size ``k`` has ``k`` parents of
    arity >= 2, so once ``k`` reaches ``min(kmax, vlim)`` every superset is
    excluded by ``parent_count`` (or by ``palim="auto"``): the walk does not
    generate them at all.  The table is unchanged; only the ``parent_count``
    counter no longer counts those sets.
    """
    cap = run.caps[v]
    return cap is None or k < cap or run.unit_other[v]


def _count_capped(run: _Run, v: int, n_sets: int) -> None:
    """Credit ``parent_count`` with the ``n_sets`` sets at which child ``v``'s walk stops growing.

    The supersets of those sets are excluded by the cap without being
    generated; counting the sets keeps the counters honest (a table whose
    counters are all zero is taken to be unpruned, hence safe for every gap).
    """
    c = run.counters[v]
    if n_sets and "parent_count" in c:
        c["parent_count"] += n_sets


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
    :func:`_walk_python` (a test checks the two give identical tables).  A
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


class _LevelKeys:
    """Look-ups of ``(child, mask)`` in a level stored child by child (:class:`_Level`, ``off``).

    Why: the generation of a level is done for all children at once, and its
    Apriori and entropy look-ups ask for sets of many children in one call.
    Three layouts, by the number of variables ``n``:

    - ``n * 2^n <=`` :data:`DENSE_KEY_SLOTS`: a table of every ``(child, mask)``
      holding the row plus one, or 0, so a look-up is one gather (binary searches of
      random queries were a third of the generation on zoo);
    - up to 57 variables, ``child << n | mask`` fits an int64 and is sorted
      over the whole level (children ascending, masks sorted inside each): one
      binary search;
    - beyond, one binary search per child asked for.
    """

    def __init__(self, cat: _Level, off: np.ndarray, n: int, table: np.ndarray | None = None) -> None:
        """``table``: the walk's dense table (:meth:`dense_table`, all 0), filled here and emptied
        by :meth:`clear` -- allocated once and kept between walks (:meth:`give_back`), as filling
        2^n slots per level would cost more than the look-ups save."""
        self.masks, self.off, self.n = cat.masks, off, n
        self.keys: np.ndarray | None = None
        self.table = table
        if n <= COMBINED_KEY_MAX_N:
            self.keys = np.left_shift(segment_ids(off), n) | cat.masks
            if table is not None:
                table[self.keys] = np.arange(1, self.keys.size + 1, dtype=table.dtype)

    #: The spare dense table (all 0) a finished walk hands back for the next one: allocating and
    #: filling n 2^n slots per call cost zoo (8.5 MiB) about 2-3 ms of its 20-25 ms, most of it
    #: page faults on the fresh memory.  At most one table, at most DENSE_KEY_SLOTS int16 or int32
    #: slots (8 or 16 MiB, see :meth:`fit`), is kept; a walk that stops on an exception does not
    #: hand its table back.  Empty slots hold 0
    #: (rows are stored plus one) so that a new table is ``np.zeros``: the allocator hands over
    #: zeroed pages that fault only where the walk touches them, where ``np.full(-1)`` wrote all
    #: of them (1.4-4.6 ms of a first call on zoo, measured in session 17).
    _spare: ClassVar[list[np.ndarray]] = []

    @staticmethod
    def dense_table(n: int) -> np.ndarray | None:
        """An empty dense table for ``n`` variables, or None when ``n * 2^n`` exceeds :data:`DENSE_KEY_SLOTS`."""
        if n * (1 << n) > DENSE_KEY_SLOTS:
            return None
        try:
            spare = _LevelKeys._spare.pop()      # atomic: two threads never get the same table
        except IndexError:
            spare = None
        if spare is not None and spare.size == n << n:
            return spare
        return np.zeros(n << n, dtype=np.int16)

    @staticmethod
    def fit(table: np.ndarray | None, rows: int) -> np.ndarray | None:
        """``table``, or an empty int32 one of its size when a level of ``rows`` rows (stored plus
        one) would not fit in its slots.

        Why int16 first: the look-ups are random gathers from the table, and half the bytes is
        half the cache it needs (wine: 458 KiB instead of 917 KiB, warm calls 17.3 -> 15.2 ms,
        session 19).  A level of 32,767 rows or more (beyond small data) moves to int32 for the
        rest of the walk, and the wider table is the one kept for the next walk.
        """
        if table is None or rows < np.iinfo(table.dtype).max:
            return table
        return np.zeros(table.size, dtype=np.int32)

    @staticmethod
    def give_back(table: np.ndarray | None) -> None:
        """Keep ``table`` (all 0 again) for the next walk, in place of any spare held."""
        if table is not None:
            _LevelKeys._spare[:] = [table]

    def clear(self) -> None:
        """Empty the dense table again (only the slots this level filled)."""
        if self.table is not None and self.keys is not None:
            self.table[self.keys] = 0

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.keys, self.table) if a is not None)

    def find(self, child: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the level holding ``(child[i], masks[i])`` (any shape) and whether each is there
        (the row is meaningless where it is not)."""
        if self.table is not None:
            pos = self.table[np.left_shift(child, self.n) | masks]     # int32: a valid index as it is
            hit = pos > 0
            pos -= 1                                                    # -1 where absent, as below
            return pos, hit
        if self.keys is not None:
            return _lookup(self.keys, np.left_shift(child, self.n) | masks)
        # ``child`` broadcasts against ``masks`` (a column of children for a row of subsets) above;
        # the boolean selections below need it at the masks' shape
        child = np.broadcast_to(child, masks.shape)
        pos = np.zeros(masks.shape, dtype=np.int64)
        hit = np.zeros(masks.shape, dtype=bool)
        for c in distinct_small(child):
            sel = child == c
            a, b = int(self.off[c]), int(self.off[c + 1])
            if b > a:
                p_, h_ = _lookup(self.masks[a:b], masks[sel])
                pos[sel], hit[sel] = p_ + a, h_
        return pos, hit


#: Largest ``n * 2^n`` for which :class:`_LevelKeys` uses a dense table (int16 or int32 slots:
#: 8 or 16 MB at n = 18).
DENSE_KEY_SLOTS = 1 << 22


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
    """The sets of ``prev`` (child ``v``'s level) that :func:`_spent_rows` marks, counted as it
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


def _check_finite(scores: np.ndarray, names: tuple[str, ...], parents: list[tuple[int, ...]],
                  children: Any) -> None:
    bad = np.isnan(scores) | (scores == np.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        c = int(children[i])
        ps = ",".join(names[p] for p in parents[i]) or "{}"
        raise ScoreError(f"local score of {names[c]}<-{ps} is {scores[i]}, not a number below +inf")
