"""The ILP at its hardest: proving one optimum beside the GOBNILP C program, on the same ``.jkl``.

Issue 38's suite: data sampled from the bnlearn networks that pgmpy ships, 1,000 and
10,000 rows, BDeu (ESS 1) and BIC, parent limits 3 and 4, scored to optimum-only tables
(epsilon 0); ``gobnilp-py learn X.jkl`` and ``gobnilp -f=jkl X.jkl`` run one after the
other on each table, each as a whole process under the shared CPU lock, with the same
time limit.

Usage (from the project root, with the venv active)::

    PYTHONPATH=. python benchmarks/bench_ilp_hard.py build                 # sample + score (the whole suite)
    PYTHONPATH=. python benchmarks/bench_ilp_hard.py build --networks alarm --rows 10000 --scores BDeu --palims 3
    PYTHONPATH=. python benchmarks/bench_ilp_hard.py run --time-limit 600 --log ilp-hard.jsonl --resume
    PYTHONPATH=. python benchmarks/bench_ilp_hard.py run alarm10000.BDeu.p3 --which ours
    PYTHONPATH=. python benchmarks/bench_ilp_hard.py table --log ilp-hard.jsonl

Data (kept out of git) lives in ``--data`` (default ``/work/bench-data/ilp-hard``):
``<net><rows>.csv`` (integer codes, no header; :mod:`sample_bif`'s forward sampler with
``default_rng(seed + rows)``, seed 2015), then **constant columns dropped** (they carry
no information, but their parent sets all tie at score 0, so an epsilon-safe table keeps
every one: win95pts at 1,000 rows had 70,376 candidate sets for its constant node), written
as ``<net><rows>.nc.csv``; tables ``jkl/<net><rows>.<score>.p<palim>.jkl`` written by
``gobnilp-py score`` (epsilon 0, ESS 1 for BDeu, observed arities).

Timing: each program runs as ``flock /work/cpu.lock /usr/bin/time -f ... <command>`` so the
wall time is the command's own (waiting for the lock excluded) and only one heavy run is on
the machine's two cores at a time; the load average before each run is recorded.  Ours is
the whole ``gobnilp-py learn X.jkl --time-limit T --json`` process (Python start-up and
imports included; our modules compiled to ``.pyc`` first, as a wheel install does, see
``benchmarks/_bytecode.py``; ``--bytecode asis`` skips that and the row says so); the C program's is its
whole process with ``limits/time = T``.  Each
side's answer: status, best score, dual bound, gap (SCIP's definition,
``|primal - dual| / min(|primal|, |dual|)``).  Where both prove an optimum the scores must
agree to 1e-6 relative (``agree``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bytecode import compile_package  # noqa: E402  (benchmarks/ is the script's folder)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path("/work/bench-data/ilp-hard")
GOBNILP = ROOT.parent.parent / "shared" / "tools" / "gobnilp-ebnsl" / "gobnilp"
if not GOBNILP.exists():
    GOBNILP = Path("/work/shared/tools/gobnilp-ebnsl/gobnilp")
LOCK = "/work/cpu.lock"

#: the benchmark networks (pgmpy's bundled BIF files), smallest first
NETWORKS = ["insurance", "water", "alarm", "hailfinder", "hepar2", "win95pts", "pathfinder"]
ROWS = [1000, 10000]
SCORES = ["BDeu", "BIC"]
PALIMS = [3, 4]
SEED = 2015


def instance_name(net: str, rows: int, score: str, palim: int) -> str:
    return f"{net}{rows}.{score}.p{palim}"


def _locked(cmd: list[str], lock: bool) -> list[str]:
    return ["flock", LOCK, *cmd] if lock else cmd


def _timed(cmd: list[str], *, lock: bool, cwd: Path | None = None, env: dict | None = None,
           timeout: float | None = None) -> dict[str, Any]:
    """Run ``cmd`` (under the lock) inside ``/usr/bin/time``; wall/CPU/peak memory of the command alone."""
    with tempfile.NamedTemporaryFile("r", suffix=".time", delete=False) as tf:
        tfile = tf.name
    # the timeout applies to the command alone, not to the wait for the lock
    limit = ["timeout", "-k", "30", str(int(timeout))] if timeout else []
    full = _locked([*limit, "/usr/bin/time", "-f", "%e %U %S %M", "-o", tfile, *cmd], lock)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(full, cwd=cwd, env=env, capture_output=True, text=True)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except OSError as exc:
        rc, out, err = 127, "", str(exc)
    outer = time.perf_counter() - t0
    wall = cpu = rss = None
    try:
        last = Path(tfile).read_text().strip().splitlines()[-1].split()
        wall, cpu, rss = float(last[0]), float(last[1]) + float(last[2]), float(last[3]) / 1024
    except (OSError, IndexError, ValueError):
        wall = outer
    finally:
        Path(tfile).unlink(missing_ok=True)
    return {"rc": rc, "stdout": out, "stderr": err, "wall": wall, "cpu": cpu, "rss_mb": rss,
            "load_before": round(load, 2)}


# ----------------------------------------------------------------------------- build
def build(args: argparse.Namespace) -> None:
    """Sample every (network, rows) data set, drop constant columns, score every (score, palim) table."""
    sys.path.insert(0, str(HERE))
    import numpy as np
    from sample_bif import forward_sample, load_network

    data: Path = args.data
    (data / "jkl").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for net in args.networks:
        model = None
        for rows in args.rows:
            nc = data / f"{net}{rows}.nc.csv"
            if not nc.exists() or args.force:
                model = model if model is not None else load_network(net)
                rng = np.random.default_rng(args.seed + rows)
                names, codes, _ = forward_sample(model, rows, rng)
                keep = [j for j in range(codes.shape[1]) if np.unique(codes[:, j]).size > 1]
                dropped = [names[j] for j in range(len(names)) if j not in keep]
                header = ",".join(names[j] for j in keep)
                np.savetxt(nc, codes[:, keep], fmt="%d", delimiter=",", header=header, comments="")
                print(f"{net}{rows}: {len(keep)} variables kept, constant dropped: {dropped or 'none'}", flush=True)
            for score in args.scores:
                for palim in args.palims:
                    name = instance_name(net, rows, score, palim)
                    jkl = data / "jkl" / f"{name}.jkl"
                    if jkl.exists() and not args.force:
                        continue
                    cmd = [sys.executable, "-m", "gobnilp_py", "score", str(nc), "--score", score,
                           "--palim", str(palim), "-o", str(jkl), "--force", "-q"]
                    if score.lower() == "bdeu":
                        cmd += ["--ess", "1"]
                    r = _timed(cmd, lock=args.lock, env=env, timeout=args.score_timeout)
                    # `score` prints the table's guarantee ("# ...") first, then the summary line
                    out = r["stdout"].strip().splitlines()
                    line = next((x for x in out if not x.startswith("#")), "")
                    guarantee = next((x[1:].strip() for x in out if x.startswith("#")), "")
                    status = "ok" if r["rc"] == 0 else f"failed rc {r['rc']}: {r['stderr'].strip()[-200:]}"
                    rec = {"instance": name, "kind": "score", "wall": r["wall"], "rss_mb": r["rss_mb"],
                           "status": status, "line": line, "guarantee": guarantee}
                    print(json.dumps(rec), flush=True)
                    with open(data / "build.jsonl", "a") as fh:
                        fh.write(json.dumps(rec) + "\n")


# ----------------------------------------------------------------------------- run
def _gap(primal: float | None, dual: float | None) -> float | None:
    """SCIP's gap: ``|primal - dual| / min(|primal|, |dual|)`` (0 when equal, None when unknown)."""
    if primal is None or dual is None or not (math.isfinite(primal) and math.isfinite(dual)):
        return None
    if primal == dual:
        return 0.0
    den = min(abs(primal), abs(dual))
    return abs(primal - dual) / den if den > 0 else None


def _our_command() -> str:
    """The ``gobnilp-py`` command: on PATH, else beside this interpreter (a venv not activated); a missing one
    stops the benchmark (it used to be logged as rows "error rc 127")."""
    exe = shutil.which("gobnilp-py") or str(Path(sys.executable).parent / "gobnilp-py")
    if not Path(exe).is_file():
        raise SystemExit(f"gobnilp-py not found on PATH nor beside {sys.executable}: install the package first")
    return exe


def run_ours(jkl: Path, time_limit: float, lock: bool, extra: list[str], options: str | None = None,
             params: str | None = None, engine: str | None = None) -> dict[str, Any]:
    """Ours as a whole process: ``gobnilp-py learn X.jkl`` (the default), or, when ``options`` or
    ``params`` or ``engine`` (JSON objects) are given, this script's ``api`` mode (``learn(X.jkl,
    model_options=..., params=..., engine_options=...)``, same JSON answer) to measure an engine option
    the CLI does not expose."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if options or params or engine:
        cmd = [sys.executable, str(Path(__file__).resolve()), "api", str(jkl), str(time_limit),
               options or "{}", params or "{}", engine or "{}"]
    else:
        exe = _our_command()
        cmd = [exe, "learn", str(jkl), "--time-limit", str(time_limit), "--json", "-q", *extra]
    r = _timed(cmd, lock=lock, env=env, timeout=time_limit + 300)
    rec: dict[str, Any] = {"wall": r["wall"], "cpu": r["cpu"], "rss_mb": r["rss_mb"], "load_before": r["load_before"],
                           "rc": r["rc"], "_output": r["stdout"] + r["stderr"]}
    try:
        d = json.loads(r["stdout"])
    except json.JSONDecodeError:
        rec.update(status=f"error rc {r['rc']}", err=r["stderr"].strip()[-300:])
        return rec
    primal = d.get("score")
    primal = primal if isinstance(primal, (int, float)) and math.isfinite(primal) else None
    dual = d.get("dual_bound")
    st = d.get("stats", {})
    rec.update(status=d.get("status"), method=d.get("method"), primal=primal, dual=dual, gap=_gap(primal, dual),
               nodes=st.get("nodes"), time_lp=st.get("time_lp"), time_search=st.get("time_search"),
               time_separation=st.get("time_separation"), time_heuristic=st.get("time_heuristic"),
               time_propagation=st.get("time_propagation"), lp_iterations=st.get("lp_iterations"),
               cuts=st.get("cuts_total"))
    return rec


_C_FIELDS = {
    "scip_status": re.compile(r"^SCIP Status\s*:\s*(.*)$", re.M),
    "solving_time": re.compile(r"^Solving Time \(sec\)\s*:\s*([0-9.eE+-]+)", re.M),
    "nodes": re.compile(r"^Solving Nodes\s*:\s*([0-9]+)", re.M),
    "primal": re.compile(r"^Primal Bound\s*:\s*([-+0-9.eE]+|[-+]?infinity)", re.M),
    "dual": re.compile(r"^Dual Bound\s*:\s*([-+0-9.eE]+|[-+]?infinity)", re.M),
    "families": re.compile(r"^Number of candidate parent sets:\s*([0-9]+)", re.M),
}


def run_c(jkl: Path, time_limit: float, lock: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Path(tmp) / "gobnilp.set"
        settings.write_text(f"limits/time = {time_limit}\n")
        cmd = [str(GOBNILP), f"-g={settings}", "-f=jkl", str(jkl)]
        r = _timed(cmd, lock=lock, cwd=Path(tmp), timeout=time_limit + 300)
    rec: dict[str, Any] = {"wall": r["wall"], "cpu": r["cpu"], "rss_mb": r["rss_mb"], "load_before": r["load_before"],
                           "rc": r["rc"]}
    text = r["stdout"] + r["stderr"]
    got: dict[str, Any] = {}
    for key, rx in _C_FIELDS.items():
        m = rx.findall(text)
        got[key] = m[-1].strip() if m else None
    def num(s: str | None) -> float | None:
        if s is None:
            return None
        try:
            v = float(s)
        except ValueError:
            return None
        return v if math.isfinite(v) and abs(v) < 1e19 else None
    primal, dual = num(got["primal"]), num(got["dual"])
    st = got["scip_status"] or ""
    status = ("optimal" if "optimal solution found" in st else "time_limit" if "time limit" in st
              else f"error rc {r['rc']}" if not st else st)
    rec.update(status=status, primal=primal, dual=dual, gap=_gap(primal, dual),
               nodes=int(got["nodes"]) if got["nodes"] else None, solving_time=num(got["solving_time"]),
               families=int(got["families"]) if got["families"] else None)
    rec["_output"] = text
    return rec


def instances(data: Path, names: list[str]) -> list[tuple[str, Path]]:
    found = sorted((p.stem, p) for p in (data / "jkl").glob("*.jkl"))
    order = {n: i for i, n in enumerate(NETWORKS)}

    def key(item: tuple[str, Path]) -> tuple:
        # the known network names first: a name ending in a digit (hepar2) would otherwise lose it to the rows
        nets = "|".join(sorted(map(re.escape, NETWORKS), key=len, reverse=True))
        m = re.match(rf"({nets}|[a-z0-9]+?)(\d+)\.(\w+)\.p(\d+)$", item[0])
        if not m:
            return (99, item[0])
        net, rows, score, palim = m.groups()
        return (order.get(net, 50), int(rows), score, int(palim))

    found.sort(key=key)
    if names:
        found = [(n, p) for n, p in found if any(n == s or n.startswith(s) for s in names)]
    return found


def run(args: argparse.Namespace) -> None:
    if args.bytecode == "compile" and "ours" in args.which.split(","):
        compile_package()
    done: set[tuple[str, str]] = set()
    if args.resume and args.log and Path(args.log).exists():
        for line in Path(args.log).read_text().splitlines():
            r = json.loads(line)
            done.add((r["instance"], r["program"]))
    for name, jkl in instances(args.data, args.instances):
        for program in args.which.split(","):
            if (name, program) in done:
                continue
            t = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            if program == "ours":
                rec = run_ours(jkl, args.time_limit, args.lock, args.ours_args, args.ours_options,
                               args.ours_params, args.ours_engine)
            elif program == "c":
                rec = run_c(jkl, args.time_limit, args.lock)
            else:
                raise SystemExit(f"unknown program {program!r} (ours, c)")
            rec = {"instance": name, "program": program, "time_limit": args.time_limit, "start_utc": t,
                   "commit": _commit(), **rec}
            if program == "ours":
                rec["bytecode"] = args.bytecode
            if args.label:
                rec["label"] = args.label
            output = rec.pop("_output", "")
            if args.save_output:
                Path(args.save_output).mkdir(parents=True, exist_ok=True)
                tag = f".{args.label}" if args.label else ""
                (Path(args.save_output) / f"{name}.{program}{tag}.log").write_text(output)
            print(json.dumps(rec), flush=True)
            if args.log:
                with open(args.log, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")


def api(args: argparse.Namespace) -> None:
    """One learn() call through the API with engine options; prints the CLI's JSON fields."""
    from gobnilp_py import learn

    net = learn(str(args.jkl), method="ilp", time_limit=args.time_limit,
                model_options=json.loads(args.options), params=json.loads(args.params),
                engine_options=json.loads(args.engine))
    dual = net.dual_bound
    print(json.dumps({"status": net.status, "method": "ilp", "score": net.score,
                      "dual_bound": dual if dual is not None and math.isfinite(dual) else None,
                      "stats": dict(net.stats)}, default=str))


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


# ----------------------------------------------------------------------------- table
def _b(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def table(args: argparse.Namespace) -> None:
    """Markdown: one row per instance (C beside ours, last run of each), or with ``--by-label`` one row
    per (instance, label) of our runs (the levers measured)."""
    recs = [json.loads(line) for line in Path(args.log).read_text().splitlines() if line.strip()]
    order = {n: i for i, (n, _) in enumerate(instances(args.data, []))}

    def fmt_gap(g):
        return "-" if g is None else f"{100 * g:.2f} %"

    if args.by_label:
        print("| instance | variant | status | s | best score | bound | gap | nodes | LP s | separation s | heuristic s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in sorted((r for r in recs if r["program"] == "ours"), key=lambda r: order.get(r["instance"], 1e9)):
            print(f"| {r['instance']} | {r.get('label', 'default')} | {r.get('status')} | {r.get('wall', 0):.1f} | "
                  f"{_b(r.get('primal'))} | {_b(r.get('dual'))} | {fmt_gap(r.get('gap'))} | {r.get('nodes', '-')} | "
                  f"{_b(r.get('time_lp'))} | {_b(r.get('time_separation'))} | {_b(r.get('time_heuristic'))} |")
        return
    rows: dict[str, dict[str, dict]] = {}
    for r in recs:
        if args.label and r.get("label") != args.label:
            continue
        rows.setdefault(r["instance"], {})[r["program"]] = r  # the last run of each wins
    print("| instance | families | C: status | C s | C best / bound | C gap | ours: status | ours s | ours best / bound "
          "| ours gap | ratio | agree | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(rows, key=lambda n: order.get(n, 1e9)):
        c, o = rows[name].get("c", {}), rows[name].get("ours", {})
        ratio = "-"
        if c.get("status") == "optimal" and o.get("status") == "optimal" and c.get("wall") and o.get("wall"):
            ratio = f"{o['wall'] / c['wall']:.2f}"
        agree = "-"
        if c.get("status") == "optimal" and o.get("status") == "optimal":
            agree = "yes" if abs(c["primal"] - o["primal"]) <= 1e-6 * max(1.0, abs(c["primal"])) else "NO"
        load = "/".join(f"{x.get('load_before', 0):.1f}" for x in (c, o) if x)
        print(f"| {name} | {c.get('families') or '-'} | {c.get('status', '-')} | {c.get('wall', 0):.1f} | "
              f"{_b(c.get('primal'))} / {_b(c.get('dual'))} | {fmt_gap(c.get('gap'))} | {o.get('status', '-')} | "
              f"{o.get('wall', 0):.1f} | {_b(o.get('primal'))} / {_b(o.get('dual'))} | {fmt_gap(o.get('gap'))} | "
              f"{ratio} | {agree} | {load} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="sample the networks and score the tables")
    b.add_argument("--networks", nargs="+", default=NETWORKS)
    b.add_argument("--rows", nargs="+", type=int, default=ROWS)
    b.add_argument("--scores", nargs="+", default=SCORES)
    b.add_argument("--palims", nargs="+", type=int, default=PALIMS)
    b.add_argument("--seed", type=int, default=SEED)
    b.add_argument("--score-timeout", type=float, default=3600)
    b.add_argument("--force", action="store_true")
    b.add_argument("--no-lock", dest="lock", action="store_false")
    r = sub.add_parser("run", help="solve each table with both programs")
    r.add_argument("instances", nargs="*", help="instance names or prefixes (default: every table in --data/jkl)")
    r.add_argument("--time-limit", type=float, default=600)
    r.add_argument("--which", default="ours,c", help="ours, c or ours,c (the order they run in)")
    r.add_argument("--log", help="append one JSON line per run here")
    r.add_argument("--resume", action="store_true", help="skip (instance, program) pairs already in --log")
    r.add_argument("--label", help="a tag stored with each run (e.g. the lever being measured)")
    r.add_argument("--ours-args", nargs=argparse.REMAINDER, default=[],
                   help="extra arguments for gobnilp-py learn (must come last)")
    r.add_argument("--ours-options", help="JSON model_options for ours (runs through the API, see run_ours)")
    r.add_argument("--ours-params", help="JSON SCIP params for ours (runs through the API)")
    r.add_argument("--ours-engine", help="JSON engine_options for ours, e.g. '{\"warm_start\": true}' (API)")
    r.add_argument("--save-output", help="keep each run's stdout and stderr in this folder")
    r.add_argument("--no-lock", dest="lock", action="store_false")
    r.add_argument("--bytecode", choices=["compile", "asis"], default="compile",
                   help="compile the package's modules to .pyc before our runs (default, as a wheel install "
                        "does), or leave them as found (see benchmarks/_bytecode.py)")
    a = sub.add_parser("api", help="(internal) one learn() through the API, JSON on stdout")
    a.add_argument("jkl")
    a.add_argument("time_limit", type=float)
    a.add_argument("options")
    a.add_argument("params")
    a.add_argument("engine", nargs="?", default="{}")
    t = sub.add_parser("table", help="Markdown table of a run log")
    t.add_argument("--log", required=True)
    t.add_argument("--label")
    t.add_argument("--by-label", action="store_true", help="one row per (instance, label) of our runs")
    args = ap.parse_args(argv)
    {"build": build, "run": run, "api": api, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
