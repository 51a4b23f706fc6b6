"""One ILP collection from a CSV: python collect_one.py DATA BF BY -> a JSON line (times, counts, nodes)."""
import json, sys, time
import gobnilp_py as gp
name, bf, by = sys.argv[1], float(sys.argv[2]), sys.argv[3]
data = gp.read_data(f"../shared/data/{name}.csv", header=False)
t0 = time.perf_counter()
table = gp.score(data, bayes_factor=bf)
t1 = time.perf_counter()
cs = gp.enumerate_networks(table, bayes_factor=bf, method="ilp", by=by, time_limit=400)
t2 = time.perf_counter()
st = cs.stats
print(json.dumps({"data": name, "bf": bf, "by": by, "score_s": round(t1 - t0, 2), "search_s": round(t2 - t1, 2),
                  "networks": cs.n_networks_total, "complete": cs.complete,
                  "stats": {k: v for k, v in st.items() if isinstance(v, (int, float, str))}}))
