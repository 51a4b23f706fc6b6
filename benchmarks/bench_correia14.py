"""Issue 14 item 2: BDeu scoring with and without the per-atom ``ml_ceiling`` costs.

Usage
-----
    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_correia14.py \\
        [--data-dir /work/shared/data] [--cases wine zoo voting insurance1000:3] [--bf 3] \\
        [--ess 1] [--n-jobs 1] [--repeat 2] [--output out.md]

A case is ``name`` (no parent limit) or ``name:palim``.  Every run is its own
subprocess (``engine.ML_CEILING_ATOM_PENALTY`` set to True for "new", False for
"first", i.e. the first version's single ``max(0, -ln a)`` per configuration),
repeated ``--repeat`` times in alternation; the table shows the families scored
and kept, the ``ml_ceiling`` counter, the fastest ``score()`` wall time of each
variant, and whether the two tables hold exactly the same families with the
same scores (a SHA-256 of the sorted families and score bits).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_one(path: str, palim: int | None, bf: float, ess: float, n_jobs: int, new: bool) -> dict:
    from gobnilp_py.data import read_data
    from gobnilp_py.scoring import engine, score

    engine.ML_CEILING_ATOM_PENALTY = new
    ds = read_data(path, header=False)
    t0 = time.perf_counter()
    table = score(ds, score="BDeu", ess=ess, bayes_factor=bf, palim=palim, n_jobs=n_jobs)
    dt = time.perf_counter() - t0
    h = hashlib.sha256()
    for v, fams in enumerate(table.families):
        for ps, s in sorted(fams):
            h.update(repr((v, ps, float(s).hex())).encode())
    return {"time": dt, "scored": table.meta["families_scored"],
            "kept": sum(len(f) for f in table.families),
            "ml_ceiling": sum(c.get("ml_ceiling", 0) for c in table.pruning.values()),
            "cell_bound": sum(c.get("cell_bound", 0) for c in table.pruning.values()),
            "digest": h.hexdigest()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="/work/shared/data")
    ap.add_argument("--cases", nargs="+", default=["wine", "zoo", "voting", "insurance1000:3"])
    ap.add_argument("--bf", type=float, default=3.0)
    ap.add_argument("--ess", type=float, default=1.0)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--output")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        path, palim, new = json.loads(a.one)
        print(json.dumps(run_one(path, palim, a.bf, a.ess, a.n_jobs, new)))
        return
    lines = ["| data | palim | variant | scored | kept | ml_ceiling | cell_bound | time s (best of "
             f"{a.repeat}) | same families |", "|---|---|---|---|---|---|---|---|---|"]
    for case in a.cases:
        name, _, pl = case.partition(":")
        palim = int(pl) if pl else None
        path = str(Path(a.data_dir) / f"{name}.csv")
        res: dict[bool, list[dict]] = {True: [], False: []}
        for _ in range(a.repeat):
            for new in (False, True):
                out = subprocess.run([sys.executable, __file__, "--one", json.dumps([path, palim, new]),
                                      "--bf", str(a.bf), "--ess", str(a.ess), "--n-jobs", str(a.n_jobs)],
                                     capture_output=True, text=True, check=True, cwd=ROOT)
                res[new].append(json.loads(out.stdout.strip().splitlines()[-1]))
        same = res[True][0]["digest"] == res[False][0]["digest"]
        for new in (False, True):
            r = res[new]
            best = min(x["time"] for x in r)
            times = ", ".join(f"{x['time']:.2f}" for x in r)
            lines.append(f"| {name} | {palim if palim is not None else '-'} | {'new' if new else 'first'} | "
                         f"{r[0]['scored']:,} | {r[0]['kept']:,} | {r[0]['ml_ceiling']:,} | "
                         f"{r[0]['cell_bound']:,} | {best:.2f} ({times}) | "
                         f"{'yes' if same else 'NO'} |")
        print(lines[-2]); print(lines[-1]); sys.stdout.flush()
    text = "\n".join(lines)
    print(text)
    if a.output:
        Path(a.output).write_text(text + "\n")


if __name__ == "__main__":
    main()
