"""The approximate route of the drivers: tables by independence selection, and the labels of approximate results.

An approximate method of the registry (``Method.exact`` false; today ``"asobs"``)
is meant for hundreds or thousands of variables, where the exact scorer's
pruned table is out of reach.  Given data, :func:`selection_table` scores them
by independence selection (:mod:`gobnilp_py.scoring.selection`, Scanagatta et
al., NIPS 2015) within a share of the caller's time limit, instead of
:func:`gobnilp_py.scoring.score`.  The table holds exact scores of the explored
parent sets only, so it is *approximate* (``table.approximate``).

:func:`label_network` puts on a learned network what it is worth:

* from an approximate table (whatever the method): ``approximate=True`` and the
  caveat that the network is optimal, at best, *with respect to the explored
  parent sets* (an exact method's ``"optimal"`` status is then optimality over
  that table, not over the data);
* from an approximate method: ``approximate=True`` and the caveat that the
  search proves nothing, not even with respect to the table (ASOBS returns the
  best DAG it met over the random orders it tried).

The guarantee line of such a network starts with ``APPROXIMATE:``
(:attr:`gobnilp_py.network.Network.guarantee`), and every writer, the report
and the command line show it with the caveats.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import READ_OPTIONS
from ..data.reader import as_dataset
from ..errors import ParameterError
from ..network import Network
from ..scoring.table import ScoreTable
from .inputs import TableInfo, acquire_table, is_table_input

__all__ = ["SELECTION_SHARE", "SELECTION_OPTIONS", "acquire_for", "selection_table", "label_network", "table_caveat",
           "split_workers"]

_log = logging.getLogger(__name__)

#: Share of the caller's time limit given to independence selection; the search gets the rest.
#: BLIP's r.blip wrapper gives 80% to parent-set identification, and our measurements
#: (docs/asobs.md) found the selection, not the search, to be where time pays.
SELECTION_SHARE = 0.8

#: Scoring options that independence selection understands (the others are refused in one line).
#: ``backend`` and ``scheduler`` are shared with the search (:func:`split_workers`): the selection runs
#: on ``n_jobs`` local processes (one with ``backend="serial"``), or with ``backend="dask"`` on the
#: search's Dask cluster, one task per variable.
SELECTION_OPTIONS = ("score", "ess", "palim", "candidate_limit", "max_evaluations", "time_per_variable", "n_jobs",
                     "backend", "scheduler")


def split_workers(data_or_table: Any, scoring_options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """For a method whose search runs on workers (``Method.workers``): the scoring options left, and the
    search's ``n_jobs``/``backend``/``scheduler`` (checked with scoring's words and rules).

    Why: ``n_jobs``, ``backend`` and ``scheduler`` mean the same for the search as for scoring, so one
    setting serves both (``backend="serial"``: everything in-process).  Given a score table there is no
    scoring, and they are the search's alone (an exact method refuses them there: they need data).
    ``n_jobs`` not given: every usable core, as scoring does.
    """
    from .._validation import check_n_jobs
    from ..scoring.parallel import check_backend
    from .request import SearchRequest

    opts = dict(scoring_options)
    n_jobs, backend, scheduler = opts.get("n_jobs"), opts.get("backend"), opts.get("scheduler")
    if n_jobs is not None:
        n_jobs = check_n_jobs(n_jobs, "n_jobs")
    if backend is not None:
        backend = check_backend(backend, "backend")
    SearchRequest(backend=backend, n_jobs=n_jobs, scheduler=scheduler).check()
    if backend == "serial":
        backend, n_jobs = "processes", 1
    workers = {"n_jobs": n_jobs, "backend": backend or "processes", "scheduler": scheduler}
    for key in ("backend", "scheduler"):
        opts.pop(key, None)
    if is_table_input(data_or_table):
        opts.pop("n_jobs", None)
    else:
        if n_jobs is not None:
            opts["n_jobs"] = n_jobs
        if workers["backend"] == "dask":     # the data's independence selection runs on the same cluster
            opts["backend"], opts["scheduler"] = "dask", scheduler
    return opts, workers


#: How :mod:`.inputs` starts the caveat of a given approximate table.
_GIVEN_TABLE_CAVEAT = "APPROXIMATE: the score table holds only the explored parent sets"


def table_caveat(table: ScoreTable) -> str:
    """The caveat of a result computed from an approximate table (one line)."""
    how = table.meta.get("method", "approximate selection")
    sel = table.meta.get("selection") or {}
    stopped = sum(1 for s in sel.values() if isinstance(s, Mapping) and not s.get("exhausted", False))
    detail = f"; {stopped} of {len(sel)} variables stopped on a budget" if sel else ""
    return (f"the score table holds only the parent sets explored by {how}{detail}: a result is optimal at best "
            "with respect to the explored parent sets, and networks using other parent sets may score higher")


def acquire_for(method: str, data_or_table: Any, *, time_limit: float | None, epsilon: float | None,
                constraints: Any, scoring_options: Mapping[str, Any], progress: Any = None,
                optimum_only: bool = False, budget: Any = None) -> tuple[ScoreTable, TableInfo]:
    """The table ``method`` searches: by independence selection for an approximate method given data,
    else :func:`~gobnilp_py.solve.inputs.acquire_table` (exact scoring, or the given table).

    ``method="auto"`` is always exact (:func:`~gobnilp_py.solve.methods.choose_method`).
    ``optimum_only``: see :func:`~gobnilp_py.solve.inputs.acquire_table` (``learn`` sets it).
    ``budget``: the exact route's time limit for reading and scoring (see ``acquire_table``); the
    selection's share is taken of ``time_limit``.
    """
    from .methods import AUTO, get_method

    if method != AUTO and not get_method(method).exact and not is_table_input(data_or_table):
        return selection_table(data_or_table, time_limit=time_limit, constraints=constraints,
                               scoring_options=scoring_options, progress=progress)
    return acquire_table(data_or_table, epsilon=epsilon, constraints=constraints, scoring_options=scoring_options,
                         progress=progress, optimum_only=optimum_only, budget=budget)


def _refuse_gaussian(score: Any) -> None:
    """Independence selection counts discrete data: a Gaussian score is refused before the data are read."""
    from ..scoring.local_scores import is_gaussian_score

    if is_gaussian_score(score):
        raise ParameterError(f"{score!r} is a Gaussian score, and approximate methods score data by independence "
                             "selection, which counts discrete states: score the continuous data first "
                             "(gobnilp_py.score(data, score=...)) and give the approximate method that table", "score")


def selection_table(data: Any, *, time_limit: float | None, constraints: Any = None,
                    scoring_options: Mapping[str, Any] | None = None,
                    progress: Any = None) -> tuple[ScoreTable, TableInfo]:
    """An approximate table of ``data`` by independence selection, and how it came about.

    Parameters
    ----------
    data : Dataset, path, DataFrame or array
        Read with the :data:`~gobnilp_py._validation.READ_OPTIONS` among ``scoring_options``.
    time_limit : float or None
        The caller's whole time limit; the selection gets :data:`SELECTION_SHARE` of it.
    constraints : StructuralConstraints, optional
        Validated against the data; for every variable with required parents
        ``R`` the family ``R`` itself is scored and added when the selection
        did not keep it, so that filtering by the constraints never leaves a
        variable without a family because of what the selection happened to
        explore (an "infeasible" answer must mean the constraints themselves
        admit no network of the table).
    scoring_options : mapping
        :data:`SELECTION_OPTIONS` (and the read options); any other scoring
        option (``epsilon``, ``bayes_factor``, ``prune``, ...) is refused: it
        belongs to exact scoring.
    """
    from ..scoring.selection import independence_selection

    opts = dict(scoring_options or {})
    _refuse_gaussian(opts.get("score"))
    read_opts = {k: opts.pop(k) for k in READ_OPTIONS if k in opts}
    if opts.get("backend") == "serial":
        opts.pop("backend")
        opts["n_jobs"] = 1
    foreign = sorted(k for k in opts if k not in SELECTION_OPTIONS)
    if foreign:
        raise ParameterError(f"scoring option {foreign[0]!r} does not apply to independence selection, which "
                             f"approximate methods score data with (it takes {', '.join(SELECTION_OPTIONS)})")
    t0 = time.perf_counter()
    ds = as_dataset(data, read_opts)
    if constraints is not None:
        constraints.validate(ds.names)
    if time_limit is not None and opts.get("time_per_variable") is None:
        opts["time_limit"] = SELECTION_SHARE * float(time_limit)
    table = independence_selection(ds, progress=progress, **opts)
    if constraints is not None and getattr(constraints, "required_arrows", None):
        table = _with_required_families(table, ds, constraints, opts.get("score", "BIC"), opts.get("ess", 1.0))
    info = TableInfo(given=False, epsilon=None, approximate=True, time_scoring=time.perf_counter() - t0,
                     caveats=[table_caveat(table)])
    return table, info


def _with_required_families(table: ScoreTable, ds: Any, constraints: Any, score: Any, ess: float) -> ScoreTable:
    """``table`` plus, for each child with required parents ``R``, the family ``R`` (scored exactly) if missing."""
    from ..scoring.counts import ParentConfigs
    from ..scoring.local_scores import make_score

    index = {v: i for i, v in enumerate(table.names)}
    required: dict[int, set[int]] = {}
    for p, c in constraints.required_arrows:
        required.setdefault(index[c], set()).add(index[p])
    sc = make_score(score, ds, ess=ess)
    pc = ParentConfigs(ds)
    families = [list(f) for f in table.families]
    added = 0
    for child, parents in required.items():
        ps = tuple(sorted(parents))
        if any(fam == ps for fam, _ in families[child]):
            continue
        res = sc.batch(pc.family_counts(ps, np.array([child], dtype=np.int64)))
        families[child].append((ps, float(res.scores[0])))
        families[child].sort(key=lambda f: -f[1])
        added += 1
    if not added:
        return table
    meta = dict(table.meta)
    meta["required_families_added"] = added
    return ScoreTable(table.names, families, epsilon=None, score_name=table.score_name, meta=meta)


def label_network(net: Network, info: TableInfo, method: Any, *, orders: int | None = None) -> Network:
    """Mark ``net`` approximate when its table or its method is, with one caveat for each reason."""
    caveats = list(net.caveats)
    for c in info.caveats:
        if not method.exact and c.startswith(_GIVEN_TABLE_CAVEAT):
            # the drivers' caveat of a given approximate table says "results are optimal ... with respect
            # to those parent sets": true of an exact method only
            c = ("the score table holds only the explored parent sets: networks using other parent sets may "
                 "score higher")
        if c not in caveats:
            caveats.append(c)
    if info.approximate and not any("explored parent sets" in c for c in caveats):
        caveats.append("the score table is approximate: a result is optimal at best with respect to the "
                       "explored parent sets")
    if not method.exact:
        tried = f" over {orders} random orders" if orders else ""
        caveats.append(f"method {method.name!r} is a heuristic search{tried}: the best network it met, not proven "
                       "optimal, not even with respect to the score table")
    net.approximate = bool(net.approximate or info.approximate or not method.exact)
    net.caveats = tuple(caveats)
    return net
