"""Learning under a fixed variable order (``search/fixed_order/``) against brute force.

Oracles:

* every DAG on n <= 5 nodes (``oracle_dags``) filtered to those whose arrows
  follow the order, each scored with the public score classes;
* for n = 6, 7 a direct per-node brute force (every subset of each node's
  predecessors), which is first checked to agree with the DAG oracle on n <= 5.

Checked: the optimum under the order, the ε-set under the order (every
order-consistent DAG with score >= OPT_order - ε, each once, best first), the
table-based variants, the network cap and its certified threshold, the
process-parallel run, the time limit's labelled result, and one-line errors.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import ConfigError, ConstraintError, DataError, GobnilpError
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.search.fixed_order import (deficit_sums, epsilon_set_for_order, epsilon_set_for_order_table,
                                           optimum_for_order, optimum_for_order_table, resolve_order)

from oracle_dags import all_dags
from test_parent_search import make_data, reference, xor_data

REL = 1e-9


def tol(x: float) -> float:
    return REL * max(1.0, abs(x))


class Scorer:
    """Memoised local scores from the public score classes."""

    def __init__(self, ds: Dataset, kind: str, ess: float = 1.0) -> None:
        self.ref = reference(ds, kind, ess)
        self.cache: dict = {}

    def __call__(self, v: int, ps) -> float:
        key = (v, tuple(sorted(ps)))
        if key not in self.cache:
            self.cache[key] = self.ref.compute(v, key[1])
        return self.cache[key]


def oracle_networks(n: int, order, f: Scorer, palim=None):
    """(score, dag) of every DAG following ``order``, best first (oracle_dags)."""
    pos = {v: i for i, v in enumerate(order)}
    out = []
    for dag in all_dags(n):
        if all(pos[p] < pos[v] for v in range(n) for p in dag[v]) and (
                palim is None or all(len(dag[v]) <= palim for v in range(n))):
            out.append((math.fsum(f(v, dag[v]) for v in range(n)), dag))
    out.sort(key=lambda t: -t[0])
    return out


def per_node_families(n: int, order, f: Scorer, palim=None):
    """Every subset of each node's predecessors with its score (direct per-node brute force)."""
    fams = [None] * n
    for i, v in enumerate(order):
        pred = sorted(order[:i])
        top = len(pred) if palim is None else min(palim, len(pred))
        fams[v] = [(W, f(v, W)) for k in range(top + 1) for W in itertools.combinations(pred, k)]
    return fams


def per_node_optimum(fams) -> float:
    return math.fsum(max(s for _, s in fv) for fv in fams)


def per_node_epsilon_set(fams, eps: float):
    """Every combination within ε of the per-node optimum (brute force over near families)."""
    best = [max(s for _, s in fv) for fv in fams]
    opt = math.fsum(best)
    near = [[(W, s) for W, s in fv if b - s <= eps + 1e-6] for fv, b in zip(fams, best)]
    out = []
    for combo in itertools.product(*near):
        s = math.fsum(sc for _, sc in combo)
        if s >= opt - eps - tol(opt):
            out.append((s, tuple(W for W, _ in combo)))
    out.sort(key=lambda t: -t[0])
    return opt, out


@st.composite
def problems(draw, n_max: int = 5):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, n_max + 1))
    N = int(rng.choice([8, 15, 30, 80, 300]))
    ds = make_data(rng, n, N, max_arity=3, constant=0.05, noise=float(rng.choice([0.1, 0.4, 0.8])))
    order = [int(v) for v in rng.permutation(n)]
    kind = str(rng.choice(["BIC", "AIC", "BDeu"]))
    ess = float(rng.choice([0.5, 1.0, 10.0]))
    eps = float(rng.choice([0.0, 0.5, 2.0, 4.0]))
    palim = [None, None, None, 1, 2][int(rng.integers(5))]
    return ds, order, kind, ess, eps, palim


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(problems(5))
def test_per_node_brute_force_agrees_with_all_dags(problem):
    """The direct oracle used for n = 6, 7 is itself right on n <= 5."""
    ds, order, kind, ess, eps, palim = problem
    f = Scorer(ds, kind, ess)
    nets = oracle_networks(ds.n, order, f, palim)
    fams = per_node_families(ds.n, order, f, palim)
    opt, within = per_node_epsilon_set(fams, eps)
    assert abs(opt - nets[0][0]) <= tol(opt)
    assert sorted(d for _, d in within) == sorted(d for s, d in nets if s >= opt - eps - tol(opt))


@settings(max_examples=80, derandomize=True, deadline=None, database=None)
@given(problems(5))
def test_optimum_and_epsilon_set_equal_all_dags(problem):
    ds, order, kind, ess, eps, palim = problem
    f = Scorer(ds, kind, ess)
    nets = oracle_networks(ds.n, order, f, palim)
    opt = nets[0][0]
    r = optimum_for_order(ds, [ds.names[v] for v in order], score=kind, ess=ess, palim=palim)
    assert r.status == "optimal" and r.stats["optimal_under"] == "order"
    assert abs(r.score - opt) <= tol(opt)
    assert abs(math.fsum(f(v, r.parents[v]) for v in range(ds.n)) - r.score) <= tol(opt)
    assert r.dual_bound == r.score
    e = epsilon_set_for_order(ds, order, eps, score=kind, ess=ess, palim=palim)
    assert e.complete and e.threshold is None
    expected = [d for s, d in nets if s >= opt - eps - tol(opt)]
    got = e.networks()
    assert len(got) == len(set(got)), "a network listed twice"
    assert sorted(got) == sorted(expected)
    scores = [s for s, _ in e.entries]
    assert scores == sorted(scores, reverse=True)
    for (s, _), dag in zip(e.entries, got):
        assert abs(s - math.fsum(f(v, dag[v]) for v in range(ds.n))) <= tol(opt)


@pytest.mark.parametrize("n", [6, 7])
@pytest.mark.parametrize("kind", ["BIC", "BDeu"])
def test_optimum_n6_n7_per_node_brute_force(n, kind):
    for seed in range(4):
        rng = np.random.default_rng(100 * n + seed)
        ds = make_data(rng, n, int(rng.choice([20, 200, 1000])), max_arity=3)
        order = [int(v) for v in rng.permutation(n)]
        f = Scorer(ds, kind)
        fams = per_node_families(n, order, f)
        opt = per_node_optimum(fams)
        r = optimum_for_order(ds, order, score=kind)
        assert abs(r.score - opt) <= tol(opt)


@pytest.mark.parametrize("kind", ["BIC", "AIC", "BDeu"])
def test_epsilon_set_n6_per_node_brute_force(kind):
    for seed in range(3):
        rng = np.random.default_rng(600 + seed)
        ds = make_data(rng, 6, int(rng.choice([10, 25, 60])), max_arity=3, noise=0.6)
        order = [int(v) for v in rng.permutation(6)]
        f = Scorer(ds, kind)
        fams = per_node_families(6, order, f)
        for eps in (0.0, 1.0, 3.0):
            opt, within = per_node_epsilon_set(fams, eps)
            e = epsilon_set_for_order(ds, order, eps, score=kind)
            assert abs(e.opt - opt) <= tol(opt)
            assert sorted(e.networks()) == sorted(d for _, d in within)


def test_epsilon_sets_are_not_trivial():
    """The random problems above do produce ε-sets with many networks (or the tests prove little)."""
    rng = np.random.default_rng(600)
    ds = make_data(rng, 6, 10, max_arity=3, noise=0.6)
    e = epsilon_set_for_order(ds, list(range(6)), 3.0)
    assert len(e.entries) >= 20


# ----------------------------------------------------------------------------- table variants
def full_table(ds: Dataset, f: Scorer) -> ScoreTable:
    n = ds.n
    fams = [[(W, f(v, W)) for k in range(n) for W in itertools.combinations([u for u in range(n) if u != v], k)]
            for v in range(n)]
    return ScoreTable(ds.names, fams, epsilon=math.inf, score_name="BIC")


@pytest.mark.parametrize("seed", range(6))
def test_table_variants_match_data_variants(seed):
    rng = np.random.default_rng(seed)
    n = 5
    ds = make_data(rng, n, 20, max_arity=3, noise=0.5)
    order = [int(v) for v in rng.permutation(n)]
    f = Scorer(ds, "BIC")
    table = full_table(ds, f)
    sol = optimum_for_order_table(table, order)
    r = optimum_for_order(ds, order)
    assert sol.status == "optimal" and abs(sol.score - r.score) <= tol(r.score)
    pos = {v: i for i, v in enumerate(order)}
    for v, k in enumerate(sol.chosen):
        assert all(pos[p] < pos[v] for p in table.families[v][k][0])
    for eps in (0.0, 2.0, 5.0):
        col = epsilon_set_for_order_table(table, order, eps)
        e = epsilon_set_for_order(ds, order, eps)
        assert col.complete
        got = sorted(tuple(table.families[v][k][0] for v, k in enumerate(ch)) for _, ch in col.entries)
        assert got == sorted(e.networks())


def test_table_without_consistent_family_is_infeasible():
    table = ScoreTable(["A", "B"], [[((1,), -1.0)], [((), -2.0)]])
    sol = optimum_for_order_table(table, ["A", "B"])
    assert sol.status == "infeasible" and sol.chosen is None
    sol = optimum_for_order_table(table, ["B", "A"])
    assert sol.status == "optimal" and sol.chosen == (0, 0) and sol.score == -3.0
    assert epsilon_set_for_order_table(table, ["A", "B"], 1.0).entries == []


def test_result_tables_index_the_answers():
    rng = np.random.default_rng(4)
    ds = make_data(rng, 5, 25, noise=0.5)
    r = optimum_for_order(ds, range(5))
    t = r.table()
    sol = r.solution()
    assert sol.chosen == (0,) * 5 and sol.status == "optimal"
    assert all(t.families[v][0] == (r.parents[v], r.local_scores[v]) for v in range(5))
    e = epsilon_set_for_order(ds, range(5), 3.0)
    t = e.table()
    col = e.collection()
    assert col.complete and col.opt == e.opt
    for (s, ch), dag in zip(col.entries, e.networks()):
        assert tuple(t.families[v][k][0] for v, k in enumerate(ch)) == dag
        assert abs(math.fsum(t.families[v][k][1] for v, k in enumerate(ch)) - s) <= tol(s)


# ----------------------------------------------------------------------------- caps, limits, parallel
def test_network_cap_keeps_the_best_and_certifies_a_threshold():
    rng = np.random.default_rng(600)
    ds = make_data(rng, 6, 10, max_arity=3, noise=0.6)
    full = epsilon_set_for_order(ds, list(range(6)), 3.0)
    assert full.complete and len(full.entries) > 10
    for cap in (1, 5, 10, len(full.entries) - 1):
        cut = epsilon_set_for_order(ds, list(range(6)), 3.0, max_networks=cap)
        assert cut.reason == "max_networks" and len(cut.entries) <= cap
        assert [s for s, _ in cut.entries] == [s for s, _ in full.entries][:len(cut.entries)]
        if cut.threshold is not None:
            must = {d for (s, _), d in zip(full.entries, full.networks()) if s >= cut.threshold}
            assert must <= set(cut.networks())
    same = epsilon_set_for_order(ds, list(range(6)), 3.0, max_networks=len(full.entries))
    assert same.complete


def test_deficit_sums_each_once_in_order():
    rng = np.random.default_rng(1)
    for _ in range(50):
        lists = [sorted([0.0, *rng.uniform(0, 3, int(rng.integers(0, 4))).round(1)]) for _ in range(int(rng.integers(1, 5)))]
        bound = float(rng.uniform(0, 4))
        got, more = deficit_sums(lists, bound)
        assert more is None
        brute = sorted((math.fsum(l[k] for l, k in zip(lists, pos)), pos)
                       for pos in itertools.product(*[range(len(l)) for l in lists])
                       if sum(l[k] for l, k in zip(lists, pos)) <= bound)
        assert sorted(p for _, p in got) == sorted(p for _, p in brute)
        totals = [d for d, _ in got]
        assert totals == sorted(totals)


def test_time_limit_labels_the_result():
    rng = np.random.default_rng(8)
    ds = make_data(rng, 7, 300)
    exact = optimum_for_order(ds, range(7))
    r = optimum_for_order(ds, range(7), time_limit=1e-9)
    assert r.status == "time_limit" and r.stats["unfinished"]
    assert r.dual_bound >= exact.score - tol(exact.score)
    assert r.score <= exact.score + tol(exact.score)
    e = epsilon_set_for_order(ds, range(7), 1.0, time_limit=1e-9)
    assert e.reason == "time_limit" and e.threshold is None


@pytest.mark.slow
def test_processes_give_the_serial_answer():
    rng = np.random.default_rng(12)
    ds = make_data(rng, 8, 400)
    a = optimum_for_order(ds, range(8))
    b = optimum_for_order(ds, range(8), n_jobs=2)
    assert a.parents == b.parents and a.score == b.score and b.stats["n_jobs"] == 2
    c = epsilon_set_for_order(ds, range(8), 2.0, n_jobs=2)
    d = epsilon_set_for_order(ds, range(8), 2.0)
    assert c.entries == d.entries


def test_xor_under_order_keeps_the_five_parent_family():
    ds = xor_data()
    r = optimum_for_order(ds, ["U1", "U2", "U3", "U4", "U5", "X"])
    assert r.parents[5] == (0, 1, 2, 3, 4)
    assert r.stats["per_node"]["X"]["depth_bound"] == 5


@pytest.mark.parametrize("order, exc", [
    (["A", "B"], ConstraintError),
    (["A", "B", "B"], ConstraintError),
    (["A", "B", "Z"], ConstraintError),
    ([0, 1, 5], ConstraintError),
    ("ABC", ConstraintError),
])
def test_bad_orders(order, exc):
    ds = Dataset(("A", "B", "C"), np.array([2, 2, 2]), np.zeros((5, 3), dtype=int))
    with pytest.raises(exc) as info:
        optimum_for_order(ds, order)
    assert isinstance(info.value, GobnilpError) and "\n" not in str(info.value)


@pytest.mark.parametrize("call, exc", [
    (lambda ds: optimum_for_order(ds.codes, [0, 1, 2]), DataError),
    (lambda ds: optimum_for_order(ds, [0, 1, 2], palim=-1), ConfigError),
    (lambda ds: optimum_for_order(ds, [0, 1, 2], time_limit=0), ConfigError),
    (lambda ds: optimum_for_order(ds, [0, 1, 2], n_jobs=0), ConfigError),
    (lambda ds: epsilon_set_for_order(ds, [0, 1, 2], -1.0), ConfigError),
    (lambda ds: epsilon_set_for_order(ds, [0, 1, 2], 1.0, max_networks=0), ConfigError),
])
def test_bad_settings(call, exc):
    ds = Dataset(("A", "B", "C"), np.array([2, 2, 2]), np.zeros((5, 3), dtype=int))
    with pytest.raises(exc) as info:
        call(ds)
    assert isinstance(info.value, GobnilpError) and "\n" not in str(info.value)


def test_resolve_order_accepts_names_and_indices():
    assert resolve_order(("A", "B", "C"), ["C", "A", "B"]) == (2, 0, 1)
    assert resolve_order(("A", "B", "C"), np.array([1, 2, 0])) == (1, 2, 0)
