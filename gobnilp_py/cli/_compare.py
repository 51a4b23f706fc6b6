"""``gobnilp-py compare``: k-best methods against Bayes-factor enumeration on one dataset.

Prints Liao et al.'s Table 2 for the user's data (time of each k-best method
and networks for each k; time, networks and classes for each Bayes factor)
and, with ``-o DIR``, writes it with the Figure-2 plot (gap of the k-th best
network against k, BF levels marked).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._wording import printable
from ..errors import ConfigError
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
    p.add_argument("--time-limit", type=number, default=None,
                   help="wall-clock seconds per run (each k-best method and each Bayes factor); runs that reach "
                   "it are marked as stopped")
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
    from .._json import dumps
    from .._validation import check_time_limit
    from ..compare import compare
    from ..output.folder import check_output_folder

    check_time_limit(args.time_limit, "--time-limit")
    if args.output_dir:
        check_output_folder(Path(args.output_dir), force=args.force)
    if Path(args.data).suffix.lower() == ".jkl":
        raise ConfigError("compare needs data, not a score table: every method scores the data itself")
    source = load_table_or_data(args, args.data, table_ok=False)
    kw = scoring_kwargs(args)
    cmp = compare(source, ks=_split(args.ks, int, "--k"), bayes_factors=_split(args.bfs, float, "--bf"),
                  methods=[m.strip() for m in args.methods.split(",") if m.strip()],
                  time_limit=args.time_limit, max_networks=args.max_networks, classes=args.classes,
                  source=Path(args.data).name if not args.data.startswith("example:") else args.data, **kw)
    if args.output_dir:
        paths = cmp.write(args.output_dir)
        if not args.quiet:
            print(printable("wrote " + ", ".join(str(p) for p in paths.values())), file=sys.stderr)
    if args.json:
        print(dumps(cmp.to_dict()))
    else:
        print(cmp.to_markdown())
    return 0
