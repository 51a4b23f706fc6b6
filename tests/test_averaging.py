"""Tests of model averaging: network weights, edge/arrow/class probabilities."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.equivalence import (
    arrow_probabilities,
    class_key,
    edge_probabilities,
    feature_table,
    group_by_class,
    mec_probabilities,
    network_weights,
)
from gobnilp_py.errors import DataError, ScoreError
from gobnilp_py.network import Network

LN2 = math.log(2.0)


def _hand_example():
    """a -> b and b -> a (equivalent, score -10), and the empty graph, half as likely."""
    names = ("a", "b", "c")
    return [
        Network(names, {"b": ("a",)}, score=-10.0),
        Network(names, {"a": ("b",)}, score=-10.0),
        Network(names, {}, score=-10.0 - LN2),
        {"names": names, "parents": {"c": ("a",), "b": ("a",)}, "score": -10.0 - 2 * LN2},
    ]


def test_hand_computed_example():
    nets = _hand_example()
    # relative weights 1, 1, 1/2, 1/4 -> total 11/4
    w = network_weights(nets)
    np.testing.assert_allclose(w, [4 / 11, 4 / 11, 2 / 11, 1 / 11], rtol=1e-12)
    np.testing.assert_allclose(network_weights(nets, normalise=False), [1, 1, 0.5, 0.25], rtol=1e-12)

    arrows = arrow_probabilities(nets)
    assert list(arrows.index) == ["a", "b", "c"] and list(arrows.columns) == ["a", "b", "c"]
    assert arrows.loc["a", "b"] == pytest.approx(5 / 11)
    assert arrows.loc["b", "a"] == pytest.approx(4 / 11)
    assert arrows.loc["a", "c"] == pytest.approx(1 / 11)
    assert arrows.loc["c", "a"] == 0.0 and arrows.loc["b", "c"] == 0.0

    edges = edge_probabilities(nets)
    assert edges.loc["a", "b"] == pytest.approx(9 / 11) == edges.loc["b", "a"]
    assert edges.loc["a", "c"] == pytest.approx(1 / 11)
    assert edges.loc["b", "c"] == 0.0
    assert np.all(np.diag(edges.to_numpy()) == 0)

    mec = mec_probabilities(nets)
    assert list(mec["n_networks"]) == [2, 1, 1]
    np.testing.assert_allclose(mec["probability"], [8 / 11, 2 / 11, 1 / 11], rtol=1e-12)
    np.testing.assert_allclose(mec["log_bayes_factor"], [0.0, LN2, 2 * LN2], atol=1e-12)
    assert list(mec["rank"]) == [0, 1, 2]
    assert mec["equivalence_class"][0].cpdag.undirected == {frozenset("ab")}

    table = feature_table(nets)
    assert list(table.columns) == ["feature", "source", "target", "probability"]
    assert table.iloc[0].tolist()[:3] == ["edge", "a", "b"]
    assert table["probability"].is_monotonic_decreasing
    got = {(r.feature, r.source, r.target): r.probability for r in table.itertuples()}
    assert got == pytest.approx({
        ("edge", "a", "b"): 9 / 11, ("arrow", "a", "b"): 5 / 11, ("arrow", "b", "a"): 4 / 11,
        ("edge", "a", "c"): 1 / 11, ("arrow", "a", "c"): 1 / 11,
    })
    only_edges = feature_table(nets, features=("edge",), min_probability=0.5)
    assert only_edges[["feature", "source", "target"]].values.tolist() == [["edge", "a", "b"]]


def test_given_opt_cancels_but_is_checked():
    nets = _hand_example()
    np.testing.assert_allclose(network_weights(nets, opt=-9.0), network_weights(nets), rtol=1e-12)
    np.testing.assert_allclose(network_weights(nets, opt=-9.0, normalise=False),
                               np.exp(np.array([-1, -1, -1 - LN2, -1 - 2 * LN2])), rtol=1e-12)
    mec = mec_probabilities(nets, opt=-9.0)
    np.testing.assert_allclose(mec["log_bayes_factor"], [1.0, 1 + LN2, 1 + 2 * LN2], atol=1e-12)
    with pytest.raises(ScoreError, match="above the given optimum"):
        edge_probabilities(nets, opt=-11.0)
    # a hair above OPT (solver tolerance) is accepted
    edge_probabilities(nets, opt=-10.0 - 1e-9)


def _random_collection(draw, n_max=4):
    n = draw(st.integers(2, n_max))
    names = tuple(f"x{i}" for i in range(n))
    k = draw(st.integers(1, 8))
    nets = []
    for _ in range(k):
        order = draw(st.permutations(range(n)))
        parents = {names[c]: tuple(names[order[i]] for i in range(pos) if draw(st.booleans()))
                   for pos, c in enumerate(order)}
        score = draw(st.floats(-50.0, 0.0, allow_nan=False))
        nets.append(Network(names, parents, score=score))
    return names, nets


@st.composite
def collections_(draw):
    return _random_collection(draw)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(collections_(), st.floats(-1e6, 1e6, allow_nan=False))
def test_probabilities_against_brute_force_and_shift_invariance(case, shift):
    names, nets = case
    s = [x.score for x in nets]
    top = max(s)
    raw = [math.exp(v - top) for v in s]
    z = math.fsum(raw)
    w = [r / z for r in raw]
    arrows = arrow_probabilities(nets)
    edges = edge_probabilities(nets)
    for u, v in itertools.permutations(names, 2):
        want = math.fsum(wk for wk, x in zip(w, nets) if u in x.parents[v])
        assert arrows.loc[u, v] == pytest.approx(want, abs=1e-12)
        adj = math.fsum(wk for wk, x in zip(w, nets) if u in x.parents[v] or v in x.parents[u])
        assert edges.loc[u, v] == pytest.approx(adj, abs=1e-12)
    for df in (arrows, edges):
        a = df.to_numpy()
        assert np.all(a >= 0.0) and np.all(a <= 1.0)
    assert np.array_equal(edges.to_numpy(), edges.to_numpy().T)
    mec = mec_probabilities(nets)
    assert mec["probability"].sum() == pytest.approx(1.0, abs=1e-12)
    for row in mec.itertuples():
        members = row.equivalence_class.members
        assert row.probability == pytest.approx(math.fsum(w[nets.index(m)] for m in members), abs=1e-12)
        assert len({class_key(names, m.parents) for m in members}) == 1

    shifted = [Network(names, x.parents, score=x.score + shift) for x in nets]
    pd.testing.assert_frame_equal(arrow_probabilities(shifted), arrows, atol=1e-9, rtol=0)
    pd.testing.assert_frame_equal(edge_probabilities(shifted), edges, atol=1e-9, rtol=0)
    np.testing.assert_allclose(mec_probabilities(shifted)["probability"], mec["probability"], atol=1e-9)


def test_huge_score_gaps_do_not_overflow():
    names = ("a", "b")
    nets = [
        Network(names, {"b": ("a",)}, score=-1e6),
        Network(names, {}, score=-1e6 - 1e4),
        Network(names, {"a": ("b",)}, score=-1e6 - 2e4),
    ]
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error")
        w = network_weights(nets)
        raw = network_weights(nets, normalise=False)
        a = arrow_probabilities(nets)
        mec = mec_probabilities(nets)
    assert w.tolist() == [1.0, 0.0, 0.0]
    assert raw.tolist() == [1.0, 0.0, 0.0]
    assert a.loc["a", "b"] == 1.0 and a.loc["b", "a"] == 0.0
    assert mec["probability"].tolist() == [1.0, 0.0]
    assert mec["log_bayes_factor"].tolist() == [0.0, 1e4]
    # positive scores of huge magnitude too
    big = [Network(names, {}, score=1e300), Network(names, {"b": ("a",)}, score=1e300)]
    np.testing.assert_allclose(network_weights(big), [0.5, 0.5])


def test_group_by_class_consistent_with_mec_probabilities():
    nets = _hand_example()
    classes = group_by_class(nets)
    a = mec_probabilities(nets, classes=classes)
    b = mec_probabilities(nets)
    pd.testing.assert_frame_equal(a.drop(columns="equivalence_class"), b.drop(columns="equivalence_class"))
    with pytest.raises(DataError, match="classes hold"):
        mec_probabilities(nets, classes=classes[:1])


def test_errors():
    with pytest.raises(ScoreError, match="no networks"):
        edge_probabilities([])
    with pytest.raises(ScoreError, match="no score"):
        edge_probabilities([{"names": "ab", "parents": {}}])
    with pytest.raises(ScoreError, match="non-finite"):
        arrow_probabilities([{"names": "ab", "parents": {}, "score": float("nan")}])
    with pytest.raises(DataError, match="unknown parent"):
        arrow_probabilities([{"names": "ab", "parents": {"a": ("z",)}, "score": 0.0}])
    with pytest.raises(DataError, match="own parent"):
        arrow_probabilities([{"names": "ab", "parents": {"a": ("a",)}, "score": 0.0}])
    with pytest.raises(DataError, match="listed twice"):
        arrow_probabilities([{"names": "ab", "parents": {"b": ("a", "a")}, "score": 0.0}])
    with pytest.raises(DataError, match="feature"):
        feature_table(_hand_example(), features=("edges",))
    with pytest.raises(DataError, match="not those of network 0"):
        edge_probabilities([{"names": "ab", "parents": {}, "score": 0.0},
                            {"names": "abc", "parents": {}, "score": 0.0}])


def test_networks_in_another_variable_order_are_aligned():
    nets = [
        {"names": ("a", "b"), "parents": {"b": ("a",)}, "score": 0.0},
        {"names": ("b", "a"), "parents": {"b": ("a",)}, "score": 0.0},
    ]
    a = arrow_probabilities(nets)
    assert a.loc["a", "b"] == pytest.approx(1.0)
    assert len(group_by_class(nets)) == 1


# --------------------------------------------------------------------------- averaging over whole classes

from gobnilp_py.equivalence import (  # noqa: E402
    ClassWeight,
    Extensions,
    MemberConstraints,
    class_arrow_probabilities,
    class_edge_probabilities,
    class_feature_table,
    class_probabilities,
    class_weights,
    cpdag_from_masks,
)


def _random_masks(rng, n, density):
    order = list(range(n))
    rng.shuffle(order)
    masks = [0] * n
    for i, c in enumerate(order):
        for p in order[:i]:
            if rng.random() < density:
                masks[c] |= 1 << p
    return masks


@st.composite
def class_collections(draw):
    import random as _random

    n = draw(st.integers(2, 6))
    names = tuple(f"x{i}" for i in range(n))
    rng = _random.Random(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(1, 4))
    classes = []
    for _ in range(k):
        cp = cpdag_from_masks(names, _random_masks(rng, n, draw(st.floats(0.1, 0.9))))
        classes.append((cp, draw(st.floats(-30.0, 0.0, allow_nan=False))))
    cons = None
    if draw(st.booleans()):
        pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
        cons = MemberConstraints(
            required=frozenset(draw(st.lists(st.sampled_from(pairs), max_size=1))),
            forbidden=frozenset(draw(st.lists(st.sampled_from(pairs), max_size=2))),
            max_parents=draw(st.one_of(st.none(), st.integers(1, 3))),
        )
    return names, classes, cons


@settings(max_examples=80, derandomize=True, deadline=None)
@given(class_collections())
def test_class_averaging_equals_averaging_over_listed_members(case):
    names, classes, cons = case
    weights = []
    nets = []
    for cp, score in classes:
        e = Extensions(cp, cons)
        members = list(e.members())
        for m in members:
            nets.append({"names": names, "parents": {names[v]: tuple(names[p] for p in range(len(names)) if m[v] >> p & 1)
                                                     for v in range(len(names))}, "score": score})
        if cons is None and len(weights) % 2:
            weights.append(ClassWeight(cp, score))  # counts filled in by the function
        else:
            weights.append(ClassWeight(cp, score, e.count(), e.arrow_counts()))
    if not nets:
        with pytest.raises(ScoreError, match="no class has a member"):
            class_arrow_probabilities(weights)
        return
    pd.testing.assert_frame_equal(class_arrow_probabilities(weights), arrow_probabilities(nets), atol=1e-12, rtol=0)
    pd.testing.assert_frame_equal(class_edge_probabilities(weights), edge_probabilities(nets), atol=1e-12, rtol=0)
    ft_c, ft_n = class_feature_table(weights), feature_table(nets)
    assert len(ft_c) == len(ft_n)
    np.testing.assert_allclose(np.sort(ft_c["probability"].to_numpy()), np.sort(ft_n["probability"].to_numpy()), atol=1e-12)
    # class probabilities = sum of member weights per class
    w = network_weights(nets)
    pos = 0
    got = class_probabilities(weights)
    np.testing.assert_allclose(got["probability"], class_weights(weights), atol=1e-15)
    for row, (cp, score) in zip(got.itertuples(), classes):
        n_m = row.n_networks
        assert row.probability == pytest.approx(float(w[pos:pos + n_m].sum()), abs=1e-12)
        assert row.best_score == score and row.cpdag is cp
        pos += n_m
    assert pos == len(nets)


def test_class_averaging_with_astronomically_large_classes():
    """A complete class on 180 nodes has 180! (about 2e329, beyond float) members."""
    n = 180
    names = tuple(f"v{i}" for i in range(n))
    complete = cpdag_from_masks(names, [(1 << j) - 1 for j in range(n)])
    empty = cpdag_from_masks(names, [0] * n)
    fact = math.factorial(n)
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise"):
        warnings.simplefilter("error")
        p = class_weights([ClassWeight(complete, -1000.0), ClassWeight(empty, -10.0)])
        # the empty class's relative mass is exp(990) / 180!: ln(180!) = 757.4..., so the empty class wins
        want_log_ratio = 990.0 - math.lgamma(n + 1)
        assert p[1] == pytest.approx(1 / (1 + math.exp(-want_log_ratio)))
        arrows = class_arrow_probabilities([ClassWeight(complete, -10.0, fact, None), ClassWeight(empty, -10.0)])
    assert arrows.iloc[0, 1] == pytest.approx(0.5) and arrows.iloc[1, 0] == pytest.approx(0.5)
    edges = class_edge_probabilities([ClassWeight(complete, -10.0), ClassWeight(empty, -10.0)])
    assert edges.iloc[0, 1] == pytest.approx(1.0)


def test_class_averaging_errors():
    cp = cpdag_from_masks("abc", [0, 1, 2])  # a - b - c, 3 members
    with pytest.raises(ScoreError, match="no classes"):
        class_edge_probabilities([])
    with pytest.raises(DataError, match="not a ClassWeight"):
        class_edge_probabilities([cp])
    with pytest.raises(ScoreError, match="non-finite"):
        class_edge_probabilities([ClassWeight(cp, float("inf"))])
    with pytest.raises(DataError, match="class size 3"):
        class_edge_probabilities([ClassWeight(cp, 0.0, 2)])
    with pytest.raises(DataError, match="do not add up"):
        class_edge_probabilities([ClassWeight(cp, 0.0, 3, {(0, 1): 1, (1, 0): 1, (1, 2): 1, (2, 1): 2})])
    with pytest.raises(DataError, match="not adjacent"):
        class_edge_probabilities([ClassWeight(cp, 0.0, 3, {(0, 2): 1})])
    with pytest.raises(DataError, match="not a pair"):
        class_edge_probabilities([ClassWeight(cp, 0.0, 3, {("a", "z"): 1})])
    with pytest.raises(DataError, match="not those of class 0"):
        class_edge_probabilities([ClassWeight(cp, 0.0), ClassWeight(cpdag_from_masks("abd", [0, 1, 2]), 0.0)])
    with pytest.raises(ScoreError, match="above the given optimum"):
        class_edge_probabilities([ClassWeight(cp, 0.0)], opt=-1.0)
    # name-keyed arrow counts (as CPDAG.arrow_counts gives them) are accepted
    by_name = class_arrow_probabilities([ClassWeight(cp, 0.0, 3, cp.arrow_counts())])
    assert by_name.loc["b", "a"] == pytest.approx(2 / 3)
    rows = class_probabilities([ClassWeight(cp, 0.0), ClassWeight(cp, -LN2)], opt=1.0)
    np.testing.assert_allclose(rows["probability"], [2 / 3, 1 / 3])
    np.testing.assert_allclose(rows["log_bayes_factor"], [1.0, 1.0 + LN2])
    assert rows["n_networks"].tolist() == [3, 3]
