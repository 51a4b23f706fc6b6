"""sensors (25 variables, 962,366 families at BIC BF 3): order_graph_optimum dense beside sparse (session 16).

    python order-graph-time-limit.sensors.py
"""
import warnings, time, sys
warnings.simplefilter("ignore")
import gobnilp_py as gp
from gobnilp_py.search.order_graph import order_graph_optimum
t0 = time.perf_counter()
tab = gp.score("/work/shared/data/sensors.csv", header=False, bayes_factor=3)
print("scored", len(tab), round(time.perf_counter() - t0, 1), flush=True)
for be in ("dense", "sparse"):
    t0 = time.perf_counter(); r = order_graph_optimum(tab, backend=be, time_limit=240); el = time.perf_counter() - t0
    print(be, r.status, round(r.score, 6), round(el, 2), round(r.stats.get("time_best_parents", 0), 2), r.stats.get("maxrss_bytes"), flush=True)
