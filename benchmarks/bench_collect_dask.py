"""The ε-collection serial beside the same collection split over a Dask LocalCluster, side by side (issue 42).

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_collect_dask.py \\
        [--data wine] [--score BIC] [--bf 150] [--method ordergraph] [--by dag|class] [--workers 2] \\
        [--parts N] [--max-networks N]

Per dataset: the table is scored once (not timed); then ``enumerate_networks(table, by=BY)`` in
this process and ``enumerate_networks(table, backend="dask", scheduler=client)`` on a LocalCluster of
``--workers`` single-threaded worker processes, one run each, one after the other.  The cluster is
started before the Dask run (its start is reported apart: a long-lived cluster pays it once).  Times
are the whole call (the optimum, found in the calling process both times, and the collection); the
ratio is serial / Dask (above 1: Dask is faster).  The two answers are checked identical (networks,
order, scores).  The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", default=["wine"])
    ap.add_argument("--score", default="BIC")
    ap.add_argument("--bf", type=float, default=150.0)
    ap.add_argument("--method", default="ordergraph")
    ap.add_argument("--by", default="dag", choices=("dag", "class"), help="collect by DAG (default) or by class")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--parts", type=int, default=None, help="parts of the split (default: dask_collect's)")
    ap.add_argument("--max-networks", type=int, default=None, help="network cap (default: none)")
    ap.add_argument("--data-dir", default=os.environ.get("GOBNILP_DATA", "/work/shared/data"))
    a = ap.parse_args()

    from distributed import Client, LocalCluster

    from gobnilp_py import enumerate_networks, read_data, score
    from gobnilp_py.solve import dask_collect

    if a.parts is not None:
        dask_collect.PARTS_PER_WORKER = dask_collect.TREE_PARTS_PER_WORKER = max(1, a.parts // a.workers)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} UTC  load {os.getloadavg()[0]:.2f}  cores "
          f"{len(os.sched_getaffinity(0))}  python {sys.version.split()[0]}")
    print("| data | score | BF | method, by | networks | serial s | dask s | ratio serial/dask | parts | workers | "
          "cluster start s | OPT s | collection s serial / dask (ratio) | listing s serial / dask | same | load before/after |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|")
    for name in a.data:
        table = score(read_data(Path(a.data_dir) / f"{name}.csv", header=False), score=a.score, bayes_factor=a.bf)
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        serial = enumerate_networks(table, bayes_factor=a.bf, method=a.method, by=a.by, max_networks=a.max_networks)
        t_serial = time.perf_counter() - t0
        t0 = time.perf_counter()
        with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            t_start = time.perf_counter() - t0
            t0 = time.perf_counter()
            on_dask = enumerate_networks(table, bayes_factor=a.bf, method=a.method, by=a.by, backend="dask",
                                         scheduler=client, max_networks=a.max_networks)
            t_dask = time.perf_counter() - t0
        # the collection phase alone: the serial search's time, the split's (plan, parts, merge) on Dask
        c_serial = float(serial.stats.get("time_collect") or serial.stats.get("time_search") or 0.0)
        c_dask = float(on_dask.stats.get("time_split") or 0.0)
        same = ([n.key for n in serial] == [n.key for n in on_dask]
                and [n.score for n in serial] == [n.score for n in on_dask]
                and serial.complete == on_dask.complete)
        print(f"| {name} | {a.score} | {a.bf:g} | {a.method}, {a.by} | {len(serial):,}{'' if serial.complete else '+'} | "
              f"{t_serial:.2f} | {t_dask:.2f} | {t_serial / t_dask:.2f} | {on_dask.stats.get('parts')} | "
              f"{on_dask.stats.get('workers')} | {t_start:.2f} | {serial.stats.get('time_opt', 0):.2f} | "
              f"{c_serial:.2f} / {c_dask:.2f} ({c_serial / max(c_dask, 1e-9):.2f}) | "
              f"{serial.stats.get('time_networks', 0):.2f} / {on_dask.stats.get('time_networks', 0):.2f} | "
              f"{'yes' if same else 'NO'} | "
              f"{load0:.2f} / {os.getloadavg()[0]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
