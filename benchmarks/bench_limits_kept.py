"""Whole commands under a time and a memory limit, measured as a user would: wall time from the shell and the
peak memory of the whole process tree (main process and scoring workers), sampled from /proc.

Why: ``--time-limit`` promises the whole command and ``--memory-limit`` what scoring holds; these are the
runs issue 37 named (alarm1000, BDeu, Bayes factor 20, no parent limit: minutes of scoring) and the same
under ``learn``, ``kbest`` and ``run``.  Peak memory is given twice: the sum of the processes' resident
sets (pages a forked worker shares with the driver counted in both: an upper bound) and the sum of their
proportional set sizes (shared pages split).

Usage::

    flock /work/cpu.lock /work/venv/bin/python benchmarks/bench_limits_kept.py [--limit 30] [--memory 4e9]

The table it prints (markdown) goes into ``benchmarks/RESULTS.md``, section "Limits kept".
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from process_tree import run_measured  # noqa: E402

DATA = Path(os.environ.get("GOBNILP_DATA", "/work/shared/data"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=30)
    ap.add_argument("--memory", default="4e9")
    ap.add_argument("--data", default=str(DATA / "alarm1000.csv"))
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    gp = [sys.executable, "-m", "gobnilp_py"]
    tl = ["--time-limit", f"{args.limit:g}"]
    tmp = Path(tempfile.mkdtemp(prefix="limits-"))
    cfg = tmp / "job.toml"
    cfg.write_text(f'[data]\npath = "{args.data}"\nheader = false\n[scoring]\nscore = "BDeu"\n'
                   f'memory_limit = {float(args.memory):.0f}\n[search]\njob = "enumerate"\nbayes_factor = 20\n'
                   f'[limits]\ntime_limit = {args.limit:g}\n[output]\ndir = "{tmp / "run"}"\n')
    base = [args.data, "--no-header", "--score", "BDeu"]
    runs = [
        ("enumerate --bf 20", gp + ["enumerate"] + base + ["--bf", "20"] + tl),
        (f"enumerate --bf 20 --memory-limit {args.memory}", gp + ["enumerate"] + base + ["--bf", "20"] + tl
         + ["--memory-limit", args.memory]),
        (f"enumerate --bf 20 -o DIR --memory-limit {args.memory}", gp + ["enumerate"] + base + ["--bf", "20"] + tl
         + ["--memory-limit", args.memory, "-o", str(tmp / "enum")]),
        ("learn", gp + ["learn"] + base + tl + ["--memory-limit", args.memory]),
        ("kbest -k 10", gp + ["kbest"] + base + ["-k", "10"] + tl + ["--memory-limit", args.memory]),
        ("score --bf 20 -o FILE", gp + ["score"] + base + ["--bf", "20", "-o", str(tmp / "t.jkl")] + tl
         + ["--memory-limit", args.memory]),
        (f"run job.toml (enumerate, bayes_factor = 20, time_limit = {args.limit:g}, memory_limit = {args.memory})",
         gp + ["run", str(cfg)]),
    ]
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.2f}; data {args.data}; "
          f"limit {args.limit:g} s")
    print("| command (BDeu, no parent limit) | exit | wall s | peak RSS tree GiB | peak PSS tree GiB | "
          "RSS under the memory limit | processes | first line |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cmd in runs:
        m = run_measured(cmd, timeout=args.limit + 300, env=env)
        first = (m.stdout.strip().splitlines() or [m.stderr.strip()])[0][:90]
        limited = "--memory-limit" in cmd or cmd[-2] == "run"
        under = ("yes" if m.peak_rss < float(args.memory) else "**no**") if limited else "(none given)"
        print(f"| `{name}` | {m.returncode} | {m.wall:.2f} | {m.peak_rss / 2**30:.3f} | {m.peak_pss / 2**30:.3f} | "
              f"{under} | {m.peak_processes} | {first} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
