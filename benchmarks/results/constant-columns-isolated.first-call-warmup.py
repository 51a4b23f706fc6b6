"""First score() call on NAME in a fresh process, after scoring PRE first (or none): how much of a first
call is the process warming up (session 16).  python constant-columns-isolated.first-call-warmup.py PRE NAME"""
import sys, time, statistics
import gobnilp_py as gp
from gobnilp_py.data import read_data
pre, name = sys.argv[1], sys.argv[2]
if pre != "none":
    gp.score(read_data(f"/work/shared/data/{pre}.csv", header=False), score="BIC", bayes_factor=3, n_jobs=1)
ds = read_data(f"/work/shared/data/{name}.csv", header=False)
t0 = time.perf_counter(); gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); first = time.perf_counter() - t0
w = []
for _ in range(10):
    t0 = time.perf_counter(); gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); w.append(time.perf_counter() - t0)
print(pre, name, "first %.1f warm %.1f" % (first * 1e3, statistics.median(w) * 1e3))
