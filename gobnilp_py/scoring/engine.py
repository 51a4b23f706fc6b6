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

This module holds :func:`score` (its options, the worker and level-0 set-up, the table and its
``meta``); the walk lives in modules of one job each: :mod:`.walk_state` (the state a walk shares
and its time and memory checks), :mod:`.walk_batches` (the workers' share of ``memory_limit`` and
the batches of children), :mod:`.lattice_walk` with :mod:`.lattice_level` and
:mod:`.lattice_generate` (the numpy walk, its level structures and its candidate generation) and
:mod:`.walk_python` (the reference walk).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .._budget import Budget
from .._memory import format_bytes
from .._validation import (READ_OPTIONS, check_bool, check_lower_bound, check_positive_int, check_positive_number,
                           refuse_unknown_keyword)
from ..data.reader import as_dataset
from ..errors import DataError, ParameterError, ScoreError
from . import pruning as P
from .pruning import resolve_epsilon
from .counts import ParentConfigs
from .local_scores import DirichletScore, LocalScore, PenalisedLL, make_score
from .parallel import Payload, counts_by_sets, set_counting_possible, set_counting_reads_atoms
from .pool import LevelScorer
from .atom_likelihoods import atom_likelihoods
from .global_gap import apply_global_gap
from .options import check_scoring_limits
from .table import ScoreTable
from .gaussian_scores import score_option_conflicts
from .local_scores import is_gaussian_score
from ..data.continuous import continuous_input
from .lattice_walk import _walk_numpy
from .walk_batches import _reserve_workers, _truncate, _walk_in_batches
from .walk_python import _walk_python
from .walk_state import _bytes_per_pair, _check_finite, _Run
# The walk's tunables, importable from here as before the split; each is read in the module named, so
# that is where a benchmark or a test sets it (setting it here changes nothing).
from .lattice_generate import GEN_CHUNK_BYTES, SPENT_CHUNK_ROWS  # noqa: F401
from .lattice_level import COMBINED_KEY_MAX_N, DENSE_KEY_SLOTS  # noqa: F401
from .lattice_walk import PIECE_PAIRS  # noqa: F401
from .walk_state import COUNT_BYTES_PER_CELL, TABLES_UNCHECKED_BYTES  # noqa: F401


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


#: ``ml_ceiling`` charges every mixed atom its own least cost (:mod:`.atom_bounds`, issue 14 item 2);
#: False gives the first version's one ``max(0, -ln a)`` per configuration (kept to measure the gain).
ML_CEILING_ATOM_PENALTY = True


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
        (:data:`~.walk_state.COUNT_BYTES_PER_CELL` a cell) is checked against it before it is
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
        if max_candidates is not None:
            max_candidates = check_positive_int(max_candidates, "max_candidates")
        lower_bound = check_lower_bound(lower_bound, "lower_bound")
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    palim, memory_limit, budget = check_scoring_limits(palim, memory_limit, time_limit, t0)
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
        run.start_measuring()
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
