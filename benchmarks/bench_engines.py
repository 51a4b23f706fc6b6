"""The search methods side by side on identical score tables: time to OPT and to the whole ε-set.

Usage::

    PYTHONPATH=. python benchmarks/bench_engines.py                                # the issue's datasets
    PYTHONPATH=. python benchmarks/bench_engines.py adult nltcs --bf 3 20 150 --methods ilp ordergraph auto
    PYTHONPATH=. python benchmarks/bench_engines.py sensors --bf 3 --budget 1800 --out engines.json

For every dataset and Bayes factor the data are scored once (BIC, pruning safe for
ln BF, no parent limit; the scoring time is reported once), the table is pickled,
and every method runs on that same table in its own process with one wall-time
budget: ``enumerate_networks(table, bayes_factor=BF, method=M)``, which first
proves OPT and then collects the ε-set.  Reported per run: seconds to OPT, seconds
for the whole search (OPT + collection), networks and equivalence classes found,
the status, and the process's peak resident memory (``ru_maxrss``).  ``auto`` also
reports which method it chose.  The ratio column compares ``auto`` with the
better of the other methods on the same table (the aim: at most 1.2).

Paper figures (Liao et al. 2019, Table 1: whole search, CPLEX) are printed beside
ours; Malone et al. (2011) report only optima (their Table 1 times are in
``published.py``).  The machine is shared: read ratios measured in one run, and
see the load printed at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("GOBNILP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
DEFAULT_DATA = ["tic-tac-toe", "wine", "adult", "nltcs", "voting", "zoo", "letter", "shuttle", "mushroom",
                "sensors", "steel"]
CAP = 150_000


def _load() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from published import PAPER_TABLE1

    return PAPER_TABLE1


def worker(job: dict) -> dict:
    """One method on one pickled table, in its own process."""
    import resource

    from gobnilp_py import enumerate_networks

    with open(job["table"], "rb") as fh:
        table = pickle.load(fh)
    t0 = time.perf_counter()
    cs = enumerate_networks(table, bayes_factor=job["bf"], method=job["method"], max_networks=CAP,
                            time_limit=job["budget"])
    total = time.perf_counter() - t0
    s = cs.stats
    return {
        "method": job["method"], "chosen": cs.method, "reason_chosen": s.get("method_reason"),
        "t_opt": s.get("time_opt"), "t_search": total, "networks": len(cs),
        "networks_total": cs.n_networks_total, "classes": cs.n_classes_total,
        "status": cs.reason or "complete", "opt": cs.opt,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run(name: str, bf: float, methods: list[str], budget: float, tmp: Path) -> list[dict]:
    from gobnilp_py import read_data, score

    data = read_data(DATA / f"{name}.csv", header=False)
    t0 = time.perf_counter()
    table = score(data, bayes_factor=bf)
    t_score = time.perf_counter() - t0
    path = tmp / f"{name}-{bf}.pickle"
    with open(path, "wb") as fh:
        pickle.dump(table, fh)
    rows = []
    for method in methods:
        job = {"table": str(path), "bf": bf, "method": method, "budget": budget}
        try:
            proc = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], capture_output=True,
                                  text=True, timeout=budget + 300, cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
                row = {"method": method, "status": f"error: {tail[:120]}"}
            else:
                row = json.loads(proc.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            row = {"method": method, "status": "killed (budget + 300 s)"}
        row.update({"data": name, "bf": bf, "n": data.n, "N": data.N, "families": len(table), "t_scoring": t_score})
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def _f(x: object, digits: int = 2) -> str:
    return "-" if x is None else f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}" if isinstance(x, int) else str(x)


def table_markdown(rows: list[dict]) -> str:
    paper = _load()
    out = ["| data | n | N | BF | families | scoring s | method | OPT s | search s | networks | classes | "
           "peak MB | status | auto / best | paper T (\|G\|) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    by_case: dict[tuple, list[dict]] = {}
    for r in rows:
        by_case.setdefault((r["data"], r["bf"]), []).append(r)
    for (name, bf), group in by_case.items():
        done = [r for r in group if r.get("status") == "complete" and r["method"] != "auto"]
        best = min((r["t_search"] for r in done), default=None)
        known = isinstance(paper.get(name), dict) and int(bf) in paper[name]
        p = paper[name][int(bf)] if known else None
        paper_cell = (f"{p[0]:,} ({p[1]:,})" if p else "OT (24 h)") if known else "-"
        for r in group:
            ratio = "-"
            if r["method"] == "auto" and best and r.get("status") == "complete":
                ratio = f"{r['t_search'] / best:.2f}"
            method = r["method"] + (f" ({r['chosen']})" if r["method"] == "auto" and r.get("chosen") else "")
            out.append(f"| {name} | {r['n']} | {r['N']:,} | {bf:g} | {r['families']:,} | {_f(r['t_scoring'])} | "
                       f"{method} | {_f(r.get('t_opt'))} | {_f(r.get('t_search'))} | {_f(r.get('networks'))} | "
                       f"{_f(r.get('classes'))} | {_f(r.get('peak_mb'), 0)} | {r.get('status')} | {ratio} | "
                       f"{paper_cell} |")
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="*", default=DEFAULT_DATA)
    ap.add_argument("--bf", type=float, nargs="+", default=[3.0, 20.0, 150.0])
    ap.add_argument("--methods", nargs="+", default=["ilp", "ordergraph", "auto"])
    ap.add_argument("--budget", type=float, default=600.0, help="wall seconds per run (OPT + collection)")
    ap.add_argument("--out", default=None, help="also write the rows as JSON")
    args = ap.parse_args()
    print(f"load at start: {os.getloadavg()}", file=sys.stderr)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp:
        for name in args.datasets:
            for bf in args.bf:
                rows += run(name, bf, args.methods, args.budget, Path(tmp))
    print(f"load at end: {os.getloadavg()}", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(table_markdown(rows))


if __name__ == "__main__":
    main()
