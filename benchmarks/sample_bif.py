"""Sample benchmark data sets from the Bayesian networks bundled in pgmpy's wheel.

Usage
-----
    PYTHONPATH=. /work/venv/bin/python benchmarks/sample_bif.py --out /work/bench-data \\
        [--networks andes diabetes pigs link munin] [--rows 1000 5000] [--seed 2015]

Writes ``<out>/<network><rows>.csv``: integer-coded states (0 .. r-1, the
order of the BIF file's states), one row per sample, **no header**, columns in
the network's node order; and ``<out>/<network>.names`` (the column names, one
a line) plus ``<out>/<network>.arities`` (declared arities, one a line) so a
reader can use the declared arities rather than the observed ones.

Forward (ancestral) sampling, vectorised per node: nodes in a topological
order; a node's parent configuration is the mixed-radix number of its
parents' states in the CPD's evidence order; its state is drawn by comparing
one uniform per row with the cumulative CPD column.  The generator is
``numpy.random.default_rng(seed + rows)`` per (network, rows), so every file
is reproducible on its own.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

NETWORKS = {"andes": 223, "diabetes": 413, "pigs": 441, "link": 724, "munin": 1041}


def bif_path(name: str) -> Path:
    """The BIF file of a bundled network inside the installed pgmpy wheel."""
    import pgmpy

    path = Path(pgmpy.__file__).parent / "utils" / "example_models" / f"{name}.bif.gz"
    if not path.exists():
        raise SystemExit(f"{path} not found: this pgmpy does not bundle {name!r}")
    return path


def load_network(name: str):
    """The pgmpy model of a bundled network, parsed from the wheel's BIF file (no download)."""
    import gzip

    from pgmpy.readwrite import BIFReader

    with gzip.open(bif_path(name), "rt") as fh:
        text = fh.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BIFReader(string=text).get_model()


def forward_sample(model, rows: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``rows`` samples of ``model``: column names, integer codes (rows x n), declared arities."""
    import networkx as nx

    names = list(model.nodes())
    col = {v: i for i, v in enumerate(names)}
    cpds = {c.variable: c for c in model.get_cpds()}
    codes = np.zeros((rows, len(names)), dtype=np.int64)
    arities = np.zeros(len(names), dtype=np.int64)
    for v in nx.topological_sort(model):
        cpd = cpds[v]
        card = int(cpd.cardinality[0])
        evidence = list(cpd.variables[1:])
        table = np.asarray(cpd.values, dtype=np.float64).reshape(card, -1)
        cfg = np.zeros(rows, dtype=np.int64)
        for e, r_e in zip(evidence, cpd.cardinality[1:]):
            cfg = cfg * int(r_e) + codes[:, col[e]]
        cum = np.cumsum(table, axis=0)
        cum[-1, :] = 1.0  # guard against rounding: the last state takes what is left
        u = rng.random(rows)
        codes[:, col[v]] = (u[None, :] > cum[:, cfg]).sum(axis=0)
        arities[col[v]] = card
    return names, codes, arities


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/work/bench-data")
    ap.add_argument("--networks", nargs="+", default=list(NETWORKS))
    ap.add_argument("--rows", nargs="+", type=int, default=[1000, 5000])
    ap.add_argument("--seed", type=int, default=2015)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.networks:
        t0 = time.perf_counter()
        model = load_network(name)
        t_load = time.perf_counter() - t0
        for rows in args.rows:
            rng = np.random.default_rng(args.seed + rows)
            names, codes, arities = forward_sample(model, rows, rng)
            np.savetxt(out / f"{name}{rows}.csv", codes, fmt="%d", delimiter=",")
            (out / f"{name}.names").write_text("\n".join(names) + "\n")
            (out / f"{name}.arities").write_text("\n".join(str(int(a)) for a in arities) + "\n")
            observed = codes.max(axis=0) + 1
            print(f"{name}{rows}: {len(names)} variables, {rows} rows, "
                  f"{int((observed < arities).sum())} with unobserved states, "
                  f"{int((observed == 1).sum())} constant; load {t_load:.1f} s")


if __name__ == "__main__":
    main()
