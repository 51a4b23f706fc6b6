"""CredibleSet.consensus / consensus_network: the arrows (or edges) reaching a threshold, kept acyclic, reported.

Hand-built probability matrices check each rule (skip a cycle-closing arrow; turn a cycle-closing edge);
hypothesis checks on random matrices that the result is what the documented rule gives; real sets check
the probabilities carried and the labels (an incomplete set's consensus says so).
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gobnilp_py as gp
import gobnilp_py.equivalence.consensus as consensus_module
from gobnilp_py import Network
from gobnilp_py.equivalence.consensus import ConsensusNetwork, consensus_network
from gobnilp_py.errors import DataError, ParameterError, ParameterTypeError
from gobnilp_py.solve.credible import CredibleSet

ABC = ["a", "b", "c"]


def test_module_examples():
    assert doctest.testmod(consensus_module).failed == 0


def test_arrows_closing_a_cycle_are_skipped_in_decreasing_probability():
    # a -> b 0.9, b -> c 0.8, c -> a 0.7: the weakest closes the cycle and is skipped
    p = np.array([[0, .9, 0], [0, 0, .8], [.7, 0, 0]])
    c = consensus_network(p, 0.6, names=ABC)
    assert c.edges == [("a", "b"), ("b", "c")]
    assert c.skipped == (("c", "a", 0.7, ("c", "a", "b", "c")),)
    assert c.arrow_probability == {("a", "b"): 0.9, ("b", "c"): 0.8}
    assert "1 arrow with probability >= 0.6 left out because each closes a directed cycle" in c.caveats[0]
    assert "c -> a (0.700)" in c.caveats[0]
    # above 0.7 nothing is skipped: c -> a never qualifies
    assert consensus_network(p, 0.75, names=ABC).skipped == ()


def test_below_one_half_both_directions_can_qualify_and_the_weaker_is_skipped():
    p = np.array([[0, .55, 0], [.45, 0, 0], [0, 0, 0]])
    c = consensus_network(p, 0.4, names=ABC)
    assert c.edges == [("a", "b")] and c.skipped == (("b", "a", 0.45, ("b", "a", "b")),)


def test_ties_are_taken_in_variable_order():
    p = np.array([[0, .6, 0], [0, 0, .6], [.6, 0, 0]])  # a 3-cycle of equal arrows
    c = consensus_network(p, 0.5, names=ABC)
    assert c.edges == [("a", "b"), ("b", "c")] and [s[:2] for s in c.skipped] == [("c", "a")]


def test_edges_rule_keeps_every_pair_and_turns_a_cycle_closing_one():
    # adjacency a-b 0.9 (a -> b), b-c 0.8 (b -> c), a-c 0.7 with c -> a 0.6 against a -> c 0.1
    p = np.array([[0, .9, .1], [0, 0, .8], [.6, 0, 0]])
    c = consensus_network(p, 0.5, names=ABC, on="edges")
    assert sorted(c.edges) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert c.flipped == (("a", "c", pytest.approx(0.1), pytest.approx(0.6)),)
    assert c.edge_probability[("a", "c")] == pytest.approx(0.7)
    assert "1 pair directed against the more probable direction" in c.caveats[0]
    assert "1 pair turned the other way" in c.guarantee
    # the arrows rule drops it instead
    assert consensus_network(p, 0.5, names=ABC).skipped[0][:2] == ("c", "a")


def test_threshold_is_reached_within_the_documented_tolerance():
    p = np.array([[0, 0.5 - 5e-10, 0], [0, 0, 0.5 - 5e-9], [0, 0, 0]])
    c = consensus_network(p, 0.5, names=ABC)
    assert c.edges == [("a", "b")]


@st.composite
def probability_matrices(draw):
    n = draw(st.integers(2, 6))
    a = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            adj = draw(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]))
            d = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
            a[i, j], a[j, i] = adj * d, adj * (1 - d)
    return a, draw(st.sampled_from([0.3, 0.5, 0.6, 1.0]))


def _reach(edges, start, goal):
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        if x == goal:
            return True
        for u, v in edges:
            if u == x and v not in seen:
                seen.add(v)
                todo.append(v)
    return False


@settings(max_examples=200, deadline=None)
@given(probability_matrices())
def test_arrows_rule_on_random_matrices(case):
    a, t = case
    names = [f"v{i}" for i in range(len(a))]
    c = consensus_network(a, t, names=names)
    assert c.is_acyclic()
    idx = {v: i for i, v in enumerate(names)}
    kept = set(c.edges)
    skipped = {(u, v) for u, v, _, _ in c.skipped}
    cand = {(names[i], names[j]) for i in range(len(a)) for j in range(len(a)) if i != j and a[i, j] >= t - 1e-9}
    assert kept | skipped == cand and not kept & skipped
    for u, v, p, cycle in c.skipped:
        # the cycle it closes is made of kept arrows at least as probable
        assert cycle[0] == u and cycle[1] == v and cycle[-1] == u
        for x, y in zip(cycle[1:], cycle[2:]):
            assert (x, y) in kept and a[idx[x], idx[y]] >= p
    # greedy order: putting a skipped arrow back always makes a cycle
    for u, v in skipped:
        assert _reach(kept, v, u)


@settings(max_examples=200, deadline=None)
@given(probability_matrices())
def test_edges_rule_on_random_matrices(case):
    a, t = case
    names = [f"v{i}" for i in range(len(a))]
    c = consensus_network(a, t, names=names, on="edges")
    e = a + a.T
    assert c.is_acyclic()
    assert {frozenset(x) for x in c.edges} == {frozenset((names[i], names[j])) for i in range(len(a))
                                               for j in range(i + 1, len(a)) if e[i, j] >= t - 1e-9}
    idx = {v: i for i, v in enumerate(names)}
    flipped = {(u, v) for u, v, _, _ in c.flipped}
    for u, v in c.edges:  # the more probable direction unless turned
        if (u, v) not in flipped:
            assert a[idx[u], idx[v]] >= a[idx[v], idx[u]]


@pytest.fixture(scope="module")
def cs():
    return gp.enumerate_networks(gp.read_data(gp.example_path("asia")), bayes_factor=20, score="BDeu", palim=3)


def test_consensus_of_a_credible_set_carries_its_probabilities_and_label(cs):
    arrows = cs.arrow_probabilities()
    c = cs.consensus(0.5)
    assert isinstance(c, ConsensusNetwork) and isinstance(c, Network)
    assert math.isnan(c.score) and c.status == "unknown" and c.complete and not c.is_optimal
    for (u, v), p in c.arrow_probability.items():
        assert p == pytest.approx(float(arrows.loc[u, v]), abs=0) and p >= 0.5
    want = {(u, v) for u in arrows.index for v in arrows.columns if arrows.loc[u, v] >= 0.5}
    assert set(c.edges) == want and c.skipped == ()
    assert c.guarantee.startswith("complete: consensus network: the arrows with probability >= 0.5, added in "
                                  "decreasing probability (none closed a cycle), averaged over the listed networks")
    assert c.guarantee.endswith(f"(the set: {cs.guarantee})")
    d = c.to_dict()
    assert d["consensus"]["threshold"] == 0.5 and len(d["consensus"]["arrows"]) == c.n_edges
    low = cs.consensus(0.3)
    assert [s[:2] for s in low.skipped] == [("smoke", "lung")]  # lung -> smoke is the more probable by a hair
    assert float(arrows.loc["lung", "smoke"]) > float(arrows.loc["smoke", "lung"]) >= 0.3
    r = gp.compare_graphs(cs.best, c)
    assert r.shd == len(r.differences)


@pytest.mark.parametrize("max_networks", [None, 50])
def test_consensus_of_a_class_collection_says_what_it_averages_over(max_networks):
    data = gp.read_data(gp.example_path("asia"))
    by_class = gp.enumerate_networks(data, bayes_factor=20, score="BDeu", palim=3, method="ilp", by="class",
                                     max_networks=max_networks)
    c = by_class.consensus(0.5)
    assert f"averaged over {by_class.averages_over}" in c.guarantee and c.complete is by_class.complete
    if max_networks is None:
        assert by_class.averages_over == "all credible networks"
        assert c.guarantee.startswith("complete: consensus network")
    else:
        assert c.guarantee.startswith("INCOMPLETE (max_networks): consensus network")


def test_bad_arguments_are_one_line_errors(cs):
    for bad in (0, 1.5, -0.1, math.nan):
        with pytest.raises(ParameterError, match="threshold"):
            cs.consensus(bad)
    with pytest.raises(ParameterTypeError, match="threshold"):
        cs.consensus("0.5")
    with pytest.raises(ParameterError, match='did you mean "edges"'):
        cs.consensus(0.5, on="edge")
    with pytest.raises(DataError, match="holds no network"):
        CredibleSet(math.nan, 1.0, True, None, []).consensus()
    with pytest.raises(DataError, match="between 0 and 1"):
        consensus_network(np.array([[0, 2.0], [0, 0]]), names=["a", "b"])
    with pytest.raises(DataError, match="need names"):
        consensus_network(np.zeros((2, 2)))


def test_label_of_every_kind_of_set_is_carried():
    from gobnilp_py._wording import UNKNOWN_PREFIX
    from gobnilp_py.equivalence.consensus import source_label

    assert source_label("complete k-best list: the 5 best networks", True) == "complete: "
    assert source_label("INCOMPLETE (time_limit) k-best list: the best networks found", False) == \
        "INCOMPLETE (time_limit): "
    assert source_label(UNKNOWN_PREFIX + "complete: every network with score >= OPT - 3", True) == \
        UNKNOWN_PREFIX + "complete: "
    nets = [Network(("a", "b"), {"b": ("a",)}, -1.0), Network(("a", "b"), {}, -2.0)]
    unknown = CredibleSet(-1.0, 2.0, True, None, nets,
                          caveats=["the score table does not record how it was pruned (read from x.jkl)"])
    c = unknown.consensus(0.5)
    assert unknown.guarantee.startswith("UNKNOWN: ") and c.guarantee.startswith(UNKNOWN_PREFIX + "complete: ")
    assert c.pruning_unknown and c.caveats == tuple(unknown.caveats)
