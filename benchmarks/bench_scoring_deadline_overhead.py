"""Scoring speed with and without the time-limit checks: two source trees side by side, same inputs.

Why: the time limit reaches scoring by looking at the clock between lattice levels, pieces of a level,
generation chunks and blocks of parent sets (and the compiled kernel's calls are capped at
``KERNEL_UNITS``), never per family; this measures that the hot loops did not slow down.

Each case runs in a fresh process per tree (``PYTHONPATH`` set to the tree), alternating the trees, so
both see the same machine load.  A process reads the data, then calls ``score`` ``--repeat`` times:
``first`` is the first call (what a command pays, numba's load included when the kernel is chosen) and
``warm`` the best of the later calls.  The "after" tree is run twice: without a time limit and with
``time_limit=3600`` (every check armed, none firing).

Usage::

    flock /work/cpu.lock /work/venv/bin/python benchmarks/bench_scoring_deadline_overhead.py \\
        --before /work/main --after . [--rounds 3] [--repeat 3] [--output results/limits-overhead.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(os.environ.get("GOBNILP_DATA", "/work/shared/data"))

#: (dataset, score, Bayes factor, palim): small data (fixed costs) and bigger data (the hot loops, workers).
CASES = [
    ("wine", "BIC", 20, None), ("zoo", "BIC", 20, None), ("tic-tac-toe", "BDeu", 20, None),
    ("zoo", "BDeu", 20, None), ("voting", "BDeu", 20, None), ("nltcs", "BIC", 20, None),
    ("insurance1000", "BIC", 20, None), ("alarm1000", "BIC", 20, None), ("alarm1000", "BDeu", 20, 3),
]

CHILD = r"""
import json, sys, time
import gobnilp_py as gp
path, score, bf, palim, repeat, limit = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
palim = None if palim == "none" else int(palim)
kw = {} if limit == "none" else {"time_limit": float(limit)}
data = gp.read_data(path, header=False)
times = []
for _ in range(repeat):
    t = time.perf_counter()
    table = gp.score(data, score=score, bayes_factor=bf, palim=palim, **kw)
    times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "families": len(table), "scored": table.meta["families_scored"],
                  "incomplete": table.meta.get("incomplete") is not None}))
"""


def run_one(tree: str, case: tuple, repeat: int, limit: str) -> dict:
    name, score, bf, palim = case
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    cmd = [sys.executable, "-c", CHILD, str(DATA / f"{name}.csv"), score, str(bf),
           "none" if palim is None else str(palim), str(repeat), limit]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        raise SystemExit(f"{tree} {case}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--output", default=None)
    ap.add_argument("--only", nargs="*", default=None, help="run only these data sets")
    args = ap.parse_args()
    variants = [("before", args.before, "none"), ("after", args.after, "none"), ("after+limit", args.after, "3600")]
    rows = []
    load0 = os.getloadavg()
    for case in [c for c in CASES if args.only is None or c[0] in args.only]:
        res: dict[str, dict[str, list[float]]] = {v: {"first": [], "warm": []} for v, _, _ in variants}
        same = set()
        for _ in range(args.rounds):
            for v, tree, limit in variants:
                r = run_one(tree, case, args.repeat, limit)
                res[v]["first"].append(r["times"][0])
                res[v]["warm"].append(min(r["times"][1:]) if len(r["times"]) > 1 else r["times"][0])
                same.add((r["families"], r["scored"], r["incomplete"]))
        med = {v: {k: statistics.median(x) for k, x in d.items()} for v, d in res.items()}
        rows.append((case, med, len(same) == 1))
        name, score, bf, palim = case
        print(f"{name} {score} BF {bf} palim {palim}: " + ", ".join(
            f"{v} first {m['first']:.3f} warm {m['warm']:.3f}" for v, m in med.items())
            + ("" if len(same) == 1 else "  TABLES DIFFER"), flush=True)
    load1 = os.getloadavg()
    lines = [f"Scoring time, median of {args.rounds} fresh processes per tree (trees alternated), "
             f"{args.repeat} calls each; load average {load0[0]:.2f} before, {load1[0]:.2f} after; "
             f"{time.strftime('%Y-%m-%d')}.", "",
             "| data | score | BF | palim | before first s | after first s | ratio | before warm s | after warm s "
             "| ratio | after+limit warm s | ratio | same tables |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (name, score, bf, palim), med, same in rows:
        b, a, al = med["before"], med["after"], med["after+limit"]
        lines.append(f"| {name} | {score} | {bf} | {palim or '-'} | {b['first']:.3f} | {a['first']:.3f} | "
                     f"{a['first'] / b['first']:.2f} | {b['warm']:.3f} | {a['warm']:.3f} | {a['warm'] / b['warm']:.2f} | "
                     f"{al['warm']:.3f} | {al['warm'] / b['warm']:.2f} | {'yes' if same else 'NO'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
