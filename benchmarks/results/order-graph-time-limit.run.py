"""Time limits of the order-graph engines at 25 variables, old code beside new (session 16).

A random table (25 binary variables, 12 rows, noisy copies of 4 hidden ones; BIC, BF 3, palim 2: 1,669
families), whose dense best-parent lookups take about 5 s to build.  Each run is a fresh process.

    python benchmarks/results/order-graph-time-limit.run.py old=/tmp/old new=/tmp/new
"""
import json, os, subprocess, sys, tempfile

CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
import gobnilp_py as gp
from gobnilp_py.data.dataset import Dataset
n = 25
rng = np.random.default_rng(n)
base = rng.integers(0, 2, size=(12, 4))
codes = np.stack([base[:, j % 4] ^ (rng.random(12) < 0.2) for j in range(n)], 1).astype(np.int64)
tab = gp.score(Dataset([f"V{j}" for j in range(n)], [2] * n, codes), palim=2, bayes_factor=3, n_jobs=1)
task, tl = sys.argv[1], float(sys.argv[2])
t = time.perf_counter()
if task == "learn":
    r = gp.learn(tab, method="ordergraph", time_limit=tl); what = r.status
else:
    r = gp.enumerate_networks(tab, bayes_factor=3, method="ordergraph", time_limit=tl); what = "complete" if r.complete else f"INCOMPLETE ({len(r)} listed)"
print(json.dumps({"wall": time.perf_counter() - t, "what": what, "families": len(tab)}))
"""
arms = [a.split("=", 1) for a in sys.argv[1:]]
print("| task | time limit s | " + " | ".join(f"{lab}: wall s (status)" for lab, _ in arms) + " |")
print("|---|---|" + "---|" * len(arms))
with tempfile.TemporaryDirectory() as tmp:
    for task, tl in (("learn", 2), ("learn", 7), ("enumerate", 3), ("enumerate", 10)):
        cells = []
        for lab, path in arms:
            out = subprocess.run([sys.executable, "-c", CHILD, task, str(tl)], env=dict(os.environ, PYTHONPATH=path),
                                 cwd=tmp, capture_output=True, text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            cells.append(f"{r['wall']:.2f} ({r['what']})")
        print(f"| {task} | {tl} | " + " | ".join(cells) + " |", flush=True)
