# Order-graph epsilon-set timing, for an A/B of two trees: PYTHONPATH=TREE python this.py (best of 3 per table).
import sys, time, math
import gobnilp_py as gp
from gobnilp_py import read_data, score
from gobnilp_py.search.order_collect import order_graph_epsilon_set
out = []
for name, bf in [("zoo", 150), ("voting", 150), ("wine", 150)]:
    ds = read_data(f"/work/shared/data/{name}.csv", header=False)
    eps = math.log(bf)
    t = score(ds, epsilon=eps, n_jobs=1)
    ts = []
    for i in range(3):
        t0 = time.perf_counter(); r = order_graph_epsilon_set(t, eps); ts.append(time.perf_counter() - t0)
    print(gp.__file__.split("/")[3], name, bf, r.status, len(r.entries), "min %.3f s" % min(ts), flush=True)
