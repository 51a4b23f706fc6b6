"""Benchmark the exact posterior sums (issue 41): time and memory of ``gobnilp_py.posterior`` by width.

Usage::

    PYTHONPATH=. python benchmarks/bench_posterior.py                       # n = 12 16 20 24, palim 3 and none
    PYTHONPATH=. python benchmarks/bench_posterior.py --n 12 16 --data insurance1000 --threads 1
    flock /work/cpu.lock env PYTHONPATH=. python benchmarks/bench_posterior.py --out posterior.json

For every width ``n`` and parent limit (``--palim``, ``none`` = no limit, run
only while ``n <= --max-unlimited``: the table then holds ``n 2^(n-1)``
families), one run in its own process (so the peak resident memory is that
run's):

1. BDeu scores of the first ``n`` columns of ``../shared/data/<data>.csv``
   without pruning (``gobnilp_py.score(..., prune=False)``), timed apart;
2. ``gobnilp_py.posterior(table)`` (default ``exact=None``: the exact sums where
   their memory fits the 4 GiB default budget, else the sum over orders), timed
   with its parts: local sums, sum over orders, forward and backward passes,
   arrows.  The compiled kernels are loaded first, on a 4-variable table, and
   that time ("kernels") is reported apart.

Printed: one Markdown table (families, scoring seconds, posterior seconds and
its parts, what was computed, log evidence, its first-order error bound, the
consistency check, the memory estimate and the run's peak resident memory)
and ``uptime`` before and after.  Wall seconds on whatever else the machine
runs: take the load into account (run it under ``flock /work/cpu.lock``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from _report import cell  # noqa: E402  (benchmarks/ is the script's folder)

ROOT = Path(__file__).resolve().parents[1]
DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
            Path(__file__).resolve().parents[2] / "shared" / "data")


def run_one(data: str, n: int, palim: int | None, threads: int | None, exact: bool | None) -> dict:
    """Score the first ``n`` columns without pruning, then the posterior; in a worker process."""
    from gobnilp_py import Dataset, ScoreTable, posterior, read_data, score

    t0 = time.perf_counter()          # load (or compile) the kernels on a 4-variable table, timed apart
    posterior(ScoreTable(list("abcd"), [[((), 0.0)]] * 4))
    t_load = time.perf_counter() - t0
    ds = read_data(DATA / f"{data}.csv", header=False)
    first = Dataset(ds.names[:n], ds.arities[:n], ds.codes[:, :n], ds.labels[:n], f"{ds.source}[:{n}]")
    t0 = time.perf_counter()
    table = score(first, score="BDeu", palim=palim, prune=False)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    from gobnilp_py.search import posterior_sums as ps

    if threads is not None:  # the driver's default is both cores; the sums take ``threads`` directly
        real = ps.posterior_sums
        ps.posterior_sums = lambda *a, **k: real(*a, **{**k, "threads": threads})  # type: ignore[assignment]
    post = posterior(table, exact=exact)
    t_post = time.perf_counter() - t0
    st = post.stats
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"data": data, "n": n, "palim": palim, "families": len(table), "t_load": t_load, "t_score": t_score,
            "t_post": t_post,
            "kind": post.kind, "reason": post.reason, "log_evidence": post.log_evidence,
            "log_upper": post.log_evidence_upper, "error_bound": post.error_bound, "check": post.check_error,
            "parts": {k: st.get(k) for k in ("time_local_sums", "time_order_sum", "time_forward", "time_backward",
                                             "time_arrows")},
            "memory_estimate": st.get("memory_estimate_exact") if post.kind == "exact" else
            st.get("memory_estimate_bound"), "peak_rss": rss, "kappa": st.get("kappa_forward")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="alarm1000", help="dataset in shared/data (default alarm1000, 37 variables)")
    ap.add_argument("--n", type=int, nargs="+", default=[12, 16, 20, 24])
    ap.add_argument("--palim", nargs="+", default=["3", "none"])
    ap.add_argument("--max-unlimited", type=int, default=16, help="largest n scored without a parent limit")
    ap.add_argument("--threads", type=int, default=None, help="1 or 2 (default: the posterior's choice)")
    ap.add_argument("--exact", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--out", help="also write the rows as JSON")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    exact = {"auto": None, "yes": True, "no": False}[args.exact]
    if args.one:
        data, n, palim = json.loads(args.one)
        print(json.dumps(run_one(data, n, palim, args.threads, exact)))
        return
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    rows = []
    for n in args.n:
        for p in args.palim:
            palim = None if p == "none" else int(p)
            if palim is None and n > args.max_unlimited:
                rows.append({"data": args.data, "n": n, "palim": None, "kind": "not run",
                             "reason": f"no parent limit past n={args.max_unlimited}: n 2^(n-1) families"})
                continue
            cmd = [sys.executable, __file__, "--one", json.dumps([args.data, n, palim]), "--exact", args.exact]
            if args.threads is not None:
                cmd += ["--threads", str(args.threads)]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            if proc.returncode != 0:
                rows.append({"data": args.data, "n": n, "palim": palim, "kind": "failed",
                             "reason": (proc.stderr.strip().splitlines() or ["?"])[-1][:120],
                             "wall": time.perf_counter() - t0})
            else:
                rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(_line(rows[-1]), flush=True)
    print("uptime after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print()
    print("| n | palim | families | kernels s | scoring s | posterior s | local sums | order sum | forward | backward | arrows "
          "| computed | log evidence | error bound | check | memory est. | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(_row(r))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


def _gib(b: float | None) -> str:
    return "-" if b is None else f"{b / 2**30:.2f} GiB" if b >= 2**28 else f"{b / 2**20:.0f} MiB"


def _line(r: dict) -> str:
    return f"n={r['n']} palim={r['palim']}: {r.get('kind')} {r.get('reason') or ''} {cell(r.get('t_post'))} s"


def _row(r: dict) -> str:
    parts = r.get("parts") or {}
    what = r.get("kind", "-") + (f" ({r['reason']})" if r.get("reason") else "")
    ev = r.get("log_evidence")
    shown = cell(ev, 4) if ev is not None else (f"<= {r['log_upper']:.4f}" if r.get("log_upper") is not None else "-")
    err = r.get("error_bound")
    chk = r.get("check")
    return (f"| {r['n']} | {r['palim'] if r['palim'] is not None else 'none'} | {cell(r.get('families'))} | "
            f"{cell(r.get('t_load'))} | {cell(r.get('t_score'))} | {cell(r.get('t_post'))} | " +
            " | ".join(cell(parts.get(k)) for k in ("time_local_sums", "time_order_sum", "time_forward",
                                                     "time_backward", "time_arrows")) +
            f" | {what} | {shown} | {'-' if err is None else f'{err:.1e}'} | {'-' if chk is None else f'{chk:.1e}'} "
            f"| {_gib(r.get('memory_estimate'))} | {_gib(r.get('peak_rss'))} |")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
