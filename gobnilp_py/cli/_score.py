"""``gobnilp-py score``: compute and prune local scores, write a GOBNILP .jkl file."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ._options import add_data_options, add_scoring_options, load_table_or_data, scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="compute pruned local scores and write a .jkl score file",
                       description="Compute local scores of candidate parent sets, pruned safely for the "
                       "given Bayes factor, and write them in GOBNILP's .jkl format.")
    p.add_argument("data", help="data file (CSV with or without header, or GOBNILP .dat)")
    add_data_options(p)
    add_scoring_options(p)
    p.add_argument("-o", "--output", required=True, help="output .jkl file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..scoring import score

    out = Path(args.output)
    if out.exists() and out.is_dir():
        from ..errors import ScoreError

        raise ScoreError(f"output {out} is a folder, expected a file name")
    t0 = time.perf_counter()
    data = load_table_or_data(args, args.data)
    table = score(data, **scoring_kwargs(args))
    elapsed = time.perf_counter() - t0
    table.to_jkl(out)
    if not args.quiet:
        counts = table.n_candidates()
        eps = table.epsilon if table.epsilon is not None else 0.0
        print(f"{len(table)} candidate parent sets for {table.n} variables "
              f"({table.score_name}, epsilon={eps:.6g}) in {elapsed:.2f} s -> {out}", file=sys.stdout)
        width = max(len(nm) for nm in counts)
        for nm, k in counts.items():
            print(f"  {nm:<{width}}  {k}")
    return 0
