"""One arm, one dataset, fresh process: one score() call, BIC, BF 3, no parent limit, default n_jobs (all cores)."""
import sys, time, resource, json
import os
import gobnilp_py as gp
from gobnilp_py.data import read_data
name = sys.argv[1]
ds = read_data(os.path.join(os.environ.get("GOBNILP_SHARED", "/work/shared"), "data", f"{name}.csv"), header=False)
t0 = time.perf_counter(); t = gp.score(ds, score="BIC", bayes_factor=3); wall = time.perf_counter() - t0
fams = sorted((v, p) for v, f in enumerate(t.families) for p, _ in f)
print(json.dumps(dict(name=name, time=round(wall, 2), kept=len(t), scored=t.meta["families_scored"],
      per_level=t.meta["families_scored_per_level"], sets_hash=hash(tuple(fams)) & 0xffffffff,
      rss_main_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
      rss_worker_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))), flush=True)
