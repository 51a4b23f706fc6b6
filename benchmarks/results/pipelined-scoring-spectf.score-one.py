import sys, time, json, resource
import numpy as np
import gobnilp_py.scoring as S
d, palim = sys.argv[1], (None if sys.argv[2] == "None" else int(sys.argv[2]))
a = np.loadtxt(f"/work/shared/data/{d}.csv", delimiter=",", dtype=int)
t = time.perf_counter()
tab = S.score(a, score="BIC", bayes_factor=3, palim=palim)
el = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024; rc = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("RESULT", json.dumps({"data": d, "palim": palim, "time": round(el, 2), "scored": tab.meta["families_scored"],
      "kept": len(tab), "peak_MB_self": round(ru), "peak_MB_worker": round(rc), "code": S.__file__}))
