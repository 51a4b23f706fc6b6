"""Gaussian scoring walked in-process (n_jobs=1) beside two worker processes (n_jobs=2), side by side.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_gaussian_parallel.py \\
        [--vars 20 25] [--rows 1000] [--scores bic-g bge] [--bf 20] [--repeat 2]

Data: ``random_linear_gaussian(n, seed=n)`` sampled with ``seed=rows``, as in
``bench_gaussian_scoring.py``.  Per row: the best of ``--repeat`` times of ``gaussian_score_table``
with ``n_jobs=1`` and with ``n_jobs=2`` (the two runs alternate), the workers the second used
(``meta["n_jobs"]``: 1 when the walks were too short to send), the ratio, and a check that the two
tables are identical.  Also the cost of starting a pool and sending it one tiny walk (what
``PARALLEL_MIN_SECONDS`` is weighed against).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vars", type=int, nargs="+", default=[20, 25])
    ap.add_argument("--rows", type=int, nargs="+", default=[1000])
    ap.add_argument("--scores", nargs="+", default=["bic-g", "bge"])
    ap.add_argument("--bf", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()

    from gobnilp_py.examples.gaussian import random_linear_gaussian
    from gobnilp_py.scoring import gaussian_workers as W
    from gobnilp_py.scoring.gaussian import gaussian_score_table

    small = np.random.default_rng(0).normal(size=(50, 4))
    gaussian_score_table(small, n_jobs=1)  # load the compiled walk
    old = W.PARALLEL_MIN_SECONDS
    W.PARALLEL_MIN_SECONDS = 0.0
    starts = []
    for _ in range(3):
        t0 = time.perf_counter()
        gaussian_score_table(small, n_jobs=2)
        starts.append(time.perf_counter() - t0)
    W.PARALLEL_MIN_SECONDS = old
    t0 = time.perf_counter()
    gaussian_score_table(small, n_jobs=1)
    inproc = time.perf_counter() - t0
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  load {os.getloadavg()[0]:.2f}  BF {a.bf:g}  cores "
          f"{len(os.sched_getaffinity(0))}")
    print(f"# 4 variables, 50 rows: in-process {inproc * 1e3:.1f} ms, sent to 2 workers {min(starts) * 1e3:.1f} ms "
          "(best of 3): the pool's start and round trip")
    print("| vars | rows | score | families scored | kept | n_jobs=1 s | n_jobs=2 s | workers | ratio 2/1 | same |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for n in a.vars:
        net = random_linear_gaussian(n, seed=n)
        for rows in a.rows:
            x = net.sample(rows, seed=rows)
            for name in a.scores:
                t1, t2 = [], []
                for _ in range(a.repeat):
                    s = time.perf_counter()
                    one = gaussian_score_table(x, score=name, bayes_factor=a.bf, n_jobs=1)
                    t1.append(time.perf_counter() - s)
                    s = time.perf_counter()
                    two = gaussian_score_table(x, score=name, bayes_factor=a.bf, n_jobs=2)
                    t2.append(time.perf_counter() - s)
                same = one.families == two.families and one.pruning == two.pruning
                print(f"| {n} | {rows:,} | {name} | {one.meta['families_scored']:,} | {len(one):,} | {min(t1):.2f} | "
                      f"{min(t2):.2f} | {two.meta['n_jobs']} | {min(t2) / min(t1):.2f} | {'yes' if same else 'NO'} |",
                      flush=True)


if __name__ == "__main__":
    main()
