"""One place that turns what a caller passes into what engines search.

Every driver takes ``data_or_table`` (a :class:`~gobnilp_py.data.Dataset`, a data
file, a DataFrame or array, a :class:`~gobnilp_py.scoring.table.ScoreTable` or a
``.jkl`` file) and ``constraints`` (a
:class:`~gobnilp_py.constraints.StructuralConstraints`, a mapping or a constraints
file).  This module converts both, scores data with pruning made safe for the
task's gap ε and the constraints, checks that a given table supports the gap that
is asked of it, and filters the table by the constraints.

What a table supports (``docs/enumeration.md``): a table pruned safely for ε
holds every family of every network within ε of the optimum, so it answers every
question about gaps up to ε exactly, and nothing beyond.  A table that records
a smaller ε than asked is refused; a table that does not say how it was pruned
(a foreign ``.jkl`` file) is used, and every result computed from it carries the
caveat that it is exact only *with respect to that table*.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._budget import Budget
from .._validation import READ_OPTIONS
from .._wording import UNKNOWN_PRUNING
from ..constraints.structural import InfeasibleConstraints, StructuralConstraints
from ..data.continuous import continuous_input
from ..data.reader import as_dataset
from ..scoring.local_scores import is_gaussian_score
from ..errors import ParameterError, ConstraintError, ScoreError
from ..scoring.table import ScoreTable

__all__ = ["TableInfo", "as_constraints", "is_table_input", "load_table", "acquire_table", "filter_table",
           "EPS_SLACK", "check_scoring_options", "truncation_caveat", "memory_limit_of", "score_provenance",
           "mark_members"]

_log = logging.getLogger(__name__)

#: A table recorded as safe for ε' supports a request for ε when ε <= ε' + EPS_SLACK
#: (ε is written to ``.jkl`` files with 17 significant digits; the slack only absorbs
#: the rounding of ``ln(BF)`` computed twice).
EPS_SLACK = 1e-12


@dataclass
class TableInfo:
    """How the table a result was computed from came about (for the result's labels)."""

    given: bool
    epsilon: float | None
    approximate: bool = False
    time_scoring: float = 0.0
    caveats: list[str] = field(default_factory=list)
    #: why scoring was cut short in this call (``"time_limit"``: the table is truncated, see
    #: :attr:`ScoreTable.incomplete`), else ``None``
    stopped: str | None = None
    #: the Dataset scored (``None`` for a given table): where the unpruned table of a set's posterior
    #: mass comes from (:mod:`.set_posterior`)
    data: Any = None


def as_constraints(constraints: Any) -> StructuralConstraints | None:
    """A :class:`StructuralConstraints` from an object, a mapping or a constraints file (``None`` stays ``None``)."""
    if constraints is None:
        return None
    if isinstance(constraints, StructuralConstraints):
        return constraints
    if isinstance(constraints, Mapping):
        return StructuralConstraints.from_dict(constraints)
    if isinstance(constraints, (str, os.PathLike)):
        return StructuralConstraints.from_file(constraints)
    raise ConstraintError(f"constraints must be a StructuralConstraints, a mapping or a constraints file path, "
                          f"got {type(constraints).__name__}")


def is_table_input(obj: Any) -> bool:
    """True for a :class:`ScoreTable` or a path to a ``.jkl`` score file."""
    return isinstance(obj, ScoreTable) or (
        isinstance(obj, (str, os.PathLike)) and Path(obj).suffix.lower() == ".jkl")


def load_table(obj: Any) -> ScoreTable:
    """The table itself, or the ``.jkl`` file read."""
    return obj if isinstance(obj, ScoreTable) else ScoreTable.from_jkl(obj)


def truncation_caveat(table: ScoreTable) -> str | None:
    """The caveat of a result searched on a table that a time limit truncated (``None`` for any other table)."""
    inc = table.incomplete
    if inc is None:
        return None
    cut = inc.get("truncated") or {}
    sizes = sorted({int(d) for d in cut.values()}) if isinstance(cut, Mapping) else []
    upto = (f"size {sizes[0]}" if len(sizes) <= 1 else f"sizes {sizes[0]}-{sizes[-1]}") if sizes else "the sizes done"
    who = "every variable" if len(cut) >= table.n else f"{len(cut)} of {table.n} variables"
    return (f"scoring stopped by the time limit while scoring parent sets of size {inc.get('stopped_at_size', '?')}: "
            f"{who} kept parent sets only up to {upto}, so networks using larger parent sets were never seen and "
            "nothing is known about the optimum of the data; a network here is the best found among the parent "
            "sets scored")


def _given_table_info(table: ScoreTable, epsilon: float | None, optimum_only: bool = False) -> TableInfo:
    approximate = table.approximate
    info = TableInfo(given=True, epsilon=table.safe_epsilon, approximate=approximate)
    cut = truncation_caveat(table)
    if cut is not None:
        # searched as when this call's own scoring is cut short: the result is INCOMPLETE, with the reason
        info.approximate = False
        info.stopped = str((table.incomplete or {}).get("reason", "time_limit"))
        info.caveats.append(cut)
        return info
    if table.isolated_constants:
        if not optimum_only:
            raise ScoreError(f"the score table gives the constant variables "
                             f"{', '.join(repr(c) for c in table.isolated_constants)} "
                             "no parents and no children (made for learning one optimal network); it cannot "
                             "list or rank networks: rescore the data")
        _note_isolated(table, info)
        return info
    if approximate:
        info.caveats.append("APPROXIMATE: the score table holds only the explored parent sets "
                            f"({table.meta.get('method', 'approximate selection')}); results are optimal or "
                            "complete with respect to those parent sets only")
    safe = table.safe_epsilon
    if safe is None and not approximate:
        gap = f" of at least {epsilon:.6g}" if epsilon is not None else " large enough for the task"
        info.caveats.append(f"{UNKNOWN_PRUNING}: the result is exact with respect "
                            f"to this table, and for the data only if the table was pruned safely for a gap{gap}")
    if epsilon is None:
        return info
    if safe is not None and epsilon > safe + EPS_SLACK:
        bf = math.exp(safe) if safe < 700 else math.inf
        raise ScoreError(f"the score table was pruned for epsilon={safe:.6g} (Bayes factor {bf:.6g}) and may "
                         f"lack parent sets of networks within epsilon={epsilon:.6g}; rescore the data for that gap")
    return info


def check_scoring_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The scoring options checked with the shared vocabulary (:mod:`gobnilp_py._validation`) and normalised.

    The same checks serve the API, the config (``[scoring]``) and the command
    line, so a bad value gets the same words everywhere.  ``backend="serial"``
    means scoring in-process: the scorer's ``"processes"`` backend with
    ``n_jobs=1`` (a different ``n_jobs`` with it is refused).
    """
    from .._validation import check_lower_bound, check_memory_limit, check_n_jobs, check_palim, check_positive_number
    from ..scoring.local_scores import check_score_name
    from ..scoring.parallel import check_backend
    from .request import SearchRequest

    out = dict(options)
    if isinstance(out.get("score"), str):
        out["score"] = check_score_name(out["score"], "score")
    if out.get("ess") is not None:
        out["ess"] = check_positive_number(out["ess"], "ess")
    if out.get("palim") is not None:
        out["palim"] = check_palim(out["palim"], "palim")
    if out.get("n_jobs") is not None:
        out["n_jobs"] = check_n_jobs(out["n_jobs"], "n_jobs")
    if out.get("memory_limit") is not None:
        out["memory_limit"] = check_memory_limit(out["memory_limit"], "memory_limit")
    if out.get("lower_bound") is not None:
        out["lower_bound"] = check_lower_bound(out["lower_bound"], "lower_bound")
    if out.get("backend") is not None:
        out["backend"] = check_backend(out["backend"], "backend")
    SearchRequest.of(out).check()  # the rules between the options, worded for the API
    if out.get("backend") == "serial":
        out["backend"], out["n_jobs"] = "processes", 1
    return out


def acquire_table(data_or_table: Any, *, epsilon: float | None, constraints: StructuralConstraints | None,
                  scoring_options: Mapping[str, Any], progress: Any = None,
                  optimum_only: bool = False, budget: Budget | None = None) -> tuple[ScoreTable, TableInfo]:
    """A table that holds every family the task needs, and how it came about.

    Options of :func:`gobnilp_py.read_data` (``header``, ``delimiter``,
    ``arities``, ``names``) among ``scoring_options`` are used to read data
    given as a file, frame or array.  ``epsilon`` is the gap the task needs (``None``: the task needs no
    particular gap, e.g. a k-best search that checks its own).  Data are scored
    with pruning safe for ``epsilon`` (and ``scoring_options["epsilon"]`` /
    ``["bayes_factor"]`` when ``epsilon`` is None), leaving unpruned the
    variables whose parent sets the constraints need
    (:meth:`StructuralConstraints.unprunable`).  A given table is checked
    against ``epsilon`` (see the module docstring); scoring options are refused
    with it, since they could not be honoured.

    ``optimum_only``: the task needs one optimal network (``learn``), not every
    network of a gap nor a ranking.  Data are then scored without their
    constant columns, which are put back isolated
    (:mod:`gobnilp_py.scoring.constants`; removing their arrows changes no score
    and, under subset-pruning-safe constraints, keeps a network admissible), and
    a given table with isolated constants is accepted.  Without it such a table
    is refused in one line.

    ``budget``: the call's time limit (:class:`~gobnilp_py._budget.Budget`).  Reading a data
    file is counted but not interrupted (it has nothing partial to return: the command line,
    which can report "no result", reads under :meth:`~gobnilp_py._budget.Budget.guard` itself).
    Scoring runs under it and returns a truncated table when it runs out (``info.stopped ==
    "time_limit"``, with its caveat; not ``approximate``: the drivers then label their result
    INCOMPLETE, as for a search cut short).
    """
    read_opts = {k: scoring_options[k] for k in READ_OPTIONS if k in scoring_options}
    scoring_options = {k: v for k, v in scoring_options.items() if k not in READ_OPTIONS}
    if is_table_input(data_or_table):
        if read_opts:
            raise ParameterError(f"data options {sorted(read_opts)} cannot apply to a score table")
        if scoring_options:
            raise ParameterError(f"scoring options {sorted(scoring_options)} need data, not a score table "
                              "(it is already scored)")
        table = load_table(data_or_table)
        if constraints is not None:
            constraints.validate(table.names)
            if table.isolated_constants and not constraints.subset_pruning_safe:
                raise ScoreError("the score table gives its constant variables no parents and no children, which "
                                 "constraints requiring arrows, adjacencies or immoralities (or min_edges) may "
                                 "need: learn from the data instead")
        info = _given_table_info(table, epsilon, optimum_only)
        _note_ties(table, info)
        return table, info
    from .. import scoring

    t0 = time.perf_counter()
    gaussian = is_gaussian_score(scoring_options.get("score"))
    if gaussian:
        # A Gaussian score reads the data as measurements (a float column is discrete data otherwise).
        data: Any = continuous_input(data_or_table, read_opts, score=str(scoring_options["score"]))
    else:
        data = as_dataset(data_or_table, read_opts)
    opts = check_scoring_options(scoring_options)
    if budget is not None and budget.limited:
        opts["time_limit"] = budget
    if epsilon is not None:
        if opts.get("bayes_factor") is not None or opts.get("epsilon") is not None:
            raise ScoreError("give the gap once: bayes_factor/epsilon of the search, not also as scoring options")
        opts["epsilon"] = epsilon
    if progress is not None:
        opts["progress"] = progress
    if constraints is not None:
        constraints.validate(data.names)
        if not constraints.subset_pruning_safe and opts.get("prune", True):
            opts["unpruned"] = sorted(constraints.unprunable(data.names))
    if optimum_only and not gaussian and (constraints is None or constraints.subset_pruning_safe):
        from ..scoring.constants import score_for_optimum

        table = score_for_optimum(data, opts)
    else:
        table = scoring.score(data, **opts)
    cut = truncation_caveat(table)
    info = TableInfo(given=False, epsilon=table.safe_epsilon, approximate=table.approximate and cut is None,
                     time_scoring=time.perf_counter() - t0, stopped="time_limit" if cut is not None else None)
    info.data = data
    if cut is not None:
        info.caveats.append(cut)
    _note_isolated(table, info)
    _note_ties(table, info)
    return table, info


def score_provenance(table: ScoreTable) -> dict[str, Any]:
    """What a result says of the score it was searched under: its name, and for continuous data that they
    are continuous and the score's hyperparameters (``stats["score"]``, ``["data_kind"]``, ``["score_params"]``).

    Why on the result: a network learned with a Gaussian score has linear-Gaussian parameters, not CPTs,
    so :meth:`Network.to_pgmpy` and BIF output read ``data_kind`` to tell the two apart.
    """
    out: dict[str, Any] = {"score": table.score_name} if table.score_name else {}
    if table.meta.get("data_kind") == "continuous":
        out["data_kind"] = "continuous"
        params = table.meta.get("score_params")
        if isinstance(params, Mapping):
            out["score_params"] = {str(k): v for k, v in params.items() if k != "score"}
    return out


def mark_members(result: Any) -> Any:
    """Each listed network of a collection searched on continuous data says so (its ``stats``), as a
    learned network does, so that ``cs.best.to_pgmpy(data)`` fits linear-Gaussian CPDs.  Returns ``result``."""
    if result.stats.get("data_kind") == "continuous":
        mark = {k: result.stats[k] for k in ("score", "data_kind", "score_params") if k in result.stats}
        for net in result.networks:
            net.stats.update(mark)
    return result


def memory_limit_of(budget: Budget | None, scoring_options: Mapping[str, Any]) -> int | None:
    """The memory limit a driver hands on to its search engine: the budget's (a command's), else the
    ``memory_limit`` scoring option the caller gave (checked), else ``None``."""
    if budget is not None and budget.memory_limit is not None:
        return int(budget.memory_limit)
    value = scoring_options.get("memory_limit")
    if value is None:
        return None
    from .._validation import check_memory_limit

    return check_memory_limit(value, "memory_limit")


def _note_isolated(table: ScoreTable, info: TableInfo) -> None:
    """A caveat naming the constant variables a table for an optimum left isolated."""
    if table.isolated_constants:
        names = table.isolated_constants
        shown = ", ".join(repr(c) for c in names)
        what = f"constant variable {shown} is" if len(names) == 1 else f"constant variables {shown} are"
        info.caveats.append(f"{what} shown without parents or children: a constant column never changes a score, "
                            "so each of its placements is equally good")


def _note_ties(table: ScoreTable, info: TableInfo) -> None:
    """A caveat naming each variable whose many candidate parent sets all tie (a constant column's)."""
    for name, count in table.tied_variables():
        info.caveats.append(f"variable {name!r} has {count:,} candidate parent sets that all score the same, as "
                            "a constant column's do: each network comes in that many variants, which the search "
                            "must list and pay for; drop such columns")


def filter_table(table: ScoreTable, constraints: StructuralConstraints | None) -> ScoreTable | None:
    """The table without families no admissible network can use; ``None`` when no network is admissible."""
    if constraints is None:
        return table
    try:
        return constraints.filter_table(table)
    except InfeasibleConstraints as exc:
        _log.info("no admissible network: %s", exc)
        return None
