# enumerate a .jkl table at BF 3 with class-invariant branching off (settings.CLASS_BRANCHING = False), for the A/B in wide-aims-final-rerun.md
import json, sys, time
import gobnilp_py as gp
from gobnilp_py.ilp import settings
settings.CLASS_BRANCHING = False
t0 = time.perf_counter()
cs = gp.enumerate_networks(sys.argv[1], bayes_factor=3,
                           time_limit=1200)
s = cs.stats
print(f"wall {time.perf_counter() - t0:.1f} s complete={cs.complete} reason={cs.reason} networks={len(cs)} opt={cs.opt}")
print(json.dumps({k: s.get(k) for k in ('time_opt', 'time_collect', 'found', 'nodes', 'by', 'cuts_total', 'nogood_recuts',
                                      'branch_adjacency', 'branch_rule_on')}, default=str))
