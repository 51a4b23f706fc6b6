import sys, time, logging, resource
import numpy as np
import gobnilp_py.scoring as S
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
d = sys.argv[1]
a = np.loadtxt(f"/work/shared/data/{d}.csv", delimiter=",", dtype=int)
t=time.perf_counter()
tab = S.score(a, score="BIC", bayes_factor=3)
el=time.perf_counter()-t
print("time", el, "scored", tab.meta["families_scored"], tab.meta["families_scored_per_level"], "kept", sum(len(x) for x in tab.families))
print("maxrss MB self", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024, "children", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024)
tab.to_jkl(f"/tmp/{d}.bic.bf3.new.jkl")
