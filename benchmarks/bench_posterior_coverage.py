"""How much of the posterior the credible sets of Liao et al.'s Table 1 hold, and how far their edge averages are off.

Usage::

    PYTHONPATH=. python benchmarks/bench_posterior_coverage.py                      # six datasets, BF 3 20 150
    flock /work/cpu.lock env PYTHONPATH=. python benchmarks/bench_posterior_coverage.py wine zoo --bf 20

For each dataset (default: those of Table 1 that fit the exact sums with no
parent limit: tic-tac-toe, wine, adult, nltcs, voting, zoo), one process:

1. BIC scores without pruning and without a parent limit, and
   ``gobnilp_py.posterior`` of that table (the exact posterior over every DAG,
   uniform prior);
2. for each Bayes factor, ``enumerate_networks(data, bayes_factor=BF)`` (the
   package's defaults: BIC, no parent limit, ``method="auto"``, ``by="auto"``,
   150,000 networks at most) and ``post.mass_of(set)``: the set's posterior mass
   (every member of its classes when they are counted), and the largest
   difference between the set's edge probabilities (Liao et al.'s averaging,
   normalised over the set) and the exact ones.

Printed: one Markdown table, with ``uptime`` before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _report import cell  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
            Path(__file__).resolve().parents[2] / "shared" / "data")
DATASETS = ["tic-tac-toe", "wine", "adult", "nltcs", "voting", "zoo"]


def run_one(name: str, bfs: list[float], time_limit: float) -> list[dict]:
    from gobnilp_py import enumerate_networks, posterior, read_data, score

    data = read_data(DATA / f"{name}.csv", header=False)
    t0 = time.perf_counter()
    table = score(data, score="BIC", prune=False)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    post = posterior(table)
    t_post = time.perf_counter() - t0
    exact_edges = post.edge_probabilities() if post.exact else None
    rows = []
    for bf in bfs:
        t0 = time.perf_counter()
        cs = enumerate_networks(data, score="BIC", bayes_factor=bf, time_limit=time_limit)
        t_set = time.perf_counter() - t0
        m = post.mass_of(cs)
        diff = None
        if exact_edges is not None and len(cs):
            diff = float((cs.edge_probabilities() - exact_edges).abs().to_numpy().max())
        rows.append({"data": name, "n": table.n, "bf": bf, "families": len(table), "t_score": t_score,
                     "t_post": t_post, "kind": post.kind, "log_evidence": post.log_evidence, "t_set": t_set,
                     "set": cs.count_line(), "complete": cs.complete, "reason": cs.reason,
                     "averages_over": cs.averages_over, "mass": m.value, "mass_text": m.text, "covers": m.covers,
                     "mass_dags": m.n_networks, "edge_diff": diff})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=DATASETS)
    ap.add_argument("--bf", type=float, nargs="+", default=[3.0, 20.0, 150.0])
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per enumeration (default 600)")
    ap.add_argument("--out", help="also write the rows as JSON")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.bf, args.time_limit)))
        return
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    rows = []
    for name in args.datasets:
        cmd = [sys.executable, __file__, "--one", name, "--bf", *map(str, args.bf), "--time-limit",
               str(args.time_limit)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if proc.returncode != 0:
            rows.append({"data": name, "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160]})
            print(name, "failed:", rows[-1]["error"], flush=True)
            continue
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.extend(got)
        for r in got:
            print(name, r["bf"], r["set"], r["mass_text"], r["edge_diff"], flush=True)
    print("uptime after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print()
    print("| data | n | families | scoring s | posterior s | log evidence | BF | set | set s | mass (what) "
          "| largest edge difference |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['data']} | failed: {r['error']} |||||||||| ")
            continue
        what = f"{r['mass_text']} ({r['covers']}, {r['mass_dags']:,} DAGs)"
        state = "" if r["complete"] else f" INCOMPLETE ({r['reason']})"
        print(f"| {r['data']} | {r['n']} | {cell(r['families'])} | {cell(r['t_score'])} | {cell(r['t_post'])} | "
              f"{cell(r['log_evidence'], 4)} | {r['bf']:g} | {r['set']}{state} | {cell(r['t_set'])} | {what} | "
              f"{cell(r['edge_diff'], 4)} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
