"""Width-and-method sweep, part 2 (session 16): enumerate by class and by DAG (ILP), kbest by ILP, re-solve and
order graph, and learn/enumerate from data, on random tables of the given widths with a time limit; "OVER"
marks a call that ran past 1.1 x the limit + 0.5 s.   python session16-sweep-tasks.py 12,20,25,40,60 5
"""
import numpy as np, warnings, time, sys
warnings.simplefilter("ignore")
import gobnilp_py as gp
from gobnilp_py.errors import GobnilpError
from gobnilp_py.data.dataset import Dataset
TL = float(sys.argv[2])
for n in [int(x) for x in sys.argv[1].split(",")]:
    rng = np.random.default_rng(n)
    N = 12
    base = rng.integers(0, 2, size=(N, 4))
    codes = np.stack([base[:, j % 4] ^ (rng.random(N) < 0.2) for j in range(n)], 1).astype(np.int64)
    ds = Dataset([f"V{j}" for j in range(n)], [2] * n, codes)
    tab = gp.score(ds, palim=2, bayes_factor=3, n_jobs=1)
    calls = {
        "enum-ilp-class": lambda: gp.enumerate_networks(tab, bayes_factor=3, method="ilp", by="class", time_limit=TL, max_networks=50),
        "enum-ilp-dag": lambda: gp.enumerate_networks(tab, bayes_factor=3, method="ilp", by="dag", time_limit=TL, max_networks=50),
        "kbest-ilp": lambda: gp.kbest(tab, 3, method="ilp", time_limit=TL),
        "kbest-resolve": lambda: gp.kbest(tab, 3, method="resolve", time_limit=TL),
        "kbest-ordergraph": lambda: gp.kbest(tab, 3, method="ordergraph", time_limit=TL),
        "enum-data": lambda: gp.enumerate_networks(ds, bayes_factor=3, palim=2, time_limit=TL, max_networks=50),
        "learn-data": lambda: gp.learn(ds, palim=2, time_limit=TL),
    }
    for task, f in calls.items():
        t = time.time()
        try:
            r = f()
            res = getattr(r, "status", None) or ("complete" if r.complete else f"INCOMPLETE {len(r)}")
        except GobnilpError as e:
            res = "refused: " + type(e).__name__ + ": " + str(e)[:110]
        except Exception as e:
            res = "RAW " + type(e).__name__ + ": " + str(e)[:150]
        el = time.time() - t
        print(n, task, round(el, 1), ("OVER " if el > TL * 1.1 + 0.5 else "") + res, flush=True)
