import time, sys, numpy as np
from gobnilp_py import ScoreTable
from gobnilp_py.search.asobs.obs import OrderSearch
from gobnilp_py.search.asobs.acyclic import asobs_for_order
from gobnilp_py.search.asobs.restarts import restart_order
t = ScoreTable.from_jkl(f"/work/bench-data/asobsblip/{sys.argv[1]}5000.is.jkl")
s = OrderSearch(t)
K = int(sys.argv[2])
_c = asobs_for_order(s, restart_order(0, 0, s.n)); _t = s.topological_order(_c); s.insertion_search(*s.swap_search(_t, s.obs(_t))[:2])
ph = dict.fromkeys(["order", "asobs", "topo", "obs", "swaps", "insertion", "score"], 0.0)
for ins in (False, True):
    for k in ph: ph[k] = 0.0
    best = -1e300
    for i in range(K):
        a = time.perf_counter(); o = restart_order(0, i, s.n); b = time.perf_counter(); ph["order"] += b - a
        c = asobs_for_order(s, o); a = time.perf_counter(); ph["asobs"] += a - b
        topo = s.topological_order(c, prefer=o); b = time.perf_counter(); ph["topo"] += b - a
        oc = s.obs(topo); a = time.perf_counter(); ph["obs"] += a - b
        topo, f, _ = s.swap_search(topo, oc); b = time.perf_counter(); ph["swaps"] += b - a
        if ins:
            topo, f, _ = s.insertion_search(topo, f)
        a = time.perf_counter(); ph["insertion"] += a - b
        best = max(best, s.score(f)); b = time.perf_counter(); ph["score"] += b - a
    tot = sum(ph.values())
    print(sys.argv[1], "insertions" if ins else "swaps only", f"{K} restarts, {1e3*tot/K:.2f} ms each:", {k: f"{100*v/tot:.0f}%" for k, v in ph.items()}, "best", round(best, 1))
