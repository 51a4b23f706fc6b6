"""Benchmark learn(): time to proven optimum, nodes, cuts by method, time split.

Usage::

    PYTHONPATH=. python benchmarks/bench_learn.py wine zoo --bf 3
    PYTHONPATH=. python benchmarks/bench_learn.py --jkl path/to/file.jkl
    PYTHONPATH=. python benchmarks/bench_learn.py wine --option subip_cuts=False
    PYTHONPATH=. python benchmarks/bench_learn.py wine --param separating/zerohalf/maxroundsroot=20

Datasets are read from ``../shared/data/<name>.csv`` (no header), scored with
BIC pruned for the Bayes factor ``--bf`` (GOBNILP's reference runs used BF 3),
then solved.  One JSON line per run goes to stdout (and ``--out`` if given).
GOBNILP reference seconds (solve to OPT, BF 3, this kind of machine) are
printed alongside.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

GOBNILP_SECONDS = {"tic-tac-toe": 1.24, "wine": 4.11, "voting": 2.42, "zoo": 59.23, "alarm1000": 5.49,
                   "insurance1000": 0.72}
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def run_one(name: str, source, args, options: dict, params: dict | None = None) -> dict:
    from gobnilp_py.data import read_data
    from gobnilp_py.scoring import score
    from gobnilp_py.scoring.table import ScoreTable
    from gobnilp_py import learn

    t0 = time.perf_counter()
    if isinstance(source, Path) and source.suffix == ".jkl":
        table = ScoreTable.from_jkl(source)
    else:
        table = score(read_data(source, header=False), score=args.score, bayes_factor=args.bf, palim=args.palim)
    t_score = time.perf_counter() - t0
    net = learn(table, method="ilp", time_limit=args.time_limit, model_options=options, params=params or None)
    s = net.stats
    row = {
        "data": name, "families": len(table), "status": net.status, "score": round(net.score, 6),
        "t_scoring": round(t_score, 3), "t_solve_total": round(s["time_total"], 3),
        "t_build": round(s["time_build"], 3), "t_scip": round(s["time_solve"], 3),
        "t_lp": s["time_lp"], "t_separation": round(s["time_separation"], 3),
        "t_subip": round(s["time_subip"], 3), "t_propagation": round(s["time_propagation"], 3),
        "t_heuristic": round(s["time_heuristic"], 3), "t_check_enforce": round(s["time_check"] + s["time_enforce"], 3),
        "nodes": s["nodes"], "lp_iterations": s["lp_iterations"], "sepa_rounds": s["separation_rounds"],
        "subip_calls": s["subip_calls"], "cuts_cycle": s["cuts_cycle"], "cuts_subip": s["cuts_subip"],
        "cuts_integral": s["cuts_integral"], "cuts_kcluster": s["cuts_kcluster"],
        "cuts_four_node": s.get("cuts_four_node", 0), "pair_rows": s["initial_pair_cuts"],
        "heur_solutions": s["heuristic_solutions"], "prop_fixings": s["propagation_fixings"],
        "gobnilp_s": GOBNILP_SECONDS.get(name.split(".")[0]), "options": options, "params": params or {},
    }
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("datasets", nargs="*", help="dataset names in shared/data (default: tic-tac-toe wine voting "
                   "unless --jkl is given)")
    p.add_argument("--jkl", action="append", default=[], help="solve this .jkl file too")
    p.add_argument("--bf", type=float, default=3.0)
    p.add_argument("--score", default="BIC")
    p.add_argument("--palim", type=int, default=None)
    p.add_argument("--time-limit", type=float, default=None)
    p.add_argument("--option", action="append", default=[], help="build_model option KEY=VALUE")
    p.add_argument("--param", action="append", default=[], help="SCIP parameter KEY=VALUE (on top of the defaults)")
    p.add_argument("--out", default=None, help="append JSON lines here")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    options = {k: _value(v) for k, v in (o.split("=", 1) for o in args.option)}
    params = {k: _value(v) for k, v in (o.split("=", 1) for o in args.param)}
    names = args.datasets or ([] if args.jkl else ["tic-tac-toe", "wine", "voting"])
    jobs = [(d, DATA / f"{d}.csv") for d in names] + [(Path(j).stem, Path(j)) for j in args.jkl]
    for name, source in jobs:
        if not source.exists():
            print(f"skip {name}: {source} not found", file=sys.stderr)
            continue
        row = run_one(name, source, args, options, params)
        line = json.dumps(row)
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
