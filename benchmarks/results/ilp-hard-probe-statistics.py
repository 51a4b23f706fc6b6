"""Issue 38 probe: one whole solve of a .jkl with SCIP's log (a line every 50 nodes) and its statistics.

Usage: PYTHONPATH=. python benchmarks/results/ilp-hard-probe-statistics.py TABLE.jkl SECONDS \
           [model_option=value | scip/param=value | objlimit=VALUE ...]

``objlimit`` hands SCIP an objective limit before the solve (e.g. just below a known optimum), to see how
large the tree is when the incumbent is perfect from the start.
"""
import sys, time, ast
from gobnilp_py.scoring.table import ScoreTable
import gobnilp_py.ilp.model as _mm
path = sys.argv[1]
opts = {}
params = {"limits/time": float(sys.argv[2]), "display/freq": 50}
for a in sys.argv[3:]:
    k, v = a.split("=", 1)
    try: v = ast.literal_eval(v)
    except Exception: pass
    if "/" in k: params[k] = v
    else: opts[k] = v
objlimit = opts.pop('objlimit', None)
t = ScoreTable.from_jkl(path)
t0 = time.perf_counter()
fm = _mm.build_model(t, params=params, verbose=True, **opts)
if objlimit is not None:
    fm.model.setObjlimit(float(objlimit))
fm.model.optimize()
print("WALL", round(time.perf_counter() - t0, 2), "nodes", fm.model.getNNodes(), "status", fm.model.getStatus())
fm.model.printStatistics()
