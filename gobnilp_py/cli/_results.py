"""Showing results on stdout and choosing the exit status, the same way in every subcommand.

Exit statuses (documented in ``docs/conventions.md``):

====  =========================================================================
0     a result (complete, or labelled INCOMPLETE / APPROXIMATE in every output)
1     a user error (one line on stderr), or the answer "infeasible"
2     a bad flag (argparse)
3     an internal error (traceback saved to a file whose path is printed)
130   interrupted by SIGINT (Ctrl-C); a partial result, if any, is written first
141   stdout was closed early (``... | head``): quiet exit, no traceback
143   terminated by SIGTERM; as 130
====  =========================================================================
"""

from __future__ import annotations

import sys
from typing import Any

from .._wording import printable
from ..errors import NetworkError

__all__ = ["exit_code", "is_interrupted", "display", "gobnilp_display", "say_infeasible", "print_notes", "PROG",
           "method_line"]

PROG = "gobnilp-py"


def is_interrupted(result: Any) -> bool:
    """True if a signal stopped the search that produced ``result`` (reason or status ``"interrupted"``)."""
    # Not SCIP's "userinterrupt" status: the collector itself stops SCIP that way at its network cap.
    return getattr(result, "reason", None) == "interrupted" or getattr(result, "status", None) == "interrupted"


def exit_code(result: Any) -> int:
    """0 for a result, 1 for "infeasible", 130/143 for a result cut short by SIGINT/SIGTERM."""
    from .._interrupt import exit_status, last_signal
    from ..output.writers import is_infeasible

    if is_interrupted(result) or last_signal() is not None:
        return exit_status()
    if is_infeasible(result):
        return 1
    return 0


def say_infeasible(result: Any) -> None:
    """The one stderr line of an infeasible answer (stdout has the labelled result)."""
    from ..output.writers import is_infeasible

    if is_infeasible(result):
        print(f"{PROG}: infeasible: no network satisfies the constraints and the score table", file=sys.stderr)


def method_line(result: Any) -> str | None:
    """``method: NAME (why it was chosen); verified by OTHER`` for a search result, ``None`` for a score table."""
    stats = getattr(result, "stats", None) or {}
    name = getattr(result, "method", None) or stats.get("method")
    if not name:
        return None
    why = stats.get("method_reason")
    verified = stats.get("verified_by")
    check = f"; verified by {verified}" if verified else "; not verified" if stats.get("verification") else ""
    return f"method: {name}" + (f" ({why})" if why else "") + check


def print_notes(result: Any, second: str | None = None) -> None:
    """The guarantee, every caveat and the method that ran (and why), each as a ``#`` line on stdout.

    ``second``: a line shown right after the guarantee (a collection's posterior mass, or why it is not shown).
    """
    from ..output.writers import notes_of

    notes = notes_of(result)
    if second:
        notes.insert(1, second)
    for note in notes:
        print(f"# {printable(' '.join(note.split()))}")
    line = method_line(result)
    if line:
        print(f"# {printable(' '.join(line.split()))}")


def opt_text(result: Any) -> str:
    """OPT for the summary line: the score, "none" (no network exists) or "not proven" (a limit
    stopped the search first; the caveats give the best found and the bound)."""
    opt = result.opt
    if opt == opt:
        return f"{opt:.6f}"
    return "none" if result.complete or getattr(result, "infeasible", False) else "not proven"


def display(net: Any) -> str:
    """A network on one line: its model string, or its arrows when a name cannot be written in one."""
    try:
        return printable(net.to_modelstring())
    except NetworkError:
        return printable(" ".join(f"{p}->{c}" for p, c in net.edges) or "(no arrows)")


def gobnilp_display(net: Any) -> str:
    """GOBNILP's network text, or one ``child <- [parents]`` line per node when a name cannot be written in it."""
    try:
        text = net.to_gobnilp_text()
    except NetworkError:
        lines = [f"{c} <- {list(net.parents[c])}" for c in net.names]
        text = "\n".join(lines + [f"score {net.score!r}"]) + "\n"
    return "\n".join(printable(line) for line in text.split("\n"))
