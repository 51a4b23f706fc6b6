"""Issue 38: the root node alone (limits/nodes = 1) of the ILP on a .jkl, with engine options and SCIP params.

Usage: PYTHONPATH=. python benchmarks/results/ilp-hard-root-bound.py TABLE.jkl SECONDS [option=value | scip/param=value ...]
Prints the last separation rounds (dual bound, result, cuts added, seconds, depth) and the root's dual bound.
"""
import sys, time, json, ast
from gobnilp_py.scoring.table import ScoreTable
import gobnilp_py.ilp.model as _mm
from gobnilp_py.ilp import acyclicity
path = sys.argv[1]
opts = {}
params = {"limits/time": float(sys.argv[2]), "limits/nodes": 1}
for a in sys.argv[3:]:
    k, v = a.split("=", 1)
    try: v = ast.literal_eval(v)
    except Exception: pass
    if "/" in k: params[k] = v
    else: opts[k] = v
t = ScoreTable.from_jkl(path)
orig = acyclicity.AcyclicityHandler.separate
log = []
def sep(self, xval, exact=True):
    t0 = time.perf_counter()
    n0 = self.stats.cuts_total
    r = orig(self, xval, exact=exact)
    log.append((round(self.model.getDualbound(), 1), str(r).split(".")[-1], self.stats.cuts_total - n0, round(time.perf_counter()-t0, 3), self.model.getDepth()))
    return r
acyclicity.AcyclicityHandler.separate = sep
t0 = time.perf_counter()

fm = _mm.build_model(t, params=params, verbose=False, **opts)

fm.model.optimize()
el = time.perf_counter() - t0
m = fm.model
for l in log[-15:]: print(l)
print("rounds", len(log), "didnotfind", sum(1 for l in log if l[1] != "SEPARATED"))
print("ROOT dual", m.getDualbound(), "primal", m.getPrimalbound(), "time", round(el, 2), "lpiters", m.getNLPIterations(), "cuts", fm.stats.cuts_total, "subip s", round(fm.stats.time_subip, 2), "sep s", round(fm.stats.time_separation,2), "heur s", round(fm.stats.time_heuristic,2), "lp s", m.getSolvingTime())
