"""Benchmark of ``kbest()`` from one certified gap (issue 15): methods side by side, table sizes, passes.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. python benchmarks/bench_kbest_driver.py DATA.csv \\
        [--score BDeu] [--ks 10 100 1000] [--methods ordergraph ilp dp resolve] [--classes 10 100] \\
        [--time-limit 120] [--unpruned] >> results.jsonl

One JSON line per run: data set, score, k, method (``kbestec`` = the k best classes by the ILP),
wall seconds (scoring included), the scoring passes and their seconds, OPT, the certified gap
ε_k, the gap of the k-th network, networks / classes listed, families of the searched table
before and after Chen et al.'s k-best parent limits (BIC/AIC only; the note otherwise),
``complete``.  ``--unpruned`` also times ``score(prune=False)`` (the one-pass alternative the
driver does not take) and the ε = 0 table size.  ``resolve`` runs only for k <= 10.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path


def _clean(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--score", default="BDeu")
    ap.add_argument("--ks", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--methods", nargs="+", default=["ordergraph", "ilp", "dp", "resolve"])
    ap.add_argument("--classes", type=int, nargs="*", default=[10, 100])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--unpruned", action="store_true")
    a = ap.parse_args(argv)
    import gobnilp_py as gp

    ds = gp.read_data(a.data, header=False)
    name = Path(a.data).stem
    base = {"data": name, "n": ds.n, "N": ds.N, "score": a.score}
    if a.unpruned:
        t0 = time.perf_counter()
        t_un = gp.score(ds, score=a.score, prune=False)
        tu = time.perf_counter() - t0
        t0 = time.perf_counter()
        t_0 = gp.score(ds, score=a.score)
        t0s = time.perf_counter() - t0
        print(json.dumps({**base, "run": "tables", "unpruned_families": len(t_un), "unpruned_seconds": tu,
                          "eps0_families": len(t_0), "eps0_seconds": t0s}), flush=True)
    runs = [(k, m, "dag") for k in a.ks for m in a.methods if not (m == "resolve" and k > 10)]
    runs += [(k, "kbestec", "class") for k in a.classes]
    for k, m, by in runs:
        t0 = time.perf_counter()
        try:
            cs = gp.kbest(ds, k, method="ilp" if by == "class" else m, by=by, score=a.score,
                          time_limit=a.time_limit)
        except gp.GobnilpError as exc:  # e.g. the DP over its memory budget
            print(json.dumps({**base, "k": k, "method": m, "error": str(exc)}), flush=True)
            continue
        secs = time.perf_counter() - t0
        st = cs.stats
        rec = {**base, "k": k, "method": m, "seconds": secs, "complete": cs.complete, "reason": cs.reason,
               "networks": len(cs), "classes": cs.n_classes_total if by == "class" else None,
               "members": cs.n_networks_total if by == "class" else None,
               "opt": cs.opt, "kth_gap": cs.epsilon, "certified_epsilon": st.get("certified_epsilon"),
               "witnesses": st.get("witnesses"), "scoring_passes": st.get("scoring_passes"),
               "time_scoring_passes": st.get("time_scoring_passes"), "time_optimum": st.get("time_optimum"),
               "time_witnesses": st.get("time_witnesses"), "time_search": st.get("time_search"),
               "table_epsilon": st.get("table_epsilon"),
               "families_before_limits": st.get("families_before_limits"),
               "families_after_limits": st.get("families_after_limits"),
               "limits_max": (max((v for v in st["parent_limits"]["limits"].values() if v is not None), default=None)
                              if st.get("parent_limits") else None),
               "limits_note": st.get("parent_limits_note")}
        print(json.dumps({k2: _clean(v) for k2, v in rec.items()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
