"""wdbc BIC BF 3 table (bench3's, 17,189 families): ILP cold/warm and the order graph with its ASOBS start, 150 s each."""
import json, time, sys
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.search.incumbent import quick_incumbent
from gobnilp_py.search.asobs import asobs_search
from gobnilp_py.ilp.engine import optimum
from gobnilp_py.search.order_graph import order_graph_optimum
t = ScoreTable.from_jkl(sys.argv[1])
rec = {"table": sys.argv[1], "n": t.n, "families": len(t)}
t0 = time.perf_counter(); inc = quick_incumbent(t); rec["incumbent"] = {"score": inc.score, "orders": inc.orders, "time": time.perf_counter() - t0}
t0 = time.perf_counter(); r = asobs_search(t, time_limit=10, seed=0); rec["asobs10s"] = {"score": r.score, "orders": r.orders}
print(rec, flush=True)
for ws in (False, True):
    t0 = time.perf_counter(); s = optimum(t, warm_start=ws, time_limit=150)
    rec[f"ilp_{'warm' if ws else 'cold'}"] = {"status": s.status, "score": s.score, "dual": s.dual_bound, "time": time.perf_counter() - t0}
    print(rec[f"ilp_{'warm' if ws else 'cold'}"], flush=True)
t0 = time.perf_counter()
try:
    g = order_graph_optimum(t, time_limit=150, memory_budget=6 * 2**30)
    rec["ordergraph"] = {"status": g.status, "score": g.score, "lb": g.lower_bound, "ub": g.upper_bound, "time": time.perf_counter() - t0, "source": g.stats.get("lower_bound_source")}
except Exception as e:
    rec["ordergraph"] = {"error": str(e), "time": time.perf_counter() - t0}
print(rec["ordergraph"], flush=True)
with open("/tmp/ws16/wdbc.jsonl", "a") as f:
    f.write(json.dumps(rec) + "\n")
