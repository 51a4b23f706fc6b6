"""Width-and-method sweep (session 16): learn / enumerate / kbest calls on random tables of the given widths,
each with a time limit.  Prints each call's wall time and status; "OVER" marks a call past 1.1 x the limit
+ 0.5 s, "RAW" an exception that is not the package's own one-line error.

    python session16-sweep.py methods 24,25,26,30 5    # every method of learn, enumerate (auto, order graph), kbest
    python session16-sweep.py tasks 12,20,25,40,60 5   # enumerate by class / DAG (ILP), kbest by ILP, re-solve,
                                                       # order graph, learn and enumerate from data

The data: n binary variables, 12 rows, noisy copies of 4 hidden ones (seeded by n); BIC, BF 3, palim 2.
"""
import sys, time, warnings

import numpy as np

warnings.simplefilter("ignore")
import gobnilp_py as gp
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import GobnilpError


def data(n):
    rng = np.random.default_rng(n)
    base = rng.integers(0, 2, size=(12, 4))
    codes = np.stack([base[:, j % 4] ^ (rng.random(12) < 0.2) for j in range(n)], 1).astype(np.int64)
    return Dataset([f"V{j}" for j in range(n)], [2] * n, codes)


def calls(part, ds, tab, tl):
    enum = lambda **kw: gp.enumerate_networks(tab, bayes_factor=3, time_limit=tl, max_networks=50, **kw)
    if part == "methods":
        return {**{f"learn-{m}": (lambda m=m: gp.learn(tab, method=m, time_limit=tl))
                   for m in ("auto", "ilp", "ordergraph", "dp")},
                "enum-auto": lambda: enum(), "enum-ordergraph": lambda: enum(method="ordergraph"),
                "kbest": lambda: gp.kbest(tab, 3, time_limit=tl)}
    return {"enum-ilp-class": lambda: enum(method="ilp", by="class"), "enum-ilp-dag": lambda: enum(method="ilp", by="dag"),
            **{f"kbest-{m}": (lambda m=m: gp.kbest(tab, 3, method=m, time_limit=tl)) for m in ("ilp", "resolve", "ordergraph")},
            "enum-data": lambda: gp.enumerate_networks(ds, bayes_factor=3, palim=2, time_limit=tl, max_networks=50),
            "learn-data": lambda: gp.learn(ds, palim=2, time_limit=tl)}


part, widths, tl = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], float(sys.argv[3])
for n in widths:
    ds = data(n)
    tab = gp.score(ds, palim=2, bayes_factor=3, n_jobs=1)
    for task, f in calls(part, ds, tab, tl).items():
        t = time.time()
        try:
            r = f()
            res = getattr(r, "status", None) or ("complete" if r.complete else f"INCOMPLETE {len(r)}")
        except GobnilpError as e:
            res = "refused: " + type(e).__name__ + ": " + str(e)[:110]
        except Exception as e:
            res = "RAW " + type(e).__name__ + ": " + str(e)[:150]
        el = time.time() - t
        print(n, task, round(el, 1), ("OVER " if el > tl * 1.1 + 0.5 else "") + res, flush=True)
