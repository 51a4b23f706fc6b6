"""``enumerate_networks(table, method="ordergraph")`` old beside new (session 17): the collection reusing
the optimum search's best-parent lookups.

Each ``NAME:PALIM:BF`` is scored once (BIC, the first arm's code) to a ``.jkl`` in a temporary folder;
then, for each code arm (``label=PYTHONPATH``), a fresh process reads that table and times
``enumerate_networks(table, bayes_factor=BF, method="ordergraph")``, reporting the optimum search, the
collection's lookup-and-DP phase (``time_dp``), the total, the networks found and the peak resident memory.

    python benchmarks/results/verify-by-subset-dp.reuse.py old=OLD_TREE new=NEW_TREE -- sensors:3:3 letter:none:3
"""
import json, os, subprocess, sys, tempfile
from pathlib import Path

SHARED = Path(os.environ.get("GOBNILP_SHARED", "/work/shared"))
SCORE = r"""
import sys
import gobnilp_py as gp
from gobnilp_py.data import read_data
palim = None if sys.argv[2] == "none" else int(sys.argv[2])
gp.score(read_data(sys.argv[1], header=False), score="BIC", bayes_factor=float(sys.argv[3]), palim=palim).to_jkl(sys.argv[4])
"""
CHILD = r"""
import json, resource, sys, time
import gobnilp_py as gp
t = gp.ScoreTable.from_jkl(sys.argv[1])
t0 = time.perf_counter()
cs = gp.enumerate_networks(t, bayes_factor=float(sys.argv[2]), method="ordergraph")
total = time.perf_counter() - t0
s = cs.stats
print(json.dumps({"total": total, "opt": s.get("time_opt"), "dp": s.get("time_dp"), "reused": s.get("best_parents_reused"),
                  "n": len(cs), "complete": cs.complete,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""

sep = sys.argv.index("--")
arms = [a.split("=", 1) for a in sys.argv[1:sep]]
print("| data (palim, BF) | arm | optimum search, s | collection lookups + DP, s | total, s | networks | peak RSS, GB |")
print("|---|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    for spec in sys.argv[sep + 1:]:
        name, palim, bf = spec.split(":")
        jkl = Path(tmp) / f"{name}.jkl"
        subprocess.run([sys.executable, "-c", SCORE, str(SHARED / "data" / f"{name}.csv"), palim, bf, str(jkl)],
                       env=dict(os.environ, PYTHONPATH=arms[0][1]), check=True, cwd="/tmp")
        for label, tree in arms:
            out = subprocess.run([sys.executable, "-c", CHILD, str(jkl), bf], env=dict(os.environ, PYTHONPATH=tree),
                                 capture_output=True, text=True, cwd="/tmp")
            if out.returncode:
                print(f"| {name} ({palim}, {bf}) | {label} | error: {out.stderr.strip().splitlines()[-1]} | | | | |")
                continue
            d = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"| {name} ({palim}, {bf}) | {label} | {d['opt']:.2f} | {d['dp']:.2f} | {d['total']:.2f} | "
                  f"{d['n']:,}{'' if d['complete'] else ' (incomplete)'} | {d['rss']:.2f} |", flush=True)
