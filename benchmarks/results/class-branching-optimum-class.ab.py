"""A/B: the class collection with the optimum's-class rule (new) and without it (old), same table, one process each."""
import sys, time, json
from gobnilp_py import enumerate_networks, read_data, score
from gobnilp_py.ilp import class_branching as CB
name, bf, arm = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if arm == "old":
    CB.MIN_OPTIMUM_CLASS_SIZE = 0
t = score(read_data(f"/work/shared/data/{name}.csv", header=False), bayes_factor=bf)
t0 = time.perf_counter()
cs = enumerate_networks(t, bayes_factor=bf, method="ilp", by="class", time_limit=float(sys.argv[4]))
s = cs.stats
print(json.dumps({"data": name, "bf": bf, "arm": arm, "complete": cs.complete, "networks": cs.n_networks_total,
                  "classes": cs.n_classes_total, "t_opt": round(s.get("time_opt", 0), 2),
                  "t_collect": round(s.get("time_collect", 0), 2), "nodes": s.get("nodes"),
                  "rule_on": s.get("branch_rule_on"), "opt_class": s.get("branch_optimum_class_members"),
                  "adj": s.get("branch_adjacency"), "recuts": s.get("nogood_recuts")}))
