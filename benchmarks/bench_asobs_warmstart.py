"""ASOBS as an incumbent for the exact engines: the ILP's warm start, the order graph's lower bound.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_asobs_warmstart.py \\
        --data /work/shared/data/alarm1000.csv [--palim 3] [--asobs-time 5] [--time-limit 900] \\
        [--engines ilp,ordergraph] [--json out.jsonl]

On one data set: the exact pruned table (:func:`gobnilp_py.score`), then ASOBS on
that table for ``--asobs-time`` seconds (seed 0), then for each engine two runs
on the same table, without and with the ASOBS network:

* ``ilp``: the model built by :func:`gobnilp_py.ilp.model.build_model` exactly
  as :func:`gobnilp_py.ilp.engine.optimum` builds it; the warm run adds the
  ASOBS DAG as a SCIP solution (``Model.addSol``) before ``optimize``.  A
  warm start changes no answer: SCIP keeps its incumbent only if it is
  feasible (acyclicity is checked by the handler), and the optimum is proven
  by the same bounds.
* ``ordergraph``: :func:`gobnilp_py.search.order_engine.optimum` with and
  without ``lower_bound`` = the ASOBS score (exact: the bound is the score of a
  network of the table, so no optimal path is pruned).

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


def ilp_run(table, chosen, time_limit):
    from gobnilp_py.ilp.engine import _optimize, solution_from_model
    from gobnilp_py.ilp.model import build_model
    from gobnilp_py.ilp.stats import SolveStats

    stats = SolveStats()
    t0 = time.perf_counter()
    fm = build_model(table, params={"limits/gap": 0.0, "limits/time": float(time_limit)}, stats=stats)
    accepted = None
    if chosen is not None:
        m = fm.model
        sol = m.createSol()
        for i, k in enumerate(chosen):
            for j, var in enumerate(fm.x[i]):
                m.setSolVal(sol, var, 1.0 if j == k else 0.0)
        accepted = bool(m.addSol(sol))
    t1 = time.perf_counter()
    _optimize(fm.model, "the optimum search")
    t2 = time.perf_counter()
    sol = solution_from_model(fm)
    m = fm.model
    return {"status": sol.status, "score": sol.score, "build": t1 - t0, "solve": t2 - t1, "start_accepted": accepted,
            "nodes": m.getNNodes(), "best_solution_time": _best_sol_time(m), "solutions": m.getNSolsFound()}


def _best_sol_time(m):
    """Seconds into the solve at which the final incumbent was found."""
    try:
        return m.getSolTime(m.getBestSol())
    except Exception:  # noqa: BLE001 -- a statistic only
        return None


def og_run(table, lower_bound, time_limit):
    from gobnilp_py.search.order_engine import optimum

    t0 = time.perf_counter()
    sol = optimum(table, lower_bound=lower_bound, time_limit=time_limit)
    return {"status": sol.status, "score": sol.score, "solve": time.perf_counter() - t0,
            **{k: sol.stats.get(k) for k in ("expanded", "pruned", "nodes", "peak_memory") if k in sol.stats}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--palim", type=int, default=None)
    ap.add_argument("--asobs-time", type=float, default=5.0)
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--engines", default="ilp")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()

    from gobnilp_py import read_data, score
    from gobnilp_py.search.asobs import optimum as asobs_optimum

    load0 = os.getloadavg()
    ds = read_data(a.data, header=False)
    t0 = time.perf_counter()
    table = score(ds, palim=a.palim)
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
                r = ilp_run(table, asb.chosen if warm else None, a.time_limit)
            else:
                r = og_run(table, asb.score if warm else None, a.time_limit)
            rec[f"{eng}_{'warm' if warm else 'cold'}"] = r
            print(f"{eng:10s} {'warm' if warm else 'cold'}: {r['status']} {r['score']:.6f} "
                  f"solve {r['solve']:.1f} s {json.dumps({k: v for k, v in r.items() if k not in ('status', 'score', 'solve')})}")
            if r["status"] == "optimal":
                rec["optimum"] = r["score"]
    if "optimum" in rec:
        print(f"ASOBS gap to the optimum: {rec['optimum'] - asb.score:.6f}")
    rec["load_after"] = os.getloadavg()
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
