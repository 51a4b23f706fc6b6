"""Issue 38: the optimum search restarted with arrow variables after N open nodes, beside no restart.

One table, one arm per process (``optimum()`` through the API on a ``.jkl``), one JSON line per run.
Usage (from the project root, venv active; each run under the shared lock)::

    PYTHONPATH=. flock /work/cpu.lock python benchmarks/results/ilp-arrow-restart-ab.py TABLE.jkl N SECONDS LOG
"""
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from gobnilp_py.ilp.engine import optimum
from gobnilp_py.scoring.table import ScoreTable

path, restart, limit, log = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
load = Path("/proc/loadavg").read_text().split()[0]
table = ScoreTable.from_jkl(path)
t0 = time.perf_counter()
sol = optimum(table, time_limit=limit, arrow_restart=restart)
wall = time.perf_counter() - t0
rec = {"table": Path(path).name, "arrow_restart": restart, "status": sol.status, "score": sol.score,
       "dual": sol.dual_bound, "wall": round(wall, 2), "nodes": sol.stats.get("nodes"),
       "restart": sol.stats.get("extra", {}).get("arrow_restart"), "load": load,
       "utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
print(json.dumps(rec))
with open(log, "a") as fh:
    fh.write(json.dumps(rec) + "\n")
