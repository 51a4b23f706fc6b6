"""Small-data BIC scoring, BF 3: the GOBNILP C scorer's whole process (median of 20 runs, timed here with
perf_counter around the process) beside our score() call in one process (first call and median of 20 warm)."""
import os, subprocess, sys, time, statistics, tempfile
from pathlib import Path
import numpy as np
SHARED = Path("/work/shared")
GOB = SHARED / "tools/gobnilp-ebnsl/gobnilp"
import gobnilp_py as gp
from gobnilp_py.data import read_data
for name in sys.argv[1:]:
    csv = SHARED / "data" / f"{name}.csv"
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, RESULTS=tmp, DATA=str(csv.parent), SCORE_TIMEOUT="120", OPT_TIMEOUT="1", COLLECT_TIMEOUT="1")
        subprocess.run(["bash", str(SHARED / "tools/gobnilp-ebnsl/run_one.sh"), name, "3", "1"], env=env, capture_output=True)
        settings = Path(tmp) / "scores/settings" / f"{name}.BIC.3"
        palim = [l for l in settings.read_text().splitlines() if "palim" in l][0].split("=")[1].strip()
        ct = []
        for _ in range(20):
            t0 = time.perf_counter()
            subprocess.run([str(GOB), "-x", f"-g={settings}", "-f=dat", str(csv)], capture_output=True, check=True)
            ct.append(time.perf_counter() - t0)
        lines = (Path(tmp) / "scores" / f"{name}.BIC.3").read_text().split("\n")
        n = int(lines[0].split()[0]); c_fams = sum(1 for l in lines[1:] if l.strip()) - n
    ds = read_data(csv, header=False)
    t0 = time.perf_counter(); tab = gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); first = time.perf_counter() - t0
    warm = []
    for _ in range(20):
        t0 = time.perf_counter(); gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); warm.append(time.perf_counter() - t0)
    c = statistics.median(ct)
    print(f"| {name} | {1e3*c:.1f} (palim {palim}, {c_fams:,} kept) | {1e3*first:.1f} / {1e3*statistics.median(warm):.1f} ({len(tab):,} kept) "
          f"| {first/c:.2f} / {statistics.median(warm)/c:.2f} |", flush=True)
