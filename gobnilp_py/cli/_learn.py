"""``gobnilp-py learn``: the optimal network (or the best found within limits)."""

from __future__ import annotations

import argparse
import json

from ._options import add_data_options, add_scoring_options, load_table_or_data, scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("learn", help="learn an optimal Bayesian network",
                       description="Learn a Bayesian network of maximum score, with optional structural "
                       "constraints. The status says whether optimality was proven.")
    p.add_argument("data", help="data file (CSV or .dat) or a .jkl score file")
    add_data_options(p)
    add_scoring_options(p, epsilon=False)
    p.add_argument("--constraints", default=None, help="GOBNILP-style constraints file")
    p.add_argument("--time-limit", type=float, default=None, help="seconds; the result is then marked time_limit")
    p.add_argument("--gap", type=float, default=0.0, help="relative gap at which to stop (default 0: prove optimality)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..constraints.structural import StructuralConstraints
    from ..solve import learn

    source = load_table_or_data(args, args.data)
    cons = StructuralConstraints.from_file(args.constraints) if args.constraints else None
    kw = scoring_kwargs(args) if not hasattr(source, "families") else {}
    net = learn(source, constraints=cons, time_limit=args.time_limit, gap=args.gap, **kw)
    if args.json:
        print(json.dumps(net.to_dict(), indent=None))
    else:
        print(net.to_gobnilp_text())
        print(f"status: {net.status}" + (f", dual bound {net.dual_bound:.6f}" if net.dual_bound is not None else ""))
    return 0 if net.status != "infeasible" else 1
