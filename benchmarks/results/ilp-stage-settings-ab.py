"""Issue 38: the SCIP settings of one stage of the optimum search, one arm per process.

STAGE is ``ARROW_RESTART_PARAMS`` (the model rebuilt with arrow variables after a root gap of at least
``ARROW_RESTART_GAP``) or ``RESUME_PARAMS`` (the same model's tree resumed below it); SETTINGS (a JSON
object) replaces that dictionary of :mod:`gobnilp_py.ilp.settings` for this process only (``default``:
leave it as landed).  ``optimum()`` with its defaults otherwise, through the API on a ``.jkl`` (reading the
table excluded).  One JSON line per run.
Usage (from the project root, venv active; each run under the shared lock)::

    PYTHONPATH=. flock /work/cpu.lock python benchmarks/results/ilp-stage-settings-ab.py TABLE.jkl RESUME_PARAMS \
        '{}' 300 LOG
"""
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from gobnilp_py.ilp import settings
from gobnilp_py.ilp.engine import optimum
from gobnilp_py.scoring.table import ScoreTable

path, stage, arm, limit, log = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
if stage not in ("ARROW_RESTART_PARAMS", "RESUME_PARAMS"):
    raise SystemExit(f"STAGE must be ARROW_RESTART_PARAMS or RESUME_PARAMS, got {stage!r}")
if arm != "default":
    setattr(settings, stage, json.loads(arm))
load = Path("/proc/loadavg").read_text().split()[0]
table = ScoreTable.from_jkl(path)
t0 = time.perf_counter()
sol = optimum(table, time_limit=limit)
wall = time.perf_counter() - t0
rec = {"table": Path(path).name, "stage": stage, "settings": getattr(settings, stage), "arm": arm,
       "status": sol.status, "score": sol.score, "dual": sol.dual_bound, "wall": round(wall, 2),
       "nodes": sol.stats.get("nodes"), "restart": sol.stats.get("extra", {}).get("arrow_restart"), "load": load,
       "utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
print(json.dumps(rec))
with open(log, "a") as fh:
    fh.write(json.dumps(rec) + "\n")
