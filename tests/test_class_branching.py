"""The class-invariant branching rule of class-level collection (``gobnilp_py/ilp/class_branching.py``).

The rule is exact when the two children of each of its branchings hold every integral point of the
node between them, and it makes progress when both children cut off the LP point.  Checked directly
(every DAG on 4 and 5 nodes against the families the rule picks, at random fractional points), and
end to end: class-level collection with the rule equals brute force and collection without it, also
when the rule leaves some points to SCIP's own branching.
"""

from __future__ import annotations

import numpy as np
import pytest

from gobnilp_py import enumerate_networks, read_data, score
from gobnilp_py.ilp import class_branching, settings
from gobnilp_py.ilp.class_branching import ClassBranching
from gobnilp_py.search.family_index import FamilyIndex
from oracle_dags import all_dags_array
from random_problems import random_data
from test_enumerate import assert_same, brute_force


@pytest.fixture(autouse=True)
def _rule_always_on(monkeypatch):
    """The rule's own tests keep it on whatever the classes' sizes (``DECIDE_AFTER = 0``, and no
    optimum's class too small); a test that checks the decision sets the thresholds again itself."""
    monkeypatch.setattr(class_branching, "DECIDE_AFTER", 0)
    monkeypatch.setattr(class_branching, "MIN_OPTIMUM_CLASS_SIZE", 0)


def _dag_points(index: FamilyIndex, dags: np.ndarray) -> np.ndarray:
    """0/1 family vectors (DAGs x families) of the DAGs whose every family the table holds."""
    lookup = {(int(index.child[f]), sum(1 << p for p in index.parents[f])): f for f in range(index.F)}
    rows = []
    for dag in dags:
        fams = [lookup.get((v, int(m))) for v, m in enumerate(dag)]
        if None in fams:
            continue
        x = np.zeros(index.F)
        x[fams] = 1.0
        rows.append(x)
    return np.array(rows)


@pytest.mark.parametrize("n, seed", [(4, 0), (4, 1), (5, 2), (5, 3)])
def test_chosen_quantity_is_an_adjacency_or_vstructure_and_splits_every_dag(n, seed):
    rng = np.random.default_rng(seed)
    table = score(read_data(random_data(rng, n, 40)), prune=False)  # every parent set: every DAG is a point
    index = FamilyIndex.from_table(table)
    rule = ClassBranching(index, [])
    dags = all_dags_array(n)
    points = _dag_points(index, dags)
    assert len(points) == len(dags)
    kinds = set()
    for _ in range(300):
        k = int(rng.integers(2, 4))
        w = rng.dirichlet(np.ones(k))
        x = w @ points[rng.choice(len(points), size=k, replace=False)]  # a fractional point of the DAG polytope
        pick = rule.choose(x)
        if pick is None:
            continue
        kind, nodes, fams, value = pick
        kinds.add(kind)
        assert value == pytest.approx(x[fams].sum())
        assert class_branching.TOL < value < 1.0 - class_branching.TOL  # both children cut x off
        counted = points[:, fams].sum(axis=1)
        if kind == "adjacency":
            a, b = nodes
            truth = ((dags[:, a] >> b) & 1) | ((dags[:, b] >> a) & 1)
        else:
            a, b, c = nodes
            truth = ((dags[:, c] >> a) & 1) & ((dags[:, c] >> b) & 1)
            # only for a pair the point leaves non-adjacent
            pair = [f for f in range(index.F) if (index.child[f] == a and b in index.parents[f])
                    or (index.child[f] == b and a in index.parents[f])]
            assert x[pair].sum() <= class_branching.TOL
        # the quantity is exactly the adjacency / v-structure indicator of every DAG: each DAG lies in
        # exactly one child (= 0: families fixed to 0; >= 1: the local constraint)
        np.testing.assert_array_equal(counted, truth)
    assert kinds == {"adjacency"} or kinds == {"adjacency", "vstructure"}
    assert "adjacency" in kinds


def _problems():
    for seed in range(24):
        rng = np.random.default_rng(1000 + seed)
        n = 4 + seed % 2
        yield seed, read_data(random_data(rng, n, int(rng.integers(30, 90)))), float(rng.uniform(2.0, 8.0))


def test_collection_with_the_rule_equals_brute_force_and_collection_without_it(monkeypatch):
    branched = {"branch_adjacency": 0, "branch_vstructure": 0}
    for seed, data, eps in _problems():
        full = score(data, prune=False)
        expected = brute_force(full, eps)
        monkeypatch.setattr(settings, "CLASS_BRANCHING", True)
        cs = enumerate_networks(data, epsilon=eps, method="ilp", by="class")
        assert_same(cs, expected)
        for k in branched:
            branched[k] += cs.stats.get(k, 0)
        monkeypatch.setattr(settings, "CLASS_BRANCHING", False)
        off = enumerate_networks(data, epsilon=eps, method="ilp", by="class")
        assert "branch_adjacency" not in off.stats
        assert_same(off, expected)
        assert (cs.n_networks_total, cs.n_classes_total) == (off.n_networks_total, off.n_classes_total)
    # the rule was used, both kinds (else this test would not check it)
    assert branched["branch_adjacency"] > 0 and branched["branch_vstructure"] > 0


def test_points_left_to_scip_branching_stay_exact(monkeypatch):
    """With a coarse tolerance the rule passes many points to SCIP's rule: both kinds of branching mix."""
    monkeypatch.setattr(class_branching, "TOL", 0.3)
    passed = used = 0
    for seed, data, eps in _problems():
        expected = brute_force(score(data, prune=False), eps)
        cs = enumerate_networks(data, epsilon=eps, method="ilp", by="class")
        assert_same(cs, expected)
        passed += cs.stats["branch_passed"]
        used += cs.stats["branch_adjacency"] + cs.stats["branch_vstructure"]
    assert passed > 0 and used > 0


def test_kbest_by_class_with_the_rule_equals_without(monkeypatch):
    from gobnilp_py import kbest

    for seed, data, _ in list(_problems())[:8]:
        monkeypatch.setattr(settings, "CLASS_BRANCHING", True)
        on = kbest(data, 5, method="ilp", by="class")
        monkeypatch.setattr(settings, "CLASS_BRANCHING", False)
        off = kbest(data, 5, method="ilp", by="class")
        assert [n.key for n in on.networks] == [n.key for n in off.networks]


@pytest.mark.parametrize("min_mean", [1.0, 7.0, 1e9])
def test_rule_decides_from_the_first_classes_and_stays_exact(monkeypatch, min_mean):
    """The rule goes on iff the first DECIDE_AFTER classes have MIN_MEAN_CLASS_SIZE members on average;
    either way the set is exact.  The mean it read is checked against the classes of the result."""
    monkeypatch.setattr(class_branching, "DECIDE_AFTER", 2)
    monkeypatch.setattr(class_branching, "MIN_MEAN_CLASS_SIZE", min_mean)
    decided, seen = 0, set()
    for seed, data, eps in list(_problems())[:12]:
        expected = brute_force(score(data, prune=False), eps)
        cs = enumerate_networks(data, epsilon=eps, method="ilp", by="class")
        assert_same(cs, expected)
        mean = cs.stats["branch_mean_class_members"]
        if mean is None:        # fewer than 2 classes, or no branching call after the second one
            assert cs.stats["branch_rule_on"] is True
            continue
        decided += 1
        assert cs.stats["branch_rule_on"] is (mean >= min_mean)
        sizes = [c.n_members for c in cs.classes]
        assert any(2 * mean == a + b for i, a in enumerate(sizes) for b in sizes[i + 1:])
        seen.add(cs.stats["branch_rule_on"])
    assert decided > 0
    if min_mean == 1.0:
        assert seen == {True}
    if min_mean == 1e9:
        assert seen == {False}


@pytest.mark.parametrize("threshold", [1, 3, 10**9])
def test_rule_off_from_the_start_when_the_optimums_class_is_small(monkeypatch, threshold):
    """The optimum search hands its optimum over (``SearchReuse.optimum``); the collection by class reads
    its class size and, under MIN_OPTIMUM_CLASS_SIZE, never branches on class quantities.  The count it
    read is the optimum's class size in the result; either way the set is exact."""
    monkeypatch.setattr(class_branching, "MIN_OPTIMUM_CLASS_SIZE", threshold)
    monkeypatch.setattr(class_branching, "DECIDE_AFTER", 10**9)      # the later decision out of the way
    seen = set()
    for seed, data, eps in list(_problems())[:10]:
        expected = brute_force(score(data, prune=False), eps)
        cs = enumerate_networks(data, epsilon=eps, method="ilp", by="class")
        assert_same(cs, expected)
        members = cs.stats["branch_optimum_class_members"]
        tol = 1e-9 * max(1.0, abs(cs.opt))       # a class's score is a canonical member's sum (rounding)
        assert members in {c.n_members for c in cs.classes if abs(c.score - cs.opt) <= tol}
        off = members < threshold
        assert cs.stats["branch_rule_on"] is (not off)
        if off:
            assert cs.stats["branch_adjacency"] == cs.stats["branch_vstructure"] == 0
        seen.add(off)
    if threshold == 1:
        assert seen == {False}
    if threshold == 10**9:
        assert seen == {True}


def test_optimum_search_hands_over_its_optimum_as_parent_sets():
    """``SearchReuse``: the cuts (a list, as before) and the optimum's parent sets, kept through pickling
    (a split collection sends it to its workers)."""
    import pickle

    from gobnilp_py.ilp import engine

    data = read_data(random_data(np.random.default_rng(5), 5, 80))
    table = score(data)
    sol = engine.optimum(table)
    reuse = pickle.loads(pickle.dumps(sol.reuse))
    assert isinstance(reuse, list) and reuse == list(sol.reuse)
    assert reuse.optimum == tuple(tuple(table.families[v][k][0]) for v, k in enumerate(sol.chosen))
    assert engine._optimum_class_size(table.n, reuse) >= 1
    assert engine._optimum_class_size(table.n + 1, reuse) is None


def test_class_sizes_are_the_member_counts_in_the_order_found():
    """``NetworkCollector.class_sizes``: one count per recorded class, in order, each that class's members."""
    from gobnilp_py.equivalence.cpdag import cpdag_from_masks
    from gobnilp_py.ilp.collector import NetworkCollector

    col = NetworkCollector.__new__(NetworkCollector)   # only the fields class_sizes reads
    # a -> b -> c (3 members), a -> c <- b (1 member), a -> b, c alone (2 members); masks over {a, b, c}
    masks = {0: 0, 1: 0b001, 2: 0b010, 3: 0b011, 4: 0}
    col._masks = masks
    col._class_sizes = []
    col.index = type("I", (), {"n": 3})()
    col.classes = {"k1": (0, 1, 2), "k2": (0, 4, 3), "k3": (0, 1, 4)}
    assert col.class_sizes(2) == [3, 1]
    assert col.class_sizes(5) == [3, 1, 2]
    for key, size in zip(col.classes.values(), [3, 1, 2]):
        assert cpdag_from_masks("abc", [masks[f] for f in key]).count_dags() == size
