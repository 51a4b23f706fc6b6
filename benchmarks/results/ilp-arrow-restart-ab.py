"""Issue 38: the optimum search restarted with arrow variables after its root, beside no restart.

One table, one arm per process (``optimum(arrow_restart=GAP)`` through the API on a ``.jkl``), one JSON line
per run.  GAP: the root gap at or above which the search is rebuilt with arrow variables (``0``: whenever
the root leaves the search open; ``inf``: never, the default).
Usage (from the project root, venv active; each run under the shared lock)::

    PYTHONPATH=. flock /work/cpu.lock python benchmarks/results/ilp-arrow-restart-ab.py TABLE.jkl GAP SECONDS LOG

(The runs in ``ilp-arrow-restart-ab.jsonl`` were made with the first form of the option, a node count:
``arrow_restart`` 1 there is GAP 0 here, 0 there is ``inf`` here.)
"""
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from gobnilp_py.ilp.engine import optimum
from gobnilp_py.scoring.table import ScoreTable

path, restart, limit, log = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
load = Path("/proc/loadavg").read_text().split()[0]
table = ScoreTable.from_jkl(path)
t0 = time.perf_counter()
sol = optimum(table, time_limit=limit, arrow_restart=restart)
wall = time.perf_counter() - t0
rec = {"table": Path(path).name, "arrow_restart": str(restart), "status": sol.status, "score": sol.score,
       "dual": sol.dual_bound, "wall": round(wall, 2), "nodes": sol.stats.get("nodes"),
       "restart": sol.stats.get("extra", {}).get("arrow_restart"), "load": load,
       "utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
print(json.dumps(rec))
with open(log, "a") as fh:
    fh.write(json.dumps(rec) + "\n")
