"""Independence selection + ASOBS side by side with BLIP 0.9, every network scored with our exact BIC.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_asobs.py \\
        --data /work/bench-data/andes1000.csv --time 120 [--jobs 2] [--share 0.8] \\
        [--blip /work/shared/tools/blip/blip.jar] [--no-blip] [--optimum -11783.052412] \\
        [--seed 0] [--json out.json] [--save-table t.jkl] [--measure-backends ORDERS]

One data set per run (CSV, integer-coded, no header).  Both programs get the
same total wall-clock budget ``--time`` and the same cores ``--jobs``, split
like r.blip's ``blip.learn``: ``--share`` (80%) for parent-set identification,
the rest for structure search.

* ours: :func:`gobnilp_py.scoring.selection.independence_selection`
  (``time_limit = share × T``, ``n_jobs``), then
  :func:`gobnilp_py.search.asobs.engine.asobs_search` until the total budget is spent;
* BLIP: ``java -jar blip.jar scorer.is -t ⌊share × T⌋ -b jobs`` (its defaults:
  BIC, in-degree 6), then ``solver.asobs -t (T − scorer time) -b jobs``.

BLIP's own BIC is not ML BIC (it smooths the likelihood and truncates part of
the penalty), so its reported score is ignored: both DAGs are rescored here
from the data with :func:`dag_bic` (our exact BIC, via the package's counting
and :class:`~gobnilp_py.scoring.BIC`).  ``ΔBIC = ours − BLIP`` reads as ln BF
(Raftery's evidence categories are on 2 ln BF).  With ``--optimum`` the gap to
a known exact optimum is reported too.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from gobnilp_py._graphs import acyclic_indices

BLIP = "/work/shared/tools/blip/blip.jar"


def dag_bic(ds, parents: list[tuple[int, ...]]) -> tuple[float, list[float]]:
    """Exact BIC of the DAG ``parents[v]`` on ``ds`` (fsum of local scores) and the local scores."""
    from gobnilp_py.scoring import BIC, ParentConfigs

    sc = BIC(ds)
    pc = ParentConfigs(ds)
    local = []
    for v, ps in enumerate(parents):
        res = sc.batch(pc.family_counts(tuple(sorted(int(p) for p in ps)), np.array([v])))
        local.append(float(res.scores[0]))
    return math.fsum(local), local


def measure_backends(table, orders: int, seed: int) -> dict:
    """Seconds per order (ASOBS + OBS + swaps) with the numpy kernels and, when installed, with numba."""
    from gobnilp_py.search.asobs import _numba as _asobs_numba
    from gobnilp_py.search.asobs.engine import asobs_search
    from gobnilp_py.search.asobs.obs import OrderSearch

    out = {}
    for backend in ("numpy", "numba"):
        if backend == "numba" and not _asobs_numba.AVAILABLE:
            continue
        search = OrderSearch(table, backend=backend)
        asobs_search(search, n_orders=1, seed=seed)  # compile / warm up
        t0 = time.perf_counter()
        run = asobs_search(search, n_orders=orders, seed=seed)
        out[backend] = {"seconds_per_order": (time.perf_counter() - t0) / orders, "best": run.score}
    if len(out) == 2:
        out["speedup"] = out["numpy"]["seconds_per_order"] / out["numba"]["seconds_per_order"]
    return out


def run_ours(ds, total: float, share: float, jobs: int, seed: int, save_table: str | None = None,
             measure: int = 0) -> dict:
    from gobnilp_py.scoring.selection import independence_selection
    from gobnilp_py.search.asobs.engine import asobs_search

    t0 = time.perf_counter()
    table = independence_selection(ds, time_limit=share * total, n_jobs=jobs)
    t_is = time.perf_counter() - t0
    if save_table:
        table.to_jkl(save_table)
    left = max(total - t_is, 1.0)
    run = asobs_search(table, time_limit=left, seed=seed)
    elapsed = time.perf_counter() - t0
    parents = [table.families[v][k][0] for v, k in enumerate(run.chosen)]
    out = {"parents": parents, "time": elapsed, "time_selection": t_is, "families": len(table),
           "families_scored": table.meta["families_scored"], "orders": run.orders,
           "table_score": run.score, "swaps": run.stats["swaps"], "backend": run.stats["kernels"],
           "mean_swap_gain": run.stats["mean_swap_gain"],
           "variables_exhausted": table.meta["variables_exhausted"]}
    if measure:
        out["backends"] = measure_backends(table, measure, seed)
        print("per order:", json.dumps(out["backends"]), flush=True)
    return out


def write_dat(ds, path: Path) -> None:
    """BLIP's .dat: a line of names, a line of arities, then the rows (space separated)."""
    with open(path, "w") as fh:
        fh.write(" ".join(f"v{i}" for i in range(ds.n)) + "\n")
        fh.write(" ".join(str(int(a)) for a in ds.arities) + "\n")
        np.savetxt(fh, ds.codes, fmt="%d", delimiter=" ")


def parse_res(path: Path, n: int) -> list[tuple[int, ...]]:
    """Parents per node from a BLIP result file (``v: score  (p1,p2,...)``)."""
    parents: list[tuple[int, ...] | None] = [None] * n
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*(\d+):\s*(\S+)\s*(?:\(([\d,\s]*)\))?\s*$", line)
        if m:
            ps = tuple(sorted(int(t) for t in (m.group(3) or "").split(",") if t.strip()))
            parents[int(m.group(1))] = ps
    missing = [v for v, p in enumerate(parents) if p is None]
    if missing:
        raise RuntimeError(f"BLIP result {path} lacks nodes {missing[:5]}")
    return parents  # type: ignore[return-value]


def run_blip(ds, total: float, share: float, jobs: int, seed: int, jar: str, workdir: Path) -> dict:
    dat, jkl, res = workdir / "data.dat", workdir / "scores.jkl", workdir / "result.res"
    write_dat(ds, dat)
    t_is = max(1, int(math.floor(share * total)))
    t0 = time.perf_counter()
    subprocess.run(["java", "-jar", jar, "scorer.is", "-d", str(dat), "-j", str(jkl), "-t", str(t_is),
                    "-b", str(jobs), "-c", "bic", "-seed", str(seed)], check=True, capture_output=True)
    t_sc = time.perf_counter() - t0
    t_so = max(1, int(round(total - t_sc)))
    subprocess.run(["java", "-jar", jar, "solver.asobs", "-j", str(jkl), "-r", str(res), "-t", str(t_so),
                    "-b", str(jobs), "-seed", str(seed)], check=True, capture_output=True)
    elapsed = time.perf_counter() - t0
    n_fams = sum(int(line.split()[1]) for line in jkl.read_text().splitlines()
                 if re.match(r"^\d+ \d+$", line.strip()))
    return {"parents": parse_res(res, ds.n), "time": elapsed, "time_selection": t_sc, "families": n_fams,
            "solver_time_given": t_so}


def _commit() -> str:
    """The checkout's commit (with ``+dirty`` when files differ), to tie figures to code."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--time", type=float, required=True, help="total wall-clock budget (s) per program")
    ap.add_argument("--share", type=float, default=0.8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--blip", default=BLIP)
    ap.add_argument("--no-blip", action="store_true")
    ap.add_argument("--no-ours", action="store_true")
    ap.add_argument("--optimum", type=float, default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--save-table", default=None, help="write our independence-selection table (.jkl)")
    ap.add_argument("--measure-backends", type=int, default=0, metavar="ORDERS",
                    help="after our run, time this many orders with the numpy and the numba kernels")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    from gobnilp_py import read_data

    ds = read_data(args.data, header=False)
    row: dict = {"data": Path(args.data).stem, "n": ds.n, "N": ds.N, "time_budget": args.time, "jobs": args.jobs,
                 "share": args.share, "load_before": os.getloadavg(), "commit": _commit()}
    if not args.no_ours:
        ours = run_ours(ds, args.time, args.share, args.jobs, args.seed, args.save_table, args.measure_backends)
        ours["bic"], _ = dag_bic(ds, ours["parents"])
        ours["acyclic"] = acyclic_indices(ours["parents"])
        row["ours"] = {k: v for k, v in ours.items() if k != "parents"}
        print(f"ours: BIC {ours['bic']:.3f} in {ours['time']:.1f} s (selection {ours['time_selection']:.1f} s, "
              f"{ours['families_scored']} scored, {ours['families']} kept, {ours['orders']} orders, "
              f"{ours['backend']})", flush=True)
    if not args.no_blip:
        with tempfile.TemporaryDirectory(prefix="blip-") as tmp:
            blip = run_blip(ds, args.time, args.share, args.jobs, args.seed, args.blip, Path(tmp))
        blip["bic"], _ = dag_bic(ds, blip["parents"])
        blip["acyclic"] = acyclic_indices(blip["parents"])
        row["blip"] = {k: v for k, v in blip.items() if k != "parents"}
        print(f"BLIP: BIC {blip['bic']:.3f} in {blip['time']:.1f} s (selection {blip['time_selection']:.1f} s, "
              f"{blip['families']} kept)", flush=True)
    if "ours" in row and "blip" in row:
        row["delta_bic"] = row["ours"]["bic"] - row["blip"]["bic"]
        print(f"ΔBIC (ours − BLIP) = {row['delta_bic']:.3f} (= ln BF; 2 ln BF = {2 * row['delta_bic']:.1f})")
    if args.optimum is not None:
        for who in ("ours", "blip"):
            if who in row:
                row[who]["gap_to_optimum"] = args.optimum - row[who]["bic"]
                print(f"{who}: gap to the exact optimum {row[who]['gap_to_optimum']:.3f}")
    row["load_after"] = os.getloadavg()
    if args.json:
        with open(args.json, "a") as fh:
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
