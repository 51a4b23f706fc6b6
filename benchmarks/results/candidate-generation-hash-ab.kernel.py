import numpy as np, pickle, time, importlib.util, sys
from gobnilp_py.scoring import _walk_numba as W
spec = importlib.util.spec_from_file_location("walk_base", "/work/wt/hash14-base/gobnilp_py/scoring/_walk_numba.py")
B = importlib.util.module_from_spec(spec); spec.loader.exec_module(B)
calls = pickle.load(open("/tmp/hash14/calls.pkl", "rb"))
m_, l_, p_ = calls[0][7][4][:3]
NEW = (m_, l_, p_, W.entropy_floor(l_, p_, calls[0][7][3])) + W.build_tables(m_, p_)
print("floor", W.entropy_floor(l_, p_, calls[0][7][3])[:8])
print("rules", calls[0][7][12], "prune", calls[0][7][11], "arities>1", int((calls[0][7][1] > 1).sum()))
def run(mod, n_others, rules=None):
    t = time.perf_counter(); outs = []
    for (lv, a0, b0, j0, j1, v, k, a, kw) in calls:
        a = list(a); a[4] = a[4][:3] if n_others == 3 else NEW
        if rules is not None: a[12] = rules
        outs.append(mod.generate_penalised(lv, a0, b0, j0, j1, v, k, *a, **kw))
    return round(time.perf_counter() - t, 3), outs
for rules in (None, frozenset(), frozenset({"entropy"}), frozenset({"parent_count", "penalty_bound", "ll_ceiling"})):
    run(B, 3, rules); run(W, 5, rules)
    tb, ob = run(B, 3, rules); tw, ow = run(W, 5, rules)
    same = all(all(np.array_equal(x, y) for x, y in zip(p, q)) for p, q in zip(ob, ow))
    print(sorted(rules) if rules is not None else "all", "base", tb, run(B, 3, rules)[0], "hash", tw, run(W, 5, rules)[0], "same", same)
