"""Issue 13 benchmark: ε-BNSL side by side with GOBNILP eBNSL (C) on identical ``.jkl`` files.

Usage (run the whole script under the shared CPU lock; one heavy run at a time)::

    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_classes.py \\
        tic-tac-toe wine --bf 3 20 150 --cap 300 --engines gobnilp class dag ordergraph \\
        --out /tmp/bench1314/classes.jsonl

For every (dataset, BF):

1. the score file is written once with the command line,
   ``gobnilp-py score DATA --no-header --bf B -o X.jkl`` (BIC, no parent limit);
2. every engine reads that same file (GOBNILP's reader refuses the comment
   lines that record how the table was pruned, so it gets the same file with
   the ``#`` lines removed: identical families and scores), each in its own process under ``timeout``
   (``--cap`` seconds of wall time, plus a 6 GB address-space limit for ours):

   * ``class``      -- ``enumerate_networks(table, bayes_factor=B, method="ilp", by="class")``
   * ``dag``        -- the same with ``by="dag"``
   * ``ordergraph`` -- ``method="ordergraph"`` (only where n <= 30)
   * ``auto``       -- ``method="auto", by="auto"``: what a user gets by default (the
     method and ``by`` it resolved to are recorded, with the certified ``threshold``
     of an incomplete result)
   * ``gobnilp``    -- ``run_one.sh --jkl X.jkl B`` (OPT step, then the countsols collection;
     ``OPT_TIMEOUT`` = ``COLLECT_TIMEOUT`` = ``--cap``)

   all with the network cap 150,000 (the paper's ``sollimit``).

Search time for ours is the wall time of the ``enumerate_networks`` call on an
already-read table (reading the ``.jkl`` file is reported separately as
``t_read``); GOBNILP's is its OPT step plus its collection step (each a whole
process: it reads the file twice).  ``networks`` is the number listed,
``total`` the exact number of credible DAGs where known (``n_networks_total``),
``classes`` the number of Markov equivalence classes (``n_classes_total``, or
the classes among the listed networks for ``by="dag"`` and order graph).

Every result is appended to ``--out`` as one JSON line together with ``uptime``
taken just before the run; ``--table`` prints the markdown table of a JSONL file.
Each of our rows also records ``t_process``, the wall time of the whole worker
process (interpreter start, ``import gobnilp_py``, reading the table, the call).

Bytecode: before the runs the package's modules are compiled to ``.pyc``
(``compileall``; ``--bytecode asis`` skips this and records it).  Why: this
machine sets ``PYTHONDONTWRITEBYTECODE=1`` and the package is an editable
install, so every fresh worker compiled every module of ours it imported from
source, while numpy, scipy and the rest have their ``.pyc`` from ``pip install``
(as would gobnilp_py installed from a wheel).  The search modules are imported
on the first call, so their compiling was counted as search time: on iris it
was about 14 of the 25 ms (``benchmarks/results/iris-process-time-vs-gobnilp.md``).  An
existing ``.pyc`` is read even with ``PYTHONDONTWRITEBYTECODE`` set, and one
that does not match its source (modification time and size) is ignored, so
compiling never runs stale code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _bytecode import compile_package  # noqa: E402  (benchmarks/ is the script's folder)

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("/work/shared/data")
TOOLS = Path("/work/shared/tools/gobnilp-ebnsl")
PY = sys.executable
CAP = 150_000
MEM_LIMIT = int(float(os.environ.get("BENCH_MEM_GB", "6")) * 1024 ** 3)

WORKER = r"""
import json, math, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
from gobnilp_py import enumerate_networks
from gobnilp_py.scoring.table import ScoreTable
path, bf, method, by, cap, budget = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6])
t0 = time.perf_counter(); table = ScoreTable.from_jkl(path); t_read = time.perf_counter() - t0
t0 = time.perf_counter()
cs = enumerate_networks(table, bayes_factor=bf, method=method, by=by, max_networks=cap, time_limit=budget)
t = time.perf_counter() - t0
s = cs.stats
classes = cs.n_classes_total
if classes is None and len(cs) <= 200000:
    classes = cs.n_mecs
print("RESULT " + json.dumps({{
    "t_read": t_read, "t_search": t, "t_opt": s.get("time_opt"), "networks": len(cs),
    "total": cs.n_networks_total, "classes": classes, "classes_total": cs.n_classes_total,
    "complete": cs.complete, "reason": cs.reason, "opt": cs.opt, "by": s.get("by"),
    "families": len(table), "n": table.n, "method": cs.method, "method_reason": s.get("method_reason"),
    "threshold": getattr(cs, "threshold", None), "time_limit": budget,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def others() -> str:
    """Other heavy processes on the machine (python / gobnilp using CPU), for the record."""
    out = subprocess.run(["ps", "-eo", "pid,pcpu,etimes,args", "--sort=-pcpu"], capture_output=True,
                         text=True).stdout.splitlines()[1:6]
    me = str(os.getpid())
    return " | ".join(" ".join(l.split()[:3] + [" ".join(l.split()[3:])[:80]]) for l in out
                      if float(l.split()[1]) > 20 and me not in l.split()[0])


def jkl_for(name: str, bf: float, outdir: Path) -> tuple[Path, float]:
    path = outdir / f"{name}.bic.bf{bf:g}.jkl"
    if path.exists():
        return path, float("nan")
    t0 = time.perf_counter()
    subprocess.run([str(Path(PY).parent / "gobnilp-py"), "score", str(DATA / f"{name}.csv"), "--no-header",
                    "--bf", f"{bf:g}", "-o", str(path), "-q"], check=True, env={**os.environ,
                                                                                 "PYTHONPATH": str(ROOT)})
    return path, time.perf_counter() - t0


def run_ours(path: Path, bf: float, method: str, by: str, cap: float) -> dict:
    code = WORKER.format(mem=MEM_LIMIT)
    t0 = time.perf_counter()
    p = subprocess.run(["timeout", "-s", "KILL", f"{cap + 30:g}", PY, "-c", code, str(path), f"{bf:g}", method, by,
                        str(CAP), f"{cap:g}"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t0
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[7:])
            r["status"] = "complete" if r["complete"] else f"INCOMPLETE ({r['reason']})"
            r["t_process"] = wall
            return r
    err = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
    return {"status": f"failed rc={p.returncode} after {wall:.0f} s: {err[:200]}"}


def run_gobnilp(path: Path, bf: float, cap: float, resdir: Path) -> dict:
    env = {**os.environ, "RESULTS": str(resdir), "OPT_TIMEOUT": f"{cap:g}", "COLLECT_TIMEOUT": f"{cap:g}"}
    p = subprocess.run([str(TOOLS / "run_one.sh"), "--jkl", str(path), f"{bf:g}", f"{cap:g}"], capture_output=True,
                       text=True, env=env)
    line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    f = line.split(" ", 8)
    if len(f) < 9:
        return {"status": f"failed: {p.stderr.strip()[-200:]}"}

    def num(x: str) -> float | None:
        return None if x == "-" else float(x)

    opt_w, col_w = num(f[5]), num(f[6])
    return {"families": None if f[2] == "-" else int(f[2]), "opt": num(f[3]), "t_opt": opt_w, "t_collect": col_w,
            "t_search": (opt_w or 0) + (col_w or 0) if opt_w is not None else None,
            "networks": None if f[7] == "-" else int(f[7]), "status": f[8], "line": line}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--bf", type=float, nargs="+", default=[3, 20, 150])
    ap.add_argument("--cap", type=float, default=300)
    ap.add_argument("--engines", nargs="+", default=["class", "dag", "ordergraph", "gobnilp"])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/bench1314"))
    ap.add_argument("--mem-gb", type=float, default=None, help="address-space cap of our runs (default 6 GB)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench1314/classes.jsonl"))
    ap.add_argument("--table", type=Path, help="print the markdown table of this JSONL file and exit")
    ap.add_argument("--side", type=Path, nargs="+", help="print the side-by-side table of these JSONL files and exit")
    ap.add_argument("--bytecode", choices=["compile", "asis"], default="compile",
                    help="compile the package's modules to .pyc before the runs (default), or leave them as found")
    a = ap.parse_args()
    if a.mem_gb is not None:
        global MEM_LIMIT
        MEM_LIMIT = int(a.mem_gb * 1024 ** 3)
    if a.table:
        print_table(a.table)
        return
    if a.side:
        print_side(a.side)
        return
    (a.workdir / "jkl").mkdir(parents=True, exist_ok=True)
    if a.bytecode == "compile":
        compile_package()
    for name in a.datasets:
        for bf in a.bf:
            up = uptime()
            path, t_score = jkl_for(name, bf, a.workdir / "jkl")
            n_vars = int(next(l for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")))
            for eng in a.engines:
                if eng == "ordergraph" and n_vars > 30:
                    continue
                up, oth = uptime(), others()
                if eng == "gobnilp":
                    # GOBNILP's reader refuses comment lines before the scores (our .jkl files before 2026-11-23):
                    # give it the same file without them
                    plain = path.with_suffix(".nocomments.jkl")
                    if not plain.exists():
                        plain.write_text("".join(l for l in path.read_text().splitlines(keepends=True)
                                                 if not l.startswith("#")))
                    r = run_gobnilp(plain, bf, a.cap, a.workdir / "gobnilp-results")
                else:
                    method, by = {"ordergraph": ("ordergraph", "dag"), "auto": ("auto", "auto")}.get(eng, ("ilp", eng))
                    r = run_ours(path, bf, method, by, a.cap)
                r.update({"data": name, "bf": bf, "engine": eng, "jkl": str(path), "t_score_cli": t_score,
                          "cap": a.cap, "uptime": up, "others": oth, "bytecode": a.bytecode,
                          "utc": time.strftime("%H:%M:%S", time.gmtime())})
                print(json.dumps(r), flush=True)
                with open(a.out, "a") as fh:
                    fh.write(json.dumps(r) + "\n")


def print_table(path: Path) -> None:
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    print("| data | BF | engine | search s | OPT s | networks | total DAGs | classes | status | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def f(k: str, fmt: str = "{:,}") -> str:
            v = r.get(k)
            return "–" if v is None else (fmt.format(v) if not isinstance(v, float) or fmt != "{:,}" else f"{v:,.0f}")
        load = r["uptime"].split("load average:")[-1].split(",")[0].strip()
        print(f"| {r['data']} | {r['bf']:g} | {r['engine']} | {f('t_search', '{:.2f}')} | {f('t_opt', '{:.2f}')} | "
              f"{f('networks')} | {f('total')} | {f('classes')} | {r['status']} | {load} |")


#: Network counts checked independently (shared/data/README.md and the issue): (data, BF) -> networks.
CHECKED = {("tic-tac-toe", 3): 192, ("tic-tac-toe", 20): 192, ("tic-tac-toe", 150): 544,
           ("wine", 3): 308, ("wine", 20): 3449, ("wine", 150): 26153, ("voting", 3): 27, ("voting", 20): 441,
           ("voting", 150): 2222, ("zoo", 3): 49, ("zoo", 20): 1111, ("zoo", 150): 21679,
           ("alarm1000", 3): 24, ("alarm1000", 20): 424, ("alarm1000", 150): 6390,
           ("insurance1000", 3): 10, ("insurance1000", 20): 117, ("insurance1000", 150): 348}


def print_side(paths: list[Path]) -> None:
    """One row per (data, BF): every engine's search time and count, ratios to GOBNILP, count check.

    Where a (data, BF, engine) was run more than once, the last run wins.
    """
    runs: dict[tuple, dict] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                runs[(r["data"], r["bf"], r["engine"])] = r
    keys = sorted({(d, b) for d, b, _ in runs}, key=lambda k: (list(dict.fromkeys(d for d, _, _ in runs)).index(k[0]),
                                                                 k[1]))
    print("| data | BF | GOBNILP s | class s | ratio | dag s | ratio | ordergraph s | ratio | networks "
          "(GOBNILP / class / dag / og) | classes | checked | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    def cell(r: dict | None) -> tuple[str, float | None, str]:
        if r is None:
            return "not run", None, "–"
        ok = r["status"] in ("ok", "complete") or r["status"].startswith("ok (")
        t = r.get("t_search")
        n = r.get("total") if r.get("total") is not None else r.get("networks")
        txt = f"{t:.2f}" if ok and t is not None else f"{r['status']}"
        return txt, (t if ok else None), ("–" if n is None else (f"{n:,}" if ok else f"≥{n:,}*"))

    for d, b in keys:
        g = runs.get((d, b, "gobnilp"))
        gt, gs, gn = cell(g)
        cols, counts, exact = [], [gn], [g.get("networks") if g and gs is not None else None]
        for e in ("class", "dag", "ordergraph"):
            r = runs.get((d, b, e))
            t, s, n = cell(r)
            ratio = f"{s / gs:.2f}" if s is not None and gs else "–"
            cols += [t, ratio]
            counts.append(n)
            exact.append((r.get("total") if r.get("total") is not None else r.get("networks"))
                         if r and s is not None else None)
        cl = runs.get((d, b, "class"), {}).get("classes_total")
        chk = CHECKED.get((d, int(b)))
        vals = {v for v in exact if v is not None}
        agree = "–" if not vals else ("yes" if len(vals) == 1 and (chk is None or chk in vals) else "**NO**")
        print(f"| {d} | {b:g} | {gt} | " + " | ".join(cols) + f" | {' / '.join(counts)} | "
              f"{'–' if cl is None else f'{cl:,}'} | {'–' if chk is None else f'{chk:,}'} | {agree} |")


if __name__ == "__main__":
    main()
