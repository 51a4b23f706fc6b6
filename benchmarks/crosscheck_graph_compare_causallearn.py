"""Cross-check gobnilp_py.compare_graphs against causal-learn on random DAG pairs (not a timing benchmark).

For each pair (true DAG, learned DAG) of random DAGs, causal-learn's own classes give the numbers
``compare_graphs`` promises to reproduce:

* DAGs as given: ``SHD`` = ``shd``; ``AdjacencyConfusion`` TP/FP/FN = ``adjacency``;
  ``ArrowConfusion`` TP/FP/FN = ``arrowheads``.
* CPDAGs (causal-learn's ``dag2cpdag``): the CPDAG itself (arrows and undirected edges) = the package's
  ``cpdag``; ``ArrowConfusion`` = ``cpdag_arrowheads``; ``SHD`` = ``shd_cpdag`` (every pair whose edge
  differs, an arrow against an undirected edge included, as bnlearn's ``shd``).

causal-learn is not a dependency: ``pip install causal-learn`` (wheels only; it brings scikit-learn and
statsmodels), then::

    PYTHONPATH=. python benchmarks/crosscheck_graph_compare_causallearn.py --pairs 2000

Prints one line per check with the number of pairs that agree; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from gobnilp_py import Network, compare_graphs, cpdag


def random_dag(rng: np.random.Generator, n: int, p: float) -> Network:
    names = [f"X{i}" for i in range(n)]
    order = rng.permutation(n)
    edges = [(names[order[i]], names[order[j]]) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return Network.from_edges(names, edges, score=0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=39)
    args = ap.parse_args(argv)
    try:
        import causallearn
        from causallearn.graph.AdjacencyConfusion import AdjacencyConfusion
        from causallearn.graph.ArrowConfusion import ArrowConfusion
        from causallearn.graph.Dag import Dag
        from causallearn.graph.Endpoint import Endpoint
        from causallearn.graph.GraphNode import GraphNode
        from causallearn.graph.SHD import SHD
        from causallearn.utils.DAG2CPDAG import dag2cpdag
    except ImportError:
        print("causal-learn is not installed (pip install causal-learn); nothing checked")
        return 0
    from importlib.metadata import version

    def to_cl(net: Network) -> Dag:
        nodes = {v: GraphNode(v) for v in net.names}
        g = Dag([nodes[v] for v in net.names])
        for u, v in net.edges:
            g.add_directed_edge(nodes[u], nodes[v])
        return g

    def cl_cpdag_sets(g) -> tuple[set, set]:
        directed, undirected = set(), set()
        for e in g.get_graph_edges():
            a, b = e.get_node1().get_name(), e.get_node2().get_name()
            e1, e2 = e.get_endpoint1(), e.get_endpoint2()
            if e1 == Endpoint.TAIL and e2 == Endpoint.ARROW:
                directed.add((a, b))
            elif e1 == Endpoint.ARROW and e2 == Endpoint.TAIL:
                directed.add((b, a))
            elif e1 == Endpoint.TAIL and e2 == Endpoint.TAIL:
                undirected.add(frozenset((a, b)))
            else:
                raise AssertionError(f"unexpected edge {e}")
        return directed, undirected

    rng = np.random.default_rng(args.seed)
    checks = {k: 0 for k in ("dag shd", "dag adjacency", "dag arrowheads", "cpdag itself", "cpdag arrowheads",
                             "cpdag shd", "cpdag adjacency")}
    bad: list[str] = []
    for i in range(args.pairs):
        n = int(rng.integers(2, 9))
        t, e = random_dag(rng, n, float(rng.uniform(0.1, 0.7))), random_dag(rng, n, float(rng.uniform(0.1, 0.7)))
        r = compare_graphs(t, e)
        ct, ce = to_cl(t), to_cl(e)
        adj, arr = AdjacencyConfusion(ct, ce), ArrowConfusion(ct, ce)
        got = {
            "dag shd": (r.shd, SHD(ct, ce).get_shd()),
            "dag adjacency": ((r.adjacency.tp, r.adjacency.fp, r.adjacency.fn),
                              (adj.get_adj_tp(), adj.get_adj_fp(), adj.get_adj_fn())),
            "dag arrowheads": ((r.arrowheads.tp, r.arrowheads.fp, r.arrowheads.fn),
                               (int(arr.get_arrows_tp()), int(arr.get_arrows_fp()), int(arr.get_arrows_fn()))),
        }
        pt, pe = dag2cpdag(ct), dag2cpdag(ce)
        ours_t, ours_e = cpdag(t), cpdag(e)
        got["cpdag itself"] = ((set(ours_t.directed), set(ours_t.undirected), set(ours_e.directed),
                                set(ours_e.undirected)), (*cl_cpdag_sets(pt), *cl_cpdag_sets(pe)))
        adj_c, arr_c = AdjacencyConfusion(pt, pe), ArrowConfusion(pt, pe)
        got["cpdag arrowheads"] = ((r.cpdag_arrowheads.tp, r.cpdag_arrowheads.fp, r.cpdag_arrowheads.fn),
                                   (int(arr_c.get_arrows_tp()), int(arr_c.get_arrows_fp()),
                                    int(arr_c.get_arrows_fn())))
        got["cpdag shd"] = (r.shd_cpdag, SHD(pt, pe).get_shd())
        got["cpdag adjacency"] = ((r.adjacency.tp, r.adjacency.fp, r.adjacency.fn),
                                  (adj_c.get_adj_tp(), adj_c.get_adj_fp(), adj_c.get_adj_fn()))
        for k, (ours, theirs) in got.items():
            if ours == theirs:
                checks[k] += 1
            elif len(bad) < 10:
                bad.append(f"pair {i} ({k}): ours {ours}, causal-learn {theirs}; true {t.edges}, learned {e.edges}")
    print(f"causal-learn {version('causal-learn')}, {args.pairs} random DAG pairs on 2-8 variables, seed {args.seed}")
    for k, v in checks.items():
        print(f"  {k:<34} {v:>6} / {args.pairs} agree")
    for line in bad:
        print("  DISAGREE", line)
    return 1 if any(v != args.pairs for v in checks.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
