"""Writing a large result: 150,000 networks of 45 variables through every output (issue 39).

Usage (heavy: run it under the shared lock)::

    flock /work/cpu.lock env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_write_result.py \\
        [--networks 150000] [--variables 45] [--hashes out.json] [--profile prof.html]

What it measures: everything a run does after its search, as ``gobnilp-py run`` does it
(``output/job.py``): *summarising* (equivalence classes, edge probabilities), *drawing* the four
pictures, and *writing* each text output (``networks.csv``, ``networks.txt`` in GOBNILP's format,
``modelstrings.txt``, ``best.dot``/``best_cpdag.dot``, ``arc_strength.csv``, ``best_adjacency.csv``,
``result.json``, ``report.md``).  Each output is timed alone first (``--each``), then the whole folder
is written through the job's own writer, as a run writes it.

The result is synthetic and shaped like a real ε-BNSL collection: ``--classes`` Markov equivalence
classes (random DAGs on ``--variables`` variables, each a forest of undirected trees plus a few
v-structures, so classes have many members), every member of each class listed (the exact member
listing of :mod:`gobnilp_py.equivalence.extensions`) until ``--networks`` networks; a class's members
tie (a score-equivalent decomposable score: each family one local score, as in a score table).  The networks are built as
the engines build theirs (``Network._from_table_parts``: parents made on first use).  The same
``--seed`` gives the same set, so two source trees can be compared byte for byte: ``--hashes FILE``
writes the SHA-256 of every output (the report without its date and timing table, ``result.json``
without its ``timings``, which vary run to run, and the run's temporary folder replaced by a
placeholder in both).  ``--profile FILE`` writes a pyinstrument profile.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def synthetic_set(n_vars: int = 45, n_networks: int = 150_000, n_classes: int = 400, seed: int = 0):
    """A complete Bayes-factor-20 CredibleSet of ``n_networks`` networks (see the module docstring)."""
    from gobnilp_py.equivalence import cpdag
    from gobnilp_py.equivalence.extensions import Extensions
    from gobnilp_py.network import Network
    from gobnilp_py.solve.credible import CredibleSet

    rng = np.random.default_rng(seed)
    names = tuple(f"v{i}" for i in range(n_vars))
    index = {v: i for i, v in enumerate(names)}
    per_class = math.ceil(n_networks / n_classes)
    nets: list = []
    seen: set = set()
    bits: dict[int, tuple[int, ...]] = {0: ()}  # parent mask -> sorted parent indices
    # A score-equivalent decomposable score, as BIC and BDeu are: local(v, Pa) = c_v + f(Pa + v) - f(Pa)
    # for a set function f, so each family has one local score (as in a score table) and the members
    # of a class tie (up to the float noise of adding different terms, as real ties do).
    f_of: dict[int, float] = {0: 0.0}
    base = rng.normal(-550.0, 40.0, n_vars)
    family: dict[tuple[int, int], float] = {}

    def f(m: int) -> float:
        x = f_of.get(m)
        if x is None:
            x = f_of[m] = float(rng.normal(0.0, 0.04))
        return x

    def family_score(v: int, m: int) -> float:
        x = family.get((v, m))
        if x is None:
            x = family[(v, m)] = float(base[v]) + f(m | 1 << v) - f(m)
        return x
    c = 0
    while len(nets) < n_networks:
        # a random DAG: trees (no v-structure: many members) hung on a random order, plus a few colliders
        order = rng.permutation(n_vars)
        parents: dict[str, list[str]] = {v: [] for v in names}
        for pos in range(1, n_vars):
            if rng.random() < 0.85:  # a tree edge from an earlier node
                parents[names[order[pos]]].append(names[order[rng.integers(0, pos)]])
        for _ in range(3):  # v-structures
            pos = int(rng.integers(2, n_vars))
            child = names[order[pos]]
            extra = names[order[rng.integers(0, pos)]]
            if extra not in parents[child] and len(parents[child]) < 3:
                parents[child].append(extra)
        c += 1
        want = min(per_class, n_networks - len(nets))
        for masks in Extensions(cpdag(names, parents)).members(limit=want):
            pidx = tuple(bits.get(m) or bits.setdefault(m, tuple(p for p in range(n_vars) if m >> p & 1))
                         for m in masks)
            if pidx in seen:
                continue
            seen.add(pidx)
            local = [family_score(v, m) for v, m in enumerate(masks)]
            nets.append(Network._from_table_parts(names, index, pidx, local, "optimal"))
    nets.sort(key=lambda n: (-n.score, n.key))
    true_opt = nets[0].score
    eps = max(true_opt - nets[-1].score, 1e-9)  # every network listed is within this gap: a complete set
    return CredibleSet(true_opt, eps, True, None, nets, tolerance=1e-9 * abs(true_opt),
                       kind="bayes_factor", method="ilp", stats={"method": "ilp"})


TEXT_OUTPUTS = ("csv", "gobnilp", "modelstring", "dot", "arc_strength", "adjacency", "json", "report")
PICTURES = ("dag_png", "cpdag_png", "edges_png", "scores_png")


def _config(folder: Path, n_vars: int):
    from gobnilp_py.config import load_config

    data = folder / "names.csv"
    data.write_text(",".join(f"v{i}" for i in range(n_vars)) + "\n" + ",".join("0" for _ in range(n_vars)) + "\n")
    return load_config(None, [("data", "path", str(data), "DATA"), ("search", "job", "enumerate", "-"),
                              ("search", "bayes_factor", 20, "--bf"), ("output", "dir", str(folder / "out"), "-o"),
                              ("output", "write", [*TEXT_OUTPUTS, "pictures"], "--write")])


def _normalised(name: str, data: bytes, folder: Path) -> bytes:
    """Bytes to hash: the report without its date and timings, result.json without timings, and the
    (temporary) folder of the run as ``<folder>`` in both."""
    data = data.replace(str(folder).encode(), b"<folder>")
    if name == "result.json":
        d = json.loads(data)
        d.pop("timings", None)
        return json.dumps(d, sort_keys=True).encode()
    if name == "report.md":
        lines = data.decode().splitlines()
        keep, skip = [], False
        for i, line in enumerate(lines):
            if line.startswith("gobnilp-py ") and ", job **" in line:
                continue
            if line.startswith("## "):
                skip = line.startswith("## Timings")
            if not skip:
                keep.append(line)
        return "\n".join(keep).encode()
    return data


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", type=int, default=150_000)
    ap.add_argument("--variables", type=int, default=45)
    ap.add_argument("--classes", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--each", action="store_true", help="also time each output alone")
    ap.add_argument("--hashes", default=None, help="write the outputs' SHA-256 to this JSON file")
    ap.add_argument("--profile", default=None, help="write a pyinstrument profile (.html, else text) of the whole phase")
    ap.add_argument("--keep", default=None, help="write the outputs into this folder (default: a temporary one)")
    a = ap.parse_args(argv)

    import gobnilp_py
    from gobnilp_py.output import job as J
    from gobnilp_py.output import pictures as P
    from gobnilp_py.output import writers as W
    from gobnilp_py.progress import Progress

    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print("package:", Path(gobnilp_py.__file__).parent)
    t0 = time.perf_counter()
    cs = synthetic_set(a.variables, a.networks, a.classes, a.seed)
    print(f"synthetic set: {len(cs):,} networks of {a.variables} variables, built in {time.perf_counter() - t0:.1f} s")

    with tempfile.TemporaryDirectory(prefix="gobnilp-write-bench-") as tmp:
        if a.keep:
            Path(a.keep).mkdir(parents=True, exist_ok=True)
        cfg = _config(Path(a.keep or tmp), a.variables)
        res = J.RunResult(cfg, cs)
        progress = Progress(J.phases_of(cfg), enabled=False)
        profiler = None
        if a.profile:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        times: dict[str, float] = {}
        t_all = time.perf_counter()
        with progress.phase("summarising"):
            t = time.perf_counter()
            cs.mecs()
            times["classes (mecs)"] = time.perf_counter() - t
            t = time.perf_counter()
            cs.edge_probabilities()
            times["edge probabilities"] = time.perf_counter() - t
        if a.each:
            for name, fn in [("csv", W.networks_csv), ("gobnilp", W.gobnilp_text), ("modelstring", W.modelstrings),
                             ("dot", P.dot_files), ("arc_strength", W.arc_strength_csv),
                             ("adjacency", W.adjacency_csv), ("json", lambda r: W.result_json(res))]:
                t = time.perf_counter()
                fn(cs)
                times[f"{name} alone"] = time.perf_counter() - t
        with progress.phase("drawing"):
            pics = P.draw_pictures(cs, PICTURES, format="png", dpi=cfg.values["output"]["dpi"])
        res.timings = dict(progress.timings)
        with progress.phase("writing"):
            res.files = J._write(res, pics, progress)
        total = time.perf_counter() - t_all
        if profiler is not None:
            profiler.stop()
            Path(a.profile).write_text(profiler.output_html() if a.profile.endswith(".html")
                                       else profiler.output_text(unicode=False, color=False, show_all=False))
        times.update({f"phase {k}": v for k, v in progress.timings.items()})
        times["total after the search"] = total
        for k, v in times.items():
            print(f"  {k:<28} {v:8.2f} s")
        sizes = {f.name: f.stat().st_size for f in res.files}
        print("  files:", ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sizes.items()))
        if a.hashes:
            hashes = {f.name: hashlib.sha256(_normalised(f.name, f.read_bytes(), Path(a.keep or tmp))).hexdigest()
                      for f in res.files}
            Path(a.hashes).write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
            print("hashes written to", a.hashes)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
