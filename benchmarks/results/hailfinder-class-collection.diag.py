"""Diagnose the class-level collecting search on a .jkl file.
usage: diag.py JKL BF TIME '{"model": {...}, "params": {...}, "drop": [...]}' TAG
"""
import json, math, sys, time, os
import logging
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.ilp import engine, settings
path, bf, T = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
opts = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
tag = sys.argv[5] if len(sys.argv) > 5 else "run"
for k in opts.get("drop", []):
    settings.COLLECT_PARAMS.pop(k, None); engine.COLLECT_PARAMS.pop(k, None)
engine.COLLECT_MODEL_OPTIONS = {**settings.COLLECT_MODEL_OPTIONS, **opts.get("model", {})}
engine.COLLECT_PARAMS = {**engine.COLLECT_PARAMS, **opts.get("params", {})}
from gobnilp_py.ilp import collector as _c
if "initial" in opts: _c.NetworkCollector.nogood_initial = opts["initial"]
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
fmref = {}
orig = engine._collect
t1 = time.perf_counter()
fm, col, stats = engine._collect(table, None, objlimit=opt - eps - tol - margin, max_networks=None, kbest=None,
                                 tie_tolerance=0.0, time_limit=T, params=opts.get("user", None), verbose=False,
                                 progress=progress, by_class=True)
wall = time.perf_counter() - t1
m = fm.model
sf = f"/tmp/hail13/stats_{tag}.txt"
m.writeStatistics(sf)
dual = engine._dual(m)
scores = sorted(col.found.values(), reverse=True)
out = {"tag": tag, "bf": bf, "opt": opt, "t_opt": t_opt, "wall": wall, "status": stats["scip_status"],
       "classes": len(col.found), "nodes": m.getNNodes(), "total_nodes": m.getNTotalNodes(),
       "dual": dual, "dual_minus_opt": None if dual is None else dual - opt, "limit": opt - eps,
       "lp_iter": m.getNLPIterations(), "maxdepth": m.getMaxDepth(), "open_nodes": m.getNNodesLeft(),
       "nconss": m.getNConss(), "time_record": col.time_record,
       "acyc": {k: v for k, v in fm.stats.to_dict().items() if v and k != "extra"},
       "worst_found_minus_opt": (scores[-1] - opt) if scores else None,
       "opts": opts}
# classes over time
marks = {}
for t, found, b in trace:
    marks[int(t // 10) * 10] = (found, None if b is None else round(b - opt, 3))
out["trace10s"] = marks
print(json.dumps(out))
