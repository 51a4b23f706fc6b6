"""Command-line interface: a thin layer over the Python API.

``main(argv) -> int`` parses flags, calls the library and writes outputs.
A user error (any :class:`~gobnilp_py.errors.GobnilpError`, a bad flag) is one
line on stderr and exit code 1 (2 for bad flags); Ctrl-C exits 130; anything
unexpected exits 3 with its traceback saved to a log file whose path is
printed, so users can report it.  Each subcommand lives in its own module and
registers itself through :data:`_COMMANDS`.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import traceback
from collections.abc import Sequence

from .. import __version__
from ..errors import GobnilpError

__all__ = ["main"]

PROG = "gobnilp-py"


class _OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line (and exit 2) instead of a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _build_parser() -> argparse.ArgumentParser:
    from . import _compare, _enumerate, _learn, _run, _score

    parser = _OneLineParser(prog=PROG, description="Exact Bayesian network structure learning on SCIP: "
                            "the optimal network and every network within a Bayes factor of it.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only results and errors")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="library log level (default WARNING)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    for module in (_score, _learn, _enumerate, _run, _compare):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=getattr(logging, args.log_level), format="%(levelname)s: %(message)s")
    if args.quiet:
        logging.getLogger("gobnilp_py").setLevel(logging.ERROR)
    try:
        return int(args.func(args) or 0)
    except GobnilpError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception:  # a bug: keep the traceback, but in a file
        with tempfile.NamedTemporaryFile("w", prefix="gobnilp-py-crash-", suffix=".log", delete=False) as fh:
            traceback.print_exc(file=fh)
        print(f"{PROG}: internal error: {sys.exc_info()[1]!r}; traceback saved to {fh.name}", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
