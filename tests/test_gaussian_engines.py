"""A Gaussian score table is an ordinary table: the engines agree on it, and with causal-learn's exact search.

* 8-12 variables sampled from known linear-Gaussian networks: the ILP, the order graph and the
  subset DP find the same optimum, and the ILP and the order graph the same ε-set (BF 3);
* causal-learn's ``bic_exact_search`` (DP/A* over parent graphs, optimum only) returns a DAG
  whose score under our ``bic-g`` is our optimum.  Its convention differs: it *minimises*
  ``N ln(RSS/N) + p ln N`` with ``RSS`` from a regression through the origin (no intercept).
  On centred data that RSS equals ours, and then, family by family,
  ``ours = -causal_learn/2 - N/2 (ln 2π + 1) - ln N`` (the intercept and the variance are our two
  extra parameters, ``2 · ln(N)/2``): the same constant for every family, so the same optimal
  DAGs.  On uncentred data the two scores differ (through-origin regressions); the test centres.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gobnilp_py import enumerate_networks, learn
from gobnilp_py.data.continuous import as_continuous
from gobnilp_py.examples.gaussian import random_linear_gaussian
from gobnilp_py.scoring.gaussian import gaussian_score_table
from gobnilp_py.scoring.gaussian_scores import GaussianScore

FAST = [(10, "bic-g"), (10, "bge"), (12, "bge")]
SLOW = [(8, "bic-g"), (8, "bge"), (9, "bic-g"), (9, "bge"), (11, "bic-g"), (11, "bge"), (12, "bic-g")]


def _problem(n: int, name: str):
    net = random_linear_gaussian(n, seed=100 + n, mean_parents=1.0)
    x = net.sample(2000, seed=7)
    return net, x, gaussian_score_table(x, names=net.names, score=name, bayes_factor=3)


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(b))


@pytest.mark.parametrize("n, name", FAST + [pytest.param(*c, marks=pytest.mark.slow) for c in SLOW])
def test_engines_agree_on_the_optimum_and_the_epsilon_set(n, name):
    net, x, table = _problem(n, name)
    nets = {m: learn(table, method=m, time_limit=600) for m in ("ilp", "ordergraph", "dp")}
    scores = {m: nw.score for m, nw in nets.items()}
    assert all(nw.status == "optimal" for nw in nets.values()), {m: nw.status for m, nw in nets.items()}
    best = scores["dp"]
    assert all(_rel(s, best) <= 1e-9 for s in scores.values()), scores
    # The score of each learned DAG is the sum of its families' table scores.
    for nw in nets.values():
        total = sum(table.local_score(v, nw.parents[v]) for v in table.names)
        assert _rel(total, nw.score) <= 1e-12
    by = {m: enumerate_networks(table, bayes_factor=3, method=m, time_limit=600) for m in ("ilp", "ordergraph")}
    keys = {m: {nw.key: nw.score for nw in cs.networks} for m, cs in by.items()}
    assert all(cs.complete for cs in by.values())
    assert set(keys["ilp"]) == set(keys["ordergraph"]) and len(keys["ilp"]) >= 1
    assert all(_rel(keys["ilp"][k], s) <= 1e-9 for k, s in keys["ordergraph"].items())
    assert _rel(max(keys["ilp"].values()), best) <= 1e-9


def _causal_learn():
    pytest.importorskip("sklearn")
    try:
        from causallearn.search.ScoreBased.ExactSearch import bic_exact_search, bic_score_node
    except ImportError:
        pytest.skip("causal-learn is not installed (pip install causal-learn)")
    return bic_exact_search, bic_score_node


@pytest.mark.parametrize("n, seed", [(6, 1), (8, 2), (9, 3)])
def test_bic_g_optimum_equals_causal_learns_exact_search(n, seed):
    bic_exact_search, bic_score_node = _causal_learn()
    net = random_linear_gaussian(n, seed=seed)
    x = net.sample(800, seed=seed)
    xc = x - x.mean(axis=0)
    N = x.shape[0]
    dag, _ = bic_exact_search(xc, search_method="astar")
    sc = GaussianScore("bic-g", as_continuous(x))
    theirs = sum(sc.local_score(v, tuple(int(p) for p in np.flatnonzero(dag[:, v]))) for v in range(n))
    table = gaussian_score_table(x, score="bic-g")
    ours = learn(table, method="dp")
    assert ours.status == "optimal"
    assert _rel(theirs, ours.score) <= 1e-9, (theirs, ours.score)
    # The stated relation, family by family, on centred data.
    const = -0.5 * N * (math.log(2 * math.pi) + 1.0) - math.log(N)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        y = int(rng.integers(n))
        ps = tuple(int(p) for p in rng.permutation([v for v in range(n) if v != y])[: rng.integers(0, n)])
        cl = bic_score_node(xc, y, ps)
        assert _rel(sc.local_score(y, ps), -0.5 * cl + const) <= 1e-10
    # Uncentred data: causal-learn's empty-set residual is the raw sum of squares, ours is centred.
    y = 0
    assert bic_score_node(x + 10.0, y, ()) != pytest.approx(bic_score_node(xc, y, ()))
