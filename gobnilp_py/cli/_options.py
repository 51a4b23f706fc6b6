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
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, ParameterError

__all__ = [
    "add_common_options",
    "add_data_options",
    "add_scoring_options",
    "add_time_limit",
    "add_force",
    "load_table_or_data",
    "scoring_kwargs",
    "check_flag",
    "is_table_path",
    "TIME_LIMIT_HELP",
]

#: One wording for --time-limit everywhere.
TIME_LIMIT_HELP = ("wall-clock seconds for the whole command (reading, scoring and search); a result cut short "
                   "is labelled INCOMPLETE")

#: Flags that need data; refused with a .jkl input (attribute -> flag).
_DATA_FLAGS = {"header": "--no-header", "delimiter": "--delimiter", "arities": "--arities"}
_SCORING_FLAGS = {"score": "--score", "ess": "--ess", "palim": "--palim", "prune": "--no-prune",
                  "max_candidates": "--max-candidates"}


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
    p.add_argument("--time-limit", type=float, default=None, help=TIME_LIMIT_HELP)


def add_data_options(p: argparse.ArgumentParser) -> None:
    """Input-file flags (a data file or, where accepted, a .jkl score file)."""
    p.add_argument("--no-header", dest="header", action="store_const", const=False, default=None,
                   help="the CSV file has no header row (variables are named 0..n-1)")
    p.add_argument("--delimiter", default=None, help='CSV field separator: one character or "tab" (default: guessed)')
    p.add_argument("--arities", default=None,
                   help="declared arities, comma separated in column order (default: observed)")


def add_scoring_options(p: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """Local score and pruning flags."""
    p.add_argument("--score", default=None, help="local score: BIC, BDeu or AIC (default BIC)")
    p.add_argument("--ess", type=float, default=None, help="BDeu equivalent sample size (default 1)")
    p.add_argument("--palim", type=int, default=None, help="maximum number of parents (default: no limit)")
    p.add_argument("--no-prune", dest="prune", action="store_const", const=False, default=None,
                   help="keep every parent set up to --palim (slow; for checking)")
    if epsilon:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--bf", type=float, default=None, dest="bayes_factor",
                       help="prune safely for all networks within this Bayes factor of the optimum")
        g.add_argument("--epsilon", type=float, default=None,
                       help="same, as a log-score gap (epsilon = ln BF)")


def check_flag(check: Any, value: Any, flag: str, **kw: Any) -> Any:
    """Run a :mod:`gobnilp_py._validation` check on a flag's value, naming the flag in the message."""
    return check(value, flag, **kw)


def _check_scoring_flags(args: argparse.Namespace) -> None:
    from .._validation import check_bayes_factor_epsilon, check_choice, check_nonnegative_int, check_positive_number

    if getattr(args, "score", None) is not None:
        from ..scoring import SCORES

        args.score = check_choice(args.score, "--score", list(SCORES), fold=True)
    if getattr(args, "ess", None) is not None:
        check_positive_number(args.ess, "--ess")
    if getattr(args, "palim", None) is not None:
        check_nonnegative_int(args.palim, "--palim")
    bf, eps = getattr(args, "bayes_factor", None), getattr(args, "epsilon", None)
    try:
        check_bayes_factor_epsilon(bf, eps)
    except ParameterError as exc:
        name = {"bayes_factor": "--bf", "epsilon": "--epsilon"}.get(exc.name or "", exc.name)
        raise ParameterError(exc.problem, name) from None


def scoring_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The scoring keyword arguments named by the flags (only those given)."""
    kw: dict[str, object] = {}
    for key in ("score", "ess", "palim", "prune", "bayes_factor", "epsilon"):
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

    _check_scoring_flags(args)
    path = _resolve(path)
    if is_table_path(path):
        if not table_ok:
            raise ConfigError(f"{path} is a score table (.jkl); this command needs data")
        given = {**{a: f for a, f in _DATA_FLAGS.items() if getattr(args, a, None) is not None},
                 **{a: f for a, f in _SCORING_FLAGS.items() if getattr(args, a, None) is not None}}
        if given:
            flags = ", ".join(given.values())
            raise ConfigError(f"{flags} cannot apply: {Path(path).name} is a score table (.jkl), already scored; "
                              "these flags need a data file")
        return ScoreTable.from_jkl(path)
    header = True if getattr(args, "header", None) is None else bool(args.header)
    data = read_data(path, header=header, delimiter=args.delimiter, arities=_arities(args))
    if getattr(args, "palim", None) != 0:
        from ..scoring import DEFAULT_MAX_CANDIDATES

        check_width(data.n, palim=getattr(args, "palim", None),
                    max_candidates=getattr(args, "max_candidates", None) or DEFAULT_MAX_CANDIDATES,
                    n_constant=int((data.arities <= 1).sum()), source=path)
    return data
