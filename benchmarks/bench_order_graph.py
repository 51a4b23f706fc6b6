"""Benchmark the SCIP-free order-graph engine: the optimum (BFBnB) and the ε-set, per dataset and Bayes factor.

Usage::

    PYTHONPATH=. python benchmarks/bench_order_graph.py adult nltcs letter            # BF 3 20 150
    PYTHONPATH=. python benchmarks/bench_order_graph.py wine --bf 3 20 --budget 600 --out rows.json
    PYTHONPATH=. python benchmarks/bench_order_graph.py sensors --bf 3 --palim 3 --tables /tmp/tables

For every dataset in ``../shared/data`` (or those named) and every Bayes factor,
one run in its own process (so the peak resident memory is that run's):

1. score with BIC pruned for ε = ln BF (``gobnilp_py.score(read_data(path,
   header=False), epsilon=ε)``), or read the table from ``--tables DIR`` if a
   ``<name>_bf<BF>.jkl`` is there (it is written there after scoring);
2. :func:`~gobnilp_py.search.order_graph.frontier.order_graph_optimum` on that table;
3. :func:`~gobnilp_py.search.order_graph.collect.order_graph_epsilon_set` with the
   paper's cap of 150,000 networks and ``--budget`` seconds.

Printed: one Markdown table (time to score, to the optimum, to the ε-set,
networks, status, optimum, peak resident memory of the run, order-graph
nodes kept, collection states expanded) beside the paper's ε-BNSL figures
(Liao et al. 2019, Table 1: seconds / networks, CPLEX on a 2.2 GHz Xeon).
Times are wall seconds on whatever else the machine runs: record ``uptime``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from _report import cell  # noqa: E402  (benchmarks/ is the script's folder)
from published import PAPER_TABLE1  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# shared/data above the checkout (the main checkout's parent, or further up from a worktree)
DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
            Path(__file__).resolve().parents[2] / "shared" / "data")
CAP = 150_000


def run_one(name: str, bf: float, budget: float, tables: str | None, max_candidates: bool,
            memory_budget: int, palim: int | None = None) -> dict:
    """Score (or load), optimum, ε-set for one (dataset, BF); runs in a worker process."""
    from gobnilp_py import ScoreTable, read_data, score
    from gobnilp_py.search.order_graph.collect import order_graph_epsilon_set
    from gobnilp_py.search.order_graph.frontier import order_graph_optimum

    eps = math.log(bf)
    tag = "" if palim is None else f"_palim{palim}"
    cached = Path(tables) / f"{name}_bf{bf:g}{tag}.jkl" if tables else None
    t0 = time.perf_counter()
    if cached is not None and cached.exists():
        table = ScoreTable.from_jkl(cached)
        source = "jkl"
    else:
        opts: dict = {} if max_candidates else {"max_candidates": None}
        if palim is not None:
            opts["palim"] = palim
        table = score(read_data(DATA / f"{name}.csv", header=False), epsilon=eps, **opts)
        source = "scored"
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            table.to_jkl(cached)
    t_score = time.perf_counter() - t0
    opt = order_graph_optimum(table, memory_budget=memory_budget, time_limit=budget)
    layers = opt.stats.get("layers", [])
    col = order_graph_epsilon_set(table, eps, max_networks=CAP, time_limit=budget, memory_budget=memory_budget)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return {
        "data": name if palim is None else f"{name} (palim {palim})", "bf": bf, "n": table.n, "families": len(table), "table": source, "t_scoring": t_score,
        "t_opt": opt.stats["time_total"], "opt_status": opt.status, "opt": opt.score,
        "opt_backend": opt.stats.get("backend"), "heuristic": opt.stats.get("heuristic_score"),
        "og_nodes": sum(d["unique"] for d in layers), "og_generated": sum(d["generated"] for d in layers),
        "t_collect": col.stats["time_total"], "t_collect_dp": col.stats.get("time_dp"),
        "networks": len(col.entries), "status": col.status, "collect_opt": col.optimum,
        "threshold": col.threshold, "states": col.stats.get("states_expanded"),
        "dead_states": col.stats.get("dead_states"), "peak_open": col.stats.get("peak_open_states"),
        "maxrss_mib": rss / 2**20,
    }


def run_isolated(name: str, bf: float, args: argparse.Namespace) -> dict:
    job = json.dumps({"name": name, "bf": bf, "budget": args.budget, "tables": args.tables,
                      "max_candidates": not args.no_max_candidates, "memory_budget": args.memory_budget,
                      "palim": args.palim})
    timeout = args.score_budget + 2 * args.budget + 120
    try:
        proc = subprocess.run([sys.executable, __file__, "--worker", job], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return {"data": name, "bf": bf, "status": "timeout (scoring?)"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"data": name, "bf": bf, "status": f"error: {tail[:100]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table_markdown(rows: list[dict]) -> str:
    head = ("| data | n | BF | families | score T (s) | OPT T (s) | ε-set T (s) | networks | status | OPT "
            "| peak RSS (MiB) | OG nodes kept / generated | states expanded (dead) | paper T / \\|G\\| |")
    lines = [head, "|" + "---|" * 14]
    for r in rows:
        bf = int(r["bf"]) if float(r["bf"]).is_integer() else r["bf"]
        paper = PAPER_TABLE1.get(r["data"], {}) if "palim" not in str(r["data"]) else {}
        p = "-" if bf not in paper else "OT" if paper[bf] is None else f"{paper[bf][0]} / {paper[bf][1]:,}"
        og = (f"{cell(r.get('og_nodes'))} / {cell(r.get('og_generated'))}" if r.get("og_nodes") is not None
              else "-")
        st = f"{cell(r.get('states'))} ({cell(r.get('dead_states'))})" if r.get("states") is not None else "-"
        opt = f"{r['opt']:.6f}" if isinstance(r.get("opt"), float) and math.isfinite(r["opt"]) else "-"
        lines.append(f"| {r['data']} | {cell(r.get('n'))} | {bf} | {cell(r.get('families'))} "
                     f"| {cell(r.get('t_scoring'), 1)} | {cell(r.get('t_opt'))} | {cell(r.get('t_collect'))} "
                     f"| {cell(r.get('networks'))} | {r.get('status', '-')} | {opt} "
                     f"| {cell(r.get('maxrss_mib'), 0)} | {og} | {st} | {p} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", help="dataset names (default: adult nltcs letter zoo wine voting "
                    "tic-tac-toe)")
    ap.add_argument("--bf", type=float, nargs="+", default=[3, 20, 150], help="Bayes factors (default 3 20 150)")
    ap.add_argument("--budget", type=float, default=1800.0, help="seconds for each of the two searches")
    ap.add_argument("--score-budget", type=float, default=1800.0, help="seconds allowed for scoring")
    ap.add_argument("--memory-budget", type=int, default=16 * 2**30, help="bytes (default 16 GiB)")
    ap.add_argument("--tables", help="directory of cached .jkl tables (<name>_bf<BF>.jkl), read and written")
    ap.add_argument("--no-max-candidates", action="store_true",
                    help="score without the candidate cap (needed for sensors)")
    ap.add_argument("--palim", type=int, default=None,
                    help="parent limit for scoring (the optimum is then that of the restricted table)")
    ap.add_argument("--out", type=Path, help="also write the rows as JSON here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(run_one(job["name"], job["bf"], job["budget"], job["tables"], job["max_candidates"],
                                 job["memory_budget"], job.get("palim"))))
        return 0
    names = args.datasets or ["adult", "nltcs", "letter", "zoo", "wine", "voting", "tic-tac-toe"]
    rows = []
    for name in names:
        if not (DATA / f"{name}.csv").exists():
            print(f"skipping {name}: {DATA / (name + '.csv')} not found", file=sys.stderr)
            continue
        for bf in args.bf:
            row = run_isolated(name, bf, args)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.out:
        from gobnilp_py._io import atomic_write_text

        atomic_write_text(args.out, json.dumps(rows, indent=1) + "\n")
    print(table_markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
