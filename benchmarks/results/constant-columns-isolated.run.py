"""learn() on the shared datasets with constant columns (carpo100, mushroom), old code beside new (session 16).

Each run is a fresh process: ``learn(CSV, header=False, time_limit=T, **extra)``, timed from the call
(import excluded), with the peak resident memory of the process.  Arms are ``label=PYTHONPATH`` (a tree
holding a ``gobnilp_py`` package, byte-compiled beforehand); ``extra`` is given per row as JSON.

    python benchmarks/results/constant-columns-isolated.run.py T old=/tmp/old new=/tmp/new
"""
import json, os, subprocess, sys, tempfile
from pathlib import Path

SHARED = Path(os.environ.get("GOBNILP_SHARED", "/work/shared"))
CHILD = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import gobnilp_py as gp
t0 = time.perf_counter()
try:
    net = gp.learn(sys.argv[1], header=False, time_limit=float(sys.argv[2]), **json.loads(sys.argv[3]))
    out = {"status": net.status, "score": net.score, "scoring_s": net.stats.get("time_scoring"),
           "search_s": net.stats.get("time_search"), "method": net.stats.get("method")}
except Exception as exc:
    out = {"status": "error: " + type(exc).__name__ + ": " + str(exc)[:90]}
out["wall_s"] = time.perf_counter() - t0
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""
T = sys.argv[1]
arms = [a.split("=", 1) for a in sys.argv[2:]]
rows = [("carpo100", {}), ("carpo100", {"palim": 3}), ("mushroom", {})]
print("| data | options | arm | status | score | scoring s | search s | wall s | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    for name, extra in rows:
        for lab, path in arms:
            try:
                p = subprocess.run([sys.executable, "-c", CHILD, str(SHARED / "data" / f"{name}.csv"), T, json.dumps(extra)],
                                   env=dict(os.environ, PYTHONPATH=path), cwd=tmp, capture_output=True, text=True,
                                   timeout=float(T) + 600)
                r = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {"status": "crash: " + p.stderr.strip()[-120:]}
            except subprocess.TimeoutExpired:
                r = {"status": f"killed after {float(T) + 600:.0f} s"}
            f = lambda k, fmt: (fmt % r[k]) if r.get(k) is not None else ""
            print(f"| {name} | {json.dumps(extra) if extra else 'none'} | {lab} | {r['status']} | {f('score', '%.6f')} | "
                  f"{f('scoring_s', '%.2f')} | {f('search_s', '%.2f')} | {f('wall_s', '%.2f')} | {f('peak_rss_mb', '%.0f')} |", flush=True)
