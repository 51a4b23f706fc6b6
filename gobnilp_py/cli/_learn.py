"""``gobnilp-py learn``: the optimal network (or the best found within limits, labelled as such)."""

from __future__ import annotations

import argparse
import math

from ._options import add_common_options, add_data_options, add_method_options, add_scoring_options, \
    add_time_limit, check_method_flags, check_order_flag, command_budget, method_kwargs, number, read_input, \
    scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("learn", help="learn an optimal Bayesian network",
                       description="Learn a Bayesian network of maximum score, with optional structural "
                       "constraints. The first line says whether optimality was proven (complete), the "
                       "search was cut short (INCOMPLETE) or no network exists (INFEASIBLE, exit 1).")
    p.add_argument("data", help="data file (CSV or .dat) or a .jkl score file")
    add_data_options(p)
    add_scoring_options(p, epsilon=False)
    p.add_argument("--constraints", default=None, help="GOBNILP-style constraints file")
    add_time_limit(p)
    p.add_argument("--gap", type=number, default=None,
                   help="relative gap at which to stop (default 0: prove optimality)")
    add_method_options(p, "learn")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_common_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import StructuralConstraints, learn
    from .._json import dumps
    from .._validation import check_gap
    from ..output.writers import labels
    from ._results import exit_code, gobnilp_display, print_notes, say_infeasible

    budget = command_budget(args)          # the command's clock: reading, scoring, search
    gap = check_gap(args.gap, "--gap") if args.gap is not None else 0.0
    search = method_kwargs(args, "learn")
    check_method_flags(search.get("method"), {"gap": gap, **search})
    source = read_input(args, budget)
    check_order_flag(search, source)
    cons = StructuralConstraints.from_file(args.constraints) if args.constraints else None
    kw = scoring_kwargs(args, source)
    if "order" in search:  # the fixed-order search takes no gap and no constraints: pass only those given
        gap = gap or None
    from ..progress import Progress

    with Progress.for_terminal((), quiet=args.quiet, deadline=budget.deadline) as progress:
        net = learn(source, constraints=cons, time_limit=budget, gap=gap, progress=progress, **search, **kw)
    if args.json:
        print(dumps({**net.to_dict(), **labels(net), "method": net.stats.get("method"),
                     "method_reason": net.stats.get("method_reason"), "verified_by": net.stats.get("verified_by"),
                     "verification": net.stats.get("verification")}))
    else:
        print_notes(net)
        if math.isfinite(net.score):       # else no network: the notes above say why
            print(gobnilp_display(net), end="")
        print(f"status: {net.status}" + (f", dual bound {net.dual_bound:.6f}" if net.dual_bound is not None else ""))
    say_infeasible(net)
    return exit_code(net)
