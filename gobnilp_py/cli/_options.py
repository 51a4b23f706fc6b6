"""Flags shared by several subcommands, and turning them into API arguments.

Conventions (the same in every subcommand):

* ``-k`` is a number of networks, ``-o`` the output (a ``.jkl`` file for
  ``score``, a folder elsewhere), ``--force`` lets ``-o`` write over files
  gobnilp-py did not write, ``-q`` prints results and errors only,
  ``--time-limit`` is wall-clock seconds for the whole command.
* Data and scoring flags default to ``None`` ("not given"), so a flag given
  with a ``.jkl`` input -- which is already scored -- is refused instead of
  silently ignored, as the API and ``run`` do.
* Numeric flags are checked with the package's one validation vocabulary
  (:mod:`gobnilp_py._validation`), named by the flag:
  ``--time-limit must be a number > 0 (seconds), got -1``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._validation import show
from ..errors import ConfigError, DataError, ParameterError
from ..app.formats import FORMATS, OUTPUTS_FOR_JOB
from ..solve.request import SearchRequest, Words

__all__ = [
    "number",
    "add_common_options",
    "add_data_options",
    "add_scoring_options",
    "add_time_limit",
    "add_force",
    "add_method_options",
    "method_kwargs",
    "check_order_flag",
    "load_table_or_data",
    "scoring_kwargs",
    "check_flag",
    "check_method_flags",
    "is_table_path",
    "TIME_LIMIT_HELP",
    "command_budget",
    "read_input",
    "WRITE_SECONDS_PER_NETWORK_VARIABLE",
    "JSON_SECONDS_PER_NETWORK_VARIABLE",
    "WRITE_FIXED_SECONDS",
    "add_write",
    "output_config",
]

#: One wording for --time-limit everywhere.
TIME_LIMIT_HELP = ("wall-clock seconds for the whole command (reading, scoring, search and writing); a result cut "
                   "short is labelled INCOMPLETE; 1e20 or more means no limit")

#: Seconds that writing ``networks.csv`` and ``summary.json`` (``-o``) costs per listed network and variable: a
#: time-limited collection stops listing early enough to leave it (:attr:`gobnilp_py._budget.Budget.per_network`).
#: Measured on wine BF 150 (26,153 networks of 14 variables): 195 + 311 us a network, 36 us per network-variable.
WRITE_SECONDS_PER_NETWORK_VARIABLE = 40e-6
#: The same for ``--json`` on stdout (wine BF 150: 184 us a network, 13 us per network-variable).
JSON_SECONDS_PER_NETWORK_VARIABLE = 15e-6
#: Seconds kept at the end of a time-limited command that writes a folder, whatever it holds (at most a tenth
#: of the limit): writing an empty collection's networks.csv and summary.json took 0.55 s, most of it
#: importing pandas.
WRITE_FIXED_SECONDS = 1.0

#: Flags that need data; refused with a .jkl input (attribute -> flag).
_DATA_FLAGS = {"header": "--no-header", "delimiter": "--delimiter", "arities": "--arities",
               "missing_values": "--missing-values", "states": "--states"}
_SCORING_FLAGS = {"score": "--score", "ess": "--ess", "alpha_mu": "--alpha-mu", "alpha_w": "--alpha-w", "nu": "--nu",
                  "palim": "--palim", "prune": "--no-prune",
                  "max_candidates": "--max-candidates", "memory_limit": "--memory-limit", "n_jobs": "--n-jobs",
                  "backend": "--backend", "scheduler": "--scheduler", "lower_bound": "--lower-bound"}
#: Scoring keyword -> flag, for the keywords the scorer takes (passed on only when given).
#: The flags' words for the rules between parameters (:mod:`gobnilp_py.solve.request`): ``--n-jobs``,
#: ``--backend "serial"`` (a subject), ``--backend dask`` (a setting, as typed).
CLI_WORDS = Words(name=lambda p: {**_DATA_FLAGS, **_SCORING_FLAGS, "state_names": "--states"}.get(
                      p, "--" + p.replace("_", "-")),
                  subject=lambda label, v: f"{label} {show(v)}",
                  setting=lambda p, v: f"{CLI_WORDS.name(p)} {v}")
_SCORING_KEYS = ("score", "ess", "alpha_mu", "alpha_w", "nu", "palim", "prune", "bayes_factor", "epsilon",
                 "memory_limit", "n_jobs", "backend",
                 "scheduler", "lower_bound")


def number(text: str) -> int | float:
    """A number flag's value as written: ``--ess 0`` is ``0``, not ``0.0``.

    Why: the shared checks quote the value they refuse, and the API and a config quote
    ``0`` as ``0``; parsing every flag with ``float`` made the command line alone say
    ``got 0.0``.  Text that is no number is still argparse's error (exit 2).
    """
    try:
        return int(text)
    except ValueError:
        return float(text)


def add_common_options(p: argparse.ArgumentParser) -> None:
    """``-q`` and ``--log-level``, accepted after the subcommand too (``gobnilp-py learn -q d.csv``)."""
    p.add_argument("-q", "--quiet", dest="sub_quiet", action="store_true",
                   help="print only results and errors (no progress, no warnings)")
    p.add_argument("--log-level", dest="sub_log_level", default=None,
                   choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="library log level (default WARNING)")


def add_force(p: argparse.ArgumentParser, what: str = "folder") -> None:
    """``--force``: let ``-o`` write over files gobnilp-py did not write."""
    p.add_argument("--force", action="store_true",
                   help=f"let -o write into a {what} holding files gobnilp-py did not write (overwriting those "
                        "with our names; other files are left alone)" if what == "folder" else
                   "let -o overwrite a file gobnilp-py did not write")


def add_time_limit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-limit", type=number, default=None, help=TIME_LIMIT_HELP)


def command_budget(args: argparse.Namespace) -> Any:
    """The command's :class:`~gobnilp_py._budget.Budget`, started now from ``--time-limit`` (checked)."""
    from .._budget import Budget
    from .._validation import check_time_limit

    return Budget(check_time_limit(getattr(args, "time_limit", None), "--time-limit"),
                  start=getattr(args, "started", None))


def read_input(args: argparse.Namespace, budget: Any, *, table_ok: bool = True) -> object:
    """:func:`load_table_or_data` of ``args.data`` under the command's time limit: when it runs out while
    reading, :class:`~gobnilp_py._budget.TimeLimitReached` (the command line reports "no result")."""
    with budget.guard("reading"):
        return load_table_or_data(args, args.data, table_ok=table_ok)


def add_data_options(p: argparse.ArgumentParser, *, overrides: bool = False) -> None:
    """Input-file flags (a data file or, where accepted, a .jkl score file).

    ``overrides=True`` (``run``): the same flags, said to override the config's ``[data]`` keys, so every
    command reads data with one vocabulary (``--missing-values``, ``--states`` ...).
    """
    def say(key: str, text: str) -> str:
        return f"override [data] {key}: {text}" if overrides else text

    p.add_argument("--no-header", dest="header", action="store_const", const=False, default=None,
                   help=say("header", "the CSV file has no header row (variables are named 0..n-1)"))
    p.add_argument("--delimiter", default=None,
                   help=say("delimiter", 'CSV field separator: one character or "tab" (default: guessed)'))
    p.add_argument("--arities", default=None,
                   help=say("arities", "declared arities, comma separated in column order (default: observed)"))
    p.add_argument("--missing-values", default=None, metavar="TOKENS",
                   help=say("missing_values", "comma-separated texts read as missing, replacing the default "
                            "NA,N/A,NaN,nan,null,NULL,None,? ('' reads those as states; an empty field is always "
                            "missing, and an error)"))
    p.add_argument("--states", action="append", default=None, metavar="VAR=S1,S2,...",
                   help=say("state_names", "declared states of a variable, in order (unobserved ones count, as "
                            "pgmpy's state_names); repeatable"))


def data_overrides(args: argparse.Namespace) -> list[tuple[str, str, object, str]]:
    """The data flags given, as ``(section, key, value, flag)`` config overrides (``run``)."""
    out: list[tuple[str, str, object, str]] = []
    if args.header is not None:
        out.append(("data", "header", args.header, "--no-header"))
    if args.delimiter is not None:
        out.append(("data", "delimiter", args.delimiter, "--delimiter"))
    if args.arities is not None:
        out.append(("data", "arities", _arities(args), "--arities"))
    if args.missing_values is not None:
        out.append(("data", "missing_values", _missing_values(args), "--missing-values"))
    if args.states:
        out.append(("data", "state_names", _states(args), "--states"))
    return out


def _score_help() -> str:
    from ..scoring import score_names
    from ..scoring.local_scores import gaussian_score_names

    return (f"local score: {', '.join(score_names())} for discrete data, {', '.join(gaussian_score_names())} for "
            "continuous data (the file's columns read as measurements) (any case; default BIC)")


def add_scoring_options(p: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """Local score, pruning and scoring-execution flags (the ``[scoring]`` keys of a config)."""
    p.add_argument("--score", default=None, help=_score_help())
    p.add_argument("--ess", type=number, default=None, help="BDeu equivalent sample size (default 1)")
    p.add_argument("--alpha-mu", type=number, default=None, metavar="A",
                   help="--score bge: the prior's alpha_mu > 0 (default 1, as bnlearn's iss.mu)")
    p.add_argument("--alpha-w", type=number, default=None, metavar="A",
                   help="--score bge: the Wishart degrees of freedom alpha_w > n + 1 (default n + 2, as bnlearn's "
                        "iss.w)")
    p.add_argument("--nu", default=None, metavar="M1,M2,...",
                   help="--score bge: the prior mean, one number per variable (default: the sample mean)")
    p.add_argument("--palim", default=None,
                   help='maximum number of parents, or "auto": per variable the parent-count bound provably safe '
                        "for the gap (BIC/AIC; default: no limit)")
    p.add_argument("--no-prune", dest="prune", action="store_const", const=False, default=None,
                   help="keep every parent set up to --palim (slow; for checking)")
    p.add_argument("--memory-limit", type=number, default=None, metavar="BYTES",   # 8e9 as in the config
                   help="bytes scoring may hold in the whole process tree (default 8 GiB), estimated before "
                        "allocating: what would not fit is refused, naming the variable and the memory needed, "
                        "and fewer workers are started when they would not fit; when given, the search engines "
                        "get it too (order graph and DP memory budget, SCIP limits/memory). Reading is not counted")
    p.add_argument("--n-jobs", type=int, default=None,
                   help="scoring worker processes (default: every core; 1: in-process); more than the cores "
                        "this process may use is capped at them, with a warning. --method asobs runs its "
                        "restarts on them too (also from a .jkl)")
    p.add_argument("--backend", default=None,
                   help='where scoring runs: "serial" (in-process), "processes" (local cores, the default) or '
                        '"dask" (a cluster; needs --scheduler and the dask extra; enumerate collecting by DAG '
                        'runs its collection there too)')
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help='Dask scheduler address for --backend dask, e.g. "tcp://host:8786"')
    p.add_argument("--lower-bound", default=None,
                   help='enable the global gap pruning rule: the score of some admissible network, or "auto" (a '
                        "quick heuristic network; ignored with constraints; refused with --order)")
    if epsilon:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--bf", type=number, default=None, dest="bayes_factor",
                       help="prune safely for all networks within this Bayes factor of the optimum")
        g.add_argument("--epsilon", type=number, default=None,
                       help="same, as a log-score gap (epsilon = ln BF)")


def check_flag(check: Any, value: Any, flag: str, **kw: Any) -> Any:
    """Run a :mod:`gobnilp_py._validation` check on a flag's value, naming the flag in the message."""
    return check(value, flag, **kw)


def _int_text(value: str | None) -> int | str | None:
    """A flag's text as an int when it is one (so the shared check sees a number), else unchanged."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return value


def _float_text(value: str | None) -> float | str | None:
    if value is None or value == "auto":
        return value
    try:
        return float(value)
    except ValueError:
        return value


def _check_scoring_flags(args: argparse.Namespace) -> None:
    """The data and scoring flags checked with the shared vocabulary, each message naming its flag."""
    from .._validation import (check_bayes_factor_epsilon, check_delimiter, check_lower_bound, check_memory_limit,
                               check_n_jobs, check_palim, check_positive_number, parse_number_list)
    from ..scoring.local_scores import check_score_name
    from ..scoring.parallel import check_backend

    if getattr(args, "delimiter", None) is not None:
        args.delimiter = check_delimiter(args.delimiter, "--delimiter")
    if getattr(args, "score", None) is not None:
        args.score = check_score_name(args.score, "--score")
    if getattr(args, "ess", None) is not None:
        check_positive_number(args.ess, "--ess")
    if getattr(args, "alpha_mu", None) is not None:
        check_positive_number(args.alpha_mu, "--alpha-mu")
    if getattr(args, "alpha_w", None) is not None:
        check_positive_number(args.alpha_w, "--alpha-w")
    if isinstance(getattr(args, "nu", None), str):
        args.nu = list(parse_number_list(args.nu, "--nu"))
    if getattr(args, "palim", None) is not None:
        args.palim = check_palim(_int_text(args.palim), "--palim")
    if getattr(args, "memory_limit", None) is not None:
        args.memory_limit = check_memory_limit(args.memory_limit, "--memory-limit")
    if getattr(args, "n_jobs", None) is not None:
        check_n_jobs(args.n_jobs, "--n-jobs")
    if getattr(args, "backend", None) is not None:
        args.backend = check_backend(args.backend, "--backend")
    SearchRequest.of({**vars(args), "state_names": getattr(args, "states", None)}).check(CLI_WORDS)  # worded by flag
    if getattr(args, "lower_bound", None) is not None:
        args.lower_bound = check_lower_bound(_float_text(args.lower_bound), "--lower-bound")
    bf, eps = getattr(args, "bayes_factor", None), getattr(args, "epsilon", None)
    try:
        check_bayes_factor_epsilon(bf, eps)
    except ParameterError as exc:
        name = {"bayes_factor": "--bf", "epsilon": "--epsilon"}.get(exc.name or "", exc.name)
        raise ParameterError(exc.problem, name) from None


def scoring_kwargs(args: argparse.Namespace, source: object = None) -> dict[str, object]:
    """The scoring keyword arguments named by the flags (only those given).

    With a score table as ``source``: only ``--n-jobs``, ``--backend``, ``--scheduler``, and only for a
    ``--method`` whose search runs on workers (the others were refused with the table).
    """
    from ..solve.methods import WORKER_OPTIONS, takes_workers

    keys: tuple[str, ...] = _SCORING_KEYS
    if source is not None and hasattr(source, "families"):
        keys = WORKER_OPTIONS if takes_workers(getattr(args, "method", None)) else ()
    kw: dict[str, object] = {}
    for key in keys:
        value = getattr(args, key, None)
        if value is not None:
            kw[key] = value
    return kw


def _arities(args: argparse.Namespace) -> list[int] | None:
    if args.arities is None:
        return None
    try:
        return [int(tok) for tok in args.arities.split(",")]
    except ValueError:
        raise DataError(f"--arities must be comma-separated integers, got {args.arities!r}") from None


def _missing_values(args: argparse.Namespace) -> list[str] | None:
    text = getattr(args, "missing_values", None)
    return None if text is None else [tok for tok in text.split(",") if tok.strip()]


def _states(args: argparse.Namespace) -> dict[str, list[str]] | None:
    given = getattr(args, "states", None)
    if not given:
        return None
    out: dict[str, list[str]] = {}
    for item in given:
        name, eq, states = item.partition("=")
        if not eq or not name.strip() or not states.strip():
            raise DataError(f"--states must look like VAR=S1,S2,..., got {item!r}")
        if name.strip() in out:
            raise DataError(f"--states gives the states of {name.strip()!r} twice")
        listed = [s.strip() for s in states.split(",")]
        if not all(listed):
            raise DataError(f"--states {name.strip()}=...: a state has an empty name, in {item!r}")
        out[name.strip()] = listed
    return out


def is_table_path(path: str) -> bool:
    """True for a ``.jkl`` score file (by suffix)."""
    return Path(path).suffix.lower() == ".jkl"


def _resolve(path: str) -> str:
    if path.startswith("example:"):
        from ..examples import example_path

        try:
            return str(example_path(path.split(":", 1)[1]))
        except Exception:
            raise DataError(f"unknown example {path!r}; available: example:asia") from None
    return path


def load_table_or_data(args: argparse.Namespace, path: str, *, table_ok: bool = True) -> object:
    """A ScoreTable for a ``.jkl`` path, else a Dataset read with the data flags.

    ``example:NAME`` names a bundled example data set (``example:asia``).
    Scoring and data flags are checked first; with a ``.jkl`` input they are
    refused (the table is already scored).  With data, a problem too wide to
    score is refused here, before any scoring.
    """
    from .. import ScoreTable, read_data
    from .._validation import check_width
    from ..solve.methods import WORKER_OPTIONS, takes_workers
    from ..scoring.local_scores import is_gaussian_score

    _check_scoring_flags(args)
    path = _resolve(path)
    if is_table_path(path):
        if not table_ok:
            raise ConfigError(f"{path} is a score table (.jkl); this command needs data")
        given = {**{a: f for a, f in _DATA_FLAGS.items() if getattr(args, a, None) is not None},
                 **{a: f for a, f in _SCORING_FLAGS.items() if getattr(args, a, None) is not None}}
        if takes_workers(getattr(args, "method", None)):  # its search runs on them (the method registry)
            given = {a: f for a, f in given.items() if a not in WORKER_OPTIONS}
        if given:
            flags = ", ".join(given.values())
            raise ConfigError(f"{flags} cannot apply: {Path(path).name} is a score table (.jkl), already scored; "
                              "these flags need a data file")
        return ScoreTable.from_jkl(path)
    header = True if getattr(args, "header", None) is None else bool(args.header)
    if is_gaussian_score(getattr(args, "score", None)):
        # A Gaussian score reads the columns as measurements (the discrete data flags were refused above).
        from ..data.continuous import continuous_input

        from ..scoring.gaussian_scores import bge_option_problems

        cd = continuous_input(path, {"header": header, "delimiter": args.delimiter}, score=args.score)
        for about, problem in bge_option_problems(cd.n, alpha_w=getattr(args, "alpha_w", None),
                                                  nu=getattr(args, "nu", None)):
            raise ParameterError(problem, _SCORING_FLAGS[about])
        return cd
    data = read_data(path, header=header, delimiter=args.delimiter, arities=_arities(args),
                     missing_values=_missing_values(args), state_names=_states(args))
    if getattr(args, "palim", None) != 0:
        from ..scoring import DEFAULT_MAX_CANDIDATES

        palim = getattr(args, "palim", None)
        check_width(data.n, palim=palim if isinstance(palim, int) else None,
                    max_candidates=getattr(args, "max_candidates", None) or DEFAULT_MAX_CANDIDATES,
                    n_constant=int((data.arities <= 1).sum()), source=path)
    return data


# ------------------------------------------------------------------ search flags
_TASK_OF = {"learn": "optimum", "enumerate": "epsilon_set", "kbest": "kbest"}


def add_method_options(p: argparse.ArgumentParser, command: str) -> None:
    """``--method`` (and, where the API takes them, ``--verify``, ``--by``, ``--order``, ``--no-ties``).

    The method names come from the registry (:mod:`gobnilp_py.solve.methods`)
    when the help is shown and when the value is checked, never from a copy.
    """
    from ..solve.methods import method_names

    task = _TASK_OF[command]
    p.add_argument("--method", default=None,
                   help=f"search method: {', '.join(method_names(task))} (default auto: the result says which "
                        "method ran and why)")
    if command in ("learn", "enumerate"):
        p.add_argument("--verify", action="store_true", default=None,
                       help="cross-check with a second exact method; an error if they disagree")
        p.add_argument("--order", default=None, metavar="A,B,C",
                       help="a variable order, every variable once, first to last: search only the networks "
                            "whose arrows follow it (the fixed-order search, exact under the order)")
    if command in ("enumerate", "kbest"):
        from ..solve.methods import BY_CHOICES

        choices = BY_CHOICES[task]
        p.add_argument("--by", default=None,
                       help=f"{' | '.join(choices)}: \"class\" searches one network per Markov equivalence class "
                            "and lists the members (score-equivalent scores, method ilp), \"dag\" every network"
                            + (" (default auto: class when possible)" if "auto" in choices else " (default dag)"))
    if command == "learn":
        p.add_argument("--seed", type=_int_text, default=None, metavar="N",
                       help="--method asobs: seed of its random orders (default 0)")
        p.add_argument("--n-orders", type=_int_text, default=None, metavar="N",
                       help="--method asobs: stop after N random orders (with no --time-limit: deterministic)")
    if command == "kbest":
        p.add_argument("--no-ties", dest="ties", action="store_const", const=False, default=None,
                       help="exactly k networks (ties at the k-th place broken by network key); by default every "
                            "network tied with the k-th is also listed")


def method_kwargs(args: argparse.Namespace, command: str) -> dict[str, object]:
    """The driver keywords named by the search flags (only those given), checked with the shared vocabulary."""
    from .._validation import check_int, parse_order
    from ..solve.methods import check_by, check_method_name as check_method

    task = _TASK_OF[command]
    kw: dict[str, object] = {}
    if getattr(args, "method", None) is not None:
        kw["method"] = check_method(args.method, "--method", task)
    if getattr(args, "by", None) is not None:
        kw["by"] = check_by(args.by, "--by", task)
    if getattr(args, "verify", None):
        kw["verify"] = True
    if getattr(args, "order", None) is not None:
        kw["order"] = parse_order(args.order, "--order")
    if getattr(args, "ties", None) is not None:
        kw["ties"] = args.ties
    if getattr(args, "seed", None) is not None:
        kw["seed"] = check_int(args.seed, "--seed", lo=0)
    if getattr(args, "n_orders", None) is not None:
        kw["n_orders"] = check_int(args.n_orders, "--n-orders", lo=1)
    return kw


def check_method_flags(method: object, given: Mapping[str, object], task: str = "optimum") -> None:
    """An explicit ``--method`` refuses a flag it cannot use, in the command line's words, before reading.

    The rule is the request's (:class:`~gobnilp_py.solve.request.SearchRequest`, which the drivers and the
    config check too); here it is worded by flag (``--gap does not apply to --method ordergraph``).
    """
    options = {k: v for k, v in given.items() if k in ("gap", "seed", "n_orders")}
    SearchRequest(method=None if method is None else str(method), task=task, options=options).check(CLI_WORDS)


def check_order_flag(search: dict[str, object], source: object) -> None:
    """With ``--order``, check it names every variable of the input once (one line naming ``--order``)."""
    if "order" in search:
        from .._validation import check_order_names

        check_order_names(search["order"], source.names, "--order")  # type: ignore[attr-defined]


# ------------------------------------------------------------------ -o DIR --write: run's outputs
WRITE_HELP = ("with -o: comma-separated outputs to write, as 'run' names them ("
              + ", ".join(n for n in OUTPUTS_FOR_JOB["enumerate"] if not FORMATS[n].needs & {"table", "matplotlib"})
              + ", pictures, or all; see docs/configuration.md), with run's file names; default: networks.csv and "
              "summary.json")


def add_write(p: argparse.ArgumentParser) -> None:
    """``--write``: which of ``run``'s outputs ``-o`` writes (the ``[output] write`` key of a config)."""
    p.add_argument("--write", default=None, metavar="NAMES", help=WRITE_HELP)
    p.add_argument("--picture-format", default=None, choices=["png", "svg", "pdf"],
                   help="with --write pictures: image format (default png)")


#: Flag attribute -> (config section, key, flag): the data, scoring and search flags of a command.
_CONFIG_KEYS = {
    "header": ("data", "header", "--no-header"), "delimiter": ("data", "delimiter", "--delimiter"),
    **{a: ("scoring", a, f) for a, f in _SCORING_FLAGS.items()},
    "bayes_factor": ("search", "bayes_factor", "--bf"), "epsilon": ("search", "epsilon", "--epsilon"),
    "k": ("search", "k", "-k"), "posterior": ("search", "posterior", "--posterior"),
    "time_limit": ("limits", "time_limit", "--time-limit"),
    "max_networks": ("limits", "max_networks", "--max-networks"),
    "constraints": ("constraints", "file", "--constraints"), "force": ("output", "force", "--force"),
    "picture_format": ("output", "picture_format", "--picture-format"),
}


def output_config(args: argparse.Namespace, command: str, search: Mapping[str, object]) -> Any:
    """The run config the flags of ``enumerate`` / ``kbest`` describe, for writing ``--write``'s outputs.

    Why a config: ``-o DIR --write NAMES`` writes exactly what ``gobnilp-py run``
    writes for the same job (:func:`gobnilp_py.app.runner.write_outputs`), with
    the same names, files, labels and report, so the flags become the config
    keys they stand for and are checked by the config's vocabulary (a bad
    output name is one line naming ``--write``, before any work).  ``None``
    without ``--write``.
    """
    if getattr(args, "write", None) is None and getattr(args, "picture_format", None) is None:
        return None
    from ..app.config import load_config
    from ..errors import ConfigError
    from ..scoring.local_scores import is_gaussian_score

    if not args.output_dir:
        raise ConfigError("--write and --picture-format need -o DIR (the folder to write into)")
    overrides: list[tuple[str, str, object, str]] = [
        ("data", "path", args.data, "DATA"), ("search", "job", command, command),
        ("output", "dir", args.output_dir, "-o")]
    for attr, (section, key, flag) in _CONFIG_KEYS.items():
        value = getattr(args, attr, None)
        if value is None or (value is False and attr not in ("header", "prune")):  # not given
            continue
        overrides.append((section, key, value, flag))
    if getattr(args, "arities", None) is not None:
        overrides.append(("data", "arities", _arities(args), "--arities"))
    for key, value in search.items():
        overrides.append(("search", key, value, f"--{key.replace('_', '-')}"))
    from_data = not is_table_path(_resolve(args.data))
    if args.write is not None:
        names = [w.strip() for w in args.write.split(",") if w.strip()]
        if "all" in names and from_data:  # every output this command can write: no table kept from data
            every = [x for x in OUTPUTS_FOR_JOB[command] if "table" not in FORMATS[x].needs
                     and not (x == "bif" and is_gaussian_score(getattr(args, "score", None)))]  # no BIF: continuous
            names = [x for n in names for x in (every if n == "all" else [n])]
        overrides.append(("output", "write", names, "--write"))
    cfg = load_config(None, overrides)
    if "jkl" in cfg.outputs and from_data:
        raise ConfigError(f"--write jkl: '{command}' scores the data inside its search and keeps no score table; "
                          "write one with 'gobnilp-py score' or use 'gobnilp-py run'")
    return cfg
