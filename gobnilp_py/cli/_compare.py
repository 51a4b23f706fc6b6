"""``gobnilp-py compare``: k-best methods against Bayes-factor enumeration on one dataset.

Prints Liao et al.'s Table 2 for the user's data (time of each k-best method
and networks for each k; time, networks and classes for each Bayes factor)
and, with ``-o DIR``, writes it with the Figure-2 plot (gap of the k-th best
network against k, BF levels marked).

Each run has a time limit (``--time-limit``, default 10 s;
``--no-time-limit`` lifts it), so the defaults end in seconds on small data;
a run cut short is labelled INCOMPLETE in the table, the JSON and the plot.
On a terminal each run is announced as it starts (``[3/15] k=10 resolve
...``) with the engines' progress; ``-q`` silences it.  Ctrl-C ends the
comparison after the run it stopped: the table of what ran is printed and
the exit status is 130 (143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._wording import printable
from ..errors import ConfigError

#: The API's default, repeated here so ``--help`` does not import the comparison (and pandas).
DEFAULT_TIME_LIMIT = 10.0
from ._options import add_common_options, add_data_options, add_force, add_scoring_options, \
    load_table_or_data, number, scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="k-best methods against Bayes-factor enumeration (Liao et al. Table 2)",
                       description="Run the k-best methods (dynamic programming, repeated ILP solves, one-search "
                       "k-best) and the k best equivalence classes (KBestEC) for each k and the Bayes-factor enumeration for each BF on DATA; print the "
                       "table and, with -o, write compare.md, compare.json and kbest_gap.png.")
    p.add_argument("data", help="data file (CSV or .dat), or example:NAME for a bundled example")
    add_data_options(p)
    add_scoring_options(p, epsilon=False)
    p.add_argument("-k", "--k", dest="ks", default="10,100,1000",
                   help="comma-separated k values (default 10,100,1000)")
    p.add_argument("--bf", dest="bfs", default="3,20,150",
                   help="comma-separated Bayes factors (default 3,20,150)")
    p.add_argument("--methods", default="dp,resolve,ilp",
                   help="k-best methods, comma separated, among dp, resolve, ilp, ordergraph (default dp,resolve,ilp)")
    p.add_argument("--no-classes", dest="classes", action="store_false",
                   help="do not run the k best equivalence classes (the KBestEC column; kbest by='class' with the ILP)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--time-limit", type=number, default=None,
                   help=f"wall-clock seconds per run (each k-best method at each k, each Bayes factor; default "
                   f"{DEFAULT_TIME_LIMIT:g}): a run that reaches it is labelled INCOMPLETE, and the same method "
                   "is not run for a larger k")
    g.add_argument("--no-time-limit", dest="no_time_limit", action="store_true",
                   help="let every run finish, however long it takes")
    p.add_argument("--max-networks", type=int, default=150_000,
                   help="cap of each Bayes-factor enumeration (default 150000)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    p.add_argument("-o", "--output-dir", default=None,
                   help="write compare.md, compare.json and kbest_gap.png into this folder")
    add_force(p)
    add_common_options(p)
    p.set_defaults(func=run)


def _split(text: str, kind: type, flag: str) -> list:
    try:
        return [kind(tok) for tok in text.split(",") if tok.strip()]
    except ValueError:
        raise ConfigError(f"{flag} must be a comma-separated list of numbers, got {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from .._interrupt import exit_status, last_signal
    from .._json import dumps
    from .._validation import check_time_limit
    from ..app.compare import compare
    from ..output.folder import check_output_folder

    time_limit = None if args.no_time_limit else check_time_limit(
        DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit, "--time-limit")
    if args.output_dir:
        check_output_folder(Path(args.output_dir), force=args.force)
    if Path(args.data).suffix.lower() == ".jkl":
        raise ConfigError("compare needs data, not a score table: every method scores the data itself")
    from ..scoring.local_scores import is_gaussian_score

    if is_gaussian_score(getattr(args, "score", None)):
        raise ConfigError(f"--score {args.score}: compare runs approximate methods, which score data by independence "
                          "selection of discrete states; compare takes the discrete scores only")
    source = load_table_or_data(args, args.data, table_ok=False)
    kw = scoring_kwargs(args)
    cmp = compare(source, ks=_split(args.ks, int, "--k"), bayes_factors=_split(args.bfs, float, "--bf"),
                  methods=[m.strip() for m in args.methods.split(",") if m.strip()],
                  time_limit=time_limit, max_networks=args.max_networks, classes=args.classes,
                  source=Path(args.data).name if not args.data.startswith("example:") else args.data,
                  progress=False if args.quiet else "auto", **kw)
    if args.output_dir:
        paths = cmp.write(args.output_dir)
        if not args.quiet:
            print(printable("wrote " + ", ".join(str(p) for p in paths.values())), file=sys.stderr)
    if args.json:
        print(dumps(cmp.to_dict()))
    else:
        print(cmp.to_markdown())
    if not cmp.complete and not args.quiet:
        hint = "; --time-limit SECONDS gives each run longer" if time_limit is not None else ""
        print(f"gobnilp-py: compare: {cmp.guarantee}{hint}", file=sys.stderr)
    return exit_status() if last_signal() is not None else 0
