"""Small-data BIC scoring at BF 3 beside the GOBNILP C scorer, interleaved (session 14).

For every dataset, ROUNDS rounds of: the C scorer's whole process 4 times (``gobnilp -x`` with the
settings file the authors' pipeline writes: BIC, BF 3, their palim), then for each code arm a fresh
Python process that reads the data and times its first ``score(data, score="BIC", bayes_factor=3,
n_jobs=1)`` call and the median of 20 later calls.  Arms are given as ``label=PYTHONPATH`` (a tree
holding a ``gobnilp_py`` package).  Prints one table row per dataset: medians over the rounds.

    python benchmarks/results/small-data-scoring-vs-c-scorer.c-scorer.py ROUNDS old=/tmp/old new=/tmp/new -- iris wine ...
"""
import json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

SHARED = Path(os.environ.get("GOBNILP_SHARED", "/work/shared"))
GOB = SHARED / "tools/gobnilp-ebnsl/gobnilp"
PY = sys.executable
CHILD = r"""
import sys, time, statistics, json
import gobnilp_py as gp
from gobnilp_py.data import read_data
ds = read_data(sys.argv[1], header=False)
t0 = time.perf_counter(); t = gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); first = time.perf_counter() - t0
w = []
for _ in range(20):
    t0 = time.perf_counter(); gp.score(ds, score="BIC", bayes_factor=3, n_jobs=1); w.append(time.perf_counter() - t0)
print(json.dumps({"first": first, "warm": statistics.median(w), "kept": len(t)}))
"""

rounds = int(sys.argv[1])
sep = sys.argv.index("--")
arms = [a.split("=", 1) for a in sys.argv[2:sep]]
names = sys.argv[sep + 1:]
print("| data | C scorer, whole process, ms | " + " | ".join(f"{lab} first / warm, ms" for lab, _ in arms)
      + " | " + " | ".join(f"{lab} / C, first / warm" for lab, _ in arms) + " |")
print("|---" * (2 + 2 * len(arms)) + "|")
for name in names:
    csv = SHARED / "data" / f"{name}.csv"
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, RESULTS=tmp, DATA=str(csv.parent), SCORE_TIMEOUT="120", OPT_TIMEOUT="1", COLLECT_TIMEOUT="1")
        subprocess.run(["bash", str(SHARED / "tools/gobnilp-ebnsl/run_one.sh"), name, "3", "1"], env=env, capture_output=True)
        settings = Path(tmp) / "scores/settings" / f"{name}.BIC.3"
        palim = [l for l in settings.read_text().splitlines() if "palim" in l][0].split("=")[1].strip()
        c_times, ours = [], {lab: [] for lab, _ in arms}
        for _ in range(rounds):
            for _ in range(4):
                t0 = time.perf_counter()
                subprocess.run([str(GOB), "-x", f"-g={settings}", "-f=dat", str(csv)], capture_output=True, check=True)
                c_times.append(time.perf_counter() - t0)
            for lab, path in arms:
                # cwd: the temporary directory, so that "-c" does not put a checkout's package first
                out = subprocess.run([PY, "-c", CHILD, str(csv)], env=dict(os.environ, PYTHONPATH=path), cwd=tmp,
                                     capture_output=True, text=True, check=True).stdout
                ours[lab].append(json.loads(out))
        lines = (Path(tmp) / "scores" / f"{name}.BIC.3").read_text().split("\n")
        n = int(lines[0].split()[0])
        c_kept = sum(1 for l in lines[1:] if l.strip()) - n
    c = statistics.median(c_times)
    cells, ratios = [], []
    for lab, _ in arms:
        f = statistics.median(r["first"] for r in ours[lab])
        w = statistics.median(r["warm"] for r in ours[lab])
        cells.append(f"{1e3 * f:.1f} / {1e3 * w:.1f} ({ours[lab][0]['kept']:,} kept)")
        ratios.append(f"{f / c:.2f} / {w / c:.2f}")
    print(f"| {name} | {1e3 * c:.1f} (palim {palim}, {c_kept:,} kept) | " + " | ".join(cells) + " | "
          + " | ".join(ratios) + " |", flush=True)
