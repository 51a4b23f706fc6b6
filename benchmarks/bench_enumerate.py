"""Benchmark ε-BNSL (``enumerate_networks``) in the style of Liao et al. (AAAI 2019), Table 1.

Usage::

    PYTHONPATH=. python benchmarks/bench_enumerate.py                      # every dataset, BF 3 20 150
    PYTHONPATH=. python benchmarks/bench_enumerate.py tic-tac-toe wine --bf 3 20
    PYTHONPATH=. python benchmarks/bench_enumerate.py --budget 600 --out results.json
    PYTHONPATH=. python benchmarks/bench_enumerate.py alarm1000 --palim 3 --score-budget 900

For every dataset in ``../shared/data`` (or those named) and every Bayes factor,
one run in its own process: score with BIC pruned for that BF (``gobnilp_py.score``),
then ``enumerate_networks`` with the network cap (150,000, as the paper) and a
time budget for the two searches (solve to OPT + collect).  A run that hits the
budget is reported with its status (``time_limit``), a run whose scoring does not
finish within ``--score-budget`` is marked ``scoring timeout``, and one that hits
the cap ``max_networks``.  Figures are wall seconds, scoring excluded (as in the
paper).  Equivalence classes are counted when there are at most ``--max-class-networks``
networks.

Printed: one markdown table with our time to OPT, time to collect, networks,
classes, branch-and-bound nodes and cluster cuts of the collection, next to the
paper's figures (T, |G|, |M|; 2.2 GHz Xeon, CPLEX) and GOBNILP's measured on
this kind of machine (``shared/data/README.md``; solve / collect / networks).
The paper's |M| column is wrong in places (see that README); the networks
column is the one to compare.  ``--out`` also writes every row as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _report import cell  # noqa: E402  (benchmarks/ is the script's folder)
from published import GOBNILP_HERE, PAPER_TABLE1  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CAP = 150_000

PAPER = PAPER_TABLE1


def run_one(name: str, bf: float, budget: float, palim: int | None, max_class_networks: int) -> dict:
    """Score and enumerate one (dataset, BF); runs in a worker process."""
    from gobnilp_py import enumerate_networks, read_data, score

    t0 = time.perf_counter()
    table = score(read_data(DATA / f"{name}.csv", header=False), bayes_factor=bf, palim=palim)
    t_score = time.perf_counter() - t0
    cs = enumerate_networks(table, bayes_factor=bf, max_networks=CAP, time_limit=budget)
    s = cs.stats
    classes = cs.n_mecs if len(cs) <= max_class_networks else None
    return {
        "data": name, "bf": bf, "families": sum(len(f) for f in table.families), "t_scoring": t_score,
        "t_opt": s.get("time_opt"), "t_collect": s.get("time_collect"), "networks": len(cs),
        "classes": classes, "nodes": s.get("nodes"), "cuts": s.get("cuts_total"),
        "near_boundary": cs.near_boundary, "complete": cs.complete, "status": cs.reason or "complete",
        "opt": cs.opt,
    }


def run_isolated(name: str, bf: float, args: argparse.Namespace) -> dict:
    """One run in a child process, so a stuck scoring step or memory growth cannot stop the table."""
    job = json.dumps({"name": name, "bf": bf, "budget": args.budget, "palim": args.palim,
                      "max_class_networks": args.max_class_networks})
    # Scoring budget + search budget + time to build the classes and start up.
    timeout = args.score_budget + args.budget + 120
    try:
        proc = subprocess.run([sys.executable, __file__, "--worker", job], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        # The search itself honours --budget, so a run killed here was stuck in scoring.
        return {"data": name, "bf": bf, "status": "scoring timeout", "complete": False}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"data": name, "bf": bf, "status": f"error: {tail[:80]}", "complete": False}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table_markdown(rows: list[dict]) -> str:
    head = ("| data | BF | OPT T (s) | collect T (s) | networks | classes | nodes | cuts | status "
            "| paper T / \\|G\\| / \\|M\\| | GOBNILP here solve / collect / networks |")
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        bf = int(r["bf"]) if float(r["bf"]).is_integer() else r["bf"]
        row_paper = PAPER.get(r["data"], {})
        if bf not in row_paper:
            p = "-"  # the paper has no such run
        elif row_paper[bf] is None:
            p = "OT"  # out of time (24 h) in the paper
        else:
            t, g, m = row_paper[bf]
            p = f"{t} / {g:,} / {m:,}"
        g = GOBNILP_HERE.get(r["data"], {}).get(bf)
        gtxt = "-" if g is None else f"{cell(g[0])} / {cell(g[1])} / {g[2]:,}"
        lines.append(f"| {r['data']} | {bf} | {cell(r.get('t_opt'))} | {cell(r.get('t_collect'))} "
                     f"| {cell(r.get('networks'))} | {cell(r.get('classes'))} | {cell(r.get('nodes'))} "
                     f"| {cell(r.get('cuts'))} | {r.get('status', '-')} | {p} | {gtxt} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", help="dataset names (default: every CSV in shared/data)")
    ap.add_argument("--bf", type=float, nargs="+", default=[3, 20, 150], help="Bayes factors (default 3 20 150)")
    ap.add_argument("--budget", type=float, default=3600.0,
                    help="seconds for the two searches of one run (default 3600)")
    ap.add_argument("--score-budget", type=float, default=1800.0, help="seconds allowed for scoring (default 1800)")
    ap.add_argument("--palim", type=int, default=None, help="parent limit for scoring (default: none)")
    ap.add_argument("--max-class-networks", type=int, default=50_000,
                    help="count equivalence classes only up to this many networks (default 50,000)")
    ap.add_argument("--out", type=Path, help="also write the rows as JSON here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(run_one(job["name"], job["bf"], job["budget"], job["palim"], job["max_class_networks"])))
        return 0
    if not DATA.is_dir():
        print(f"no data directory {DATA}", file=sys.stderr)
        return 2
    names = args.datasets or sorted(p.stem for p in DATA.glob("*.csv"))
    rows = []
    for name in names:
        if not (DATA / f"{name}.csv").exists():
            print(f"skipping {name}: {DATA / (name + '.csv')} not found", file=sys.stderr)
            continue
        for bf in args.bf:
            row = run_isolated(name, bf, args)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.out:
        from gobnilp_py._io import atomic_write_text

        atomic_write_text(args.out, json.dumps(rows, indent=1) + "\n")
    print(table_markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
