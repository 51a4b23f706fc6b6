"""Restarts ending with adjacent swaps only vs swaps then insertion moves, on the cached independence-selection
tables of bench_asobs_vs_blip.py: 3 seeds x T seconds each, one core, best score per seed.

    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python \
        benchmarks/results/asobs-vs-blip-same-table.insertion-ab.py 5 alarm hailfinder win95pts pathfinder
"""
import sys, time, math, statistics, numpy as np
from gobnilp_py import ScoreTable
from gobnilp_py.search.asobs.obs import OrderSearch, SWAP_RTOL
from gobnilp_py.search.asobs.engine import asobs_for_order
from gobnilp_py.search.asobs.restarts import restart_order

def local(search, order, deadline, ins):
    choice = asobs_for_order(search, order)
    topo = search.topological_order(choice, prefer=order)
    obs = search.obs(topo)
    o, c, _ = search.swap_search(topo, obs, deadline=deadline)
    if ins:
        s0 = search.score(c)
        o, c, _ = search.insertion_search(o, c, deadline=deadline)
        assert search.score(c) >= s0 - 1e-6
    return o, c, search.score(c)

def run(search, ins, T, seed):
    t_end = time.perf_counter() + T
    best = -math.inf; i = 0
    while time.perf_counter() < t_end:
        o, c, s = local(search, restart_order(seed, i, search.n), t_end, ins); i += 1
        best = max(best, s)
    return best, i

T = float(sys.argv[1])
for name in sys.argv[2:]:
    t = ScoreTable.from_jkl(f"/work/bench-data/asobsblip/{name}5000.is.jkl")
    search = OrderSearch(t); local(search, restart_order(0, 0, t.n), None, True)
    for ins in (False, True):
        r = [run(search, ins, T, seed) for seed in range(3)]
        print(name, "insertion" if ins else "swaps", "median", round(statistics.median(x[0] for x in r), 1), [round(x[0], 1) for x in r], "restarts", [x[1] for x in r], flush=True)
