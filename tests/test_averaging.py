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
