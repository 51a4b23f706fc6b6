import sys, numpy as np
sys.path.insert(0, ".")
from hypothesis import given, settings, HealthCheck
from tests.test_walk_kernel import problems, _table
from gobnilp_py.scoring import engine, score
@settings(max_examples=600, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(problems())
def t(problem):
    fast = _table(problem, "numba"); ref = _table(problem, "numpy")
    assert fast.families == ref.families and fast.pruning == ref.pruning
    assert fast.meta["families_scored_per_level"] == ref.meta["families_scored_per_level"]
for d, pl in [("alarm1000", 3), ("insurance1000", 3), ("hailfinder100", 3), ("wdbc", 3), ("lung-cancer", 3), ("soybean", 3), ("spectf", 3)]:
    try:
        a = np.loadtxt(f"/work/shared/data/{d}.csv", delimiter=",", dtype=int)
    except OSError:
        continue
    out = []
    for mode in ("numba", "numpy"):
        engine.WALK_KERNEL = mode
        out.append(score(a[:2000], score="BIC", bayes_factor=3, palim=pl, n_jobs=1))
    fired = {r: sum(c[r] for c in out[1].pruning.values()) for r in ("penalty_bound", "ll_ceiling", "entropy", "parent_count")}
    print(d, pl, "identical" if (out[0].families == out[1].families and out[0].pruning == out[1].pruning) else "DIFFERENT", fired)
