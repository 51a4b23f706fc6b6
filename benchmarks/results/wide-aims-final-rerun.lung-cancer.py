# enumerate lung-cancer (BIC, BF 3) with a time limit of $1 seconds; print the result and its class-collection counters (session 20)
import sys, time, json
import gobnilp_py as gp
from gobnilp_py.data import read_data
ds = read_data('/work/shared/data/lung-cancer.csv', header=False)
t0 = time.perf_counter()
cs = gp.enumerate_networks(ds, bayes_factor=3, time_limit=float(sys.argv[1]))
el = time.perf_counter() - t0
keep = ['found', 'nodes', 'time_opt', 'time_collect', 'listed', 'stopped_for_listing', 'cuts_total', 'scip_status',
        'by', 'nogood_recuts', 'time_record', 'branch_adjacency', 'branch_vstructure']
print(f"wall {el:.1f} s complete={cs.complete} reason={cs.reason} listed={len(cs.networks)} "
      f"classes={len(cs.classes or [])} threshold={cs.threshold} opt={cs.opt}")
print(json.dumps({k: cs.stats.get(k) for k in keep}, default=str))
