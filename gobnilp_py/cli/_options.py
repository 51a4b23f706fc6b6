"""Flags shared by several subcommands, and turning them into API arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import DataError

__all__ = ["add_data_options", "add_scoring_options", "load_table_or_data", "scoring_kwargs"]


def add_data_options(p: argparse.ArgumentParser) -> None:
    """Input-file flags (a data file or, where accepted, a .jkl score file)."""
    p.add_argument("--no-header", dest="header", action="store_false",
                   help="the CSV file has no header row (variables are named 0..n-1)")
    p.add_argument("--delimiter", default=None, help="CSV field separator (default: guessed)")
    p.add_argument("--arities", default=None,
                   help="declared arities, comma separated in column order (default: observed)")


def add_scoring_options(p: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """Local score and pruning flags."""
    p.add_argument("--score", default="BIC", help="local score: BIC, BDeu or AIC (default BIC)")
    p.add_argument("--ess", type=float, default=1.0, help="BDeu equivalent sample size (default 1)")
    p.add_argument("--palim", type=int, default=None, help="maximum number of parents (default: no limit)")
    p.add_argument("--no-prune", dest="prune", action="store_false",
                   help="keep every parent set up to --palim (slow; for checking)")
    if epsilon:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--bf", type=float, default=None, dest="bayes_factor",
                       help="prune safely for all networks within this Bayes factor of the optimum")
        g.add_argument("--epsilon", type=float, default=None,
                       help="same, as a log-score gap (epsilon = ln BF)")


def scoring_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The scoring keyword arguments named by the flags."""
    kw: dict[str, object] = {"score": args.score, "ess": args.ess, "palim": args.palim, "prune": args.prune}
    for key in ("bayes_factor", "epsilon"):
        if getattr(args, key, None) is not None:
            kw[key] = getattr(args, key)
    return kw


def _arities(args: argparse.Namespace) -> list[int] | None:
    if args.arities is None:
        return None
    try:
        return [int(tok) for tok in args.arities.split(",")]
    except ValueError:
        raise DataError(f"--arities must be comma-separated integers, got {args.arities!r}") from None


def load_table_or_data(args: argparse.Namespace, path: str) -> object:
    """A ScoreTable for a ``.jkl`` path, else a Dataset read with the data flags.

    ``example:NAME`` names a bundled example data set (``example:asia``).
    """
    from ..data import read_data
    from ..scoring.table import ScoreTable

    if path.startswith("example:"):
        from ..examples import example_path

        path = str(example_path(path.split(":", 1)[1]))
    if Path(path).suffix.lower() == ".jkl":
        return ScoreTable.from_jkl(path)
    return read_data(path, header=args.header, delimiter=args.delimiter, arities=_arities(args))
