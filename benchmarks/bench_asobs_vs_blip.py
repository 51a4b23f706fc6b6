"""ASOBS (ours) beside BLIP 0.9's ``solver.asobs`` on the *same* score table, at equal time: medians of several seeds.

Usage
-----
    PYTHONPATH=. /work/venv/bin/python benchmarks/sample_bif.py --out /work/bench-data/asobsblip \\
        --networks alarm hailfinder win95pts pathfinder andes pigs link munin --rows 5000
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_asobs_vs_blip.py \\
        --data-dir /work/bench-data/asobsblip --networks alarm hailfinder --rows 5000 --time 10 --runs 5 \\
        --jobs 2 [--table-time 30] [--blip /work/shared/tools/blip/blip.jar] [--json out.jsonl]

Why the same table: ``bench_asobs.py`` compares the whole pipelines (parent-set selection and
search), whose margin comes mostly from the selection; this one isolates the *search*.  Per data set
one table is made once by our independence selection (``--table-time`` seconds, ``--jobs`` workers;
cached beside the data as ``<name><rows>.is.jkl``) and written a second time for BLIP with parents
as indices (``.blip.jkl``, the same scores, no comment lines).  Then, for seeds ``0 .. runs-1``:

* ours: :func:`gobnilp_py.search.asobs.asobs_search` with ``time_limit=T``, ``seed``, ``n_jobs=jobs``
  (restarts on worker processes), after one untimed restart that compiles the numba kernels;
* BLIP: ``java -jar blip.jar solver.asobs -j TABLE -r RES -t T -b jobs -seed seed`` (its wall time,
  JVM start and table reading included, is reported beside ``T``).

Both networks are scored from the table (BLIP's by looking its families up in it), so the scores
are exactly comparable; ``Δ = ours − BLIP`` (higher is better: natural-log BIC).  Per data set:
median of ours, median of BLIP, median of the per-seed Δ, and wins / losses / ties over the seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

BLIP = "/work/shared/tools/blip/blip.jar"


def blip_jkl(table, path: Path) -> None:
    """The table as BLIP reads it: parents by index, no provenance comments."""
    lines = [str(table.n)]
    for v, fams in enumerate(table.families):
        lines.append(f"{v} {len(fams)}")
        for ps, sc in fams:
            lines.append(" ".join([repr(float(sc)), str(len(ps)), *(str(int(p)) for p in ps)]))
    path.write_text("\n".join(lines) + "\n")


def table_for(data: Path, table_time: float, jobs: int):
    """Our independence-selection table of ``data`` (made once, then read from its ``.is.jkl``)."""
    from gobnilp_py import ScoreTable, read_data
    from gobnilp_py.scoring.selection import independence_selection

    cached = data.with_suffix(".is.jkl")
    if cached.exists():
        return ScoreTable.from_jkl(cached), None
    ds = read_data(data, header=False)
    t0 = time.perf_counter()
    table = independence_selection(ds, time_limit=table_time, n_jobs=jobs)
    took = time.perf_counter() - t0
    table.to_jkl(cached)
    return ScoreTable.from_jkl(cached), took


def score_of(table, parents: list[tuple[int, ...]]) -> float:
    """Score of a DAG given by parent sets, every family looked up in ``table``."""
    out = []
    for v, ps in enumerate(parents):
        key = tuple(sorted(ps))
        hit = [sc for fam, sc in table.families[v] if tuple(sorted(fam)) == key]
        if not hit:
            raise RuntimeError(f"family {key} of node {v} is not in the table")
        out.append(hit[0])
    return math.fsum(out)


def parse_res(path: Path, n: int) -> list[tuple[int, ...]]:
    """Parents per node from a BLIP result file (``v: score  (p1,p2,...)``)."""
    parents: list[tuple[int, ...] | None] = [None] * n
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*(\d+):\s*(\S+)\s*(?:\(([\d,\s]*)\))?\s*$", line)
        if m:
            parents[int(m.group(1))] = tuple(sorted(int(t) for t in (m.group(3) or "").split(",") if t.strip()))
    if any(p is None for p in parents):
        raise RuntimeError(f"BLIP result {path} lacks nodes")
    return parents  # type: ignore[return-value]


def run_ours(table, T: float, seed: int, jobs: int) -> dict:
    from gobnilp_py.search.asobs import asobs_search

    t0 = time.perf_counter()
    r = asobs_search(table, time_limit=T, seed=seed, n_jobs=jobs)
    parents = [table.families[v][k][0] for v, k in enumerate(r.chosen)]
    return {"score": score_of(table, parents), "engine_score": r.score, "orders": r.orders,
            "workers": r.stats["workers"], "wall": time.perf_counter() - t0}


def run_blip(jkl: Path, table, T: float, seed: int, jobs: int, jar: str, tmp: Path) -> dict:
    res = tmp / f"r{seed}.res"
    t0 = time.perf_counter()
    subprocess.run(["java", "-jar", jar, "solver.asobs", "-j", str(jkl), "-r", str(res), "-t", str(int(T)),
                    "-b", str(jobs), "-seed", str(seed)], check=True, capture_output=True)
    return {"score": score_of(table, parse_res(res, table.n)), "wall": time.perf_counter() - t0}


def _commit() -> str:
    """This checkout's commit (``+dirty`` when tracked files differ), to tie the figures to the code."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def bench(data: Path, T: float, runs: int, jobs: int, table_time: float, jar: str) -> dict:
    from gobnilp_py.search.asobs import asobs_search

    table, took = table_for(data, table_time, jobs)
    asobs_search(table, n_orders=1, seed=0, n_jobs=1)          # compile the kernels (untimed)
    row: dict = {"data": data.stem, "n": table.n, "families": len(table), "time": T, "runs": runs, "jobs": jobs,
                 "table_time": took, "commit": _commit(), "load_before": os.getloadavg(), "ours": [], "blip": []}
    with tempfile.TemporaryDirectory(prefix="blipjkl-") as tmp:
        jkl = Path(tmp) / "t.jkl"
        blip_jkl(table, jkl)
        for seed in range(runs):
            o = run_ours(table, T, seed, jobs)
            b = run_blip(jkl, table, T, seed, jobs, jar, Path(tmp))
            row["ours"].append(o)
            row["blip"].append(b)
            print(f"  {data.stem} seed {seed}: ours {o['score']:.3f} ({o['orders']} orders, {o['wall']:.1f} s) "
                  f"BLIP {b['score']:.3f} ({b['wall']:.1f} s) Δ {o['score'] - b['score']:+.3f}", flush=True)
    deltas = [o["score"] - b["score"] for o, b in zip(row["ours"], row["blip"])]
    row.update({"median_ours": statistics.median(o["score"] for o in row["ours"]),
                "median_blip": statistics.median(b["score"] for b in row["blip"]),
                "median_delta": statistics.median(deltas),
                "wins": sum(d > 1e-9 for d in deltas), "losses": sum(d < -1e-9 for d in deltas),
                "ties": sum(abs(d) <= 1e-9 for d in deltas), "load_after": os.getloadavg()})
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default="/work/bench-data/asobsblip")
    ap.add_argument("--networks", nargs="+", default=["alarm", "hailfinder", "win95pts", "pathfinder"])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--time", type=float, default=10.0, help="seconds per run, each program")
    ap.add_argument("--runs", type=int, default=5, help="seeds per data set (median over them)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table-time", type=float, default=30.0, help="seconds of independence selection per table")
    ap.add_argument("--blip", default=BLIP)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    for net in args.networks:
        data = Path(args.data_dir) / f"{net}{args.rows}.csv"
        row = bench(data, args.time, args.runs, args.jobs, args.table_time, args.blip)
        print(f"{row['data']} ({row['commit']}): n {row['n']}, {row['families']} families; median ours {row['median_ours']:.3f}, "
              f"BLIP {row['median_blip']:.3f}, median Δ {row['median_delta']:+.3f}; wins/losses/ties "
              f"{row['wins']}/{row['losses']}/{row['ties']}; load {row['load_before']} -> {row['load_after']}",
              flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
