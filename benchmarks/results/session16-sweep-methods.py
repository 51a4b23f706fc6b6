"""Width-and-method sweep, part 1 (session 16): every learn / enumerate / kbest method on random tables of the
given widths, with a time limit; prints each call wall time and status, "RAW" for an exception that is not the
package own one-line error.   python session16-sweep-methods.py 24,25,26,30 5   (widths, time limit s)
"""
import numpy as np, warnings, traceback, time, sys
warnings.simplefilter("ignore")
import gobnilp_py as gp
from gobnilp_py.errors import GobnilpError
from gobnilp_py.data.dataset import Dataset
out = []
TL = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
for n in [int(x) for x in sys.argv[1].split(",")]:
    rng = np.random.default_rng(n)
    N = 12
    base = rng.integers(0, 2, size=(N, 4))
    codes = np.stack([base[:, j % 4] ^ (rng.random(N) < 0.2) for j in range(n)], 1).astype(np.int64)
    ds = Dataset([f"V{j}" for j in range(n)], [2] * n, codes)
    try:
        tab = gp.score(ds, palim=2, bayes_factor=3, n_jobs=1)
    except Exception as e:
        print(n, "score", type(e).__name__, str(e)[:150]); continue
    for task in ["learn-auto", "learn-ilp", "learn-ordergraph", "learn-dp", "enum-auto", "enum-ordergraph", "kbest"]:
        t = time.time()
        try:
            if task.startswith("learn"):
                r = gp.learn(tab, method=task.split("-")[1], time_limit=TL); s = r.status
            elif task.startswith("enum"):
                r = gp.enumerate_networks(tab, bayes_factor=3, method=task.split("-")[1], time_limit=TL, max_networks=50); s = "complete" if r.complete else "INCOMPLETE " + str(len(r))
            else:
                r = gp.kbest(tab, 3, time_limit=TL); s = "complete" if r.complete else "INCOMPLETE " + str(len(r))
            res = s
        except GobnilpError as e:
            res = "refused: " + type(e).__name__ + ": " + str(e)[:110]
        except Exception as e:
            res = "RAW " + type(e).__name__ + ": " + str(e)[:150]
        print(n, task, round(time.time() - t, 1), res, flush=True)
