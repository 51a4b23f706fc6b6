"""One arm: the whole score table of each dataset, BIC and BDeu (ess 1), BF 3, no parent limit, one core,
hashed with its exact scores and its pruning counters (session 19).  Run it with each arm's PYTHONPATH
and compare the lines: equal hashes are equal tables, score for score, and equal counters.

    PYTHONPATH=TREE python benchmarks/results/sort-free-walk.same-tables.py iris:BIC,BDeu wine:BIC ...
"""
import hashlib, json, os, sys, time
import gobnilp_py as gp
from gobnilp_py.data import read_data

shared = os.environ.get("GOBNILP_SHARED", "/work/shared")
for spec in sys.argv[1:]:
    name, scores = spec.split(":")
    ds = read_data(os.path.join(shared, "data", f"{name}.csv"), header=False)
    for score in scores.split(","):
        t0 = time.perf_counter()
        t = gp.score(ds, score=score, bayes_factor=3, n_jobs=1)
        el = time.perf_counter() - t0
        fam = hashlib.md5(repr(t.families).encode()).hexdigest()[:10]
        cnt = hashlib.md5(json.dumps(t.pruning, sort_keys=True).encode()).hexdigest()[:10]
        print(f"{name} {score} kept={len(t)} scored={t.meta['families_scored']} families={fam} counters={cnt} "
              f"time={el:.2f}s", flush=True)
