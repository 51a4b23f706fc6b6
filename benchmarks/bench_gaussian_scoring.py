"""Gaussian scores: time to the score table and to the optimum beside causal-learn, and ε-BNSL.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_gaussian_scoring.py \\
        [--vars 10 15 20 25] [--rows 1000 10000] [--scores bic-g bge] [--bf 20] \\
        [--causal-learn-max 14] [--timeout 600] \\
        [--enum-vars 10 15 20] [--enum-rows 1000] [--enum-bf 3 20 150] [--enum-time 60]

Data: ``random_linear_gaussian(n, seed=n)`` (mean 1.5 parents, at most 3) sampled with
``seed=rows`` (``gobnilp_py/examples/gaussian.py``), so every row of the table is reproducible.

Per (variables, rows, score): the time of ``gaussian_score_table`` (BF as given; the first call
of a process also loads the compiled walk, so one warm-up call on small data is made first), the
families scored and kept, and the time of ``learn(table, method="dp")`` (the order graph above 24 variables, the DP's limit).  For ``bic-g`` with at
most ``--causal-learn-max`` variables, causal-learn's ``bic_exact_search`` (A*, on centred data)
runs in a child process with ``--timeout`` seconds, and the ratio ours/theirs of the times to the
optimum is printed with a check that its DAG scores our optimum under our score.

Second table (``--enum-vars``; none by default): every network within each Bayes factor
(``gaussian_score_table`` at that BF, then ``enumerate_networks`` with ``--enum-time`` seconds
and the default cap of 150,000 networks): families kept, networks, Markov classes, whether the
collection is complete, and the two times.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time

import numpy as np


def _causal_learn(x: np.ndarray, out: "mp.Queue") -> None:
    import warnings

    warnings.filterwarnings("ignore")
    from causallearn.search.ScoreBased.ExactSearch import bic_exact_search

    t0 = time.perf_counter()
    dag, _ = bic_exact_search(x - x.mean(axis=0), search_method="astar")
    out.put((time.perf_counter() - t0, dag))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vars", type=int, nargs="+", default=[10, 15, 20, 25])
    ap.add_argument("--rows", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--scores", nargs="+", default=["bic-g", "bge"])
    ap.add_argument("--bf", type=float, default=20.0)
    ap.add_argument("--causal-learn-max", type=int, default=14)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--enum-vars", type=int, nargs="*", default=[])
    ap.add_argument("--enum-rows", type=int, nargs="+", default=[1000])
    ap.add_argument("--enum-bf", type=float, nargs="+", default=[3.0, 20.0, 150.0])
    ap.add_argument("--enum-time", type=float, default=60.0)
    a = ap.parse_args()

    from gobnilp_py import enumerate_networks, learn
    from gobnilp_py.data.continuous import as_continuous
    from gobnilp_py.examples.gaussian import random_linear_gaussian
    from gobnilp_py.scoring.gaussian import gaussian_score_table
    from gobnilp_py.scoring.gaussian_scores import GaussianScore

    gaussian_score_table(np.random.default_rng(0).normal(size=(50, 4)))  # load the compiled walk
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  load {os.getloadavg()[0]:.2f}  BF {a.bf:g}")
    print("| vars | rows | score | families scored | kept | score s | DP/OG s | total s | causal-learn s | ratio |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in a.vars:
        net = random_linear_gaussian(n, seed=n)
        for rows in a.rows:
            x = net.sample(rows, seed=rows)
            for name in a.scores:
                t0 = time.perf_counter()
                table = gaussian_score_table(x, score=name, bayes_factor=a.bf)
                t1 = time.perf_counter()
                best = learn(table, method="dp" if n <= 24 else "ordergraph")
                t2 = time.perf_counter()
                cl, ratio = "", ""
                if name == "bic-g" and n <= a.causal_learn_max:
                    q: mp.Queue = mp.Queue()
                    p = mp.Process(target=_causal_learn, args=(x, q))
                    p.start()
                    p.join(a.timeout)
                    if p.is_alive():
                        p.terminate()
                        p.join()
                        cl = f"> {a.timeout:g}"
                    else:
                        secs, dag = q.get()
                        sc = GaussianScore("bic-g", as_continuous(x))
                        theirs = sum(sc.local_score(v, tuple(np.flatnonzero(dag[:, v]))) for v in range(n))
                        same = abs(theirs - best.score) <= 1e-9 * abs(best.score)
                        cl = f"{secs:.2f}" + ("" if same else " (DIFFERENT optimum)")
                        ratio = f"{(t2 - t0) / secs:.3f}"
                print(f"| {n} | {rows:,} | {name} | {table.meta['families_scored']:,} | {len(table):,} | "
                      f"{t1 - t0:.2f} | {t2 - t1:.2f} | {t2 - t0:.2f} | {cl} | {ratio} |", flush=True)

    if not a.enum_vars:
        return
    print(f"\n# epsilon-BNSL {time.strftime('%Y-%m-%d %H:%M')}  load {os.getloadavg()[0]:.2f}  "
          f"time limit {a.enum_time:g} s per collection")
    print("| vars | rows | score | BF | families kept | networks | classes | complete | score s | collect s |")
    print("|---:|---:|---|---:|---:|---:|---:|---|---:|---:|")
    for n in a.enum_vars:
        net = random_linear_gaussian(n, seed=n)
        for rows in a.enum_rows:
            x = net.sample(rows, seed=rows)
            for name in a.scores:
                for bf in a.enum_bf:
                    t0 = time.perf_counter()
                    table = gaussian_score_table(x, score=name, bayes_factor=bf)
                    t1 = time.perf_counter()
                    cs = enumerate_networks(table, bayes_factor=bf, time_limit=a.enum_time)
                    t2 = time.perf_counter()
                    done = "yes" if cs.complete else f"no ({cs.reason})"
                    print(f"| {n} | {rows:,} | {name} | {bf:g} | {len(table):,} | {len(cs):,} | {cs.n_mecs:,} | "
                          f"{done} | {t1 - t0:.2f} | {t2 - t1:.2f} |", flush=True)


if __name__ == "__main__":
    main()
