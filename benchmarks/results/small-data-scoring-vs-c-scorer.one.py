"""One arm, one dataset, in a fresh process: first score() call and the median of `reps` warm calls (BIC, BF 3, one core)."""
import sys, time, statistics, resource, hashlib, json
import os
import gobnilp_py as gp
from gobnilp_py.data import read_data
name, reps, score = sys.argv[1], int(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else "BIC")
ds = read_data(os.path.join(os.environ.get("GOBNILP_SHARED", "/work/shared"), "data", f"{name}.csv"), header=False)
t0 = time.perf_counter(); t = gp.score(ds, score=score, bayes_factor=3, n_jobs=1); first = time.perf_counter() - t0
w = []
for _ in range(reps):
    t0 = time.perf_counter(); gp.score(ds, score=score, bayes_factor=3, n_jobs=1); w.append(time.perf_counter() - t0)
sig = hashlib.md5(repr([[p for p, _ in f] for f in t.families]).encode()).hexdigest()[:8]
print(json.dumps(dict(name=name, first=first, warm=statistics.median(w) if w else None, kept=len(t),
                      scored=t.meta["families_scored"], sig=sig, rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
