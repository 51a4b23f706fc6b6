"""Run one job from a validated :class:`~gobnilp_py.app.config.RunConfig` and write its outputs.

The phases, each timed by :class:`~gobnilp_py.progress.Progress`:

1. **reading** the data (or a ``.jkl`` table) and checking the constraints'
   variable names against it: the last of the validation, before any work;
2. **scoring** (jobs ``score``, ``learn``, ``enumerate``): the table is made
   safe for the job's ε exactly as :func:`~gobnilp_py.enumerate_networks`
   would make it, so a run and a direct API call give the same answer
   (``kbest`` scores inside its own driver: at ε≈0 for the optimum, then once more for the certified gap ε_k);
3. **solving**: :func:`~gobnilp_py.learn`, :func:`~gobnilp_py.enumerate_networks`
   or :func:`~gobnilp_py.kbest`;
4. **summarising**: equivalence classes and edge probabilities of a collection;
5. **drawing**: the pictures asked for (networks of more than 60 variables are
   skipped, with the reason in the report);
6. **writing**: every output into a staging folder, moved into place at the end.

Before any work (end of phase 1) the run also refuses what would fail only
at the end: variable names that a requested format cannot hold (model
strings in ``networks.csv``, ``modelstrings.txt`` and the report; GOBNILP
text; ``.jkl``), and a problem too wide to score (:func:`gobnilp_py._validation.check_width`).

Every output says what the result is worth (:func:`gobnilp_py.output.writers.guarantee_of`):
a result cut short (network cap, time limit, interrupt), approximate, from a
table of unknown pruning, or infeasible is labelled in each file.  An
infeasible problem is an answer: its folder is written like any other, every
file saying ``INFEASIBLE``, and the command line exits non-zero.
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._budget import Budget
from .._version import __version__
from .._wording import printable
from .config import RUN_SOURCE, RunConfig, keyword_overrides, load_config
from .formats import FORMATS, PICTURES, SECONDS_PER_NETWORK_VARIABLE, texts_of
from ..progress import Progress
from ..output import pictures as P
from ..output import writers as W
from ..output.folder import StagedFolder
from ..output.report import ReportData, render_html, render_markdown

__all__ = ["RunResult", "run", "run_job", "write_outputs", "phases_for", "phases_of"]

log = logging.getLogger("gobnilp_py")


@dataclass
class RunResult:
    """What a run produced.

    Attributes
    ----------
    config : RunConfig
    result : ScoreTable, Network or CredibleSet
        The job's answer.
    dataset : Dataset or None
        The data read (``None`` for a ``.jkl`` input).
    table : ScoreTable or None
        The score table used (``None`` for ``kbest``, which scores internally).
    timings : dict of phase -> seconds
    files : list of Path
        Files written (empty without an output folder).
    """

    config: RunConfig
    result: Any
    dataset: Any = None
    table: Any = None
    timings: dict[str, float] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

    @property
    def job(self) -> str:
        return self.config.job

    @property
    def guarantee(self) -> str:
        """The result's guarantee line (see :func:`gobnilp_py.output.writers.guarantee_of`)."""
        return W.guarantee_of(self.result)

    def to_dict(self, *, networks: bool = True) -> dict[str, Any]:
        """Everything machine-readable about the run (the ``result.json`` output).

        ``networks=False`` leaves out a collection's ``networks`` and ``classes`` (the file's writer,
        :func:`gobnilp_py.output.writers.result_json`, writes those from arrays).
        """
        cfg = self.config
        d: dict[str, Any] = {
            "gobnilp_py_version": __version__,
            "job": cfg.job,
            **W.labels(self.result),
            "config_file": cfg.source,
            "config": cfg.to_dict(),
            "inputs": _inputs(self),
            "timings": dict(self.timings),
        }
        r = self.result
        if cfg.job == "score":
            d["result"] = W.table_summary(r)
        elif cfg.job == "learn":
            d["result"] = r.to_dict()
        else:
            d["result"] = r.to_dict(networks=networks)
            d.update(W.collection_summary(r))
        for key, value in W.labels(r).items():
            d["result"].setdefault(key, value)
        if cfg.constraints is not None:
            d["constraints"] = cfg.constraints.to_dict()
        d["warnings"] = list(cfg.warnings)
        return W.jsonable(d)


def phases_for(job: str, outputs: tuple[str, ...] = (), *, scoring: bool = True) -> tuple[str, ...]:
    """The phases a job goes through, in order (``drawing`` when ``outputs`` name a picture).

    ``scoring=False``: the run builds no score table (a search under ``[search] order`` from data).
    """
    draw = ("drawing",) if any(o in PICTURES for o in outputs) else ()
    score = ("scoring",) if scoring else ()
    if job == "score":
        return ("reading", "scoring", "writing")
    if job == "kbest":
        return ("reading", "solving", "summarising", *draw, "writing")
    if job == "learn":
        return ("reading", *score, "solving", *draw, "writing")
    return ("reading", *score, "solving", "summarising", *draw, "writing")


def phases_of(cfg: RunConfig) -> tuple[str, ...]:
    """:func:`phases_for` a validated config."""
    return phases_for(cfg.job, cfg.outputs, scoring=not (_ordered(cfg) and not cfg.is_score_table))


def _inputs(res: RunResult) -> dict[str, Any]:
    cfg = res.config
    out: dict[str, Any] = {"data": str(cfg.data_path)}
    ds = res.dataset
    if ds is not None:
        out.update({"rows": int(ds.N), "variables": int(ds.n), "names": list(ds.names)})
        if hasattr(ds, "arities"):
            out.update({"data_kind": "discrete", "arities": [int(a) for a in ds.arities]})
        else:
            out["data_kind"] = "continuous"  # read as measurements, for a Gaussian score
    table = res.table
    params = table.meta.get("score_params") if table is not None else None
    if isinstance(params, dict) and params:
        # the score as it was computed, hyperparameters resolved (BGe's alpha_w = n + 2 by default, ...)
        out["score"] = ", ".join(f"{k} = {v}" if k != "score" else str(v) for k, v in params.items())
    elif res.table is not None:
        out.update({"variables": res.table.n, "names": list(res.table.names), "score table": True})
    return out


def run(config: RunConfig | str | os.PathLike[str], *, progress: Progress | None = None,
        **overrides: Any) -> RunResult:
    """Run a config file (or a :class:`RunConfig`) from Python, as ``gobnilp-py run`` does.

    Keyword overrides name config keys by their Python keyword, the one the
    drivers take (``bayes_factor``, ``header``, ``ess``, ``time_limit``,
    ``params``, ...; also ``job``, ``write``, ``output_dir``, ``path``), or as
    ``section__key`` (:func:`gobnilp_py.app.config.keyword_overrides`).  Their
    errors start with ``run():`` and an unknown one names the closest.

    Examples
    --------
    >>> from gobnilp_py.app.runner import run
    >>> res = run("configs/enumerate.toml", bayes_factor=3)  # doctest: +SKIP
    >>> len(res.result)  # doctest: +SKIP
    """
    if not isinstance(config, RunConfig):
        config = load_config(config, keyword_overrides(overrides), overrides_source=RUN_SOURCE)
    elif overrides:
        raise TypeError("keyword overrides need a config path, not a RunConfig")
    return run_job(config, progress or Progress(phases_of(config), enabled=False))


# ---------------------------------------------------------------- the phases
def _read(cfg: RunConfig) -> tuple[Any, Any]:
    """(dataset, table): one of them is None."""
    from ..data import read_data
    from ..scoring.table import ScoreTable

    if cfg.is_score_table:
        table = ScoreTable.from_jkl(cfg.data_path)
        return None, table
    if cfg.continuous:
        # a Gaussian score: the columns are measurements ([data] header and delimiter apply; the keys that
        # declare discrete states were refused with the score)
        from ..data.continuous import continuous_input

        kw = {k: v for k, v in cfg.read_kwargs().items() if k in ("header", "delimiter")}
        return continuous_input(cfg.data_path, kw, score=str(cfg.values["scoring"]["score"])), None
    return read_data(cfg.data_path, **cfg.read_kwargs()), None


def _score(cfg: RunConfig, ds: Any, progress: Any = None, budget: Budget | None = None) -> Any:
    """A table safe for the job's ε (and the constraints), as ``enumerate_networks`` makes it, within the job's
    time limit (as ``learn`` does, a learn job's scoring leaves :data:`~gobnilp_py.solve.learn.SEARCH_SHARE` of
    it to the search)."""
    from ..solve.approximate import acquire_for
    from ..solve.methods import AUTO, get_method

    budget = budget if budget is not None else Budget(None)
    method = cfg.values["search"].get("method") or AUTO
    if method != AUTO and not get_method(method).exact:
        # an approximate method scores by independence selection (options exact scoring alone takes are dropped)
        exact_only = {"bayes_factor", "epsilon", "prune", "max_candidates", "memory_limit", "lower_bound"}
        options = {k: v for k, v in cfg.scoring_kwargs().items() if k not in exact_only}
        table, _ = acquire_for(method, ds, time_limit=budget.left_for_engine(), epsilon=None,
                               constraints=cfg.constraints, scoring_options=options, progress=progress)
        return table
    from ..solve.inputs import acquire_table
    from ..solve.learn import SEARCH_SHARE

    scoring_budget = budget
    if cfg.job == "learn" and budget.time_limit is not None:
        scoring_budget = budget.ending_before(SEARCH_SHARE * budget.time_limit)
    # One place decides how constraints limit pruning (see StructuralConstraints.unprunable).
    table, _ = acquire_table(ds, epsilon=cfg.epsilon, constraints=cfg.constraints,
                             scoring_options=cfg.scoring_kwargs(), progress=progress,
                             optimum_only=cfg.job == "learn", budget=scoring_budget)
    return table


def _ordered(cfg: RunConfig) -> bool:
    """True for a learn/enumerate run under ``[search] order`` (searched from the data, without a table)."""
    return cfg.values["search"].get("order") is not None and cfg.job in ("learn", "enumerate")


def _solve(cfg: RunConfig, ds: Any, table: Any, progress: Any = None, budget: Budget | None = None) -> Any:
    from ..solve import enumerate_networks, kbest, learn
    from ..solve.methods import WORKER_OPTIONS, takes_workers

    s, lim = cfg.values["search"], cfg.values["limits"]
    common: dict[str, Any] = {"constraints": cfg.constraints, "time_limit": budget,
                              "params": cfg.scip_params or None, "verbose": s["verbose"], **cfg.search_kwargs()}
    source = table if ds is None else ds
    if _ordered(cfg):
        # The fixed-order search reads the data itself; the config already refused what it cannot take.
        from ..solve.ordered import ORDER_SCORING_OPTIONS

        extra = {k: v for k, v in cfg.scoring_kwargs().items() if k in ORDER_SCORING_OPTIONS} if ds is not None else {}
        if cfg.job == "learn":
            return learn(source, **common, **extra)
        return enumerate_networks(source, epsilon=cfg.epsilon, max_networks=lim["max_networks"], progress=progress,
                                  **common, **extra)
    if cfg.job == "learn":
        # a method whose search runs on workers (asobs) takes [scoring] n_jobs/backend/scheduler as scoring did
        workers = {k: v for k, v in cfg.scoring_kwargs().items() if k in WORKER_OPTIONS} \
            if takes_workers(s.get("method")) else {}
        return learn(table, gap=lim["gap"], **common, **workers)
    if cfg.job == "enumerate":
        return enumerate_networks(table, epsilon=cfg.epsilon, max_networks=lim["max_networks"], progress=progress,
                                  **common)
    scoring = cfg.scoring_kwargs() if ds is not None else {}
    return kbest(source, s["k"], **common, **scoring)


def _execute(cfg: RunConfig, progress: Progress, ds: Any, table: Any,
             budget: Budget | None = None) -> tuple[Any, Any]:
    """Scoring and solving: the work, within what the job's ``budget`` (started before reading) leaves of
    the time limit.  Returns (result, table)."""
    if ds is not None and cfg.job != "kbest" and not _ordered(cfg):
        with progress.phase("scoring", f"{cfg.values['scoring']['score']} on {ds.N} rows x {ds.n} variables"
                            + (f", safe for epsilon {cfg.epsilon:.4g}" if cfg.epsilon else "")):
            table = _score(cfg, ds, progress, budget)
        log.info("score table: %d candidate parent sets", len(table))
    if cfg.job == "score":
        return table, table
    detail = {"learn": "the optimal network",
              "enumerate": f"every network within Bayes factor {math.exp(cfg.epsilon):.4g} of the optimum",
              "kbest": f"the {cfg.values['search']['k']} best networks"}[cfg.job]
    with progress.phase("solving", detail):
        result = _solve(cfg, ds, table, progress, budget)
        if cfg.job in ("enumerate", "kbest"):
            _posterior_step(cfg, ds, result, budget)
    return result, table


def _posterior_step(cfg: RunConfig, ds: Any, result: Any, budget: Budget | None) -> None:
    """How much of the posterior the set holds (``[search] posterior``; computed anyway when cheap).

    The runner scores the data itself and hands the driver a table pruned for the gap, so the set's
    provenance is recorded here: the data and the scoring keys (the unpruned table is scored from them).
    """
    from ..solve.set_posterior import posterior_step, source_for

    if ds is not None and not _ordered(cfg):     # (the ordered route reads the data itself, and records them)
        result._posterior_source = source_for(ds, None, cfg.scoring_kwargs(), cfg.constraints)
    posterior_step(result, requested=bool(cfg.values["search"].get("posterior")), budget=budget,
                   memory_limit=None if budget is None else budget.memory_limit)


def check_before_work(cfg: RunConfig, ds: Any, table: Any) -> None:
    """The last checks that need the data: constraint names, names the outputs can hold, the width.

    Raises
    ------
    ConstraintError, ConfigError, ParameterError
        One line, before any scoring or search.
    """
    from .._validation import check_names_for, check_width
    from ..errors import ConfigError, ConstraintError, ParameterError

    names = ds.names if ds is not None else table.names
    if cfg.constraints is not None:
        try:
            cfg.constraints.validate(names)
        except ConstraintError as exc:      # named after the file, as every other config error is
            raise ConstraintError(f"{cfg.source}: [constraints] {exc}") from None
    order = cfg.values["search"].get("order")
    if order is not None and cfg.job in ("learn", "enumerate"):
        from .._validation import check_order_names

        try:
            check_order_names(order, names, None)
        except ParameterError as exc:
            raise ConfigError(f"{cfg.source}: [search] order {exc.problem}") from None
    if cfg.job in ("enumerate", "kbest") and cfg.values["search"].get("posterior"):
        from ..solve.set_posterior import refusal_before_work

        why = refusal_before_work(ds, table, cfg.constraints)
        if why is not None:
            raise ConfigError(f"{cfg.source}: [search] posterior = true cannot be met: {why}")
    for out in cfg.outputs:
        formats = FORMATS[out].name_formats  # the written formats whose separators the names must avoid
        if cfg.job == "score" and out == "report":
            formats = ()
        if formats:
            try:
                check_names_for(names, formats, where=cfg.output_file(out))
            except ParameterError as exc:
                raise ConfigError(f"{cfg.source}: {exc}; or leave {out!r} out of [output] write") from None
    if ds is not None and cfg.continuous:
        from ..scoring.gaussian_scores import bge_option_problems

        sc = cfg.values["scoring"]
        for about, problem in bge_option_problems(ds.n, alpha_w=sc.get("alpha_w"), nu=sc.get("nu")):
            raise ConfigError(f"{cfg.source}: [scoring] {about} {problem}")
    elif ds is not None:
        from ..scoring import DEFAULT_MAX_CANDIDATES

        sc = cfg.values["scoring"]
        mc = sc.get("max_candidates") or DEFAULT_MAX_CANDIDATES
        check_width(ds.n, palim=sc.get("palim") if isinstance(sc.get("palim"), int) else None, max_candidates=mc,
                    n_constant=int((ds.arities <= 1).sum()), source=str(cfg.data_path))


def check_run(cfg: RunConfig) -> Any:
    """What ``run --check`` validates beyond the file: the data (or table) is read and every check
    that needs its names, arities or width runs, as before a real run.  Returns the dataset (or table)."""
    ds, table = _read(cfg)
    check_before_work(cfg, ds, table)
    return ds if ds is not None else table


#: Seconds kept at the end of a time-limited job that writes a folder, whatever it holds (at most a tenth of
#: the limit): the fixed cost of writing (imports, the report's template), about half a second measured.
WRITE_FIXED_SECONDS = 1.0

#: Seconds kept per picture: a picture asked for is skipped (and the report says why) when less time than this
#: is left of the job's time limit before drawing (matplotlib's import alone is about half a second).
DRAW_SECONDS_PER_PICTURE = 1.0


def _per_network(cfg: RunConfig, n_vars: int) -> float:
    """Seconds each listed network will cost after the search (summarising and writing what ``cfg`` asks)."""
    if cfg.job not in ("enumerate", "kbest"):
        return 0.0
    outs = set(cfg.outputs) if cfg.output_dir is not None else set()
    return n_vars * sum(v for k, v in SECONDS_PER_NETWORK_VARIABLE.items() if k in outs or k == "summarising")


def run_job(cfg: RunConfig, progress: Progress, *, started: float | None = None,
            stop_reading: bool = False) -> RunResult:
    """Read, score, solve, summarise and write, one phase after the other, within ``[limits] time_limit``.

    One :class:`~gobnilp_py._budget.Budget`, started before reading, is handed to every phase: reading stops
    when it runs out if ``stop_reading`` (:class:`~gobnilp_py._budget.TimeLimitReached`: there is no result;
    the command line sets it and reports "no result"; from Python the data are read to the end and the
    later phases find the time gone), scoring returns a
    truncated table, the search and the collection their labelled partial answers, and the collection
    leaves each listed network's summarising and writing time; pictures that no longer fit are skipped
    (the report says so).  Writing itself is never cut: a folder is written whole or not at all.
    ``started``: the ``time.perf_counter()`` at which the job's clock started (default: now; the command
    line gives the process's start).
    """
    budget = Budget(cfg.values["limits"]["time_limit"], start=started,
                    memory_limit=cfg.values["scoring"].get("memory_limit"))
    if getattr(progress, "deadline", None) is None:
        progress.deadline = budget.deadline
    with progress.phase("reading", printable(cfg.data_path)):
        if stop_reading:
            with budget.guard("reading"):
                ds, table = _read(cfg)
        else:
            ds, table = _read(cfg)
        check_before_work(cfg, ds, table)
    budget.per_network = _per_network(cfg, (ds if ds is not None else table).n)
    work = budget
    if cfg.output_dir is not None and budget.time_limit is not None:   # writing the folder has a cost of its own
        work = budget.ending_before(min(WRITE_FIXED_SECONDS, 0.1 * budget.time_limit))
    result, table = _execute(cfg, progress, ds, table, work)
    res = RunResult(cfg, result, dataset=ds, table=table)
    if cfg.job in ("enumerate", "kbest"):
        with progress.phase("summarising", f"{len(result)} networks"):
            result.mecs()
            if len(result):
                result.edge_probabilities()
    write_outputs(res, progress, budget)
    return res


def write_outputs(res: RunResult, progress: Progress, budget: Budget | None = None) -> list[Path]:
    """Draw the pictures the config names and write every output into ``[output] dir`` (if any).

    The phases ``drawing`` and ``writing`` of :func:`run_job`; also what
    ``gobnilp-py enumerate -o DIR --write ...`` uses, so both commands write
    the same files.  Sets ``res.files`` and ``res.timings``.  ``budget``: the job's time budget; pictures
    that no longer fit in what it leaves are skipped (the report says why); writing itself is never cut.
    """
    cfg = res.config
    pics = P.PictureSet()
    wanted = tuple(p for p in cfg.outputs if p in PICTURES) if cfg.output_dir is not None else ()
    left = budget.remaining() if budget is not None else None
    if wanted and left is not None and left < DRAW_SECONDS_PER_PICTURE * len(wanted):
        pics.skipped.update(dict.fromkeys(wanted, f"not drawn: the {budget.time_limit:g} s time limit left "
                                                  f"{max(left, 0.0):.1f} s to draw {len(wanted)} picture(s)"))
        wanted = ()
    if wanted:
        with progress.phase("drawing", f"{len(wanted)} picture{'s' if len(wanted) != 1 else ''}"):
            pics = P.draw_pictures(res.result, wanted, format=cfg.values["output"]["picture_format"],
                                   dpi=cfg.values["output"]["dpi"])
    res.timings = dict(progress.timings)
    if cfg.output_dir is not None:
        with progress.phase("writing", printable(cfg.output_dir)):
            res.files = _write(res, pics, progress)
    res.timings = dict(progress.timings)
    return res.files


# -------------------------------------------------------------------- writing


def _results_rows(res: RunResult) -> dict[str, Any]:
    r, job = res.result, res.job
    notes = W.notes_of(r)
    head = {"guarantee": notes[0], **({"caveats": "; ".join(notes[1:])} if notes[1:] else {})}
    if job == "score":
        return {**head, "candidate parent sets": len(r), "score": r.score_name, "pruned for epsilon": r.epsilon}
    how = _method_rows(r)
    if job == "learn":
        return {**head, **how, "status": r.status, "score": r.score, "dual bound": r.dual_bound,
                "arrows": r.n_edges, "model string": r.to_modelstring() if W.networks_of(r) else "none"}
    opt: Any = r.opt if r.opt == r.opt else _unknown_opt(r)
    return {**head, **how, "OPT": opt, "epsilon": r.epsilon, "Bayes factor": r.bayes_factor, "networks": len(r),
            "equivalence classes": r.n_mecs, "complete": r.complete, "reason": r.reason,
            "networks just below the boundary (excluded)": r.near_boundary}


def _unknown_opt(r: Any) -> str:
    """The report's OPT cell when OPT is nan: no network at all, or a search stopped before proving it."""
    if r.infeasible or r.complete:
        return "none (infeasible)" if r.infeasible else "none"
    stats = getattr(r, "stats", None) or {}
    parts = [f"{label} {stats[key]:.6f}" for key, label in (("best_found", "best found"), ("opt_upper_bound", "at most"))
             if stats.get(key) is not None]
    return "not proven" + (f" ({'; '.join(parts)})" if parts else "")


def _method_rows(r: Any) -> dict[str, Any]:
    """Which search method ran, why, and what cross-checked it (report rows)."""
    stats = getattr(r, "stats", None) or {}
    name = getattr(r, "method", None) or stats.get("method")
    if not name:
        return {}
    rows: dict[str, Any] = {"method": name}
    if stats.get("method_reason"):
        rows["method chosen because"] = stats["method_reason"]
    if stats.get("verified_by"):
        rows["verified by"] = stats["verified_by"]
    elif stats.get("verification"):
        rows["verification"] = stats["verification"]
    return rows


def _top_edges(res: RunResult) -> list[tuple[str, str, float]]:
    if res.job not in ("enumerate", "kbest") or not len(res.result):
        return []
    e = res.result.edge_probabilities()
    names = list(e.index)
    mat = e.to_numpy()
    pairs = [(names[i], names[j], float(mat[i, j])) for i in range(len(names)) for j in range(i + 1, len(names))
             if mat[i, j] > 0]
    pairs.sort(key=lambda t: -t[2])
    return pairs


def _write(res: RunResult, pics: P.PictureSet, progress: Progress) -> list[Path]:
    cfg = res.config
    wanted = cfg.outputs
    t0 = time.perf_counter()
    with StagedFolder(cfg.output_dir, force=bool(cfg.values["output"].get("force"))) as folder:
        r = res.result
        for name in wanted:  # each output as asked (the JSON and the report last: they list the others)
            fname = cfg.output_file(name)
            if name in pics.images:
                folder.write_bytes(fname, pics.images[name])
            for path, text in texts_of(name, res, fname).items():
                folder.write_text(path, text)
        if "json" in wanted:
            folder.write_text(cfg.output_file("json"), W.result_json(res))
        if "report" in wanted:
            pic_files = {FORMATS[k].caption: cfg.output_file(k) for k in PICTURES if k in pics.images}
            timings = dict(progress.timings, writing=time.perf_counter() - t0)  # writing: up to this report
            data = ReportData(
                title=cfg.title, job=cfg.job, inputs=_inputs(res), settings=cfg.to_dict(), timings=timings,
                results=_results_rows(res), networks=W.networks_of(r),
                opt=getattr(r, "opt", getattr(r, "score", None)), edges=_top_edges(res),
                files=[f for f in folder.files] + [cfg.output_file("report")], warnings=cfg.warnings,
                version=__version__, result=r if cfg.job != "score" else None,
                picture_notes={FORMATS[k].caption: why for k, why in pics.skipped.items()}, wall=progress.elapsed)
            if cfg.values["output"]["report_format"] == "html":
                text = render_html(data, {FORMATS[k].caption: pics.images[k] for k in PICTURES if k in pics.images},
                                   pic_files)
            else:
                text = render_markdown(data, pic_files)
            folder.write_text(cfg.output_file("report"), text)
        return folder.commit(f"written by gobnilp-py run from {cfg.source}; {W.guarantee_of(r)}")
