"""Search one saved score table: ``enumerate_networks`` with a Bayes factor and a time limit, one JSON line.

Used for the wide tables of issue 14 and the class collection of issue 13 (results in
``benchmarks/results/``).  The table is read first (not timed); the line gives the wall time of the
call, what was listed, the certified threshold and the search's own counters.

    python benchmarks/bench_search_table.py TABLE.jkl --bf 3 --time-limit 120 [--max-networks 150000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

import gobnilp_py as g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table")
    ap.add_argument("--bf", type=float, required=True)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--max-networks", type=int, default=150_000)
    ap.add_argument("--by", default="auto")
    ap.add_argument("--method", default="auto")
    a = ap.parse_args()
    table = g.ScoreTable.from_jkl(a.table)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    cs = g.enumerate_networks(table, bayes_factor=a.bf, time_limit=a.time_limit, max_networks=a.max_networks,
                              by=a.by, method=a.method)
    wall = time.perf_counter() - t0
    stats = {k: v for k, v in cs.stats.items() if isinstance(v, (int, float, str))}
    print(json.dumps({"table": os.path.basename(a.table), "bf": a.bf, "time_limit": a.time_limit,
                      "wall_s": round(wall, 2), "complete": cs.complete, "reason": cs.reason,
                      "listed": len(cs), "opt": cs.opt, "threshold": cs.threshold,
                      "n_networks_total": cs.n_networks_total, "n_classes_total": cs.n_classes_total,
                      "count_line": cs.count_line(), "load_at_start": load,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                      "stats": stats}))


if __name__ == "__main__":
    main()
