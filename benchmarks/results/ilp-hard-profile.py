"""Issue 38: cProfile of one ILP solve of a .jkl for SECONDS (usage: PYTHONPATH=. python benchmarks/results/ilp-hard-profile.py TABLE.jkl SECONDS)."""
import cProfile, pstats, sys, time
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.ilp.model import build_model
t = ScoreTable.from_jkl(sys.argv[1])
fm = build_model(t, params={"limits/time": float(sys.argv[2])})
pr = cProfile.Profile(); t0=time.perf_counter()
pr.enable(); fm.model.optimize(); pr.disable()
print("wall", time.perf_counter()-t0, "nodes", fm.model.getNNodes(), "dual", fm.model.getDualbound(), "primal", fm.model.getPrimalbound())
print({k: round(v,2) if isinstance(v,float) else v for k,v in fm.stats.to_dict().items() if k.startswith("time") or k in ("heuristic_calls","propagation_calls","separation_rounds","nodes")})
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
