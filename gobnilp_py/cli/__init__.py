"""Command-line interface: a thin layer over the Python API.

``main(argv) -> int`` parses flags, calls the library and writes outputs.

* A user error (any :class:`~gobnilp_py.errors.GobnilpError`, an OS error such
  as a full disk) is one line on stderr and exit 1; a bad flag exit 2.
* An infeasible problem is an answer: the labelled result on stdout, one line
  ``gobnilp-py: infeasible: ...`` on stderr, exit 1.
* Ctrl-C exits 130 and SIGTERM 143.  During a search the engine stops and
  returns what it found; the command writes that labelled partial result
  first.  Anywhere else the command stops at once, leaving no file behind.
* A closed stdout (``... --json | head -c 10``) exits 141 quietly.
* Anything unexpected exits 3 with its traceback saved to a log file whose
  path is printed, so users can report it.
* Every error, warning and log line passes through
  :func:`gobnilp_py._wording.printable`: a name, value or path holding a
  control character (an ESC sequence, a line break) is shown escaped, so it
  can neither drive the terminal nor split a one-line error in two.

``-q`` prints results and errors only (no progress lines, log messages or
warnings).  Each subcommand lives in its own module and registers itself.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .._version import __version__
from .._wording import printable
from ..errors import GobnilpError
from ._results import PROG

__all__ = ["main"]


class _OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line (and exit 2) instead of a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sub = self.prog[len(PROG):].strip()
        where = f"{sub}: " if sub else ""
        self.exit(2, f"{PROG}: error: {where}{message} (see '{self.prog} --help')\n")


def _build_parser() -> argparse.ArgumentParser:
    from . import _compare, _enumerate, _learn, _run, _score

    parser = _OneLineParser(prog=PROG, description="Exact Bayesian network structure learning on SCIP: "
                            "the optimal network and every network within a Bayes factor of it.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only results and errors (no progress, no warnings)")
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="library log level (default WARNING)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    for module in (_score, _learn, _enumerate, _run, _compare):
        module.register(sub)
    return parser


class _PrintableFormatter(logging.Formatter):
    """Log lines with control characters escaped (a variable name or path read from a file may hold any)."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


@contextmanager
def _console(quiet: bool, level: str | None) -> Iterator[None]:
    """Logging and warnings as one ``WARNING: ...`` line each on stderr (none with ``-q``), restored after."""
    pkg = logging.getLogger("gobnilp_py")
    old_level = pkg.level
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_PrintableFormatter("%(levelname)s: %(message)s"))
    pkg.addHandler(handler)
    pkg.setLevel(logging.ERROR if quiet and level is None else getattr(logging, level or "WARNING"))
    old_show = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file=None,
             line=None) -> None:
        if not quiet:
            print(f"WARNING: {printable(message)}", file=sys.stderr)

    warnings.showwarning = show  # type: ignore[assignment]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = show  # type: ignore[assignment]
            yield
    finally:
        warnings.showwarning = old_show
        pkg.removeHandler(handler)
        pkg.setLevel(old_level)


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (e.g. captured by a test)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    from .._budget import TimeLimitReached
    from .._interrupt import cli_handlers, exit_status

    # The command's clock (--time-limit): from the process's start when this is the process's command (the
    # console script calls main() without argv), so the interpreter's start and the imports count too.
    import time

    from .._budget import process_age

    started = time.perf_counter() - (process_age() if argv is None else 0.0)
    parser = _build_parser()
    args = parser.parse_args(argv)
    args.started = started
    args.quiet = bool(args.quiet or getattr(args, "sub_quiet", False))
    level = getattr(args, "sub_log_level", None) or args.log_level
    with cli_handlers(), _console(args.quiet, level):
        try:
            code = int(args.func(args) or 0)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            _quiet_stdout()
            return 141
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return exit_status()
        except TimeLimitReached as exc:
            return _no_result(args, exc)
        except Exception as exc:
            return _failure(exc)


def _no_result(args: argparse.Namespace, exc: BaseException) -> int:
    """A time limit that ran out before there was anything to answer with (while reading the data).

    The same labels and exit status as a search cut short with no network found: an ``INCOMPLETE
    (time_limit)`` guarantee line (or JSON object) on stdout, exit 0, and nothing written.
    """
    from .._json import dumps

    text = f"INCOMPLETE (time_limit): {exc}; there is no result"
    if getattr(args, "json", False):
        print(dumps({"guarantee": text, "complete": False, "approximate": False, "infeasible": False,
                     "caveats": [], "reason": "time_limit", "phase": getattr(exc, "phase", None)}))
    else:
        print(f"# {text}")
    where = getattr(args, "output_dir", None) or getattr(args, "output", None)
    if where and not args.quiet:
        print(f"{PROG}: nothing written to {where}", file=sys.stderr)
    sys.stdout.flush()
    return 0


def _failure(exc: Exception) -> int:
    """One stderr line and the exit status for an exception that ended a command."""
    from .._interrupt import exit_status, last_signal

    if last_signal() is not None:
        # A signal raised inside a solver callback surfaces as the solver's own error: it is the
        # interrupt, not a failure (engines that stop cleanly return a labelled partial result instead).
        print(f"{PROG}: interrupted", file=sys.stderr)
        return exit_status()
    if isinstance(exc, GobnilpError):
        print(f"{PROG}: error: {printable(exc)}", file=sys.stderr)
        return 1
    if isinstance(exc, MemoryError):
        print(f"{PROG}: error: out of memory; try a parent limit (--palim) or fewer variables", file=sys.stderr)
        return 1
    if isinstance(exc, OSError):  # the environment (disk full, permissions), not the package
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{PROG}: error: cannot access{printable(where)}: {printable(exc.strerror or exc)}", file=sys.stderr)
        return 1
    # a bug: keep the traceback, but in a file
    with tempfile.NamedTemporaryFile("w", prefix="gobnilp-py-crash-", suffix=".log", delete=False) as fh:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=fh)
    print(f"{PROG}: internal error: {printable(repr(exc))}; traceback saved to {fh.name}", file=sys.stderr)
    return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
