"""``gobnilp-py score``: compute and prune local scores, write a GOBNILP .jkl file.

The output file is checked before any work (its folder exists and is
writable; an existing file is overwritten only if gobnilp-py wrote it, or
with ``--force``), so a long scoring run never ends in "cannot write".  The
``.jkl`` ends with provenance comment lines saying how it was pruned
(see :class:`gobnilp_py.ScoreTable`).  ``--time-limit`` covers reading and
scoring: a table cut short by it is written whole, truncated at its last
complete parent-set size and labelled ``INCOMPLETE (time_limit)`` (its
provenance says so, and every later search of it carries the caveat).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .._wording import printable
from ._options import WRITE_FIXED_SECONDS, add_common_options, add_data_options, add_force, add_scoring_options, \
    add_time_limit, command_budget, read_input, scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="compute pruned local scores and write a .jkl score file",
                       description="Compute local scores of candidate parent sets, pruned safely for the "
                       "given Bayes factor, and write them in GOBNILP's .jkl format (with comment lines "
                       "recording how the table was pruned).")
    p.add_argument("data", help="data file (CSV with or without header, or GOBNILP .dat; may be gzip/bzip2/xz)")
    add_data_options(p)
    add_scoring_options(p)
    p.add_argument("-o", "--output", required=True, help="output .jkl file")
    add_time_limit(p)
    add_force(p, "file")
    add_common_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import score
    from .._validation import check_names_for
    from ..errors import ParameterError, ScoreError
    from ..output.folder import check_output_file, make_parent, write_error

    budget = command_budget(args)
    out = Path(args.output)
    check_output_file(out, force=args.force)
    t0 = time.perf_counter()
    data = read_input(args, budget, table_ok=False)
    try:
        check_names_for(data.names, ["jkl"], where=str(out))  # type: ignore[attr-defined]
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    from ..progress import Progress

    with Progress.for_terminal((), quiet=args.quiet, deadline=budget.deadline) as progress:
        # The shared checks and normalisation of the drivers (backend "serial" is processes with n_jobs=1).
        from ..solve.inputs import check_scoring_options

        # writing the .jkl has its cost too: scoring leaves it a second (at most a tenth of the limit)
        work = budget if budget.time_limit is None else budget.ending_before(
            min(WRITE_FIXED_SECONDS, 0.1 * budget.time_limit))
        table = score(data, progress=progress, time_limit=work, **check_scoring_options(scoring_kwargs(args)))
    elapsed = time.perf_counter() - t0
    try:
        make_parent(out)
        table.to_jkl(out)
    except OSError as exc:
        raise write_error(exc, out) from None
    counts = table.n_candidates()
    eps = table.epsilon if table.epsilon is not None else 0.0
    # the guarantee first, as every command's answer starts: a truncated table reads INCOMPLETE at once
    print(f"# {table.guarantee}")  # a table's provenance is in the .jkl itself
    print(printable(f"{len(table)} candidate parent sets for {table.n} variables "
                    f"({table.score_name}, epsilon={eps:.6g}) in {elapsed:.2f} s -> {out}"))
    if not args.quiet:
        width = max(len(nm) for nm in counts)
        for nm, k in counts.items():
            print(printable(f"  {nm:<{width}}  {k}"))
    return 0
