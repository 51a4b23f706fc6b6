"""ASOBS as an incumbent for the exact engines: the ILP's warm start, the order graph's lower bound.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_asobs_warmstart.py \\
        --data /work/shared/data/alarm1000.csv [--palim 3] [--asobs-time 5] [--time-limit 900] \\
        [--engines ilp,ordergraph] [--json out.jsonl]

On one data set: the exact pruned table (:func:`gobnilp_py.score`, ``--bf`` for
an ε-safe one), a reference ASOBS run on it for ``--asobs-time`` seconds (seed
0), then for each engine two runs on the same table, as the product runs them:

* ``ilp``: :func:`gobnilp_py.ilp.engine.optimum` with ``warm_start=False`` and
  ``True`` (the ASOBS incumbent of :mod:`gobnilp_py.search.incumbent`, a
  deterministic budget of orders, offered once at the root; SCIP keeps it only
  if feasible).
* ``ordergraph``: :func:`gobnilp_py.search.order_graph.frontier.order_graph_optimum`
  with ``incumbent_search=False`` (greedy start) and ``True`` (the better of
  the greedy and the ASOBS incumbent).
* ``--gap``: the table scored again with the global gap rule,
  ``lower_bound="auto"`` (whose LB now includes the ASOBS incumbent), beside
  the table without it.

Printed (and appended as one JSON line with ``--json``): the ASOBS score and
its gap to the optimum, each run's status, optimum and seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import time


def ilp_run(table, warm, time_limit):
    """The product's ILP optimum with and without its ASOBS warm start (``warm_start=``)."""
    from gobnilp_py.ilp.engine import optimum

    t0 = time.perf_counter()
    sol = optimum(table, warm_start=warm, time_limit=time_limit)
    ws = sol.stats.get("extra", {}).get("warm_start", {})
    return {"status": sol.status, "score": sol.score, "dual": sol.dual_bound, "solve": time.perf_counter() - t0,
            "start_score": ws.get("score"), "start_accepted": ws.get("accepted"), "start_time": ws.get("time"),
            "nodes": sol.stats.get("nodes")}


def og_run(table, warm, time_limit):
    """The order graph with and without the ASOBS incumbent as its starting lower bound."""
    from gobnilp_py.search.order_graph.frontier import order_graph_optimum

    t0 = time.perf_counter()
    r = order_graph_optimum(table, time_limit=time_limit, incumbent_search=warm)
    return {"status": r.status, "score": r.score, "solve": time.perf_counter() - t0,
            "lower_bound": r.lower_bound, "source": r.stats.get("lower_bound_source"),
            "generated": sum(x.get("generated", 0) for x in r.stats.get("layers", [])),
            "kept": sum(x.get("kept", 0) for x in r.stats.get("layers", [])),
            "maxrss_MB": (r.stats.get("maxrss_bytes") or 0) / 2**20}


def gap_run(ds, palim, bf):
    """Scoring with the global gap rule off and with lower_bound="auto" (now incl. ASOBS): table sizes."""
    from gobnilp_py import score

    out = {}
    for lb in (None, "auto"):
        t0 = time.perf_counter()
        t = score(ds, palim=palim, bayes_factor=bf, lower_bound=lb)
        out["gap_" + ("off" if lb is None else "auto")] = {
            "families": len(t), "time": time.perf_counter() - t0,
            "lower_bound": t.meta.get("lower_bound"), "source": t.meta.get("lower_bound_source")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--palim", type=int, default=None)
    ap.add_argument("--asobs-time", type=float, default=5.0)
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--engines", default="ilp")
    ap.add_argument("--json", default=None)
    ap.add_argument("--bf", type=float, default=None, help="score with this Bayes factor (default: plain optimum)")
    ap.add_argument("--gap", action="store_true", help="also score with the global gap rule (lower_bound='auto')")
    a = ap.parse_args()

    from gobnilp_py import read_data, score
    from gobnilp_py.search.asobs.engine import optimum as asobs_optimum

    load0 = os.getloadavg()
    ds = read_data(a.data, header=False)
    t0 = time.perf_counter()
    table = score(ds, palim=a.palim, bayes_factor=a.bf)
    t_score = time.perf_counter() - t0
    print(f"{os.path.basename(a.data)}: n={ds.n} N={ds.N}, {len(table)} families, scored in {t_score:.1f} s")
    asobs_optimum(table, n_orders=1, seed=0)  # compile the numba kernels (cached on disk) outside the timing
    t0 = time.perf_counter()
    asb = asobs_optimum(table, time_limit=a.asobs_time, seed=0)
    t_asobs = time.perf_counter() - t0
    print(f"ASOBS on the exact table: {asb.score:.6f} in {t_asobs:.1f} s ({asb.stats['orders']} orders)")
    rec = {"data": os.path.basename(a.data), "n": ds.n, "N": ds.N, "families": len(table), "palim": a.palim,
           "time_scoring": t_score, "asobs": {"score": asb.score, "time": t_asobs, "orders": asb.stats["orders"]},
           "load_before": load0,
           "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()}
    for eng in a.engines.split(","):
        for warm in (False, True):
            if eng == "ilp":
                r = ilp_run(table, warm, a.time_limit)
            else:
                r = og_run(table, warm, a.time_limit)
            rec[f"{eng}_{'warm' if warm else 'cold'}"] = r
            print(f"{eng:10s} {'warm' if warm else 'cold'}: {r['status']} {r['score']:.6f} "
                  f"solve {r['solve']:.1f} s {json.dumps({k: v for k, v in r.items() if k not in ('status', 'score', 'solve')})}")
            if r["status"] == "optimal":
                rec["optimum"] = r["score"]
    if "optimum" in rec:
        print(f"ASOBS gap to the optimum: {rec['optimum'] - asb.score:.6f}")
    if a.gap:
        rec.update(gap_run(ds, a.palim, a.bf))
        print("global gap rule:", {k: rec[k] for k in ("gap_off", "gap_auto")})
    rec["load_after"] = os.getloadavg()
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
