"""Run configurations: TOML files, GOBNILP settings files and command-line overrides -> one :class:`RunConfig`.

A study is one TOML file naming the data, the score, the job (``score``,
``learn``, ``enumerate`` or ``kbest``), the Bayes factor, constraints, limits,
SCIP parameters and the outputs.  Everything is checked *before* any work,
against one declarative table (:data:`SPECS`), so a typo costs a second, not a
two-hour run: an unknown key (with the closest valid one suggested), a wrong
type, a missing file or an impossible combination each give one line naming
the file and key, e.g.::

    configs/x.toml: [search] bayes_factor must be a number >= 1, got "abc"

Layers, lowest first: built-in defaults, a GOBNILP settings file (the TOML key
``settings`` or a ``.set`` file given to ``gobnilp-py run``), the TOML file,
command-line overrides.  A higher layer replaces a value of a lower one; in
particular ``bayes_factor`` and ``epsilon`` replace each other across layers
(the pair is one setting), but giving both in the same layer is an error.

Relative paths resolve against the folder of the file that names them (the
command line's against the working directory), so a config runs the same from
anywhere.

GOBNILP's ``gobnilp/scoring/prunegap``
    GOBNILP prunes a parent set ``Pa2`` when a subset ``Pa1`` has
    ``score(Pa1) >= score(Pa2) - prunegap``.  With ``prunegap = 0`` that is
    ordinary pruning; the ε-BNSL version of GOBNILP sets ``prunegap = -ln(BF)``
    (negative) so that a set is pruned only when a subset beats it by at least
    ln(BF).  Here ``prunegap = -g`` (``g >= 0``) therefore maps to
    ``[search] epsilon = g`` (our pruning is always made safe for the job's ε,
    keeping the boundary case).  A positive ``prunegap`` would prune parent
    sets that beat all their subsets, possibly those of the optimal network,
    so it is rejected rather than silently made exact.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validation import (
    check_bool,
    check_choice,
    check_delimiter,
    check_int,
    check_lower_bound,
    check_memory_limit,
    check_missing_values,
    check_n_jobs,
    check_number,
    check_number_list,
    check_order,
    check_palim,
    check_state_names,
    check_str,
    show,
    suggest,
)
from .._wording import excerpt, printable
from ..scoring.local_scores import check_score_name, is_gaussian_score
from ..scoring.parallel import check_backend
from ..solve.methods import BY_CHOICES, WORKER_OPTIONS, check_by, check_method_name as check_method, takes_workers
from ..errors import ConfigError, ConstraintError, ParameterError
from ..solve.request import SearchRequest, Words
from .formats import DEFAULT_WRITE, FORMATS, JOBS, OUTPUTS, OUTPUTS_FOR_JOB, PICTURES
from ..ilp.settings import ENUMERATION_PARAMS

__all__ = [
    "JOBS",
    "OUTPUTS",
    "PICTURES",
    "OUTPUTS_FOR_JOB",
    "SPECS",
    "Spec",
    "RunConfig",
    "load_config",
    "config_from_dict",
    "read_settings_file",
    "parse_override",
    "keyword_overrides",
    "SETTINGS_MAP",
]

log = logging.getLogger("gobnilp_py")

# The jobs and their outputs are declared once, as data, in :mod:`.formats` (re-exported here).
#: SCIP parameters the enumeration relies on (see ``gobnilp_py.ilp.settings``); a user
#: override would silently lose credible networks, so it is refused for collecting jobs.
_PROTECTED_SCIP = tuple(ENUMERATION_PARAMS)
#: SCIP parameters that have a config key of their own (one place per setting).
_SCIP_HAS_KEY = {"limits/time": "[limits] time_limit", "limits/gap": "[limits] gap"}


#: A value failed its check; ``exc.problem`` completes '<key> ...'.  The checks are the shared
#: ones of :mod:`gobnilp_py._validation`, so the API, this file and the CLI use the same words.
_Bad = ParameterError
_show = show


# ------------------------------------------------------------------ checkers
def _c_str(choices: Sequence[str] | None = None, *, fold: bool = False) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        return check_str(v) if choices is None else check_choice(v, None, choices, fold=fold)
    return check


def _c_bool(v: Any) -> bool:
    return check_bool(v)


def _c_int(lo: int) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        return check_int(v, None, lo=lo)  # type: ignore[return-value]
    return check


def _c_num(lo: float, *, strict: bool = False, unit: str = "") -> Callable[[Any], float]:
    def check(v: Any) -> float:
        return check_number(v, None, lo=lo, lo_strict=strict, unit=unit)  # type: ignore[return-value]
    return check


def _c_delimiter(v: Any) -> str:
    return check_delimiter(v, None)  # type: ignore[return-value]


def _c_arities(v: Any) -> Any:
    if isinstance(v, Mapping):
        for name, a in v.items():
            if isinstance(a, bool) or not isinstance(a, int) or a < 1:
                raise _Bad(f"[{name}] must be an integer >= 1, got {_show(a)}")

        return {str(k): int(a) for k, a in v.items()}
    if isinstance(v, list) and v and all(isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in v):
        return [int(a) for a in v]
    raise _Bad(f"must be a list of integers >= 1 (column order) or a table name = arity, got {_show(v)}")


def _c_missing_values(v: Any) -> list[str]:
    return list(check_missing_values(v, None) or ())


def _c_state_names(v: Any) -> dict[str, list[Any]]:
    return {k: list(x) for k, x in (check_state_names(v, None) or {}).items()}


def _c_write(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _Bad(f"must be a list of output names, got {_show(v)}")
    valid = list(OUTPUTS) + ["pictures", "all"]
    for x in v:
        if x not in valid:
            raise _Bad(f"has unknown output {_show(x)}{suggest(x, valid, quote=True)}; valid: {', '.join(valid)}")
    return tuple(dict.fromkeys(v))


def _c_any(v: Any) -> Any:
    return v


def _unnamed(check: Callable[[Any, str | None], Any]) -> Callable[[Any], Any]:
    """A shared check (:mod:`gobnilp_py._validation`, a registry's) without a name: the config puts its own
    ``file: [section] key`` in front of the same words."""
    return lambda v: check(v, None)


_c_score = _unnamed(check_score_name)
_c_nu = _unnamed(check_number_list)
_c_palim = _unnamed(check_palim)
_c_memory = _unnamed(check_memory_limit)
_c_n_jobs = _unnamed(check_n_jobs)
_c_backend = _unnamed(check_backend)
_c_lower_bound = _unnamed(check_lower_bound)
_c_method = _unnamed(check_method)  # which job can use it is checked with the job (see _build)


def _c_by(v: Any) -> str:
    return check_choice(v, None, BY_CHOICES["epsilon_set"])  # kbest's narrower choice: checked with the job


def _c_order(v: Any) -> list[Any]:
    # Names (or column indices, as in the API); that it lists every variable once is checked once the
    # data are read (gobnilp_py.app.runner.check_before_work), before any work.
    return check_order(v, None, allow_none=False)  # type: ignore[return-value]


def _score_names_text() -> str:
    from ..scoring import score_names

    return ", ".join(f'"{n}"' for n in score_names())


def _method_names_text() -> str:
    from ..solve.methods import method_names

    return ", ".join(f'"{n}"' for n in method_names())


@dataclass(frozen=True)
class Spec:
    """One config key: where it lives, how it is checked, its default and its Python keyword.

    The reference in ``docs/configuration.md`` lists exactly these keys (a
    test checks it), so the table is the single source of truth.
    """

    section: str
    key: str
    check: Callable[[Any], Any]
    default: Any
    type_doc: str
    doc: str
    api: str | None = None
    jobs: tuple[str, ...] | None = None
    is_path: bool = False

    @property
    def label(self) -> str:
        return f"[{self.section}] {self.key}" if self.section else self.key


SPECS: tuple[Spec, ...] = (
    Spec("", "title", _c_str(), None, "string", "Title of the study, shown in the report."),
    Spec("", "settings", _c_str(), None, "path",
         "A GOBNILP settings file read first (this file's keys override it).", is_path=True),
    Spec("data", "path", _c_str(), None, "path",
         'Data file (CSV, GOBNILP .dat) or a .jkl score file; "example:asia" is the bundled example. Required.',
         api="data_or_table", is_path=True),
    Spec("data", "header", _c_bool, True, "bool", "The CSV file's first row holds the variable names.", api="header"),
    Spec("data", "delimiter", _c_delimiter, None, "string",
         'CSV field separator, one character or "tab" (default: guessed from the first line).', api="delimiter"),
    Spec("data", "arities", _c_arities, None, "list of int or table",
         "Declared numbers of states, in column order or by name (default: observed).", api="arities"),
    Spec("data", "missing_values", _c_missing_values, None, "list of string",
         'The texts read as missing, replacing the default ("NA", "N/A", "NaN", "nan", "null", "NULL", "None", '
         '"?"); [] reads those as states. An empty field is always missing, and a missing value is an error.',
         api="missing_values"),
    Spec("data", "state_names", _c_state_names, None, "table of lists",
         "Declared states of variables, name = [states...] in order (as pgmpy's state_names): unobserved ones "
         "count, and change BDeu and BIC.", api="state_names"),
    Spec("scoring", "score", _c_score, "BIC", "string",
         "Local score, one of the registered scores: " + _score_names_text() + " (any case; natural log, higher "
         "is better).", api="score"),
    Spec("scoring", "ess", _c_num(0.0, strict=True), 1.0, "number > 0",
         "BDeu equivalent sample size (GOBNILP's alpha).", api="ess"),
    Spec("scoring", "alpha_mu", _c_num(0.0, strict=True), None, "number > 0",
         'score = "bge" only: the normal-Wishart prior\'s alpha_mu (default 1, as bnlearn\'s iss.mu).',
         api="alpha_mu"),
    Spec("scoring", "alpha_w", _c_num(0.0, strict=True), None, "number > n + 1",
         'score = "bge" only: the Wishart degrees of freedom alpha_w (default n + 2, as bnlearn\'s iss.w).',
         api="alpha_w"),
    Spec("scoring", "nu", _c_nu, None, "list of number",
         'score = "bge" only: the prior mean, one number per variable in column order (default: the sample '
         "mean).", api="nu"),
    Spec("scoring", "palim", _c_palim, None, 'int >= 0 or "auto"',
         'Largest number of parents (default: no limit; the pruning bounds decide). "auto": per variable the '
         "parent-count bound provably safe for the job's epsilon (BIC/AIC; other scores get no limit).",
         api="palim"),
    Spec("scoring", "prune", _c_bool, True, "bool",
         "Prune parent sets safely for the job's epsilon (false keeps every set up to palim: slow).", api="prune"),
    Spec("scoring", "max_candidates", _c_int(1), None, "int >= 1",
         "Abort rather than score more than this many (child, parent set) pairs (default 10,000,000); "
         "a problem whose first level alone exceeds it is refused before scoring.",
         api="max_candidates"),
    Spec("scoring", "memory_limit", _c_memory, None, "number >= 1 (bytes)",
         "Bytes scoring may hold in the whole process tree (default 8 GiB): the lattice walk, each worker "
         "process, each count table; what would not fit is refused before allocating, naming the variable and the "
         "memory needed. When it is given, the search engines get it too (the order graph and DP as their memory "
         "budget, SCIP as limits/memory).", api="memory_limit"),
    Spec("scoring", "n_jobs", _c_n_jobs, None, "int >= 1 or -1",
         "Scoring worker processes (default: every core; 1: in-process); at most the cores available are "
         "started (a larger value is capped, and said). The table is the same whatever it is. Method \"asobs\" "
         "runs its restarts on the same workers (backend and scheduler too), also from a .jkl table.",
         api="n_jobs"),
    Spec("scoring", "backend", _c_backend, None, "string",
         'Where scoring runs: "serial" (in-process), "processes" (local cores; the default) or "dask" (a Dask '
         'cluster at [scoring] scheduler; needs the "dask" extra; an enumerate job then runs its collection there '
         'too, by DAG or by class, split into disjoint parts: docs/enumeration.md).', api="backend"),
    Spec("scoring", "scheduler", _c_str(), None, "string",
         'The Dask scheduler address for backend = "dask", e.g. "tcp://host:8786".', api="scheduler"),
    Spec("scoring", "lower_bound", _c_lower_bound, None, 'number or "auto"',
         "Enables the global gap pruning rule: the score of some network admissible for the job (or \"auto\": a "
         "quick heuristic network, skipped with constraints). Not with [search] order, where it is unsafe.",
         api="lower_bound"),
    Spec("search", "job", _c_str(JOBS), "enumerate", "string",
         'What to do: "score" (a .jkl table), "learn" (the optimum), "enumerate" (every network within '
         'the Bayes factor) or "kbest" (the k best).'),
    Spec("search", "bayes_factor", _c_num(1.0), None, "number >= 1",
         "Networks with score >= OPT - ln(bayes_factor) are collected (enumerate) or kept by pruning (score, learn).",
         api="bayes_factor", jobs=("score", "learn", "enumerate")),
    Spec("search", "epsilon", _c_num(0.0), None, "number >= 0",
         "The same gap on the log scale (epsilon = ln BF); give one of bayes_factor and epsilon.",
         api="epsilon", jobs=("score", "learn", "enumerate")),
    Spec("search", "k", _c_int(1), None, "int >= 1", "Number of networks for job kbest (required there).",
         api="k", jobs=("kbest",)),
    Spec("search", "verbose", _c_bool, False, "bool", "Show SCIP's own log.", api="verbose",
         jobs=("learn", "enumerate", "kbest")),
    Spec("search", "method", _c_method, "auto", "string",
         "Search method, from the registry (gobnilp_py.solve.methods): " + _method_names_text() + ". A method "
         "that cannot perform the job is refused, naming those that can. \"auto\" chooses, and the result "
         "(stdout, result.json, the report) says which method ran and why.", api="method",
         jobs=("learn", "enumerate", "kbest")),
    Spec("search", "by", _c_by, None, "string",
         '"class": search one network per Markov equivalence class and list the members (score-equivalent '
         'scores; the ILP); "dag": every network searched; "auto" (enumerate\'s default): class when possible. '
         'kbest takes "dag" (default) or "class".', api="by", jobs=("enumerate", "kbest")),
    Spec("search", "verify", _c_bool, False, "bool",
         "Cross-check with a second exact method (the same optimum, the same networks): the subset DP or the "
         "order graph first where the problem is small enough for them, else the ILP. A disagreement stops the "
         "run with an error; a cross-check cut short by a limit (the time limit covers it; an interrupt; the "
         "order graph's memory budget) leaves the answer labelled not verified.", api="verify",
         jobs=("learn", "enumerate")),
    Spec("search", "ties", _c_bool, True, "bool",
         "kbest: also list every network tied with the k-th (false: exactly k, ties broken by network key).",
         api="ties", jobs=("kbest",)),
    Spec("search", "posterior", _c_bool, False, "bool",
         "How much of the posterior over all DAGs the set holds (docs/posterior.md): true computes it whatever "
         "it costs (the data scored again without pruning, then the exact sums within the time and memory "
         "limits) and adds the exact edge posteriors beside the set's averages; false computes it only when "
         "cheap (at most 16 variables and 50,000 families to sum over).", api="posterior",
         jobs=("enumerate", "kbest")),
    Spec("search", "order", _c_order, None, "list of string",
         "A variable order, every variable once, first to last: search only the networks whose arrows follow "
         "it (the fixed-order search, exact under the order; method must be auto, no constraints).",
         api="order", jobs=("learn", "enumerate")),
    Spec("search", "seed", _c_int(0), None, "int >= 0",
         'method "asobs" only: seed of its random orders (default 0).', api="seed", jobs=("learn",)),
    Spec("search", "n_orders", _c_int(1), None, "int >= 1",
         'method "asobs" only: stop after this many random orders (without a time limit the run is '
         "deterministic).", api="n_orders", jobs=("learn",)),
    Spec("constraints", "file", _c_str(), None, "path",
         "GOBNILP constraints file (x<-y, x->y, x-y, x->z<-y, ~ negates), merged with the inline keys.",
         api="constraints", is_path=True, jobs=("learn", "enumerate", "kbest")),
    Spec("constraints", "*", _c_any, None, "see docs/constraints.md",
         "Inline structural constraints: required_arrows, forbidden_arrows, required_adjacencies, "
         "forbidden_adjacencies, tiers, max_parents, max_parents_per_variable, min_edges, max_edges, "
         "required_immoralities, forbidden_immoralities.", api="constraints", jobs=("learn", "enumerate", "kbest")),
    Spec("limits", "time_limit", _c_num(0.0, strict=True, unit="seconds"), None, "seconds > 0",
         "Wall-clock seconds for the whole job (reading, scoring, search, summarising, drawing and writing); a "
         "result cut short says so in every output (status / complete = false, guarantee INCOMPLETE): scoring "
         "cut short leaves a truncated table, from which nothing is certified about the optimum. 1e20 or more "
         "means no limit.",
         api="time_limit", jobs=("score", "learn", "enumerate", "kbest")),
    Spec("limits", "max_networks", _c_int(1), 150_000, "int >= 1",
         "Stop collecting after this many networks (the result is then marked incomplete).",
         api="max_networks", jobs=("enumerate",)),
    Spec("limits", "gap", _c_num(0.0), 0.0, "number >= 0",
         "Relative gap at which learn may stop (0 proves optimality).", api="gap", jobs=("learn",)),
    Spec("scip", "*", _c_any, None, "SCIP parameter = value",
         'SCIP parameter overrides, e.g. "separating/maxrounds" = 5 or [scip.limits] nodes = 1000; '
         "names and types are checked against SCIP.", api="params", jobs=("learn", "enumerate", "kbest")),
    Spec("output", "dir", _c_str(), None, "path",
         'Folder for the outputs (default "<config name>-out" beside the config); written as a whole '
         "at the end of the run, never half-written. A folder holding files gobnilp-py did not write is "
         "refused (see force).", is_path=True),
    Spec("output", "force", _c_bool, False, "bool",
         "Write into an output folder that holds files gobnilp-py did not write, overwriting those with the "
         "names of our outputs (other files are left alone), or overwrite such a .jkl file.", api="force"),
    Spec("output", "write", _c_write, None, "list of string",
         "Outputs to write: " + ", ".join(OUTPUTS) + ', "pictures" (all pictures of the job) or "all". '
         "Default: json, report and the job's main file (jkl, gobnilp or csv)."),
    Spec("output", "report_format", _c_str(("markdown", "html")), "markdown", "string",
         'The report: "markdown" (report.md, linked pictures) or "html" (report.html, pictures embedded).'),
    Spec("output", "dpi", _c_int(30), 110, "int >= 30", "Resolution of the pictures."),
    Spec("output", "picture_format", _c_str(("png", "svg", "pdf")), "png", "string",
         'Format of the pictures: "png", "svg" or "pdf" (the file names take its suffix).'),
)

_SPEC: dict[tuple[str, str], Spec] = {(s.section, s.key): s for s in SPECS}
_SECTIONS = ("data", "scoring", "search", "constraints", "limits", "scip", "output")


def _constraint_keys() -> tuple[str, ...]:
    from ..constraints import structural

    return tuple(structural._KEYS)


#: The [scoring] keys, all refused with a score table (it is already scored).
_SCORING_KEYS = ("score", "ess", "alpha_mu", "alpha_w", "nu", "palim", "prune", "max_candidates", "memory_limit",
                 "n_jobs", "backend",
                 "scheduler", "lower_bound")
#: Key -> its section, for the rules between keys (:mod:`gobnilp_py.solve.request`).
_SECTION_OF = {"backend": "scoring", "n_jobs": "scoring", "scheduler": "scoring", "score": "scoring",
               "ess": "scoring", "max_candidates": "scoring", "lower_bound": "scoring", "alpha_mu": "scoring",
               "alpha_w": "scoring", "nu": "scoring", "palim": "scoring", "arities": "data", "missing_values": "data",
               "state_names": "data", "order": "search", "method": "search", "by": "search"}


def _config_name(param: str) -> str:
    """A parameter of the rules as a config names it: ``[scoring] n_jobs``; constraints are a section."""
    return "[constraints]" if param == "constraints" else f"[{_SECTION_OF[param]}] {param}"


#: The config's words for those rules: ``[scoring] n_jobs``, ``[scoring] backend = "serial"``.
CONFIG_WORDS = Words(name=_config_name, subject=lambda label, v: f"{label} = {show(v)}",
                     setting=lambda p, v: f"{_config_name(p)} = {show(v)}")
_TASK_OF_JOB = {"learn": "optimum", "enumerate": "epsilon_set", "kbest": "kbest"}
#: [scoring] keys the fixed-order search honours (it scores from the data itself, without a table).
_ORDER_SCORING = ("score", "ess", "palim", "n_jobs")


def _check_search_choices(values: dict[str, dict[str, Any]], origins: Mapping[str, str],
                          origin_of: Callable[[str, str], "_Origin"], job: str, is_table: bool, cons: Any) -> None:
    """The checks of [search] and [scoring] keys that depend on the job or on each other (``cons``: the
    constraints given, or ``None``)."""
    s, sc = values["search"], values["scoring"]
    task = _TASK_OF_JOB.get(job)

    def err(section: str, key: str, exc: ParameterError) -> ConfigError:
        return origin_of(section, key).error(exc.problem)

    if task is not None and "search.method" in origins:
        try:
            check_method(s["method"], None, task)
        except ParameterError as exc:
            raise err("search", "method", exc) from None
    if job == "kbest" and "search.by" in origins:
        try:
            check_by(s["by"], None, "kbest")
        except ParameterError as exc:
            raise err("search", "by", exc) from None
    ordered = s.get("order") is not None and job in ("learn", "enumerate")
    # ess has a default (1): it counts as given only when written; the data keys name discrete states
    given = {**sc, "ess": sc.get("ess") if "scoring.ess" in origins else None,
             **{k: values["data"].get(k) for k in ("arities", "missing_values", "state_names")},
             "order": s.get("order") if ordered else None,
             "method": s.get("method") if "search.method" in origins else None, "by": s.get("by"),
             "palim": None if is_table else sc.get("palim"), "constraints": cons}
    for v in SearchRequest.of(given).violations():  # the rules between keys, worded by key, after "file:"
        origin = origin_of(_SECTION_OF[v.about], v.about)
        raise ConfigError(f"{origin.source}: {v.message(CONFIG_WORDS, origin.label)}")
    if not ordered:
        return
    if not is_table and is_gaussian_score(sc.get("score")):
        raise origin_of("search", "order").error(
            f"does not apply with [scoring] score = {_show(sc['score'])}: the fixed-order search from data counts "
            "discrete states; score the continuous data with job = \"score\" and search the .jkl under the order")
    if not is_table:
        for key in _SCORING_KEYS:
            if key not in _ORDER_SCORING and f"scoring.{key}" in origins:
                raise origin_of("scoring", key).error(
                    "does not apply with [search] order: the fixed-order search scores each node's parent sets "
                    f"from the data itself (it takes {', '.join(_ORDER_SCORING)})")
        if job == "learn":
            for key in ("bayes_factor", "epsilon"):
                if f"search.{key}" in origins:
                    raise origin_of("search", key).error(
                        "does not apply to job \"learn\" with [search] order (no score table is pruned)")


#: Config keys that only some methods take: (section, key) -> the option's name in the method registry
#: (:data:`gobnilp_py.solve.methods.METHODS`, ``Method.options``), where the API spells it the same way.
_METHOD_OPTIONS = {("scip", "*"): "params", ("search", "verbose"): "verbose", ("limits", "gap"): "gap",
                   ("search", "seed"): "seed", ("search", "n_orders"): "n_orders"}


def _given_as(origin: "_Origin", value: Any) -> str:
    """How the user gave ``value``, in their own spelling: ``--method ordergraph``, ``[search] method = "dp"``."""
    if origin.label.startswith("--set "):
        return f"{origin.label}={value}"
    if origin.label.startswith("-"):
        return f"{origin.label} {value}"
    if origin.label.startswith("["):
        return f"{origin.label} = {_show(value)}"
    return f"{origin.label}={_show(value)}"  # a run() keyword or a settings-file name


def _elsewhere(origin: "_Origin", beside: str) -> str:
    """`` in FILE`` when ``origin`` is another file than ``beside`` (the source the message starts with)."""
    return "" if origin.source in (beside, "command line", RUN_SOURCE) else f" in {origin.source}"


def _method_words(m_origin: "_Origin | None", beside: str) -> Words:
    """The config's words with the method named as the user gave it (``--method dp``, or ``[search] method =
    "dp" in base.toml`` when another file set it): the method may come from elsewhere than the key refused."""
    def setting(p: str, v: str) -> str:
        if p == "method" and m_origin is not None:
            return f"{_given_as(m_origin, v)}{_elsewhere(m_origin, beside)}"
        return CONFIG_WORDS.setting(p, v)

    return Words(name=_config_name, subject=CONFIG_WORDS.subject, setting=setting)


def _check_method_fit(values: dict[str, dict[str, Any]], merged: Mapping[tuple[str, str], tuple[Any, "_Origin"]],
                      job: str, cons: Any) -> None:
    """Refuse, before any work, a method given by name that the run would refuse after scoring.

    Why here: the drivers check a method against its options and the constraints only once the
    table exists, so a config naming ``[scip]`` and ``--method ordergraph`` passed ``--check`` and
    failed minutes later, in the API's words (``option 'params'``) rather than the file's.  What
    depends on the data (a method's variable limit) is still checked by the drivers; what is known
    now (the options given, ``by = "class"``, the constraint kinds) is checked here, naming the key.
    ``method = "auto"`` resolves to a method that takes the options given (``[scip]`` picks the
    ILP), so only the asobs-only keys can conflict with it.
    """
    from ..solve.methods import AUTO, METHODS, is_neutral_option

    task = _TASK_OF_JOB.get(job)
    if task is None:
        return
    s = values["search"]
    method = s.get("method") or AUTO
    m_entry = merged.get(("search", "method"))
    m_origin = m_entry[1] if m_entry is not None else None
    given: dict[str, tuple[str, "_Origin", Any]] = {}  # registry option -> (how the user names it, origin, value)
    for (section, key), (value, origin) in merged.items():
        option = _METHOD_OPTIONS.get((section, key)) or _METHOD_OPTIONS.get((section, "*"))
        # One SCIP parameter set to false still asks for SCIP: only the other keys have a neutral value.
        if option is None or option in given or (section != "scip" and is_neutral_option(option, value)):
            continue
        if section == "scip":  # the section as the user named it: [scip], params (run()), or the one parameter
            label = "[scip]" if origin.label.startswith("[scip]") else origin.label.split("[", 1)[0]
        else:
            label = origin.label
        given[option] = (label, origin, {key: value} if section == "scip" else value)
    ordered = s.get("order") is not None and job in ("learn", "enumerate")
    # which method takes which option: the request's rule (solve/request.py), in the file's words, with the
    # method named as the user gave it (``--method dp`` given on the command line, say)
    for option, (label, origin, value) in given.items():
        if not ordered and not any(option in m.options for m in METHODS.values() if task in m.tasks):
            raise ConfigError(f"{origin.source}: {label} does not apply to job {_show(job)}")
        request = SearchRequest(method=method, task=task, options={option: value},
                                order=s.get("order") if ordered else None)
        for v in request.violations():
            raise ConfigError(f"{origin.source}: {v.message(_method_words(m_origin, origin.source), label)}")
    if method == AUTO or m_origin is None:
        return
    entry = METHODS.get(method)
    if entry is None:
        return
    where = f"{m_origin.source}: {_given_as(m_origin, method)}"
    if s.get("verify") and not entry.exact:
        v_origin = merged[("search", "verify")][1]
        raise ConfigError(f"{where} is approximate: {_given_as(v_origin, True)}{_elsewhere(v_origin, m_origin.source)} "
                          "asks a second exact method to confirm a proven optimum, and this method proves none")
    if s.get("by") == "class" and job in ("enumerate", "kbest") and not entry.class_collection:
        able = [m.name for m in METHODS.values() if m.class_collection and task in m.tasks]
        by_origin = merged[("search", "by")][1]
        by_given = _given_as(by_origin, "class") + _elsewhere(by_origin, m_origin.source)
        raise ConfigError(f"{where} cannot collect by equivalence class ({by_given}); methods that can: "
                          f"{', '.join(_show(a) for a in able)}")
    if cons is not None:
        missing = entry.supports_constraints(cons.kinds())
        if missing:
            able = [m.name for m in METHODS.values() if task in m.tasks and not m.supports_constraints(cons.kinds())]
            raise ConfigError(f"{where} cannot honour the structural constraint {', '.join(sorted(missing))} "
                              f"([constraints]); methods that can: {', '.join(_show(a) for a in able) or 'none'}")


# ------------------------------------------------------------------ origins
@dataclass(frozen=True)
class _Origin:
    """Where a value came from: the file (or 'command line') and how the user named the key there."""

    source: str
    label: str
    base_dir: Path
    lenient: bool = False  # GOBNILP settings: a key that does not fit the job is dropped with a warning

    def error(self, problem: str) -> ConfigError:
        return ConfigError(f"{self.source}: {self.label} {problem}")


@dataclass
class _Layer:
    """Values of one source, keyed (section, key)."""

    values: dict[tuple[str, str], tuple[Any, _Origin]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


# ------------------------------------------------------------ the RunConfig
@dataclass
class RunConfig:
    """A validated run: every value checked, every path absolute, every combination possible.

    Attributes
    ----------
    values : dict of section -> dict of key -> value
        The effective settings, defaults filled in.  ``values["scip"]`` holds
        SCIP parameters, ``values["constraints"]`` the inline constraint keys
        (and ``file``).
    origins : dict of "section.key" -> str
        Where each explicitly set value came from (file or ``command line``).
    source : str
        The config (or settings) file, for messages and the report.
    warnings : list of str
        Settings-file keys that were ignored, and similar.
    """

    values: dict[str, dict[str, Any]]
    origins: dict[str, str]
    source: str
    warnings: list[str] = field(default_factory=list)
    constraints: Any = None

    # -------------------------------------------------------- convenience
    def get(self, section: str, key: str) -> Any:
        return self.values.get(section, {}).get(key)

    @property
    def job(self) -> str:
        return self.values["search"]["job"]

    @property
    def title(self) -> str:
        return self.values[""].get("title") or f"gobnilp-py {self.job}"

    @property
    def data_path(self) -> Path:
        return Path(self.values["data"]["path"])

    @property
    def is_score_table(self) -> bool:
        return self.data_path.suffix.lower() == ".jkl"

    @property
    def output_dir(self) -> Path | None:
        d = self.values["output"].get("dir")
        return None if d is None else Path(d)

    @property
    def outputs(self) -> tuple[str, ...]:
        """Output names to write (empty when no output folder is configured)."""
        if self.output_dir is None:
            return ()
        return tuple(self.values["output"]["write"])

    def output_file(self, name: str) -> str:
        if name == "report" and self.values["output"]["report_format"] == "html":
            return "report.html"
        if name in PICTURES:
            return OUTPUTS[name].rsplit(".", 1)[0] + "." + self.values["output"]["picture_format"]
        return OUTPUTS[name]

    def read_kwargs(self) -> dict[str, Any]:
        """Keywords of :func:`gobnilp_py.read_data`."""
        d = self.values["data"]
        kw = {"header": d["header"], "delimiter": d["delimiter"], "arities": d["arities"]}
        for key in ("missing_values", "state_names"):
            if d.get(key) is not None:
                kw[key] = d[key]
        return kw

    def scoring_kwargs(self) -> dict[str, Any]:
        """Keywords of :func:`gobnilp_py.score` (only those explicitly set when the input is a table)."""
        s = self.values["scoring"]
        kw = {k: s[k] for k in _SCORING_KEYS if s.get(k) is not None}
        if is_gaussian_score(s.get("score")):
            kw.pop("ess", None)  # its default; written, it was refused with the Gaussian score
        return kw

    @property
    def continuous(self) -> bool:
        """Whether the data are read as measurements (a Gaussian score), not as discrete states."""
        return is_gaussian_score(self.values["scoring"].get("score"))

    def search_kwargs(self) -> dict[str, Any]:
        """Keywords of the job's driver from [search]: method, by, verify, ties, order, seed, n_orders (those that apply)."""
        s = self.values["search"]
        kw: dict[str, Any] = {}
        for key in ("method", "by", "verify", "ties", "order", "seed", "n_orders"):
            if s.get(key) is not None and self._applies("search", key):
                kw[key] = s[key]
        return kw

    @property
    def epsilon(self) -> float:
        """The job's ε (0 when neither bayes_factor nor epsilon is set)."""
        s = self.values["search"]
        if s.get("bayes_factor") is not None:
            return math.log(s["bayes_factor"])
        return float(s.get("epsilon") or 0.0)

    @property
    def scip_params(self) -> dict[str, Any]:
        return dict(self.values["scip"])

    def _applies(self, section: str, key: str) -> bool:
        if section == "scoring" and key == "ess" and self.continuous:
            return False  # BDeu's default; a Gaussian score has none (written, it was refused)
        spec = _SPEC.get((section, key)) or _SPEC.get((section, "*"))
        return spec is None or spec.jobs is None or self.job in spec.jobs

    def to_dict(self) -> dict[str, Any]:
        """The effective settings as plain data (paths as strings), for JSON output and the report."""
        out: dict[str, Any] = {k: v for k, v in self.values[""].items() if v is not None}
        for sec in _SECTIONS:
            vals = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.values[sec].items()
                    if v is not None and self._applies(sec, k)}
            if vals:
                out[sec] = vals
        return out


# ------------------------------------------------------------------ parsing
def parse_override(text: str) -> tuple[str, str, Any]:
    """``section.key=value`` (value in TOML syntax, else a bare string) -> (section, key, value)."""
    if "=" not in text:
        raise ConfigError(f"command line: --set {text!r} must look like section.key=value")
    lhs, rhs = text.split("=", 1)
    lhs = lhs.strip()
    if "." in lhs:
        section, key = lhs.split(".", 1)
    else:
        section, key = "", lhs
    rhs = rhs.strip()
    try:
        value = tomllib.loads(f"v = {rhs}")["v"]
    except tomllib.TOMLDecodeError:
        value = rhs
    return section.strip(), key.strip(), value


def _flatten_scip(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten_scip(v, name + "/"))
        else:
            out[name] = v
    return out


def _suggest(word: str, options: Sequence[str]) -> str:
    return suggest(word, options)


def _layer_from_toml(doc: Mapping[str, Any], source: str, base_dir: Path) -> _Layer:
    layer = _Layer()
    top_keys = [s.key for s in SPECS if s.section == ""]
    for name, body in doc.items():
        if name in top_keys:
            layer.values[("", name)] = (body, _Origin(source, name, base_dir))
            continue
        if name not in _SECTIONS:
            if not isinstance(body, Mapping):
                raise ConfigError(f"{source}: unknown key {name}{_suggest(name, top_keys + list(_SECTIONS))}; "
                                  f"top-level keys are {', '.join(top_keys)} and sections "
                                  f"{', '.join('[' + s + ']' for s in _SECTIONS)}")
            raise ConfigError(f"{source}: unknown section [{name}]{_suggest(name, _SECTIONS)}; "
                              f"sections are {', '.join('[' + s + ']' for s in _SECTIONS)}")
        if not isinstance(body, Mapping):
            raise ConfigError(f"{source}: {name} must be a section [{name}], got {_show(body)}")
        items = _flatten_scip(body) if name == "scip" else body
        for key, value in items.items():
            layer.values[(name, key)] = (value, _Origin(source, f"[{name}] {key}", base_dir))
    return layer


def _read_text(path: Path, what: str) -> str:
    """The UTF-8 text of ``path``, or a one-line :class:`ConfigError` naming ``what`` and the path.

    Only a regular file is read (``/dev/zero`` would never end), and an
    encoding problem is named, not shown.
    """
    shown = printable(path)
    try:
        if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            raise ConfigError(f"cannot read {what} {shown}: not a regular file (a device, socket or pipe)")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {shown}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = "UTF-16 text" if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else \
            f"not UTF-8 text (invalid byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        raise ConfigError(f"cannot read {what} {shown}: {kind}; save it as UTF-8") from None


def _read_toml(path: Path) -> dict[str, Any]:
    text = _read_text(path, "config file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


# ------------------------------------------------- GOBNILP settings files
def _neg_prunegap(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _Bad(f"must be a number <= 0, got {_show(v)}")
    if v > 0:
        raise _Bad(f"= {v:g} > 0 would prune parent sets that beat all their subsets (even the optimal "
                   "network's); use prunegap = -ln(BF) <= 0, which maps to [search] epsilon = -prunegap")
    return float(-v)


def _score_type(v: Any) -> Any:
    if isinstance(v, str) and v.lower() == "bge":
        raise _Bad('= "BGe" is a score for continuous data, which gobnilp_py does not support; use "BDeu" or "BIC"')
    return v


#: GOBNILP settings name -> (section, key, converter applied before the key's own check).
SETTINGS_MAP: dict[str, tuple[str, str, Callable[[Any], Any]]] = {
    "gobnilp/scoring/score_type": ("scoring", "score", _score_type),
    "gobnilp/scoring/alpha": ("scoring", "ess", _c_any),
    "gobnilp/scoring/palim": ("scoring", "palim", _c_any),
    "gobnilp/scoring/prune": ("scoring", "prune", _c_any),
    "gobnilp/scoring/prunegap": ("search", "epsilon", _neg_prunegap),
    "gobnilp/scoring/names": ("data", "header", _c_any),
    "gobnilp/delimiter": ("data", "delimiter", _c_any),
    "gobnilp/dagconstraintsfile": ("constraints", "file", _c_any),
    "limits/time": ("limits", "time_limit", _c_any),
    "limits/gap": ("limits", "gap", _c_any),
    "gobnilp/nbns": ("search", "k", _c_any),
    "gobnilp/countsols/sollimit": ("limits", "max_networks", _c_any),
}
#: GOBNILP output-file settings -> our output name (the file name itself is ours, in [output] dir).
_SETTINGS_OUTPUTS = {
    "gobnilp/outputfile/solution": "gobnilp",
    "gobnilp/outputfile/scores": "jkl",
    "gobnilp/outputfile/dot": "dot",
}
#: Settings that are accepted and need nothing (GOBNILP's defaults agree with ours, or they only affect its I/O).
_SETTINGS_NOOP = {"gobnilp/mergedelimiters", "gobnilp/countsols", "gobnilp/countsols/collect"}

_LINE_RE = re.compile(r"^([A-Za-z0-9_/\-.]+)\s*=\s*(.*)$")


def _settings_value(raw: str) -> Any:
    raw = raw.strip()
    if raw.startswith('"'):
        end = raw.find('"', 1)
        if end < 0:
            raise _Bad(f"has an unterminated string {excerpt(raw)}")
        rest = raw[end + 1:].strip()
        if rest and not rest.startswith("#"):
            raise _Bad(f"has text after the closing quote: {excerpt(rest)}")
        return raw[1:end]
    raw = raw.split("#", 1)[0].strip()
    if raw.upper() in ("TRUE", "FALSE"):
        return raw.upper() == "TRUE"
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    if not raw:
        raise _Bad("has no value")
    return raw


#: File suffixes of data and score files (also compressed): given to ``run`` instead of a config, they get a hint.
_DATA_SUFFIXES = (".csv", ".tsv", ".dat", ".data", ".jkl")
_NUMBER_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def _looks_like_data(path: Path, line: str | None = None) -> bool:
    """True when ``path`` (by suffix) or a line of it (separated values, not ``name = value``) looks like data.

    Why: ``gobnilp-py run data.csv`` reads the CSV as a GOBNILP settings file, and the bare
    "cannot read '0,1,0'; expected name = value" does not tell the user they picked the wrong command.
    """
    suffixes = [x.lower() for x in path.suffixes[-2:]]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz"):
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _DATA_SUFFIXES:
        return True
    if line is None or "=" in line:
        return False
    if len(re.split(r"[,;\t]", line)) >= 2:
        return True
    fields = line.split()
    return len(fields) >= 2 and all(_NUMBER_RE.match(f) for f in fields)


def _data_hint(path: Path) -> str:
    return (f"; {path.name} looks like a data file: run takes a config file (TOML or GOBNILP settings); to learn "
            f"from a data file use `gobnilp-py learn {path}`")


def read_settings_file(path: str | Path, *, base_dir: Path | None = None) -> tuple[_Layer, dict[str, Any]]:
    """Parse a GOBNILP settings file into a config layer.

    Returns the layer and the raw ``name -> value`` mapping.  Keys with a
    meaning here are mapped (see :data:`SETTINGS_MAP`); SCIP parameters pass
    through to ``[scip]``; other ``gobnilp/...`` keys are ignored with a
    warning (they concern GOBNILP's own I/O or features we do not have).
    """
    p = Path(path)
    try:
        text = _read_text(p, "settings file")
    except ConfigError as exc:
        if p.is_file() and _looks_like_data(p):  # e.g. a gzipped CSV: not UTF-8
            raise ConfigError(f"{exc}{_data_hint(p)}") from None
        raise
    folder = base_dir or p.resolve().parent
    layer = _Layer()
    raw: dict[str, Any] = {}
    countsols = False
    scip_names = _scip_defaults()
    shown = printable(p)
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        where = f"{shown}:{no}"
        m = _LINE_RE.match(s)
        if not m:
            hint = _data_hint(p) if _looks_like_data(p, s) else ""
            # The first line may belong to a file that is no settings file (a password file named by
            # mistake): quote only a few characters of it, unless it reads as a setting (``a/b ...``).
            limit = 40 if raw or re.match(r"^[A-Za-z0-9_.\-]+/[A-Za-z0-9_/.\-]*(\s|$)", s) else 12
            raise ConfigError(f"{where}: cannot read {excerpt(s, limit)}; expected name = value{hint}")
        name, rhs = m.group(1), m.group(2)
        try:
            value = _settings_value(rhs)
        except _Bad as exc:
            raise ConfigError(f"{where}: {name} {exc}") from None
        raw[name] = value
        origin_label = name
        if name in SETTINGS_MAP:
            section, key, conv = SETTINGS_MAP[name]
            try:
                value = conv(value)
            except _Bad as exc:
                raise ConfigError(f"{where}: {name} {exc}") from None
            if name == "gobnilp/nbns":
                if isinstance(value, int) and not isinstance(value, bool) and value <= 1:
                    continue  # one network: an ordinary learn
                layer.values[("search", "job")] = ("kbest", _Origin(where, name, folder))
            if name == "gobnilp/scoring/palim" and isinstance(value, int) and value < 0:
                continue  # GOBNILP reads a negative limit as none
            layer.values[(section, key)] = (value, _Origin(where, f"{name} ({_SPEC_LABEL(section, key)})", folder,
                                                           lenient=True))
        elif name in _SETTINGS_OUTPUTS:
            if value not in ("", False):
                outs = layer.values.get(("output", "write"), ([], None))[0]
                layer.values[("output", "write")] = (outs + [_SETTINGS_OUTPUTS[name]],
                                                     _Origin(where, f"{name} ([output] write)", folder))
                layer.warnings.append(f"{where}: {name}: written as {OUTPUTS[_SETTINGS_OUTPUTS[name]]} in the "
                                      f"output folder (the file name {value!r} is not used)")
        elif name == "gobnilp/countsols":
            countsols = bool(value)
        elif name in _SETTINGS_NOOP:
            continue
        elif name.startswith("gobnilp/"):
            layer.warnings.append(f"{where}: {name} has no meaning in gobnilp_py and is ignored")
        elif name in scip_names:
            if is_file_param(name):
                raise ConfigError(f"{where}: {name} = {_show(value)} names a file SCIP would write or read "
                                  "outside the output folder; file-naming SCIP parameters are not accepted")
            layer.values[("scip", name)] = (value, _Origin(where, origin_label, folder))
        else:
            layer.warnings.append(f"{where}: {name} is neither a GOBNILP nor a SCIP setting and is ignored")
    if countsols:
        layer.values[("search", "job")] = ("enumerate", _Origin(f"{p}", "gobnilp/countsols", folder))
    elif ("search", "job") not in layer.values:
        layer.values[("search", "job")] = ("learn", _Origin(f"{p}", "(GOBNILP's default job)", folder))
    return layer, raw


def _SPEC_LABEL(section: str, key: str) -> str:  # noqa: N802 - reads as a constant lookup
    return f"[{section}] {key}"


_SCIP_CACHE: dict[str, Any] = {}


def _scip_defaults() -> dict[str, Any]:
    """Every SCIP parameter with its default value (types are checked against these)."""
    if not _SCIP_CACHE:
        import pyscipopt

        m = pyscipopt.Model()
        m.hideOutput()
        _SCIP_CACHE.update(m.getParams())
        m.freeProb()
    return _SCIP_CACHE


# ------------------------------------------------------------ validation
def _merge(layers: Sequence[_Layer]) -> dict[tuple[str, str], tuple[Any, _Origin]]:
    merged: dict[tuple[str, str], tuple[Any, _Origin]] = {}
    pair = (("search", "bayes_factor"), ("search", "epsilon"))
    for layer in layers:
        keys = set(layer.values)
        # Within one layer both halves of the pair is a contradiction; across layers the higher wins.
        if all(k in keys for k in pair):
            origin = layer.values[pair[0]][1]
            other = layer.values[pair[1]][1]
            raise ConfigError(f"{origin.source}: give either {origin.label} or {other.label}, not both "
                              "(epsilon = ln bayes_factor)")
        for k in pair:
            if k in keys:
                for j in pair:
                    merged.pop(j, None)
        for k, v in layer.values.items():
            merged[k] = v
    return merged


def _resolve_path(value: str, origin: _Origin) -> str:
    if value.startswith("example:"):
        from ..examples import example_path

        try:
            return str(example_path(value.split(":", 1)[1]))
        except Exception:
            raise origin.error(f"names unknown example {_show(value)}; available: \"example:asia\"") from None
    p = Path(value).expanduser()
    if not p.is_absolute():
        p = origin.base_dir / p
    return str(p.resolve())


def is_file_param(name: str) -> bool:
    """SCIP parameters naming files are refused (see :mod:`gobnilp_py._scip_params`)."""
    from .._scip_params import is_file_param as _is

    return _is(name)


def _check_scip(merged: Mapping[tuple[str, str], tuple[Any, _Origin]], job: str) -> dict[str, Any]:
    defaults = _scip_defaults()
    out: dict[str, Any] = {}
    for (section, name), (value, origin) in merged.items():
        if section != "scip":
            continue
        if name in _SCIP_HAS_KEY:
            raise origin.error(f"is set by {_SCIP_HAS_KEY[name]}; use that key")
        if is_file_param(name):
            raise origin.error(f"= {_show(value)} names a file SCIP would write or read outside the output "
                               "folder; file-naming SCIP parameters are not accepted")
        if name not in defaults:
            raise origin.error(f"is not a SCIP parameter{_suggest(name, list(defaults))}")
        default = defaults[name]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, str)
        if not ok:
            kind = {"int": "an integer", "float": "a number", "str": "a string"}.get(type(default).__name__,
                                                                                  type(default).__name__)
            raise origin.error(f"must be {kind} (SCIP's default is {_show(default)}), "
                               f"got {_show(value)}")
        if job in ("enumerate", "kbest") and name in _PROTECTED_SCIP:
            raise origin.error(f"cannot be changed for job {_show(job)}: the enumeration relies on SCIP's "
                               "setting it makes (changing it can lose credible networks)")
        out[name] = value
    return out


def _check_constraints(merged: Mapping[tuple[str, str], tuple[Any, _Origin]],
                       cfile: str | None) -> tuple[dict[str, Any], Any]:
    from ..constraints.structural import StructuralConstraints

    keys = _constraint_keys()
    inline: dict[str, Any] = {}
    first: _Origin | None = None
    for (section, key), (value, origin) in merged.items():
        if section != "constraints":
            continue
        first = first or origin
        if key == "file":
            continue
        if key not in keys:
            raise origin.error(f"is not a constraints key{_suggest(key, list(keys) + ['file'])}; "
                               f"keys are {', '.join(keys)}, file")
        try:
            StructuralConstraints.from_dict({key: value})
        except ConstraintError as exc:
            raise origin.error(f"is invalid: {exc}") from None
        inline[key] = value
    cons = StructuralConstraints.from_dict(inline) if inline else None
    file_entry = merged.get(("constraints", "file"))
    if file_entry is not None and cfile is not None:
        origin = file_entry[1]
        try:
            fcons = StructuralConstraints.from_file(cfile)
        except ConstraintError as exc:
            raise origin.error(f"is invalid: {exc}") from None
        cons = fcons if cons is None else cons.merge(fcons)
    if cons is not None and cons.is_empty():
        cons = None
    return inline, cons


def _build(layers: Sequence[_Layer], source: str, default_out: Path | None) -> RunConfig:
    merged = _merge(layers)
    values: dict[str, dict[str, Any]] = {sec: {} for sec in ("",) + _SECTIONS}
    for spec in SPECS:
        if spec.key != "*":
            values[spec.section][spec.key] = spec.default
    origins: dict[str, str] = {}
    # 1. every key known, every value well typed
    for (section, key), (value, origin) in merged.items():
        if section in ("scip", "constraints") and (section, key) != ("constraints", "file"):
            continue
        spec = _SPEC.get((section, key))
        if spec is None:
            options = [s.key for s in SPECS if s.section == section and s.key != "*"]
            raise origin.error(f"is not a known key{_suggest(key, options)}; "
                               f"[{section}] keys are {', '.join(options)}")
        try:
            checked = spec.check(value)
        except _Bad as exc:
            raise origin.error(str(exc)) from None
        if spec.is_path:
            checked = _resolve_path(checked, origin)
        values[section][key] = checked
        origins[f"{section}.{key}"] = origin.source
    job = values["search"]["job"]

    def origin_of(section: str, key: str) -> _Origin:
        return merged[(section, key)][1]

    # 2. required keys, files that must exist
    if values["data"]["path"] is None:
        raise ConfigError(f"{source}: [data] path is required (or give --data FILE)")
    dpath = Path(values["data"]["path"])
    if not dpath.is_file():
        raise origin_of("data", "path").error(f"names a file that does not exist: {dpath}")
    cfile = values["constraints"].get("file")
    if cfile is not None and not Path(cfile).is_file():
        raise origin_of("constraints", "file").error(f"names a file that does not exist: {cfile}")
    # 3. combinations
    for (section, key), (_value, origin) in list(merged.items()):
        spec = _SPEC.get((section, key)) or _SPEC.get((section, "*"))
        if spec is not None and spec.jobs is not None and job not in spec.jobs:
            if origin.lenient:
                layers[-1].warnings.append(f"{origin.source}: {origin.label} does not apply to job "
                                           f"{_show(job)} and is ignored")
                del merged[(section, key)]
                origins.pop(f"{section}.{key}", None)
                values[section][key] = spec.default if spec.key != "*" else values[section].get(key)
                continue
            raise origin.error(f"does not apply to job {_show(job)} (only to "
                               f"{', '.join(_show(j) for j in spec.jobs)})")
    s = values["search"]
    if job == "enumerate" and s["bayes_factor"] is None and s["epsilon"] is None:
        raise ConfigError(f"{source}: job \"enumerate\" needs [search] bayes_factor (>= 1) or epsilon (>= 0)")
    if job == "kbest" and s["k"] is None:
        raise ConfigError(f"{source}: job \"kbest\" needs [search] k (the number of networks)")
    is_table = dpath.suffix.lower() == ".jkl"
    if is_table:
        if job == "score":
            raise origin_of("data", "path").error("is a score table (.jkl); job \"score\" needs data")
        workers = takes_workers(values["search"].get("method"))   # its search takes n_jobs/backend/scheduler
        for key in _SCORING_KEYS:
            if f"scoring.{key}" in origins and not (workers and key in WORKER_OPTIONS):
                raise origin_of("scoring", key).error(
                    f"cannot apply: [data] path {dpath.name} is a score table, already scored")
        for key in ("header", "delimiter", "arities", "missing_values", "state_names"):
            if f"data.{key}" in origins:
                raise origin_of("data", key).error(f"cannot apply: [data] path {dpath.name} is a score table")
    if values["scoring"]["palim"] is None and not values["scoring"]["prune"] and not is_table and job != "score":
        if "scoring.prune" in origins:
            raise origin_of("scoring", "prune").error(
                "= false needs [scoring] palim: without pruning or a parent limit every parent set is scored")
    inline, cons = _check_constraints(merged, cfile)
    _check_search_choices(values, origins, origin_of, job, is_table, cons)
    scip = _check_scip(merged, job)
    _check_method_fit(values, merged, job, cons)
    values["scip"] = scip
    values["constraints"] = dict(inline, **({"file": cfile} if cfile else {}))
    # 4. outputs
    out = values["output"]
    wants_output = any(k[0] == "output" for k in merged)
    if out["dir"] is None and wants_output and default_out is not None:
        out["dir"] = str(default_out)
    if out["write"] is None:
        out["write"] = DEFAULT_WRITE[job]
    allowed = OUTPUTS_FOR_JOB[job]
    expanded: list[str] = []
    for name in out["write"]:
        if name == "all":
            expanded.extend(allowed)
        elif name == "pictures":
            if not any(p in allowed for p in PICTURES):
                raise origin_of("output", "write").error(
                    f"asks for \"pictures\", which job {_show(job)} does not produce; it can write "
                    f"{', '.join(allowed)}")
            expanded.extend(p for p in PICTURES if p in allowed)
        elif name not in allowed:
            raise origin_of("output", "write").error(
                f"asks for {_show(name)}, which job {_show(job)} does not produce; it can write "
                f"{', '.join(allowed)}")
        else:
            expanded.append(name)
    if is_gaussian_score(values["scoring"].get("score")) and "bif" in expanded:
        if "bif" in out["write"]:
            from ..interop import BIF_CONTINUOUS

            raise origin_of("output", "write").error(f"asks for \"bif\" with [scoring] score = "
                                                     f"{_show(values['scoring']['score'])}: {BIF_CONTINUOUS}")
        expanded = [x for x in expanded if x != "bif"]  # "all": every output this job can write from these data
    out["write"] = tuple(dict.fromkeys(expanded))
    for name in out["write"]:
        needs = FORMATS[name].needs
        if "table" in needs and s.get("order") is not None and not is_table:
            raise origin_of("search", "order").error(
                f"searches the data without a score table, so there is no {_show(name)} to write; leave it out of "
                "[output] write")
        if "dataset" in needs and str(values["data"]["path"]).lower().endswith(".jkl"):
            raise origin_of("output", "write").error(
                f"asks for {_show(name)}, whose probability tables are fitted from the data; a .jkl score table "
                "has none")
    if out["dir"] is not None:
        _check_output_dir(Path(out["dir"]), merged.get(("output", "dir"), (None, None))[1], source,
                          force=bool(out.get("force")))
        if any(FORMATS[p].picture for p in out["write"]):
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise origin_of("output", "write").error(
                    "asks for pictures, which need matplotlib: pip install matplotlib") from None
    warnings = [w for layer in layers for w in layer.warnings]
    return RunConfig(values=values, origins=origins, source=source, warnings=warnings, constraints=cons)


#: Marker file in an output folder written by gobnilp-py (the name lives in :mod:`gobnilp_py.output.folder`).
RUN_MARKER = ".gobnilp-run"


def _check_output_dir(folder: Path, origin: _Origin | None, source: str, *, force: bool = False) -> None:
    from ..errors import OutputError
    from ..output.folder import check_output_folder

    where = origin.source if origin else source
    label = origin.label if origin else "output folder"
    try:
        check_output_folder(folder, force=force)
    except OutputError as exc:
        raise OutputError(f"{where}: {label}: {exc}") from None


# ------------------------------------------------------------- entry points
Override = tuple[str, str, Any]


#: The origin word of the keyword overrides of :func:`gobnilp_py.run` (the command line's is "command line").
RUN_SOURCE = "run()"


def _cli_layer(overrides: Sequence[Override | tuple[str, str, Any, str]], cwd: Path,
               source: str = "command line") -> _Layer:
    layer = _Layer()
    for item in overrides:
        section, key, value = item[0], item[1], item[2]
        flag = item[3] if len(item) > 3 else f"--set {section + '.' if section else ''}{key}"
        if section not in ("",) + _SECTIONS:
            raise ConfigError(f"{source}: {flag}: unknown section {section!r}{_suggest(section, _SECTIONS)}")
        if section == "scip" and isinstance(value, Mapping):
            for k, v in _flatten_scip(value, key + "/" if key else "").items():
                # run(params={...}): name each parameter, as a config's [scip] lines are named
                label = flag if key else f"{flag}[{k!r}]"
                layer.values[(section, k)] = (v, _Origin(source, label, cwd))
            continue
        layer.values[(section, key)] = (value, _Origin(source, flag, cwd))
    return layer


def _run_keywords() -> dict[str, tuple[str, str]]:
    """Keyword of :func:`gobnilp_py.run` -> (section, key): every config key, under its Python name.

    The names come from :data:`SPECS` (a key's ``api`` name, the one the drivers take, e.g.
    ``header``, ``ess``, ``params``), so ``run(cfg, header=False)`` works wherever
    ``learn(data, header=False)`` does; keys without a Python name keep the config's
    (``job``, ``write``, ...), the output folder is ``output_dir`` and the data file ``path``.
    """
    out: dict[str, tuple[str, str]] = {"path": ("data", "path"), "job": ("search", "job"),
                                       "output_dir": ("output", "dir"), "constraints": ("constraints", "*"),
                                       "params": ("scip", "")}
    for spec in SPECS:
        if spec.key == "*" or (spec.section, spec.key) in (("data", "path"), ("constraints", "file")):
            continue
        name = spec.api or spec.key
        out.setdefault(name, (spec.section, spec.key))
    return out


def keyword_overrides(kw: Mapping[str, Any]) -> list[tuple[str, str, Any, str]]:
    """The keyword overrides of :func:`gobnilp_py.run` as config overrides (section, key, value, label).

    A keyword is a config key's Python name (``bayes_factor``, ``header``, ``time_limit``,
    ``output_dir``, ...; see :func:`_run_keywords`) or ``section__key`` (``scip__limits/nodes``).
    ``params`` is a mapping of SCIP parameters; ``constraints`` a constraints file or a mapping
    of inline constraint keys.  An unknown keyword is refused with the closest one suggested,
    as a config file's unknown key is.
    """
    names = _run_keywords()
    out: list[tuple[str, str, Any, str]] = []
    for name, value in kw.items():
        if "__" in name:
            section, key = name.split("__", 1)
        elif name in names:
            section, key = names[name]
        else:
            spelled = sorted(names) + [f"{s.section}__{s.key}" for s in SPECS if s.section and s.key != "*"]
            raise ConfigError(f"{RUN_SOURCE}: unknown keyword {name!r}{_suggest(name, spelled)}; give a config key "
                              "by its Python name (bayes_factor, header, time_limit, output_dir, ...) or as "
                              "section__key (e.g. data__header, scip__limits/nodes)")
        if (section, key) == ("scip", "") and not isinstance(value, Mapping):
            raise ConfigError(f"{RUN_SOURCE}: {name} must be a mapping of SCIP parameters "
                              f"(e.g. {{\"limits/nodes\": 100}}), got {_show(value)}")
        if (section, key) == ("constraints", "*"):
            if isinstance(value, Mapping):
                out.extend(("constraints", str(k), v, f"{name}[{k!r}]") for k, v in value.items())
            else:
                out.append(("constraints", "file", str(value) if isinstance(value, os.PathLike) else value, name))
            continue
        if section == "output" and key == "dir" and isinstance(value, (str, os.PathLike)):
            value = str(Path(value).resolve())
        out.append((section, key, value, name))
    return out


def load_config(path: str | Path | None, overrides: Sequence[Override] = (), *,
                data: str | None = None, cwd: str | Path | None = None,
                overrides_source: str = "command line") -> RunConfig:
    """Read and validate a run config.

    Parameters
    ----------
    path : path or None
        A TOML config, or a GOBNILP settings file (any other suffix, usually
        ``.set``).  ``None`` runs from overrides alone.
    overrides : sequence of (section, key, value) or (section, key, value, flag)
        Command-line values, applied last; ``flag`` names them in messages.
    data : str, optional
        ``--data``: the data file (overrides ``[data] path``).
    cwd : path, optional
        Folder against which command-line paths resolve (default: the working directory).
    overrides_source : str
        Where the overrides came from, the first word of their messages: ``"command line"``,
        or ``"run()"`` for :func:`gobnilp_py.run`'s keywords (nothing came from a command line there).

    Raises
    ------
    ConfigError
        One line naming the file and the key at fault.
    """
    cwd = Path(cwd) if cwd is not None else Path.cwd()
    layers: list[_Layer] = []
    source = "command line"
    default_out: Path | None = None
    if path is not None:
        p = Path(path)
        source = str(p)
        folder = p.resolve().parent
        default_out = folder / f"{p.stem}-out"
        if p.suffix.lower() == ".toml":
            doc = _read_toml(p)
            toml_layer = _layer_from_toml(doc, source, folder)
            settings = toml_layer.values.get(("", "settings"))
            if settings is not None:
                value, origin = settings
                if not isinstance(value, str):
                    raise origin.error(f"must be a path string, got {_show(value)}")
                spath = Path(_resolve_path(value, origin))
                if not spath.is_file():
                    raise origin.error(f"names a file that does not exist: {spath}")
                layers.append(read_settings_file(spath)[0])
            layers.append(toml_layer)
        else:
            if not p.is_file():
                raise ConfigError(f"config file not found: {p}")
            layers.append(read_settings_file(p)[0])
    extra = list(overrides)
    if data is not None:
        extra.insert(0, ("data", "path", data, "--data"))
    layers.append(_cli_layer(extra, cwd, overrides_source))
    cfg = _build(layers, source, default_out)
    for w in cfg.warnings:
        log.warning("%s", w)
    return cfg


def config_from_dict(d: Mapping[str, Any], *, base_dir: str | Path | None = None,
                     source: str = "<config>") -> RunConfig:
    """Validate a config given as a mapping (the parsed TOML), paths relative to ``base_dir``."""
    folder = Path(base_dir) if base_dir is not None else Path.cwd()
    layer = _layer_from_toml(d, source, folder)
    layers = []
    if ("", "settings") in layer.values:
        value, origin = layer.values[("", "settings")]
        layers.append(read_settings_file(_resolve_path(str(value), origin))[0])
    layers.append(layer)
    return _build(layers, source, folder / "gobnilp-out")
