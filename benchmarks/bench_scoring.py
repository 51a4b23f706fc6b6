"""Benchmark of the scoring engine (and of pgmpy's scorer on the same families).

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_scoring.py \\
        [--data-dir /work/shared/data] [--datasets wine zoo ...] [--scores BIC BDeu] \\
        [--bf 3 20 150] [--palim N] [--budget 600] [--pgmpy-sample 200] [--no-pgmpy] \\
        [--n-jobs N] [--gobnilp] [--output results.md] [--mem-gb 8] [--jsonl runs.jsonl] [--save-jkl DIR] \\
        [--kernel auto numpy numba] [--repeat N]

Every (dataset, score, Bayes factor) run is a separate subprocess with a wall
time budget (``--budget`` seconds; a run that exceeds it is reported as
``timeout``), so peak memory (``ru_maxrss`` of that process) is per run.
Defaults: every ``*.csv`` in the data folder, BIC and BDeu (ESS 1), BF 3, 20
and 150, no parent limit, every core.  ``--gobnilp`` also times the GOBNILP C
scorer (``../shared/tools/gobnilp-ebnsl/run_one.sh``, BIC only, with its own
parent limit ``int(log2(rows + ln BF)) + 1``; its OPT and collection steps are
given a 1 s timeout, only the scoring step is timed, within ``--budget``).
``--kernel`` selects the counting-and-scoring path (``GOBNILP_SCORING_KERNEL``,
see :data:`gobnilp_py.scoring.parallel.KERNEL`): ``auto`` (default), ``numpy``
or ``numba``; several values run every case once per path, side by side (the
path is shown after the data name).  ``--repeat N`` scores the same data N times in
the run's process: ``time s`` stays the first call (what a fresh process pays,
including numba's one-off load when the kernel is chosen), and ``warm s`` is the
median of the N - 1 later calls (what each further call of a session or a
bootstrap pays); the speed-ups are given for both.
Columns:

* ``time s`` -- wall time of :func:`gobnilp_py.scoring.score` (data already loaded);
* ``warm s`` -- with ``--repeat``: median wall time of the later calls in the same process;
* ``peak MB`` -- peak resident memory of the run's process;
* ``scored`` -- (child, parent set) families whose local score was computed;
* ``kept`` -- families in the pruned table;
* ``scores/s`` -- ``scored / time`` (counting + scoring + pruning, amortised);
* ``pgmpy ms/score (kept)`` -- pgmpy's ``BIC``/``BDeu`` ``local_score`` on a random
  sample of the kept families (``--pgmpy-sample``); ``speed-up (kept)`` is that
  over our time per scored family.  Skipped cleanly when pgmpy is not installed.
* ``pgmpy ms/score (scored sizes)`` -- pgmpy on as many families drawn with the
  parent-set sizes of the families *we scored* (level by level, in proportion to
  ``families_scored_per_level``), so that both sides time the same kind of local
  score; ``speed-up (scored sizes)`` likewise.  ``max |diff|`` is over both samples.

The whole default sweep is long (alarm1000 and insurance1000 take tens of
seconds per run; letter and adult have 20-30k rows); run it on a quiet
machine.  The result is printed as a markdown table (and written to
``--output`` if given).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
if not DEFAULT_DATA.is_dir():
    DEFAULT_DATA = Path("/work/shared/data")
SHARED = DEFAULT_DATA.parent

log = logging.getLogger("bench_scoring")


def _load(path: Path):
    from gobnilp_py.data import read_data

    return read_data(path, header=False)


def worker(path: str, score_name: str, bf: float, palim: int | None, sample: int, n_jobs: int | None = None,
           repeat: int = 1) -> dict:
    """One run, inside its own process: score, then (optionally) time pgmpy on a sample."""
    import numpy as np

    mem_gb = float(os.environ.get("BENCH_MEM_GB", "0"))
    if mem_gb > 0:  # address-space cap of this run (inherited by its scoring workers)
        lim = int(mem_gb * 1024 ** 3)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))

    from gobnilp_py.scoring import score

    # Libraries the package imports where they are used (scipy's gammaln for BDeu's large counts) are
    # imported before the clock starts, as pgmpy's are: the columns compare scoring, not imports.
    import scipy.special  # noqa: F401

    ds = _load(Path(path))
    t0 = time.perf_counter()
    table = score(ds, score=score_name, ess=1.0, bayes_factor=bf, palim=palim, n_jobs=n_jobs)
    elapsed = time.perf_counter() - t0
    warm = []
    for _ in range(max(0, repeat - 1)):  # later calls in this process: the same work, nothing carried over
        t1 = time.perf_counter()
        again = score(ds, score=score_name, ess=1.0, bayes_factor=bf, palim=palim, n_jobs=n_jobs)
        warm.append(time.perf_counter() - t1)
        if again.to_jkl() != table.to_jkl():
            raise RuntimeError("a repeated call gave a different table")
    save = os.environ.get("BENCH_SAVE_JKL")
    if save:  # keep the table for a later search (written after the timing, not included in it)
        Path(save).mkdir(parents=True, exist_ok=True)
        table.to_jkl(Path(save) / f"{Path(path).stem}.{score_name.lower()}.bf{bf:g}.jkl")
    out = {
        "time": elapsed,
        "time_warm": float(np.median(warm)) if warm else None,
        "warm_calls": len(warm),
        "scored": int(table.meta["families_scored"]),
        "kept": len(table),
        "max_parents": max(len(ps) for fams in table.families for ps, _ in fams),
        "peak_mb": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                       resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024.0,
    }
    if sample > 0:
        try:
            import warnings

            import pandas as pd
            from pgmpy.estimators import BDeu as PgBDeu
            from pgmpy.estimators import BIC as PgBIC
            from pgmpy.estimators import K2 as PgK2
        except ImportError:
            out["pgmpy"] = "not installed"
            return out
        warnings.filterwarnings("ignore")
        logging.getLogger("pgmpy").setLevel(logging.ERROR)
        frame = pd.DataFrame(ds.codes, columns=list(ds.names))
        if score_name not in ("BIC", "BDeu", "K2"):
            out["pgmpy"] = "n/a"
            return out
        pg = {"BIC": lambda: PgBIC(frame), "K2": lambda: PgK2(frame),
              "BDeu": lambda: PgBDeu(frame, equivalent_sample_size=1.0)}[score_name]()
        fams = [(f.child, list(f.parents), f.score) for f in table]
        rng = np.random.default_rng(0)
        pick = rng.choice(len(fams), size=min(sample, len(fams)), replace=False)
        worst = 0.0
        t1 = time.perf_counter()
        for i in pick:
            child, parents, ours = fams[int(i)]
            theirs = pg.local_score(child, parents)
            worst = max(worst, abs(float(theirs) - ours))
        out["pgmpy_ms"] = 1000.0 * (time.perf_counter() - t1) / len(pick)
        out["pgmpy_diff"] = worst
        out.update(_pgmpy_scored_sizes(pg, ds, score_name, table.meta.get("families_scored_per_level"), sample))
    return out


def _pgmpy_scored_sizes(pg, ds, score_name: str, per_level, sample: int) -> dict:
    """pgmpy's time per local score on families drawn with the parent-set sizes *we scored*.

    Why: the kept families are the small, informative ones, while the scoring
    time is spread over every family scored, most of them larger (tic-tac-toe
    BDeu: 66 kept, of at most 3 parents; 5,019 scored, 2,520 of them with 4 or 5).
    pgmpy's cost grows with the parent count, so "our time per scored family
    against pgmpy's time per kept family" compares different work.  Here
    ``sample`` families are drawn level by level in proportion to
    ``families_scored_per_level`` (a uniform child, a uniform parent set of that
    size; seeded), timed with pgmpy and checked against our own value.
    """
    import numpy as np

    from gobnilp_py.scoring.local_scores import make_score

    if not per_level:
        return {}
    total = float(sum(per_level))
    n = len(ds.names)
    rng = np.random.default_rng(1)
    want = [max(1, round(sample * c / total)) if c else 0 for c in per_level]
    ours = make_score(score_name, ds, ess=1.0)
    worst, spent, done = 0.0, 0.0, 0
    per_k = []
    for k, m in enumerate(want):
        if k >= n or m == 0:
            continue
        t_k = 0.0
        for _ in range(m):
            child = int(rng.integers(n))
            others = [v for v in range(n) if v != child]
            parents = sorted(int(v) for v in rng.choice(others, size=k, replace=False))
            t1 = time.perf_counter()
            theirs = pg.local_score(ds.names[child], [ds.names[v] for v in parents])
            t_k += time.perf_counter() - t1
            worst = max(worst, abs(float(theirs) - ours.compute(child, tuple(parents))))
        spent += t_k * per_level[k] / m            # weight each size by how many we scored
        done += m
        per_k.append((k, m, round(1000.0 * t_k / m, 3)))
    return {"pgmpy_scored_ms": 1000.0 * spent / total, "pgmpy_scored_diff": worst, "pgmpy_scored_n": done,
            "pgmpy_scored_per_size": per_k}


def run_gobnilp(path: Path, bf: float, budget: float) -> dict:
    """The GOBNILP C scorer on the same file (scoring step only), through the authors' pipeline."""
    tool = SHARED / "tools" / "gobnilp-ebnsl" / "run_one.sh"
    if not tool.exists():
        return {"status": "gobnilp not found"}
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, RESULTS=tmp, DATA=str(path.parent), SCORE_TIMEOUT=str(int(budget)),
                   OPT_TIMEOUT="1", COLLECT_TIMEOUT="1")
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", str(tool), path.stem, f"{bf:g}", "1"], capture_output=True, text=True,
                              env=env, timeout=budget + 120)
        wall = time.perf_counter() - t0
        rows = (Path(tmp) / "runs.csv").read_text().splitlines()
        head, last = rows[0].split(","), rows[-1].split(",")
        rec = dict(zip(head, last))
        out = {"status": "ok", "palim": rec.get("palim"), "time": rec.get("score_wall_s"),
               "peak_mb": rec.get("score_rss_mb"), "wall": wall}
        if "scoring" in rec.get("status", ""):
            out["status"] = rec["status"]
        sf = Path(rec.get("score_file", ""))
        if sf.is_file():
            lines = sf.read_text().split("\n")
            n = int(lines[0].split()[0])
            out["families"] = sum(1 for ln in lines[1:] if ln.strip()) - n
        del proc
    return out


def run_one(path: Path, score_name: str, bf: float, palim: int | None, sample: int,
            budget: float, n_jobs: int | None = None, kernel: str | None = None, repeat: int = 1) -> dict:
    cmd = [sys.executable, __file__, "--worker", str(path), score_name, repr(bf),
           str(palim if palim is not None else -1), str(sample), str(n_jobs if n_jobs else 0), str(repeat)]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if kernel is not None:
        env["GOBNILP_SCORING_KERNEL"] = kernel
    t0 = time.perf_counter()
    # Own session, killed as a group on timeout: the run's worker processes go with it.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        import signal

        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"status": f"timeout (>{budget:g} s)"}
    proc = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        last = last.replace("gobnilp_py.errors.", "")
        if not last.strip() or proc.returncode < 0:
            last = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else last
        return {"status": f"error after {time.perf_counter() - t0:.0f} s: {last[:300]}"}
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["status"] = "ok"
    res["wall"] = time.perf_counter() - t0
    return res


def _machine() -> tuple[str, str]:
    """`uptime`, and the other processes using much CPU right now (for the record beside each figure)."""
    up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    ps = subprocess.run(["ps", "-eo", "pid,pcpu,args", "--sort=-pcpu"], capture_output=True,
                        text=True).stdout.splitlines()[1:6]
    busy = [" ".join(l.split()[:2]) + " " + " ".join(l.split()[2:])[:80] for l in ps
            if float(l.split()[1]) > 20 and int(l.split()[0]) != os.getpid()]
    return up, " | ".join(busy)


def _record(path: Path | None, rec: dict) -> None:
    if path is not None:
        rec["utc"] = time.strftime("%H:%M:%S", time.gmtime())
        with open(path, "a") as fh:
            fh.write(json.dumps(rec, default=str) + "\n")


def fmt_row(name: str, score_name: str, bf: float, r: dict) -> str:
    if r.get("status") != "ok":
        return f"| {name} | {score_name} | {bf:g} | {r['status']} | | | | | | | | | | | | | |"
    warm = r.get("time_warm")
    per_warm = None if warm is None else 1000.0 * warm / max(r["scored"], 1)
    rate = r["scored"] / r["time"] if r["time"] > 0 else math.inf
    pg = r.get("pgmpy")
    if pg is None and "pgmpy_ms" in r:
        pg_ms, pg_diff = f"{r['pgmpy_ms']:.2f}", f"{r['pgmpy_diff']:.1e}"
        per_ours = 1000.0 * r["time"] / max(r["scored"], 1)
        speed = f"{r['pgmpy_ms'] / per_ours:.0f}x"
    else:
        pg_ms, pg_diff, speed = (pg or "skipped"), "", ""
    if "pgmpy_scored_ms" in r:
        per_ours = 1000.0 * r["time"] / max(r["scored"], 1)
        sz_ms = f"{r['pgmpy_scored_ms']:.2f}"
        sz_speed = f"{r['pgmpy_scored_ms'] / per_ours:.0f}x"
        pg_diff = f"{max(r['pgmpy_diff'], r['pgmpy_scored_diff']):.1e}"
    else:
        sz_ms, sz_speed = "", ""
    warm_kept = warm_sz = ""
    if per_warm is not None and "pgmpy_ms" in r:
        warm_kept = f"{r['pgmpy_ms'] / per_warm:.0f}x"
    if per_warm is not None and "pgmpy_scored_ms" in r:
        warm_sz = f"{r['pgmpy_scored_ms'] / per_warm:.0f}x"
    warm_s = "" if warm is None else f"{warm:.3f}"
    return (f"| {name} | {score_name} | {bf:g} | {r['time']:.3f} | {warm_s} | {r['peak_mb']:.0f} | {r['scored']:,} | "
            f"{r['kept']:,} | {r['max_parents']} | {rate:,.0f} | {pg_ms} | {speed} | {sz_ms} | {sz_speed} "
            f"| {warm_kept} | {warm_sz} | {pg_diff} |")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        path, score_name, bf, palim, sample, nj, repeat = argv[1:8]
        p = int(palim)
        res = worker(path, score_name, float(bf), None if p < 0 else p, int(sample), int(nj) or None, int(repeat))
        print(json.dumps(res))
        return 0
    ap = argparse.ArgumentParser(description="Benchmark gobnilp_py scoring (markdown table on stdout).")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--datasets", nargs="*", default=None, help="file stems (default: every *.csv)")
    ap.add_argument("--scores", nargs="*", default=["BIC", "BDeu"])
    ap.add_argument("--bf", nargs="*", type=float, default=[3.0, 20.0, 150.0])
    ap.add_argument("--n-jobs", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--gobnilp", action="store_true", help="also time the GOBNILP C scorer (BIC)")
    ap.add_argument("--palim", type=int, default=None)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--pgmpy-sample", type=int, default=200, help="families timed with pgmpy (0: none)")
    ap.add_argument("--no-pgmpy", action="store_true")
    ap.add_argument("--output", type=Path, default=None)
    ap.add_argument("--mem-gb", type=float, default=8.0, help="address-space cap per run in GB (0: none)")
    ap.add_argument("--jsonl", type=Path, default=None,
                    help="append every run as one JSON line, with `uptime` and the busiest other processes")
    ap.add_argument("--kernel", nargs="*", default=None, choices=["auto", "numpy", "numba"],
                    help="counting-and-scoring path(s) (GOBNILP_SCORING_KERNEL); several: each case once per path")
    ap.add_argument("--repeat", type=int, default=1,
                    help="score N times in each run's process: the first call, and the median of the later ones")
    ap.add_argument("--save-jkl", type=Path, default=None,
                    help="write each scored table to DIR/DATA.SCORE.bfB.jkl (after the timing) for a later search")
    args = ap.parse_args(argv)
    os.environ["BENCH_MEM_GB"] = f"{args.mem_gb:g}"
    if args.save_jkl is not None:
        os.environ["BENCH_SAVE_JKL"] = str(args.save_jkl.resolve())
    if not args.data_dir.is_dir():
        print(f"data folder {args.data_dir} not found", file=sys.stderr)
        return 2
    files = sorted(args.data_dir.glob("*.csv"))
    if args.datasets:
        want = set(args.datasets)
        files = [f for f in files if f.stem in want]
    sample = 0 if args.no_pgmpy else args.pgmpy_sample
    lines = [
        f"Scoring benchmark (palim={args.palim}, ESS 1, budget {args.budget:g} s per run)",
        "",
        "| data | score | BF | time s | warm s | peak MB | scored | kept | max \\|W\\| | scores/s "
        "| pgmpy ms/score (kept) | speed-up (kept) | pgmpy ms/score (scored sizes) | speed-up (scored sizes) "
        "| warm speed-up (kept) | warm speed-up (scored sizes) | max \\|diff\\| |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for f in files:
        for score_name in args.scores:
            for bf in args.bf:
                for kernel in (args.kernel or [None]):
                    up, oth = _machine()
                    r = run_one(f, score_name, bf, args.palim, sample, args.budget, args.n_jobs, kernel,
                                args.repeat)
                    _record(args.jsonl, {"data": f.stem, "score": score_name, "bf": bf, "engine": "gobnilp_py",
                                         "kernel": kernel or os.environ.get("GOBNILP_SCORING_KERNEL", "auto"),
                                         "uptime": up, "others": oth, **r})
                    row = fmt_row(f.stem if kernel is None else f"{f.stem} [{kernel}]", score_name, bf, r)
                    lines.append(row)
                    print(row, flush=True)
                if args.gobnilp and score_name == "BIC":
                    up, oth = _machine()
                    g = run_gobnilp(f, bf, args.budget)
                    _record(args.jsonl, {"data": f.stem, "score": score_name, "bf": bf, "engine": "gobnilp_c",
                                         "uptime": up, "others": oth, **g})
                    row = (f"| {f.stem} | GOBNILP C (palim {g.get('palim', '?')}) | {bf:g} | "
                           f"{g.get('time', '-')} | | {g.get('peak_mb', '-')} | | {g.get('families', '-')} | "
                           f"| | {g['status']} | | | | | | |")
                    lines.append(row)
                    print(row, flush=True)
    if args.output is not None:
        sys.path.insert(0, str(ROOT))
        from gobnilp_py._io import atomic_write_text

        atomic_write_text(args.output, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
