"""Diag: OPT, then engine._collect by class with time limit; SCIP statistics to /tmp/hh/stats_TAG.txt.
usage: diag.py JKL BF TIME TAG ['{"params": {SCIP settings}, "col": {NetworkCollector attributes},
                                  "eng": {engine module attributes}}']
(benchmarks/results/class-invariant-branching-hailfinder.md; the cut-pool variants of its §1 set an experimental
collector attribute `nogood_pool` that was not committed.)"""
import json, math, sys, time, os
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.ilp import engine
path, bf, T, tag = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
opts = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
from gobnilp_py.ilp import collector as _c
for k, v in opts.get("col", {}).items():
    setattr(_c.NetworkCollector, k, v)
for k, v in opts.get("eng", {}).items():
    setattr(engine, k, v)
table = ScoreTable.from_jkl(path)
t0 = time.perf_counter()
sol = engine.optimum(table)
opt = sol.score
t_opt = time.perf_counter() - t0
eps = math.log(bf)
tol, margin = engine.tolerances(opt)
trace = []
start = time.perf_counter()
def progress(what, found, cap, bound=None, elapsed=None, target=None):
    trace.append((round(time.perf_counter() - start, 1), found, bound))
t1 = time.perf_counter()
fm, col, stats = engine._collect(table, None, objlimit=opt - eps - tol - margin, max_networks=None, kbest=None,
                                 tie_tolerance=0.0, time_limit=T, params=opts.get("params"), verbose=False,
                                 progress=progress, by_class=True, seed_cuts=sol.reuse)
wall = time.perf_counter() - t1
m = fm.model
m.writeStatistics(f"/tmp/hh/stats_{tag}.txt")
dual = engine._dual(m)
out = {"tag": tag, "opt": opt, "t_opt": round(t_opt, 2), "wall": round(wall, 2), "status": stats["scip_status"],
       "classes": len(col.classes), "found": len(col.found), "nodes": m.getNNodes(),
       "dual_minus_opt": None if dual is None else dual - opt, "lp_iter": m.getNLPIterations(),
       "recuts": col.recuts, "time_record": round(col.time_record, 2), "open": m.getNNodesLeft(),
       "load": os.getloadavg()[0], "acyc_enf": fm.stats.enforce_calls, "br": {k: v for k, v in stats.items() if k.startswith("branch_")}, "opts": opts}
marks = {}
for t, found, b in trace:
    marks[int(t // 20) * 20] = (found, None if b is None else round(b - opt, 3))
out["trace20s"] = marks
print(json.dumps(out))
