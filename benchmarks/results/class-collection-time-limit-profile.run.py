import sys, time, json
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py import enumerate_networks
path, bf, tl = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
by = sys.argv[4] if len(sys.argv) > 4 else "class"
tab = ScoreTable.from_jkl(path)
t = time.perf_counter(); c0 = time.process_time()
cs = enumerate_networks(tab, bayes_factor=bf, method="ilp", by=by, max_networks=150000, time_limit=tl)
el = time.perf_counter() - t; cpu = time.process_time() - c0
print(json.dumps({"file": path.split("/")[-1], "wall": round(el, 3), "cpu": round(cpu, 3), "complete": cs.complete, "reason": cs.reason,
   "listed": len(cs.networks), "total": cs.n_networks_total, "classes": cs.n_classes_total,
   "stats": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in cs.stats.items() if k.startswith("time") or k in ("nodes", "found")}}))
