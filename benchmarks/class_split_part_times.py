"""Where a by-class collection split over Dask loses its time: each part of the class split run serially
in one process, beside the whole collection by class in the same run (issue 42).

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/class_split_part_times.py \\
        [--data zoo] [--score BIC] [--bf 150] [--parts 8 16]

The table is scored once; OPT found once with the ILP (its cluster cuts and optimum handed on, as the
driver does).  Then the whole collection by class (one search, ``ilp.engine.epsilon_set(by_class=True)``),
and, for each ``--parts`` count, :func:`gobnilp_py.solve.split.plan_class_split` and every part through
:func:`gobnilp_py.solve.split.run_part`, one after the other.  Per part: its adjacency pattern, ceiling
(less OPT), wall seconds, SCIP nodes, classes found.  Then the sum of the parts' times (duplicated work
when well above the whole search's), their max (the imbalance: a 2-worker split can take no less than
max(max part, sum / 2)), that bound's speed-up over the whole search, and the end of two workers taking
the parts in submission order (what Dask does), with the probe's time added for the ``probe`` plan.

``--plan probe`` (default first) plans as the Dask driver does: its probe
(:func:`gobnilp_py.solve.dask_collect._probe`), then the tree of adjacencies on the probe's classes;
``--plan rows`` the patterns of the row-bound pairs (the split before the probe).

With ``--pairs``, also how the whole search's classes fall on each candidate pair of the split: the share
of classes with ``a - b`` adjacent, for the pairs the plan chose and for the pairs closest to half.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="zoo")
    ap.add_argument("--score", default="BIC")
    ap.add_argument("--bf", type=float, default=150.0)
    ap.add_argument("--parts", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--pairs", action="store_true", help="also the classes' share on each candidate pair")
    ap.add_argument("--plan", nargs="+", default=["probe", "rows"], choices=("probe", "rows"),
                    help="probe: the tree grown on a probe's classes (the Dask driver's); rows: row-bound pairs")
    ap.add_argument("--data-dir", default=os.environ.get("GOBNILP_DATA", "/work/shared/data"))
    a = ap.parse_args()

    from gobnilp_py import read_data, score
    from gobnilp_py.ilp import engine
    from gobnilp_py.solve.results import portable_reuse, take_reuse
    from gobnilp_py.solve.dask_collect import _probe
    from gobnilp_py.solve.split import plan_class_split, run_part

    print(f"# {time.strftime('%Y-%m-%d %H:%M')} UTC  load {os.getloadavg()[0]:.2f}  cores "
          f"{len(os.sched_getaffinity(0))}  python {sys.version.split()[0]}")
    table = score(read_data(Path(a.data_dir) / f"{a.data}.csv", header=False), score=a.score, bayes_factor=a.bf)
    eps = math.log(a.bf)
    t0 = time.perf_counter()
    sol = engine.optimum(table)
    t_opt = time.perf_counter() - t0
    opt = sol.score
    reuse = take_reuse(sol, table)
    options = portable_reuse(reuse)
    print(f"# {a.data} {a.score} BF {a.bf:g}: {table.n} variables, {len(table)} families; OPT {opt:.4f} "
          f"in {t_opt:.2f} s; cluster cuts handed on: {len(options.get('reuse') or [])}")

    t0 = time.perf_counter()
    whole = engine.epsilon_set(table, opt=opt, epsilon=eps, by_class=True, **reuse)
    t_whole = time.perf_counter() - t0
    print(f"# whole collection by class: {len(whole.entries)} classes, {t_whole:.2f} s wall "
          f"(time_collect {whole.stats.get('time_collect', 0):.2f} s), nodes {whole.stats.get('nodes')}, "
          f"reason {whole.reason}")
    tol = 1e-9 * max(1.0, abs(opt))
    floor = opt - eps - tol

    if a.pairs:
        _pair_shares(table, whole.entries, floor, max(a.parts))

    probe = None
    if "probe" in a.plan:
        t0 = time.perf_counter()
        probe = _probe(table, method="ilp", opt=opt, epsilon=eps, max_networks=None, time_limit=None,
                       options=dict(options), constraints=None)
        t_probe = time.perf_counter() - t0
        print(f"# probe: {len(probe) if isinstance(probe, list) else 'the whole answer'} classes in {t_probe:.2f} s")
    for plan, k in [(plan, k) for plan in a.plan for k in a.parts]:
        parts = plan_class_split(table, floor, k, probe=probe if plan == "probe" else None)
        print(f"\n## {plan}: {k} parts asked, {len(parts)} planned\n")
        print("| part | pattern | ceiling - OPT | wall s | nodes | classes |")
        print("|---:|---|---:|---:|---:|---:|")
        times, found = [], 0
        for p in parts:
            t0 = time.perf_counter()
            r = run_part(table, p, method="ilp", opt=opt, epsilon=eps, max_networks=None, deadline=None,
                         options=dict(options))
            dt = time.perf_counter() - t0
            times.append(dt)
            found += len(r.entries)
            pattern = " ".join(f"{table.names[x]}{'-' if adj else '/'}{table.names[y]}" for x, y, adj in p.adjacency)
            print(f"| {p.index} | {pattern} | {p.ceiling - opt:.3f} | {dt:.2f} | {r.stats.get('nodes', 0)} | "
                  f"{len(r.entries)} |", flush=True)
        total, worst = sum(times), max(times)
        ends = [0.0, 0.0]                      # two workers taking the parts in submission order
        for dt in times:
            ends[ends.index(min(ends))] += dt
        bound = max(worst, total / 2)
        print(f"\nparts {len(parts)}: classes {found} (whole {len(whole.entries)}); sum {total:.2f} s "
              f"({total / t_whole:.2f} x the whole search's {t_whole:.2f} s), max {worst:.2f} s "
              f"({worst / total:.0%} of the sum); 2-worker bound max(max, sum/2) = {bound:.2f} s, "
              f"speed-up at best {t_whole / bound:.2f}x; in submission order on 2 workers {max(ends):.2f} s "
              f"({t_whole / max(ends):.2f}x){'' if plan == 'rows' else f', with the probe {t_whole / (max(ends) + t_probe):.2f}x'}  (load {os.getloadavg()[0]:.2f})", flush=True)


def _pair_shares(table, entries, floor: float, n_parts: int) -> None:
    """Share of the whole search's classes with each pair adjacent (the plan's pairs, then the most even)."""
    import numpy as np

    from gobnilp_py.solve.split import plan_class_split

    n = table.n
    adj = np.zeros((len(entries), n, n), dtype=bool)
    for i, (_, chosen) in enumerate(entries):
        for v, j in enumerate(chosen):
            for u in table.families[v][j][0]:
                adj[i, v, u] = adj[i, u, v] = True
    share = adj.mean(axis=0)
    chosen = [(x, y) for x, y, _ in plan_class_split(table, floor, n_parts)[0].adjacency]
    print("\n# classes adjacent on the plan's pairs: "
          + ", ".join(f"{table.names[x]}-{table.names[y]} {share[x, y]:.1%}" for x, y in chosen))
    even = sorted(((abs(share[x, y] - 0.5), x, y) for x in range(n) for y in range(x + 1, n)))[:8]
    print("# the most even pairs: " + ", ".join(f"{table.names[x]}-{table.names[y]} {share[x, y]:.1%}"
                                               for _, x, y in even))


if __name__ == "__main__":
    main()
