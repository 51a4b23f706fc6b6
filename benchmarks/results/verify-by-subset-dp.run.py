"""``learn(data, verify=True)`` old beside new (session 17): which method cross-checks, and how long it takes.

For each dataset and each code arm (``label=PYTHONPATH``), one fresh process runs ``learn(data,
verify=True)`` (BIC, no parent limit, method auto) and reports the method, the verifier, the scoring,
search and cross-check times and the status; a process still running after CAP seconds is killed.

    python benchmarks/results/verify-by-subset-dp.run.py CAP old=OLD_TREE new=NEW_TREE -- wine zoo mushroom ...
"""
import json, os, subprocess, sys, time
from pathlib import Path

SHARED = Path(os.environ.get("GOBNILP_SHARED", "/work/shared"))
CHILD = r"""
import json, sys, time
import gobnilp_py as gp
from gobnilp_py.data import read_data
ds = read_data(sys.argv[1], header=False)
t0 = time.perf_counter()
net = gp.learn(ds, verify=True)
total = time.perf_counter() - t0
s = net.stats
print(json.dumps({"method": s["method"], "verified_by": s.get("verified_by"), "verification": s.get("verification"),
                  "status": net.status, "score": net.score, "total": total, "scoring": s.get("time_scoring", 0.0),
                  "search": s.get("time_search", 0.0)}))
"""

cap = float(sys.argv[1])
sep = sys.argv.index("--")
arms = [a.split("=", 1) for a in sys.argv[2:sep]]
print("| data | arm | method | verified by | scoring, s | search, s | cross-check, s | total, s | score |")
print("|---|---|---|---|---|---|---|---|---|")
for name in sys.argv[sep + 1:]:
    for label, tree in arms:
        env = dict(os.environ, PYTHONPATH=tree)
        t0 = time.perf_counter()
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, str(SHARED / "data" / f"{name}.csv")], env=env,
                                 capture_output=True, text=True, timeout=cap, cwd="/tmp")
        except subprocess.TimeoutExpired:
            print(f"| {name} | {label} | | | | | | > {cap:.0f} (killed) | |", flush=True)
            continue
        if out.returncode:
            print(f"| {name} | {label} | error: {out.stderr.strip().splitlines()[-1]} | | | | | | |", flush=True)
            continue
        d = json.loads(out.stdout.strip().splitlines()[-1])
        check = d["total"] - d["scoring"] - d["search"]
        print(f"| {name} | {label} | {d['method']} | {d['verified_by'] or d['verification']} | {d['scoring']:.2f} | "
              f"{d['search']:.2f} | {check:.2f} | {d['total']:.2f} | {d['score']:.6f} |", flush=True)
