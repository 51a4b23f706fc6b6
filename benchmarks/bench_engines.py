"""The search methods side by side on identical score tables: time to OPT and to the whole ε-set.

Usage::

    PYTHONPATH=. python benchmarks/bench_engines.py                                # the issue's datasets
    PYTHONPATH=. python benchmarks/bench_engines.py adult nltcs --bf 3 20 150 --methods ilp ordergraph auto
    PYTHONPATH=. python benchmarks/bench_engines.py sensors --bf 3 --budget 1800 --ilp-budget 300 \
        --palim 3 --jsonl rows.jsonl --out engines.json

For every dataset and Bayes factor the data are scored once, in a worker process
with ``--score-budget`` seconds (BIC, pruning safe for ln BF, no parent limit
unless ``--palim``; the scoring time is reported once), the table is pickled,
and every method runs on that same table in its own process with its own wall-time
budget (``--ilp-budget`` for ``ilp``, ``--budget`` for the others):
``enumerate_networks(table, bayes_factor=BF, method=M, time_limit=budget)``, which
first proves OPT and then collects the ε-set.  Reported per run: seconds to OPT,
seconds for the whole search (OPT + collection), networks and equivalence classes
found, the status (a run stopped by its limit says ``out of time at B s``), the
process's peak resident memory (``ru_maxrss``, which includes the unpickled
table), the 1-minute load average just before the run and the other processes
then using the CPU.  ``auto`` also reports which method it chose.

Agreement: on every (dataset, BF) the complete runs must give the same OPT
(relative 1e-9, the package's "same score") and the same set of networks
(compared by a digest of the sorted network keys); a difference is printed as
``DISAGREE`` in the table and on stderr, and the exit status is 2.

Ratios: ``auto / best`` compares ``auto``'s whole search with the better of the
other methods' complete runs on the same table (the issue's aim: at most 1.2);
``ilp / og`` compares the two engines (``>`` when the ILP ran out of time, so
the true ratio is at least the figure shown).

Paper figures (Liao et al. 2019, Table 1: whole search, CPLEX) are printed beside
ours; Malone et al. (2011) report only optima (their Table 1 times are in
``published.py``).  The machine is shared: read ratios measured in one run, and
see the load recorded per run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# shared/data above the checkout (the main checkout's parent, or further up from a worktree)
DATA = Path(os.environ["GOBNILP_DATA"]) if "GOBNILP_DATA" in os.environ else next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
    Path(__file__).resolve().parents[2] / "shared" / "data")
DEFAULT_DATA = ["tic-tac-toe", "wine", "adult", "nltcs", "voting", "zoo", "letter", "shuttle", "mushroom",
                "sensors", "steel"]
CAP = 150_000
SAME = 1e-9  # the package's relative tolerance for "same score"


def _load() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from published import PAPER_TABLE1

    return PAPER_TABLE1


def _busy() -> str:
    """The other processes using the CPU now (``ps``; this script's own processes excluded)."""
    try:
        out = subprocess.run(["ps", "-eo", "pid,ppid,pcpu,etimes,args", "--sort=-pcpu"], capture_output=True,
                             text=True, timeout=10).stdout.splitlines()[1:]
    except (OSError, subprocess.SubprocessError):
        return "?"
    me = {os.getpid(), os.getppid()}
    busy = []
    for line in out:
        parts = line.split(None, 4)
        if len(parts) < 5 or int(parts[0]) in me or int(parts[1]) in me:
            continue
        if float(parts[2]) < 20.0 or parts[4].startswith("ps "):
            continue
        busy.append(f"{parts[4][:70]} ({float(parts[2]):.0f}%)")
    return "; ".join(busy[:4]) or "nothing else busy"


def score_worker(job: dict) -> dict:
    """Score one dataset for one BF and pickle the table (in its own process, under a time limit)."""
    import resource

    from gobnilp_py import read_data, score

    data = read_data(DATA / f"{job['name']}.csv", header=False)
    opts: dict = {}
    if job.get("palim") is not None:
        opts["palim"] = job["palim"]
    if job.get("no_max_candidates"):
        opts["max_candidates"] = None
    t0 = time.perf_counter()
    table = score(data, bayes_factor=job["bf"], **opts)
    t_score = time.perf_counter() - t0
    with open(job["table"], "wb") as fh:
        pickle.dump(table, fh)
    return {"n": data.n, "N": data.N, "families": len(table), "t_scoring": t_score,
            "score_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


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
    keys = sorted(repr(net.key) for net in cs)
    status = cs.reason or "complete"
    proven = s.get("opt_status") == "optimal"
    if status == "time_limit":
        status = f"out of time at {job['budget']:g} s" + ("" if proven else " (OPT not proven)")
    return {
        "method": job["method"], "chosen": cs.method, "reason_chosen": s.get("method_reason"),
        "t_opt": s.get("time_opt") if proven else None, "t_search": total, "networks": len(cs),
        "networks_total": cs.n_networks_total, "classes": cs.n_classes_total,
        "status": status, "opt": cs.opt if proven else None, "opt_status": s.get("opt_status"),
        "incumbent": cs.opt,
        "digest": hashlib.sha1("\n".join(keys).encode()).hexdigest()[:12],
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _sub(args: list[str], timeout: float) -> tuple[dict | None, str | None]:
    """Run this script as a worker; (row, None) or (None, a one-line failure)."""
    try:
        proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return None, f"killed at {timeout:g} s"
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"error: {tail[:160]}"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def run(name: str, bf: float, methods: list[str], args: argparse.Namespace, tmp: Path) -> list[dict]:
    tag = (f"_palim{args.palim}" if args.palim is not None else "") + ("_nomc" if args.no_max_candidates else "")
    folder = Path(args.tables) if args.tables else tmp
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}_bf{bf:g}{tag}.pickle"
    side = path.with_suffix(".json")
    case = {"data": name + (f" (palim {args.palim})" if args.palim is not None else ""), "bf": bf}
    sjob = {"name": name, "bf": bf, "table": str(path), "palim": args.palim,
            "no_max_candidates": args.no_max_candidates}
    load = os.getloadavg()[0]
    if path.exists() and side.exists():  # the identical table of an earlier invocation (--tables)
        info, err = {**json.loads(side.read_text()), "table_source": f"cached {path.name}"}, None
    else:
        info, err = _sub(["--score-worker", json.dumps(sjob)], args.score_budget)
        if info is not None:
            side.write_text(json.dumps(info))
    if info is None:
        row = {**case, "method": "(scoring)", "status": ("scoring out of time at "
                                                         f"{args.score_budget:g} s" if err.startswith("killed")
                                                         else f"scoring {err}"),
               "load": load, "busy": _busy()}
        print(json.dumps(row), file=sys.stderr, flush=True)
        if args.jsonl:
            with open(args.jsonl, "a") as fh:
                fh.write(json.dumps(row) + "\n")
        return [row]
    rows = []
    for method in methods:
        budget = args.ilp_budget if method == "ilp" else args.budget
        job = {"table": str(path), "bf": bf, "method": method, "budget": budget}
        load, busy = os.getloadavg()[0], _busy()
        t0 = time.time()
        row, err = _sub(["--worker", json.dumps(job)], budget + 300)
        if row is None:
            row = {"method": method, "status": err if not err.startswith("killed") else
                   f"killed at budget + 300 s ({budget + 300:g} s)"}
        row.update({**case, **info, "load": load, "busy": busy, "started": time.strftime("%H:%M:%S", time.gmtime(t0))})
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        if args.jsonl:
            with open(args.jsonl, "a") as fh:
                fh.write(json.dumps(row) + "\n")
    return rows


def agreement(group: list[dict]) -> str:
    """``agree`` / ``DISAGREE: ...`` / ``-`` over the complete runs of one (dataset, BF)."""
    done = [r for r in group if r.get("status") == "complete"]
    problems = []
    if len(done) >= 2:
        ref = done[0]
        for r in done[1:]:
            if r.get("networks_total") != ref.get("networks_total") or r.get("digest") != ref.get("digest"):
                problems.append(f"{ref['method']} {ref.get('networks_total')} networks ({ref.get('digest')}) vs "
                                f"{r['method']} {r.get('networks_total')} ({r.get('digest')})")
    # OPT: compare every run that proved it (a run out of time during collection has proved it too)
    opts = [(r["method"], r["opt"]) for r in group if isinstance(r.get("opt"), float)]
    for m, o in opts[1:]:
        if abs(o - opts[0][1]) > SAME * max(1.0, abs(opts[0][1])):
            problems.append(f"OPT {opts[0][0]} {opts[0][1]!r} vs {m} {o!r}")
    if problems:
        return "DISAGREE: " + "; ".join(problems)
    engines = {r.get("chosen") for r in done}
    if len(engines) >= 2:
        return "agree (" + " = ".join(sorted(engines)) + ")"
    if len({m for m, _ in opts} - {"auto"}) >= 2:
        return "OPT agrees"
    return f"one engine ({next(iter(engines))})" if engines else "-"


def _f(x: object, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}" if isinstance(x, int) else str(x)


def table_markdown(rows: list[dict]) -> str:
    paper = _load()
    out = ["| data | n | N | BF | families | scoring s | method | OPT s | search s | networks | classes | "
           "peak MB | status | auto / best | ilp / og | engines | load | paper T (\\|G\\|) |",
           "|" + "---|" * 18]
    by_case: dict[tuple, list[dict]] = {}
    for r in rows:
        by_case.setdefault((r["data"], r["bf"]), []).append(r)
    for (name, bf), group in by_case.items():
        done = [r for r in group if r.get("status") == "complete" and r["method"] not in ("auto", "(scoring)")]
        best = min((r["t_search"] for r in done), default=None)
        base = name.split(" ")[0]
        known = isinstance(paper.get(base), dict) and int(bf) in paper[base] and base == name
        p = paper[base][int(bf)] if known else None
        paper_cell = (f"{p[0]:,} ({p[1]:,})" if p else "OT (24 h)") if known else "-"
        by_m = {r["method"]: r for r in group}
        og, ilp = by_m.get("ordergraph"), by_m.get("ilp")
        ratio_eng = "-"
        if og and ilp and og.get("status") == "complete" and ilp.get("t_search"):
            ratio_eng = ("" if ilp.get("status") == "complete" else "> ") + f"{ilp['t_search'] / og['t_search']:.2f}"
        agree = agreement(group)
        for r in group:
            ratio = "-"
            if r["method"] == "auto" and best and r.get("status") == "complete":
                ratio = f"{r['t_search'] / best:.2f}"
            method = r["method"] + (f" ({r['chosen']})" if r["method"] == "auto" and r.get("chosen") else "")
            out.append(f"| {name} | {_f(r.get('n'))} | {_f(r.get('N'))} | {bf:g} | {_f(r.get('families'))} | "
                       f"{_f(r.get('t_scoring'))} | {method} | {_f(r.get('t_opt'))} | {_f(r.get('t_search'))} | "
                       f"{_f(r.get('networks_total'))} | {_f(r.get('classes'))} | {_f(r.get('peak_mb'), 0)} | "
                       f"{r.get('status')} | {ratio} | {ratio_eng} | {agree} | {_f(r.get('load'))} | {paper_cell} |")
    return "\n".join(out)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "--score-worker":
        print(json.dumps(score_worker(json.loads(sys.argv[2]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="*", default=DEFAULT_DATA)
    ap.add_argument("--bf", type=float, nargs="+", default=[3.0, 20.0, 150.0])
    ap.add_argument("--methods", nargs="+", default=["ilp", "ordergraph", "auto"])
    ap.add_argument("--budget", type=float, default=600.0, help="wall seconds per non-ILP run (OPT + collection)")
    ap.add_argument("--ilp-budget", type=float, default=300.0, help="wall seconds per ILP run (OPT + collection)")
    ap.add_argument("--score-budget", type=float, default=600.0, help="wall seconds for scoring one table")
    ap.add_argument("--palim", type=int, default=None, help="parent limit for scoring (then the optimum is the "
                    "restricted table's)")
    ap.add_argument("--no-max-candidates", action="store_true", help="score without the candidate cap")
    ap.add_argument("--jsonl", default=None, help="append every row to this file as it is measured")
    ap.add_argument("--out", default=None, help="also write the rows as JSON")
    ap.add_argument("--tables", default=None, help="keep the pickled tables here and reuse them in later "
                    "invocations (so separate invocations search identical tables)")
    ap.add_argument("--render", nargs="+", default=None, help="only print the table of these JSONL files")
    args = ap.parse_args()
    if args.render:
        rows = [json.loads(line) for f in args.render for line in Path(f).read_text().splitlines() if line.strip()]
        rows.sort(key=lambda r: (DEFAULT_DATA.index(r["data"].split(" ")[0]) if r["data"].split(" ")[0] in
                                 DEFAULT_DATA else 99, r["data"], r["bf"]))
        print(table_markdown(rows))
        bad = [(k, agreement(g)) for k, g in _groups(rows).items() if agreement(g).startswith("DISAGREE")]
        for k, msg in bad:
            print(f"{k}: {msg}", file=sys.stderr)
        return 2 if bad else 0
    print(f"load at start: {os.getloadavg()}; busy: {_busy()}", file=sys.stderr)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp:
        for name in args.datasets:
            for bf in args.bf:
                rows += run(name, bf, args.methods, args, Path(tmp))
    print(f"load at end: {os.getloadavg()}", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(table_markdown(rows))
    bad = [(k, agreement(g)) for k, g in _groups(rows).items() if agreement(g).startswith("DISAGREE")]
    for k, msg in bad:
        print(f"{k}: {msg}", file=sys.stderr)
    return 2 if bad else 0


def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    g: dict[tuple, list[dict]] = {}
    for r in rows:
        g.setdefault((r["data"], r["bf"]), []).append(r)
    return g


if __name__ == "__main__":
    sys.exit(main())
