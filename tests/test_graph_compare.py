"""compare_graphs: SHD (DAGs and CPDAGs), adjacency and arrowhead precision/recall, on hand-computed cases.

The definitions are causal-learn's (``SHD``, ``AdjacencyConfusion``, ``ArrowConfusion``) and bnlearn's
(``shd``: between CPDAGs); the numbers below are worked out by hand in the comments.  When causal-learn
is installed, ``benchmarks/crosscheck_graph_compare_causallearn.py`` checks random pairs against it.
"""

from __future__ import annotations

import doctest
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gobnilp_py.graph_compare as gc
from gobnilp_py import Network, compare_graphs, cpdag
from gobnilp_py.equivalence import class_key
from gobnilp_py.errors import DataError


def net(names, edges):
    return Network.from_edges(list(names), edges, score=0.0)


def counts(c):
    return (c.tp, c.fp, c.fn)


def test_module_examples():
    assert doctest.testmod(gc).failed == 0


def test_chain_against_a_triangle():
    # true a -> b -> c; learned b -> a, b -> c, a -> c.
    # as given: (a,b) reversed, (a,c) extra, (b,c) equal -> SHD 2.
    # CPDAGs: a - b - c (no v-structure) and the complete undirected triangle -> only (a,c) differs.
    # adjacencies: true {ab, bc}, learned {ab, bc, ac}: TP 2, FP 1, FN 0.
    # arrowheads: true {a->b, b->c}, learned {b->a, b->c, a->c}: TP 1 (b->c), FP 2, FN 1.
    # CPDAG arrowheads: none on either side.
    r = compare_graphs(net("abc", [("a", "b"), ("b", "c")]), net("abc", [("b", "a"), ("b", "c"), ("a", "c")]))
    assert (r.shd, r.shd_cpdag) == (2, 1)
    assert counts(r.adjacency) == (2, 1, 0) and r.adjacency.precision == 2 / 3 and r.adjacency.recall == 1.0
    assert counts(r.arrowheads) == (1, 2, 1) and r.arrowheads.precision == 1 / 3 and r.arrowheads.recall == 0.5
    assert counts(r.cpdag_arrowheads) == (0, 0, 0)
    assert math.isnan(r.cpdag_arrowheads.precision) and math.isnan(r.cpdag_arrowheads.recall)
    assert [(d.u, d.v, d.true, d.learned, d.kind) for d in r.differences] == [
        ("a", "b", "a -> b", "b -> a", "reversed"), ("a", "c", "none", "a -> c", "extra")]
    assert [(d.u, d.v, d.kind) for d in r.cpdag_differences] == [("a", "c", "extra")]


def test_a_lost_v_structure_counts_between_cpdags():
    # true x1 -> x0 <- x2 (a v-structure: both arrows compelled); learned x1 -> x2 -> x0 (a chain).
    # as given: (x0,x1) missing, (x0,x2) equal, (x1,x2) extra -> SHD 2.
    # CPDAGs: {x1 -> x0, x2 -> x0} against x1 - x2 - x0: missing, an arrow against an undirected edge,
    # extra -> SHD 3 (bnlearn's shd and causal-learn's SHD on the CPDAGs).
    t = net(["x0", "x1", "x2"], [("x1", "x0"), ("x2", "x0")])
    e = net(["x0", "x1", "x2"], [("x2", "x0"), ("x1", "x2")])
    r = compare_graphs(t, e)
    assert (r.shd, r.shd_cpdag) == (2, 3)
    assert [d.kind for d in r.cpdag_differences] == ["missing", "orientation", "extra"]
    assert r.cpdag_differences[1].true == "x2 -> x0" and r.cpdag_differences[1].learned == "x0 - x2"
    assert counts(r.arrowheads) == (1, 1, 1)  # x2 -> x0 in both; x1 -> x2 extra; x1 -> x0 missing
    assert counts(r.cpdag_arrowheads) == (0, 0, 2) and r.cpdag_arrowheads.recall == 0.0
    assert math.isnan(r.cpdag_arrowheads.precision)


def test_equivalent_dags_are_at_cpdag_distance_zero():
    t = net("abc", [("a", "b"), ("b", "c")])
    e = net("abc", [("c", "b"), ("b", "a")])  # the same class, every arrow reversed
    r = compare_graphs(t, e)
    assert (r.shd, r.shd_cpdag) == (2, 0)
    assert counts(r.adjacency) == (2, 0, 0) and counts(r.arrowheads) == (0, 2, 2)
    same = compare_graphs(t, t)
    assert (same.shd, same.shd_cpdag, same.differences) == (0, 0, ())
    assert same.adjacency.precision == same.adjacency.recall == same.arrowheads.f1 == 1.0


def test_every_input_form_gives_the_same_numbers():
    names = ["asia", "tub", "smoke", "lung", "either"]
    t = net(names, [("asia", "tub"), ("tub", "either"), ("lung", "either"), ("smoke", "lung")])
    e = net(names, [("tub", "asia"), ("tub", "either"), ("smoke", "either"), ("lung", "smoke")])
    want = compare_graphs(t, e)
    from gobnilp_py.interop import adjacency_matrix

    amat = adjacency_matrix(e)
    perm = list(reversed(names))
    forms = [
        e.to_networkx(),
        amat,
        amat.loc[perm, perm],                       # another order
        (amat.to_numpy(), names),
        {"names": names, "parents": e.parents},
    ]
    for form in forms:
        got = compare_graphs(t, form)
        assert got == want, type(form)
    assert compare_graphs(t, amat.to_numpy(), names=names) == want
    # the true graph as a CPDAG changes only the as-given figures (they become the CPDAG's)
    via_cpdag = compare_graphs(cpdag(t), e)
    assert via_cpdag.shd_cpdag == want.shd_cpdag and via_cpdag.cpdag_arrowheads == want.cpdag_arrowheads
    assert via_cpdag.adjacency == want.adjacency
    # a CPDAG as a networkx graph (undirected edges both ways) reads back as the CPDAG
    assert compare_graphs(cpdag(t).to_networkx(), e) == via_cpdag


def test_undirected_networkx_graph_is_a_skeleton():
    g = nx.Graph()
    g.add_nodes_from("abc")
    g.add_edges_from([("a", "b"), ("b", "c")])  # a - b - c: the CPDAG of a chain
    r = compare_graphs(g, net("abc", [("a", "b"), ("b", "c")]))
    assert r.shd_cpdag == 0 and r.shd == 2  # as given: two arrows against two undirected edges


@pytest.mark.parametrize("true, learned, kw, message", [
    (net("ab", [("a", "b")]), net("abc", []), {}, "different variables: only the learned graph has 'c'"),
    (net("ab", []), np.array([[0, 2], [0, 0]]), {"names": ["a", "b"]}, "only 0 and 1"),
    (net("ab", []), np.array([[0, 1], [0, 0]]), {}, "array without variable names"),
    (net("ab", []), np.array([[1, 0], [0, 0]]), {"names": ["a", "b"]}, "self-loop at 'a'"),
    (net("ab", []), pd.DataFrame([[0, 1], [1, 0]], index=["a", "b"], columns=["a", "c"]), {}, "rows and columns"),
    (net("abc", []), nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")]), {}, "cycle"),
    (net("abcd", []), nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]), {}, "not a CPDAG"),
    (net("abc", []), nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")]), {}, "is not a CPDAG"),
    (net("ab", []), "a -> b", {}, "cannot read the learned graph from str"),
])
def test_bad_graphs_are_one_line_errors(true, learned, kw, message):
    with pytest.raises(DataError, match=message) as info:
        compare_graphs(true, learned, **kw)
    assert "\n" not in str(info.value)


def _dag(draw, names):
    order = draw(st.permutations(names))
    edges = [(order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order)) if draw(st.booleans())]
    return net(names, edges)


@st.composite
def dag_pairs(draw):
    n = draw(st.integers(1, 7))
    names = [f"v{i}" for i in range(n)]
    return _dag(draw, names), _dag(draw, names)


@settings(max_examples=150, deadline=None)
@given(dag_pairs())
def test_properties_on_random_dag_pairs(pair):
    t, e = pair
    r, back = compare_graphs(t, e), compare_graphs(e, t)
    # SHD is a distance: symmetric, zero exactly for the same graph / the same class
    assert r.shd == back.shd == len(r.differences) and r.shd_cpdag == back.shd_cpdag
    assert (r.shd == 0) == (t.parents == e.parents)
    assert (r.shd_cpdag == 0) == (class_key(t.names, t.parents) == class_key(e.names, e.parents))
    # swapping the graphs swaps false positives and false negatives
    for a, b in ((r.adjacency, back.adjacency), (r.arrowheads, back.arrowheads),
                 (r.cpdag_arrowheads, back.cpdag_arrowheads)):
        assert (a.tp, a.fp, a.fn) == (b.tp, b.fn, b.fp)
    # the pieces add up: missing + extra pairs are the skeleton's FN + FP, reversals are among shared pairs
    kinds = [d.kind for d in r.differences]
    assert kinds.count("missing") == r.adjacency.fn and kinds.count("extra") == r.adjacency.fp
    assert r.adjacency.tp + r.adjacency.fn == t.n_edges and r.arrowheads.tp + r.arrowheads.fn == t.n_edges
    assert r.arrowheads.tp == r.adjacency.tp - kinds.count("reversed")
    ckinds = [d.kind for d in r.cpdag_differences]  # a CPDAG keeps its DAG's skeleton
    assert ckinds.count("missing") == r.adjacency.fn and ckinds.count("extra") == r.adjacency.fp
    d = r.to_dict()
    assert d["shd"] == r.shd and len(d["differences"]) == r.shd


def test_text_and_html_summaries():
    r = compare_graphs(net("abc", [("a", "b"), ("b", "c")]), net("abc", [("b", "a"), ("b", "c"), ("a", "c")]))
    text = str(r)
    assert text.splitlines()[0] == "SHD 2 (DAGs as given), 1 (CPDAGs)"
    assert "arrowheads (CPDAG)      0    0    0        nan     nan" in text
    html = r._repr_html_()
    assert "<b>SHD 2</b>" in html and "a -&gt; b / b -&gt; a" in html
    assert r.to_dict()["cpdag_arrowheads"]["precision"] is None


def test_against_causal_learn_when_installed():
    pytest.importorskip("causallearn")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "crosscheck_graph_compare_causallearn.py"
    spec = importlib.util.spec_from_file_location("crosscheck", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--pairs", "300"]) == 0
