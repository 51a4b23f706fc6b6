"""Benchmark learning under a fixed variable order: Tian's branch and bound against plainer searches.

Usage (always under the shared CPU lock)::

    flock /work/cpu.lock env PYTHONPATH=. python benchmarks/bench_fixed_order.py \
        --out benchmarks/fixed_order.json

Sections (``--sections``, default all):

``orders``   per data set (alarm1000, hailfinder100, letter) and order (the file's
             column order; a topological order of a network learned from the data),
             every search variant below, with states scored, contingency tables
             counted (LL evaluations), seconds and K3 traps; per-variable figures for
             ``tian``; and the analytic size of the exhaustive search within the depth
             bound, Σ_v Σ_{k <= d_v} C(|pred v|, k).
``trend``    states and seconds of ``tian`` against the sample size N (first N rows),
             for Tian's Table 2 trend (states grow slowly with N).
``table``    the level-wise walk of the package's scorer (``gobnilp_py.scoring.score``,
             every family of every variable that its pruning rules keep), then the best
             order-consistent family per node from that table: the route without Tian.
``parallel`` ``tian`` with 1 and 2 worker processes.

Variants (``ParentSearch.search`` options):

``tian``        bound="full",   start="k3",    tree_order="entropy"  (DFBnB_K3)
``fixed``       bound="fixed",  start="k3",    tree_order="entropy"  (Tian eq. 15)
``no-k3``       bound="full",   start="empty", tree_order="entropy"
``given-tree``  bound="full",   start="k3",    tree_order="given"
``suzuki``      bound="suzuki", start="empty", tree_order="given"    (penalty bound only, as B&B_D)

Every variant is exact; each run checks that its optimum equals ``tian``'s.  Runs
stopped by ``--time-limit`` are reported with status ``time_limit``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

VARIANTS = {
    "tian": {"bound": "full", "start": "k3", "tree_order": "entropy"},
    "fixed": {"bound": "fixed", "start": "k3", "tree_order": "entropy"},
    "no-k3": {"bound": "full", "start": "empty", "tree_order": "entropy"},
    "given-tree": {"bound": "full", "start": "k3", "tree_order": "given"},
    "suzuki": {"bound": "suzuki", "start": "empty", "tree_order": "given"},
}
DATASETS = ("alarm1000", "hailfinder100", "letter")


def data_dir() -> Path:
    env = os.environ.get("GOBNILP_DATA")
    here = Path(__file__).resolve()
    for p in ([Path(env)] if env else []) + [here.parents[2] / "shared" / "data", here.parents[3] / "shared" / "data"]:
        if p.is_dir():
            return p
    sys.exit("cannot find the shared data directory; set GOBNILP_DATA")


def load(name: str, rows: int | None = None):
    from gobnilp_py.data import read_data
    from gobnilp_py.data.dataset import Dataset

    ds = read_data(data_dir() / f"{name}.csv", header=False)
    if rows is not None and rows < ds.N:
        ds = Dataset(ds.names, ds.arities, ds.codes[:rows], source=f"{ds.source}[:{rows}]")
    return ds


def run_order(ds, order, variant: str, time_limit: float | None) -> dict[str, Any]:
    """One variant over every node of ``order``; per-node figures and totals."""
    from gobnilp_py.search.fixed_order.parent_search import ParentSearch

    ps = ParentSearch(ds, "BIC")
    opts = VARIANTS[variant]
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    nodes = []
    status = "optimal"
    for i, v in enumerate(order):
        t = time.monotonic()
        r = ps.search(v, order[:i], deadline=deadline, **opts)
        nodes.append({"var": ds.names[v], "pred": i, "depth_bound": r.stats["depth_bound"],
                      "states": r.stats["states"], "ll": r.stats["ll_evaluations"],
                      "seconds": round(time.monotonic() - t, 4), "parents": len(r.parents),
                      "max_depth": r.stats["max_depth"], "k3_optimal": r.stats["k3_optimal"],
                      "score": r.score, "complete": r.complete})
        if not r.complete:
            status = "time_limit"
            break
    total = math.fsum(n["score"] for n in nodes)
    return {"variant": variant, "status": status, "score": total,
            "states": sum(n["states"] for n in nodes), "ll_evaluations": sum(n["ll"] for n in nodes),
            "seconds": round(time.monotonic() - t0, 3),
            "k3_traps": sum(1 for n in nodes if n["k3_optimal"] is False),
            "nodes_done": sum(1 for n in nodes if n["complete"]), "nodes": nodes}


def exhaustive_size(ds, order) -> int:
    """Σ_v Σ_{k <= d_v} C(|pred|, k): the exhaustive search within the corrected depth bound."""
    from gobnilp_py.search.fixed_order.parent_search import ParentSearch

    ps = ParentSearch(ds, "BIC")
    total = 0
    for i, v in enumerate(order):
        d = ps.depth_bound(v)
        d = i if d is None else min(d, i)
        total += sum(math.comb(i, k) for k in range(d + 1))
    return total


def topological_order(ds, time_limit: float) -> tuple[list[int], dict[str, Any]]:
    """A topological order of a network learned from the data (the ILP, stopped by ``time_limit``)."""
    from gobnilp_py import learn
    from gobnilp_py.scoring import score

    t0 = time.monotonic()
    table = score(ds, score="BIC")
    t_score = time.monotonic() - t0
    net = learn(table, time_limit=time_limit)
    idx = {nm: i for i, nm in enumerate(ds.names)}
    parents = {idx[c]: [idx[p] for p in ps] for c, ps in net.parents.items()}
    indeg = {v: len(parents.get(v, [])) for v in range(ds.n)}
    kids: dict[int, list[int]] = {v: [] for v in range(ds.n)}
    for c, ps in parents.items():
        for p in ps:
            kids[p].append(c)
    ready = sorted(v for v in range(ds.n) if indeg[v] == 0)
    order = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for c in kids[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
        ready.sort()
    assert len(order) == ds.n
    return order, {"network_status": net.status, "network_score": net.score, "scoring_seconds": round(t_score, 2),
                   "families": len(table), "learn_seconds": round(time.monotonic() - t0 - t_score, 2)}


def section_orders(args, out: dict) -> None:
    rows = []
    for name in args.datasets:
        ds = load(name)
        orders = {"natural": list(range(ds.n))}
        try:
            topo, info = topological_order(ds, args.learn_time)
            orders["topological"] = topo
            out.setdefault("learned", {})[name] = info
        except Exception as exc:  # the ILP may be unavailable; the natural order still runs
            print(f"{name}: no learned network ({exc})", file=sys.stderr)
        for oname, order in orders.items():
            base = None
            for variant in args.variants:
                res = run_order(ds, order, variant, args.time_limit)
                if variant == "tian":
                    base = res["score"]
                elif base is not None and res["status"] == "optimal":
                    assert abs(res["score"] - base) <= 1e-9 * abs(base), (name, oname, variant)
                res.update({"data": name, "order": oname, "n": ds.n, "N": ds.N})
                if variant == "tian":
                    res["exhaustive_within_depth_bound"] = exhaustive_size(ds, order)
                rows.append(res)
                print(f"{name:14s} {oname:11s} {variant:10s} {res['status']:10s} states {res['states']:>9,d} "
                      f"LL {res['ll_evaluations']:>9,d}  {res['seconds']:8.2f}s  K3 traps {res['k3_traps']}"
                      + (f"  exhaustive<=d {res['exhaustive_within_depth_bound']:,d}" if variant == "tian" else ""),
                      flush=True)
    out["orders"] = rows


def section_trend(args, out: dict) -> None:
    rows = []
    for name, sizes in (("alarm1000", (125, 250, 500, 1000)), ("letter", (1000, 2000, 5000, 10000, 20000))):
        for N in sizes:
            ds = load(name, N)
            res = run_order(ds, list(range(ds.n)), "tian", args.time_limit)
            states = [n["states"] for n in res["nodes"]]
            rows.append({"data": name, "N": N, "states": res["states"], "ll_evaluations": res["ll_evaluations"],
                         "seconds": res["seconds"], "k3_traps": res["k3_traps"],
                         "max_states_per_var": max(states), "median_states_per_var": statistics.median(states),
                         "max_parents": max(n["parents"] for n in res["nodes"])})
            print(f"trend {name:10s} N={N:6d} states {res['states']:>8,d} LL {res['ll_evaluations']:>8,d} "
                  f"{res['seconds']:7.2f}s K3 traps {res['k3_traps']}", flush=True)
    out["trend"] = rows


def section_table(args, out: dict) -> None:
    from gobnilp_py.scoring import score
    from gobnilp_py.search.fixed_order import optimum_for_order, optimum_for_order_table

    rows = []
    for name in args.datasets:
        ds = load(name)
        order = list(range(ds.n))
        t0 = time.monotonic()
        table = score(ds, score="BIC")
        t_score = time.monotonic() - t0
        sol = optimum_for_order_table(table, order)
        t_table = time.monotonic() - t0
        r = optimum_for_order(ds, order)
        assert abs(sol.score - r.score) <= 1e-9 * abs(r.score), (name, sol.score, r.score)
        scored = table.meta.get("families_scored")
        rows.append({"data": name, "families_scored": scored, "families_kept": len(table),
                     "scoring_seconds": round(t_score, 2), "table_route_seconds": round(t_table, 2),
                     "tian_seconds": round(r.stats["seconds"], 2), "tian_states": r.stats["states"]})
        print(f"table {name:14s} scored {scored} kept {len(table):,d} in {t_score:.2f}s; "
              f"Tian {r.stats['states']:,d} states in {r.stats['seconds']:.2f}s", flush=True)
    out["table"] = rows


def section_parallel(args, out: dict) -> None:
    from gobnilp_py.search.fixed_order import optimum_for_order

    rows = []
    for name in args.datasets:
        ds = load(name)
        for jobs in (1, 2):
            t0 = time.monotonic()
            r = optimum_for_order(ds, list(range(ds.n)), n_jobs=jobs)
            rows.append({"data": name, "n_jobs": jobs, "seconds": round(time.monotonic() - t0, 2)})
            print(f"parallel {name:14s} n_jobs={jobs} {rows[-1]['seconds']:.2f}s", flush=True)
    out["parallel"] = rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--sections", default="orders,trend,table,parallel")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per variant run")
    ap.add_argument("--learn-time", type=float, default=120.0, help="seconds for the ILP giving the topological order")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    args.datasets = [d for d in args.datasets.split(",") if d]
    args.variants = [v for v in args.variants.split(",") if v]
    if "tian" in args.variants:
        args.variants.remove("tian")
    args.variants.insert(0, "tian")
    import logging

    logging.basicConfig(level=logging.WARNING)
    out: dict[str, Any] = {"command": " ".join(sys.argv), "uptime": os.popen("uptime").read().strip(),
                           "numpy": np.__version__}
    for sec in args.sections.split(","):
        {"orders": section_orders, "trend": section_trend, "table": section_table,
         "parallel": section_parallel}[sec](args, out)
    out["uptime_end"] = os.popen("uptime").read().strip()
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    print(out["uptime"], "|", out["uptime_end"])


if __name__ == "__main__":
    main()
