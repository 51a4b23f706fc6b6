"""Pure cluster-cut functions: cycles, violations, and exactness of the separation sub-IP.

The sub-IP is checked against brute force over every node subset on small
random fractional points: it must find a violated cluster whenever one exists,
return only violated clusters, and include a most violated one.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from random_problems import random_sparse_table
from gobnilp_py.ilp import cluster as cl
from gobnilp_py.search.family_index import FamilyIndex
from gobnilp_py.scoring.table import ScoreTable

SETTINGS = settings(derandomize=True, deadline=None, max_examples=60)


def random_point(rng: np.random.Generator, index: FamilyIndex, support: int = 3) -> np.ndarray:
    """Per node, a random convex combination of a few families (an LP-like point)."""
    x = np.zeros(index.F)
    for v in range(index.n):
        fams = np.arange(index.start[v], index.start[v + 1])
        pick = rng.choice(fams, size=min(support, len(fams)), replace=False)
        w = rng.dirichlet(np.ones(len(pick)))
        x[pick] = w
    return x


def brute_violations(index: FamilyIndex, x: np.ndarray) -> dict[frozenset[int], float]:
    out = {}
    for k in range(2, index.n + 1):
        for c in itertools.combinations(range(index.n), k):
            out[frozenset(c)] = cl.cluster_violation(index, x, c)
    return out


# ------------------------------------------------------------------ cycles
def test_find_cycles_hand_made():
    assert cl.find_cycles([[], [0], [0, 1]]) == []
    cyc = cl.find_cycles([[2], [0], [1], []])
    assert len(cyc) == 1 and set(cyc[0]) == {0, 1, 2}
    two = cl.find_cycles([[1], [0], [3], [2], [0, 2]])
    assert sorted(sorted(c) for c in two) == [[0, 1], [2, 3]]
    assert cl.find_cycles([[0]]) == [[0]]  # a self-loop is a cycle (never produced by a table, but be safe)


@SETTINGS
@given(st.integers(2, 8), st.floats(0.05, 0.6), st.integers(0, 10_000))
def test_find_cycles_agrees_with_networkx(n, p, seed):
    rng = np.random.default_rng(seed)
    adj = (rng.random((n, n)) < p) & ~np.eye(n, dtype=bool)
    parents = [np.flatnonzero(adj[:, v]).tolist() for v in range(n)]
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for v in range(n) for u in parents[v])
    cycles = cl.find_cycles(parents)
    assert (not cycles) == nx.is_directed_acyclic_graph(g)
    seen: set[int] = set()
    for c in cycles:  # each reported cycle is a real directed cycle, and they are node-disjoint
        assert seen.isdisjoint(c)
        seen.update(c)
        for a, b in zip(c, c[1:] + c[:1]):
            assert b in parents[a], "cycle must follow parent pointers"


def test_chosen_parents_takes_union_of_families_on():
    t = ScoreTable(["a", "b", "c"], [[((), -1.0), ((1,), -2.0), ((2,), -3.0)], [((), -1.0)], [((), -1.0)]])
    idx = FamilyIndex.from_table(t)
    x = np.zeros(idx.F)
    x[[1, 2]] = 1.0  # two families of a are "on": both arrows count
    assert cl.chosen_parents(idx, x)[0] == {1, 2}


# -------------------------------------------------------------- violations
def test_cluster_violation_hand_made():
    # a <- {b} 0.6, {} 0.4 ; b <- {a} 0.7, {} 0.3 ; c <- {a, b} 1.0
    t = ScoreTable(["a", "b", "c"], [[((), -1.0), ((1,), -0.5)], [((), -1.0), ((0,), -0.5)],
                                    [((), -1.0), ((0, 1), -0.1)]])
    idx = FamilyIndex.from_table(t)
    x = np.zeros(idx.F)
    x[idx.start[0] + t.families[0].index(((1,), -0.5))] = 0.6
    x[idx.start[0] + t.families[0].index(((), -1.0))] = 0.4
    x[idx.start[1] + t.families[1].index(((0,), -0.5))] = 0.7
    x[idx.start[1] + t.families[1].index(((), -1.0))] = 0.3
    x[idx.start[2] + t.families[2].index(((0, 1), -0.1))] = 1.0
    assert cl.cluster_violation(idx, x, {0, 1}) == pytest.approx(0.6 + 0.7 - 1)
    assert cl.cluster_violation(idx, x, {0, 1, 2}) == pytest.approx(0.6 + 0.7 + 1.0 - 2)
    assert cl.cluster_violation(idx, x, {0, 2}) == pytest.approx(0.0 + 1.0 - 1)
    w = cl.arrow_weights(idx, x)
    assert w[1, 0] == pytest.approx(0.6) and w[0, 1] == pytest.approx(0.7) and w[0, 2] == pytest.approx(1.0)
    found = dict(cl.cycle_clusters(idx, x, min_violation=1e-6))
    assert set(found) == {frozenset({0, 1})}
    exact = dict(cl.exact_clusters(idx, x, min_violation=1e-6))
    # {a,b} and {a,b,c} are both violated by 0.3 (the maximum); the sub-IP returns what it met, at least one.
    assert exact and set(exact) <= {frozenset({0, 1}), frozenset({0, 1, 2})}
    assert max(exact.values()) == pytest.approx(0.3)


def test_sub_ip_finds_cluster_the_cycle_heuristic_misses():
    # Every arrow carries 0.5, so no 2-cycle or 3-cycle has cost < 1, yet {a,b,c} is violated by 1.
    t = ScoreTable(["a", "b", "c"], [[((), -9.0), ((1,), -1.0), ((2,), -1.0)],
                                    [((), -9.0), ((0,), -1.0), ((2,), -1.0)],
                                    [((), -9.0), ((0,), -1.0), ((1,), -1.0)]])
    idx = FamilyIndex.from_table(t)
    x = np.where(idx.n_parents > 0, 0.5, 0.0)
    assert cl.cycle_clusters(idx, x, min_violation=1e-6) == []
    exact = cl.exact_clusters(idx, x, min_violation=1e-6)
    assert exact and exact[0][0] == frozenset({0, 1, 2}) and exact[0][1] == pytest.approx(1.0)


def test_integral_cycle_is_violated_by_one():
    t = random_sparse_table(np.random.default_rng(1), 5)
    idx = FamilyIndex.from_table(t)
    rng = np.random.default_rng(2)
    for _ in range(50):
        x = np.zeros(idx.F)
        for v in range(idx.n):
            x[rng.integers(idx.start[v], idx.start[v + 1])] = 1.0
        for c in cl.find_cycles(cl.chosen_parents(idx, x)):
            assert cl.cluster_violation(idx, x, c) == pytest.approx(1.0)


# ------------------------------------------------------- exact separation
def fractional_case(n: int, support: int, seed: int):
    """A random table, a random fractional point on it, and every cluster's violation by brute force."""
    rng = np.random.default_rng(seed)
    idx = FamilyIndex.from_table(random_sparse_table(rng, n, k=6))
    x = random_point(rng, idx, support)
    return idx, x, brute_violations(idx, x)


@SETTINGS
@given(st.integers(2, 7), st.integers(1, 4), st.integers(0, 100_000))
def test_exact_separation_matches_brute_force(n, support, seed):
    tol = 1e-4
    idx, x, brute = fractional_case(n, support, seed)
    violated = {c for c, v in brute.items() if v > tol}
    exact = cl.exact_clusters(idx, x, min_violation=tol)
    got = {c for c, _ in exact}
    assert got <= violated, "returned a cluster that is not violated"
    assert bool(got) == bool(violated), "sub-IP missed every violated cluster"
    if violated:  # SCIP's optimum is among the solutions returned
        assert max(v for _, v in exact) == pytest.approx(max(brute.values()), abs=1e-6)
    for c, v in exact:
        assert v == pytest.approx(brute[c])
    cyc = cl.cycle_clusters(idx, x, min_violation=tol)
    assert {c for c, _ in cyc} <= violated, "cycle heuristic returned a cluster that is not violated"


@SETTINGS
@given(st.integers(2, 7), st.integers(0, 100_000))
def test_every_cut_is_valid_for_every_dag(n, seed):
    """Cluster inequalities never cut off an acyclic point (the exactness of every cut)."""
    rng = np.random.default_rng(seed)
    t = random_sparse_table(rng, n, k=4)
    idx = FamilyIndex.from_table(t)
    clusters = [c for k in range(2, n + 1) for c in itertools.combinations(range(n), k)]
    for _ in range(20):
        order = rng.permutation(n)
        pos = np.empty(n, dtype=int)
        pos[order] = np.arange(n)
        x = np.zeros(idx.F)
        for v in range(n):  # a random family respecting the order, else the empty set
            ok = [f for f in range(idx.start[v], idx.start[v + 1]) if all(pos[p] < pos[v] for p in idx.parents[f])]
            x[rng.choice(ok)] = 1.0
        assert not cl.find_cycles(cl.chosen_parents(idx, x))
        assert max(cl.cluster_violation(idx, x, c) for c in clusters) <= 1e-12


@SETTINGS
@given(st.integers(2, 7), st.integers(1, 4), st.integers(0, 100_000))
def test_subset_enumeration_matches_brute_force(n, support, seed):
    tol = 1e-4
    idx, x, brute = fractional_case(n, support, seed)
    violated = {c: v for c, v in brute.items() if v > tol}
    got = cl.enumerate_clusters(idx, x, min_violation=tol, max_nodes=n, max_cuts=1000)
    assert got is not None
    assert dict(got) == pytest.approx(violated)  # with no cap: exactly the violated clusters
    top = cl.enumerate_clusters(idx, x, min_violation=tol, max_nodes=n, max_cuts=3)
    assert len(top) == min(3, len(violated))
    if violated:
        assert top[0][1] == pytest.approx(max(violated.values()))
    assert cl.enumerate_clusters(idx, x, min_violation=tol, max_nodes=0) in (None, [])


# ------------------------------------------------------------------ sparse rows
@SETTINGS
@given(st.integers(2, 7), st.integers(1, 3), st.integers(1, 4), st.integers(0, 100_000))
def test_sparse_row_equals_the_cluster_row_on_the_convexity_rows(n, k, support, seed):
    """``sparse_row`` rewrites members through ``sum x[v] = 1``: same slack at every point that satisfies them."""
    rng = np.random.default_rng(seed)
    index = FamilyIndex.from_table(random_sparse_table(rng, n, k=6, max_par=4))
    x = random_point(rng, index, support)
    shorter = 0
    for size in range(max(2, k + 1), n + 1):
        for c in itertools.combinations(range(n), size):
            counted = cl.counted_families(index, c, k)
            fams, coefs, rhs = cl.sparse_row(index, c, counted, float(size - k))
            assert fams.size <= counted.size
            assert set(np.unique(index.child[fams]).tolist()) <= set(c)
            dense = x[counted].sum() - (size - k)
            assert float(coefs @ x[fams]) - rhs == pytest.approx(dense, abs=1e-12)
            shorter += fams.size < counted.size
    if n >= 4 and k == 1:  # the rewrite happens (a cluster of all nodes counts almost every family)
        assert shorter > 0
