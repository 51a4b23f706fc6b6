"""``gobnilp-py enumerate`` and ``gobnilp-py kbest``: collections of networks."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import ConfigError
from ._options import add_data_options, add_scoring_options, load_table_or_data, scoring_kwargs

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enumerate", help="every network within a Bayes factor of the optimum",
                       description="Find every network whose score is within ln(BF) of the optimum (epsilon-BNSL), "
                       "exactly, with their Markov equivalence classes.")
    _common(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--bf", type=float, dest="bayes_factor", help="Bayes factor (>= 1)")
    g.add_argument("--epsilon", type=float, help="score gap, epsilon = ln BF (>= 0)")
    p.add_argument("--max-networks", type=int, default=150_000,
                   help="stop after this many networks (result marked incomplete; default 150000)")
    p.set_defaults(func=run_enumerate)

    k = sub.add_parser("kbest", help="the k best networks, provably",
                       description="Find the k highest-scoring networks, best first (ties in canonical order).")
    _common(k)
    k.add_argument("-k", type=int, required=True, help="number of networks")
    k.set_defaults(func=run_kbest)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="data file (CSV or .dat) or a .jkl score file")
    add_data_options(p)
    add_scoring_options(p, epsilon=False)
    p.add_argument("--constraints", default=None, help="GOBNILP-style constraints file")
    p.add_argument("--time-limit", type=float, default=None, help="seconds (result then marked incomplete)")
    p.add_argument("--json", action="store_true", help="print one JSON object (with every network)")
    p.add_argument("-o", "--output-dir", default=None,
                   help="write networks.csv and summary.json into this folder")


def _source_and_kwargs(args: argparse.Namespace) -> tuple[object, dict]:
    source = load_table_or_data(args, args.data)
    kw = {} if hasattr(source, "families") else scoring_kwargs(args)
    kw.pop("bayes_factor", None)
    kw.pop("epsilon", None)
    if args.constraints:
        kw["constraints"] = args.constraints
    return source, kw


def run_enumerate(args: argparse.Namespace) -> int:
    from ..solve import enumerate_networks

    source, kw = _source_and_kwargs(args)
    cs = enumerate_networks(source, bayes_factor=args.bayes_factor, epsilon=args.epsilon,
                            max_networks=args.max_networks, time_limit=args.time_limit, **kw)
    return _report(args, cs)


def run_kbest(args: argparse.Namespace) -> int:
    from ..solve import kbest

    source, kw = _source_and_kwargs(args)
    cs = kbest(source, args.k, time_limit=args.time_limit, **kw)
    return _report(args, cs)


def _report(args: argparse.Namespace, cs) -> int:
    if args.output_dir:
        write_collection(cs, Path(args.output_dir))
    if args.json:
        print(json.dumps(cs.to_dict()))
    elif not args.quiet:
        state = "complete" if cs.complete else f"INCOMPLETE ({cs.reason}): more networks may exist"
        print(f"{len(cs)} networks in {cs.n_mecs} equivalence classes; OPT = {cs.opt:.6f}, "
              f"epsilon = {cs.epsilon:.6g} (BF {cs.bayes_factor:.6g}); {state}")
        for i, net in enumerate(cs.networks[:10], 1):
            print(f"{i:>4}  {net.score:.6f}  {net.to_modelstring()}")
        if len(cs) > 10:
            print(f"  ... {len(cs) - 10} more" + (" (use -o DIR or --json for all)" if not args.output_dir else ""))
    return 0


def write_collection(cs, folder: Path) -> None:
    """Write networks.csv and summary.json into ``folder``, all or nothing.

    Files are written into a temporary sibling folder first and moved into
    place only when all are complete, so a failure leaves no partial output.
    """
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"output folder {folder} exists and is not a folder")
    parent = folder.parent if str(folder.parent) else Path(".")
    if not parent.is_dir():
        raise ConfigError(f"output folder's parent {parent} does not exist")
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=parent))
    try:
        cs.to_dataframe().to_csv(tmp / "networks.csv", index=False)
        (tmp / "summary.json").write_text(json.dumps(cs.to_dict(), indent=1))
        folder.mkdir(exist_ok=True)
        for f in tmp.iterdir():
            f.replace(folder / f.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {folder / 'networks.csv'} and {folder / 'summary.json'}", file=sys.stderr)
