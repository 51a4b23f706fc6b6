"""The benchmark suite: Liao et al. (AAAI 2019) Tables 1 and 2 on every dataset, in one command.

Usage (from the project root)::

    python benchmarks/suite.py                                # everything, 120 s per run, writes RESULTS.md
    python benchmarks/suite.py --budget 300 --jobs 2          # longer budget, two datasets at a time
    python benchmarks/suite.py wine zoo --tables 2 --no-write # a subset, printed only
    python benchmarks/suite.py --log runs.jsonl --resume      # keep finished runs across invocations

**Table 1** (BIC, no parent limit): for BF 3, 20 and 150, score with pruning
safe for ln(BF), find OPT and collect every network within ln(BF) of it (cap
150,000 networks, as the paper), count equivalence classes.
**Table 2** (BDeu, ESS 1): the same at BF 20, and the k best networks for
k = 10, 100, 1000 by each k-best method of :mod:`gobnilp_py.solve.methods`
(dynamic programming, repeated solves, our one-search k-best).  The suite
checks that the methods' complete lists agree score by score (``agree``).

Every run has its own process and **one time budget** (``--budget`` seconds of
wall time, scoring included: the search gets what scoring left).  A run that
reaches it is *marked* -- its status says ``budget`` and the figures are those
reached so far -- never dropped.  Two kinds of run are not started, and are
marked ``skipped`` with the run that makes them pointless:

* a run whose scoring would redo, with a larger ε, a scoring of the same data
  and score that already exhausted the budget or was refused (over the
  candidate cap): a larger ε prunes less, so it scores a superset of the
  candidates;
* a k-best run whose method already exhausted the budget for a smaller k
  (a larger k repeats that work: the same first solves, longer lists).

``--no-skip`` starts them anyway.  Datasets run in sequence, or ``--jobs`` at
a time (each run is single-threaded; with two jobs on a two-core machine the
figures carry more noise).  carpo100 is run with parent limit 3 (its constant
columns make an exact table without a parent limit impossible; marked).

Output: two Markdown tables with the published figures beside ours and the
machine and software the run used, written between the
``<!-- suite:begin -->`` and ``<!-- suite:end -->`` markers of
``benchmarks/RESULTS.md`` (appended if the markers are missing), and every
row as JSON (``--json``, default ``benchmarks/suite.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run from a checkout: use its package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import cell as _f  # noqa: E402
from published import CHECKED, GOBNILP_HERE, PAPER_TABLE1, PAPER_TABLE2_BF20  # noqa: E402 (script folder)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
BEGIN, END = "<!-- suite:begin -->", "<!-- suite:end -->"

CAP = 150_000
TABLE1_BFS = (3, 20, 150)
TABLE2_BF = 20
TABLE2_KS = (10, 100, 1000)
METHODS = ("dp", "resolve", "ilp")
#: Seconds a worker may run past the budget before its watchdog reports it (the searches stop themselves).
GRACE = 15.0
#: Address-space limit of each worker, so one run cannot take the machine down (bytes).
MEMORY_LIMIT = 10 * 2**30
#: Per-dataset scoring options that the data force (marked in the tables).
DATASET_OPTIONS: dict[str, dict[str, Any]] = {"carpo100": {"palim": 3}}


# ------------------------------------------------------------------ the runs
def plan(names: list[str], tables: set[int], data_dir: Path, budget: float,
         max_class_networks: int, bfs: tuple[float, ...] = TABLE1_BFS,
         engine: str = "ilp") -> dict[str, list[dict[str, Any]]]:
    """Every run, grouped per dataset in the order the skip rules need (small ε and small k first)."""
    jobs: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        base = {"data": name, "path": str(data_dir / f"{name}.csv"), "budget": budget,
                "max_class_networks": max_class_networks, **DATASET_OPTIONS.get(name, {})}
        runs: list[dict[str, Any]] = []
        if 1 in tables:
            runs += [{**base, "table": 1, "kind": "bf", "score": "BIC", "bf": bf,
                      **({} if engine == "ilp" else {"engine": engine})} for bf in bfs]
        if 2 in tables:
            runs.append({**base, "table": 2, "kind": "bf", "score": "BDeu", "ess": 1.0, "bf": TABLE2_BF})
            runs += [{**base, "table": 2, "kind": "kbest", "score": "BDeu", "ess": 1.0, "method": m, "k": k}
                     for k in TABLE2_KS for m in METHODS]
        for r in runs:
            r["id"] = run_id(r)
        jobs[name] = runs
    return jobs


def run_id(r: dict[str, Any]) -> str:
    what = f"BF{r['bf']:g}" if r["kind"] == "bf" else f"{r['method']}-k{r['k']}"
    if r.get("engine", "ilp") != "ilp":
        what += f":{r['engine']}"
    return f"T{r['table']}:{r['data']}:{r['score']}:{what}"


def identity(job: dict[str, Any]) -> dict[str, Any]:
    """The keys that name a run, copied from its job into its row."""
    return {k: job[k] for k in ("id", "table", "data", "kind", "score", "bf", "method", "k", "palim", "engine")
            if k in job}


def scoring_epsilon(r: dict[str, Any]) -> float:
    """The smallest ε the run scores for (k-best methods start from their default initial ε, 3.0)."""
    return math.log(r["bf"]) if r["kind"] == "bf" else 3.0


def skip_reason(r: dict[str, Any], done: list[dict[str, Any]]) -> str | None:
    """Why ``r`` need not run, given the finished runs of its dataset (see the module docstring)."""
    for d in done:
        if (d.get("phase") == "scoring" and d.get("status") in ("budget", "not run") and d["score"] == r["score"]
                and d.get("palim") == r.get("palim") and scoring_epsilon(r) >= scoring_epsilon(d)):
            what = "exhausted the budget" if d["status"] == "budget" else "was refused"
            return f"scoring {what} in {d['id']} (at a smaller ε)"
        if (r["kind"] == "kbest" and d["kind"] == "kbest" and d["method"] == r["method"]
                and d["score"] == r["score"] and d["k"] < r["k"] and d.get("status") == "budget"):
            return f"{d['method']} already exhausted the budget at k={d['k']}"
    return None


def worker(job: dict[str, Any]) -> dict[str, Any]:
    """One run, inside its own process; returns the row (also on a budget overrun, via the watchdog)."""
    import resource

    from gobnilp_py import enumerate_networks, read_data, score
    from gobnilp_py import kbest
    from gobnilp_py.errors import GobnilpError

    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    row = identity(job)
    state = {"phase": "reading", "t0": time.perf_counter()}
    budget = float(job["budget"])

    def watchdog() -> None:
        # Scoring has no time limit of its own: report the overrun and end the process.
        if state["phase"] in ("classes", "done"):
            return
        row.update({"status": "budget", "phase": state["phase"], "seconds": time.perf_counter() - state["t0"],
                    "peak_mb": _peak_mb()})
        print(json.dumps(row), flush=True)
        os._exit(0)

    timer = threading.Timer(budget + GRACE, watchdog)
    timer.daemon = True
    timer.start()
    options = {"score": job["score"]}
    if "ess" in job:
        options["ess"] = job["ess"]
    if job.get("palim") is not None:
        options["palim"] = job["palim"]
    try:
        data = read_data(job["path"], header=False)
        if job["kind"] == "bf":
            state["phase"] = "scoring"
            t0 = time.perf_counter()
            table = score(data, bayes_factor=job["bf"], **options)
            row["t_scoring"] = time.perf_counter() - t0
            row["families"] = sum(len(f) for f in table.families)
            remaining = budget - (time.perf_counter() - state["t0"])
            if remaining <= 0:
                row.update({"status": "budget", "phase": "scoring"})
                return _finish(row, state)
            state["phase"] = "search"
            cs = enumerate_networks(table, bayes_factor=job["bf"], max_networks=CAP, time_limit=remaining,
                                    method=job.get("engine", "ilp"))
            s = cs.stats
            row.update({"t_opt": s.get("time_opt"), "t_collect": s.get("time_collect", s.get("time_search")),
                        "networks": len(cs), "method_used": s.get("method"),
                        "networks_total": cs.n_networks_total, "classes_total": cs.n_classes_total,
                        "opt": cs.opt if math.isfinite(cs.opt) else None, "near_boundary": cs.near_boundary,
                        "status": _status(cs), "phase": "search"})
            row["t_search"] = (row["t_opt"] or 0.0) + (row["t_collect"] or 0.0)
        else:
            state["phase"] = "k-best"
            t0 = time.perf_counter()
            try:
                cs = kbest(data, int(job["k"]), method=job["method"], time_limit=budget, ties=False, **options)
            except GobnilpError as exc:  # a method that refuses (the DP beyond its size or memory limit)
                row.update({"status": "not run", "note": str(exc).splitlines()[0][:160]})
                return _finish(row, state)
            total = time.perf_counter() - t0
            t_scoring = float(cs.stats.get("time_scoring") or 0.0)
            row.update({"t_total": total, "t_scoring": t_scoring, "t_search": total - t_scoring,
                        "networks": len(cs), "opt": cs.opt if math.isfinite(cs.opt) else None,
                        "kth_gap": cs.epsilon if len(cs) and math.isfinite(cs.epsilon) else None,
                        "scores": [net.score for net in cs.networks], "status": _status(cs),
                        "rounds": cs.stats.get("rounds"), "phase": "k-best"})
            if job["method"] == "dp":
                row["dp_memory_mb"] = (cs.stats.get("memory_arrays_bytes") or 0) / 2**20
        state["phase"] = "classes"
        if len(cs) and len(cs) <= job["max_class_networks"]:
            tc = time.perf_counter()
            row["classes"] = cs.n_mecs
            row["t_classes"] = time.perf_counter() - tc
    except GobnilpError as exc:  # e.g. scoring refused (constant columns, candidate cap)
        row.update({"status": "not run", "phase": state["phase"], "note": str(exc).splitlines()[0][:160]})
    except MemoryError:
        row.update({"status": "memory", "phase": state["phase"],
                    "note": f"over the {MEMORY_LIMIT / 2**30:.0f} GiB limit of a run"})
    return _finish(row, state)


def _status(cs: Any) -> str:
    if cs.complete:
        return "complete"
    return {"time_limit": "budget", "max_networks": "cap"}.get(cs.reason, str(cs.reason))


def _finish(row: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    state["phase"] = "done"
    row["seconds"] = time.perf_counter() - state["t0"]
    row["peak_mb"] = _peak_mb()
    return row


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def run_isolated(job: dict[str, Any]) -> dict[str, Any]:
    """Run ``job`` in a child process; a crash or a hang becomes a marked row, never a lost one."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    limit = float(job["budget"]) + GRACE + 600.0  # the watchdog fires first; this catches a wedged process
    base = identity(job)
    try:
        proc = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], capture_output=True,
                              text=True, timeout=limit, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return {**base, "status": "budget", "phase": "?", "note": f"killed after {limit:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {**base, "status": "error", "note": tail[:160]}
    return json.loads(lines[-1])


def run_dataset(runs: list[dict[str, Any]], *, skip: bool, previous: dict[str, dict[str, Any]],
                report: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    """Every run of one dataset in order, applying the skip rules to what has finished."""
    done: list[dict[str, Any]] = []
    for job in runs:
        if job["id"] in previous:
            row = previous[job["id"]]
        else:
            why = skip_reason(job, done) if skip else None
            if why:
                row = identity(job)
                row.update({"status": "skipped", "note": why})
            else:
                row = run_isolated(job)
            report(row)
        done.append(row)
    return done


# ----------------------------------------------------------------- reporting
def _count(row: dict[str, Any], key: str) -> str:
    """A count, with ``+`` when the run stopped early (at least that many); where a collection by class
    listed fewer than its exact total (the network cap), ``listed (total T)``."""
    v = row.get(key)
    total = row.get(f"{key}_total")
    if v is None:
        return "-" if total is None else f"(total {total:,})"
    text = f"{v:,}" + ("" if row.get("status") in ("complete", "cap") else "+")
    if total is not None and total != v:
        text += f" (total {total:,})"
    return text


def _mark(row: dict[str, Any]) -> str:
    """Status cell: complete, budget (where), cap, not run, skipped, error."""
    st = row.get("status", "?")
    if st == "budget":
        return f"**budget** ({row.get('phase', '?')})"
    if st == "cap":
        return "cap 150,000"
    return st


def _palim_note(row: dict[str, Any]) -> str:
    return f" (palim {row['palim']})" if row.get("palim") is not None else ""


def table1_markdown(rows: list[dict[str, Any]], budget: float) -> list[str]:
    out = ["| data | BF | scoring s | OPT s | collect s | search s | networks | classes | status "
           "| paper T / \\|G\\| / \\|M\\| | search / paper T | GOBNILP here: OPT + collect s / networks "
           "| checked networks / classes |",
           "|" + "---|" * 13]
    for r in rows:
        bf = int(r["bf"])
        pub = PAPER_TABLE1.get(r["data"], {})
        paper = "-" if bf not in pub else ("OT" if pub[bf] is None else
                                          f"{pub[bf][0]} / {pub[bf][1]:,} / {pub[bf][2]:,}")
        g = GOBNILP_HERE.get(r["data"], {}).get(bf)
        gtxt = "-" if g is None else (f"{g[0] + g[1]:.2f} / {g[2]:,}" if g[0] is not None else f"- / {g[2]:,}")
        chk = CHECKED.get((r["data"], "BIC", bf))
        ctxt = "-" if chk is None else f"{chk[0]:,} / {_f(chk[1])}"
        search = r.get("t_search")
        ratio = "-"
        exact = r.get("status") == "complete" or (r.get("status") == "cap" and r.get("networks_total") is not None)
        if bf in pub and pub[bf] is not None and search is not None and exact:
            ratio = f"{search / pub[bf][0]:.3f}"
        engine = f" [{r['engine']}: {r.get('method_used', '?')}]" if r.get("engine", "ilp") != "ilp" else ""
        out.append(f"| {r['data']}{_palim_note(r)}{engine} | {bf} | {_f(r.get('t_scoring'))} | {_f(r.get('t_opt'))} "
                   f"| {_f(r.get('t_collect'))} | {_f(search)} | {_count(r, 'networks')} | {_count(r, 'classes')} "
                   f"| {_mark(r)} | {paper} | {ratio} | {gtxt} | {ctxt} |")
    return out


def table2_markdown(rows: list[dict[str, Any]]) -> list[str]:
    """Liao et al. Table 2 layout: per dataset, k-best times for each k and method, then BF 20."""
    by_data: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        key = f"BF{int(r['bf'])}" if r["kind"] == "bf" else f"{r['method']}-{r['k']}"
        by_data.setdefault(r["data"], {})[key] = r
    head = ["data"] + [f"k={k} {m}" for k in TABLE2_KS for m in METHODS] + [
        "BF 20 T", "networks", "classes", "paper \\|G\\| / \\|M\\|", "checked"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, runs in by_data.items():
        cells = [name + _palim_note(next(iter(runs.values())))]
        for k in TABLE2_KS:
            for m in METHODS:
                cells.append(_time_status(runs.get(f"{m}-{k}"), "t_search"))
        bf = runs.get(f"BF{TABLE2_BF}", {})
        cells.append(_time_status(bf, "t_search"))
        cells += [_count(bf, "networks"), _count(bf, "classes")]
        pub = PAPER_TABLE2_BF20.get(name)
        cells.append("-" if pub is None else f"{pub[0]:,} / {pub[1]:,}")
        chk = CHECKED.get((name, "BDeu", TABLE2_BF))
        cells.append("-" if chk is None else f"{chk[0]:,} / {_f(chk[1])}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def _time_status(r: dict[str, Any] | None, key: str) -> str:
    if not r:
        return "-"
    st = r.get("status")
    if st == "complete":
        return _f(r.get(key))
    if st == "budget":
        return "budget"
    if st == "skipped":
        return "skipped"
    if st == "cap":
        return f"{_f(r.get(key))} (cap)"
    return str(st)


def kbest_details(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| data | k | method | search s | scoring s | networks | classes | gap of k-th | peak MB | agree | status |",
           "|" + "---|" * 11]
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in rows:
        if r["kind"] == "kbest":
            groups.setdefault((r["data"], r["k"]), []).append(r)
    for (name, k), runs in groups.items():
        agree = agreement(runs)
        for r in runs:
            note = f"; {r['note']}" if r.get("note") else ""
            out.append(f"| {name} | {k} | {r['method']} | {_f(r.get('t_search'))} | {_f(r.get('t_scoring'))} "
                       f"| {_count(r, 'networks')} | {_count(r, 'classes')} | {_f(r.get('kth_gap'), 4)} "
                       f"| {_f(r.get('peak_mb'), 0)} | {agree} | {_mark(r)}{note} |")
    return out


def agreement(runs: list[dict[str, Any]], tol: float = 1e-8) -> str:
    """``yes`` if every complete run lists the same scores (to ``tol`` relative), ``NO`` if not, ``-`` if < 2."""
    lists = [r["scores"] for r in runs if r.get("status") == "complete" and r.get("scores") is not None]
    if len(lists) < 2:
        return "-"
    ref = lists[0]
    for other in lists[1:]:
        if len(other) != len(ref):
            return "NO"
        for a, b in zip(ref, other):
            if abs(a - b) > tol * max(1.0, abs(a)):
                return "NO"
    return f"yes ({len(lists)})"


def machine_lines(commit: str) -> list[str]:
    import numpy
    import pyscipopt

    from gobnilp_py.compare import machine_info

    m = machine_info()
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        mem = float("nan")
    scip = getattr(pyscipopt.Model, "version", None)
    scip = f"{pyscipopt.Model().version():g}" if scip else "?"
    return [f"Machine: {m['processor']}, {m['cpus']} CPUs, {mem:.0f} GiB; {m['platform']}; "
            f"Python {m['python']}, PySCIPOpt {pyscipopt.__version__} (SCIP {scip}), numpy {numpy.__version__}; "
            f"gobnilp_py commit {commit}."]


def git_commit() -> str:
    """The checkout's commit (recorded when the suite starts), with ``+dirty`` if files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=ROOT).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return "?"
    return (head or "?") + ("+dirty" if dirty else "")


def report_markdown(rows: list[dict[str, Any]], args: argparse.Namespace, wall: float) -> str:
    t1 = [r for r in rows if r["table"] == 1]
    t2 = [r for r in rows if r["table"] == 2]
    cmd = "python benchmarks/suite.py " + " ".join(args.argv)
    lines = [BEGIN, "## 4. The benchmark suite: Tables 1 and 2 (issue 6)", "",
             "Generated by `benchmarks/suite.py` (do not edit between the markers; rerun instead).", "",
             "Command (from the project root):", "", f"    {cmd.strip()}", "",
             f"Run on {date.today().isoformat()}; {len(rows)} runs in {wall / 60:.1f} min of wall time, "
             f"{args.jobs} at a time; budget {args.budget:g} s per run (wall time, scoring included). "
             + machine_lines(args.commit)[0], "",
             "Status: `complete`; `**budget** (phase)` = the run reached the budget in that phase "
             "(scoring, search, k-best) and its counts are those reached (shown with `+`); `cap 150,000` = "
             "the network cap; `not run` = the method or the scoring refused (reason in the notes); "
             "`skipped` = not started because an earlier run shows it cannot finish (see the suite's "
             "docstring). Times are wall seconds; `search s` excludes scoring, as in the paper."]
    if t1:
        bfs = " / ".join(f"{b:g}" for b in args.bfs)
        lines += ["", f"### Table 1: BIC, BF {bfs} (all networks within ln BF of OPT)", ""]
        lines += table1_markdown(t1, args.budget)
        lines += _notes(t1)
    if t2:
        lines += ["", "### Table 2: BDeu (ESS 1), k-best for k = 10 / 100 / 1000 against BF 20", "",
                  "k-best cells: search seconds of each method (scoring excluded; every method scores the same "
                  "way, with ε doubled from 3 until the k-th network is inside it). BF 20 cells: search "
                  "seconds, networks, classes of the enumeration.", ""]
        lines += table2_markdown(t2)
        lines += ["", "k-best details (`agree` = the complete methods list the same k scores):", ""]
        lines += kbest_details(t2)
        lines += _notes([r for r in t2 if r["kind"] == "bf"])
    lines.append(END)
    return "\n".join(lines) + "\n"


def _notes(rows: list[dict[str, Any]]) -> list[str]:
    notes = [f"- {r['id']}: {r['status']}: {r['note']}" for r in rows if r.get("note")]
    notes += [f"- {r['id']}: {r['near_boundary']} networks inside the solver margin below the limit "
              "(reported, excluded)" for r in rows if r.get("near_boundary")]
    return ["", "Notes:", ""] + notes if notes else []


def write_results(path: Path, block: str) -> None:
    """Replace the generated block of ``path`` (or append it), atomically."""
    from gobnilp_py._io import atomic_write_text

    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block.rstrip("\n") + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    atomic_write_text(path, text)


# ----------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", help="dataset names (default: every CSV in the data folder)")
    ap.add_argument("--budget", type=float, default=120.0, help="wall seconds per run, scoring included (120)")
    ap.add_argument("--tables", type=int, nargs="+", choices=(1, 2), default=[1, 2], help="which tables (1 2)")
    ap.add_argument("--jobs", type=int, default=1, help="datasets run at the same time (1)")
    ap.add_argument("--bfs", type=float, nargs="+", default=list(TABLE1_BFS),
                    help="Table 1's Bayes factors to run (3 20 150)")
    ap.add_argument("--method", default="ilp",
                    help="Table 1's search method (ilp, as the paper; auto: the default's choice)")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="folder of headerless CSV files")
    ap.add_argument("--results", type=Path, default=RESULTS, help="Markdown file to update (benchmarks/RESULTS.md)")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "suite.json", help="rows as JSON")
    ap.add_argument("--no-write", action="store_true", help="print the tables only")
    ap.add_argument("--no-skip", action="store_true", help="start every run, even those that cannot finish")
    ap.add_argument("--max-class-networks", type=int, default=50_000,
                    help="count equivalence classes up to this many networks (50,000)")
    ap.add_argument("--log", type=Path, help="append each finished row to this JSON-lines file")
    ap.add_argument("--resume", action="store_true", help="reuse the rows already in --log")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))), flush=True)
        return 0
    args.argv = [a for a in argv if a != "--resume"]
    args.commit = git_commit()
    if not args.data_dir.is_dir():
        print(f"error: data folder {args.data_dir} not found (the shared datasets are not here)", file=sys.stderr)
        return 2
    if not args.budget > 0 or args.jobs < 1:
        print("error: --budget must be positive and --jobs at least 1", file=sys.stderr)
        return 2
    if args.resume and not args.log:
        print("error: --resume needs --log FILE", file=sys.stderr)
        return 2
    names = args.datasets or sorted(p.stem for p in args.data_dir.glob("*.csv"))
    missing = [n for n in names if not (args.data_dir / f"{n}.csv").exists()]
    if missing:
        print(f"error: no dataset {missing[0]!r} in {args.data_dir}", file=sys.stderr)
        return 2
    previous: dict[str, dict[str, Any]] = {}
    if args.resume and args.log.exists():
        for line in args.log.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("budget_s") == args.budget:
                    previous[row["id"]] = row
    jobs = plan(names, set(args.tables), args.data_dir, args.budget, args.max_class_networks, tuple(args.bfs),
                args.method)
    lock = threading.Lock()

    def report(row: dict[str, Any]) -> None:
        row["budget_s"] = args.budget
        with lock:
            print(f"{row['id']}: {row.get('status')} {_f(row.get('seconds'))} s "
                  f"{'' if row.get('networks') is None else str(row['networks']) + ' networks'}",
                  file=sys.stderr, flush=True)
            if args.log:
                with args.log.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_dataset, jobs[n], skip=not args.no_skip, previous=previous, report=report)
                   for n in names]
        per_data = [f.result() for f in futures]
    wall = time.perf_counter() - t0
    rows = [r for runs in per_data for r in runs]
    rows.sort(key=lambda r: (r["table"], names.index(r["data"]), r["kind"] != "bf", r.get("bf") or 0,
                             r.get("k") or 0, METHODS.index(r["method"]) if "method" in r else -1))
    block = report_markdown(rows, args, wall)
    print(block)
    if not args.no_write:
        from gobnilp_py._io import atomic_write_text

        atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")
        write_results(args.results, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
