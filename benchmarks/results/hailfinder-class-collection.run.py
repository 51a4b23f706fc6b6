import sys, time, json, resource, os
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py import enumerate_networks
import gobnilp_py
if os.environ.get("HAIL13_OLDSET"):  # the branch's nogood with the previous (DFS, inference) settings
    from gobnilp_py.ilp import engine, settings
    engine.CLASS_COLLECT_PARAMS = settings.COLLECT_PARAMS
path, bf, tl, tag = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
by = sys.argv[5] if len(sys.argv) > 5 else "class"
tab = ScoreTable.from_jkl(path)
t = time.perf_counter(); c0 = time.process_time()
cs = enumerate_networks(tab, bayes_factor=bf, method="ilp", by=by, max_networks=150000, time_limit=tl)
el = time.perf_counter() - t; cpu = time.process_time() - c0
st = cs.stats
print(json.dumps({"tag": tag + ("+oldset" if os.environ.get("HAIL13_OLDSET") else ""), "code": os.path.dirname(gobnilp_py.__file__), "file": path.split("/")[-1], "bf": bf,
   "time_limit": tl, "wall": round(el, 2), "cpu": round(cpu, 2), "complete": cs.complete, "reason": cs.reason,
   "listed": len(cs.networks), "total": cs.n_networks_total, "classes": cs.n_classes_total, "opt": cs.opt,
   "threshold": getattr(cs, "threshold", None), "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
   "stats": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in st.items()
             if k.startswith("time") or k in ("nodes", "found", "scip_status", "classes")}}), flush=True)
