"""Issue 13, iris: ours (two source trees, with and without .pyc) beside GOBNILP timed to the millisecond.

Run from the repository root under the CPU lock::

    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/results/iris-process-time-vs-gobnilp.run.py \\
        --refs main iris13 --reps 15 --out /tmp/iris13-bench/runs.jsonl

For every ref, ``git archive REF gobnilp_py`` is unpacked twice under ``--workdir``:
``REF-src`` (no ``.pyc``; ``PYTHONDONTWRITEBYTECODE=1`` keeps it so) and
``REF-pyc`` (``compileall`` first).  For each BF the ``.jkl`` file is
``bench_classes``' (``/tmp/bench1314/jkl/iris.bic.bfB.jkl``, written by
``gobnilp-py score`` if missing), then:

* ``run_one.sh --jkl`` once (GOBNILP's own pipeline: its count, OPT and the
  0.01-s wall times of ``/usr/bin/time``), which also writes the two settings
  files; then in each of ``--reps`` rounds, in this order:
* GOBNILP's OPT step and collection step, each the bare binary with those
  settings, timed by ``perf_counter`` around the process (fork, exec, exit);
  the collection's count is parsed from its log;
* ours, each tree in a fresh process with ``bench_classes.WORKER`` (the search
  time is the ``enumerate_networks`` call, ``method="auto"``; ``t_process`` is
  the whole process: interpreter, ``import gobnilp_py``, reading, the call).

Every run is one JSON line in ``--out``; ``--summary FILE`` prints the medians.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_classes as bc  # noqa: E402

GOBNILP = bc.TOOLS / "gobnilp"


def tree(ref: str, workdir: Path, pyc: bool) -> Path:
    d = workdir / f"{ref}-{'pyc' if pyc else 'src'}"
    if d.exists():
        subprocess.run(["rm", "-rf", str(d)], check=True)
    d.mkdir(parents=True)
    arch = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "gobnilp_py"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(d)], input=arch.stdout, check=True)
    if pyc:
        bc.compile_package(d)
    return d


def ours(root: Path, path: Path, bf: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    p = subprocess.run([bc.PY, "-c", bc.WORKER.format(mem=bc.MEM_LIMIT), str(path), f"{bf:g}", "auto", "auto",
                        str(bc.CAP), "240"], capture_output=True, text=True, env=env, cwd="/tmp")
    wall = time.perf_counter() - t0
    line = next((l for l in p.stdout.splitlines() if l.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"worker failed in {root}: {p.stderr.strip()[-300:]}")
    r = json.loads(line[7:])
    r["t_process"] = wall
    return r


def gobnilp_step(args: list[str], log: Path) -> float:
    with open(log, "w") as fh:
        t0 = time.perf_counter()
        subprocess.run([str(GOBNILP), *args], stdout=fh, stderr=subprocess.STDOUT, check=True)
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--refs", nargs="+", default=["main"])
    ap.add_argument("--bf", type=float, nargs="+", default=[3, 20, 150])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/iris13-bench"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/iris13-bench/runs.jsonl"))
    ap.add_argument("--summary", type=Path, nargs="+", help="print the medians of these JSONL files and exit")
    ap.add_argument("--quiet-only", action="store_true",
                    help="with --summary: only the rounds where no other process used > 20%% CPU when they began")
    a = ap.parse_args()
    if a.summary:
        summary(a.summary, a.quiet_only)
        return
    a.workdir.mkdir(parents=True, exist_ok=True)
    trees = {f"{ref}-{kind}": tree(ref, a.workdir, kind == "pyc") for ref in a.refs for kind in ("src", "pyc")}
    resdir = Path("/tmp/bench1314/gobnilp-results")
    for bf in a.bf:
        path, _ = bc.jkl_for("iris", bf, Path("/tmp/bench1314/jkl"))
        plain = path.with_suffix(".nocomments.jkl")
        if not plain.exists():
            plain.write_text("".join(l for l in path.read_text().splitlines(keepends=True) if not l.startswith("#")))
        base = {"data": "iris", "bf": bf, "jkl": str(path)}
        g = bc.run_gobnilp(plain, bf, 240, resdir)
        emit(a.out, {**base, "engine": "gobnilp run_one.sh", **g})
        x = f"jkl_{plain.name}.{hashlib.sha256(plain.read_bytes()).hexdigest()[:8]}.bf{bf:g}"
        opt_args = ["-f=jkl", f"-g={resdir}/networks/settings/{x}.opt", str(plain)]
        col_args = [f"-g={resdir}/networks/settings/{x}", "-f=jkl", str(plain)]
        for rep in range(a.reps):
            up = bc.uptime()
            log = a.workdir / "gobnilp-collect.log"
            t_opt = gobnilp_step(opt_args, a.workdir / "gobnilp-opt.log")
            t_col = gobnilp_step(col_args, log)
            found = [l for l in log.read_text(errors="replace").splitlines() if "Found this many solutions" in l]
            nets = int(found[-1].split(":")[-1]) if found else None
            emit(a.out, {**base, "engine": "gobnilp", "rep": rep, "t_opt": t_opt, "t_collect": t_col,
                         "t_search": t_opt + t_col, "networks": nets, "uptime": up, "others": bc.others()})
            for name, root in trees.items():
                r = ours(root, path, bf)
                emit(a.out, {**base, "engine": name, "rep": rep, "uptime": bc.uptime(), **{
                    k: r[k] for k in ("t_search", "t_process", "t_read", "t_opt", "networks", "total", "method",
                                      "complete")}})


def emit(out: Path, row: dict) -> None:
    row["utc"] = time.strftime("%H:%M:%S", time.gmtime())
    print(json.dumps(row), flush=True)
    with open(out, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def summary(paths: list[Path], quiet_only: bool = False) -> None:
    rows, runs = [], []
    for i, path in enumerate(paths):
        file_rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
        rows += file_rows
        # a round is (file, BF, rep); its load is what was sampled just before its GOBNILP steps
        busy = {(r["bf"], r["rep"]) for r in file_rows if r["engine"] == "gobnilp" and r.get("others")}
        runs += [r for r in file_rows if "rep" in r and not (quiet_only and (r["bf"], r["rep"]) in busy)]
    engines = list(dict.fromkeys(r["engine"] for r in runs))
    print("| BF | engine | runs | search ms: median (min–max) | ratio to GOBNILP (medians) | process ms (median) "
          "| networks |")
    print("|---|---|---|---|---|---|---|")
    for bf in sorted({r["bf"] for r in runs}):
        g = statistics.median(r["t_search"] for r in runs if r["bf"] == bf and r["engine"] == "gobnilp")
        for e in engines:
            rs = [r for r in runs if r["bf"] == bf and r["engine"] == e]
            ts = [1e3 * r["t_search"] for r in rs]
            pr = [1e3 * r["t_process"] for r in rs if "t_process" in r]
            nets = sorted({r.get("total") if r.get("total") is not None else r.get("networks") for r in rs},
                          key=str)
            print(f"| {bf:g} | {e} | {len(rs)} | {statistics.median(ts):.1f} ({min(ts):.1f}–{max(ts):.1f}) | "
                  f"{statistics.median(ts) / (1e3 * g):.2f} | "
                  f"{f'{statistics.median(pr):.0f}' if pr else '–'} | {', '.join(map(str, nets))} |")
    for r in rows:
        if "rep" not in r:
            print(f"run_one.sh BF {r['bf']:g}: {r.get('line')}")


if __name__ == "__main__":
    main()
