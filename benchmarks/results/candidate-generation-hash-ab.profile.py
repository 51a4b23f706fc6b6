import sys, time, numpy as np, logging, collections
import gobnilp_py.scoring as S
from gobnilp_py.scoring import engine, _walk_numba as W
logging.basicConfig(level=logging.INFO, format="%(message)s")
T = collections.defaultdict(float); C = collections.Counter()
real_gen = W.generate_penalised
def gen(lv, a0, b0, *a, **kw):
    t = time.perf_counter(); r = real_gen(lv, a0, b0, *a, **kw); T["gen"] += time.perf_counter() - t
    C["calls"] += 1; C["rows"] += b0 - a0; C["out"] += r[0].size; return r
W.generate_penalised = gen
real_ki = engine._kernel_inputs
def ki(run, levels, grow, n):
    t = time.perf_counter(); r = real_ki(run, levels, grow, n); T["ki"] += time.perf_counter() - t
    sz = [lv.masks.size for lv in levels]; print("level rows", sum(sz), "max child", max(sz), "ki s", round(time.perf_counter()-t,3)); return r
engine._kernel_inputs = ki
a = np.loadtxt("/work/shared/data/spectf.csv", delimiter=",", dtype=int)
t = time.perf_counter()
tab = S.score(a, score="BIC", bayes_factor=3, palim=int(sys.argv[1]))
print("total", round(time.perf_counter()-t, 2), dict(T), dict(C), tab.meta["families_scored"], len(tab))
